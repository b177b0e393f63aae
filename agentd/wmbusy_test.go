package agentd

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestWaitWMIdle: while the window manager's busy file exists (keys held
// for a terminal that is not up yet), an accessibility read waits; it
// goes on as soon as the file is gone, and without the file at once.
func TestWaitWMIdle(t *testing.T) {
	busy := filepath.Join(t.TempDir(), "busy")
	s := &Server{cfg: Config{WMBusy: busy}}
	start := time.Now()
	if err := s.waitWMIdle(t.Context()); err != nil || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("no busy file: %v after %s", err, time.Since(start))
	}
	if err := os.WriteFile(busy, []byte("holding keys\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { os.Remove(busy) })
	start = time.Now()
	if err := s.waitWMIdle(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
		t.Errorf("waited %s for a file removed after 300ms", d)
	}
}

// TestSettleAfterOtherClientsInput: keys typed by another program (a
// task's pyautogui script, here xdotool) make the next accessibility read
// wait for what they set off to be drawn, as agentd's own input calls
// do; with no input for a while, a read does not wait.
func TestSettleAfterOtherClientsInput(t *testing.T) {
	s, _ := start(t)
	// Enter makes the terminal print a line every 30 ms for about 0.9 s.
	startTerm(t, s.Display(), `read x; i=0; while [ $i -lt 30 ]; do echo line$i; sleep 0.03; i=$((i+1)); done; exec cat`)
	time.Sleep(afterInput + 200*time.Millisecond)
	start := time.Now()
	s.settleAfterInput(t.Context())
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("no input for %v, but the read waited %v", afterInput, d)
	}
	xdo := exec.Command("xdotool", "mousemove", "100", "60", "key", "x", "Return")
	xdo.Env = append(os.Environ(), "DISPLAY="+s.Display())
	if out, err := xdo.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v: %s", err, out)
	}
	start = time.Now()
	s.settleAfterInput(t.Context())
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("the read waited %v after another program's Enter set off 0.9 s of output; want it to wait for the output", d)
	}
}

// TestBusyShell: a terminal's shell that is at work itself (here a loop
// of builtins, no command of its own) counts as busy, and stops counting
// once it waits.
func TestBusyShell(t *testing.T) {
	s, _ := start(t)
	startTerm(t, s.Display(), `i=0; while [ $i -lt 2000000 ]; do i=$((i+1)); done; read x`)
	waitFor(t, "the looping shell to count as busy", func() bool { return len(busyCommands(s.Display())) > 0 })
	waitFor(t, "the shell waiting for input to count as idle", func() bool { return len(busyCommands(s.Display())) == 0 })
}
