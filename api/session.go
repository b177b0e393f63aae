package api

import (
	"fmt"
	"strings"
	"time"

	"github.com/containerd/errdefs"
)

// Header names used by the screenshot calls.
const (
	// HeaderScale is the factor applied to the screen to produce the
	// returned image (1 means unscaled), e.g. "0.5".
	HeaderScale = "X-Deskrun-Scale"
	// HeaderScreen is the real screen size, "1280x800".
	HeaderScreen = "X-Deskrun-Screen"
	// HeaderSettled answers a screenshot asked with settle_ms: "true"
	// when the screen was quiet for settle_ms before the capture,
	// "false" when timeout_ms passed first.
	HeaderSettled = "X-Deskrun-Settled"
	// HeaderSettleMS is how long the wait before the capture lasted, in
	// milliseconds.
	HeaderSettleMS = "X-Deskrun-Settle-Ms"
)

// CreateSessionRequest is the body of POST /v1/sessions.
type CreateSessionRequest struct {
	// Provider names the sandbox backend: "docker" or "local". Empty means
	// the server's default.
	Provider string `json:"provider,omitempty"`
	// Image is the sandbox image (docker); ignored by local.
	Image string `json:"image,omitempty"`
	// Screen is the desktop size; zero means 1280x800, and 1920x1080
	// (OSWorld's) for a session with OSWorld set.
	Screen Screen `json:"screen,omitzero"`
	// Dialect is the tool dialect used when a tool call names none.
	Dialect string `json:"dialect,omitempty"`
	// Env is added to the sandbox's environment.
	Env map[string]string `json:"env,omitempty"`
	// Network gives the sandbox network egress; off by default.
	Network bool `json:"network,omitempty"`
	// Sudo lets the agent's desktop user run sudo (password "password",
	// OSWorld's), for tasks that need it; off by default. Only providers
	// that can grant it (docker) accept it.
	Sudo bool `json:"sudo,omitempty"`
	// Runtime is the container runtime that runs the sandbox, e.g. "runsc"
	// (gVisor, a kernel of its own between the sandbox and the host);
	// empty means the server's (deskrun serve --runtime). Only the docker
	// provider accepts it, and only runtimes its engine has.
	Runtime string `json:"runtime,omitempty"`
	// Labels are set on the sandbox's resources.
	Labels map[string]string `json:"labels,omitempty"`
	// OSWorld also serves OSWorld's environment-server routes for this
	// session at a loopback address of the runner host, named in
	// [Session.OSWorld]; off by default.
	OSWorld bool `json:"osworld,omitempty"`
	// Record makes a video of the session's desktop (VP8 in WebM) from
	// its start to its end, served at GET /v1/sessions/{id}/recording,
	// also after the session ended; off by default. The sandbox needs
	// ffmpeg (the images have it), else the create answers 501.
	Record bool `json:"record,omitempty"`
	// TTLS is how many seconds the session lives: past that it is
	// deleted as DELETE would, its end time shown in
	// [Session.ExpiresAt] and moved by POST /v1/sessions/{id}/ttl. Zero
	// means no deadline; at most [MaxTTLS].
	TTLS int `json:"ttl_s,omitempty"`
}

// MaxTTLS bounds a session's time to live: a day.
const MaxTTLS = 86_400

// TTLRequest is the body of POST /v1/sessions/{id}/ttl: the session now
// ends TTLS seconds from the call, whatever its deadline was.
type TTLRequest struct {
	TTLS int `json:"ttl_s"`
}

// Validate checks r: TTLS in 1..[MaxTTLS]. The error is of class
// [errdefs.ErrInvalidArgument] naming "ttl_s".
func (r TTLRequest) Validate() error {
	if r.TTLS < 1 || r.TTLS > MaxTTLS {
		return invalid("ttl_s: %d out of range 1..%d", r.TTLS, MaxTTLS)
	}
	return nil
}

