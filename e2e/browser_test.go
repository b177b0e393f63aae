//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// TestBrowserInDesktopImage drives the browser of the locked-down desktop
// container (no capabilities, no-new-privileges, no network) through
// agentd: a page served inside the sandbox is filled in and posted, the
// server inside sees the post, and google-chrome with a DevTools port as
// OSWorld's tasks launch it is reached on the desktop.
func TestBrowserInDesktopImage(t *testing.T) {
	img := desktopImage
	if v := os.Getenv("DESKRUN_E2E_DESKTOP_IMAGE"); v != "" {
		img = v // an image built under another prefix
	}
	cli := engine(t, img)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: img, Screen: api.Screen{Width: 1024, Height: 768}})
	s := agentSession(inst)
	s.hc.Timeout = 90 * time.Second
	ctx := t.Context()
	run := func(cmd string) {
		t.Helper()
		var res api.ExecResult
		body, _ := json.Marshal(api.ExecRequest{Cmd: []string{"sh", "-c", cmd}, TimeoutMS: 30_000})
		if _, err := s.do(ctx, http.MethodPost, "/exec", bytes.NewReader(body), &res); err != nil || res.ExitCode != 0 {
			t.Fatalf("%s: %v %+v", cmd, err, res)
		}
	}
	browser := func(action string, r api.BrowserRequest) api.BrowserResult {
		t.Helper()
		body, _ := json.Marshal(r)
		var res api.BrowserResult
		if _, err := s.do(ctx, http.MethodPost, "/browser/"+action, bytes.NewReader(body), &res); err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		return res
	}
	// A server inside the sandbox that records what it receives.
	run(`mkdir -p ~/site && cd ~/site && printf '%s' '<meta charset=utf-8><title>In</title><form method=post action=/post><input name=q><button>Go</button></form>' > index.html &&
cat > srv.py <<'PY'
import http.server
class H(http.server.SimpleHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        open('/home/user/site/posted', 'wb').write(self.rfile.read(n))
        self.send_response(200); self.end_headers(); self.wfile.write(b'<title>Posted</title>ok')
http.server.ThreadingHTTPServer(('127.0.0.1', 8765), H).serve_forever()
PY
(setsid python3 srv.py >/dev/null 2>&1 &) ; for i in $(seq 50); do python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8765/")' 2>/dev/null && exit 0; sleep 0.1; done; exit 1`)

	browser("navigate", api.BrowserRequest{URL: "http://127.0.0.1:8765/"})
	v := browser("view", api.BrowserRequest{Screenshot: true})
	if v.Title != "In" || v.Elements != 2 || len(v.Screenshot) == 0 {
		t.Fatalf("view: %q, %d elements:\n%s", v.Title, v.Elements, v.Text)
	}
	zero, one := 0, 1
	browser("input", api.BrowserRequest{Index: &zero, Text: "héllo wörld ✓"})
	browser("click", api.BrowserRequest{Index: &one})
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := s.do(ctx, http.MethodGet, "/files?path=/home/user/site/posted", nil, nil)
		if err == nil {
			if got := string(data); got != "q=h%C3%A9llo+w%C3%B6rld+%E2%9C%93" {
				t.Fatalf("the server received %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the form was not posted")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The browser is a window of the desktop.
	var wl api.WindowList
	if _, err := s.do(ctx, http.MethodGet, "/windows", nil, &wl); err != nil || len(wl.Windows) == 0 {
		t.Fatalf("windows: %+v %v", wl, err)
	}
	browser("restart", api.BrowserRequest{})

	// google-chrome as OSWorld launches it; agentd finds it on the desktop.
	run(`(setsid google-chrome --remote-debugging-port=1337 http://127.0.0.1:8765/ >/dev/null 2>&1 &); for i in $(seq 100); do python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:1337/json/version")' 2>/dev/null && exit 0; sleep 0.2; done; exit 1`)
	tabs := browser("tabs", api.BrowserRequest{Port: -1}).Tabs
	found := false
	for _, tb := range tabs {
		found = found || strings.HasPrefix(tb.URL, "http://127.0.0.1:8765/")
	}
	if !found {
		t.Fatalf("google-chrome's tabs: %+v", tabs)
	}
}
