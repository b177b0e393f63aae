// Package fake is a scriptable [sandbox.Provider] for tests: it starts
// sandboxes that are only names, after a chosen latency, fails the Starts
// a test asks it to fail, and records what was started and stopped so a
// test can check that nothing leaked.
//
// Its instances have no agentd: a session on one answers unavailable as
// soon as it talks to the desktop. Use it where a test is about the
// runner, the pool, the farm or the server around the sandboxes; use the
// local provider (sandbox/local/localtest) where a desktop must answer.
package fake

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// Config scripts a [Provider]. The zero value starts every sandbox at
// once and has no admin channel.
type Config struct {
	// Delay is how long each Start takes; a Start whose context ends
	// first answers the context's error and starts nothing.
	Delay time.Duration
	// Errs are the answers of the first Starts, in order: a nil entry
	// starts a sandbox, an error fails that Start. Starts beyond the list
	// succeed.
	Errs []error
	// Before, when set, runs at the start of every Start (before Delay)
	// with the Start's context; it may block (a gate a test opens), and a
	// non-nil error fails that Start.
	Before func(ctx context.Context, spec sandbox.Spec) error
	// AgentURL is the agentd address of every instance; empty means
	// "http://127.0.0.1:1", where nothing answers.
	AgentURL string
	// Admin, when set, is the provider's admin channel (see
	// [sandbox.AdminExecer]); nil answers errdefs.ErrNotImplemented.
	Admin func(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error)
}

// Provider is a scriptable [sandbox.Provider]. It is safe for concurrent
// use.
type Provider struct {
	cfg Config

	mu       sync.Mutex
	attempts int // Starts called
	starting int // Starts in progress
	next     int
	running  map[string]sandbox.Spec
	stopped  []string
}

var (
	_ sandbox.Provider    = (*Provider)(nil)
	_ sandbox.AdminExecer = (*Provider)(nil)
)

// New returns a provider scripted by cfg.
func New(cfg Config) *Provider {
	if cfg.AgentURL == "" {
		cfg.AgentURL = "http://127.0.0.1:1"
	}
	return &Provider{cfg: cfg, running: map[string]sandbox.Spec{}}
}

// Start starts a sandbox named "fake-1", "fake-2", ... as cfg scripts it.
// The instance carries spec.Labels.
func (p *Provider) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	p.mu.Lock()
	n := p.attempts
	p.attempts++
	p.starting++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.starting--
		p.mu.Unlock()
	}()
	if p.cfg.Before != nil {
		if err := p.cfg.Before(ctx, spec); err != nil {
			return sandbox.Instance{}, err
		}
	}
	if p.cfg.Delay > 0 {
		t := time.NewTimer(p.cfg.Delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return sandbox.Instance{}, ctx.Err()
		case <-t.C:
		}
	}
	if n < len(p.cfg.Errs) && p.cfg.Errs[n] != nil {
		return sandbox.Instance{}, p.cfg.Errs[n]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	id := fmt.Sprint("fake-", p.next)
	p.running[id] = spec
	return sandbox.Instance{ID: id, AgentURL: p.cfg.AgentURL, Labels: spec.Labels}, nil
}

// Stop stops sandbox id; an id that is not running answers
// errdefs.ErrNotFound.
func (p *Provider) Stop(_ context.Context, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.running[id]; !ok {
		return errdefs.ErrNotFound.WithMessage("no sandbox " + id)
	}
	delete(p.running, id)
	p.stopped = append(p.stopped, id)
	return nil
}

// AdminExec runs cfg.Admin, or answers errdefs.ErrNotImplemented when
// there is none. An id that is not running answers errdefs.ErrNotFound.
func (p *Provider) AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
	if p.cfg.Admin == nil {
		return api.ExecResult{}, errdefs.ErrNotImplemented.WithMessage("the sandbox provider has no admin channel")
	}
	return p.cfg.Admin(ctx, id, req)
}

// Attempts is how many times Start was called, failed Starts included.
func (p *Provider) Attempts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.attempts
}

// Starting is how many Starts are in progress now.
func (p *Provider) Starting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starting
}

// Running lists the sandboxes started and not yet stopped, sorted: after
// a test has cleaned up, they are its leaks.
func (p *Provider) Running() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.running))
}

// Stopped lists the sandboxes stopped, in the order they were.
func (p *Provider) Stopped() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.stopped)
}

// Spec returns the spec sandbox id was started with, while it runs.
func (p *Provider) Spec(id string) (sandbox.Spec, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.running[id]
	return s, ok
}

// TB is the part of testing.TB [Provider.CheckLeaks] uses.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// CheckLeaks makes t fail at its end when a sandbox p started is still
// running then: one started and never stopped.
func (p *Provider) CheckLeaks(t TB) {
	t.Helper()
	t.Cleanup(func() {
		if leaked := p.Running(); len(leaked) > 0 {
			t.Errorf("sandboxes started and not stopped: %v", leaked)
		}
	})
}
