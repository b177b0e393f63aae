package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
	"github.com/deskrun/deskrun/api"
)

func TestTickets(t *testing.T) {
	var ts tickets
	now := time.Now()
	a := ts.issue("s1", now)
	if !a.ExpiresAt.Equal(now.Add(TicketTTL).UTC()) || len(a.Ticket) < 32 {
		t.Fatalf("ticket %+v", a)
	}
	if ts.check(a.Ticket, "s2", false, true, now) {
		t.Error("a ticket of s1 opened s2")
	}
	if !ts.check(a.Ticket, "s1", false, false, now) || !ts.check(a.Ticket, "s1", false, true, now) {
		t.Fatal("a fresh ticket refused")
	}
	if ts.check(a.Ticket, "s1", false, true, now) || ts.check(a.Ticket, "s1", false, false, now) {
		t.Error("a spent ticket accepted again")
	}
	b := ts.issue("s1", now)
	if ts.check(b.Ticket, "s1", false, true, now.Add(TicketTTL+time.Second)) {
		t.Error("an expired ticket accepted")
	}
	if ts.check(b.Ticket, "s1", true, false, now) {
		t.Error("a ticket accepted as a pass")
	}
	p, _ := ts.add("s1", true, now, PassTTL)
	if ts.check(p, "s1", false, true, now) {
		t.Error("a pass accepted as a ticket")
	}
	if !ts.check(p, "s1", true, false, now) || !ts.check(p, "s1", true, false, now.Add(PassTTL-time.Second)) {
		t.Error("a pass refused within its time")
	}
	if ts.check(p, "s1", true, false, now.Add(PassTTL+time.Second)) || ts.check(p, "s2", true, false, now) {
		t.Error("a pass accepted when expired or for another scope")
	}
}

func newTicket(t *testing.T, base, id string) string {
	t.Helper()
	a := call(t, base, "POST", "/v1/sessions/"+id+"/tickets", testToken, "")
	if a.status != http.StatusCreated {
		t.Fatalf("ticket: %d %s", a.status, a.body)
	}
	conform(t, "Ticket", a.body)
	var tk api.Ticket
	if err := json.Unmarshal(a.body, &tk); err != nil {
		t.Fatal(err)
	}
	return tk.Ticket
}

func dialView(t *testing.T, base, path string, h http.Header) (*rfbtest.Client, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path, &websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{"binary"}})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(-1)
	c, err := rfbtest.Handshake(websocket.NetConn(context.Background(), ws, websocket.MessageBinary))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, resp, nil
}

