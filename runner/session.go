package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/coder/websocket"
	"io"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/sandbox"
)

// Session is one sandbox in use: its agentd, the dialect state of the
// tool calls made on it and its trajectory. It is the desktop the
// dialects drive and the sandbox tasks are set up and graded on. Its
// methods are safe for concurrent use; once the session is deleted they
// return an errdefs.ErrNotFound error.
type Session struct {
	log    *slog.Logger
	prov   sandbox.Provider
	inst   sandbox.Instance
	client *agentdclient.Client
	info   api.Session // immutable once created
	state  dialect.State
	traj   *trajectory // nil when no trajectory is kept

	// onTool is [Config.OnToolCall]; nil means none.
	onTool func(dialect, tool string, res dialect.Result, err error)

	// mu guards osworld, onEnd, recordTo and ttl.
	mu      sync.Mutex
	osworld *api.OSWorldAddrs
	ttl     deadline
	onEnd   []func()
	// recordTo is where the video goes when the session ends ([Session.RecordTo]);
	// empty means <recordDir>/<id>.webm. onRecorded tells the Manager
	// where it went.
	recordTo   string
	recordDir  string
	onRecorded func(id, path string)

	ended atomic.Bool
	// pausedTo is the snapshot a paused session's sandbox was saved to
	// ([Manager.Pause]); nil while it runs. pauseMu serialises Pause and
	// Resume.
	pausedTo atomic.Pointer[sandbox.Snapshot]
	pauseMu  sync.Mutex
	// unreachable holds why the sandbox stopped answering the Manager's
	// health checks; nil while it answers.
	unreachable atomic.Pointer[string]
	// callTimeout bounds each call to the sandbox but exec and shell
	// waits ([Config.CallTimeout]).
	callTimeout time.Duration
	endOnce     sync.Once
	endErr      error
	calls       atomic.Int64
}

var (
	_ dialect.Desktop         = (*Session)(nil)
	_ dialect.ShellHost       = (*Session)(nil)
	_ dialect.BrowserHost     = (*Session)(nil)
	_ dialect.WindowManager   = (*Session)(nil)
	_ dialect.WindowControl   = (*Session)(nil)
	_ dialect.ClipboardAccess = (*Session)(nil)
)

// ID is the session's id.
func (s *Session) ID() string { return s.info.ID }

// Info describes the session; Screen is the sandbox's real screen size.
func (s *Session) Info() api.Session {
	info := s.info
	info.Labels = maps.Clone(info.Labels)
	info.State = api.SessionRunning
	if why := s.unreachable.Load(); why != nil {
		info.State, info.Unreachable = api.SessionUnreachable, *why
	}
	if s.pausedTo.Load() != nil {
		info.State, info.Unreachable = api.SessionPaused, ""
	}
	s.mu.Lock()
	if s.osworld != nil {
		a := *s.osworld
		info.OSWorld = &a
	}
	info.ExpiresAt = s.ttl.at
	s.mu.Unlock()
	return info
}

// SetOSWorld records the addresses of the session's OSWorld environment
// server, shown in [Session.Info]; the server that serves them sets it.
func (s *Session) SetOSWorld(a api.OSWorldAddrs) {
	s.mu.Lock()
	s.osworld = &a
	s.mu.Unlock()
}

