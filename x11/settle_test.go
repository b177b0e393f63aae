package x11

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startXterm runs script in an xterm at the top left and returns once
// the window is mapped.
func startXterm(t *testing.T, display, script string) {
	t.Helper()
	if _, err := exec.LookPath("xterm"); err != nil {
		t.Fatal("xterm is not installed (scripts/install-deps.sh installs it)")
	}
	ready := t.TempDir() + "/ready"
	cmd := exec.Command("xterm", "-geometry", "60x10+0+0", "-fa", "DejaVu Sans Mono", "-fs", "14",
		"-e", "sh", "-c", `touch "$1"; `+script, "sh", ready)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, "the terminal to start", func() bool { _, err := os.Stat(ready); return err == nil })
}

func TestWaitIdleStaticScreenSettles(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Xvfb")
	}
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	run(t, d, "xsetroot", "-solid", "#203040")
	for _, quiet := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond} {
		s, err := c.WaitIdle(quiet, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if !s.Settled {
			t.Fatalf("quiet %v: a static screen did not settle: %+v", quiet, s)
		}
		if s.Took < quiet || s.Took > quiet+150*time.Millisecond {
			t.Errorf("quiet %v: took %v, want about the quiet period", quiet, s.Took)
		}
	}
}

func TestWaitIdleChangingScreenTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Xvfb")
	}
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	startXterm(t, d, `while :; do date +%N; done`)
	s, err := c.WaitIdle(100*time.Millisecond, 600*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if s.Settled {
		t.Fatalf("a screen redrawn continuously settled: %+v", s)
	}
	if s.Took < 600*time.Millisecond || s.Took > 900*time.Millisecond {
		t.Errorf("took %v, want about the 600ms deadline", s.Took)
	}
	if s.Changes < 3 {
		t.Errorf("saw %d changes, want many", s.Changes)
	}
}

// TestWaitIdleAfterTypingShowsTheText types into an xterm and captures
// as soon as the screen settles: the capture must already show all of
// the text, i.e. equal a capture taken long after.
func TestWaitIdleAfterTypingShowsTheText(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Xvfb")
	}
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	startXterm(t, d, `exec cat`)
	area := image.Rect(0, 0, 400, 120)
	if s, err := c.WaitIdle(200*time.Millisecond, 5*time.Second); err != nil || !s.Settled {
		t.Fatalf("the new terminal did not settle: %+v %v", s, err)
	}
	before, err := c.Capture(area)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Type("settled screenshots work\n"); err != nil {
		t.Fatal(err)
	}
	s, err := c.WaitIdle(100*time.Millisecond, 2*time.Second)
	if err != nil || !s.Settled {
		t.Fatalf("did not settle after typing: %+v %v", s, err)
	}
	t.Logf("settled in %v after %d changes", s.Took, s.Changes)
	settled, err := c.Capture(area)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(before.Pix, settled.Pix) {
		t.Fatal("the settled capture does not show the typed text")
	}
	time.Sleep(time.Second)
	later, err := c.Capture(area)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(settled.Pix, later.Pix) {
		t.Fatal("the settled capture differs from one taken a second later: it was taken before the text was drawn")
	}
}
