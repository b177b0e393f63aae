// Package runner turns sandboxes into sessions: a sandbox started through
// a provider plus what a session remembers (its screen, the dialect state
// with the last screenshot's size, held keys and buttons, shell consoles)
// and its trajectory, every call appended to a JSONL file as it happens,
// and, for a session created with "record": true, the video of its
// desktop, saved on the host when it ends (see recording.go).
// Its subpackages hold the dialects, tool definitions, task evaluation,
// agents and the parallel farm.
package runner

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/sandbox"
)

// Config configures a Manager. Providers is required; every other field
// has a useful zero value.
type Config struct {
	// Providers by name: "local", "docker". At least one is required.
	Providers map[string]sandbox.Provider
	// DefaultProvider is used when a request names none. Empty means
	// "docker" if configured, else "local", else the first name in
	// sorted order.
	DefaultProvider string
	// DefaultImage is the sandbox image when a request names none; the
	// local provider ignores images.
	DefaultImage string
	// DefaultDialect is the dialect of sessions created without one.
	// Empty means "anthropic".
	DefaultDialect string
	// TrajectoryDir, when set, receives <session>.jsonl, one line per
	// call on the session, and the screenshots those lines reference
	// under <session>/. Empty means no trajectories.
	TrajectoryDir string
	// TrajectoryLimit bounds the bytes one session's trajectory takes
	// (its lines and screenshots); past it the trajectory ends with a
	// line saying so. Zero means 256 MiB, negative no bound.
	TrajectoryLimit int64
	// TrajectoryTotal bounds the bytes the trajectories of TrajectoryDir
	// take together, those already there at start included: to make room,
	// the trajectories of ended sessions are removed, oldest first (each
	// removal logged); when running sessions alone fill it, the one
	// writing is cut as at TrajectoryLimit. Zero means 4 GiB, negative no
	// bound.
	TrajectoryTotal int64
	// RecordingDir receives the videos of sessions created with "record":
	// true, <session>.webm, when they end (unless [Session.RecordTo] names
	// another file). Empty means TrajectoryDir, or when that is empty too
	// a temporary folder that Close removes.
	RecordingDir string
	// CallTimeout bounds each call to a sandbox (exec and shell waits get
	// their own wait and half a minute more): past it the call answers a
	// deadline error naming it. Zero means a minute.
	CallTimeout time.Duration
	// HealthInterval is how often every session's sandbox is asked
	// whether it answers; one that misses two checks in a row is marked
	// unreachable (its calls answer 503 at once) until it answers again.
	// Zero means 2 seconds, negative no watching.
	HealthInterval time.Duration
	// HTTPClient talks to the sandboxes' agentd. Nil means
	// agentdclient.DefaultHTTPClient.
	HTTPClient *http.Client
	// Logger receives one line per session created and ended. Nil
	// discards them.
	Logger *slog.Logger
	// OnToolCall, when set, is called after every tool call on a session
	// ([Session.CallTool]) with the dialect and tool named, the result
	// and the call's error, e.g. to count calls. It is called from the
	// caller's goroutine, so it must be safe for concurrent use and
	// quick.
	OnToolCall func(dialect, tool string, res dialect.Result, err error)
}

// Screen bounds a session may ask for.
const (
	minScreenWidth, minScreenHeight = 320, 200
	maxScreenWidth, maxScreenHeight = 7680, 4320
)

// releaseTimeout bounds releasing held keys and buttons before a
// sandbox stops.
const releaseTimeout = 2 * time.Second

// Manager owns the sessions of a server. It is safe for concurrent use.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
	// recordings are the videos of ended sessions by session id;
	// recordDir is where they go by default, ownDir when the Manager made
	// it (and removes it at Close).
	recordings map[string]string
	recordDir  string
	ownDir     bool
	// snapDir holds the snapshots of forks and pauses ([Manager.Fork]),
	// made on first use and removed by Close; snapMu guards it.
	snapMu    sync.Mutex
	snapDir   string
	trajStore *trajStore // TrajectoryDir's total

	stopWatch chan struct{} // closed by Close; ends watch
	watchDone chan struct{}
	// expiring counts the sessions past their deadline being ended;
	// Close waits for them.
	expiring sync.WaitGroup
}

