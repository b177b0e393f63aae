package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

func TestProvider(t *testing.T) {
	m := New()
	p := m.Provider("docker", fake.New(fake.Config{Errs: []error{nil, errors.New("engine down"), context.Canceled,
		context.DeadlineExceeded, nil, errdefs.ErrUnavailable}}))
	for range 6 {
		_, _ = p.Start(t.Context(), sandbox.Spec{})
	}
	for outcome, want := range map[string]float64{"ok": 2, "error": 2, "canceled": 1, "timeout": 1} {
		if got := testutil.ToFloat64(m.starts.WithLabelValues("docker", outcome)); got != want {
			t.Errorf("starts{outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
	// The duration is observed for the starts that succeeded.
	if n := testutil.CollectAndCount(m.startDuration, "deskrun_sandbox_start_duration_seconds"); n != 1 {
		t.Errorf("%d duration series, want 1", n)
	}
	want := `
# HELP deskrun_sandbox_start_duration_seconds Time from asking a provider for a sandbox to its agentd answering, for the starts that succeeded, by provider.
# TYPE deskrun_sandbox_start_duration_seconds histogram
`
	got, err := testutil.CollectAndFormat(m.startDuration, expfmt.TypeTextPlain, "deskrun_sandbox_start_duration_seconds")
	if err != nil || !strings.HasPrefix(string(got), strings.TrimPrefix(want, "\n")) || !strings.Contains(string(got), `deskrun_sandbox_start_duration_seconds_count{provider="docker"} 2`) {
		t.Errorf("duration histogram:\n%s %v", got, err)
	}
}

func TestToolCalled(t *testing.T) {
	m := New()
	m.ToolCalled("anthropic", "computer", dialect.Result{}, nil)
	m.ToolCalled("anthropic", "computer", dialect.Result{IsError: true}, nil)
	m.ToolCalled("osworld", "desktop_control", dialect.Result{}, errors.New("sandbox gone"))
	// Names that do not exist share one series, whatever an agent sends.
	m.ToolCalled("anthropic", "made_up_1", dialect.Result{IsError: true}, nil)
	m.ToolCalled("anthropic", "made_up_2", dialect.Result{IsError: true}, nil)
	m.ToolCalled("klingon", "computer", dialect.Result{}, errdefs.ErrInvalidArgument)
	for _, tc := range []struct {
		dn, tool, outcome string
		want              float64
	}{
		{"anthropic", "computer", "ok", 1},
		{"anthropic", "computer", "tool_error", 1},
		{"osworld", "desktop_control", "error", 1},
		{"anthropic", "unknown", "tool_error", 2},
		{"unknown", "unknown", "error", 1},
	} {
		if got := testutil.ToFloat64(m.toolCalls.WithLabelValues(tc.dn, tc.tool, tc.outcome)); got != tc.want {
			t.Errorf("tool_calls{%s,%s,%s} = %v, want %v", tc.dn, tc.tool, tc.outcome, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.toolCalls); n != 5 {
		t.Errorf("%d tool call series, want 5", n)
	}
}

func TestObserveRequest(t *testing.T) {
	m := New()
	m.ObserveRequest("/v1/sessions/:id", "GET", 200, 3*time.Millisecond)
	m.ObserveRequest("/v1/sessions/:id", "GET", 404, time.Millisecond)
	m.ObserveRequest("", "GET", 404, time.Millisecond)
	m.ObserveRequest("/v1/sessions", "BREW", 405, time.Millisecond)
	for _, tc := range []struct {
		route, method, code string
		want                float64
	}{
		{"/v1/sessions/:id", "GET", "200", 1},
		{"/v1/sessions/:id", "GET", "404", 1},
		{"unmatched", "GET", "404", 1},
		{"/v1/sessions", "OTHER", "405", 1},
	} {
		if got := testutil.ToFloat64(m.requests.WithLabelValues(tc.route, tc.method, tc.code)); got != tc.want {
			t.Errorf("requests{%s,%s,%s} = %v, want %v", tc.route, tc.method, tc.code, got, tc.want)
		}
	}
}

func TestTasksAndGauges(t *testing.T) {
	m := New()
	m.TaskFinished(farm.Result{Status: farm.StatusPassed})
	m.TaskFinished(farm.Result{Status: farm.StatusInfraError})
	m.TaskFinished(farm.Result{Status: farm.StatusPassed})
	if got := testutil.ToFloat64(m.tasks.WithLabelValues("passed")); got != 2 {
		t.Errorf("tasks passed = %v", got)
	}
	// Every status is there from the start.
	if n := testutil.CollectAndCount(m.tasks); n != 7 {
		t.Errorf("%d task status series, want 7", n)
	}

	mgr, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": fake.New(fake.Config{}), "docker": fake.New(fake.Config{})}})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := farm.NewRuns(farm.RunsConfig{Manager: mgr, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Watch(mgr, runs); err != nil {
		t.Fatal(err)
	}
	if err := m.Watch(mgr, runs); err == nil {
		t.Error("a second Watch did not fail")
	}
	if err := testutil.GatherAndCompare(m.Gatherer(), strings.NewReader(`
# HELP deskrun_runs_active Task suite runs under way.
# TYPE deskrun_runs_active gauge
deskrun_runs_active 0
# HELP deskrun_sessions_open Sessions open now whose sandbox answers, by provider.
# TYPE deskrun_sessions_open gauge
deskrun_sessions_open{provider="docker"} 0
deskrun_sessions_open{provider="local"} 0
# HELP deskrun_sessions_unreachable Sessions open now whose sandbox stopped answering health checks (killed, paused), by provider.
# TYPE deskrun_sessions_unreachable gauge
deskrun_sessions_unreachable{provider="docker"} 0
deskrun_sessions_unreachable{provider="local"} 0
`), "deskrun_runs_active", "deskrun_sessions_open", "deskrun_sessions_unreachable"); err != nil {
		t.Error(err)
	}

	// The handler serves the text format, Go and process collectors
	// included.
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, s := range []string{"go_goroutines ", "process_cpu_seconds_total ", `deskrun_tasks_finished_total{status="passed"} 2`, "deskrun_runs_active 0"} {
		if !strings.Contains(body, s) {
			t.Errorf("metrics lack %q", s)
		}
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
}

func TestProviderKeepsAdminChannel(t *testing.T) {
	m := New()
	a, ok := m.Provider("docker", fake.New(fake.Config{Admin: func(_ context.Context, id string, _ api.ExecRequest) (api.ExecResult, error) {
		return api.ExecResult{Stdout: id}, nil
	}})).(sandbox.AdminExecer)
	if !ok {
		t.Fatal("the counted provider hides sandbox.AdminExecer")
	}
	if res, err := a.AdminExec(t.Context(), "sb1", api.ExecRequest{Cmd: []string{"id"}}); err != nil || res.Stdout != "sb1" {
		t.Errorf("AdminExec = %+v, %v", res, err)
	}
	plain := m.Provider("local", fake.New(fake.Config{})).(sandbox.AdminExecer)
	if _, err := plain.AdminExec(t.Context(), "sb1", api.ExecRequest{Cmd: []string{"id"}}); !errdefs.IsNotImplemented(err) {
		t.Errorf("AdminExec without a channel: %v, want not implemented", err)
	}
}
