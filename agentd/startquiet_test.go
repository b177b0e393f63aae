package agentd

import (
	"os/exec"
	"testing"
	"time"
)

// TestWaitStartQuiet: a process that keeps a processor busy keeps the
// desktop from counting as settled; once it ends, the wait ends within a
// window or two; a process that only sleeps counts as quiet at once.
func TestWaitStartQuiet(t *testing.T) {
	spin := exec.Command("python3", "-c", "import time\nend = time.time() + 2\nwhile time.time() < end: pass")
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	pid := spin.Process.Pid
	done := make(chan struct{})
	go func() { _ = spin.Wait(); close(done) }()
	start := time.Now()
	// python3 may be a wrapper (pyenv's is a shell script) whose child
	// does the work: the spinner's descendants count with it, as every
	// process of a sandbox counts there.
	took, quiet := waitQuiet(nil, func(p int) bool { return descendsFrom(p, pid) }, 10*time.Second)
	<-done
	if !quiet {
		t.Fatalf("not quiet after %v", took)
	}
	if took < 2*time.Second || took > 4*time.Second {
		t.Errorf("settled after %v (%v since the start) beside a process busy for 2 s; want a little over 2 s", took, time.Since(start))
	}

	sleeper := exec.Command("sleep", "5")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	spid := sleeper.Process.Pid
	took, quiet = waitQuiet(nil, func(p int) bool { return p == spid }, 10*time.Second)
	if !quiet || took > 2*startWindow {
		t.Errorf("a sleeping process: quiet %v after %v; want quiet after one window", quiet, took)
	}
}

// descendsFrom reports whether process p is root or one of its
// descendants.
func descendsFrom(p, root int) bool {
	for p > 1 {
		if p == root {
			return true
		}
		st, ok := readStat(p)
		if !ok {
			return false
		}
		p = st.ppid
	}
	return false
}