// NewManager returns a Manager over cfg's providers. It fails when no
// provider is configured, the default provider or dialect is unknown, or
// the trajectory directory cannot be made.
func NewManager(cfg Config) (*Manager, error) {
	if len(cfg.Providers) == 0 {
		return nil, errors.New("runner: no sandbox provider")
	}
	if cfg.DefaultProvider == "" {
		for _, n := range []string{"docker", "local"} {
			if cfg.Providers[n] != nil {
				cfg.DefaultProvider = n
				break
			}
		}
		if cfg.DefaultProvider == "" {
			cfg.DefaultProvider = slices.Sorted(maps.Keys(cfg.Providers))[0]
		}
	}
	if cfg.Providers[cfg.DefaultProvider] == nil {
		return nil, fmt.Errorf("runner: default provider %q is not configured", cfg.DefaultProvider)
	}
	if cfg.DefaultDialect == "" {
		cfg.DefaultDialect = "anthropic"
	}
	if _, ok := dialect.ByName(cfg.DefaultDialect); !ok {
		return nil, fmt.Errorf("runner: unknown default dialect %q (want one of %s)", cfg.DefaultDialect, strings.Join(dialect.Names(), ", "))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TrajectoryDir != "" {
		if err := os.MkdirAll(cfg.TrajectoryDir, 0o700); err != nil {
			return nil, fmt.Errorf("runner: make trajectory directory: %w", err)
		}
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = time.Minute
	}
	if cfg.HealthInterval == 0 {
		cfg.HealthInterval = 2 * time.Second
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, sessions: map[string]*Session{}, recordings: map[string]string{},
		stopWatch: make(chan struct{}), watchDone: make(chan struct{})}
	if cfg.TrajectoryDir != "" {
		st, err := newTrajStore(cfg.TrajectoryDir, cfg.TrajectoryTotal)
		if err != nil {
			return nil, fmt.Errorf("runner: %w", err)
		}
		if st != nil {
			log := cfg.Logger
			st.onRemove = func(session string, bytes int64) {
				log.Info("trajectory removed to keep the directory within its total", "session", session, "bytes", bytes, "total", st.limit)
			}
		}
		m.trajStore = st
	}
	m.recordDir = cmp.Or(cfg.RecordingDir, cfg.TrajectoryDir)
	if cfg.HealthInterval > 0 {
		go m.watch()
	} else {
		close(m.watchDone)
	}
	return m, nil
}

// watch asks every session's agentd for its health (and, with the
// session's token, its screen) each HealthInterval, a check at a time
// per session, and marks the sessions
// whose sandbox misses two checks in a row unreachable (and reachable
// again when it answers).
func (m *Manager) watch() {
	defer close(m.watchDone)
	t := time.NewTicker(m.cfg.HealthInterval)
	defer t.Stop()
	misses := map[*Session]int{}
	for {
		select {
		case <-m.stopWatch:
			return
		case <-t.C:
		}
		m.mu.Lock()
		all := slices.Collect(maps.Values(m.sessions))
		m.mu.Unlock()
		type check struct {
			s   *Session
			err error
		}
		results := make(chan check, len(all))
		for _, s := range all {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), m.cfg.HealthInterval)
				defer cancel()
				_, err := s.client.Health(ctx)
				if err == nil {
					// /healthz takes no token; a call that does tells
					// the session's sandbox from another that took its
					// address.
					if _, err = s.client.Screen(ctx); err != nil && errdefs.IsUnauthorized(err) {
						err = addressTaken(s.info.ID, err)
					}
				}
				results <- check{s, err}
			}()
		}
		seen := map[*Session]bool{}
		for range all {
			c := <-results
			seen[c.s] = true
			if c.s.ended.Load() {
				continue
			}
			if c.err == nil {
				if c.s.unreachable.Swap(nil) != nil {
					c.s.log.Info("sandbox answers again")
				}
				misses[c.s] = 0
				continue
			}
			misses[c.s]++
			if misses[c.s] == 2 {
				why := fmt.Sprintf("no answer to health checks since %s: %v", time.Now().UTC().Add(-m.cfg.HealthInterval).Format(time.RFC3339), c.err)
				c.s.unreachable.Store(&why)
				c.s.log.Warn("sandbox unreachable", "err", c.err)
			}
		}
		for s := range misses {
			if !seen[s] {
				delete(misses, s)
			}
		}
	}
}

// Providers lists the configured provider names, sorted.
func (m *Manager) Providers() []string { return slices.Sorted(maps.Keys(m.cfg.Providers)) }

func invalid(format string, args ...any) error {
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf(format, args...))
}

// OSWorldScreen is the screen of a session created with "osworld": true
// and no screen: OSWorld's virtual machine runs at 1920x1080, and some of
// its task files hard-code coordinates of that screen.
var OSWorldScreen = api.Screen{Width: 1920, Height: 1080}

