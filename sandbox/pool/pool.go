// Package pool keeps sandboxes started ahead of demand, so that starting a
// session takes the time of a map lookup instead of a container start. A
// [Pool] wraps any [sandbox.Provider] and is one itself.
package pool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// Config holds the settings of a pool. The zero value keeps nothing warm.
type Config struct {
	// Specs are the sandboxes to keep warm, one entry per kind (image,
	// screen, limits, egress). A Spec with Env set is never matched, since
	// a started sandbox's environment cannot change; Labels of a warm
	// sandbox are its template's (put the runner's owner label there).
	Specs []sandbox.Spec
	// Size is how many idle sandboxes each Spec keeps (default 1).
	Size int
	// RetryDelay is the pause after a failed refill, doubled on each
	// further failure up to a minute (default 1s).
	RetryDelay time.Duration
	// Healthy checks an idle sandbox before it is handed out; one that
	// fails is stopped and the next is tried. Nil means an HTTP GET of its
	// agentd's /healthz with a 1s timeout.
	Healthy func(ctx context.Context, inst sandbox.Instance) error
	// Logger receives refill failures. Nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Size <= 0 {
		c.Size = 1
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = time.Second
	}
	if c.Healthy == nil {
		hc := &http.Client{Timeout: time.Second}
		c.Healthy = func(ctx context.Context, inst sandbox.Instance) error {
			return agentdclient.Healthy(ctx, inst.AgentURL, hc)
		}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Pool is a [sandbox.Provider] that hands out sandboxes started ahead of
// time when a Spec matches one of its templates, and starts others
// through the provider it wraps. A sandbox is handed out at most once.
// It is safe for concurrent use.
type Pool struct {
	p      sandbox.Provider
	cfg    Config
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	slots  []*slot
}

// slot is the warm sandboxes of one template.
type slot struct {
	spec sandbox.Spec
	idle []sandbox.Instance
	// wake asks the slot's refill goroutine to top up; buffered (1) so a
	// signal is never lost and never blocks.
	wake chan struct{}
}

var _ sandbox.Provider = (*Pool)(nil)

// New returns a pool over p and starts filling it in the background. The
// pool's goroutines run until Close.
func New(p sandbox.Provider, cfg Config) *Pool {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	pl := &Pool{p: p, cfg: cfg, log: cfg.Logger.With("component", "pool"), cancel: cancel}
	for _, spec := range cfg.Specs {
		s := &slot{spec: spec.WithDefaults(), wake: make(chan struct{}, 1)}
		pl.slots = append(pl.slots, s)
		pl.wg.Go(func() { pl.refill(ctx, s) })
	}
	return pl
}

// Start hands out an idle sandbox when spec matches a template and one is
// ready, and otherwise starts one through the wrapped provider.
func (pl *Pool) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	spec = spec.WithDefaults()
	for {
		inst, s, ok := pl.take(spec)
		if !ok {
			return pl.p.Start(ctx, spec)
		}
		err := pl.cfg.Healthy(ctx, inst)
		if err == nil {
			return inst, nil
		}
		if ctx.Err() != nil {
			pl.discard(inst)
			return sandbox.Instance{}, ctx.Err()
		}
		pl.log.WarnContext(ctx, "idle sandbox unhealthy; discarding it", "sandbox", inst.ID, "image", s.spec.Image, "err", err)
		pl.discard(inst)
	}
}

// take removes the oldest idle sandbox of the first template matching
// spec, and wakes that template's refill.
func (pl *Pool) take(spec sandbox.Spec) (sandbox.Instance, *slot, bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.closed {
		return sandbox.Instance{}, nil, false
	}
	for _, s := range pl.slots {
		if !matches(s.spec, spec) || len(s.idle) == 0 {
			continue
		}
		inst := s.idle[0]
		s.idle = s.idle[1:]
		select {
		case s.wake <- struct{}{}:
		default:
		}
		return inst, s, true
	}
	return sandbox.Instance{}, nil, false
}

// discard stops a sandbox that will not be handed out, in the background
// of the caller but owned by the pool.
func (pl *Pool) discard(inst sandbox.Instance) {
	pl.mu.Lock()
	if pl.closed { // Close may be waiting for the pool's goroutines
		pl.mu.Unlock()
		pl.discardNow(inst)
		return
	}
	pl.wg.Add(1) // under mu, so never after Close began waiting
	pl.mu.Unlock()
	go func() {
		defer pl.wg.Done()
		pl.discardNow(inst)
	}()
}

