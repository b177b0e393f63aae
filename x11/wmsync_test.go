package x11

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestWMSync: without a window manager WMSync does not wait; with
// openbox it is answered, the window manager's pid is the process
// started, and a window manager stopped (SIGSTOP) after it answered once
// makes WMSync fail naming it rather than pass.
func TestWMSync(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	if ok, err := c.WMSync(time.Second); ok || err != nil {
		t.Fatalf("without a window manager: %v %v, want false without waiting", ok, err)
	}
	wm := exec.Command("openbox")
	wm.Env = append(os.Environ(), "DISPLAY="+d)
	wm.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := wm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wm.Process.Kill(); _ = wm.Wait() })
	waitFor(t, "openbox to run", c.wmRunning)
	if ok, err := c.WMSync(time.Minute); !ok || err != nil {
		t.Fatalf("with openbox: %v %v, want answered", ok, err)
	}
	if pid := c.WMPID(); pid != wm.Process.Pid {
		t.Errorf("WMPID = %d, want openbox's %d", pid, wm.Process.Pid)
	}
	if err := wm.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer wm.Process.Signal(syscall.SIGCONT)
	if ok, err := c.WMSync(500 * time.Millisecond); ok || err == nil {
		t.Errorf("with openbox stopped: %v %v, want an error", ok, err)
	}
}
