// Package local is the sandbox provider for machines without Docker, and
// for fast tests: each sandbox is agentd with its own Xvfb (and window
// manager) as processes of this host, on a free display and a free
// loopback port, with a private home directory. It isolates displays and
// homes, not files, network or resources: the processes run as the
// runner's user, and Spec.Network, MemoryBytes, NanoCPUs and Image are
// ignored.
//
// A sandbox's processes are found again by a marker in their environment
// (every descendant of agentd inherits it unless it clears its
// environment), so Stop ends programs an agent left running in the
// background even after their parent is gone.
package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// MarkerEnv is the environment variable that tags every process of a
// sandbox; its value is unique per sandbox.
const MarkerEnv = "DESKRUN_LOCAL_SANDBOX"

// Config configures a Provider. Only AgentdPath is required.
type Config struct {
	// AgentdPath is the agentd binary (a path, or a name looked up in
	// $PATH); required.
	AgentdPath string
	// WM is the window manager agentd starts with each Xvfb, e.g.
	// "openbox". Empty, or a program that is not installed, means none.
	WM string
	// StartTimeout bounds Start from launching agentd to its first
	// healthy answer. Zero means 60s.
	StartTimeout time.Duration
	// TempDir is where the sandboxes' home directories are made. Empty
	// means os.TempDir().
	TempDir string
	// Logger receives one line per sandbox started and stopped. Nil
	// discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.StartTimeout == 0 {
		c.StartTimeout = 60 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Provider starts sandboxes as local processes. It is safe for concurrent
// use. The zero value is not usable; use New or NewWithConfig.
type Provider struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	procs  map[string]*proc
	closed bool
}

var (
	_ sandbox.Provider = (*Provider)(nil)
	_ sandbox.Lister   = (*Provider)(nil)
)

// proc is one running sandbox.
type proc struct {
	cmd     *exec.Cmd
	pid     int
	home    string
	tmp     string // TMPDIR
	marker  string // value of MarkerEnv
	display string
	inst    sandbox.Instance
	grace   time.Duration
	stderr  *tail
	exited  chan struct{} // closed once agentd has exited and been reaped

	// Guarded by Provider.mu.
	stopping bool
	stopped  chan struct{} // closed once Stop has finished
	stopErr  error         // valid after stopped is closed
}

// New returns a provider running the agentd binary at agentdPath with
// window manager wm ("" for none; a window manager that is not installed
// is left out). It fails if agentd or Xvfb cannot be found; a missing
// Xvfb is errdefs.ErrUnavailable.
func New(agentdPath, wm string) (*Provider, error) {
	return NewWithConfig(Config{AgentdPath: agentdPath, WM: wm})
}

// NewWithConfig is New with every setting of cfg.
func NewWithConfig(cfg Config) (*Provider, error) {
	cfg = cfg.withDefaults()
	bin, err := exec.LookPath(cfg.AgentdPath)
	if err != nil {
		return nil, fmt.Errorf("local provider: agentd binary: %w", err)
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs // sandboxes run in their own home directories
	}
	cfg.AgentdPath = bin
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage("local provider: Xvfb is not installed")
	}
	if cfg.WM != "" {
		if _, err := exec.LookPath(cfg.WM); err != nil {
			cfg.WM = ""
		}
	}
	return &Provider{cfg: cfg, log: cfg.Logger.With("provider", "local"), procs: map[string]*proc{}}, nil
}

// WM returns the window manager sandboxes get, "" for none.
func (p *Provider) WM() string { return p.cfg.WM }

// maxScreen is the largest desktop Xvfb is asked for.
var maxScreen = api.Screen{Width: 7680, Height: 4320}

