// Package local is the sandbox provider for machines without Docker, and
// for fast tests: each sandbox is agentd with its own Xvfb (and window
// manager) as processes of this host, on a free display and a free
// loopback port, with a private home directory. It isolates displays,
// not files or network: the processes run as the runner's user.
package local

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/sandbox"
)

// Provider starts sandboxes as local processes. The zero value is not
// usable; use New.
type Provider struct {
	agentd string // path of the agentd binary
	wm     string

	mu    sync.Mutex
	procs map[string]*proc
}

type proc struct {
	cmd    *exec.Cmd
	home   string
	exited chan struct{}
	inst   sandbox.Instance
}

// New returns a provider running the agentd binary at agentdPath, with
// window manager wm ("" for none; "openbox" when it is installed is what
// the images use).
func New(agentdPath, wm string) (*Provider, error) {
	if _, err := exec.LookPath(agentdPath); err != nil {
		return nil, fmt.Errorf("local provider: agentd binary: %w", err)
	}
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage("local provider: Xvfb is not installed")
	}
	if wm != "" {
		if _, err := exec.LookPath(wm); err != nil {
			wm = ""
		}
	}
	return &Provider{agentd: agentdPath, wm: wm, procs: map[string]*proc{}}, nil
}

// Start starts agentd (which starts Xvfb) and waits until it is healthy.
// On failure nothing it started is left.
func (p *Provider) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	spec = spec.WithDefaults()
	tok := make([]byte, 16)
	rand.Read(tok)
	token := hex.EncodeToString(tok)
	home, err := os.MkdirTemp("", "deskrun-home-")
	if err != nil {
		return sandbox.Instance{}, err
	}
	for _, d := range []string{"Desktop", "Documents", "Downloads"} {
		_ = os.MkdirAll(home+"/"+d, 0o755)
	}
	args := []string{"--addr", "127.0.0.1:0", "--xvfb", "--screen", fmt.Sprintf("%dx%dx24", spec.Screen.Width, spec.Screen.Height)}
	if p.wm != "" {
		args = append(args, "--wm", p.wm)
	}
	cmd := exec.Command(p.agentd, args...)
	env := append(os.Environ(), "AGENTD_TOKEN="+token, "HOME="+home)
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	cmd.Dir = home
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(home)
		return sandbox.Instance{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 8 << 10}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return sandbox.Instance{}, fmt.Errorf("start agentd: %w", err)
	}
	pr := &proc{cmd: cmd, home: home, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(pr.exited) }()
	fail := func(err error) (sandbox.Instance, error) {
		p.kill(pr, 0)
		return sandbox.Instance{}, err
	}
	type ready struct{ Addr, Display string }
	got := make(chan ready, 1)
	go func() {
		var r ready
		line, err := bufio.NewReader(out).ReadString('\n')
		if err == nil {
			_ = json.Unmarshal([]byte(line), &r)
		}
		got <- r
		_, _ = io.Copy(io.Discard, out)
	}()
	var r ready
	select {
	case r = <-got:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	if r.Addr == "" {
		<-pr.exited
		return fail(errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("agentd did not start: %s", strings.TrimSpace(stderr.String()))))
	}
	url := "http://" + r.Addr
	if err := agentd.WaitHealthy(ctx, url, nil); err != nil {
		return fail(err)
	}
	id := strconv.Itoa(cmd.Process.Pid)
	labels := maps.Clone(spec.Labels)
	pr.inst = sandbox.Instance{ID: id, AgentURL: url, Token: token, Labels: labels}
	p.mu.Lock()
	p.procs[id] = pr
	p.mu.Unlock()
	return pr.inst, nil
}

// Stop ends a sandbox: SIGTERM to agentd (which stops its Xvfb), SIGKILL
// to the whole process group after the grace period, then removes its
// home. Stopping an unknown or stopped sandbox is not an error.
func (p *Provider) Stop(ctx context.Context, id string) error {
	p.mu.Lock()
	pr, ok := p.procs[id]
	delete(p.procs, id)
	p.mu.Unlock()
	if !ok {
		return nil
	}
	grace := 5 * time.Second
	if d, ok := ctx.Deadline(); ok {
		grace = min(grace, time.Until(d))
	}
	p.kill(pr, grace)
	return nil
}

func (p *Provider) kill(pr *proc, grace time.Duration) {
	pgid := pr.cmd.Process.Pid
	if grace > 0 {
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-pr.exited:
		case <-time.After(grace):
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-pr.exited
	os.RemoveAll(pr.home)
}

// List returns the running sandboxes whose labels include labels.
func (p *Provider) List(_ context.Context, labels map[string]string) ([]sandbox.Instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []sandbox.Instance
	for _, pr := range p.procs {
		match := true
		for k, v := range labels {
			match = match && pr.inst.Labels[k] == v
		}
		if match {
			out = append(out, pr.inst)
		}
	}
	return out, nil
}

// Close stops every sandbox this provider started.
func (p *Provider) Close(ctx context.Context) error {
	p.mu.Lock()
	ids := make([]string, 0, len(p.procs))
	for id := range p.procs {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	var errs []error
	for _, id := range ids {
		errs = append(errs, p.Stop(ctx, id))
	}
	return errors.Join(errs...)
}

type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}
