package agentd

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
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
	Screen  wire.Screen
	// WM is the window manager to start with Xvfb ("" for none).
	WM string
	// Token is the bearer token every route but /healthz requires; empty
	// disables authentication.
	Token  string
	Logger *slog.Logger
}

// Limits of the exec and file calls.
const (
	MaxFileSize   = 64 << 20 // bytes read or written by the file calls
	MaxOutput     = 1 << 20  // bytes of stdout and of stderr kept by exec
	DefaultExecMS = 30_000
	MaxExecMS     = 3_600_000
	// MaxBody bounds the JSON bodies of the other calls (exec's stdin
	// included).
	MaxBody = 16 << 20
)

//go:embed all:python
var python embed.FS

// Server is a running agentd.
type Server struct {
	cfg     Config
	log     *slog.Logger
	desk    *desktop
	http    *http.Server
	ln      net.Listener
	pyPath  string // directory holding the pyautogui module
	shells  *shells
	selfURL string

	groupsMu sync.Mutex
	groups   []int // process groups of exec'd commands
}

// Start starts the X server (or attaches to one) and begins serving on
// cfg.Addr. Addr and Display report where.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Screen.Width == 0 {
		cfg.Screen = wire.Screen{Width: 1280, Height: 800}
	}
	s := &Server{cfg: cfg, log: cfg.Logger}
	py, err := extractPython()
	if err != nil {
		return nil, err
	}
	s.pyPath = py
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		os.RemoveAll(py)
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	s.ln = ln
	s.selfURL = "http://" + loopback(ln.Addr().String())
	desk, err := startDesktop(ctx, cfg, s.log)
	if err != nil {
		ln.Close()
		os.RemoveAll(py)
		return nil, err
	}
	s.desk = desk
	s.shells = newShells(s)
	s.http = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	return s, nil
}

// loopback turns a wildcard listen address into one a local client dials.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
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
	err := s.http.Shutdown(ctx)
	s.shells.closeAll()
	s.killGroups()
	s.desk.close()
	os.RemoveAll(s.pyPath)
	return err
}

// Handler returns the HTTP API.
func (s *Server) Handler() http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover())
	e.GET("/healthz", s.health)
	v1 := e.Group("/v1", s.auth)
	v1.GET("/screen", s.getScreen)
	v1.GET("/cursor", s.getCursor)
	v1.GET("/screenshot", s.screenshot)
	v1.POST("/input", s.input)
	v1.POST("/exec", s.exec)
	v1.GET("/files", s.readFile)
	v1.PUT("/files", s.writeFile)
	v1.GET("/windows", s.windows)
	v1.POST("/windows/:id/activate", s.windowAction)
	v1.POST("/windows/:id/close", s.windowAction)
	v1.GET("/shells/:id", s.shellView)
	v1.POST("/shells/:id/exec", s.shellExec)
	v1.POST("/shells/:id/wait", s.shellWait)
	v1.POST("/shells/:id/write", s.shellWrite)
	v1.POST("/shells/:id/kill", s.shellKill)
	v1.GET("/clipboard", s.clipboard)
	v1.PUT("/clipboard", s.setClipboard)
	return e
}

func (s *Server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.Token == "" {
			return next(c)
		}
		got, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
			return errdefs.ErrUnauthenticated.WithMessage("missing or wrong bearer token")
		}
		return next(c)
	}
}

// errorHandler answers every error in the contract's shape.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code := wire.CodeInternal
		switch he.Code {
		case http.StatusNotFound:
			code = wire.CodeNotFound
		case http.StatusMethodNotAllowed:
			code = "method_not_allowed"
		case http.StatusRequestEntityTooLarge:
			code = wire.CodeTooLarge
		case http.StatusBadRequest:
			code = wire.CodeInvalidArgument
		}
		_ = c.JSON(he.Code, wire.ErrorBody{Error: wire.Error{Code: code, Message: fmt.Sprint(he.Message)}})
		return
	}
	status, body := wire.ErrorOf(err, "internal error")
	if status >= 500 {
		s.log.Error("request failed", "path", c.Path(), "err", err)
	}
	_ = c.JSON(status, body)
}

func (s *Server) health(c echo.Context) error {
	if err := s.desk.ping(); err != nil {
		return c.JSON(http.StatusServiceUnavailable, wire.ErrorBody{Error: wire.Error{Code: wire.CodeUnavailable, Message: err.Error()}})
	}
	return c.JSON(http.StatusOK, wire.Health{Status: "ok", Display: s.desk.display, Screen: s.desk.screen()})
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
	return c.JSON(http.StatusOK, wire.Point{X: x, Y: y})
}

func (s *Server) windows(c echo.Context) error {
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	ws, err := conn.Windows()
	if err != nil {
		return s.desk.failed(conn, unavailable(err))
	}
	out := wire.WindowList{Windows: make([]wire.Window, 0, len(ws))}
	for _, w := range ws {
		out.Windows = append(out.Windows, wire.Window{ID: w.ID, Title: w.Title, Class: w.Class, PID: w.PID, Active: w.Active})
	}
	return c.JSON(http.StatusOK, out)
}

func (s *Server) windowAction(c echo.Context) error {
	id, err := strconv.ParseUint(c.Param("id"), 0, 32)
	if err != nil {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("id: want a window id, got %q", c.Param("id")))
	}
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	if strings.HasSuffix(c.Path(), "/activate") {
		err = conn.ActivateWindow(uint32(id))
	} else {
		err = conn.CloseWindow(uint32(id))
	}
	if err != nil {
		if conn.Ping() != nil {
			return s.desk.failed(conn, err)
		}
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("window %d: %v", id, err))
	}
	return c.NoContent(http.StatusNoContent)
}

// readBody reads a request body of at most limit bytes; a longer one is
// refused as too large (413).
func readBody(c echo.Context, limit int64) ([]byte, error) {
	if c.Request().ContentLength > limit {
		return nil, errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: %d bytes, over the %d-byte limit", c.Request().ContentLength, limit))
	}
	b, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: over the %d-byte limit", limit))
	}
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("body: %v", err))
	}
	return b, nil
}

// decode reads a JSON body of at most [MaxBody] bytes into v (unknown
// fields and wrong types are invalid arguments naming the field).
func decode(c echo.Context, v any) error {
	b, err := readBody(c, MaxBody)
	if err != nil {
		return err
	}
	return wire.DecodeJSON(bytes.NewReader(b), v)
}

// unavailable classifies an X failure: the server went away.
func unavailable(err error) error {
	return errdefs.ErrUnavailable.WithMessage(err.Error())
}
