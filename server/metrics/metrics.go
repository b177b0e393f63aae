// Package metrics holds the Prometheus metrics of `deskrun serve` on a
// registry of their own (never the global one): HTTP requests by route,
// sessions open, sandbox starts, tool calls, runs and tasks, all named
// deskrun_*, beside the Go runtime and process collectors.
// [Metrics.Handler] serves them in the Prometheus text format. What they
// count reaches them through hooks the server's wiring installs:
// [Metrics.ObserveRequest] (the API server), [Metrics.Provider] (a
// wrapper of each sandbox provider), [Metrics.ToolCalled]
// (runner.Config.OnToolCall), [Metrics.TaskFinished]
// (farm.RunsConfig.OnResult) and [Metrics.Watch] (gauges read from the
// session manager and the runs at each scrape).
package metrics

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Label values the metrics use besides the names they are given.
const (
	// RouteUnmatched is the route of requests no route matched (404).
	RouteUnmatched = "unmatched"
	// MethodOther stands for HTTP methods outside the standard ones.
	MethodOther = "OTHER"
	// Unknown stands for dialects and tools that do not exist, so that
	// whatever an agent sends cannot make new series.
	Unknown = "unknown"

	// Outcomes of sandbox starts and tool calls.
	OutcomeOK        = "ok"
	OutcomeError     = "error"
	OutcomeCanceled  = "canceled"
	OutcomeTimeout   = "timeout"
	OutcomeToolError = "tool_error"
)

// Metrics is the set of deskrun's metrics and the registry that holds
// them. Its methods are safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	starts          *prometheus.CounterVec
	startDuration   *prometheus.HistogramVec
	toolCalls       *prometheus.CounterVec
	tasks           *prometheus.CounterVec
}

// New returns the metrics on a new registry that also holds the Go
// runtime and process collectors.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deskrun_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "deskrun_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern and method.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"route", "method"}),
		starts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deskrun_sandbox_starts_total",
			Help: "Sandbox starts, by provider and outcome (ok, error, canceled, timeout).",
		}, []string{"provider", "outcome"}),
		startDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "deskrun_sandbox_start_duration_seconds",
			Help:    "Time from asking a provider for a sandbox to its agentd answering, for the starts that succeeded, by provider.",
			Buckets: []float64{.1, .25, .5, 1, 2, 5, 10, 20, 30, 60, 120},
		}, []string{"provider"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deskrun_tool_calls_total",
			Help: "Tool calls on sessions, by dialect, tool and outcome (ok, tool_error: a result the model reads as an error, error: the call failed).",
		}, []string{"dialect", "tool", "outcome"}),
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deskrun_tasks_finished_total",
			Help: "Tasks of runs that got a result, by status (passed, failed, timeout, agent_error, setup_error, eval_error, infra_error).",
		}, []string{"status"}),
	}
	m.reg.MustRegister( // fixed, distinct names: cannot fail
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestDuration, m.starts, m.startDuration, m.toolCalls, m.tasks,
	)
	for _, s := range []string{farm.StatusPassed, farm.StatusFailed, farm.StatusTimeout, farm.StatusAgentError,
		farm.StatusSetupError, farm.StatusEvalError, farm.StatusInfraError} {
		m.tasks.WithLabelValues(s) // every status from 0, so rates work from the first task
	}
	return m
}

// Gatherer is the registry, for tests and for serving it some other way.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Handler serves the metrics in the Prometheus text format (or
// OpenMetrics or protobuf, as the scraper asks).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveRequest counts an answered HTTP request: route is the pattern
// that matched ("/v1/sessions/:id"; empty for none), status the status
// answered and d the time it took.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	if route == "" {
		route = RouteUnmatched
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
	default:
		method = MethodOther
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route, method).Observe(d.Seconds())
}

// ToolCalled counts a tool call; it has the signature of
// runner.Config.OnToolCall.
func (m *Metrics) ToolCalled(dn, tool string, res dialect.Result, err error) {
	switch {
	case !known(dn):
		dn, tool = Unknown, Unknown
	default:
		if _, ok := dialect.Find(dn, tool); !ok {
			tool = Unknown
		}
	}
	outcome := OutcomeOK
	switch {
	case err != nil:
		outcome = OutcomeError
	case res.IsError:
		outcome = OutcomeToolError
	}
	m.toolCalls.WithLabelValues(dn, tool, outcome).Inc()
}

func known(dn string) bool {
	_, ok := dialect.ByName(dn)
	return ok
}