// Start starts agentd, which starts Xvfb (and the window manager), and
// returns once agentd answers its health check. If it fails, every
// process it started has been killed and the home directory removed.
// A bad spec is errdefs.ErrInvalidArgument; a sandbox that does not come
// up is errdefs.ErrUnavailable (or the context's error).
func (p *Provider) Start(ctx context.Context, spec sandbox.Spec) (_ sandbox.Instance, err error) {
	spec = spec.WithDefaults()
	if w := spec.Screen.Width; w < 1 || w > maxScreen.Width {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("screen.width: %d out of range 1..%d", w, maxScreen.Width))
	}
	if h := spec.Screen.Height; h < 1 || h > maxScreen.Height {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("screen.height: %d out of range 1..%d", h, maxScreen.Height))
	}
	if spec.Sudo {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(
			"sudo: local sandboxes run as the runner's own user, so they cannot grant sudo; use the docker provider")
	}
	if spec.Runtime != "" {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(
			fmt.Sprintf("runtime: local sandboxes are processes of this machine and have no container runtime (%q); use the docker provider", spec.Runtime))
	}
	for k := range spec.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("env: bad variable name %q", k))
		}
	}
	if p.isClosed() {
		return sandbox.Instance{}, errdefs.ErrUnavailable.WithMessage("local provider is closed")
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, p.cfg.StartTimeout)
	defer cancel()

	home, err := os.MkdirTemp(p.cfg.TempDir, "deskrun-sandbox-")
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("make home directory: %w", err)
	}
	for _, d := range []string{"Desktop", "Documents", "Downloads"} {
		if err := os.Mkdir(filepath.Join(home, d), 0o700); err != nil {
			os.RemoveAll(home)
			return sandbox.Instance{}, fmt.Errorf("make home directory: %w", err)
		}
	}
	// The sandbox's TMPDIR: agentd's and its commands' temporary files,
	// removed with the sandbox, also when a killed runner's sandbox is
	// reaped. Short and beside the system's own, not in the home, since
	// programs put unix sockets there (108 bytes at most for their path).
	tmp, err := os.MkdirTemp("", "dr-")
	if err != nil {
		os.RemoveAll(home)
		return sandbox.Instance{}, fmt.Errorf("make temporary directory: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	pr := &proc{
		tmp:     tmp,
		home:    home,
		marker:  sandbox.RandomHex(12),
		grace:   spec.StopTimeout,
		stderr:  &tail{max: 8 << 10},
		exited:  make(chan struct{}),
		stopped: make(chan struct{}),
	}
	token := sandbox.RandomHex(16)
	if err := writeOwner(home, pr.marker, tmp); err != nil {
		os.RemoveAll(home)
		return sandbox.Instance{}, fmt.Errorf("make home directory: %w", err)
	}

	rd, wr, err := os.Pipe()
	if err != nil {
		os.RemoveAll(home)
		return sandbox.Instance{}, fmt.Errorf("pipe: %w", err)
	}
	args := []string{"--addr", "127.0.0.1:0", "--xvfb", "--screen", fmt.Sprintf("%dx%dx24", spec.Screen.Width, spec.Screen.Height)}
	if p.cfg.WM != "" {
		args = append(args, "--wm", p.cfg.WM)
	}
	cmd := exec.Command(p.cfg.AgentdPath, args...)
	cmd.Env = sandboxEnv(os.Environ(), spec.Env, home, tmp, token, pr.marker)
	cmd.Dir = home
	cmd.Stdout = wr
	cmd.Stderr = pr.stderr
	// Output copying must not hold up Wait after agentd exits, should a
	// descendant have inherited its stderr.
	cmd.WaitDelay = time.Second
	// Its own process group, so a stop reaches it and nothing else;
	// killed with the runner should the runner die first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		rd.Close()
		wr.Close()
		os.RemoveAll(home)
		return sandbox.Instance{}, fmt.Errorf("start agentd: %w", err)
	}
	wr.Close()
	pr.cmd, pr.pid = cmd, cmd.Process.Pid
	go func() { _ = cmd.Wait(); close(pr.exited) }()
	defer func() {
		if err != nil { // undo everything, even when ctx is done
			if kerr := p.terminate(pr, 0); kerr != nil {
				err = errors.Join(err, kerr)
			}
		}
	}()

	// agentd prints one JSON line once it serves.
	type ready struct {
		Addr    string `json:"addr"`
		Display string `json:"display"`
	}
	lines := make(chan string, 1)
	go func() {
		// Read to the end, until agentd exits: a later write to a pipe
		// nobody reads would kill it with SIGPIPE.
		defer rd.Close()
		br := bufio.NewReader(rd)
		line, _ := br.ReadString('\n')
		lines <- line
		_, _ = io.Copy(pr.stderr, br)
	}()
	var r ready
	select {
	case line := <-lines:
		if line == "" {
			<-pr.exited
			return sandbox.Instance{}, p.exitError(pr)
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Addr == "" || r.Display == "" {
			return sandbox.Instance{}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("agentd printed %q, want its ready line {\"addr\",\"display\"}", strings.TrimSpace(line)))
		}
	case <-pr.exited:
		return sandbox.Instance{}, p.exitError(pr)
	case <-ctx.Done():
		return sandbox.Instance{}, p.startTimeout(ctx, "agentd did not report ready", pr)
	}
	pr.display = r.Display
	url := "http://" + r.Addr

	// Stop waiting for health as soon as agentd exits.
	hctx, hcancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-pr.exited:
			hcancel()
		case <-hctx.Done():
		}
	}()
	err = agentdclient.WaitHealthy(hctx, url, nil, 0)
	hcancel()
	if err != nil {
		select {
		case <-pr.exited:
			return sandbox.Instance{}, p.exitError(pr)
		default:
		}
		return sandbox.Instance{}, p.startTimeout(ctx, "agentd did not become healthy", pr)
	}

	id := strconv.Itoa(pr.pid) + "-" + sandbox.RandomHex(3)
	pr.inst = sandbox.Instance{ID: id, AgentURL: url, Token: token, Labels: maps.Clone(spec.Labels)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return sandbox.Instance{}, errdefs.ErrUnavailable.WithMessage("local provider is closed")
	}
	p.procs[id] = pr
	p.mu.Unlock()
	p.log.InfoContext(ctx, "sandbox started", "sandbox", id, "display", r.Display, "addr", r.Addr,
		"took", time.Since(began).Round(time.Millisecond))
	return pr.inst, nil
}