// Session describes a running session.
type Session struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Image    string `json:"image,omitempty"`
	Screen   Screen `json:"screen"`
	Dialect  string `json:"dialect,omitempty"`
	Network  bool   `json:"network"`
	// Sudo says the agent's user may run sudo in this sandbox.
	Sudo bool `json:"sudo,omitempty"`
	// Runtime is the container runtime the sandbox runs under, when not
	// the engine's default.
	Runtime   string            `json:"runtime,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	// SandboxID is the provider's id for the sandbox (container id, pid).
	SandboxID string `json:"sandbox_id"`
	// ForkOf is the id of the session this one was forked from (POST
	// /v1/sessions/{id}/fork); empty for a session created anew.
	ForkOf string `json:"fork_of,omitempty"`
	// State is SessionRunning, or SessionUnreachable when its sandbox
	// stopped answering health checks (killed, paused, its agentd gone):
	// its calls then answer 503 at once, and Unreachable says why; or
	// SessionPaused between POST .../pause and .../resume (its calls
	// answer 409).
	State       string `json:"state"`
	Unreachable string `json:"unreachable,omitempty"`
	// OSWorld is set for a session created with "osworld": true.
	OSWorld *OSWorldAddrs `json:"osworld,omitempty"`
	// Record says the session is recorded (created with "record": true);
	// RecordingStartedAt is the video's time zero, to which the
	// trajectory's video_ms refer.
	Record             bool      `json:"record,omitempty"`
	RecordingStartedAt time.Time `json:"recording_started_at,omitzero"`
	// ExpiresAt is when the session's time to live ends and it is
	// deleted; absent when it has no deadline.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
}

// OSWorldAddrs are the loopback addresses ("127.0.0.1:port") of the runner
// host at which a session answers as OSWorld's virtual machine does. They
// take no token: they are bound to 127.0.0.1 only.
type OSWorldAddrs struct {
	// Server answers OSWorld's environment-server HTTP routes
	// (/screenshot, /execute, /setup/..., ...) at its root.
	Server string `json:"server"`
	// Chromium is a TCP forward to port 1337 in the sandbox, where
	// OSWorld's tasks start Chrome's remote debugging.
	Chromium string `json:"chromium"`
	// VLC is a TCP forward to port 8080 in the sandbox, VLC's HTTP
	// interface.
	VLC string `json:"vlc"`
}

// Session states.
const (
	SessionRunning     = "running"
	SessionUnreachable = "unreachable"
	SessionPaused      = "paused"
)

// SessionList is the answer to GET /v1/sessions.
type SessionList struct {
	Sessions []Session `json:"sessions"`
}

// ExecRequest is the body of POST .../exec.
type ExecRequest struct {
	// Cmd is the program and its arguments; required.
	Cmd []string `json:"cmd"`
	// TimeoutMS bounds the run; zero means 30 s. On timeout the process
	// group is killed and TimedOut is set.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Env is added to the environment (DISPLAY is always set).
	Env map[string]string `json:"env,omitempty"`
	// Dir is the working directory; empty means the user's home.
	Dir string `json:"dir,omitempty"`
	// Stdin is written to the process's standard input.
	Stdin string `json:"stdin,omitempty"`
}

// MaxExecMS bounds ExecRequest.TimeoutMS: an hour.
const MaxExecMS = 3_600_000

// Validate checks an exec request as the host API and agentd do: a
// program, a timeout in range, an absolute dir, variable names without
// "=", and no NUL byte anywhere (a program cannot receive one). Errors
// are of class [errdefs.ErrInvalidArgument] and name the field.
func (r ExecRequest) Validate() error {
	if len(r.Cmd) == 0 || r.Cmd[0] == "" {
		return invalid("cmd: required, the program and its arguments")
	}
	for i, a := range r.Cmd {
		if strings.IndexByte(a, 0) >= 0 {
			return invalid("cmd[%d]: holds a NUL byte", i)
		}
	}
	if r.TimeoutMS < 0 || r.TimeoutMS > MaxExecMS {
		return invalid("timeout_ms: %d out of range 0..%d", r.TimeoutMS, MaxExecMS)
	}
	if strings.IndexByte(r.Dir, 0) >= 0 {
		return invalid("dir: holds a NUL byte")
	}
	if r.Dir != "" && !strings.HasPrefix(r.Dir, "/") {
		return invalid("dir: %q is not an absolute path", r.Dir)
	}
	for k, v := range r.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return invalid("env: bad variable name %q", k)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return invalid("env.%s: holds a NUL byte", k)
		}
	}
	return nil
}

// CheckPath checks the path of a file call: required, absolute, no NUL
// byte. Errors are of class [errdefs.ErrInvalidArgument] naming "path".
func CheckPath(p string) error {
	switch {
	case p == "":
		return invalid("path: required, the absolute path of the file")
	case strings.IndexByte(p, 0) >= 0:
		return invalid("path: holds a NUL byte")
	case !strings.HasPrefix(p, "/"):
		return invalid("path: %q is not an absolute path", p)
	}
	return nil
}

// ExecResult is the answer to an exec call.
type ExecResult struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// TimedOut reports that the command was killed at its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Truncated reports that stdout or stderr went over the output cap
	// and was cut.
	Truncated  bool  `json:"truncated,omitempty"`
	DurationMS int64 `json:"duration_ms"`
}

// Window is a top-level window as the window manager lists it (EWMH).
type Window struct {
	ID    uint32 `json:"id"`
	Title string `json:"title"`
	Class string `json:"class,omitempty"`
	// Instance is the instance part of the window's WM_CLASS (Class is
	// its class part).
	Instance string `json:"instance,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Active   bool   `json:"active"`
	// Bounds is the window's client area (without the window manager's
	// frame) in screen pixels. The list leaves it out; a single window's
	// answer (GET .../windows/{id}) has it, with Minimized and Maximized.
	Bounds    *Box `json:"bounds,omitempty"`
	Minimized bool `json:"minimized,omitempty"`
	Maximized bool `json:"maximized,omitempty"`
}

