package envd

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/internal/sandboxfs"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	"github.com/deskrun/deskrun/api/e2b/envd/filesystem/filesystemconnect"
	"github.com/deskrun/deskrun/api/e2b/envd/process/processconnect"
)

// Config is what agentd gives the service.
type Config struct {
	// Env is the environment of a command: the sandbox's with extra
	// over it. Nil means agentd's own environment with extra.
	Env func(extra map[string]string) []string
	// Track is told the process group of every command started, so that
	// what agentd ends on close or kill ends these too. May be nil.
	Track func(pgid int)
	// Home is the desktop user's home, where relative paths and commands
	// without a cwd start; empty means $HOME.
	Home string
	// SudoPassword is the desktop user's password, which sudo asks for
	// when a command runs as root through it; empty runs sudo without
	// asking (-n), which works where sudo needs no password.
	SudoPassword string
	Logger       *slog.Logger
}

// Paths are the routes the service answers: Connect procedures under
// the first two, the plain HTTP routes after.
var Paths = []string{
	"/" + processconnect.ProcessName + "/",
	"/" + filesystemconnect.FilesystemName + "/",
	envdapi.FilesPath,
	envdapi.HealthPath,
	envdapi.MetricsPath,
}

// Service is envd served from agentd. Close ends what it started.
type Service struct {
	cfg Config
	log *slog.Logger
	// meter reads GET /metrics.
	meter *meter
	// self is the user agentd runs as, the desktop user.
	self user.User
	// root says how "root" is served: rootSelf (agentd is root), rootSudo
	// (commands through sudo), or refused with rootRefusal.
	root        rootMode
	rootRefusal string
	rootHome    string
	sudo        string // sudo's path

	procs    *processes
	watchers *watchers

	askOnce sync.Once
	askDir  string // folder of the sudo askpass program
	askErr  error

	mux http.Handler
}

type rootMode int

const (
	rootRefused rootMode = iota
	rootSelf
	rootSudo
)

// New returns the service; it starts nothing until called.
func New(cfg Config) (*Service, error) {
	s := &Service{cfg: cfg, log: cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))}
	if s.cfg.Env == nil {
		s.cfg.Env = func(extra map[string]string) []string {
			env := os.Environ()
			for k, v := range extra {
				env = append(env, k+"="+v)
			}
			return env
		}
	}
	if s.cfg.Home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			h = "/"
		}
		s.cfg.Home = h
	}
	u, err := user.Current()
	if err != nil {
		return nil, fmt.Errorf("look up agentd's user: %w", err)
	}
	s.self = *u
	s.rootHome = "/root"
	if r, err := user.Lookup(envdapi.UserRoot); err == nil {
		s.rootHome = r.HomeDir
	}
	switch {
	case os.Geteuid() == 0:
		s.root = rootSelf
	case noNewPrivs():
		s.rootRefusal = "this sandbox's processes cannot become root (it runs with no-new-privileges: only a session created with sudo can)"
	default:
		if p, err := exec.LookPath("sudo"); err != nil {
			s.rootRefusal = "sudo is not installed in this sandbox"
		} else {
			s.root, s.sudo = rootSudo, p
		}
	}
	s.procs = newProcesses()
	s.watchers = newWatchers()
	mux := http.NewServeMux()
	opts := []connect.HandlerOption{connect.WithReadMaxBytes(maxMessage)}
	mux.Handle(processconnect.NewProcessHandler(&processService{s}, opts...))
	mux.Handle(filesystemconnect.NewFilesystemHandler(&filesystemService{s}, opts...))
	mux.HandleFunc("GET "+envdapi.FilesPath, s.readFile)
	mux.HandleFunc("POST "+envdapi.FilesPath, s.writeFiles)
	mux.HandleFunc("GET "+envdapi.HealthPath, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+envdapi.MetricsPath, s.metrics)
	s.meter = newMeter()
	s.mux = mux
	return s, nil
}

// maxMessage bounds a Connect message (SendInput's data among them).
const maxMessage = 16 << 20

