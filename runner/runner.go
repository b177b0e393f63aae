// Package runner turns sandboxes into sessions: a sandbox started through
// a provider plus what a session remembers (the dialect state with the
// last screenshot's size, held keys and buttons, shell consoles) and its
// trajectory, every call appended to a JSONL file as it happens. Its
// subpackages hold the dialects, tool definitions and task evaluation.
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
)

// Config configures a Manager.
type Config struct {
	// Providers by name: "local", "docker".
	Providers map[string]sandbox.Provider
	// DefaultProvider is used when a request names none.
	DefaultProvider string
	// DefaultImage is the sandbox image when a request names none.
	DefaultImage string
	// DefaultDialect is the dialect of sessions created without one;
	// "" means "anthropic".
	DefaultDialect string
	// TrajectoryDir, when set, receives <session>.jsonl and the
	// session's screenshots under <session>/.
	TrajectoryDir string
	HTTPClient    *http.Client
	Logger        *slog.Logger
}

// Screen bounds a session may ask for.
var (
	MinScreen = wire.Screen{Width: 320, Height: 200}
	MaxScreen = wire.Screen{Width: 7680, Height: 4320}
)

// Manager owns the sessions of a server.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
}

// NewManager returns a Manager over cfg's providers.
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
		return nil, fmt.Errorf("runner: unknown default dialect %q", cfg.DefaultDialect)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.TrajectoryDir != "" {
		if err := os.MkdirAll(cfg.TrajectoryDir, 0o755); err != nil {
			return nil, fmt.Errorf("runner: trajectory dir: %w", err)
		}
	}
	return &Manager{cfg: cfg, log: cfg.Logger, sessions: map[string]*Session{}}, nil
}

// Providers lists the configured provider names, sorted.
func (m *Manager) Providers() []string { return slices.Sorted(maps.Keys(m.cfg.Providers)) }

func invalid(format string, args ...any) error {
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf(format, args...))
}

// Create starts a sandbox and returns its session.
func (m *Manager) Create(ctx context.Context, req wire.CreateSessionRequest) (*Session, error) {
	prov := req.Provider
	if prov == "" {
		prov = m.cfg.DefaultProvider
	}
	p, ok := m.cfg.Providers[prov]
	if !ok {
		return nil, invalid("provider: unknown provider %q (this server has %s)", req.Provider, strings.Join(m.Providers(), ", "))
	}
	scr := req.Screen
	if scr == (wire.Screen{}) {
		scr = sandbox.DefaultScreen
	}
	if scr.Width < MinScreen.Width || scr.Width > MaxScreen.Width {
		return nil, invalid("screen.width: %d out of range %d..%d", scr.Width, MinScreen.Width, MaxScreen.Width)
	}
	if scr.Height < MinScreen.Height || scr.Height > MaxScreen.Height {
		return nil, invalid("screen.height: %d out of range %d..%d", scr.Height, MinScreen.Height, MaxScreen.Height)
	}
	dn := req.Dialect
	if dn == "" {
		dn = m.cfg.DefaultDialect
	}
	if _, ok := dialect.ByName(dn); !ok {
		return nil, invalid("dialect: unknown dialect %q (want one of %s)", req.Dialect, strings.Join(dialect.Names(), ", "))
	}
	for k := range req.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, invalid("env: bad variable name %q", k)
		}
	}
	image := req.Image
	if image == "" && prov != "local" {
		image = m.cfg.DefaultImage
	}
	id := newID()
	labels := maps.Clone(req.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[sandbox.LabelSession] = id
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	start := time.Now()
	inst, err := p.Start(ctx, sandbox.Spec{Image: image, Screen: scr, Env: req.Env, Labels: labels, Network: req.Network})
	if err != nil {
		if errdefs.IsInvalidArgument(err) || errdefs.IsNotFound(err) {
			return nil, err
		}
		if errdefs.IsCanceled(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("provider %s: start sandbox: %v", prov, err))
	}
	s := &Session{
		m: m, prov: p, inst: inst,
		client: agentd.NewClient(inst.AgentURL, inst.Token, m.cfg.HTTPClient),
		info: wire.Session{
			ID: id, Provider: prov, Image: image, Screen: scr, Dialect: dn, Network: req.Network,
			Labels: req.Labels, CreatedAt: time.Now().UTC(), SandboxID: inst.ID,
		},
	}
	if m.cfg.TrajectoryDir != "" {
		f, err := os.OpenFile(filepath.Join(m.cfg.TrajectoryDir, id+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			_ = p.Stop(context.WithoutCancel(ctx), inst.ID)
			return nil, fmt.Errorf("trajectory: %w", err)
		}
		s.traj = f
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		s.stop(context.WithoutCancel(ctx))
		return nil, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	m.sessions[id] = s
	m.mu.Unlock()
	m.log.Info("session created", "id", id, "provider", prov, "sandbox", inst.ID, "took", time.Since(start).Round(time.Millisecond))
	s.record("create", req, s.info, nil, start, "")
	return s, nil
}

func newID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Get returns the session id.
func (m *Manager) Get(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("no session %q", id))
	}
	return s, nil
}