// TaskFinished counts a task's result; it has the signature of
// farm.RunsConfig.OnResult.
func (m *Metrics) TaskFinished(r farm.Result) {
	m.tasks.WithLabelValues(r.Status).Inc()
}

// Provider wraps p, the provider called name, so that its starts are
// counted. The wrapper has only the methods of [sandbox.Provider].
func (m *Metrics) Provider(name string, p sandbox.Provider) sandbox.Provider {
	for _, o := range []string{OutcomeOK, OutcomeError, OutcomeCanceled, OutcomeTimeout} {
		m.starts.WithLabelValues(name, o)
	}
	return countingProvider{Provider: p, name: name, m: m}
}

type countingProvider struct {
	sandbox.Provider
	name string
	m    *Metrics
}

func (p countingProvider) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	began := time.Now()
	inst, err := p.Provider.Start(ctx, spec)
	outcome := OutcomeOK
	switch {
	case err == nil:
		p.m.startDuration.WithLabelValues(p.name).Observe(time.Since(began).Seconds())
	case errors.Is(err, context.Canceled):
		outcome = OutcomeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		outcome = OutcomeTimeout
	default:
		outcome = OutcomeError
	}
	p.m.starts.WithLabelValues(p.name, outcome).Inc()
	return inst, err
}

// Watch adds the gauges read at each scrape: deskrun_sessions_open by
// provider, from sessions, and deskrun_runs_active, from runs (left out
// when runs is nil). It fails when called twice.
func (m *Metrics) Watch(sessions *runner.Manager, runs *farm.Runs) error {
	return m.reg.Register(&gauges{
		sessions: sessions,
		runs:     runs,
		open: prometheus.NewDesc("deskrun_sessions_open",
			"Sessions open now whose sandbox answers, by provider.", []string{"provider"}, nil),
		unreachable: prometheus.NewDesc("deskrun_sessions_unreachable",
			"Sessions open now whose sandbox stopped answering health checks (killed, paused), by provider.", []string{"provider"}, nil),
		active: prometheus.NewDesc("deskrun_runs_active", "Task suite runs under way.", nil, nil),
	})
}

// gauges is the collector of [Metrics.Watch].
type gauges struct {
	sessions                  *runner.Manager
	runs                      *farm.Runs
	open, unreachable, active *prometheus.Desc
}

func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	ch <- g.open
	ch <- g.unreachable
	if g.runs != nil {
		ch <- g.active
	}
}

func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	open, unreachable := map[string]int{}, map[string]int{}
	for _, p := range g.sessions.Providers() {
		open[p], unreachable[p] = 0, 0
	}
	for _, s := range g.sessions.List() {
		info := s.Info()
		if info.State == api.SessionUnreachable {
			unreachable[info.Provider]++
		} else {
			open[info.Provider]++
		}
	}
	for desc, counts := range map[*prometheus.Desc]map[string]int{g.open: open, g.unreachable: unreachable} {
		for p, n := range counts {
			if c, err := prometheus.NewConstMetric(desc, prometheus.GaugeValue, float64(n), p); err == nil {
				ch <- c
			}
		}
	}
	if g.runs != nil {
		if c, err := prometheus.NewConstMetric(g.active, prometheus.GaugeValue, float64(g.runs.Active())); err == nil {
			ch <- c
		}
	}
}

// AdminExec passes the admin channel of the counted provider through
// (see sandbox.AdminExecer), so counting does not hide it; a provider
// without one answers errdefs.ErrNotImplemented.
func (p countingProvider) AdminExec(ctx context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
	return sandbox.AdminExec(ctx, p.Provider, id, req)
}

// Checkpoint and Restore pass the snapshots of the counted provider
// through (see sandbox.Snapshotter); a provider without them answers
// errdefs.ErrNotImplemented.
func (p countingProvider) Checkpoint(ctx context.Context, id string, opts sandbox.CheckpointOptions) (sandbox.Snapshot, error) {
	return sandbox.Checkpoint(ctx, p.Provider, id, opts)
}

// Basis: see [countingProvider.Checkpoint].
func (p countingProvider) Basis(ctx context.Context, spec sandbox.Spec) (string, error) {
	return sandbox.Basis(ctx, p.Provider, spec)
}

// Restore: see [countingProvider.Checkpoint].
func (p countingProvider) Restore(ctx context.Context, snap sandbox.Snapshot, opts sandbox.RestoreOptions) (sandbox.Instance, error) {
	return sandbox.Restore(ctx, p.Provider, snap, opts)
}