// exitError describes an agentd that exited while starting.
func (p *Provider) exitError(pr *proc) error {
	msg := strings.TrimSpace(pr.stderr.String())
	if msg == "" {
		msg = "no output"
	}
	return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("agentd did not start (%v): %s", pr.cmd.ProcessState, msg))
}

// startTimeout describes a start that ran out of time: the caller's
// context error if the caller gave up, else unavailable.
func (p *Provider) startTimeout(ctx context.Context, what string, pr *proc) error {
	msg := strings.TrimSpace(pr.stderr.String())
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		return fmt.Errorf("%s: %w", what, cause)
	}
	return fmt.Errorf("%s in time (%w): %w (agentd said: %s)", what, cause, errdefs.ErrUnavailable, msg)
}

// sandboxEnv is agentd's environment: the runner's, without what points
// at the runner's own desktop session, plus spec's, plus the sandbox's
// home, token and marker (which spec cannot override).
func sandboxEnv(base []string, extra map[string]string, home, tmp, token, marker string) []string {
	own := map[string]bool{"DISPLAY": true, "HOME": true, "TMPDIR": true, "AGENTD_TOKEN": true, MarkerEnv: true}
	env := make([]string, 0, len(passedEnv)+len(extra)+4)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if passedEnv[k] || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	for k, v := range extra {
		if !own[k] {
			env = append(env, k+"="+v)
		}
	}
	return append(env, "HOME="+home, "TMPDIR="+tmp, "AGENTD_TOKEN="+token, MarkerEnv+"="+marker)
}

// passedEnv is what a local sandbox takes of the runner's environment
// (with the LC_* locale variables): where programs are, the locale, the
// time zone, who the user is, and the flags the host's Chromium needs.
// Nothing else reaches it: the runner's token, API keys and whatever else
// its environment holds stay out of the sandbox's commands, steps and
// trajectories; a session adds its own variables through its spec.
var passedEnv = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TZ": true,
	"USER": true, "LOGNAME": true, "SHELL": true, "CHROMIUM_FLAGS": true,
}

