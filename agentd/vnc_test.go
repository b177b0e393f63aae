package agentd

import (
	"context"
	"image/color"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
)

// dialVNC opens GET /v1/vnc on s and runs the RFB handshake.
func dialVNC(t testing.TB, s *Server, query string) *rfbtest.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/v1/vnc"+query, &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}, Subprotocols: []string{"binary"}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(-1)
	c, err := rfbtest.Handshake(websocket.NetConn(context.Background(), ws, websocket.MessageBinary))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestVNCShowsDesktopAndTakesInput(t *testing.T) {
	s, c := start(t)
	sh(t, c, "xsetroot -solid '#3366cc'")
	before := runtime.NumGoroutine()
	want := color.RGBA{0x33, 0x66, 0xcc, 255}
	v := dialVNC(t, s, "")
	if v.Frame.Rect.Dx() != 1280 || v.Frame.Rect.Dy() != 800 {
		t.Fatalf("ServerInit size %v", v.Frame.Rect)
	}
	if err := v.Request(false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Read(); err != nil {
		t.Fatal(err)
	}
	if got := v.Frame.RGBAAt(640, 400); got != want {
		t.Fatalf("pixel %v, want the root colour %v", got, want)
	}
	// A change on screen arrives as an incremental update.
	sh(t, c, "xsetroot -solid '#cc3300'")
	v.Request(true)
	if _, err := v.Read(); err != nil {
		t.Fatal(err)
	}
	if got := v.Frame.RGBAAt(5, 5); got != (color.RGBA{0xcc, 0x33, 0, 255}) {
		t.Fatalf("pixel after the change %v", got)
	}

	// Several viewers at once; a view-only one moves nothing.
	ro := dialVNC(t, s, "?view_only=1")
	ro.Pointer(0, 50, 60)
	v2 := dialVNC(t, s, "")
	v2.Pointer(0, 321, 123)
	waitFor(t, "the pointer at 321,123", func() bool {
		return strings.Contains(sh(t, c, "xdotool getmouselocation --shell").Stdout, "X=321\nY=123\n")
	})
	ro.Pointer(0, 50, 60)
	time.Sleep(200 * time.Millisecond)
	if out := sh(t, c, "xdotool getmouselocation --shell").Stdout; !strings.Contains(out, "X=321\nY=123\n") {
		t.Fatalf("a view-only viewer moved the pointer: %q", out)
	}
	// Each viewer still gets frames.
	for _, x := range []*rfbtest.Client{ro, v2} {
		x.Request(false)
		if _, err := x.Read(); err != nil || x.Frame.RGBAAt(640, 400) != (color.RGBA{0xcc, 0x33, 0, 255}) {
			t.Fatalf("viewer frame: %v", err)
		}
	}
	v.Close()
	ro.Close()
	v2.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before the viewers, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestVNCRefusals(t *testing.T) {
	s, _ := start(t)
	ctx := context.Background()
	if _, resp, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/v1/vnc", nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %v %v", resp, err)
	}
	_, resp, err := websocket.Dial(ctx, "ws://"+s.Addr()+"/v1/vnc?view_only=maybe", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad view_only: %v %v", resp, err)
	}
	// Closing agentd ends a live view instead of leaving it hanging.
	v := dialVNC(t, s, "")
	v.Request(true)
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := v.Read(); err != nil {
				done <- err
				return
			}
			v.Request(true)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s.Close(cctx)
	select {
	case err := <-done:
		_ = err
	case <-time.After(10 * time.Second):
		t.Fatal("the viewer still runs after agentd closed")
	}
}
