package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

func TestMain(m *testing.M) {
	if os.Getenv(reapChildEnv) != "" {
		reapChild()
		return
	}
	os.Exit(agentdtest.Main(m))
}

// needAgentd returns the agentd the shared harness builds once; it skips
// in -short mode and fails without Xvfb.
func needAgentd(t testing.TB) string {
	t.Helper()
	return agentdtest.Agentd(t)
}

func newProvider(t testing.TB, cfg Config) *Provider {
	t.Helper()
	agentdtest.NeedX(t) // the provider starts processes and needs Xvfb installed, even with a fake agentd
	if cfg.AgentdPath == "" {
		cfg.AgentdPath = needAgentd(t)
	}
	if cfg.TempDir == "" {
		cfg.TempDir = t.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	p, err := NewWithConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.WithoutCancel(t.Context())) })
	return p
}

// stat returns the command name and parent of pid.
func stat(pid int) (comm string, ppid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	st := string(b)
	i, j := strings.IndexByte(st, '('), strings.LastIndexByte(st, ')')
	if i < 0 || j < i {
		return "", 0, false
	}
	var state string
	fmt.Sscanf(st[j+2:], "%s %d", &state, &ppid)
	return st[i+1 : j], ppid, state != "Z"
}

// children lists the live children of pid called comm ("" for any).
func children(pid int, comm string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if name, ppid, ok := stat(c); ok && ppid == pid && (comm == "" || name == comm) {
			out = append(out, c)
		}
	}
	return out
}

// xvfbOf finds the Xvfb serving display (":N"): a process whose command
// line is Xvfb's and names the display, or (Xvfb started with -displayfd
// names none, and writes no lock file) the process that holds the
// display's listening socket, /tmp/.X11-unix/XN. Processes of other
// mount namespaces (containers' desktops on the same host) have their
// own /tmp and are passed over.
func xvfbOf(t *testing.T, display string) int {
	t.Helper()
	n := strings.TrimPrefix(display, ":")
	ents, _ := os.ReadDir("/proc")
	myNS, _ := os.Readlink("/proc/self/ns/mnt")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ns, err := os.Readlink("/proc/" + e.Name() + "/ns/mnt"); err != nil || ns != myNS {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if filepath.Base(args[0]) == "Xvfb" && slices.Contains(args, display) && alive(pid) {
			return pid
		}
	}
	// /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path.
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	sockets := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 8 && (f[7] == "/tmp/.X11-unix/X"+n || f[7] == "@/tmp/.X11-unix/X"+n) {
			sockets["socket:["+f[6]+"]"] = true
		}
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + e.Name() + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && sockets[l] {
				if comm, _, ok := stat(pid); ok && comm == "Xvfb" {
					return pid
				}
			}
		}
	}
	t.Fatalf("no Xvfb serves display %s", display)
	return 0
}

func agentdPID(t *testing.T, inst sandbox.Instance) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.SplitN(inst.ID, "-", 2)[0])
	if err != nil {
		t.Fatalf("sandbox id %q does not start with agentd's pid", inst.ID)
	}
	if comm, _, ok := stat(pid); !ok || comm != "agentd" {
		t.Fatalf("pid %d of sandbox %s is %q, want a live agentd", pid, inst.ID, comm)
	}
	return pid
}

// sandboxProcs are the processes of one running sandbox a test checks.
type sandboxProcs struct {
	display             string
	home                string
	agentd, xvfb, sleep int
	wm                  []int
}

