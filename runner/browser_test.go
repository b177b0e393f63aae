package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/dialect"
)

// TestBrowserToolsOnDesktop drives the sandbox dialect's browser tools on
// a local sandbox (agentd on this host, Chromium on its Xvfb) against a
// page served here: what the form posts reaches the server, the DOM reads
// back, the desktop's screenshot shows the browser.
func TestBrowserToolsOnDesktop(t *testing.T) {
	var mu sync.Mutex
	var got url.Values
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shop</title><h1>Checkout</h1>
<form method="post" action="/buy"><input name="who" placeholder="Name"><select name="qty"><option>1</option><option>2</option><option>3</option></select>
<button>Buy</button></form><img src="/logo.gif" alt="logo" style="width:40px;height:40px"><script>console.log("page ready")</script>`)
	})
	mux.HandleFunc("/logo.gif", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
	mux.HandleFunc("/buy", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		mu.Lock()
		got = r.PostForm
		mu.Unlock()
		fmt.Fprint(w, "<title>Done</title>bought")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	m, _, _ := desktop(t)
	ctx := t.Context()
	s, err := m.Create(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 1024, Height: 768}})
	if err != nil {
		t.Fatal(err)
	}
	call := func(name, args string) dialect.Result {
		t.Helper()
		res, err := s.CallTool(ctx, "sandbox", name, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return res
	}
	ok := func(name, args string, want ...string) string {
		t.Helper()
		res := call(name, args)
		if res.IsError {
			t.Fatalf("%s %s: tool error %q", name, args, res.Text())
		}
		for _, w := range want {
			if !strings.Contains(res.Text(), w) {
				t.Errorf("%s %s: %q lacks %q", name, args, res.Text(), w)
			}
		}
		return res.Text()
	}
	refused := func(name, args, want string) {
		t.Helper()
		res := call(name, args)
		if !res.IsError || !strings.Contains(res.Text(), want) {
			t.Errorf("%s %s: %v %q, want a tool error with %q", name, args, res.IsError, res.Text(), want)
		}
	}
	index := func(page, what string) string {
		t.Helper()
		m := regexp.MustCompile(`\[(\d+)\]<[^\[]*` + regexp.QuoteMeta(what)).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no element with %q in %s", what, page)
		}
		return m[1]
	}

	page := ok("browser_navigate", `{"url":"`+srv.URL+`/"}`, "Title: Shop", "Checkout")
	res := call("browser_view", `{}`)
	if len(res.Content) != 2 || res.Content[1].Type != "image" {
		t.Fatalf("browser_view: want text and a screenshot, got %d parts", len(res.Content))
	}
	// The browser is on the desktop: its window is listed.
	ws, err := s.Windows(ctx)
	if err != nil || len(ws) == 0 {
		t.Fatalf("windows: %v %v", ws, err)
	}
	page = res.Text()
	ok("browser_input", `{"index":`+index(page, `name="who"`)+`,"text":"Łukasz ✓","press_enter":false}`)
	ok("browser_select_option", `{"index":`+index(page, `name="qty"`)+`,"option":2}`)
	refused("browser_select_option", `{"index":`+index(page, `name="qty"`)+`,"option":7}`, "option")
	ok("browser_console_exec", `{"javascript":"document.querySelector('[name=who]').value"}`, `"Łukasz ✓"`)
	refused("browser_console_exec", `{"javascript":"null.x"}`, "TypeError")
	ok("browser_console_view", `{"max_lines":5}`, "[log] page ready")
	dir := t.TempDir()
	out := ok("browser_save_image", `{"coordinate_x":20,"coordinate_y":`+imgY(t, s, ctx)+`,"save_dir":"`+dir+`","base_name":"logo"}`, filepath.Join(dir, "logo.gif"))
	if _, err := os.Stat(filepath.Join(dir, "logo.gif")); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	ok("browser_click", `{"index":`+index(page, `Buy`)+`}`)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		g := got
		mu.Unlock()
		if g != nil {
			if g.Get("who") != "Łukasz ✓" || g.Get("qty") != "3" {
				t.Fatalf("server received %v", g)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the form was not posted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	refused("browser_click", `{"index":0}`, "stale")
	refused("browser_click", `{}`, "index")
	refused("browser_navigate", `{"url":"javascript:alert(1)"}`, "url")
	refused("browser_navigate", `{}`, "url")
	ok("browser_scroll_down", `{"to_bottom":true}`, "Title: Done")
	ok("browser_press_key", `{"key":"Control+a"}`)
	refused("browser_press_key", `{"key":"Bogus"}`, "key")
	ok("browser_move_mouse", `{"coordinate_x":5,"coordinate_y":5}`)
	ok("browser_restart", `{}`)
	ok("browser_view", `{}`, "URL: about:blank")
}

// imgY finds the vertical centre of the page's image in the viewport.
func imgY(t *testing.T, s *Session, ctx context.Context) string {
	res, err := s.Browser(ctx, "console_exec", api.BrowserRequest{JavaScript: `(() => { const r = document.querySelector('img').getBoundingClientRect(); return Math.round(r.top + r.height / 2); })()`})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.Value)
}