// OnEnd registers f to run once the session has ended (deleted, or its
// Manager closed), after its sandbox stopped; f runs at once when the
// session has already ended.
func (s *Session) OnEnd(f func()) {
	s.mu.Lock()
	if !s.ended.Load() {
		s.onEnd = append(s.onEnd, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

// DialPort opens a raw TCP stream to port on the sandbox's loopback,
// through agentd; close it when done.
func (s *Session) DialPort(ctx context.Context, port int) (io.ReadWriteCloser, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return s.client.DialPort(ctx, port)
}

// DialVNC opens the sandbox's live view: a WebSocket to agentd carrying
// an RFB session in binary messages (package agentd/rfb). The connection
// outlives ctx; close it when done.
func (s *Session) DialVNC(ctx context.Context, viewOnly bool) (*websocket.Conn, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return s.client.DialVNC(ctx, viewOnly)
}

// Instance is the session's sandbox.
func (s *Session) Instance() sandbox.Instance {
	inst := s.inst
	// A resumed session's agentd answers at the address and with the
	// token the restore gave it: the client's, which Resume rebinds.
	inst.AgentURL, inst.Token = s.client.BaseURL(), s.client.Token()
	return inst
}

// end releases what the dialect holds, stops the sandbox and closes the
// trajectory; it runs once.
func (s *Session) end(ctx context.Context, why string) error {
	s.endOnce.Do(func() {
		s.mu.Lock()
		s.ended.Store(true)
		hooks := s.onEnd
		s.onEnd = nil
		s.mu.Unlock()
		s.stopDeadline()
		defer func() {
			for _, f := range hooks {
				f()
			}
		}()
		start := time.Now()
		if rel := s.state.Release(); len(rel) > 0 {
			// Best effort: the sandbox goes away next anyway.
			rctx, cancel := context.WithTimeout(ctx, releaseTimeout)
			res, err := s.client.Input(rctx, rel)
			cancel()
			s.record(ctx, "release", rel, res, err, start, nil)
		}
		if s.info.Record {
			// The video is finalized and copied before the sandbox goes.
			began := time.Now()
			path, err := s.saveRecording(ctx)
			if err != nil {
				s.log.WarnContext(ctx, "recording lost", "err", err)
				s.record(ctx, "recording", nil, nil, err, began, nil)
			} else if s.onRecorded != nil {
				s.onRecorded(s.info.ID, path)
			}
		}
		err := s.prov.Stop(ctx, s.inst.ID)
		if errdefs.IsNotFound(err) {
			err = nil // already gone
		}
		if err != nil {
			err = fmt.Errorf("stop sandbox %s: %w", s.inst.ID, err)
		}
		s.record(ctx, "delete", map[string]string{"reason": why}, nil, err, start, nil)
		s.traj.close()
		s.endErr = err
		s.log.InfoContext(ctx, "session ended", "reason", why, "calls", s.calls.Load(),
			"lived", time.Since(s.info.CreatedAt).Round(time.Millisecond), "err", err)
	})
	return s.endErr
}

// live returns an error once the session has ended.
func (s *Session) live() error {
	if s.ended.Load() {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session %q was deleted", s.info.ID))
	}
	if s.pausedTo.Load() != nil {
		return errdefs.ErrConflict.WithMessage(fmt.Sprintf("session %q is paused (POST /v1/sessions/%s/resume)", s.info.ID, s.info.ID))
	}
	s.calls.Add(1)
	return nil
}

// begin starts a call to the sandbox: the session must be alive and
// its sandbox reachable ([Manager] watches it), and the call ends at its
// deadline, d, however the sandbox behaves (a paused container keeps the
// connection open and never answers).
func (s *Session) begin(ctx context.Context, call string, d time.Duration) (context.Context, context.CancelFunc, error) {
	if err := s.live(); err != nil {
		return ctx, func() {}, err
	}
	if why := s.unreachable.Load(); why != nil {
		return ctx, func() {}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("session %s: its sandbox is unreachable (%s); delete the session", s.info.ID, *why))
	}
	ctx, cancel := context.WithTimeoutCause(ctx, d, deadlineError(
		fmt.Sprintf("session %s: the sandbox did not answer %s within %s", s.info.ID, call, d)))
	return ctx, cancel, nil
}

// addressTaken is the error of a session whose agentd address refused
// the token its provider gave: the session's token is always right, so
// the address answers for another sandbox (a container that died and
// whose address a new one took on the bridge). That is the session's
// sandbox being gone (a 503), not the caller's credentials being wrong
// (a 401).
func addressTaken(id string, err error) error {
	return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf(
		"session %s: its sandbox is gone: its address answers for another sandbox (%v)", id, err))
}

// deadlineError is a call's own deadline, of errdefs' class deadline
// exceeded (a 504).
type deadlineError string

func (e deadlineError) Error() string   { return string(e) }
func (deadlineError) DeadlineExceeded() {}

// bounded turns the failure of a call that ran out of its own deadline
// (not its caller's) into that deadline's error, which names it, and a
// refusal of the sandbox's token into the sandbox being gone (see
// [addressTaken]).
func (s *Session) bounded(ctx context.Context, err error) error {
	if errdefs.IsUnauthorized(err) {
		return addressTaken(s.info.ID, err)
	}
	if err == nil || ctx.Err() == nil {
		return err
	}
	if cause := context.Cause(ctx); errdefs.IsDeadlineExceeded(cause) {
		return cause
	}
	return err
}

// execTimeout is the deadline of an exec call: the command's own
// timeout (30 s when none is given) and half a minute for the rest.
func execTimeout(ms int) time.Duration {
	if ms <= 0 {
		ms = 30_000
	}
	return time.Duration(ms)*time.Millisecond + 30*time.Second
}

// waitTimeout is the deadline of a shell call that waits: its wait (30 s
// when none is given) and half a minute more.
func waitTimeout(ms int) time.Duration { return execTimeout(ms) }

// Input runs core actions in order, stopping at the first that fails.
func (s *Session) Input(ctx context.Context, actions []api.Action) (api.InputResult, error) {
	ctx, cancel, err := s.begin(ctx, "input", s.callTimeout)
	if err != nil {
		return api.InputResult{}, err
	}
	defer cancel()
	start := time.Now()
	res, err := s.client.Input(ctx, actions)
	err = s.bounded(ctx, err)
	s.record(ctx, "input", actions, res, err, start, nil)
	return res, err
}

// Screenshot captures the screen; the trajectory keeps the image.
func (s *Session) Screenshot(ctx context.Context, o api.ScreenshotOptions) (api.Screenshot, error) {
	ctx, cancel, err := s.begin(ctx, "screenshot", s.callTimeout)
	if err != nil {
		return api.Screenshot{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.Screenshot(ctx, o)
	err = s.bounded(ctx, err)
	var img *image
	var result any
	if err == nil {
		img = &image{data: sh.Data, format: sh.Format}
		m := map[string]any{"format": sh.Format, "width": sh.Width, "height": sh.Height, "scale": sh.Scale, "bytes": len(sh.Data)}
		if sh.Settled != nil {
			m["settled"], m["settle_ms"] = *sh.Settled, sh.SettleMS
		}
		result = m
	}
	s.record(ctx, "screenshot", o, result, err, start, img)
	return sh, err
}

// Cursor returns the pointer position.
func (s *Session) Cursor(ctx context.Context) (api.Point, error) {
	ctx, cancel, err := s.begin(ctx, "cursor", s.callTimeout)
	if err != nil {
		return api.Point{}, err
	}
	defer cancel()
	start := time.Now()
	p, err := s.client.Cursor(ctx)
	err = s.bounded(ctx, err)
	s.record(ctx, "cursor", nil, p, err, start, nil)
	return p, err
}

// Screen returns the screen size the session learnt when it was created
// (no round trip to the sandbox).
func (s *Session) Screen(ctx context.Context) (api.Screen, error) {
	if err := s.live(); err != nil {
		return api.Screen{}, err
	}
	s.record(ctx, "screen", nil, s.info.Screen, nil, time.Now(), nil)
	return s.info.Screen, nil
}

// Health asks the sandbox's agentd whether its desktop answers.
func (s *Session) Health(ctx context.Context) (api.Health, error) {
	ctx, cancel, err := s.begin(ctx, "health", s.callTimeout)
	if err != nil {
		return api.Health{}, err
	}
	defer cancel()
	start := time.Now()
	h, err := s.client.Health(ctx)
	err = s.bounded(ctx, err)
	s.record(ctx, "health", nil, h, err, start, nil)
	return h, err
}

// Exec runs a command in the sandbox with the desktop's DISPLAY.
func (s *Session) Exec(ctx context.Context, r api.ExecRequest) (api.ExecResult, error) {
	ctx, cancel, err := s.begin(ctx, "exec", execTimeout(r.TimeoutMS))
	if err != nil {
		return api.ExecResult{}, err
	}
	defer cancel()
	start := time.Now()
	res, err := s.client.Exec(ctx, r)
	err = s.bounded(ctx, err)
	s.record(ctx, "exec", r, res, err, start, nil)
	return res, err
}

// Kill kills every process the session's commands left running (daemons,
// background programs, a fork bomb), the desktop and its apps started
// before excepted, short of deleting the session.
func (s *Session) Kill(ctx context.Context) (api.KillResult, error) {
	ctx, cancel, err := s.begin(ctx, "kill", s.callTimeout)
	if err != nil {
		return api.KillResult{}, err
	}
	defer cancel()
	start := time.Now()
	res, err := s.client.Kill(ctx)
	err = s.bounded(ctx, err)
	s.record(ctx, "kill", nil, res, err, start, nil)
	return res, err
}

// ReadFile reads a file of the sandbox; a missing file is
// errdefs.ErrNotFound. The trajectory records its size, not its bytes.
func (s *Session) ReadFile(ctx context.Context, path string) ([]byte, error) {
	ctx, cancel, err := s.begin(ctx, "read_file", s.callTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	start := time.Now()
	b, err := s.client.ReadFile(ctx, path)
	err = s.bounded(ctx, err)
	var result any
	if err == nil {
		result = map[string]int{"bytes": len(b)}
	}
	s.record(ctx, "read_file", map[string]string{"path": path}, result, err, start, nil)
	return b, err
}

// WriteFile writes a file of the sandbox. The trajectory records its
// size, not its bytes.
func (s *Session) WriteFile(ctx context.Context, path string, data []byte) error {
	ctx, cancel, err := s.begin(ctx, "write_file", s.callTimeout)
	if err != nil {
		return err
	}
	defer cancel()
	start := time.Now()
	err = s.client.WriteFile(ctx, path, data)
	err = s.bounded(ctx, err)
	s.record(ctx, "write_file", map[string]any{"path": path, "bytes": len(data)}, nil, err, start, nil)
	return err
}

// Windows lists the top-level windows.
func (s *Session) Windows(ctx context.Context) ([]api.Window, error) {
	ctx, cancel, err := s.begin(ctx, "windows", s.callTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	start := time.Now()
	ws, err := s.client.Windows(ctx)
	err = s.bounded(ctx, err)
	s.record(ctx, "windows", nil, ws, err, start, nil)
	return ws, err
}

// ActivateWindow raises and focuses a window.
func (s *Session) ActivateWindow(ctx context.Context, id uint32) error {
	ctx, cancel, err := s.begin(ctx, "activate_window", s.callTimeout)
	if err != nil {
		return err
	}
	defer cancel()
	start := time.Now()
	err = s.client.ActivateWindow(ctx, id)
	err = s.bounded(ctx, err)
	s.record(ctx, "activate_window", map[string]uint32{"id": id}, nil, err, start, nil)
	return err
}

// CloseWindow asks a window to close.
func (s *Session) CloseWindow(ctx context.Context, id uint32) error {
	ctx, cancel, err := s.begin(ctx, "close_window", s.callTimeout)
	if err != nil {
		return err
	}
	defer cancel()
	start := time.Now()
	err = s.client.CloseWindow(ctx, id)
	err = s.bounded(ctx, err)
	s.record(ctx, "close_window", map[string]uint32{"id": id}, nil, err, start, nil)
	return err
}

// Window returns one window with its client area and state.
func (s *Session) Window(ctx context.Context, id uint32) (api.Window, error) {
	ctx, cancel, err := s.begin(ctx, "window", s.callTimeout)
	if err != nil {
		return api.Window{}, err
	}
	defer cancel()
	start := time.Now()
	w, err := s.client.Window(ctx, id)
	err = s.bounded(ctx, err)
	s.record(ctx, "window", map[string]uint32{"id": id}, w, err, start, nil)
	return w, err
}

// ChangeWindow minimizes, maximizes, restores, moves or resizes, activates
// or closes a window (one of [api.WindowActions]); place is the body of
// move_resize.
func (s *Session) ChangeWindow(ctx context.Context, id uint32, action string, place api.WindowPlacement) error {
	ctx, cancel, err := s.begin(ctx, "change_window", s.callTimeout)
	if err != nil {
		return err
	}
	defer cancel()
	start := time.Now()
	err = s.client.ChangeWindow(ctx, id, action, place)
	err = s.bounded(ctx, err)
	s.record(ctx, "change_window", map[string]any{"id": id, "action": action, "placement": place}, nil, err, start, nil)
	return err
}

// Browser runs a browser action on the sandbox's Chromium through agentd
// (see [api.BrowserActions]).
func (s *Session) Browser(ctx context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error) {
	if err := s.live(); err != nil {
		return api.BrowserResult{}, err
	}
	start := time.Now()
	res, err := s.client.Browser(ctx, action, r)
	logged := res
	logged.Screenshot = nil // the trajectory keeps the text, not the image
	s.record(ctx, "browser_"+action, r, logged, err, start, nil)
	return res, err
}

// ShellExec runs a command in the named shell session, creating it if
// needed.
func (s *Session) ShellExec(ctx context.Context, id string, r api.ShellExecRequest) (api.Shell, error) {
	ctx, cancel, err := s.begin(ctx, "shell_exec", waitTimeout(r.WaitMS))
	if err != nil {
		return api.Shell{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.ShellExec(ctx, id, r)
	err = s.bounded(ctx, err)
	s.record(ctx, "shell_exec", shellArgs{id, r}, sh, err, start, nil)
	return sh, err
}

// ShellView returns a shell session's state; an unknown one is
// errdefs.ErrNotFound.
func (s *Session) ShellView(ctx context.Context, id string) (api.Shell, error) {
	ctx, cancel, err := s.begin(ctx, "shell_view", s.callTimeout)
	if err != nil {
		return api.Shell{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.ShellView(ctx, id)
	err = s.bounded(ctx, err)
	s.record(ctx, "shell_view", shellArgs{ID: id}, sh, err, start, nil)
	return sh, err
}

// ShellWait waits for a shell session's running command.
func (s *Session) ShellWait(ctx context.Context, id string, r api.ShellWaitRequest) (api.Shell, error) {
	ctx, cancel, err := s.begin(ctx, "shell_wait", waitTimeout(r.WaitMS))
	if err != nil {
		return api.Shell{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.ShellWait(ctx, id, r)
	err = s.bounded(ctx, err)
	s.record(ctx, "shell_wait", shellArgs{id, r}, sh, err, start, nil)
	return sh, err
}

// ShellWrite writes to a shell session's running command.
func (s *Session) ShellWrite(ctx context.Context, id string, r api.ShellWriteRequest) (api.Shell, error) {
	ctx, cancel, err := s.begin(ctx, "shell_write", s.callTimeout)
	if err != nil {
		return api.Shell{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.ShellWrite(ctx, id, r)
	err = s.bounded(ctx, err)
	s.record(ctx, "shell_write", shellArgs{id, r}, sh, err, start, nil)
	return sh, err
}

// ShellKill kills a shell session's running command.
func (s *Session) ShellKill(ctx context.Context, id string) (api.Shell, error) {
	ctx, cancel, err := s.begin(ctx, "shell_kill", s.callTimeout)
	if err != nil {
		return api.Shell{}, err
	}
	defer cancel()
	start := time.Now()
	sh, err := s.client.ShellKill(ctx, id)
	err = s.bounded(ctx, err)
	s.record(ctx, "shell_kill", shellArgs{ID: id}, sh, err, start, nil)
	return sh, err
}

type shellArgs struct {
	ID      string `json:"id"`
	Request any    `json:"request,omitempty"`
}

// Clipboard returns the text of the desktop's clipboard ("" when nobody
// owns it).
func (s *Session) Clipboard(ctx context.Context) (string, error) {
	b, err := s.ReadClipboard(ctx, api.SelectionClipboard, api.ClipboardText)
	return string(b), err
}

// SetClipboard puts text on the desktop's clipboard.
func (s *Session) SetClipboard(ctx context.Context, text string) error {
	return s.WriteClipboard(ctx, api.SelectionClipboard, api.ClipboardText, []byte(text))
}

// ReadClipboard returns the content of the desktop's selection as typ (see
// agentd's client: "clipboard" or "primary", "text" or "image/png"). The
// trajectory records text, and only the size of an image.
func (s *Session) ReadClipboard(ctx context.Context, selection, typ string) ([]byte, error) {
	selection, typ, err := api.CheckClipboard(selection, typ)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	ctx, cancel, err := s.begin(ctx, "clipboard", s.callTimeout)
	if err != nil {
		return nil, err
	}
	defer cancel()
	start := time.Now()
	b, err := s.client.ReadClipboard(ctx, selection, typ)
	err = s.bounded(ctx, err)
	var result any
	if err == nil {
		result = clipboardRecord(typ, b)
	}
	s.record(ctx, "clipboard", map[string]string{"selection": selection, "type": typ}, result, err, start, nil)
	return b, err
}

// WriteClipboard makes the desktop's selection hold data as typ.
func (s *Session) WriteClipboard(ctx context.Context, selection, typ string, data []byte) error {
	selection, typ, err := api.CheckClipboard(selection, typ)
	if err != nil {
		return errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	ctx, cancel, err := s.begin(ctx, "set_clipboard", s.callTimeout)
	if err != nil {
		return err
	}
	defer cancel()
	start := time.Now()
	err = s.client.WriteClipboard(ctx, selection, typ, data)
	err = s.bounded(ctx, err)
	args := clipboardRecord(typ, data)
	args["selection"] = selection
	s.record(ctx, "set_clipboard", args, nil, err, start, nil)
	return err
}

func clipboardRecord(typ string, b []byte) map[string]any {
	if typ == api.ClipboardText {
		return map[string]any{"type": typ, "text": string(b)}
	}
	return map[string]any{"type": typ, "bytes": len(b)}
}

// toolKey marks the context of the desktop calls a tool call makes, so
// their trajectory lines name the tool.
type toolKey struct{}

// CallTool calls the tool name of the dialect dn ("" means the session's
// dialect) with JSON arguments (empty means {}). Invalid arguments and
// actions the desktop refused are results with IsError set; the error is
// for an unknown dialect (errdefs.ErrInvalidArgument), a deleted session
// and infrastructure failures. The trajectory gets the desktop calls the
// tool made, then the tool call itself.
func (s *Session) CallTool(ctx context.Context, dn, name string, args json.RawMessage) (dialect.Result, error) {
	if err := s.live(); err != nil {
		return dialect.Result{}, err
	}
	if dn == "" {
		dn = s.info.Dialect
	}
	d, ok := dialect.ByName(dn)
	if !ok {
		err := invalid("dialect: unknown dialect %q (want one of %s)", dn, strings.Join(dialect.Names(), ", "))
		if s.onTool != nil {
			s.onTool(dn, name, dialect.Result{}, err)
		}
		return dialect.Result{}, err
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	start := time.Now()
	ref := dn + "/" + name
	res, err := d.Call(context.WithValue(ctx, toolKey{}, ref), s, &s.state, name, args)
	var img *image
	for _, p := range res.Content {
		if p.Type == "image" && img == nil {
			img = &image{data: p.Data, format: strings.TrimPrefix(p.MIMEType, "image/")}
		}
	}
	var result any
	if err == nil {
		result = toolSummary{IsError: res.IsError, Done: res.Done, Text: res.Text(), Structured: res.Structured}
	}
	logged := args
	if !json.Valid(logged) {
		logged, _ = json.Marshal(string(args))
	}
	s.record(ctx, "tool", toolArgs{Dialect: dn, Name: name, Arguments: logged}, result, err, start, img)
	if s.onTool != nil {
		s.onTool(dn, name, res, err)
	}
	return res, err
}

type toolArgs struct {
	Dialect   string          `json:"dialect"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type toolSummary struct {
	IsError    bool   `json:"is_error,omitempty"`
	Done       bool   `json:"done,omitempty"`
	Text       string `json:"text,omitempty"`
	Structured any    `json:"structured,omitempty"`
}
