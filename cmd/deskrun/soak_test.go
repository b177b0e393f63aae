package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/soak"
	"github.com/deskrun/deskrun/sandbox/local"
)

// soakFor is how long TestSoak drives the sessions: $DESKRUN_SOAK (a Go
// duration; make soak sets 10m), else 45 s.
func soakFor(t *testing.T) time.Duration {
	v := os.Getenv("DESKRUN_SOAK")
	if v == "" {
		return 45 * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 30*time.Second {
		t.Fatalf("DESKRUN_SOAK=%q: want a duration of at least 30s", v)
	}
	return d
}

// localSandbox finds the processes of a local session's sandbox by the
// marker in its agentd's environment.
type localSandbox struct {
	mu      sync.Mutex
	markers map[string]string // session id -> marker
	xvfb    map[int]bool      // every Xvfb seen of those sandboxes
}

func (l *localSandbox) add(t *testing.T, s api.Session) {
	pid, _, _ := strings.Cut(s.SandboxID, "-")
	env, err := os.ReadFile("/proc/" + pid + "/environ")
	if err != nil {
		t.Errorf("session %s: agentd %s: %v", s.ID, pid, err)
		return
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if m, ok := bytes.CutPrefix(kv, []byte(local.MarkerEnv+"=")); ok {
			l.mu.Lock()
			l.markers[s.ID] = string(m)
			l.mu.Unlock()
			return
		}
	}
	t.Errorf("session %s: agentd %s has no %s", s.ID, pid, local.MarkerEnv)
}

func (l *localSandbox) pids(s api.Session) ([]int, error) {
	l.mu.Lock()
	m, ok := l.markers[s.ID]
	l.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no marker for %s", s.ID)
	}
	pids := local.Marked(m)
	if len(pids) == 0 {
		return nil, fmt.Errorf("no process of %s", s.ID)
	}
	return pids, nil
}

func comm(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return strings.TrimSpace(string(b))
}

// watchXvfb records the Xvfb processes of the sandboxes until ctx ends,
// for the lock files checked at the end.
func (l *localSandbox) watchXvfb(ctx context.Context) {
	for ctx.Err() == nil {
		l.mu.Lock()
		ms := slices.Collect(func(yield func(string) bool) {
			for _, m := range l.markers {
				yield(m)
			}
		})
		l.mu.Unlock()
		for _, m := range ms {
			for _, pid := range local.Marked(m) {
				if comm(pid) == "Xvfb" {
					l.mu.Lock()
					l.xvfb[pid] = true
					l.mu.Unlock()
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
}

func (l *localSandbox) signal(s api.Session, sig syscall.Signal, only string) error {
	pids, err := l.pids(s)
	if err != nil {
		return err
	}
	n := 0
	for _, pid := range pids {
		if only == "" || comm(pid) == only {
			if err := syscall.Kill(pid, sig); err == nil {
				n++
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("no %q process of %s to signal", only, s.ID)
	}
	return nil
}

// faults are the local counterparts of the faults: agentd killed,
// Xvfb killed (agentd starts another), the sandbox paused (every process
// of it stopped, then continued), the sandbox killed (every process).
func (l *localSandbox) faults() []soak.Fault {
	return []soak.Fault{
		{Name: "kill agentd", Inject: func(_ context.Context, s api.Session) (func() error, error) {
			return nil, l.signal(s, syscall.SIGKILL, "agentd")
		}},
		{Name: "kill Xvfb", Recovers: true, Inject: func(_ context.Context, s api.Session) (func() error, error) {
			return nil, l.signal(s, syscall.SIGKILL, "Xvfb")
		}},
		{Name: "pause", Pauses: true, Inject: func(_ context.Context, s api.Session) (func() error, error) {
			return func() error { return l.signal(s, syscall.SIGCONT, "") }, l.signal(s, syscall.SIGSTOP, "")
		}},
		{Name: "kill sandbox", Inject: func(_ context.Context, s api.Session) (func() error, error) {
			return nil, l.signal(s, syscall.SIGKILL, "")
		}},
	}
}

// TestSoak runs deskrun serve with the local provider and holds 16
// sessions under load for 45 s ($DESKRUN_SOAK for longer) with task
// suite runs beside them, while agentd, Xvfb or a whole sandbox is killed
// or a sandbox paused at random every few seconds (see package
// internal/soak for what is checked of every call). After it, the
// server stops cleanly, and no process, temporary folder or X lock file
// of any of the sandboxes is left.
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak runs 16 desktops for 45 s")
	}
	d := soakFor(t)
	binDir(t)          // built before TMPDIR changes, so that only the sandboxes' folders land there
	tmp := t.TempDir() // the sandboxes' homes and temporary folders
	t.Setenv("TMPDIR", tmp)
	tasks, err := filepath.Abs("../../tasks/files")
	if err != nil {
		t.Fatal(err)
	}
	const callTimeout = 10 * time.Second
	// The server's lines but the refused requests the faults cause (every
	// one is checked by the soak) go to the test's log.
	srv := startServeLogging(t, func(line string) {
		if !strings.Contains(line, `"level":"WARN","msg":"request failed"`) {
			t.Logf("serve: %s", line)
		}
	}, "--provider", "local", "--token", "soak", "--call-timeout", callTimeout.String(),
		"--runs", filepath.Join(t.TempDir(), "runs"))
	l := &localSandbox{markers: map[string]string{}, xvfb: map[int]bool{}}
	ctx, stopWatch := context.WithCancel(t.Context())
	go l.watchXvfb(ctx)

	faultEvery, pause := 3*time.Second, [2]time.Duration{3 * time.Second, 12 * time.Second}
	if d > 2*time.Minute {
		faultEvery, pause = 5*time.Second, [2]time.Duration{3 * time.Second, 20 * time.Second}
	}
	rep, err := soak.Run(t.Context(), soak.Config{
		URL: srv.url, Token: "soak", Sessions: 16, Duration: d,
		Create:      api.CreateSessionRequest{Provider: "local", Screen: api.Screen{Width: 1024, Height: 768}},
		CallTimeout: callTimeout, FaultEvery: faultEvery, Pause: pause, Faults: l.faults(),
		Tasks: tasks, RunOnly: []string{"files-copy-notes", "files-move-todo"},
		OnSession: func(s api.Session) { l.add(t, s) },
		Logf:      t.Logf,
		Seed:      uint64(time.Now().UnixNano()),
	})
	stopWatch()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("soak of %v: %v", d, rep)
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if rep.Runs == 0 {
		t.Error("no task suite run finished during the soak")
	}

	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-srv.done:
	case <-time.After(time.Minute):
		t.Fatal("deskrun serve did not end within a minute of SIGTERM")
	}
	if c := srv.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("deskrun serve exit status %d after SIGTERM", c)
	}
	srv.mu.Lock()
	for _, l := range srv.log {
		if l["level"] == "ERROR" {
			t.Errorf("deskrun serve logged an error: %v", l)
		}
	}
	srv.mu.Unlock()
	// Nothing of any sandbox is left: processes, temporary folders, the
	// lock files of their X displays.
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, m := range l.markers {
		if pids := local.Marked(m); len(pids) > 0 {
			t.Errorf("session %s: processes %v left", id, pids)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left in the temporary folder: %v", names)
	}
	locks, _ := filepath.Glob("/tmp/.X*-lock")
	for _, f := range locks {
		b, _ := os.ReadFile(f)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && l.xvfb[pid] {
			t.Errorf("%s of the sandboxes' Xvfb %d left", f, pid)
		}
	}
	t.Logf("%d sessions, %d Xvfb processes seen", len(l.markers), len(l.xvfb))
}
