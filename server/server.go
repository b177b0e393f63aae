package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/runner"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Config configures the server returned by [NewServer].
type Config struct {
	// Manager runs the sessions; required.
	Manager *runner.Manager
	// Token, when set, is required as "Authorization: Bearer <token>" on
	// every call but GET /healthz. Empty means no authentication.
	Token string
	// Dialect is the dialect GET /v1/tools and GET /v1/tools/{name}
	// describe when the request names none. Empty means "anthropic".
	Dialect string
	// MCP, when set, is served at /mcp (GET, POST and DELETE, the
	// methods of MCP's streamable HTTP transport) behind the same token.
	MCP http.Handler
	// Runs, when set, serves the task suite runs under /v1/runs.
	Runs Runs
	// Metrics, when set, counts every request and serves GET /metrics
	// (behind the same token).
	Metrics Metrics
	// MaxBodyBytes bounds JSON request bodies. Zero means 4 MiB. File
	// uploads are bounded by [api.MaxFileSize] instead.
	MaxBodyBytes int64
	// Logger receives the errors answered with a 5xx status and panics.
	// Nil discards them.
	Logger *slog.Logger
}

// Runs keeps the task suite runs of /v1/runs; deskrun serve gives a
// farm.Runs, whose methods document the contract (errors by errdefs
// class: invalid argument naming the field, not found, conflict,
// unavailable). It is an interface so that this package
// does not depend on the farm and the model SDKs of its agents.
// Implementations are safe for concurrent use.
type Runs interface {
	Start(req api.CreateRunRequest) (api.Run, error)
	List() []api.Run
	Get(id string) (api.Run, error)
	// Cancel stops a run under way and waits, at most until ctx ends,
	// for it to end; a run that has ended is returned as it is.
	Cancel(ctx context.Context, id string) (api.Run, error)
	// Forget removes a run that has ended, directory included.
	Forget(id string) error
	// Results is the run's results.jsonl so far, complete lines only.
	Results(id string) ([]byte, error)
	// Report is the run's report.html, a conflict while it runs.
	Report(id string) ([]byte, error)
	// TaskFile is a file of a task's folder of the run.
	TaskFile(id, dir, name string) ([]byte, error)
	// Live is the run and the tasks it runs now.
	Live(id string) (api.RunLive, error)
}

// Metrics counts the requests and serves the metrics at GET /metrics;
// deskrun serve gives a *metrics.Metrics (package
// github.com/deskrun/deskrun/server/metrics). Implementations are safe for
// concurrent use.
type Metrics interface {
	// ObserveRequest counts an answered request: route is the pattern
	// that matched ("/v1/sessions/:id", empty for none).
	ObserveRequest(route, method string, status int, d time.Duration)
	Handler() http.Handler
}

