package farm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

func TestSelect(t *testing.T) {
	var tasks []*task.Task
	for _, id := range []string{"files-copy", "files-move", "shell-md5", "gui-close"} {
		tasks = append(tasks, &task.Task{ID: id})
	}
	ids := func(ts []*task.Task) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		pats []string
		want string // ids, or the error's text
	}{
		{nil, "files-copy,files-move,shell-md5,gui-close"},
		{[]string{"files-*"}, "files-copy,files-move"},
		{[]string{"gui-close", " shell-* "}, "shell-md5,gui-close"},
		{[]string{"shell-md5", "shell-md5"}, "shell-md5"},
		{[]string{"nope"}, `"nope" matches none of the 4 tasks`},
		{[]string{"files-*", ""}, "pattern 2 is empty"},
		{[]string{"[files"}, `bad pattern "[files"`},
	} {
		got, err := Select(tasks, tt.pats)
		s := ids(got)
		if err != nil {
			s = err.Error()
			if !errdefs.IsInvalidArgument(err) {
				t.Errorf("Select(%q): %v is not invalid argument", tt.pats, err)
			}
		}
		if !strings.HasPrefix(s, tt.want) {
			t.Errorf("Select(%q) = %s, want %s", tt.pats, s, tt.want)
		}
	}
}

// gateProvider starts no sandbox: each Start waits until gate closes
// (or its context ends), then fails as an unavailable engine does.
func gateProvider(gate chan struct{}) *fake.Provider {
	return fake.New(fake.Config{Before: func(ctx context.Context, _ sandbox.Spec) error {
		select {
		case <-gate:
			return errdefs.ErrUnavailable.WithMessage("engine down")
		case <-ctx.Done():
			return ctx.Err()
		}
	}})
}