// inspect finds the processes of a running sandbox and starts a
// background program in it that outlives the exec call.
func inspect(t *testing.T, p *Provider, inst sandbox.Instance) sandboxProcs {
	t.Helper()
	ctx := t.Context()
	c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	h, err := c.Health(ctx)
	if err != nil || h.Status != "ok" {
		t.Fatalf("health of %s: %+v %v", inst.ID, h, err)
	}
	sp := sandboxProcs{display: h.Display, agentd: agentdPID(t, inst)}
	sp.xvfb = xvfbOf(t, h.Display)
	if _, ppid, _ := stat(sp.xvfb); ppid != sp.agentd {
		t.Errorf("Xvfb %d of %s has parent %d, want agentd %d", sp.xvfb, h.Display, ppid, sp.agentd)
	}
	if p.WM() != "" {
		sp.wm = children(sp.agentd, p.WM())
		if len(sp.wm) != 1 {
			t.Errorf("agentd %d runs window managers %v, want one %s", sp.agentd, sp.wm, p.WM())
		}
	}
	r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! "$HOME"`}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("exec: %+v %v", r, err)
	}
	if _, err := fmt.Sscan(r.Stdout, &sp.sleep, &sp.home); err != nil || !alive(sp.sleep) {
		t.Fatalf("background sleep: %q %v", r.Stdout, err)
	}
	if !strings.HasPrefix(sp.home, p.cfg.TempDir) {
		t.Errorf("HOME %q, want a directory under %s", sp.home, p.cfg.TempDir)
	}
	return sp
}

// checkGone fails the test for every process of sp still alive and for
// a home directory left behind.
func checkGone(t *testing.T, after string, sp sandboxProcs) {
	t.Helper()
	for _, pr := range append([]struct {
		what string
		pid  int
	}{{"agentd", sp.agentd}, {"Xvfb", sp.xvfb}, {"background sleep", sp.sleep}}, wmProcs(sp)...) {
		if alive(pr.pid) {
			t.Errorf("after %s, %s (pid %d) of display %s still runs", after, pr.what, pr.pid, sp.display)
		}
	}
	if _, err := os.Stat(sp.home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after %s, home %s remains (%v)", after, sp.home, err)
	}
}

func wmProcs(sp sandboxProcs) []struct {
	what string
	pid  int
} {
	var out []struct {
		what string
		pid  int
	}
	for _, pid := range sp.wm {
		out = append(out, struct {
			what string
			pid  int
		}{"window manager", pid})
	}
	return out
}

func TestTwoSandboxesStartAndStop(t *testing.T) {
	p := newProvider(t, Config{WM: "openbox"})
	ctx := t.Context()
	var a, b sandbox.Instance
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() { a, errA = p.Start(ctx, sandbox.Spec{Labels: map[string]string{"k": "a"}}) })
	wg.Go(func() {
		b, errB = p.Start(ctx, sandbox.Spec{Screen: api.Screen{Width: 800, Height: 600}, Labels: map[string]string{"k": "b"}})
	})
	wg.Wait()
	if err := errors.Join(errA, errB); err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID || a.AgentURL == b.AgentURL || a.Token == b.Token || a.Token == "" {
		t.Errorf("sandboxes share an id, address or token: %+v %+v", a, b)
	}
	if a.Labels["k"] != "a" || b.Labels["k"] != "b" {
		t.Errorf("labels %v %v", a.Labels, b.Labels)
	}
	pa, pb := inspect(t, p, a), inspect(t, p, b)
	if pa.display == pb.display || pa.xvfb == pb.xvfb || pa.home == pb.home {
		t.Errorf("sandboxes share a display, Xvfb or home: %+v %+v", pa, pb)
	}
	for _, tc := range []struct {
		inst sandbox.Instance
		want api.Screen
	}{{a, sandbox.DefaultScreen}, {b, api.Screen{Width: 800, Height: 600}}} {
		if got, err := agentdclient.NewClient(tc.inst.AgentURL, tc.inst.Token, nil).Screen(ctx); err != nil || got != tc.want {
			t.Errorf("screen of %s: %+v %v, want %+v", tc.inst.ID, got, err, tc.want)
		}
	}
	if _, err := agentdclient.NewClient(a.AgentURL, b.Token, nil).Screen(ctx); err == nil {
		t.Error("sandbox a accepted b's token")
	}
	if l, _ := p.List(ctx, map[string]string{"k": "b"}); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("List by label: %+v", l)
	}
	if l, _ := p.List(ctx, nil); len(l) != 2 {
		t.Errorf("List: %d sandboxes, want 2", len(l))
	}

	if err := p.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	checkGone(t, "Stop", pa)
	if err := p.Stop(ctx, a.ID); !errdefs.IsNotFound(err) {
		t.Errorf("second Stop: %v, want not found", err)
	}
	if h, err := agentdclient.NewClient(b.AgentURL, b.Token, nil).Health(ctx); err != nil || h.Status != "ok" {
		t.Errorf("b after a stopped: %+v %v", h, err)
	}
	if l, _ := p.List(ctx, nil); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("List after Stop: %+v", l)
	}

	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	checkGone(t, "Close", pb)
	if _, err := p.Start(ctx, sandbox.Spec{}); !errdefs.IsUnavailable(err) {
		t.Errorf("Start after Close: %v, want unavailable", err)
	}
}

func TestStopAfterAgentdDied(t *testing.T) {
	p := newProvider(t, Config{})
	inst, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sp := inspect(t, p, inst)
	if err := syscall.Kill(sp.agentd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(t.Context(), inst.ID); err != nil {
		t.Fatal(err)
	}
	checkGone(t, "agentd was killed and Stop", sp)
}

func TestConcurrentStopsWaitForOneAnother(t *testing.T) {
	p := newProvider(t, Config{})
	inst, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sp := inspect(t, p, inst)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = p.Stop(t.Context(), inst.ID) })
	}
	wg.Wait()
	for i, err := range errs {
		// A call that came after the stop ended finds nothing.
		if err != nil && !errdefs.IsNotFound(err) {
			t.Errorf("Stop %d: %v", i, err)
		}
	}
	checkGone(t, "concurrent Stops", sp)
}

// fakeAgentd writes a shell script that stands in for agentd.
func fakeAgentd(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agentd")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFailedStartLeavesNothing(t *testing.T) {
	needAgentd(t)
	if _, err := New("/no/such/agentd", ""); err == nil {
		t.Error("New with a missing binary: want an error")
	}
	// A background child the fake started records its pid in $PIDFILE;
	// it must not outlive the failed start.
	const child = `setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$PIDFILE"`
	for _, tc := range []struct {
		name    string
		script  string // "" means a real agentd binary, deleted after New
		timeout time.Duration
		ctx     time.Duration // caller's deadline, 0 for none
		want    string
		class   func(error) bool
	}{
		{name: "binary removed", want: "start agentd", class: func(err error) bool { return errors.Is(err, os.ErrNotExist) }},
		{name: "exits at once", script: child + "\necho 'agentd: boom' >&2\nexit 3",
			want: "agentd did not start (exit status 3): agentd: boom", class: errdefs.IsUnavailable},
		{name: "bad ready line", script: child + "\necho hello\nsleep 300",
			want: `agentd printed "hello"`, class: errdefs.IsUnavailable},
		{name: "never healthy", script: child + "\necho '{\"addr\":\"127.0.0.1:1\",\"display\":\":99\"}'\nsleep 300",
			timeout: time.Second, want: "agentd did not become healthy in time", class: errdefs.IsUnavailable},
		{name: "never ready", script: child + "\nsleep 300",
			timeout: time.Second, want: "agentd did not report ready in time", class: errdefs.IsUnavailable},
		{name: "caller gives up", script: child + "\nsleep 300",
			ctx: 500 * time.Millisecond, want: "agentd did not report ready", class: func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := fakeAgentd(t, tc.script)
			if tc.script == "" {
				bin = filepath.Join(t.TempDir(), "agentd")
				data, err := os.ReadFile(needAgentd(t))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(bin, data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			homes := t.TempDir()
			p := newProvider(t, Config{AgentdPath: bin, TempDir: homes, StartTimeout: tc.timeout})
			if tc.script == "" {
				os.Remove(bin)
			}
			pidFile := filepath.Join(t.TempDir(), "pid")
			ctx := t.Context()
			if tc.ctx > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctx)
				defer cancel()
			}
			_, err := p.Start(ctx, sandbox.Spec{Env: map[string]string{"PIDFILE": pidFile}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !tc.class(err) {
				t.Errorf("Start: %v, want an error of the right class containing %q", err, tc.want)
			}
			if b, err := os.ReadFile(pidFile); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if pid == 0 || alive(pid) {
					t.Errorf("the fake's background child %q still runs", b)
				}
			} else if tc.script != "" {
				t.Errorf("the fake did not run: %v", err)
			}
			if ents, _ := os.ReadDir(homes); len(ents) != 0 {
				t.Errorf("home directories left: %v", ents)
			}
			if l, _ := p.List(context.Background(), nil); len(l) != 0 {
				t.Errorf("a failed start is listed: %+v", l)
			}
		})
	}
}