// validate checks req and returns the provider name, screen and dialect
// it asks for, defaults applied. Errors are errdefs.ErrInvalidArgument
// naming the field.
func (m *Manager) validate(req api.CreateSessionRequest) (string, api.Screen, string, error) {
	prov := req.Provider
	if prov == "" {
		prov = m.cfg.DefaultProvider
	}
	if _, ok := m.cfg.Providers[prov]; !ok {
		return "", api.Screen{}, "", invalid("provider: unknown provider %q (this server has %s)", req.Provider, strings.Join(m.Providers(), ", "))
	}
	scr := req.Screen
	if scr == (api.Screen{}) {
		scr = sandbox.DefaultScreen
		if req.OSWorld {
			scr = OSWorldScreen
		}
	}
	if scr.Width < minScreenWidth || scr.Width > maxScreenWidth {
		return "", api.Screen{}, "", invalid("screen.width: %d out of range %d..%d", scr.Width, minScreenWidth, maxScreenWidth)
	}
	if scr.Height < minScreenHeight || scr.Height > maxScreenHeight {
		return "", api.Screen{}, "", invalid("screen.height: %d out of range %d..%d", scr.Height, minScreenHeight, maxScreenHeight)
	}
	dn := req.Dialect
	if dn == "" {
		dn = m.cfg.DefaultDialect
	}
	if _, ok := dialect.ByName(dn); !ok {
		return "", api.Screen{}, "", invalid("dialect: unknown dialect %q (want one of %s)", req.Dialect, strings.Join(dialect.Names(), ", "))
	}
	for k := range req.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return "", api.Screen{}, "", invalid("env: bad variable name %q", k)
		}
	}
	for k := range req.Labels {
		if k == "" || k == sandbox.LabelSession {
			return "", api.Screen{}, "", invalid("labels: reserved or empty label %q", k)
		}
	}
	if req.TTLS < 0 || req.TTLS > api.MaxTTLS {
		return "", api.Screen{}, "", invalid("ttl_s: %d out of range 0..%d", req.TTLS, api.MaxTTLS)
	}
	return prov, scr, dn, nil
}

// Validate checks a session request as [Manager.Create] would, without
// starting anything: a bad field is errdefs.ErrInvalidArgument naming it
// ("screen.width: ...").
func (m *Manager) Validate(req api.CreateSessionRequest) error {
	_, _, _, err := m.validate(req)
	return err
}

// Create starts a sandbox and returns its session once the sandbox's
// agentd answers. A bad request is errdefs.ErrInvalidArgument naming the
// field ("screen.width: ..."); a provider that cannot start a sandbox,
// or a closed Manager, is errdefs.ErrUnavailable; a cancelled ctx gives
// its error. On error no sandbox is left running.
func (m *Manager) Create(ctx context.Context, req api.CreateSessionRequest) (_ *Session, err error) {
	prov, scr, dn, err := m.validate(req)
	if err != nil {
		return nil, err
	}
	p := m.cfg.Providers[prov]
	image := req.Image
	if image == "" && prov != "local" {
		image = m.cfg.DefaultImage
	}
	if m.isClosed() {
		return nil, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	id := newID()
	labels := maps.Clone(req.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[sandbox.LabelSession] = id
	start := time.Now()
	inst, err := p.Start(ctx, sandbox.Spec{Image: image, Screen: scr, Env: req.Env, Labels: labels, Network: req.Network, Sudo: req.Sudo, Runtime: req.Runtime})
	if err != nil {
		return nil, startError(prov, err)
	}
	log := m.log.With("session", id)
	s := &Session{
		log: log, prov: p, inst: inst, onTool: m.cfg.OnToolCall, callTimeout: m.cfg.CallTimeout,
		client: agentdclient.NewClient(inst.AgentURL, inst.Token, m.cfg.HTTPClient),
		info: api.Session{
			ID: id, Provider: prov, Image: image, Screen: scr, Dialect: dn, Network: req.Network, Sudo: req.Sudo, Runtime: req.Runtime,
			Labels: maps.Clone(req.Labels), SandboxID: inst.ID,
		},
	}
	defer func() {
		if err != nil { // stop the sandbox, even when ctx is done
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if serr := p.Stop(sctx, inst.ID); serr != nil && !errdefs.IsNotFound(serr) {
				err = errors.Join(err, fmt.Errorf("stop sandbox %s: %w", inst.ID, serr))
			}
			s.traj.close()
		}
	}()
	// The sandbox's real screen is what coordinates refer to.
	got, err := firstScreen(ctx, s.client)
	if err != nil {
		return nil, fmt.Errorf("provider %s: sandbox %s: read screen: %w", prov, inst.ID, err)
	}
	s.info.Screen = got
	if m.cfg.TrajectoryDir != "" {
		if s.traj, err = openTrajectory(m.cfg.TrajectoryDir, id, m.cfg.TrajectoryLimit, m.trajStore); err != nil {
			return nil, err
		}
	}
	if req.Record {
		if s.recordDir, err = m.recordingDir(); err != nil {
			return nil, err
		}
		s.onRecorded = m.recorded
		if err := s.startRecording(ctx); err != nil {
			return nil, err
		}
	}
	s.info.CreatedAt = time.Now().UTC()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	m.sessions[id] = s
	m.mu.Unlock()
	m.watchDeadline(s)
	if req.TTLS > 0 {
		s.SetDeadline(s.info.CreatedAt.Add(time.Duration(req.TTLS) * time.Second))
	}
	log.InfoContext(ctx, "session created", "provider", prov, "sandbox", inst.ID, "screen", fmt.Sprintf("%dx%d", got.Width, got.Height),
		"dialect", dn, "took", time.Since(start).Round(time.Millisecond))
	s.record(ctx, "create", req, s.info, nil, start, nil)
	return s, nil
}

// startError classifies a provider's start failure: bad input and
// cancellation keep their class, everything else is unavailable.
func startError(prov string, err error) error {
	switch {
	case errdefs.IsInvalidArgument(err), errdefs.IsNotFound(err), errdefs.IsUnavailable(err),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("provider %s: start sandbox: %w", prov, err)
	}
	return fmt.Errorf("provider %s: start sandbox: %w (%w)", prov, err, errdefs.ErrUnavailable)
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

// Get returns the session id, or an errdefs.ErrNotFound error.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session %q not found", id))
	}
	return s, nil
}

// List returns the sessions by creation time.
func (m *Manager) List() []*Session {
	m.mu.Lock()
	out := slices.Collect(maps.Values(m.sessions))
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b *Session) int {
		if c := a.info.CreatedAt.Compare(b.info.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.info.ID, b.info.ID)
	})
	return out
}