// List returns the sessions by creation time.
func (m *Manager) List() []*Session {
	m.mu.Lock()
	out := slices.Collect(maps.Values(m.sessions))
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b *Session) int { return a.info.CreatedAt.Compare(b.info.CreatedAt) })
	return out
}

// Delete releases what the session's dialect left held and stops its
// sandbox.
func (m *Manager) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	delete(m.sessions, id)
	m.mu.Unlock()
	if !ok {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("no session %q", id))
	}
	return s.stop(ctx)
}

// Close deletes every session and refuses new ones.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	all := slices.Collect(maps.Values(m.sessions))
	clear(m.sessions)
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(all))
	for i, s := range all {
		wg.Go(func() { errs[i] = s.stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Session is one sandbox in use. Its methods are safe for concurrent use.
type Session struct {
	m      *Manager
	prov   sandbox.Provider
	inst   sandbox.Instance
	client *agentd.Client
	info   wire.Session
	state  dialect.State

	trajMu sync.Mutex
	traj   *os.File
	shots  int
}

var (
	_ dialect.Desktop       = (*Session)(nil)
	_ dialect.ShellHost     = (*Session)(nil)
	_ dialect.WindowManager = (*Session)(nil)
	_ task.Sandbox          = (*Session)(nil)
)

// ID is the session's id.
func (s *Session) ID() string { return s.info.ID }

// Info describes the session.
func (s *Session) Info() wire.Session { return s.info }

// Instance is the session's sandbox.
func (s *Session) Instance() sandbox.Instance { return s.inst }

func (s *Session) stop(ctx context.Context) error {
	if rel := s.state.Release(); len(rel) > 0 {
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, _ = s.client.Input(rctx, rel)
		cancel()
	}
	err := s.prov.Stop(ctx, s.inst.ID)
	s.record("delete", nil, nil, err, time.Now(), "")
	s.trajMu.Lock()
	if s.traj != nil {
		s.traj.Close()
		s.traj = nil
	}
	s.trajMu.Unlock()
	s.m.log.Info("session deleted", "id", s.info.ID, "err", err)
	return err
}

// step is one line of a trajectory.
type step struct {
	Time       time.Time `json:"time"`
	Call       string    `json:"call"`
	Args       any       `json:"args,omitempty"`
	Result     any       `json:"result,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMS float64   `json:"duration_ms"`
	Screenshot string    `json:"screenshot,omitempty"`
}

// record appends one call to the trajectory, if one is kept.
func (s *Session) record(call string, args, result any, err error, start time.Time, shot string) {
	s.trajMu.Lock()
	defer s.trajMu.Unlock()
	if s.traj == nil {
		return
	}
	st := step{Time: start.UTC(), Call: call, Args: args, Result: result, DurationMS: float64(time.Since(start).Microseconds()) / 1000, Screenshot: shot}
	if err != nil {
		st.Error = err.Error()
	}
	b, merr := json.Marshal(st)
	if merr != nil {
		b, _ = json.Marshal(step{Time: st.Time, Call: call, Error: "unencodable: " + merr.Error()})
	}
	_, _ = s.traj.Write(append(b, '\n'))
}

// saveShot stores a screenshot beside the trajectory and returns its path
// relative to the trajectory directory.
func (s *Session) saveShot(sh wire.Screenshot) string {
	s.trajMu.Lock()
	defer s.trajMu.Unlock()
	if s.traj == nil {
		return ""
	}
	s.shots++
	rel := filepath.Join(s.info.ID, fmt.Sprintf("%04d.%s", s.shots, sh.Format))
	p := filepath.Join(s.m.cfg.TrajectoryDir, rel)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, sh.Data, 0o644) != nil {
		return ""
	}
	return rel
}

// Input runs core actions.
func (s *Session) Input(ctx context.Context, actions []wire.Action) (wire.InputResult, error) {
	start := time.Now()
	res, err := s.client.Input(ctx, actions)
	s.record("input", actions, res, err, start, "")
	return res, err
}

// Screenshot captures the screen.
func (s *Session) Screenshot(ctx context.Context, o wire.ScreenshotOptions) (wire.Screenshot, error) {
	start := time.Now()
	sh, err := s.client.Screenshot(ctx, o)
	var ref string
	if err == nil {
		ref = s.saveShot(sh)
	}
	s.record("screenshot", o, map[string]any{"width": sh.Width, "height": sh.Height, "scale": sh.Scale}, err, start, ref)
	return sh, err
}

// Cursor returns the pointer position.
func (s *Session) Cursor(ctx context.Context) (wire.Point, error) {
	start := time.Now()
	p, err := s.client.Cursor(ctx)
	s.record("cursor", nil, p, err, start, "")
	return p, err
}

// Screen returns the screen size.
func (s *Session) Screen(ctx context.Context) (wire.Screen, error) { return s.client.Screen(ctx) }

// Health asks the sandbox's agentd whether its desktop answers.
func (s *Session) Health(ctx context.Context) (wire.Health, error) { return s.client.Health(ctx) }

// Exec runs a command in the sandbox.
func (s *Session) Exec(ctx context.Context, r wire.ExecRequest) (wire.ExecResult, error) {
	start := time.Now()
	res, err := s.client.Exec(ctx, r)
	s.record("exec", r, res, err, start, "")
	return res, err
}

// ReadFile reads a file of the sandbox.
func (s *Session) ReadFile(ctx context.Context, path string) ([]byte, error) {
	start := time.Now()
	b, err := s.client.ReadFile(ctx, path)
	s.record("read_file", map[string]string{"path": path}, map[string]int{"bytes": len(b)}, err, start, "")
	return b, err
}

// WriteFile writes a file of the sandbox.
func (s *Session) WriteFile(ctx context.Context, path string, data []byte) error {
	start := time.Now()
	err := s.client.WriteFile(ctx, path, data)
	s.record("write_file", map[string]any{"path": path, "bytes": len(data)}, nil, err, start, "")
	return err
}

// Windows lists the top-level windows.
func (s *Session) Windows(ctx context.Context) ([]wire.Window, error) { return s.client.Windows(ctx) }

// ActivateWindow raises and focuses a window.
func (s *Session) ActivateWindow(ctx context.Context, id uint32) error {
	start := time.Now()
	err := s.client.ActivateWindow(ctx, id)
	s.record("activate_window", map[string]uint32{"id": id}, nil, err, start, "")
	return err
}

// CloseWindow asks a window to close.
func (s *Session) CloseWindow(ctx context.Context, id uint32) error {
	start := time.Now()
	err := s.client.CloseWindow(ctx, id)
	s.record("close_window", map[string]uint32{"id": id}, nil, err, start, "")
	return err
}

// ShellExec runs a command in a named shell session.
func (s *Session) ShellExec(ctx context.Context, id string, r wire.ShellExecRequest) (wire.Shell, error) {
	start := time.Now()
	sh, err := s.client.ShellExec(ctx, id, r)
	s.record("shell_exec", map[string]any{"id": id, "request": r}, sh, err, start, "")
	return sh, err
}

// ShellView returns a shell session's state.
func (s *Session) ShellView(ctx context.Context, id string) (wire.Shell, error) {
	return s.client.ShellView(ctx, id)
}

// ShellWait waits for a shell session's command.
func (s *Session) ShellWait(ctx context.Context, id string, r wire.ShellWaitRequest) (wire.Shell, error) {
	return s.client.ShellWait(ctx, id, r)
}

// ShellWrite writes to a shell session's running command.
func (s *Session) ShellWrite(ctx context.Context, id string, r wire.ShellWriteRequest) (wire.Shell, error) {
	start := time.Now()
	sh, err := s.client.ShellWrite(ctx, id, r)
	s.record("shell_write", map[string]any{"id": id, "request": r}, sh, err, start, "")
	return sh, err
}

// ShellKill kills a shell session's command.
func (s *Session) ShellKill(ctx context.Context, id string) (wire.Shell, error) {
	return s.client.ShellKill(ctx, id)
}

// CallTool calls the tool name of dialect dn ("" means the session's
// dialect) with JSON arguments. Invalid arguments and refused actions are
// results with IsError set; the error is for infrastructure failures and
// unknown dialects.
func (s *Session) CallTool(ctx context.Context, dn, name string, args json.RawMessage) (dialect.Result, error) {
	if dn == "" {
		dn = s.info.Dialect
	}
	d, ok := dialect.ByName(dn)
	if !ok {
		return dialect.Result{}, invalid("dialect: unknown dialect %q (want one of %s)", dn, strings.Join(dialect.Names(), ", "))
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	start := time.Now()
	res, err := d.Call(ctx, s, &s.state, name, args)
	var ref string
	for _, p := range res.Content {
		if p.Type == "image" {
			ref = s.saveShot(wire.Screenshot{Data: p.Data, Format: strings.TrimPrefix(p.MIMEType, "image/")})
		}
	}
	summary := map[string]any{"is_error": res.IsError, "text": res.Text(), "done": res.Done}
	s.record("tool:"+dn+"/"+name, args, summary, err, start, ref)
	return res, err
}

// State is the session's dialect state.
func (s *Session) State() *dialect.State { return &s.state }
