package agentd

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWaitWMIdle: while the window manager's busy file exists (keys held
// for a terminal that is not up yet), an accessibility read waits; it
// goes on as soon as the file is gone, and without the file at once.
func TestWaitWMIdle(t *testing.T) {
	busy := filepath.Join(t.TempDir(), "busy")
	s := &Server{cfg: Config{WMBusy: busy}}
	start, lag := time.Now(), meterLag()
	if err := s.waitWMIdle(t.Context()); err != nil || time.Since(start) > 100*time.Millisecond+2*lag.done() {
		t.Fatalf("no busy file: %v after %s", err, time.Since(start))
	}
	if err := os.WriteFile(busy, []byte("holding keys\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { os.Remove(busy) })
	start, lag = time.Now(), meterLag()
	if err := s.waitWMIdle(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second+2*lag.done() {
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
	start, lag := time.Now(), meterLag()
	s.settleAfterInput(t.Context())
	if d := time.Since(start); d > 100*time.Millisecond+2*lag.done() {
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

// TestBusyIn: what counts as busy among a desktop's processes: a command
// under a terminal's shell (not a stopped or finished one), the shell
// while it runs, the terminal while it is runnable; not a terminal of
// another display, nor an idle terminal and shell.
func TestBusyIn(t *testing.T) {
	procs := map[int]proc{
		10: {pid: 10, ppid: 1, comm: "gnome-terminal-", state: 'S'},
		11: {pid: 11, ppid: 10, comm: "bash", state: 'S'},
		12: {pid: 12, ppid: 11, comm: "stty", state: 'S'},
		13: {pid: 13, ppid: 10, comm: "bash", state: 'S'},
		14: {pid: 14, ppid: 13, comm: "vim", state: 'T'},
		15: {pid: 15, ppid: 13, comm: "ls", state: 'Z'},
		20: {pid: 20, ppid: 1, comm: "xterm", state: 'R'},
		21: {pid: 21, ppid: 20, comm: "bash", state: 'S'},
		30: {pid: 30, ppid: 1, comm: "xterm", state: 'S'},
		31: {pid: 31, ppid: 30, comm: "bash", state: 'R'},
		40: {pid: 40, ppid: 1, comm: "xterm", state: 'R'}, // another display
		41: {pid: 41, ppid: 40, comm: "bash", state: 'R'},
		42: {pid: 42, ppid: 41, comm: "make", state: 'S'},
		50: {pid: 50, ppid: 1, comm: "gimp", state: 'R'},
	}
	got := busyIn(procs, func(pid int) bool { return pid != 40 })
	if want := []int{12, 20, 31}; !slices.Equal(got, want) {
		t.Errorf("busy: %v, want %v", got, want)
	}
}
