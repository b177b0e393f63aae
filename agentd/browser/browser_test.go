package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
)

// startXvfb starts an X server for the browser's window.
func startXvfb(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Xvfb and Chromium; skipped in -short mode")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Fatal("Xvfb is not installed (scripts/install-deps.sh installs it)")
	}
	if _, err := ExecPath(""); err != nil {
		t.Fatal("Chromium is not installed (scripts/install-deps.sh installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s, _ := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if strings.TrimSpace(s) == "" {
		t.Fatal("Xvfb did not report a display")
	}
	return ":" + strings.TrimSpace(s)
}

// site is the test's web server: it records what forms posted.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	posts []map[string][]string
}

const formPage = `<!doctype html><html><head><title>Form</title></head><body>
<h1>Order</h1>
<form method="post" action="/submit">
<input name="name" placeholder="Your name" value="old text">
<input name="city" placeholder="City">
<select name="size"><option>small</option><option>medium</option><option>large</option></select>
<textarea name="note"></textarea>
<button type="submit">Send</button>
</form>
<p id="out"></p>
<button id="b" onclick="document.getElementById('out').textContent='clicked ' + (++window.n)">Count</button>
<script>window.n = 0; console.log('ready', 42); console.warn('careful');</script>
</body></html>`

func newSite(t testing.TB) *site {
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, formPage) })
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		s.mu.Lock()
		s.posts = append(s.posts, r.PostForm)
		s.mu.Unlock()
		fmt.Fprint(w, "<title>Thanks</title><p>thanks</p>")
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Long</title><body style='margin:0'>")
		for i := range 200 {
			fmt.Fprintf(w, "<p style='height:50px;margin:0'>line %d</p>", i)
		}
		fmt.Fprint(w, "<a href='/form'>bottom link</a></body>")
	})
	mux.HandleFunc("/many", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>Many</title><body>")
		for i := range 1000 {
			fmt.Fprintf(w, "<button onclick='window.hit=%d'>b%d</button>", i, i)
		}
		fmt.Fprint(w, "</body>")
	})
	mux.HandleFunc("/img", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Img</title><body style="margin:0"><img src="/pic" alt="red square" style="display:block;width:100px;height:100px"><p>after</p></body>`)
	})
	mux.HandleFunc("/pic", func(w http.ResponseWriter, r *http.Request) {
		m := image.NewRGBA(image.Rect(0, 0, 10, 10))
		for i := range m.Pix {
			m.Pix[i] = 255
		}
		m.Set(0, 0, color.RGBA{255, 0, 0, 255})
		w.Header().Set("Content-Type", "application/octet-stream") // the format comes from the bytes
		_ = png.Encode(w, m)
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *site) lastPost() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.posts) == 0 {
		return nil
	}
	return s.posts[len(s.posts)-1]
}

func newBrowser(t testing.TB) *Browser {
	display := startXvfb(t)
	b := New(Config{Display: display, ProfileDir: t.TempDir(), DownloadDir: t.TempDir(), LoadTimeout: 3 * time.Second})
	t.Cleanup(b.Close)
	return b
}

// indexOf finds the number the view gave to the element whose label
// contains s.
func indexOf(t *testing.T, v View, s string) int {
	t.Helper()
	for i := range v.Elements {
		tag := fmt.Sprintf("[%d]<", i)
		j := strings.Index(v.Text, tag)
		if j < 0 {
			continue
		}
		end := strings.Index(v.Text[j:], "</")
		if end > 0 && strings.Contains(v.Text[j:j+end], s) {
			return i
		}
	}
	t.Fatalf("no element with %q in the view:\n%s", s, v.Text)
	return -1
}

func TestBrowserTools(t *testing.T) {
	s := newSite(t)
	b := newBrowser(t)
	ctx := t.Context()

	if err := b.Navigate(ctx, s.URL+"/form"); err != nil {
		t.Fatal(err)
	}
	v, err := b.View(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if v.Title != "Form" || !strings.Contains(v.Text, "Order") || v.Elements != 6 {
		t.Fatalf("view: title %q, %d elements:\n%s", v.Title, v.Elements, v.Text)
	}
	if _, err := png.DecodeConfig(strings.NewReader(string(v.Screenshot))); err != nil {
		t.Fatalf("view screenshot: %v", err)
	}

	t.Run("click by index", func(t *testing.T) {
		i := indexOf(t, v, "Count")
		for range 2 {
			if err := b.Click(ctx, Target{Index: &i}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.ConsoleExec(ctx, `document.getElementById('out').textContent`)
		if err != nil || string(got) != `"clicked 2"` {
			t.Fatalf("after two clicks: %s, %v", got, err)
		}
	})

	t.Run("console", func(t *testing.T) {
		lines, err := b.ConsoleLines(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		joined := strings.Join(lines, "\n")
		if !strings.Contains(joined, "[log] ready 42") || !strings.Contains(joined, "[warning] careful") {
			t.Fatalf("console lines: %q", lines)
		}
		if lines, _ := b.ConsoleLines(ctx, 1); len(lines) != 1 {
			t.Fatalf("max_lines 1: %q", lines)
		}
		if _, err := b.ConsoleExec(ctx, `throw new Error("boom here")`); err == nil || !strings.Contains(err.Error(), "boom here") {
			t.Fatalf("exception: %v", err)
		}
		got, err := b.ConsoleExec(ctx, `Promise.resolve({a: [1, "ü"]})`)
		if err != nil || string(got) != `{"a":[1,"ü"]}` {
			t.Fatalf("promise value: %s, %v", got, err)
		}
	})

	t.Run("fill and submit", func(t *testing.T) {
		v, err := b.View(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		name, size, note := indexOf(t, v, `name="name"`), indexOf(t, v, "small"), indexOf(t, v, `name="note"`)
		const unicode = "Zoë 李雷 🚀 ñ"
		if err := b.Input(ctx, Target{Index: &name}, unicode, false); err != nil {
			t.Fatal(err)
		}
		if err := b.Input(ctx, Target{Index: &note}, "line", false); err != nil {
			t.Fatal(err)
		}
		if err := b.SelectOption(ctx, size, 2); err != nil {
			t.Fatal(err)
		}
		if err := b.SelectOption(ctx, size, 3); err == nil || !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "option") {
			t.Fatalf("option out of range: %v", err)
		}
		if err := b.SelectOption(ctx, name, 0); err == nil || !strings.Contains(err.Error(), "not a dropdown") {
			t.Fatalf("select on an input: %v", err)
		}
		got, _ := b.ConsoleExec(ctx, `document.querySelector('[name=name]').value`)
		if want := `"` + unicode + `"`; string(got) != want {
			t.Fatalf("DOM value %s, want %s", got, want)
		}
		// City by coordinates, then Enter submits the form.
		p, err := b.ConsoleExec(ctx, `(() => { const r = document.querySelector('[name=city]').getBoundingClientRect(); return [r.x + 5, r.y + 5]; })()`)
		if err != nil {
			t.Fatal(err)
		}
		var xy [2]float64
		_ = json.Unmarshal(p, &xy)
		if err := b.Input(ctx, Target{X: &xy[0], Y: &xy[1]}, "Paris", true); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for s.lastPost() == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		post := s.lastPost()
		want := map[string]string{"name": unicode, "city": "Paris", "size": "large", "note": "line"}
		for k, w := range want {
			if got := post[k]; len(got) != 1 || got[0] != w {
				t.Errorf("server received %s=%q, want %q", k, got, w)
			}
		}
		// The index of the old page is stale after the navigation.
		if err := b.Click(ctx, Target{Index: &name}); err == nil || !strings.Contains(err.Error(), "stale") {
			t.Fatalf("stale index: %v", err)
		}
	})

	t.Run("scroll", func(t *testing.T) {
		if err := b.Navigate(ctx, s.URL+"/long"); err != nil {
			t.Fatal(err)
		}
		y := func() string { v, _ := b.ConsoleExec(ctx, "Math.round(window.scrollY)"); return string(v) }
		if err := b.Scroll(ctx, 1, false); err != nil {
			t.Fatal(err)
		}
		one := y()
		if one == "0" {
			t.Fatal("scroll down did not move")
		}
		if err := b.Scroll(ctx, 1, true); err != nil {
			t.Fatal(err)
		}
		v, _ := b.View(ctx, false)
		if !strings.Contains(v.Text, "bottom link") {
			t.Fatalf("view at the bottom: %s", v.Text[len(v.Text)-100:])
		}
		if err := b.Scroll(ctx, -1, true); err != nil || y() != "0" {
			t.Fatalf("scroll to top: %v, y %s", err, y())
		}
	})

	t.Run("keys", func(t *testing.T) {
		if err := b.Navigate(ctx, "about:blank"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.ConsoleExec(ctx, `document.body.innerHTML = '<input id=i autofocus>'; window.keys = []; document.addEventListener('keydown', e => keys.push((e.ctrlKey ? 'C+' : '') + e.key)); document.getElementById('i').focus()`); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a", "Shift+B", "Control+a", "Enter", "ArrowUp"} {
			if err := b.PressKey(ctx, k); err != nil {
				t.Fatal(k, err)
			}
		}
		got, _ := b.ConsoleExec(ctx, `keys.join(',')`)
		if string(got) != `"a,B,C+a,Enter,ArrowUp"` {
			t.Fatalf("keys seen: %s", got)
		}
		if err := b.PressKey(ctx, "Hyper+x"); err == nil || !errdefs.IsInvalidArgument(err) {
			t.Fatalf("bad key: %v", err)
		}
		if err := b.MoveMouse(ctx, 10, 10); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("save image", func(t *testing.T) {
		if err := b.Navigate(ctx, s.URL+"/img"); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		p, err := b.SaveImage(ctx, 50, 50, dir, "square")
		if err != nil {
			t.Fatal(err)
		}
		if p != filepath.Join(dir, "square.png") {
			t.Fatalf("saved as %s", p)
		}
		f, _ := os.Open(p)
		m, err := png.Decode(f)
		f.Close()
		if err != nil || m.Bounds().Dx() != 10 {
			t.Fatalf("saved image: %v", err)
		}
		if _, err := b.SaveImage(ctx, 50, 300, dir, "none"); err == nil || !errdefs.IsNotFound(err) {
			t.Fatalf("no image there: %v", err)
		}
		if _, err := b.SaveImage(ctx, 50, 50, "rel", "x"); err == nil || !strings.Contains(err.Error(), "save_dir") {
			t.Fatalf("relative dir: %v", err)
		}
	})

	t.Run("bad input", func(t *testing.T) {
		for _, u := range []string{"javascript:alert(1)", "chrome://settings", "ftp://x", "example.com"} {
			if err := b.Navigate(ctx, u); err == nil || !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "url") {
				t.Errorf("navigate %q: %v", u, err)
			}
		}
		start := time.Now()
		err := b.Navigate(ctx, s.URL+"/hang")
		if err == nil || !errdefs.IsDeadlineExceeded(err) || time.Since(start) > 8*time.Second {
			t.Fatalf("page that never loads: %v after %s", err, time.Since(start))
		}
		if err := b.Click(ctx, Target{}); err == nil || !errdefs.IsInvalidArgument(err) {
			t.Fatalf("click without target: %v", err)
		}
	})

	t.Run("tabs", func(t *testing.T) {
		if err := b.OpenTabs(ctx, []string{s.URL + "/form", s.URL + "/long"}); err != nil {
			t.Fatal(err)
		}
		tabs, err := b.Tabs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var active string
		for _, tb := range tabs {
			if tb.Active {
				active = tb.URL
			}
		}
		if len(tabs) != 3 || active != s.URL+"/long" {
			t.Fatalf("tabs %+v, active %q", tabs, active)
		}
		p, err := b.Page(ctx, "", "")
		if err != nil || p.URL != s.URL+"/long" || p.Title != "Long" || !strings.Contains(p.Content, "bottom link") {
			t.Fatalf("active page: %+v, %v", p.URL, err)
		}
		p, err = b.Page(ctx, "", s.URL+"/form")
		if err != nil || p.Title != "Form" || !strings.Contains(p.Content, "<form") {
			t.Fatalf("page by URL: %+v, %v", p.URL, err)
		}
		if now, _ := b.Tabs(ctx); len(now) != 3 {
			t.Fatalf("page by URL left its tab: %d tabs", len(now))
		}
		var long string
		for _, tb := range tabs {
			if tb.URL == s.URL+"/long" {
				long = tb.ID
			}
		}
		if n, err := b.CloseTabs(ctx, []string{long, "nonesuch"}); err != nil || n != 1 {
			t.Fatalf("close: %d, %v", n, err)
		}
		// The tools follow to a remaining tab.
		if _, err := b.View(ctx, false); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("restart", func(t *testing.T) {
		if err := b.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		tabs, err := b.Tabs(ctx)
		if err != nil || len(tabs) != 1 {
			t.Fatalf("after restart: %+v, %v", tabs, err)
		}
	})
}

// TestBrowserCloseLeavesNoProcess checks that Close ends Chromium.
func TestBrowserCloseLeavesNoProcess(t *testing.T) {
	b := newBrowser(t)
	profile := b.cfg.ProfileDir
	if err := b.Navigate(t.Context(), "about:blank"); err != nil {
		t.Fatal(err)
	}
	if n := processesWith(profile); n == 0 {
		t.Fatal("no Chromium process runs with the profile")
	}
	b.Close()
	deadline := time.Now().Add(5 * time.Second)
	for processesWith(profile) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := processesWith(profile); n > 0 {
		t.Fatalf("%d Chromium processes left after Close", n)
	}
	b.Close() // idempotent
}

// processesWith counts processes whose command line mentions s.
func processesWith(s string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) {
			n++
		}
	}
	return n
}

func BenchmarkView1000(b *testing.B) {
	s := newSite(b)
	br := newBrowser(b)
	ctx := context.Background()
	if err := br.Navigate(ctx, s.URL+"/many"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		v, err := br.View(ctx, false)
		if err != nil || v.Elements != 1000 {
			b.Fatal(v.Elements, err)
		}
	}
}

// BenchmarkNavigate loads a local page and waits for its load event.
func BenchmarkNavigate(b *testing.B) {
	s := newSite(b)
	br := newBrowser(b)
	ctx := context.Background()
	for b.Loop() {
		if err := br.Navigate(ctx, s.URL+"/form"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClickToEvent clicks an element by index and waits until the
// page's handler has run (read back from the DOM).
func BenchmarkClickToEvent(b *testing.B) {
	s := newSite(b)
	br := newBrowser(b)
	ctx := context.Background()
	if err := br.Navigate(ctx, s.URL+"/form"); err != nil {
		b.Fatal(err)
	}
	v, err := br.View(ctx, false)
	if err != nil {
		b.Fatal(err)
	}
	i := v.Elements - 1 // the Count button
	n := 0
	for b.Loop() {
		if err := br.Click(ctx, Target{Index: &i}); err != nil {
			b.Fatal(err)
		}
		n++
		got, err := br.ConsoleExec(ctx, `window.n`)
		if err != nil || string(got) != strconv.Itoa(n) {
			b.Fatalf("after %d clicks the page counted %s (%v)", n, got, err)
		}
	}
}

// TestBrowserBadPointsAndStuckScripts: a coordinate out of range is
// refused naming the field, before it reaches the page; a script that
// never ends is stopped with an error saying so; a page whose own code
// loops makes calls fail with an error that points to the restart, and
// the restart brings the browser back.
func TestBrowserBadPointsAndStuckScripts(t *testing.T) {
	s := newSite(t)
	b := newBrowser(t)
	ctx := t.Context()
	if err := b.Navigate(ctx, s.URL+"/form"); err != nil {
		t.Fatal(err)
	}
	big, neg, nan := 1e39, -5.0, math.NaN()
	zero := 10.0
	for _, tc := range []struct {
		name  string
		call  func() error
		field string
	}{
		{"click x 1e39", func() error { return b.Click(ctx, Target{X: &big, Y: &zero}) }, "coordinate_x"},
		{"input y -5", func() error { return b.Input(ctx, Target{X: &zero, Y: &neg}, "a", false) }, "coordinate_y"},
		{"move NaN", func() error { return b.MoveMouse(ctx, nan, 1) }, "coordinate_x"},
		{"move +Inf", func() error { return b.MoveMouse(ctx, 1, math.Inf(1)) }, "coordinate_y"},
		{"save image 1e39", func() error { _, err := b.SaveImage(ctx, big, 1, t.TempDir(), "x"); return err }, "coordinate_x"},
	} {
		if err := tc.call(); !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(errMsg(err), tc.field+":") {
			t.Errorf("%s: %v, want invalid argument naming %s", tc.name, err, tc.field)
		}
	}
	if err := b.Click(ctx, Target{X: &zero, Y: &zero}); err != nil {
		t.Errorf("a click after the refused ones: %v", err)
	}

	t0 := time.Now()
	_, err := b.ConsoleExec(ctx, `while (true) {}`)
	if err == nil || !strings.Contains(err.Error(), "stopped") || time.Since(t0) > 20*time.Second {
		t.Errorf("an endless script: %v after %v, want it stopped with an error saying so", err, time.Since(t0))
	}
	if v, err := b.ConsoleExec(ctx, `6 * 7`); err != nil || string(v) != "42" {
		t.Errorf("after the stopped script: %s %v", v, err)
	}

	// The page's own code loops: nothing can run in it any more.
	if _, err := b.ConsoleExec(ctx, `setTimeout(() => { while (true) {} }, 0); 1`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := b.MoveMouse(ctx, 5, 5); err == nil || !strings.Contains(err.Error(), "restart") {
		t.Errorf("a call to a looping page: %v, want an error pointing to the restart", err)
	}
	if err := b.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := b.ConsoleExec(ctx, `6 * 7`); err != nil || string(v) != "42" {
		t.Errorf("after the restart: %s %v", v, err)
	}
}

// errMsg strips the errdefs class from an error's text.
func errMsg(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.Index(s, ": "); i >= 0 && strings.Contains(s[:i], "invalid argument") {
		return s[i+2:]
	}
	return s
}
