package agentd

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// A desktop whose window manager says when it is ready (GNOME Shell)
// still has work at that moment: its first frames, the settings daemons,
// the file indexer's first pass. On a loaded host that work waits for the
// processor, and a task whose first keys come right after the session is
// handed out (a shortcut the shell has not read yet) loses them. So,
// after the window manager's ready file, agentd answers only once the
// desktop's processes have stopped asking for the processor: over
// startWindow, the time they ran plus the time they waited to run
// (/proc/PID/task/TID/schedstat) is under startDemand of it, or
// startQuietWait has passed. In a container the processes agentd sees are
// the sandbox's.
const (
	startWindow    = 500 * time.Millisecond
	startDemand    = 0.25
	startQuietWait = 30 * time.Second
)

// waitQuiet waits until the processes that keep selects are quiet
// (see above), at most limit, and returns how long it waited and whether
// they became quiet. The desktop's start uses it, and so does wait_idle
// with processes (for the programs on the desktop's display).
func waitQuiet(stop <-chan struct{}, keep func(pid int) bool, limit time.Duration) (time.Duration, bool) {
	start := time.Now()
	prev := cpuDemand(keep)
	for time.Since(start) < limit {
		select {
		case <-stop:
			return time.Since(start), false
		case <-time.After(startWindow):
		}
		cur := cpuDemand(keep)
		var d time.Duration
		for tid, v := range cur {
			d += v - prev[tid] // a new thread counts from its start
		}
		prev = cur
		if float64(d) < startDemand*float64(startWindow) {
			return time.Since(start), true
		}
	}
	return time.Since(start), false
}

// notSelf keeps every process but agentd.
func notSelf(pid int) bool { return pid != os.Getpid() }

// cpuDemand returns, by thread, the time each thread of the processes
// keep selects has run and has waited to run.
func cpuDemand(keep func(pid int) bool) map[int]time.Duration {
	out := map[int]time.Duration{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || !keep(pid) {
			continue
		}
		tasks, _ := os.ReadDir("/proc/" + p.Name() + "/task")
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile("/proc/" + p.Name() + "/task/" + t.Name() + "/schedstat")
			if err != nil {
				continue
			}
			f := bytes.Fields(b)
			if len(f) < 2 {
				continue
			}
			run, _ := strconv.ParseInt(string(f[0]), 10, 64)
			wait, _ := strconv.ParseInt(string(f[1]), 10, 64)
			out[tid] = time.Duration(run + wait)
		}
	}
	return out
}