// Delete ends the session id: it releases the keys and buttons its
// dialect left held (best effort), stops its sandbox and closes its
// trajectory. An unknown id is errdefs.ErrNotFound.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if !ok {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session %q not found", id))
	}
	return s.end(ctx, "deleted")
}

// Close ends every session concurrently, as Delete does, and makes later
// Creates fail with errdefs.ErrUnavailable.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	if !m.closed {
		close(m.stopWatch)
	}
	m.closed = true
	all := slices.Collect(maps.Values(m.sessions))
	clear(m.sessions)
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(all))
	for i, s := range all {
		wg.Go(func() {
			if err := s.end(ctx, "server closed"); err != nil {
				errs[i] = fmt.Errorf("session %s: %w", s.info.ID, err)
			}
		})
	}
	wg.Wait()
	m.expiring.Wait()
	<-m.watchDone
	m.mu.Lock()
	if m.ownDir {
		os.RemoveAll(m.recordDir)
		clear(m.recordings)
	}
	m.mu.Unlock()
	m.removeSnapshots()
	return errors.Join(errs...)
}

// recordingDir is the folder of the videos of ended sessions, made on
// first use.
func (m *Manager) recordingDir() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recordDir == "" {
		dir, err := os.MkdirTemp("", "deskrun-recordings-")
		if err != nil {
			return "", fmt.Errorf("runner: make recording folder: %w", err)
		}
		m.recordDir, m.ownDir = dir, true
	}
	if err := os.MkdirAll(m.recordDir, 0o700); err != nil {
		return "", fmt.Errorf("runner: make recording folder: %w", err)
	}
	return m.recordDir, nil
}

// recorded notes where the video of an ended session went.
func (m *Manager) recorded(id, path string) {
	m.mu.Lock()
	m.recordings[id] = path
	m.mu.Unlock()
}

// firstScreen reads a new sandbox's screen. The sandbox has just
// answered its health check, so a connection that fails now is the path
// to it (a proxy or port-forward hop renewing itself), not the sandbox:
// the read is tried again, a few times over a few seconds, before the
// start fails.
func firstScreen(ctx context.Context, c *agentdclient.Client) (api.Screen, error) {
	var err error
	for try := range firstScreenTries {
		var scr api.Screen
		if scr, err = c.Screen(ctx); err == nil || !errdefs.IsUnavailable(err) || try == firstScreenTries-1 {
			return scr, err
		}
		select {
		case <-ctx.Done():
			return api.Screen{}, errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(try+1) * 250 * time.Millisecond):
		}
	}
	return api.Screen{}, err
}

// firstScreenTries bounds firstScreen's tries (1.5 s of pauses in all).
const firstScreenTries = 4
