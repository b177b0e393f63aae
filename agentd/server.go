package agentd

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"golang.org/x/sync/singleflight"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/envd"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Config configures a Server.
type Config struct {
	// Addr is the listen address, e.g. "127.0.0.1:0" or "0.0.0.0:7000".
	Addr string
	// Xvfb makes agentd start its own X server of size Screen, on
	// Display if set, else on a free display; otherwise it attaches to
	// Display (or $DISPLAY).
	Xvfb    bool
	Display string
	Screen  api.Screen
	// WM is the window manager to start with Xvfb ("" for none).
	WM string
	// WMReady, when set, is a file the window manager makes once it is
	// ready for the desktop's user (GNOME Shell: its extensions and
	// keyboard shortcuts loaded, well after it manages windows). agentd
	// removes it before starting the window manager and waits for it, at
	// most wmReadyWait, and then for the desktop's processes to settle
	// (waitQuiet), before it reports the desktop started.
	WMReady string
	// WMBusy, when set, is a file the window manager keeps while it
	// holds keys typed ahead of the window they are for (the osworld
	// image's GNOME Shell, from Ctrl+Alt+T until the terminal has the
	// focus and the keys have landed). Reads of the accessibility tree
	// wait for it to go, at most wmBusyWait: a grader reading a terminal
	// right after typing into it then reads what was typed, as on a
	// machine where the terminal opened in time.
	WMBusy string
	// Token is the bearer token every route but /healthz requires; empty
	// disables authentication.
	Token string
	// SoleDesktop says every process of the host is on this desktop (a
	// container or Pod sandbox): a browser started with
	// --remote-debugging-port whose display cannot be told is taken for
	// the desktop's. False (a host shared by desktops, as the local
	// provider runs them) takes only browsers shown to be on Display.
	SoleDesktop bool
	Logger      *slog.Logger
}

// Limits of the exec and file calls.
const (
	MaxFileSize   = api.MaxFileSize // bytes read or written by the file calls
	MaxOutput     = 1 << 20         // bytes of stdout and of stderr kept by exec
	DefaultExecMS = 30_000
	MaxExecMS     = api.MaxExecMS
	// MaxBody bounds the JSON bodies of the other calls (exec's stdin
	// included).
	MaxBody = 16 << 20
)

//go:embed all:python
var python embed.FS

// Server is a running agentd.
type Server struct {
	cfg      Config
	log      *slog.Logger
	desk     *desktop
	http     *http.Server
	ln       net.Listener
	pyPath   string // directory holding the pyautogui module
	shells   *shells
	browsers *browsers
	envd     *envd.Service // E2B's in-sandbox API
	// webPorts caches the DevTools ports of the desktop's browsers;
	// pageReads makes concurrent reads of one tab's tree one read
	webPorts  webPorts
	pageReads singleflight.Group
	// treeReads makes concurrent reads of the same trees one read;
	// a11yReads counts the reads in progress (for tests)
	treeReads singleflight.Group
	a11yReads atomic.Int64
	// lastInput is when the last input call ended (Unix nanoseconds):
	// an accessibility read soon after waits for the desktop to settle.
	lastInput atomic.Int64
	selfURL   string
	// local serves the input and screen calls of the pyautogui module
	// on a unix socket in a folder only the desktop's user can enter, so
	// commands need no token (and see none).
	local    *http.Server
	localDir string
	// mark is in the environment of every command ([commandMarkEnv]).
	mark string

	// life ends when the server closes, and with it the live views
	// (hijacked connections outlive http.Server.Shutdown).
	life    context.Context
	endLife context.CancelFunc
	a11y    a11y

	// recMu guards rec, the video under way or the last one.
	recMu sync.Mutex
	rec   *recorder

	groupsMu sync.Mutex
	groups   []int // process groups of exec'd commands

	liveCapture sharedCapture // the live views' screen

	// bearer is the token the /v1 routes require, Config.Token until
	// POST /v1/token replaces it.
	bearer *httpserve.Bearer
}

// Start starts the X server (or attaches to one) and begins serving on
// cfg.Addr. Addr and Display report where.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Screen.Width == 0 {
		cfg.Screen = api.Screen{Width: 1280, Height: 800}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, mark: newCommandMark(), bearer: httpserve.NewBearer(cfg.Token)}
	s.life, s.endLife = context.WithCancel(context.Background())
	py, err := extractPython()
	if err != nil {
		return nil, err
	}
	s.pyPath = py
	if err := s.startEnvd(); err != nil {
		os.RemoveAll(py)
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		os.RemoveAll(py)
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	s.ln = ln
	desk, err := startDesktop(ctx, cfg, s.log)
	if err != nil {
		ln.Close()
		os.RemoveAll(py)
		return nil, err
	}
	s.desk = desk
	s.startA11y(ctx)
	s.shells = newShells(s)
	s.browsers = newBrowsers(s)
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	if err := s.serveLocal(); err != nil {
		s.Close(ctx)
		return nil, err
	}
	return s, nil
}