// writeTasks writes n tasks of the files domain into a new folder.
func writeTasks(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		body := `{"id":"t` + string(rune('0'+i)) + `","instruction":"nothing","config":[],"evaluator":{"func":"infeasible"}}`
		if err := os.WriteFile(filepath.Join(dir, "t"+string(rune('0'+i))+".json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func newRuns(t *testing.T, p sandbox.Provider, dir string) (*Runs, *runner.Manager) {
	t.Helper()
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []Result
	rs, err := NewRuns(RunsConfig{Manager: m, Dir: dir, OnResult: func(r Result) {
		mu.Lock()
		seen = append(seen, r)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := rs.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return rs, m
}

func waitRun(t *testing.T, rs *Runs, id string) api.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := rs.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != api.RunRunning {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s still running: %+v", id, r)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunsRefuseBadRequests(t *testing.T) {
	rs, _ := newRuns(t, gateProvider(make(chan struct{})), t.TempDir())
	tasks := writeTasks(t, 2)
	dup := t.TempDir()
	for _, name := range []string{"a.json", "b.json"} {
		if err := os.WriteFile(filepath.Join(dup, name), []byte(`{"id":"same","instruction":"x","evaluator":{"func":"infeasible"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Task files and a URL map that would crash or hang a loader.
	alias, fifos := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(alias, "a.yaml"), []byte("a: &a [*a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"x.json", "map.json"} {
		if err := syscall.Mkfifo(filepath.Join(fifos, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	neg := -1
	many := 11
	for _, tt := range []struct {
		req  api.CreateRunRequest
		want string
	}{
		{api.CreateRunRequest{}, "tasks: required"},
		{api.CreateRunRequest{Tasks: tasks, Parallel: 65}, "parallel: must be between 1 and 64, got 65"},
		{api.CreateRunRequest{Tasks: tasks, Parallel: -2}, "parallel: must be between 1 and 64, got -2"},
		{api.CreateRunRequest{Tasks: tasks, MaxSteps: 1001}, "max_steps: must be between 1 and 1000"},
		{api.CreateRunRequest{Tasks: tasks, TimeoutMS: 10}, "timeout_ms: must be between 1000 and 86400000"},
		{api.CreateRunRequest{Tasks: tasks, Retries: &neg}, "retries: must be between 0 and 10, got -1"},
		{api.CreateRunRequest{Tasks: tasks, Retries: &many}, "retries: must be between 0 and 10, got 11"},
		{api.CreateRunRequest{Tasks: tasks, Provider: "kube"}, `provider: unknown provider "kube"`},
		{api.CreateRunRequest{Tasks: tasks, Screen: api.Screen{Width: 10, Height: 10}}, "screen.width: 10 out of range"},
		{api.CreateRunRequest{Tasks: tasks, Only: []string{"t1", " "}}, "only[1]: empty pattern"},
		{api.CreateRunRequest{Tasks: tasks, Only: []string{"x*"}}, `only: "x*" matches none of the 2 tasks`},
		{api.CreateRunRequest{Tasks: filepath.Join(tasks, "missing")}, "tasks: load tasks: stat "},
		{api.CreateRunRequest{Tasks: t.TempDir()}, "tasks: " /* an empty folder */},
		{api.CreateRunRequest{Tasks: dup}, `tasks: load `},
		{api.CreateRunRequest{Tasks: alias}, `tasks: load ` + filepath.Join(alias, "a.yaml") + `: decode yaml: line 1: alias *a refers to a value that holds it`},
		{api.CreateRunRequest{Tasks: fifos}, `tasks: load ` + filepath.Join(fifos, "map.json") + `: not a regular file (a named pipe)`},
		{api.CreateRunRequest{Tasks: tasks, URLMap: filepath.Join(fifos, "map.json")}, `url_map: read URL map: ` + filepath.Join(fifos, "map.json") + `: not a regular file (a named pipe)`},
		{api.CreateRunRequest{Tasks: tasks, Agent: "gemini"}, `agent: unknown agent "gemini"`},
		{api.CreateRunRequest{Tasks: tasks, Agent: "anthropic"}, "agent: anthropic: api key: required"},
	} {
		_, err := rs.Start(tt.req)
		if !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Start(%+v) = %v, want invalid argument %q", tt.req, err, tt.want)
		}
	}
	if l := rs.List(); len(l) != 0 {
		t.Errorf("refused requests made runs: %+v", l)
	}
	if entries, _ := os.ReadDir(rs.Dir()); len(entries) != 0 {
		t.Errorf("refused requests left %d entries in the runs directory", len(entries))
	}
}

// TestRunsLifecycle runs a suite whose sandboxes never start: a run that
// finishes with infrastructure errors, its counts, summary, results and
// report, forgetting it, a cancelled run, and runs loaded back from disk.
func TestRunsLifecycle(t *testing.T) {
	gate := make(chan struct{})
	p := gateProvider(gate)
	dir := filepath.Join(t.TempDir(), "runs") // made by the first run
	rs, _ := newRuns(t, p, dir)
	tasks := writeTasks(t, 3)
	zero := 0

	run, err := rs.Start(api.CreateRunRequest{Tasks: tasks, Parallel: 2, Retries: &zero, AgentToken: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != api.RunRunning || run.Total != 3 || run.Out != filepath.Join(dir, run.ID) || run.Request.Agent != "replay" ||
		run.Request.Parallel != 2 || run.Request.MaxSteps != 30 || run.Request.TimeoutMS != 600000 || *run.Request.Retries != 0 ||
		run.Request.AgentToken != "" || run.CreatedAt.IsZero() {
		t.Errorf("started %+v", run)
	}
	if n := rs.Active(); n != 1 {
		t.Errorf("Active() = %d, want 1", n)
	}
	if _, err := rs.Report(run.ID); !errdefs.IsConflict(err) {
		t.Errorf("report while running: %v, want conflict", err)
	}
	if err := rs.Forget(run.ID); !errdefs.IsConflict(err) {
		t.Errorf("forget while running: %v, want conflict", err)
	}
	if b, err := rs.Results(run.ID); err != nil || len(b) != 0 {
		t.Errorf("results before any: %q %v", b, err)
	}
	close(gate) // every start now fails
	run = waitRun(t, rs, run.ID)
	if run.Status != api.RunFinished || run.Done != 3 || run.Errors != 3 || run.Passed != 0 || run.FinishedAt.IsZero() || run.Error != "" {
		t.Errorf("finished %+v", run)
	}
	if len(run.Summary) != 2 || run.Summary[1].Domain != "all" || run.Summary[1].Tasks != 3 || run.Summary[1].Errors != 3 {
		t.Errorf("summary %+v", run.Summary)
	}
	b, err := rs.Results(run.ID)
	if err != nil || strings.Count(string(b), "\n") != 3 || !strings.Contains(string(b), `"status":"infra_error"`) {
		t.Errorf("results %q %v", b, err)
	}
	if b, err := rs.Report(run.ID); err != nil || !strings.Contains(string(b), "<h1>deskrun run report</h1>") {
		t.Errorf("report %.100q %v", b, err)
	}
	var onDisk api.Run
	if b, err := os.ReadFile(filepath.Join(run.Out, RunFile)); err != nil || json.Unmarshal(b, &onDisk) != nil || onDisk.Status != api.RunFinished ||
		strings.Contains(string(b), "secret") {
		t.Errorf("run.json: %s %v", b, err)
	}
	for _, tt := range []struct{ dir, name string }{{"t0", "missing.png"}, {"..", "run.json"}, {"t0", "../run.json"}, {".", "run.json"}, {"t0", "cache"}} {
		if _, err := rs.TaskFile(run.ID, tt.dir, tt.name); !errdefs.IsNotFound(err) {
			t.Errorf("TaskFile(%q, %q) = %v, want not found", tt.dir, tt.name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(run.Out, "t0", "step-000.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := rs.TaskFile(run.ID, "t0", "step-000.png"); err != nil || string(b) != "png" {
		t.Errorf("TaskFile: %q %v", b, err)
	}
	if _, err := rs.TaskFile(run.ID, "t0", TrajectoryFile); err != nil {
		t.Errorf("TaskFile(t0, %s): %v", TrajectoryFile, err)
	}
	if _, err := rs.Get("nope"); !errdefs.IsNotFound(err) {
		t.Errorf("Get(nope) = %v", err)
	}
	if _, err := rs.Cancel(t.Context(), "nope"); !errdefs.IsNotFound(err) {
		t.Errorf("Cancel(nope) = %v", err)
	}
	if got, err := rs.Cancel(t.Context(), run.ID); err != nil || got.Status != api.RunFinished {
		t.Errorf("cancel of an ended run: %+v %v", got, err)
	}

	// Cancel: the tasks under way end, no result is written for them.
	p2 := gateProvider(make(chan struct{}))
	rs2, m2 := newRuns(t, p2, t.TempDir())
	long, err := rs2.Start(api.CreateRunRequest{Tasks: tasks, Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	for p2.Starting() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	got, err := rs2.Cancel(t.Context(), long.ID)
	if err != nil || got.Status != api.RunCancelled || got.Done != 0 || got.Error != "cancelled on request" {
		t.Errorf("cancelled %+v %v", got, err)
	}
	if p2.Starting() != 0 || len(m2.List()) != 0 || rs2.Active() != 0 {
		t.Errorf("after cancel: %d starting, %d sessions, %d runs active", p2.Starting(), len(m2.List()), rs2.Active())
	}
	if _, err := rs2.Report(long.ID); err != nil {
		t.Errorf("report of a cancelled run: %v", err)
	}

	// A run left running by a stopped server is loaded as failed.
	stale := api.Run{ID: "0123456789abcdef", Status: api.RunRunning, CreatedAt: time.Now().UTC(), Total: 2, Request: api.CreateRunRequest{Tasks: tasks}}
	if err := os.MkdirAll(filepath.Join(dir, stale.ID), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeRunFile(filepath.Join(dir, stale.ID), stale); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stale.ID, ResultsFile), []byte(`{"id":"t0","domain":"d","status":"passed","score":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "not-a-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	again, _ := newRuns(t, gateProvider(make(chan struct{})), dir)
	l := again.List()
	if len(l) != 2 {
		t.Fatalf("loaded %d runs, want 2: %+v", len(l), l)
	}
	if old, _ := again.Get(run.ID); old.Status != api.RunFinished || old.Done != 3 {
		t.Errorf("reloaded finished run %+v", old)
	}
	if s, _ := again.Get(stale.ID); s.Status != api.RunFailed || s.Done != 1 || s.Passed != 1 || !strings.Contains(s.Error, "server stopped") {
		t.Errorf("reloaded interrupted run %+v", s)
	}

	// Forget removes the run and its directory.
	if err := again.Forget(run.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(run.Out); !os.IsNotExist(err) {
		t.Errorf("forgotten run's directory: %v", err)
	}
	if _, err := again.Get(run.ID); !errdefs.IsNotFound(err) {
		t.Errorf("forgotten run: %v", err)
	}
	if err := again.Forget(run.ID); !errdefs.IsNotFound(err) {
		t.Errorf("forget twice: %v", err)
	}
}

// TestRunsClose: closing cancels the runs under way, waits for them, and
// refuses new ones.
func TestRunsClose(t *testing.T) {
	p := gateProvider(make(chan struct{}))
	rs, _ := newRuns(t, p, t.TempDir())
	tasks := writeTasks(t, 2)
	run, err := rs.Start(api.CreateRunRequest{Tasks: tasks})
	if err != nil {
		t.Fatal(err)
	}
	for p.Starting() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := rs.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, _ := rs.Get(run.ID)
	if got.Status != api.RunCancelled || got.Error != "cancelled: the server shut down" || p.Starting() != 0 {
		t.Errorf("after close: %+v, %d starting", got, p.Starting())
	}
	if _, err := rs.Start(api.CreateRunRequest{Tasks: tasks}); !errdefs.IsUnavailable(err) {
		t.Errorf("start after close: %v, want unavailable", err)
	}
}

func TestRunsTasksRoot(t *testing.T) {
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": gateProvider(make(chan struct{}))}})
	if err != nil {
		t.Fatal(err)
	}
	root := writeTasks(t, 1)
	outside := writeTasks(t, 1)
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	rs, err := NewRuns(RunsConfig{Manager: m, Dir: t.TempDir(), TasksRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close(context.Background())
	for _, tt := range []struct{ tasks, want string }{
		{outside, "tasks: " + outside + " is outside the server's task root"},
		{"../x", "tasks: " + filepath.Join(filepath.Dir(root), "x") + " is outside the server's task root"},
		{"link", "tasks: " + filepath.Join(root, "link") + " leads outside the server's task root"},
	} {
		if _, err := rs.Start(api.CreateRunRequest{Tasks: tt.tasks}); !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("tasks %q: %v, want %q", tt.tasks, err, tt.want)
		}
	}
	// A path relative to the root, and the root itself, are taken.
	for _, p := range []string{".", root} {
		r, err := rs.Start(api.CreateRunRequest{Tasks: p})
		if err != nil {
			t.Fatalf("tasks %q: %v", p, err)
		}
		if r.Request.Tasks != root || r.Total != 1 {
			t.Errorf("tasks %q: run of %q with %d tasks, want %q with 1", p, r.Request.Tasks, r.Total, root)
		}
		if _, err := rs.Cancel(context.Background(), r.ID); err != nil {
			t.Errorf("cancel: %v", err)
		}
	}
}

// TestRunsHideAgentCredentials: an agent URL's credentials are used and
// never stored nor answered: not in run.json, the run, its list, or the
// log.
func TestRunsHideAgentCredentials(t *testing.T) {
	gate := make(chan struct{})
	close(gate)
	p := gateProvider(gate)
	dir := filepath.Join(t.TempDir(), "runs")
	rs, _ := newRuns(t, p, dir)
	run, err := rs.Start(api.CreateRunRequest{Tasks: writeTasks(t, 1), Agent: "http://u:s3cret@127.0.0.1:1/step"})
	if err != nil {
		t.Fatal(err)
	}
	run = waitRun(t, rs, run.ID)
	if run.Request.Agent != "http://xxxxx@127.0.0.1:1/step" {
		t.Errorf("run's agent %q", run.Request.Agent)
	}
	for _, r := range rs.List() {
		if strings.Contains(r.Request.Agent, "s3cret") {
			t.Errorf("listed run's agent %q", r.Request.Agent)
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "s3cret") {
				t.Errorf("%s holds the agent URL's password", path)
			}
		}
		return nil
	})
	checkPrivate(t, filepath.Dir(dir))
}

// checkPrivate fails when a file or folder under dir can be read by
// others than its owner: runs hold screenshots and what agents typed.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want no access for group and others", path, info.Mode().Perm())
		}
		return nil
	})
}

// TestLoadTasksBounded: loading a run's tasks that outlasts its time
// refuses the run with the reason.
func TestLoadTasksBounded(t *testing.T) {
	tasks := writeTasks(t, 3)
	if got, err := loadTasks(tasks, 0); err != nil || len(got) != 3 {
		t.Fatalf("loadTasks = %d tasks, %v", len(got), err)
	}
	if _, err := loadTasks(tasks, time.Nanosecond); err == nil || !strings.Contains(err.Error(), "load tasks: ") {
		t.Errorf("loadTasks within 1ns = %v, want it refused", err)
	}
}