// Stop ends a sandbox: SIGTERM to agentd's process group (agentd then
// stops its Xvfb, window manager and the programs it ran), SIGKILL after
// the spec's StopTimeout (or ctx's deadline, if sooner), SIGKILL to any
// process still carrying the sandbox's marker, then removes its home
// directory. Concurrent calls for one sandbox wait for the same stop; a
// stopped or unknown id is errdefs.ErrNotFound, which cleanup code may
// ignore.
func (p *Provider) Stop(ctx context.Context, id string) error {
	p.mu.Lock()
	pr, ok := p.procs[id]
	if !ok {
		p.mu.Unlock()
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("local sandbox %q not found", id))
	}
	first := !pr.stopping
	pr.stopping = true
	p.mu.Unlock()
	if !first {
		select {
		case <-pr.stopped:
			return pr.stopErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	began := time.Now()
	grace := pr.grace
	if d, ok := ctx.Deadline(); ok {
		grace = min(grace, time.Until(d))
	}
	err := p.terminate(pr, max(grace, 0))
	p.mu.Lock()
	pr.stopErr = err
	delete(p.procs, id)
	p.mu.Unlock()
	close(pr.stopped)
	p.log.InfoContext(ctx, "sandbox stopped", "sandbox", id, "took", time.Since(began).Round(time.Millisecond), "err", err)
	return err
}

// terminate ends agentd and every process carrying the sandbox's marker,
// and removes the home directory. With a zero grace it kills at once.
func (p *Provider) terminate(pr *proc, grace time.Duration) error {
	// The processes are listed before any signal: one that is dying no
	// longer shows its environment, and sweep waits for these too.
	before := Marked(pr.marker)
	if grace > 0 {
		_ = syscall.Kill(-pr.pid, syscall.SIGTERM)
		t := time.NewTimer(grace)
		select {
		case <-pr.exited:
		case <-t.C:
		}
		t.Stop()
	}
	_ = syscall.Kill(-pr.pid, syscall.SIGKILL)
	<-pr.exited
	var errs []error
	if left := sweep(pr.marker, before, 5*time.Second); len(left) > 0 {
		errs = append(errs, fmt.Errorf("stop sandbox: processes %v outlived SIGKILL", left))
	}
	if err := os.RemoveAll(pr.home); err != nil {
		errs = append(errs, fmt.Errorf("remove home directory: %w", err))
	}
	if err := os.RemoveAll(pr.tmp); err != nil {
		errs = append(errs, fmt.Errorf("remove temporary directory: %w", err))
	}
	return errors.Join(errs...)
}

// sweep SIGKILLs every process whose environment holds MarkerEnv=marker
// until none is left or the time is up, and returns those left. A process
// that is dying has already lost its environment, so sweep also waits for
// each process it signalled, and each of known, to be gone (or a zombie): a Stop that returns
// leaves nothing of the sandbox running.
func sweep(marker string, known []int, limit time.Duration) []int {
	deadline := time.Now().Add(limit)
	signalled := map[int]bool{}
	for _, pid := range known {
		signalled[pid] = true
	}
	for {
		pids := Marked(marker)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			signalled[pid] = true
		}
		left := pids
		for pid := range signalled {
			if !slices.Contains(pids, pid) && alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not yet exited: it is
// in /proc and in a state other than zombie or dead.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	st := b[i+2]
	return st != 'Z' && st != 'X'
}

// Marked lists the live processes (zombies excluded) whose environment
// holds MarkerEnv=marker: the processes of one sandbox.
func Marked(marker string) []int {
	want := []byte(MarkerEnv + "=" + marker + "\x00")
	inner := append([]byte{0}, want...)
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.HasPrefix(env, want) && !bytes.Contains(env, inner) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// Marker returns the marker of the running sandbox id, for finding its
// processes with [Marked].
func (p *Provider) Marker(id string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.procs[id]
	if !ok {
		return "", false
	}
	return pr.marker, true
}

// List returns the running sandboxes whose labels include all of labels.
func (p *Provider) List(_ context.Context, labels map[string]string) ([]sandbox.Instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sandbox.Instance
	for _, pr := range p.procs {
		match := true
		for k, v := range labels {
			if got, ok := pr.inst.Labels[k]; !ok || got != v {
				match = false
			}
		}
		if match {
			inst := pr.inst
			inst.Labels = maps.Clone(inst.Labels)
			out = append(out, inst)
		}
	}
	return out, nil
}

// Close stops every sandbox concurrently and makes later Starts fail
// with errdefs.ErrUnavailable. It is the provider's shutdown.
func (p *Provider) Close(ctx context.Context) error {
	p.mu.Lock()
	p.closed = true
	ids := make([]string, 0, len(p.procs))
	for id := range p.procs {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			if err := p.Stop(ctx, id); err != nil && !errdefs.IsNotFound(err) {
				errs[i] = fmt.Errorf("stop sandbox %s: %w", id, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (p *Provider) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// tail keeps the last max bytes written to it; it is safe for concurrent
// use.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
