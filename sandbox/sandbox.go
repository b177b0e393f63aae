// Package sandbox defines the contract between the runner and the backends
// that host a headless desktop: a Docker container or a tree of local
// processes. Implementations live in the subpackages docker and local; fake
// is a scriptable test double.
//
// Everything an agent does inside a sandbox goes over the sandbox's agentd
// URL, not through the provider, which only starts and stops sandboxes.
package sandbox

import (
	"context"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// Provider starts and stops sandboxes.
//
// Implementations must be safe for concurrent use: the farm and the API
// server call Start and Stop from many goroutines.
type Provider interface {
	// Start creates a sandbox from spec and returns once agentd inside it
	// answers its health check. If Start returns an error it has already
	// removed anything it created.
	Start(ctx context.Context, spec Spec) (Instance, error)

	// Stop stops the sandbox and releases its resources, waiting at most
	// spec.StopTimeout between asking nicely and killing. If no sandbox
	// with that id exists, Stop returns an error for which
	// errdefs.IsNotFound reports true; cleanup code may ignore it.
	Stop(ctx context.Context, id string) error
}

// Lister is implemented by providers that can enumerate the sandboxes they
// started, so leftovers of a crashed runner can be found and removed.
type Lister interface {
	// List returns the sandboxes whose labels include all of labels.
	List(ctx context.Context, labels map[string]string) ([]Instance, error)
}

// AdminExecer is implemented by providers that can run a command as root
// inside a sandbox through a channel only the runner holds, apart from
// agentd and the agent's token: task setup and grading that need an
// administrator (OSWorld's `echo {CLIENT_PASSWORD} | sudo -S ...`). The
// agent never reaches it through a session's calls or tools.
type AdminExecer interface {
	// AdminExec runs req in sandbox id as root and reports how it ended.
	// An unknown id yields an error for which errdefs.IsNotFound holds.
	AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error)
}

// AdminExec runs req in sandbox id through p's admin channel. When p has
// none it answers an error for which errdefs.IsNotImplemented holds;
// wrappers of a Provider (a pool, counters) pass the channel through
// with it.
func AdminExec(ctx context.Context, p Provider, id string, req api.ExecRequest) (api.ExecResult, error) {
	a, ok := p.(AdminExecer)
	if !ok {
		return api.ExecResult{}, errdefs.ErrNotImplemented.WithMessage("the sandbox provider has no admin channel")
	}
	return a.AdminExec(ctx, id, req)
}

// Spec describes a sandbox. Every optional field has a useful zero value.
type Spec struct {
	// Image is the sandbox image; required by docker, ignored by local.
	Image string
	// Screen is the desktop size; zero means 1280x800.
	Screen api.Screen
	// Env is added to the sandbox's environment.
	Env map[string]string
	// Labels are set on every resource of the sandbox, so a reaper can
	// find them.
	Labels map[string]string
	// Network gives the sandbox network egress. The zero value isolates
	// it: only the runner can reach its agentd.
	Network bool
	// Sudo lets the desktop user run sudo (docker: no-new-privileges is
	// not set for this sandbox, so sudo's setuid takes effect; what root
	// then holds is still bounded by the sandbox's capability set).
	// Providers that cannot grant it refuse it with an error for which
	// errdefs.IsInvalidArgument holds.
	Sudo bool
	// Runtime is the container runtime to run the sandbox under (docker:
	// the engine's name of it, e.g. "runsc"); empty means the provider's
	// default. Providers without runtimes refuse it with an error for
	// which errdefs.IsInvalidArgument holds.
	Runtime string
	// MemoryBytes limits the sandbox's memory; zero means the provider's
	// default.
	MemoryBytes int64
	// NanoCPUs limits the sandbox's CPU in billionths of a core; zero
	// means the provider's default.
	NanoCPUs int64
	// StopTimeout is how long Stop waits between SIGTERM and SIGKILL.
	// Zero means 10s.
	StopTimeout time.Duration
}

// DefaultScreen is the desktop size used when a Spec leaves it zero.
var DefaultScreen = api.Screen{Width: 1280, Height: 800}

// WithDefaults returns s with its zero fields set to their defaults.
func (s Spec) WithDefaults() Spec {
	if s.Screen.Width == 0 || s.Screen.Height == 0 {
		s.Screen = DefaultScreen
	}
	if s.StopTimeout == 0 {
		s.StopTimeout = 10 * time.Second
	}
	return s
}

// Instance is a started sandbox.
type Instance struct {
	// ID is provider-scoped: a container id or a process id.
	ID string
	// AgentURL is the base URL of the sandbox's agentd, e.g.
	// "http://127.0.0.1:49153".
	AgentURL string
	// Token is the bearer token agentd requires; empty when it requires
	// none.
	Token string
	// Labels are the labels the sandbox carries.
	Labels map[string]string
}

// Label keys set on every sandbox deskrun starts.
const (
	// LabelManaged marks a resource as deskrun's ("true").
	LabelManaged = "dev.deskrun.managed"
	// LabelOwner names the runner instance that started it, so a restarted
	// runner can tell its own leftovers.
	LabelOwner = "dev.deskrun.owner"
	// LabelSession is the session id.
	LabelSession = "dev.deskrun.session"
)

// SoleDesktopEnv is the environment variable by which a provider tells
// agentd, with "1", that every process of the sandbox's host is on
// agentd's desktop (a container or a Pod): agentd then takes a browser
// started with --remote-debugging-port for the desktop's even where the
// browser's environment no longer says its display (Chromium writes its
// process title over it).
const SoleDesktopEnv = "AGENTD_SOLE_DESKTOP"