func TestStartRejectsBadSpecs(t *testing.T) {
	p := newProvider(t, Config{AgentdPath: fakeAgentd(t, "exit 1")})
	for _, tc := range []struct {
		spec sandbox.Spec
		want string
	}{
		{sandbox.Spec{Screen: api.Screen{Width: 9000, Height: 800}}, "screen.width: 9000 out of range"},
		{sandbox.Spec{Screen: api.Screen{Width: 800, Height: -1}}, "screen.height: -1 out of range"},
		{sandbox.Spec{Env: map[string]string{"A=B": "x"}}, `env: bad variable name "A=B"`},
		{sandbox.Spec{Sudo: true}, "sudo: local sandboxes run as the runner's own user"},
	} {
		if _, err := p.Start(t.Context(), tc.spec); !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want invalid argument %q", tc.spec, err, tc.want)
		}
	}
}

func TestSandboxEnv(t *testing.T) {
	env := sandboxEnv([]string{"PATH=/bin", "DISPLAY=:0", "HOME=/root", "XAUTHORITY=/x", "LANG=C", "LC_TIME=C.UTF-8",
		"DESKRUN_TOKEN=s", "ANTHROPIC_API_KEY=k", "AWS_SECRET_ACCESS_KEY=a", "SSH_AUTH_SOCK=/s"},
		map[string]string{"FOO": "bar", "HOME": "/evil", "DISPLAY": ":5"}, "/h", "/t", "tok", "m")
	slices.Sort(env)
	want := []string{"AGENTD_TOKEN=tok", MarkerEnv + "=m", "FOO=bar", "HOME=/h", "LANG=C", "LC_TIME=C.UTF-8", "PATH=/bin", "TMPDIR=/t"}
	slices.Sort(want)
	if !slices.Equal(env, want) {
		t.Errorf("env %q, want %q", env, want)
	}
}

