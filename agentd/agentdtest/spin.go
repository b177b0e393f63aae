package agentdtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// spinEnv turns a run of the test binary into a busy program ([Spin]):
// its value is the duration to keep a processor busy and the file to
// write at the end, separated by a comma.
const spinEnv = "AGENTDTEST_SPIN"

// spinLimit bounds a spinner asked to run until the test ends, should
// the test binary die without killing it.
const spinLimit = 10 * time.Minute

// Spinner is a busy program started by [Spin].
type Spinner struct {
	PID  int
	done chan struct{}
	end  time.Time
}

// Wait waits for the spinner to exit and returns when it did.
func (s *Spinner) Wait() time.Time {
	<-s.done
	return s.end
}

// Spin starts the test binary itself as a program that keeps one
// processor busy for d from its own start (0: until the test ends, at
// most 10 minutes) and then writes "ok" into file, when file is not "".
// It starts as fast as the test binary does, where an interpreter may
// spend seconds of a loaded machine in its own start-up. env is added to
// its environment (a DISPLAY, say). The test's cleanup kills it. The
// package's TestMain must call [Main], which runs the spin in such a
// child instead of the tests.
func Spin(t testing.TB, d time.Duration, file string, env ...string) *Spinner {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), spinEnv+"="+d.String()+","+file)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start a spinner: %v", err)
	}
	s := &Spinner{PID: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		s.end = time.Now()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	return s
}

// Load keeps n processors busy until the test ends: a bounded load
// generator for tests that must hold on a busy machine.
func Load(t testing.TB, n int) {
	t.Helper()
	for range n {
		Spin(t, 0, "")
	}
}

// spinning runs the spin a [Spin] child was started for, and reports
// whether this process is such a child.
func spinning() (bool, error) {
	v, ok := os.LookupEnv(spinEnv)
	if !ok {
		return false, nil
	}
	ds, file, _ := strings.Cut(v, ",")
	d, err := time.ParseDuration(ds)
	if err != nil {
		return true, fmt.Errorf("%s: %w", spinEnv, err)
	}
	if d <= 0 || d > spinLimit {
		d = spinLimit
	}
	start := time.Now()
	for n := 0; ; n++ {
		if n%4096 == 0 && time.Since(start) >= d {
			break
		}
	}
	if file != "" {
		return true, os.WriteFile(file, []byte("ok"), 0o644)
	}
	return true, nil
}
