// Package xvfbtest starts real X servers for the tests of x11 and its
// internal packages.
package xvfbtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Start starts Xvfb with one screen of size ("1280x800x24") on a free
// display, with extra arguments appended, and returns the display's name.
// The server is stopped when the test ends. The test is skipped under
// -short, and fails without Xvfb installed.
func Start(t testing.TB, size string, extra ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Xvfb; skipped in -short mode")
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Fatal("Xvfb is not installed (scripts/install-deps.sh installs it)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// -noreset: without it the server resets when its last client leaves,
	// refusing connections for a moment and restoring the default keyboard
	// map, which would make the keymap tests pass for the wrong reason.
	args := append([]string{"-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp", "+extension", "MIT-SHM", "-noreset"}, extra...)
	cmd := exec.Command("Xvfb", args...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
		r.Close()
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatal("Xvfb exited before reporting its display")
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not report a display within 20s")
	}
	return ""
}

// Run runs a program on display and returns its trimmed output, failing
// the test when it fails.
func Run(t testing.TB, display string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
