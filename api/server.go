package api

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/tool"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Config configures the server.
type Config struct {
	Manager *runner.Manager
	// Token, when set, is required as a bearer token on every call but
	// /healthz.
	Token  string
	Logger *slog.Logger
	// MCP, when set, is served at /mcp (behind the same token).
	MCP http.Handler
}

// Body limits.
const (
	maxJSONBody = 4 << 20
	maxFileBody = agentd.MaxFileSize
)

type server struct {
	m   *runner.Manager
	cfg Config
	log *slog.Logger
}

// NewServer returns the HTTP handler of the v1 contract.
func NewServer(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &server{m: cfg.Manager, cfg: cfg, log: cfg.Logger}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.errorHandler
	e.Use(middleware.Recover())
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "providers": s.m.Providers()})
	})
	if cfg.MCP != nil {
		e.Any("/mcp", echo.WrapHandler(cfg.MCP), s.auth)
	}
	v1 := e.Group("/v1", s.auth)
	v1.POST("/sessions", s.create)
	v1.GET("/sessions", s.list)
	v1.GET("/sessions/:id", s.get)
	v1.DELETE("/sessions/:id", s.delete)
	v1.GET("/sessions/:id/screenshot", s.screenshot)
	v1.POST("/sessions/:id/input", s.input)
	v1.GET("/sessions/:id/cursor", s.cursor)
	v1.POST("/sessions/:id/exec", s.exec)
	v1.GET("/sessions/:id/files", s.readFile)
	v1.PUT("/sessions/:id/files", s.writeFile)
	v1.GET("/sessions/:id/windows", s.windows)
	v1.POST("/sessions/:id/windows/:wid/activate", s.windowAction)
	v1.POST("/sessions/:id/windows/:wid/close", s.windowAction)
	v1.POST("/sessions/:id/tools/:name", s.callTool)
	v1.GET("/tools", s.tools)
	v1.GET("/tools/:name", s.toolInfo)
	return e
}

func (s *server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.Token == "" {
			return next(c)
		}
		got, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
			return errdefs.ErrUnauthenticated.WithMessage("missing or wrong bearer token (Authorization: Bearer <token>)")
		}
		return next(c)
	}
}

func (s *server) errorHandler(err error, c echo.Context) {
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
	if status >= 500 && status != http.StatusServiceUnavailable {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
	}
	_ = c.JSON(status, body)
}

func decode(c echo.Context, v any) error {
	return wire.DecodeJSON(http.MaxBytesReader(c.Response(), c.Request().Body, maxJSONBody), v)
}

func (s *server) session(c echo.Context) (*runner.Session, error) {
	return s.m.Get(c.Param("id"))
}

func (s *server) create(c echo.Context) error {
	var req wire.CreateSessionRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	sess, err := s.m.Create(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, sess.Info())
}

func (s *server) list(c echo.Context) error {
	out := wire.SessionList{Sessions: []wire.Session{}}
	for _, sess := range s.m.List() {
		out.Sessions = append(out.Sessions, sess.Info())
	}
	return c.JSON(http.StatusOK, out)
}

func (s *server) get(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sess.Info())
}