// Handler answers the routes of [Paths].
func (s *Service) Handler() http.Handler { return s.mux }

// Close kills the processes the service started and stops its watchers.
func (s *Service) Close() {
	s.procs.killAll()
	s.watchers.closeAll()
	if s.askDir != "" {
		os.RemoveAll(s.askDir)
	}
}

// KillProcesses kills the processes Start started that still run (a
// command run as root through sudo too).
func (s *Service) KillProcesses() { s.procs.killAll() }

// noNewPrivs reports whether agentd runs with no-new-privileges, which
// its children inherit: sudo's setuid then takes no effect.
func noNewPrivs() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "NoNewPrivs:"); ok {
			return strings.TrimSpace(v) == "1"
		}
	}
	return false
}

// actor is who a call acts as.
type actor struct {
	// name is the user name asked for ("user" when none was).
	name string
	// sudo says commands go through sudo to root (agentd is not root).
	sudo bool
	home string
}

// actorOf resolves the user a call names. A refusal is an error of class
// [errdefs.ErrPermissionDenied] (root not allowed) or
// [errdefs.ErrInvalidArgument] (no such user here).
func (s *Service) actorOf(name string) (actor, error) {
	switch {
	case name == "" || name == envdapi.UserDefault || name == s.self.Username:
		return actor{name: cmp.Or(name, envdapi.UserDefault), home: s.cfg.Home}, nil
	case name == envdapi.UserRoot:
		switch s.root {
		case rootSelf:
			return actor{name: name, home: s.cfg.Home}, nil
		case rootSudo:
			return actor{name: name, sudo: true, home: s.rootHome}, nil
		}
		return actor{}, errdefs.ErrPermissionDenied.WithMessage("user root: " + s.rootRefusal)
	}
	return actor{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("user %q: this sandbox acts as %q (the desktop user, %s) or %q", name, envdapi.UserDefault, s.self.Username, envdapi.UserRoot))
}

// fileActor is [Service.actorOf] for a file call, which runs with
// agentd's own rights: root only when agentd is root.
func (s *Service) fileActor(name string) (actor, error) {
	a, err := s.actorOf(name)
	if err == nil && a.sudo {
		return actor{}, errdefs.ErrPermissionDenied.WithMessage(fmt.Sprintf("user root: file calls run with agentd's rights (user %s), not root's; a command run as root can do what needs root", s.self.Username))
	}
	return a, err
}

// resolve makes p absolute as envd does: a leading ~ is the actor's
// home, and a relative path is taken from it. The result is clean and
// passes agentd's file guard. field names p in errors.
func (a actor) resolve(field, p string) (string, error) {
	switch {
	case p == "":
		return "", errdefs.ErrInvalidArgument.WithMessage(field + ": required")
	case strings.IndexByte(p, 0) >= 0:
		return "", errdefs.ErrInvalidArgument.WithMessage(field + ": holds a NUL byte")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = a.home + p[1:]
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.home, p)
	}
	p = filepath.Clean(p)
	if err := sandboxfs.Guard(p); err != nil {
		return "", err
	}
	return p, nil
}

// connectErr gives err the Connect code of its errdefs class.
func connectErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return err
	}
	code := connect.CodeInternal
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		code = connect.CodeDeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = connect.CodeCanceled
	case errdefs.IsNotFound(err):
		code = connect.CodeNotFound
	case errdefs.IsAlreadyExists(err):
		code = connect.CodeAlreadyExists
	case errdefs.IsPermissionDenied(err):
		code = connect.CodePermissionDenied
	case errdefs.IsInvalidArgument(err):
		code = connect.CodeInvalidArgument
	case errdefs.IsFailedPrecondition(err):
		code = connect.CodeFailedPrecondition
	case errdefs.IsOutOfRange(err):
		code = connect.CodeOutOfRange
	case errdefs.IsUnavailable(err):
		code = connect.CodeUnavailable
	}
	return connect.NewError(code, err)
}

// userOf is the user a Connect call names.
func userOf(h http.Header) string { return h.Get(envdapi.UserHeader) }
