package agentd

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// debugBrowser starts a process whose command line names DevTools port
// and whose environment holds no DISPLAY, as Chromium's reads once it
// wrote its process title over it. With display set, its launcher (a
// shell on that display) stays its parent; without, the launcher exits
// first, as a detached launch's does.
func debugBrowser(t *testing.T, port int, display string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed (scripts/install-deps.sh installs it)")
	}
	script := `env -i "$0" -c 'import time; time.sleep(30)' --remote-debugging-port=` + strconv.Itoa(port) + ` & echo $!; wait`
	env := []string{"PATH=/usr/bin:/bin"}
	if display != "" {
		env = append(env, "DISPLAY="+display)
	} else {
		script = strings.TrimSuffix(script, "; wait")
	}
	cmd := exec.Command("sh", "-c", script, py)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var buf [32]byte
	n, _ := out.Read(buf[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("launcher said %q", buf[:n])
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL); _ = cmd.Wait() })
	if display == "" {
		_ = cmd.Wait()
	}
}

func findPort(display string, sole bool, want int) int {
	got := 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = runningDebugPort(display, sole); got == want {
			break
		}
	}
	return got
}

// A browser whose own environment holds no DISPLAY is found by the
// display of the process that launched it, and not on another display.
func TestRunningDebugPortLauncherDisplay(t *testing.T) {
	port := 40000 + time.Now().Nanosecond()%10000
	debugBrowser(t, port, ":77")
	if got := findPort(":77", false, port); got != port {
		t.Errorf("on display :77: port %d, want %d", got, port)
	}
	if got := runningDebugPort(":78", false); got == port {
		t.Errorf("on display :78: found the browser of :77")
	}
}

// A detached browser (its launcher gone, its display untold) is taken
// where every process of the host is on this desktop (a container), and
// not on a host shared by desktops.
func TestRunningDebugPortSoleDesktop(t *testing.T) {
	port := 50000 + time.Now().Nanosecond()%10000
	debugBrowser(t, port, "")
	if got := findPort(":77", true, port); got != port {
		t.Errorf("sole desktop: port %d, want %d", got, port)
	}
	if got := runningDebugPort(":77", false); got == port {
		t.Errorf("shared host: took a browser whose display is untold")
	}
}