func (s *server) delete(c echo.Context) error {
	if err := s.m.Delete(c.Request().Context(), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) screenshot(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	o, err := wire.ParseScreenshotQuery(c.QueryParams(), sess.Info().Screen)
	if err != nil {
		return err
	}
	shot, err := sess.Screenshot(c.Request().Context(), o)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(wire.HeaderScale, strconv.FormatFloat(shot.Scale, 'f', -1, 64))
	h.Set(wire.HeaderScreen, fmt.Sprintf("%dx%d", shot.Screen.Width, shot.Screen.Height))
	return c.Blob(http.StatusOK, "image/"+shot.Format, shot.Data)
}

func (s *server) input(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	req, err := wire.DecodeInput(http.MaxBytesReader(c.Response(), c.Request().Body, maxJSONBody))
	if err != nil {
		return err
	}
	if err := req.Validate(sess.Info().Screen, nil); err != nil {
		return err
	}
	res, err := sess.Input(c.Request().Context(), req.Actions)
	if err != nil {
		status, body := wire.ErrorOf(err, "input failed")
		res.Error = &body.Error
		return c.JSON(status, res)
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) cursor(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p, err := sess.Cursor(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) exec(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	var req wire.ExecRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.Cmd) == 0 || req.Cmd[0] == "" {
		return errdefs.ErrInvalidArgument.WithMessage("cmd: required, the program and its arguments")
	}
	res, err := sess.Exec(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) readFile(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p := c.QueryParam("path")
	if p == "" {
		return errdefs.ErrInvalidArgument.WithMessage("path: required")
	}
	b, err := sess.ReadFile(c.Request().Context(), p)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/octet-stream", b)
}

func (s *server) writeFile(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p := c.QueryParam("path")
	if p == "" {
		return errdefs.ErrInvalidArgument.WithMessage("path: required")
	}
	b, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxFileBody))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: over the %d-byte file limit", maxFileBody))
	}
	if err != nil {
		return err
	}
	if err := sess.WriteFile(c.Request().Context(), p, b); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) windows(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	ws, err := sess.Windows(c.Request().Context())
	if err != nil {
		return err
	}
	if ws == nil {
		ws = []wire.Window{}
	}
	return c.JSON(http.StatusOK, wire.WindowList{Windows: ws})
}

func (s *server) windowAction(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	wid, err := strconv.ParseUint(c.Param("wid"), 0, 32)
	if err != nil {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("wid: want a window id, got %q", c.Param("wid")))
	}
	if strings.HasSuffix(c.Path(), "/activate") {
		err = sess.ActivateWindow(c.Request().Context(), uint32(wid))
	} else {
		err = sess.CloseWindow(c.Request().Context(), uint32(wid))
	}
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) callTool(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	dn := c.QueryParam("dialect")
	if dn == "" {
		dn = sess.Info().Dialect
	}
	if _, ok := dialect.ByName(dn); !ok {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", dn, strings.Join(dialect.Names(), ", ")))
	}
	if _, ok := dialect.Find(dn, c.Param("name")); !ok {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("name: dialect %s has no tool %q", dn, c.Param("name")))
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, maxJSONBody))
	if err != nil {
		return errdefs.ErrInvalidArgument.WithMessage("body: " + err.Error())
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		return errdefs.ErrInvalidArgument.WithMessage("body: not valid JSON")
	}
	res, err := sess.CallTool(c.Request().Context(), dn, c.Param("name"), body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// ToolList is the answer to GET /v1/tools: level 1 of the definitions.
type ToolList struct {
	Dialect string         `json:"dialect"`
	Tools   []tool.Summary `json:"tools"`
}

func (s *server) tools(c echo.Context) error {
	dn := c.QueryParam("dialect")
	if dn == "" {
		dn = "anthropic"
	}
	defs, ok := dialect.Definitions(dn)
	if !ok {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", dn, strings.Join(dialect.Names(), ", ")))
	}
	out := ToolList{Dialect: dn, Tools: make([]tool.Summary, 0, len(defs))}
	for _, d := range defs {
		out.Tools = append(out.Tools, d.Summary())
	}
	return c.JSON(http.StatusOK, out)
}

func (s *server) toolInfo(c echo.Context) error {
	name := c.Param("name")
	var def tool.Definition
	var ok bool
	if dn := c.QueryParam("dialect"); dn != "" {
		if _, known := dialect.ByName(dn); !known {
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("dialect: unknown dialect %q (want one of %s)", dn, strings.Join(dialect.Names(), ", ")))
		}
		def, ok = dialect.Find(dn, name)
	} else {
		def, ok = dialect.Lookup(name)
	}
	if !ok {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("name: no tool %q", name))
	}
	return c.JSON(http.StatusOK, def)
}