func TestLiveView(t *testing.T) {
	_, base := localServer(t)
	a := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","screen":{"width":800,"height":600}}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var s api.Session
	json.Unmarshal(a.body, &s)
	id := s.ID
	if a := call(t, base, "POST", "/v1/sessions/"+id+"/exec", testToken, `{"cmd":["xsetroot","-solid","#22aa44"]}`); a.status != 200 {
		t.Fatalf("exec: %d %s", a.status, a.body)
	}
	green := color.RGBA{0x22, 0xaa, 0x44, 255}
	before := runtime.NumGoroutine()

	// The bearer token, then a ticket, open the socket; the frame shows
	// the root window's colour.
	v, _, err := dialView(t, base, "/v1/sessions/"+id+"/vnc", http.Header{"Authorization": {"Bearer " + testToken}})
	if err != nil {
		t.Fatal(err)
	}
	tk := newTicket(t, base, id)
	w, _, err := dialView(t, base, "/v1/sessions/"+id+"/vnc?view_only=1&ticket="+tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*rfbtest.Client{v, w} {
		if c.Frame.Rect != image.Rect(0, 0, 800, 600) {
			t.Fatalf("ServerInit size %v", c.Frame.Rect)
		}
		c.Request(false)
		if _, err := c.Read(); err != nil || c.Frame.RGBAAt(400, 300) != green {
			t.Fatalf("frame pixel %v %v, want %v", c.Frame.RGBAAt(400, 300), err, green)
		}
	}

	// Refusals: a spent ticket, none, a wrong one, an unknown session.
	for _, q := range []string{"?ticket=" + tk, "", "?ticket=nope"} {
		if _, resp, err := dialView(t, base, "/v1/sessions/"+id+"/vnc"+q, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("vnc%s: %v %v", q, resp, err)
		}
	}
	if a := call(t, base, "GET", "/v1/sessions/"+id+"/view", "", ""); a.status != http.StatusUnauthorized {
		t.Errorf("view without ticket: %d", a.status)
	}
	if _, resp, err := dialView(t, base, "/v1/sessions/nosuch/vnc", http.Header{"Authorization": {"Bearer " + testToken}}); err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %v %v", resp, err)
	}
	if a := call(t, base, "POST", "/v1/sessions/nosuch/tickets", testToken, ""); a.status != http.StatusNotFound {
		t.Errorf("ticket of an unknown session: %d", a.status)
	}

	// The viewer page in headless Chromium draws the desktop.
	tk = newTicket(t, base, id)
	if a := call(t, base, "GET", "/v1/sessions/"+id+"/view?ticket="+tk, "", ""); a.status != 200 || !strings.Contains(string(a.body), "<canvas") {
		t.Fatalf("view page: %d", a.status)
	}
	png := chromiumShot(t, base+"/v1/sessions/"+id+"/view?ticket="+tk)
	if d := os.Getenv("DESKRUN_VIEW_SHOT"); d != "" {
		os.WriteFile(d, png, 0o644)
	}
	img, _, err := image.Decode(bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(400, 300).RGBA(); (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}) != green {
		t.Errorf("the page at (400,300) is %v, want the desktop's %v", img.At(400, 300), green)
	}

	// Deleting the session closes its viewers cleanly.
	if a := call(t, base, "DELETE", "/v1/sessions/"+id, testToken, ""); a.status != http.StatusNoContent {
		t.Fatalf("delete: %d", a.status)
	}
	for _, c := range []*rfbtest.Client{v, w} {
		done := make(chan error, 1)
		go func() {
			for {
				c.Request(true)
				if _, err := c.Read(); err != nil {
					done <- err
					return
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatal("a viewer of a deleted session still runs")
		}
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the viewers, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// chromiumShot loads url in headless Chromium, waits until the viewer has
// drawn a frame and returns a PNG of the page, through the DevTools
// protocol.
func chromiumShot(t *testing.T, url string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--window-size=900,700",
		"--remote-debugging-port=0", "--user-data-dir="+profile, url)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// the browser's helpers can outlive it and write in its profile
	defer func() { cmd.Process.Kill(); cmd.Wait(); agentdtest.KillUsing(profile) }()
	sc := bufio.NewScanner(stderr)
	var browser string
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok {
			browser = u
			break
		}
	}
	if browser == "" {
		t.Fatal("chromium printed no DevTools address")
	}
	go io.Copy(io.Discard, stderr)
	hostport := strings.Split(strings.TrimPrefix(browser, "ws://"), "/")[0]
	var pages []struct{ Type, URL, WebSocketDebuggerURL string }
	for range 100 {
		resp, err := http.Get("http://" + hostport + "/json/list")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&pages)
			resp.Body.Close()
		}
		if len(pages) > 0 && pages[0].WebSocketDebuggerURL != "" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var page string
	for _, p := range pages {
		if p.Type == "page" {
			page = p.WebSocketDebuggerURL
		}
	}
	if page == "" {
		t.Fatalf("no page in %+v", pages)
	}
	ws, _, err := websocket.Dial(ctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(-1)
	n := 0
	rpc := func(method string, params any) json.RawMessage {
		n++
		b, _ := json.Marshal(map[string]any{"id": n, "method": method, "params": params})
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		for {
			_, m, err := ws.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				ID     int
				Result json.RawMessage
			}
			if json.Unmarshal(m, &r) == nil && r.ID == n {
				return r.Result
			}
		}
	}
	for {
		var r struct{ Result struct{ Value any } }
		json.Unmarshal(rpc("Runtime.evaluate", map[string]any{"expression": "document.body.dataset.frames||''", "returnByValue": true}), &r)
		if v, _ := r.Result.Value.(string); v != "" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the viewer drew no frame")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var shot struct{ Data []byte }
	json.Unmarshal(rpc("Page.captureScreenshot", map[string]any{"format": "png"}), &shot)
	return shot.Data
}