// Stop stops a sandbox through the wrapped provider.
func (pl *Pool) Stop(ctx context.Context, id string) error {
	return pl.p.Stop(ctx, id)
}

// Idle reports how many sandboxes wait in the pool.
func (pl *Pool) Idle() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	n := 0
	for _, s := range pl.slots {
		n += len(s.idle)
	}
	return n
}

// Close stops refilling, waits for the refills under way to end (their
// sandboxes are stopped) and stops every idle sandbox. Afterwards Start
// always goes to the wrapped provider. The error joins the failures to
// stop idle sandboxes.
func (pl *Pool) Close(ctx context.Context) error {
	pl.mu.Lock()
	pl.closed = true
	var idle []sandbox.Instance
	for _, s := range pl.slots {
		idle = append(idle, s.idle...)
		s.idle = nil
	}
	pl.mu.Unlock()
	pl.cancel()

	errs := make([]error, len(idle))
	var wg sync.WaitGroup
	for i, inst := range idle {
		wg.Go(func() {
			if err := pl.p.Stop(context.WithoutCancel(ctx), inst.ID); err != nil {
				errs[i] = fmt.Errorf("stop idle sandbox %s: %w", inst.ID, err)
			}
		})
	}
	wg.Wait()
	pl.wg.Wait()
	return errors.Join(errs...)
}

// refill keeps s topped up until ctx ends.
func (pl *Pool) refill(ctx context.Context, s *slot) {
	delay := pl.cfg.RetryDelay
	for {
		pl.mu.Lock()
		need := !pl.closed && len(s.idle) < pl.cfg.Size
		pl.mu.Unlock()
		if !need {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		inst, err := pl.p.Start(ctx, s.spec)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			pl.log.Warn("refill pool", "image", s.spec.Image, "retry_in", delay, "err", err)
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			delay = min(2*delay, time.Minute)
			continue
		}
		delay = pl.cfg.RetryDelay
		pl.mu.Lock()
		if pl.closed {
			pl.mu.Unlock()
			pl.discardNow(inst)
			return
		}
		s.idle = append(s.idle, inst)
		pl.mu.Unlock()
	}
}

// discardNow stops inst, a sandbox that will not be handed out.
func (pl *Pool) discardNow(inst sandbox.Instance) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pl.p.Stop(ctx, inst.ID); err != nil {
		pl.log.Warn("stop discarded sandbox", "sandbox", inst.ID, "err", err)
	}
}

// matches reports whether a sandbox started from template can serve spec
// (both with defaults applied).
func matches(template, spec sandbox.Spec) bool {
	return len(spec.Env) == 0 &&
		template.Image == spec.Image &&
		template.Screen == spec.Screen &&
		template.Network == spec.Network &&
		template.Sudo == spec.Sudo &&
		template.Runtime == spec.Runtime &&
		template.MemoryBytes == spec.MemoryBytes &&
		template.NanoCPUs == spec.NanoCPUs
}

var _ sandbox.AdminExecer = (*Pool)(nil)

// AdminExec runs req through the admin channel of the provider the pool
// wraps, for warm sandboxes and others alike. When that provider has none
// it answers an error for which errdefs.IsNotImplemented holds.
func (p *Pool) AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
	return sandbox.AdminExec(ctx, p.p, id, req)
}

var _ sandbox.Snapshotter = (*Pool)(nil)

// Checkpoint saves a sandbox through the provider the pool wraps (see
// [sandbox.Snapshotter]); when that provider cannot, it answers an error
// for which errdefs.IsNotImplemented holds.
func (p *Pool) Checkpoint(ctx context.Context, id string, opts sandbox.CheckpointOptions) (sandbox.Snapshot, error) {
	return sandbox.Checkpoint(ctx, p.p, id, opts)
}

// Basis answers for the provider the pool wraps (see
// [sandbox.Snapshotter]).
func (p *Pool) Basis(ctx context.Context, spec sandbox.Spec) (string, error) {
	return sandbox.Basis(ctx, p.p, spec)
}

// Restore starts a sandbox from snap through the provider the pool wraps,
// never from the pool's warm sandboxes.
func (p *Pool) Restore(ctx context.Context, snap sandbox.Snapshot, opts sandbox.RestoreOptions) (sandbox.Instance, error) {
	return sandbox.Restore(ctx, p.p, snap, opts)
}
