package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/sandbox/local/localtest"
	"github.com/deskrun/deskrun/server/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// What deskrun serve gives the server.
var (
	_ Runs    = (*farm.Runs)(nil)
	_ Metrics = (*metrics.Metrics)(nil)
)

// runServer is a server with runs and metrics over the local provider,
// its sandboxes' homes under home.
type runServer struct {
	url, token string
	c          *client.Client
	home       string
	runsDir    string
	p          *local.Provider
	m          *runner.Manager
}

// newRunServer serves the API, with a token, runs and metrics, over the
// local provider running the agentd TestMain built.
func newRunServer(t *testing.T) *runServer {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Xvfb, openbox and agentd; skipped in -short mode")
	}
	for _, bin := range []string{"Xvfb", "openbox", "xterm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is not installed (scripts/install-deps.sh installs it)", bin)
		}
	}
	home := t.TempDir()
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	p, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), WM: "openbox", TempDir: home})
	if err != nil {
		t.Fatal(err)
	}
	met := metrics.New()
	m, err := runner.NewManager(runner.Config{
		Providers: map[string]sandbox.Provider{"local": met.Provider("local", p)}, Logger: log, OnToolCall: met.ToolCalled,
	})
	if err != nil {
		t.Fatal(err)
	}
	runsDir := filepath.Join(t.TempDir(), "runs")
	runs, err := farm.NewRuns(farm.RunsConfig{Manager: m, Dir: runsDir, Logger: log, OnResult: met.TaskFinished})
	if err != nil {
		t.Fatal(err)
	}
	if err := met.Watch(m, runs); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: testToken, Logger: log, Runs: runs, Metrics: met}))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := runs.Close(ctx); err != nil {
			t.Errorf("close runs: %v", err)
		}
		if err := m.Close(ctx); err != nil {
			t.Errorf("close manager: %v", err)
		}
		if err := p.Close(ctx); err != nil {
			t.Errorf("close provider: %v", err)
		}
	})
	return &runServer{url: ts.URL, token: testToken, c: client.NewClient(ts.URL, testToken, testClient), home: home, runsDir: runsDir, p: p, m: m}
}

