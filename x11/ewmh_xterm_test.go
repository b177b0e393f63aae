package x11

import (
	"image"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestMoveResizeXtermUnderOpenbox: an xterm had a border of 1 before
// openbox managed it, and openbox places it by that border for static
// gravity; the window still lands where asked, as xwininfo reads it.
func TestMoveResizeXtermUnderOpenbox(t *testing.T) {
	d := startXvfb(t, "800x600x24")
	c := dial(t, d)
	for _, p := range []string{"openbox", "xterm", "xwininfo"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (scripts/install-deps.sh installs it)", p)
		}
	}
	start := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "DISPLAY="+d)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	}
	start("openbox")
	waitFor(t, "openbox", c.wmRunning)
	start("xterm", "-T", "deskrun border", "-geometry", "40x10+50+50")
	var id uint32
	waitFor(t, "the xterm to be managed", func() bool {
		ws, _ := c.Windows()
		for _, w := range ws {
			if w.Title == "deskrun border" {
				id = w.ID
				st, _ := c.WindowState(id)
				return !st.Minimized && xwininfoRect(t, d, id).Min.Y > 0
			}
		}
		return false
	})
	g, err := c.WindowGeometry(id)
	if err != nil {
		t.Fatal(err)
	}
	want := image.Rectangle{Min: image.Pt(120, 90), Max: image.Pt(120, 90).Add(g.Size())}
	if err := c.MoveResizeWindow(id, want); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xwininfo to see the xterm at "+want.String(), func() bool { return xwininfoRect(t, d, id) == want })
}
