package agentd

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// tkWindow is a Python Tk window of the given title, 300x200; Tk sets no
// size increments, so the window manager honours any size.
const tkWindow = `import sys, tkinter as tk
r = tk.Tk(); r.title(sys.argv[1]); r.geometry("300x200+10+10"); r.mainloop()`

// startWithWM runs an agentd with its own Xvfb and openbox.
func startWithWM(t *testing.T) *client.Client {
	t.Helper()
	agentdtest.NeedX(t, "openbox", "python3", "xwininfo", "xprop")
	if err := exec.Command("python3", "-c", "import tkinter").Run(); err != nil {
		t.Fatal("python3 has no tkinter (scripts/install-deps.sh installs python3-tk)")
	}
	s, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, WM: "openbox", Screen: api.Screen{Width: 1280, Height: 800}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Close(ctx)
	})
	return client.NewClient("http://"+s.Addr(), token, nil)
}

// openTk starts a Tk window titled title and returns its id once the
// window manager lists it.
func openTk(t *testing.T, c *client.Client, title string) uint32 {
	t.Helper()
	script := filepath.Join(t.TempDir(), "win.py")
	if err := os.WriteFile(script, []byte(tkWindow), 0o644); err != nil {
		t.Fatal(err)
	}
	sh(t, c, fmt.Sprintf("setsid python3 %s '%s' >/dev/null 2>&1 </dev/null &", script, title))
	var id uint32
	waitFor(t, "the Tk window", func() bool {
		ws, _ := c.Windows(context.Background())
		for _, w := range ws {
			if w.Title == title {
				id = w.ID
				return true
			}
		}
		return false
	})
	return id
}

// xwininfo reads a window's client area as the xwininfo program reports it.
func xwininfo(t *testing.T, c *client.Client, id uint32) api.Box {
	t.Helper()
	out := sh(t, c, fmt.Sprintf("xwininfo -id %d", id)).Stdout
	num := func(label string) int {
		m := regexp.MustCompile(label + `:\s+(-?\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("xwininfo says no %s: %s", label, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return api.Box{X: num("Absolute upper-left X"), Y: num("Absolute upper-left Y"), W: num("Width"), H: num("Height")}
}

func TestWindowRoutes(t *testing.T) {
	c := startWithWM(t)
	ctx := context.Background()
	id := openTk(t, c, "deskrun routes")
	xprop := func(args string) string { return sh(t, c, "xprop "+args).Stdout }

	w, err := c.Window(ctx, id)
	if err != nil || w.Title != "deskrun routes" || w.Bounds == nil || w.Bounds.W != 300 || w.Bounds.H != 200 {
		t.Fatalf("Window = %+v (bounds %v), %v", w, w.Bounds, err)
	}

	want := api.Box{X: 200, Y: 150, W: 420, H: 310}
	if err := c.ChangeWindow(ctx, id, api.WindowMoveResize, api.WindowPlacement{X: &want.X, Y: &want.Y, Width: &want.W, Height: &want.H}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fmt.Sprintf("xwininfo to see %+v", want), func() bool { return xwininfo(t, c, id) == want })
	if w, err := c.Window(ctx, id); err != nil || *w.Bounds != want {
		t.Errorf("Window after move_resize: %v %v", w.Bounds, err)
	}
	// Only the width: the rest stays.
	width := 500
	if err := c.ChangeWindow(ctx, id, api.WindowMoveResize, api.WindowPlacement{Width: &width}); err != nil {
		t.Fatal(err)
	}
	want.W = width
	waitFor(t, fmt.Sprintf("xwininfo to see %+v", want), func() bool { return xwininfo(t, c, id) == want })

	if err := c.ChangeWindow(ctx, id, api.WindowMaximize, api.WindowPlacement{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xprop to see the window maximized", func() bool {
		s := xprop(fmt.Sprintf("-id %d _NET_WM_STATE", id))
		return strings.Contains(s, "_NET_WM_STATE_MAXIMIZED_VERT") && strings.Contains(s, "_NET_WM_STATE_MAXIMIZED_HORZ")
	})
	if w, err := c.Window(ctx, id); err != nil || !w.Maximized || w.Bounds.W < 1200 {
		t.Errorf("Window after maximize: %+v %v %v", w, w.Bounds, err)
	}
	if err := c.ChangeWindow(ctx, id, api.WindowRestore, api.WindowPlacement{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the window restored", func() bool {
		return !strings.Contains(xprop(fmt.Sprintf("-id %d _NET_WM_STATE", id)), "MAXIMIZED") && xwininfo(t, c, id).W == want.W
	})

	if err := c.ChangeWindow(ctx, id, api.WindowMinimize, api.WindowPlacement{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xprop to see the window iconic", func() bool { return strings.Contains(xprop(fmt.Sprintf("-id %d WM_STATE", id)), "Iconic") })
	if w, err := c.Window(ctx, id); err != nil || !w.Minimized {
		t.Errorf("Window after minimize: %+v %v", w, err)
	}
	if err := c.ChangeWindow(ctx, id, api.WindowRestore, api.WindowPlacement{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the window back and active", func() bool {
		return strings.Contains(xprop(fmt.Sprintf("-id %d WM_STATE", id)), "Normal") &&
			strings.Contains(xprop("-root _NET_ACTIVE_WINDOW"), fmt.Sprintf("%#x", id))
	})

	// Bad input: errors naming what is wrong.
	for _, tc := range []struct {
		place api.WindowPlacement
		want  string
	}{
		{api.WindowPlacement{}, "x, y, width or height is required"},
		{api.WindowPlacement{Width: api.Int(0)}, "width must be between 1 and 32767, got 0"},
		{api.WindowPlacement{Y: api.Int(40000)}, "y must be between -32768 and 32767, got 40000"},
	} {
		err := c.ChangeWindow(ctx, id, api.WindowMoveResize, tc.place)
		if !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("move_resize %+v: got %v, want invalid argument %q", tc.place, err, tc.want)
		}
	}
	if err := c.ChangeWindow(ctx, id, "explode", api.WindowPlacement{}); !errdefs.IsNotFound(err) || !strings.Contains(err.Error(), "action") {
		t.Errorf("action explode: got %v, want not found naming the action", err)
	}
	if _, err := c.Window(ctx, 0x7fffff); !errdefs.IsNotFound(err) {
		t.Errorf("a window that does not exist: got %v, want not found", err)
	}
	if err := c.ChangeWindow(ctx, 0x7fffff, api.WindowMaximize, api.WindowPlacement{}); !errdefs.IsNotFound(err) {
		t.Errorf("maximize a window that does not exist: got %v, want not found", err)
	}
	req, _ := http.NewRequest(http.MethodPost, c.BaseURL()+fmt.Sprintf("/v1/windows/%d/move_resize", id), strings.NewReader(`{"x":"left"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf(`move_resize {"x":"left"}: status %d, want 400`, resp.StatusCode)
	}

	if err := c.ChangeWindow(ctx, id, api.WindowClose, api.WindowPlacement{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the window to close", func() bool { _, err := c.Window(ctx, id); return errdefs.IsNotFound(err) })
}