// shippedTasks is the path of a folder of the shipped suite.
func shippedTasks(t *testing.T, domain string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "tasks", domain))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitRun polls the run until it has ended.
func waitRun(t *testing.T, c *client.Client, id string, limit time.Duration) api.Run {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		r, err := c.Run(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != api.RunRunning {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still running after %s: %+v", id, limit, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestRunReplay starts a run of two shipped tasks with the replay agent
// through the HTTP server, follows it to its end, and checks the run,
// its results, its report and the files the report shows, then the
// metrics the run left.
func TestRunReplay(t *testing.T) {
	s := newRunServer(t)
	body := fmt.Sprintf(`{"tasks":%q,"agent":"replay","parallel":2,"max_steps":10,"timeout_ms":120000,"retries":0,"provider":"local",
		"screen":{"width":1024,"height":768},"only":["files-copy-notes","files-move-*"]}`, shippedTasks(t, "files"))
	a := call(t, s.url, "POST", "/v1/runs", s.token, body)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	conform(t, "Run", a.body)
	var run api.Run
	if err := json.Unmarshal(a.body, &run); err != nil {
		t.Fatal(err)
	}
	if loc := a.header.Get("Location"); loc != "/v1/runs/"+run.ID {
		t.Errorf("Location %q", loc)
	}
	if run.Status != api.RunRunning || run.Total != 2 || run.Out != filepath.Join(s.runsDir, run.ID) ||
		run.Request.Parallel != 2 || run.Request.MaxSteps != 10 || *run.Request.Retries != 0 || run.Request.Screen.Width != 1024 {
		t.Errorf("created %+v", run)
	}
	// The results can be read while the run goes on; the report cannot.
	if _, err := s.c.RunResults(t.Context(), run.ID); err != nil {
		t.Errorf("results while running: %v", err)
	}
	if got, err := s.c.Run(t.Context(), run.ID); err == nil && got.Status == api.RunRunning {
		checkError(t, call(t, s.url, "GET", "/v1/runs/"+run.ID+"/report", s.token, ""), http.StatusConflict, "conflict", "still running")
	}

	run = waitRun(t, s.c, run.ID, 3*time.Minute)
	a = call(t, s.url, "GET", "/v1/runs/"+run.ID, s.token, "")
	conform(t, "Run", a.body)
	if run.Status != api.RunFinished || run.Done != 2 || run.Passed != 2 || run.Failed != 0 || run.Errors != 0 || run.FinishedAt.IsZero() || run.Error != "" {
		t.Errorf("finished %+v", run)
	}
	if len(run.Summary) != 2 || run.Summary[0].Domain != "files" || run.Summary[1].Domain != "all" || run.Summary[1].Passed != 2 || run.Summary[1].SuccessRate != 1 {
		t.Errorf("summary %+v", run.Summary)
	}

	// results.jsonl, as NDJSON.
	a = call(t, s.url, "GET", "/v1/runs/"+run.ID+"/results", s.token, "")
	if a.status != 200 || a.header.Get("Content-Type") != "application/x-ndjson" {
		t.Errorf("results: %d %s", a.status, a.header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(bytes.NewReader(a.body))
	seen := map[string]bool{}
	for sc.Scan() {
		var r farm.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results line %q: %v", sc.Text(), err)
		}
		if r.Status != farm.StatusPassed || r.Score != 1 || r.Steps != 2 || r.Attempts != 1 {
			t.Errorf("result %+v", r)
		}
		seen[r.ID] = true
	}
	if !seen["files-copy-notes"] || !seen["files-move-todo"] || len(seen) != 2 {
		t.Errorf("results for %v", seen)
	}

	// The report, and the screenshots it refers to.
	a = call(t, s.url, "GET", "/v1/runs/"+run.ID+"/report", s.token, "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(a.body), `data-task="files-copy-notes"`) || !strings.Contains(string(a.body), `data-task="files-move-todo"`) {
		t.Errorf("report: %d %s %.300s", a.status, a.header.Get("Content-Type"), a.body)
	}
	a = call(t, s.url, "GET", "/v1/runs/"+run.ID+"/files-copy-notes/step-000.png", s.token, "")
	if a.status != 200 || a.header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(a.body, []byte("\x89PNG")) {
		t.Errorf("screenshot: %d %s", a.status, a.header.Get("Content-Type"))
	}
	if shot := decodeImage(t, a.body); shot.Bounds().Dx() != 1024 {
		t.Errorf("screenshot is %d wide, want the 1024 of the run's screen", shot.Bounds().Dx())
	}
	a = call(t, s.url, "GET", "/v1/runs/"+run.ID+"/files-copy-notes/"+farm.TrajectoryFile, s.token, "")
	if a.status != 200 || a.header.Get("Content-Type") != "application/x-ndjson" || bytes.Count(a.body, []byte("\n")) < 2 {
		t.Errorf("trajectory: %d %s %q", a.status, a.header.Get("Content-Type"), a.body)
	}
	for _, p := range []string{"/files-copy-notes/cache", "/files-copy-notes/..", "/../run.json", "/files-copy-notes/%2e%2e%2frun.json", "/x/y"} {
		checkError(t, call(t, s.url, "GET", "/v1/runs/"+run.ID+p, s.token, ""), http.StatusNotFound, "not_found", "")
	}

	// The list and the CLI-facing client agree.
	l, err := s.c.Runs(t.Context())
	if err != nil || len(l) != 1 || l[0].ID != run.ID || l[0].Status != api.RunFinished {
		t.Errorf("list %+v %v", l, err)
	}
	conform(t, "RunList", call(t, s.url, "GET", "/v1/runs", s.token, "").body)
	if len(s.m.List()) != 0 {
		t.Errorf("%d sessions left after the run", len(s.m.List()))
	}

	// What the run counted.
	fams := scrape(t, s.url, s.token)
	for _, w := range []struct {
		name   string
		labels map[string]string
		min    float64
		max    float64
	}{
		{"deskrun_tasks_finished_total", map[string]string{"status": "passed"}, 2, 2},
		{"deskrun_tasks_finished_total", map[string]string{"status": "infra_error"}, 0, 0},
		{"deskrun_sandbox_starts_total", map[string]string{"provider": "local", "outcome": "ok"}, 2, 2},
		{"deskrun_sandbox_starts_total", map[string]string{"provider": "local", "outcome": "error"}, 0, 0},
		{"deskrun_sandbox_start_duration_seconds", map[string]string{"provider": "local"}, 2, 2}, // the count
		{"deskrun_tool_calls_total", map[string]string{"dialect": "anthropic", "tool": "bash", "outcome": "ok"}, 2, 2},
		{"deskrun_tool_calls_total", map[string]string{"dialect": "osworld", "tool": "desktop_control", "outcome": "ok"}, 2, 2},
		{"deskrun_runs_active", nil, 0, 0},
		{"deskrun_sessions_open", map[string]string{"provider": "local"}, 0, 0},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/runs", "method": "POST", "code": "201"}, 1, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/runs/:id", "method": "GET", "code": "200"}, 2, 1e9},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/runs/:id/:task/:file", "method": "GET", "code": "404"}, 4, 5},
	} {
		if v, ok := value(fams, w.name, w.labels); !ok || v < w.min || v > w.max {
			t.Errorf("%s%v = %v (found %v), want %v..%v", w.name, w.labels, v, ok, w.min, w.max)
		}
	}

	// Deleting a run that has ended forgets it, directory included.
	a = call(t, s.url, "DELETE", "/v1/runs/"+run.ID, s.token, "")
	if a.status != http.StatusNoContent {
		t.Errorf("delete: %d %s", a.status, a.body)
	}
	if _, err := os.Stat(run.Out); !os.IsNotExist(err) {
		t.Errorf("the forgotten run's directory: %v", err)
	}
	if _, err := s.c.Run(t.Context(), run.ID); !errdefs.IsNotFound(err) {
		t.Errorf("forgotten run: %v", err)
	}
}

// TestRunCancel cancels a run of several tasks while sandboxes are up:
// the answer comes once the run has stopped, with no sandbox left and no
// process of one alive.
func TestRunCancel(t *testing.T) {
	s := newRunServer(t)
	// A step that takes long, so the run is surely under way when it is
	// cancelled: the replay agent plays recorded calls from a folder.
	sols := t.TempDir()
	for _, id := range []string{"files-copy-notes", "files-move-todo", "files-delete-tmp", "files-count-lines"} {
		rec := `[{"dialect":"anthropic","tool":"bash","args":{"command":"sleep 60"}},{"dialect":"osworld","tool":"desktop_control","args":{"action":"done"}}]`
		if err := os.WriteFile(filepath.Join(sols, id+".json"), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, err := s.c.StartRun(t.Context(), api.CreateRunRequest{
		Tasks: shippedTasks(t, "files"), Agent: "replay:" + sols, Parallel: 2,
		Only: []string{"files-copy-notes", "files-move-todo", "files-delete-tmp", "files-count-lines"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Wait for both sandboxes of the first two tasks.
	deadline := time.Now().Add(time.Minute)
	for {
		l, err := s.c.Sessions(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(l) == 2 {
			if l[0].Labels[farm.LabelRun] != run.ID {
				t.Errorf("session labels %v, want %s=%s", l[0].Labels, farm.LabelRun, run.ID)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions after a minute, want 2", len(l))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := len(localtest.ProcessesUnder(s.home)); n == 0 {
		t.Fatal("no sandbox process found under the provider's folder: the leftover check would prove nothing")
	}
	time.Sleep(time.Second) // into the agent's long step

	began := time.Now()
	a := call(t, s.url, "DELETE", "/v1/runs/"+run.ID, s.token, "")
	if a.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	conform(t, "Run", a.body)
	var got api.Run
	if err := json.Unmarshal(a.body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != api.RunCancelled || got.Done != 0 || got.Total != 4 || got.Error != "cancelled on request" || got.FinishedAt.IsZero() {
		t.Errorf("cancelled %+v", got)
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("cancel took %s", d)
	}
	if l, _ := s.c.Sessions(t.Context()); len(l) != 0 {
		t.Errorf("%d sessions left after the cancel", len(l))
	}
	if l, _ := s.p.List(context.Background(), nil); len(l) != 0 {
		t.Errorf("%d sandboxes left after the cancel", len(l))
	}
	checkNoLeftovers(t, s.home)
	if r, _ := s.c.Run(t.Context(), run.ID); r.Status != api.RunCancelled {
		t.Errorf("run after cancel: %+v", r)
	}
	if _, err := s.c.RunReport(t.Context(), run.ID); err != nil {
		t.Errorf("report of a cancelled run: %v", err)
	}
	fams := scrape(t, s.url, s.token)
	if v, _ := value(fams, "deskrun_runs_active", nil); v != 0 {
		t.Errorf("deskrun_runs_active %v after the cancel", v)
	}
	// A second DELETE forgets it.
	if r, err := s.c.CancelRun(t.Context(), run.ID); err != nil || r.ID != "" {
		t.Errorf("forget: %+v %v", r, err)
	}
}

// checkNoLeftovers fails when a sandbox process under dir is alive.
func checkNoLeftovers(t *testing.T, dir string) {
	t.Helper()
	var left []string
	for range 30 { // a process being killed may take a moment to go
		if left = localtest.ProcessesUnder(dir); len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
}

// TestRunsRequests: bad bodies are 400 naming the field, unknown runs
// 404, and every runs route needs the token. No sandbox is started.
func TestRunsRequests(t *testing.T) {
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": downProvider()}})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := farm.NewRuns(farm.RunsConfig{Manager: m, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runs.Close(context.Background()) })
	ts := unitServer(t, Config{Manager: m, Token: testToken, Runs: runs, Metrics: metrics.New()})
	tasks, err := filepath.Abs("../tasks/files")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct{ body, msg string }{
		{``, "body: empty"},
		{`[]`, "body: want an object"},
		{`{"tasks":`, "body: truncated JSON"},
		{`{}`, "tasks: required"},
		{`{"tasks":"` + tasks + `","out":"/etc"}`, "out: unknown field"},
		{`{"tasks":"` + tasks + `","parallel":65}`, "parallel: must be between 1 and 64, got 65"},
		{`{"tasks":"` + tasks + `","parallel":"two"}`, "parallel: want"},
		{`{"tasks":"` + tasks + `","max_steps":-1}`, "max_steps: must be between 1 and 1000"},
		{`{"tasks":"` + tasks + `","timeout_ms":5}`, "timeout_ms: must be between 1000 and 86400000"},
		{`{"tasks":"` + tasks + `","retries":11}`, "retries: must be between 0 and 10"},
		{`{"tasks":"` + tasks + `","trials":0}`, "trials: 0 is below the minimum 1"},
		{`{"tasks":"` + tasks + `","parallel":0}`, "parallel: 0 is below the minimum 1"},
		{`{"tasks":"` + tasks + `","max_steps":0}`, "max_steps: 0 is below the minimum 1"},
		{`{"tasks":"` + tasks + `","timeout_ms":0}`, "timeout_ms: 0 is below the minimum 1000"},
		{`{"tasks":"` + tasks + `","provider":"docker"}`, `provider: unknown provider "docker"`},
		{`{"tasks":"` + tasks + `","screen":{"width":100000,"height":800}}`, "screen.width: 100000 out of range"},
		{`{"tasks":"` + tasks + `","only":["nothing-*"]}`, `only: "nothing-*" matches none of the 10 tasks`},
		{`{"tasks":"` + tasks + `","only":["["]}`, `only: bad pattern "["`},
		{`{"tasks":"` + tasks + `","agent":"gemini"}`, `agent: unknown agent "gemini"`},
		{`{"tasks":"` + tasks + `","agent":"openai"}`, "agent: openai: api key: required"},
		{`{"tasks":"/nonexistent/tasks"}`, "tasks: load tasks: stat /nonexistent/tasks: no such file or directory"},
	} {
		checkError(t, call(t, ts.URL, "POST", "/v1/runs", testToken, tc.body), http.StatusBadRequest, "invalid_argument", tc.msg)
	}
	// A task file that does not parse: the loader's message.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"id":"x","instruction":"y","config":"not a list"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := call(t, ts.URL, "POST", "/v1/runs", testToken, fmt.Sprintf(`{"tasks":%q}`, bad))
	checkError(t, a, http.StatusBadRequest, "invalid_argument", "tasks: ")
	if !strings.Contains(a.err.Error.Message, "bad.json") {
		t.Errorf("message %q does not name the file", a.err.Error.Message)
	}

	for _, p := range []string{"/v1/runs/nope", "/v1/runs/nope/results", "/v1/runs/nope/report", "/v1/runs/nope/t/f.png"} {
		checkError(t, call(t, ts.URL, "GET", p, testToken, ""), http.StatusNotFound, "not_found", `run "nope" not found`)
	}
	checkError(t, call(t, ts.URL, "DELETE", "/v1/runs/nope", testToken, ""), http.StatusNotFound, "not_found", `run "nope" not found`)
	checkError(t, call(t, ts.URL, "PUT", "/v1/runs", testToken, "{}"), http.StatusMethodNotAllowed, "method_not_allowed", "allowed: ")

	a = call(t, ts.URL, "GET", "/v1/runs", testToken, "")
	if a.status != 200 || strings.TrimSpace(string(a.body)) != `{"runs":[]}` {
		t.Errorf("empty list: %d %s", a.status, a.body)
	}
	conform(t, "RunList", a.body)

	for _, r := range []struct{ method, path string }{
		{"POST", "/v1/runs"}, {"GET", "/v1/runs"}, {"GET", "/v1/runs/x"}, {"DELETE", "/v1/runs/x"},
		{"GET", "/v1/runs/x/results"}, {"GET", "/v1/runs/x/report"}, {"GET", "/v1/runs/x/t/f"}, {"GET", "/metrics"},
	} {
		for _, token := range []string{"", "wrong"} {
			checkError(t, call(t, ts.URL, r.method, r.path, token, `{"tasks":"`+tasks+`"}`), http.StatusUnauthorized, "unauthorized", "bearer token")
		}
	}
	if n := len(runs.List()); n != 0 {
		t.Errorf("%d runs started by refused requests", n)
	}

	// The schemas refuse what the server refuses.
	for _, bad := range []string{`{}`, `{"tasks":"x","parallel":0}`, `{"tasks":"x","out":"/tmp"}`, `{"tasks":"x","retries":-1}`} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if err := schemaFor(t, "CreateRunRequest").Validate(v); err == nil {
			t.Errorf("CreateRunRequest accepts %s", bad)
		}
	}
}

// scrape reads GET /metrics and parses the text format.
func scrape(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	a := call(t, base, "GET", "/metrics", token, "")
	if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s %.200s", a.status, a.header.Get("Content-Type"), a.body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(a.body))
	if err != nil {
		t.Fatalf("parse metrics: %v\n%s", err, a.body)
	}
	return fams
}

// value is the value of the series of name with labels (all of them,
// exactly): a counter's or gauge's value, a histogram's count.
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetrics scrapes /metrics around real calls on a local session: HTTP
// requests by route pattern, sessions open, sandbox starts, tool calls,
// and the Go and process collectors.
func TestMetrics(t *testing.T) {
	s := newRunServer(t)
	ctx := t.Context()
	fams := scrape(t, s.url, s.token)
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "deskrun_runs_active", "deskrun_sessions_open"} {
		if fams[name] == nil {
			t.Errorf("no %s before any call", name)
		}
	}
	if v, ok := value(fams, "deskrun_tasks_finished_total", map[string]string{"status": "passed"}); !ok || v != 0 {
		t.Errorf("tasks passed before any run: %v %v", v, ok)
	}

	sess, err := s.c.CreateSession(ctx, api.CreateSessionRequest{Provider: "local", Screen: api.Screen{Width: 800, Height: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := value(scrape(t, s.url, s.token), "deskrun_sessions_open", map[string]string{"provider": "local"}); v != 1 {
		t.Errorf("sessions open %v, want 1", v)
	}
	if _, err := s.c.CallTool(ctx, sess.ID, "anthropic", "computer", map[string]any{"action": "mouse_move", "coordinate": []int{10, 10}}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.c.CallTool(ctx, sess.ID, "anthropic", "computer", map[string]any{"action": "fly"}); err != nil || !r.IsError {
		t.Fatalf("refused call: %+v %v", r, err)
	}
	if _, err := s.c.Screenshot(ctx, sess.ID, api.ScreenshotOptions{}); err != nil {
		t.Fatal(err)
	}
	call(t, s.url, "GET", "/v1/sessions/"+sess.ID+"/cursor", s.token, "")
	call(t, s.url, "GET", "/v1/sessions/nope/cursor", s.token, "")
	call(t, s.url, "GET", "/v1/no/such/route", s.token, "")
	call(t, s.url, "GET", "/v1/sessions", "", "")
	if err := s.c.DeleteSession(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}

	fams = scrape(t, s.url, s.token)
	for _, w := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"deskrun_sessions_open", map[string]string{"provider": "local"}, 0},
		{"deskrun_sandbox_starts_total", map[string]string{"provider": "local", "outcome": "ok"}, 1},
		{"deskrun_sandbox_starts_total", map[string]string{"provider": "local", "outcome": "error"}, 0},
		{"deskrun_sandbox_start_duration_seconds", map[string]string{"provider": "local"}, 1},
		{"deskrun_tool_calls_total", map[string]string{"dialect": "anthropic", "tool": "computer", "outcome": "ok"}, 1},
		{"deskrun_tool_calls_total", map[string]string{"dialect": "anthropic", "tool": "computer", "outcome": "tool_error"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions", "method": "POST", "code": "201"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions/:id/tools/:name", "method": "POST", "code": "200"}, 2},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions/:id/screenshot", "method": "GET", "code": "200"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions/:id/cursor", "method": "GET", "code": "200"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions/:id/cursor", "method": "GET", "code": "404"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "code": "404"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions", "method": "GET", "code": "401"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/v1/sessions/:id", "method": "DELETE", "code": "204"}, 1},
		{"deskrun_http_requests_total", map[string]string{"route": "/metrics", "method": "GET", "code": "200"}, 2},
		{"deskrun_http_request_duration_seconds", map[string]string{"route": "/v1/sessions/:id/tools/:name", "method": "POST"}, 2},
	} {
		if v, ok := value(fams, w.name, w.labels); !ok || v != w.want {
			t.Errorf("%s%v = %v (found %v), want %v", w.name, w.labels, v, ok, w.want)
		}
	}
	// Routes are patterns: no series carries a session id.
	for _, m := range fams["deskrun_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if strings.Contains(l.GetValue(), sess.ID) || strings.Contains(l.GetValue(), "nope") {
				t.Errorf("series with a raw path: %v", m.GetLabel())
			}
		}
	}
}

// POST /v1/runs takes deskrun eval's --cache, --url-map and --offline as
// cache, url_map and offline: a bad one is a 400 naming the field, good
// ones are kept in the run's request.
func TestRunsDownloadOptions(t *testing.T) {
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": downProvider()}})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := farm.NewRuns(farm.RunsConfig{Manager: m, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runs.Close(context.Background()) })
	ts := unitServer(t, Config{Manager: m, Token: testToken, Runs: runs, Metrics: metrics.New()})
	tasks, err := filepath.Abs("../tasks/files")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	urlMap := filepath.Join(dir, "map.json")
	badMap := filepath.Join(dir, "bad.json")
	for name, body := range map[string]string{file: "x", urlMap: `{"https://example.org/a.xlsx": "a.xlsx"}`, badMap: `{"https://example.org/a.xlsx": 1}`} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ body, msg string }{
		{`{"tasks":"` + tasks + `","cache":"/nonexistent/cache"}`, "cache: stat /nonexistent/cache: no such file or directory"},
		{`{"tasks":"` + tasks + `","cache":"` + file + `"}`, "cache: " + file + " is not a folder"},
		{`{"tasks":"` + tasks + `","cache":7}`, "cache: want"},
		{`{"tasks":"` + tasks + `","url_map":"/nonexistent/map.json"}`, "url_map: read URL map: /nonexistent/map.json: no such file"},
		{`{"tasks":"` + tasks + `","url_map":"` + badMap + `"}`, "url_map: read URL map " + badMap + ": want an object of URL to file path"},
		{`{"tasks":"` + tasks + `","offline":"yes"}`, "offline: want"},
	} {
		checkError(t, call(t, ts.URL, "POST", "/v1/runs", testToken, tc.body), http.StatusBadRequest, "invalid_argument", tc.msg)
	}
	if n := len(runs.List()); n != 0 {
		t.Errorf("%d runs started by refused requests", n)
	}

	a := call(t, ts.URL, "POST", "/v1/runs", testToken, fmt.Sprintf(`{"tasks":%q,"cache":%q,"url_map":%q,"offline":true}`, tasks, dir, urlMap))
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	conform(t, "Run", a.body)
	var run api.Run
	if err := json.Unmarshal(a.body, &run); err != nil {
		t.Fatal(err)
	}
	if run.Request.Cache != dir || run.Request.URLMap != urlMap || !run.Request.Offline {
		t.Errorf("run request %+v", run.Request)
	}
	for _, bad := range []string{`{"tasks":"x","offline":"yes"}`, `{"tasks":"x","cache":1}`} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if err := schemaFor(t, "CreateRunRequest").Validate(v); err == nil {
			t.Errorf("CreateRunRequest accepts %s", bad)
		}
	}
}