// serveLocal listens on <private dir>/agentd.sock for the pyautogui
// module: the screen, the cursor, screenshots and input, without a token.
// Only the user agentd runs as can reach it (the folder is 0700, the
// socket 0600), and that user can already reach the X display those
// calls drive; exec, files and shells stay behind the token.
func (s *Server) serveLocal() error {
	dir, err := os.MkdirTemp("", "agentd-")
	if err != nil {
		return fmt.Errorf("local socket: %w", err)
	}
	path := filepath.Join(dir, "agentd.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("local socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return fmt.Errorf("local socket: %w", err)
	}
	s.localDir = dir
	s.selfURL = "unix:" + path
	s.local = &http.Server{Handler: s.localHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.local.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve the local socket", "err", err)
		}
	}()
	return nil
}

// localHandler is the API of the local socket: what the pyautogui module
// calls.
func (s *Server) localHandler() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = httpserve.ErrorHandler(s.log)
	e.Pre(httpserve.HeadAsGet)
	e.Use(middleware.Recover())
	v1 := e.Group("/v1")
	v1.GET("/screen", s.getScreen)
	v1.GET("/cursor", s.getCursor)
	v1.GET("/screenshot", s.screenshot)
	v1.POST("/input", s.input)
	return e
}

func extractPython() (string, error) {
	dir, err := os.MkdirTemp("", "agentd-python-")
	if err != nil {
		return "", err
	}
	err = fs.WalkDir(python, "python", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, strings.TrimPrefix(p, "python"))
		if e.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := python.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("extract the pyautogui module: %w", err)
	}
	return dir, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Display is the X display the desktop runs on.
func (s *Server) Display() string { return s.desk.display }

// Close stops serving (letting requests in flight finish for up to the
// context's deadline), ends shell sessions and stops Xvfb.
func (s *Server) Close(ctx context.Context) error {
	s.endLife()
	s.closeRecording()
	err := s.http.Shutdown(ctx)
	if s.local != nil {
		s.local.Shutdown(ctx)
		os.RemoveAll(s.localDir)
	}
	s.shells.closeAll()
	s.browsers.closeAll()
	s.envd.Close()
	s.killGroups()
	s.stopA11y()
	s.desk.close()
	os.RemoveAll(s.pyPath)
	return err
}

// Handler returns the HTTP API.
func (s *Server) Handler() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = httpserve.ErrorHandler(s.log)
	e.Pre(httpserve.HeadAsGet)
	e.Use(middleware.Recover())
	e.GET("/healthz", s.health)
	auth := s.bearer.Auth("agentd", nil)
	v1 := e.Group("/v1", auth)
	v1.POST("/token", s.setToken)
	v1.GET("/screen", s.getScreen)
	v1.GET("/cursor", s.getCursor)
	v1.GET("/screenshot", s.screenshot)
	v1.POST("/input", s.input)
	v1.POST("/exec", s.exec)
	v1.POST("/kill", s.kill)
	v1.GET("/files", s.readFile)
	v1.PUT("/files", s.writeFile)
	v1.GET("/windows", s.windows)
	v1.GET("/windows/:id", s.window)
	v1.POST("/windows/:id/:action", s.windowAction)
	v1.GET("/shells/:id", s.shellView)
	v1.POST("/shells/:id/exec", s.shellExec)
	v1.POST("/shells/:id/wait", s.shellWait)
	v1.POST("/shells/:id/write", s.shellWrite)
	v1.POST("/shells/:id/kill", s.shellKill)
	v1.GET("/accessibility", s.accessibility)
	v1.GET("/accessibility/apps", s.a11yApps)
	v1.POST("/accessibility/act", s.elementAction)
	v1.GET("/som", s.setOfMarks)
	v1.POST("/browser/:action", s.browserCall)
	v1.GET("/clipboard", s.clipboard)
	v1.PUT("/clipboard", s.setClipboard)
	v1.GET("/ports/:port", s.port)
	v1.GET("/vnc", s.vnc)
	v1.POST("/recording", s.startRecording)
	v1.DELETE("/recording", s.stopRecording)
	v1.GET("/recording", s.recording)
	s.envdRoutes(e, auth)
	return e
}

func (s *Server) health(c echo.Context) error {
	if err := s.desk.ping(); err != nil {
		return c.JSON(http.StatusServiceUnavailable, api.ErrorBody{Error: api.Error{Code: api.CodeUnavailable, Message: err.Error()}})
	}
	return c.JSON(http.StatusOK, api.Health{Status: "ok", Display: s.desk.display, Screen: s.desk.screen()})
}

func (s *Server) getScreen(c echo.Context) error {
	if _, err := s.desk.get(); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.desk.screen())
}

func (s *Server) getCursor(c echo.Context) error {
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	x, y, err := conn.Cursor()
	if err != nil {
		return s.desk.failed(conn, unavailable(err))
	}
	return c.JSON(http.StatusOK, api.Point{X: x, Y: y})
}

// decode reads a JSON body of at most [MaxBody] bytes into v (unknown
// fields and wrong types are invalid arguments naming the field).
func decode(c echo.Context, v any) error {
	b, err := httpserve.ReadBody(c, MaxBody)
	if err != nil {
		return err
	}
	return api.DecodeJSON(bytes.NewReader(b), v)
}

// unavailable classifies an X failure: the server went away.
func unavailable(err error) error {
	return errdefs.ErrUnavailable.WithMessage(err.Error())
}