// TestSandboxStartsFromACleanEnvironment: a sandbox's commands see what
// a sandbox needs and what its spec asks for, not the runner's secrets.
func TestSandboxStartsFromACleanEnvironment(t *testing.T) {
	t.Setenv("DESKRUN_TOKEN", "runner-token-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("DESKRUN_AGENT_TOKEN", "agent-token-secret")
	p := newProvider(t, Config{})
	inst, err := p.Start(t.Context(), sandbox.Spec{Env: map[string]string{"GREETING": "grüße"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(context.Background(), inst.ID) })
	c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	r, err := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c", "env; cat /proc/$PPID/environ | tr '\\0' '\\n'"}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("exec: %+v %v", r, err)
	}
	if strings.Contains(r.Stdout, "secret") {
		t.Errorf("the runner's secrets reached the sandbox:\n%s", r.Stdout)
	}
	for _, want := range []string{"GREETING=grüße", "PATH=", "DISPLAY=", "HOME="} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the sandbox's environment lacks %s:\n%s", want, r.Stdout)
		}
	}
}

// BenchmarkStart measures starting a sandbox (agentd, Xvfb, openbox when
// installed) until healthy; the median is reported as median-start-ms.
func BenchmarkStart(b *testing.B) {
	p := newProvider(b, Config{WM: "openbox"})
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		inst, err := p.Start(b.Context(), sandbox.Spec{})
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
		b.StopTimer()
		if err := p.Stop(b.Context(), inst.ID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-start-ms")
}

// TestTypingInEightSandboxes types ten Unicode lines into a terminal in
// each of 8 local sandboxes at once, with busy processes loading the
// machine beside them, and checks that every character arrives.
func TestTypingInEightSandboxes(t *testing.T) {
	agentdtest.NeedX(t, "xterm", "openbox")
	p := newProvider(t, Config{WM: "openbox"})
	insts := make([]sandbox.Instance, 8)
	var wg sync.WaitGroup
	errs := make([]error, len(insts))
	for i := range insts {
		wg.Go(func() {
			insts[i], errs[i] = p.Start(t.Context(), sandbox.Spec{Screen: api.Screen{Width: 800, Height: 600}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(context.Background(), insts[i].ID) })
	}
	for range 2 {
		busy := exec.Command("sh", "-c", "while :; do :; done")
		busy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	terms := make([]agentdtest.Terminal, len(insts))
	for i, in := range insts {
		terms[i] = agentdtest.Terminal{URL: in.AgentURL, Token: in.Token}
	}
	agentdtest.TypeInTerminals(t, terms)
}
