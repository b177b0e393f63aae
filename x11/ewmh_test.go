package x11

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jezek/xgb/xproto"
)

// xwininfoRect reads a window's client area as xwininfo, a program of
// its own, reports it: its absolute upper-left corner is the outer corner
// of the border, so the border width is added.
func xwininfoRect(t *testing.T, display string, id uint32) image.Rectangle {
	t.Helper()
	out := run(t, display, "xwininfo", "-id", fmt.Sprint(id))
	num := func(label string) int {
		m := regexp.MustCompile(label + `:\s+(-?\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("xwininfo says no %s: %s", label, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	bw := num("Border width")
	x, y := num("Absolute upper-left X")+bw, num("Absolute upper-left Y")+bw
	return image.Rect(x, y, x+num("Width"), y+num("Height"))
}

func TestWindowStatesWithWindowManager(t *testing.T) {
	d := startXvfb(t, "1024x768x24")
	c := dial(t, d)
	// The window exists before the window manager starts, which then
	// manages it, as the desktop's first windows are.
	r := newRecorder(t, d, 10, 10, 200, 150, 0xff0000)
	r.name(t, "deskrun states")
	if _, err := exec.LookPath("openbox"); err != nil {
		t.Fatal("openbox is not installed (scripts/install-deps.sh installs it)")
	}
	wm := exec.Command("openbox")
	wm.Env = append(os.Environ(), "DISPLAY="+d)
	wm.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := wm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wm.Process.Kill(); _ = wm.Wait() })
	id := uint32(r.win)
	waitFor(t, "the window to be managed", func() bool {
		if !c.wmRunning() {
			return false
		}
		ws, _ := c.Windows()
		for _, w := range ws {
			if w.ID == id {
				return true
			}
		}
		return false
	})
	xprop := func(prop string) string { return run(t, d, "xprop", "-id", fmt.Sprint(id), prop) }

	want := image.Rect(100, 120, 400, 320)
	if err := c.MoveResizeWindow(id, want); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xwininfo to see the window at "+want.String(), func() bool { return xwininfoRect(t, d, id) == want })
	if g, err := c.WindowGeometry(id); err != nil || g != want {
		t.Errorf("WindowGeometry = %v %v, want %v", g, err, want)
	}

	if err := c.MaximizeWindow(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "_NET_WM_STATE to say maximized", func() bool {
		s := xprop("_NET_WM_STATE")
		return strings.Contains(s, "_NET_WM_STATE_MAXIMIZED_VERT") && strings.Contains(s, "_NET_WM_STATE_MAXIMIZED_HORZ")
	})
	if st, err := c.WindowState(id); err != nil || !st.Maximized || st.Minimized {
		t.Errorf("WindowState after maximize = %+v %v", st, err)
	}
	if g := xwininfoRect(t, d, id); g.Dx() < 900 || g.Dy() < 650 {
		t.Errorf("maximized window is %v on a 1024x768 screen", g)
	}

	if err := c.RestoreWindow(id); err != nil {
		t.Fatal(err)
	}
	// Openbox puts the frame back where the client area was; the size is
	// the one before maximizing.
	waitFor(t, "the window back at its size "+want.Size().String(), func() bool {
		return !strings.Contains(xprop("_NET_WM_STATE"), "MAXIMIZED") && xwininfoRect(t, d, id).Size() == want.Size()
	})

	if err := c.MinimizeWindow(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "WM_STATE to say Iconic", func() bool { return strings.Contains(xprop("WM_STATE"), "Iconic") })
	if st, err := c.WindowState(id); err != nil || !st.Minimized {
		t.Errorf("WindowState after minimize = %+v %v", st, err)
	}
	if err := c.RestoreWindow(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "WM_STATE to say Normal", func() bool { return strings.Contains(xprop("WM_STATE"), "Normal") })
	waitFor(t, "_NET_ACTIVE_WINDOW to name the restored window", func() bool {
		return strings.Contains(run(t, d, "xprop", "-root", "_NET_ACTIVE_WINDOW"), fmt.Sprintf("%#x", id))
	})

	// Far off the screen: openbox keeps a corner of the window on it;
	// what it allows is what WindowGeometry reports.
	off := image.Rect(-32000, -32000, -31700, -31800)
	if err := c.MoveResizeWindow(id, off); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the window to move up and left", func() bool { g := xwininfoRect(t, d, id); return g.Min.X < 0 && g.Min.Y < 0 })
	if g, err := c.WindowGeometry(id); err != nil || g != xwininfoRect(t, d, id) {
		t.Errorf("WindowGeometry = %v %v, xwininfo %v", g, err, xwininfoRect(t, d, id))
	}

	if err := c.MoveResizeWindow(id, image.Rect(0, 0, 0, 10)); err == nil || !strings.Contains(err.Error(), "size") {
		t.Errorf("zero width: got %v, want an error about the size", err)
	}
	if err := c.MaximizeWindow(0x7fffff); err == nil {
		t.Error("maximize a window that does not exist: want an error")
	}
}

func TestWindowStatesWithoutWindowManager(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	r := newRecorder(t, d, 10, 10, 100, 100, 0x00ff00)
	id := uint32(r.win)
	// A border: X places windows by its outer corner, the client area is
	// inside it.
	if err := xproto.ConfigureWindowChecked(r.x, r.win, xproto.ConfigWindowBorderWidth, []uint32{3}).Check(); err != nil {
		t.Fatal(err)
	}
	want := image.Rect(50, 60, 250, 160)
	if err := c.MoveResizeWindow(id, want); err != nil {
		t.Fatal(err)
	}
	if g, err := c.WindowGeometry(id); err != nil || g != want {
		t.Errorf("WindowGeometry: %v %v, want %v", g, err, want)
	}
	if g := xwininfoRect(t, d, id); g != want {
		t.Errorf("xwininfo: %v, want %v", g, want)
	}
	if err := c.MaximizeWindow(id); err != nil {
		t.Fatal(err)
	}
	if g := xwininfoRect(t, d, id); g != image.Rect(0, 0, 640, 480) {
		t.Errorf("maximized without a window manager: %v", g)
	}
	if err := c.MinimizeWindow(id); err != nil {
		t.Fatal(err)
	}
	if st, err := c.WindowState(id); err != nil || !st.Minimized {
		t.Errorf("WindowState after minimize = %+v %v", st, err)
	}
	if !strings.Contains(run(t, d, "xwininfo", "-id", fmt.Sprint(id)), "IsUnMapped") {
		t.Error("minimized window is still mapped")
	}
	if err := c.RestoreWindow(id); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run(t, d, "xwininfo", "-id", fmt.Sprint(id)), "IsViewable") {
		t.Error("restored window is not viewable")
	}
}

// BenchmarkMoveResizeWindow moves a window between two places under
// openbox, each move read back once the window manager has placed it.
func BenchmarkMoveResizeWindow(b *testing.B) {
	d := startXvfb(b, "1280x800x24")
	c := dial(b, d)
	r := newRecorder(b, d, 10, 10, 200, 150, 0xff0000)
	wm := exec.Command("openbox")
	wm.Env = append(os.Environ(), "DISPLAY="+d)
	wm.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := wm.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = wm.Process.Kill(); _ = wm.Wait() })
	id := uint32(r.win)
	waitFor(b, "openbox to manage the window", func() bool {
		st, _ := c.WindowState(id)
		return c.wmRunning() && !st.Minimized && xwininfoRectB(b, d, id).Min.Y > 0
	})
	places := []image.Rectangle{image.Rect(100, 100, 400, 300), image.Rect(300, 200, 700, 500)}
	i := 0
	for b.Loop() {
		want := places[i%2]
		i++
		if err := c.MoveResizeWindow(id, want); err != nil {
			b.Fatal(err)
		}
		if g, err := c.WindowGeometry(id); err != nil || g != want {
			b.Fatalf("after MoveResizeWindow(%v): %v %v", want, g, err)
		}
	}
}

// BenchmarkWindowState reads a window's geometry and state, as GET
// /v1/windows/{id} does.
func BenchmarkWindowState(b *testing.B) {
	d := startXvfb(b, "640x480x24")
	c := dial(b, d)
	id := uint32(newRecorder(b, d, 10, 10, 100, 100, 0x00ff00).win)
	for b.Loop() {
		if _, err := c.WindowGeometry(id); err != nil {
			b.Fatal(err)
		}
		if _, err := c.WindowState(id); err != nil {
			b.Fatal(err)
		}
	}
}

func xwininfoRectB(b *testing.B, display string, id uint32) image.Rectangle {
	b.Helper()
	out := run(b, display, "xwininfo", "-id", fmt.Sprint(id))
	m := regexp.MustCompile(`Absolute upper-left Y:\s+(-?\d+)`).FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("xwininfo: %s", out)
	}
	y, _ := strconv.Atoi(m[1])
	return image.Rect(0, y, 1, y+1)
}