// The actions of POST .../windows/{id}/{action}.
const (
	WindowActivate   = "activate"    // raise and focus
	WindowClose      = "close"       // ask to close, as the close button does
	WindowMinimize   = "minimize"    // iconify
	WindowMaximize   = "maximize"    // fill the screen
	WindowRestore    = "restore"     // undo minimize and maximize
	WindowMoveResize = "move_resize" // place per a WindowPlacement body
)

// WindowActions lists the window actions.
var WindowActions = []string{WindowActivate, WindowClose, WindowMinimize, WindowMaximize, WindowRestore, WindowMoveResize}

// WindowPlacement is the body of POST .../windows/{id}/move_resize: the
// new top-left corner and size of the window's client area in screen
// pixels. A field left out keeps its current value. The window manager
// may keep part of the window on the screen; read the window back to see
// where it went.
type WindowPlacement struct {
	X      *int `json:"x,omitempty"`
	Y      *int `json:"y,omitempty"`
	Width  *int `json:"width,omitempty"`
	Height *int `json:"height,omitempty"`
}

// Validate checks p, naming the field at fault.
func (p WindowPlacement) Validate() error {
	if p.X == nil && p.Y == nil && p.Width == nil && p.Height == nil {
		return errdefs.ErrInvalidArgument.WithMessage("x, y, width or height is required")
	}
	for _, f := range []struct {
		name     string
		v        *int
		min, max int
	}{{"x", p.X, -32768, 32767}, {"y", p.Y, -32768, 32767}, {"width", p.Width, 1, 32767}, {"height", p.Height, 1, 32767}} {
		if f.v != nil && (*f.v < f.min || *f.v > f.max) {
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s must be between %d and %d, got %d", f.name, f.min, f.max, *f.v))
		}
	}
	return nil
}

// WindowList is the answer to GET .../windows.
type WindowList struct {
	Windows []Window `json:"windows"`
}

// Health is the answer to GET /healthz.
type Health struct {
	Status  string `json:"status"`
	Display string `json:"display,omitempty"`
	Screen  Screen `json:"screen,omitzero"`
	// Providers lists the sandbox providers a deskrun server can start
	// sandboxes on (deskrun serve only).
	Providers []string `json:"providers,omitempty"`
}

// MaxFileSize bounds the bytes one file call reads or writes, in agentd
// and through the host API.
const MaxFileSize = 64 << 20

// KillResult is the answer to POST .../kill: how many processes the
// session's commands had left running were killed.
type KillResult struct {
	Killed int `json:"killed"`
}

// Ticket answers POST /v1/sessions/{id}/tickets: a short-lived,
// single-use credential for the session's live view, passed as
// ?ticket=... where a browser cannot send the Authorization header
// (GET /v1/sessions/{id}/view and /vnc).
type Ticket struct {
	Ticket    string    `json:"ticket"`
	ExpiresAt time.Time `json:"expires_at"`
}