func (c Config) withDefaults() Config {
	if c.Dialect == "" {
		c.Dialect = "anthropic"
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 4 << 20
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// maxFileBody bounds the body of PUT .../files.
const maxFileBody = api.MaxFileSize

type server struct {
	m   *runner.Manager
	cfg Config
	log *slog.Logger
	// tickets stand in for the token on the live-view, recording and
	// run routes.
	tickets tickets
	// ports is the transport of the port proxy.
	ports *http.Transport
}

// NewServer returns the HTTP handler of the public contract v1: GET
// /healthz, the /v1 session, tool-definition and tool-call routes, /mcp
// when [Config.MCP] is set, /v1/runs when [Config.Runs] is set and GET
// /metrics when [Config.Metrics] is set. Every error, including unknown
// routes (404), wrong methods (405), oversized bodies (413) and panics in
// a handler (500), is answered as {"error":{"code","message"}}; the text
// of a 5xx error stays in the log. The handler is safe for concurrent
// use.
func NewServer(cfg Config) http.Handler { return newEcho(cfg) }

// newEcho builds the echo instance behind [NewServer]; tests read its
// routes.
func newEcho(cfg Config) *echo.Echo {
	cfg = cfg.withDefaults()
	s := &server{m: cfg.Manager, cfg: cfg, log: cfg.Logger}
	s.ports = s.newPortsTransport()
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = httpserve.ErrorHandler(s.log)
	e.Pre(httpserve.HeadAsGet)
	e.Use(s.logRequest)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{LogErrorFunc: s.logPanic}))

	// auth runs after routing, on every route (unknown ones included) but
	// /healthz. A group with middleware would turn 405 into 404.
	e.Use(s.ticketAuth)
	e.Use(httpserve.BearerAuth(cfg.Token, "deskrun", func(c echo.Context) bool {
		return c.Path() == "/healthz" || c.Get(ticketOK) == true
	}))

	e.GET("/healthz", s.health)
	if cfg.MCP != nil {
		e.Match([]string{http.MethodGet, http.MethodPost, http.MethodDelete}, "/mcp", echo.WrapHandler(cfg.MCP))
	}
	v1 := e.Group("/v1")
	v1.POST("/sessions", s.createSession)
	v1.GET("/sessions", s.listSessions)
	v1.GET("/sessions/:id", s.getSession)
	v1.DELETE("/sessions/:id", s.deleteSession)
	v1.POST("/sessions/:id/ttl", s.setTTL)
	v1.POST("/sessions/:id/fork", s.forkSession)
	v1.POST("/sessions/:id/pause", s.pauseSession)
	v1.POST("/sessions/:id/resume", s.resumeSession)
	v1.GET("/sessions/:id/screenshot", s.screenshot)
	v1.POST("/sessions/:id/input", s.input)
	v1.GET("/sessions/:id/cursor", s.cursor)
	v1.POST("/sessions/:id/exec", s.exec)
	v1.POST("/sessions/:id/kill", s.kill)
	v1.GET("/sessions/:id/files", s.readFile)
	v1.PUT("/sessions/:id/files", s.writeFile)
	v1.GET("/sessions/:id/clipboard", s.readClipboard)
	v1.PUT("/sessions/:id/clipboard", s.writeClipboard)
	v1.GET("/sessions/:id/windows", s.windows)
	v1.POST("/sessions/:id/windows/:wid/activate", s.activateWindow)
	v1.POST("/sessions/:id/windows/:wid/close", s.closeWindow)
	v1.GET("/sessions/:id/windows/:wid", s.window)
	v1.POST("/sessions/:id/windows/:wid/:action", s.changeWindow)
	v1.POST("/sessions/:id/tools/:name", s.callTool)
	v1.POST("/sessions/:id/tickets", s.createTicket)
	v1.GET("/sessions/:id/vnc", s.vnc)
	v1.GET("/sessions/:id/view", s.view)
	v1.GET("/sessions/:id/recording", s.recording)
	v1.GET("/sessions/:id/ports/:port", s.proxyPort)
	v1.Match(portMethods, "/sessions/:id/ports/:port/*", s.proxyPort)
	v1.GET("/tools", s.tools)
	v1.GET("/tools/:name", s.toolInfo)
	if cfg.Runs != nil {
		v1.POST("/runs", s.createRun)
		v1.GET("/runs", s.listRuns)
		v1.GET("/runs/:id", s.getRun)
		v1.DELETE("/runs/:id", s.deleteRun)
		v1.GET("/runs/:id/results", s.runResults)
		v1.GET("/runs/:id/report", s.runReport)
		v1.POST("/runs/:id/tickets", s.createRunTicket)
		v1.GET("/runs/:id/watch", s.runWatch)
		v1.GET("/runs/:id/live", s.runLive)
		v1.GET("/runs/:id/live/:task/screen", s.runLiveScreen)
		v1.GET("/runs/:id/live/:task/view", s.runLiveView)
		v1.GET("/runs/:id/:task/:file", s.runTaskFile)
	}
	if cfg.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(cfg.Metrics.Handler()))
	}
	return e
}

// health answers GET /healthz: the server is up, with the providers it
// can start sandboxes on.
func (s *server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, api.Health{Status: "ok", Providers: s.m.Providers()})
}

// logRequest logs every request at debug level once it is answered, and
// counts it when the server has metrics.
func (s *server) logRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err) // answer now, so the status is known
		}
		req := c.Request()
		if s.cfg.Metrics != nil {
			s.cfg.Metrics.ObserveRequest(c.Path(), req.Method, c.Response().Status, time.Since(start))
		}
		s.log.DebugContext(req.Context(), "request", "method", req.Method, "path", req.URL.Path,
			"status", c.Response().Status, "bytes", c.Response().Size, "ms", time.Since(start).Milliseconds())
		return nil
	}
}
