package agentd

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

// lagMeter measures how late this process's timers fire while it runs:
// on a loaded machine every wait of a test runs that much late, so a
// bound on a wait is the expected time plus what was measured here.
type lagMeter struct {
	max  atomic.Int64
	stop chan struct{}
}

func meterLag() *lagMeter {
	m := &lagMeter{stop: make(chan struct{})}
	go func() {
		for {
			t := time.Now()
			select {
			case <-m.stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if late := int64(time.Since(t) - 10*time.Millisecond); late > m.max.Load() {
				m.max.Store(late)
			}
		}
	}()
	return m
}

// done stops the meter and returns the latest a timer fired.
func (m *lagMeter) done() time.Duration {
	close(m.stop)
	return time.Duration(m.max.Load())
}

// TestWaitStartQuiet: a process that keeps a processor busy keeps the
// desktop from counting as settled; once it ends, the wait ends within a
// window or two; a process that only sleeps counts as quiet at once.
func TestWaitStartQuiet(t *testing.T) {
	start := time.Now()
	busyEnd := filepath.Join(t.TempDir(), "end")
	spin := agentdtest.Spin(t, 2*time.Second, busyEnd)
	lag := meterLag()
	took, quiet := waitQuiet(nil, func(p int) bool { return p == spin.PID }, 60*time.Second)
	late := lag.done()
	exited := spin.Wait().Sub(start)
	if !quiet {
		t.Fatalf("not quiet after %v", took)
	}
	fi, err := os.Stat(busyEnd)
	if err != nil {
		t.Fatal(err)
	}
	busy := fi.ModTime().Sub(start)
	// The window that holds the end of the spinner's work may count as
	// quiet; none before it may. Once the spinner exited, the next
	// window is quiet, give or take how late this process's timers fired.
	if took < busy-startWindow || took > exited+2*startWindow+2*late {
		t.Errorf("settled after %v beside a process busy until %v and gone at %v (timers up to %v late); want after its work and within two windows of %v after its exit", took, busy, exited, late, startWindow)
	}

	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	spid := sleeper.Process.Pid
	lag = meterLag()
	took, quiet = waitQuiet(nil, func(p int) bool { return p == spid }, 60*time.Second)
	late = lag.done()
	if !quiet || took > 2*startWindow+2*late {
		t.Errorf("a sleeping process: quiet %v after %v (timers up to %v late); want quiet after one window", quiet, took, late)
	}
}
