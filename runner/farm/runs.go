package farm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// RunFile is the name of a background run's description ([api.Run] as
// JSON) in its directory, written when the run starts and when it ends.
const RunFile = "run.json"

// LabelRun is the session label naming the background run a sandbox
// belongs to.
const LabelRun = "dev.deskrun.run"

// Why runs are cancelled, as their Error says.
var (
	errCancelled = errors.New("cancelled on request")
	errShutdown  = errors.New("cancelled: the server shut down")
)

// RunsConfig configures [NewRuns]. Manager and Dir are required; every
// other field has a useful zero value.
type RunsConfig struct {
	// Manager starts the sandboxes of every run.
	Manager *runner.Manager
	// Dir holds one directory per run, named by the run's id. It is made
	// when the first run starts; the runs found in it are loaded by
	// [NewRuns].
	Dir string
	// TasksRoot, when set, confines the task files a request may name to
	// that folder: a relative Tasks is taken from it, and a path that
	// leads outside it (symbolic links followed) is refused. Empty means
	// any path the server can read.
	TasksRoot string
	// Agents holds the credentials and endpoints of the agent specs runs
	// name ([agent.FromSpec]); a request's AgentToken becomes HTTPToken.
	Agents agent.SpecOptions
	// TaskOptions are passed to task setup and grading, as
	// [Config.TaskOptions], but for Fetch and DownloadCache, which are
	// each run's: its request's cache, and a fetcher made by
	// [task.NewFetch] from Fetch with the request's url_map and offline.
	TaskOptions task.Options
	// Fetch configures the downloads of runs (client, attempts, sizes);
	// the URL map and Offline come from each request.
	Fetch task.FetchOptions
	// Apps says which applications that not every image has (VS Code)
	// the sandboxes of a provider and image have (empty: the server's
	// defaults); tasks needing one the run's image lacks are skipped
	// ([task.SkipMissing]). Nil means none: such tasks are skipped. An
	// error refuses the run, naming the image.
	Apps func(provider, image string) (task.Apps, error)
	// Logger receives the runs' starts and ends and the farm's lines,
	// each with the run's id. Nil discards them.
	Logger *slog.Logger
	// OnResult, when set, is called with every task result of every run
	// ([Config.OnResult]); it must be safe for concurrent use.
	OnResult func(Result)
	// Snapshots keeps the set-up desktops of the runs whose request asks
	// for snapshots ([Config.Snapshots]); nil runs every setup, the
	// results saying the server keeps none.
	Snapshots *SnapshotCache
	// LoadTimeout bounds loading a request's task files (default 60s):
	// a tree that takes longer refuses the run, and the server goes on.
	LoadTimeout time.Duration
	// OnStart, when set, is called as each run starts with what was
	// prepared for it ([Prepare]): its request, tasks, options and agent.
	OnStart func(api.Run, Plan)
}

// preparation is what the runs' requests are prepared with.
func (rs *Runs) preparation() Preparation {
	return Preparation{
		Manager: rs.cfg.Manager, TasksRoot: rs.cfg.TasksRoot, Agents: rs.cfg.Agents,
		TaskOptions: rs.cfg.TaskOptions, Fetch: rs.cfg.Fetch, Apps: rs.cfg.Apps, LoadTimeout: rs.cfg.LoadTimeout,
	}
}

// defaultLoadTimeout bounds loading a run's tasks; OSWorld's 369 files
// load in well under a second.
const defaultLoadTimeout = 60 * time.Second

// loadTasks loads the task files of a run away from the request's
// goroutine, within timeout: a loader that panics or runs long fails
// the request, not the server.
func loadTasks(path string, timeout time.Duration) ([]*task.Task, error) {
	if timeout <= 0 {
		timeout = defaultLoadTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	type loaded struct {
		tasks []*task.Task
		err   error
	}
	ch := make(chan loaded, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- loaded{err: fmt.Errorf("load tasks: internal error: %v", p)}
			}
		}()
		tasks, err := task.LoadContext(ctx, path)
		ch <- loaded{tasks, err}
	}()
	select {
	case l := <-ch:
		return l.tasks, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("load tasks: %s took longer than %s", path, timeout)
	}
}

// Runs keeps the task suite runs a server starts in the background
// ([Runs.Start]): their progress, results and reports, in a directory
// per run under [RunsConfig.Dir]. It is safe for concurrent use.
type Runs struct {
	cfg RunsConfig
	log *slog.Logger

	mu     sync.Mutex
	runs   map[string]*bgRun
	closed bool
	wg     sync.WaitGroup
}

// bgRun is one run of a Runs.
type bgRun struct {
	info   api.Run                 // guarded by Runs.mu
	live   map[string]api.LiveTask // the tasks running, by folder; guarded by Runs.mu
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when the run has ended
}

// NewRuns returns the runs kept in cfg.Dir. Runs found there that a
// stopped server left running are marked failed. A missing Dir is
// fine; one that cannot be read is an error.
func NewRuns(cfg RunsConfig) (*Runs, error) {
	switch {
	case cfg.Manager == nil:
		return nil, errdefs.ErrInvalidArgument.WithMessage("farm: runs: manager: required")
	case cfg.Dir == "":
		return nil, errdefs.ErrInvalidArgument.WithMessage("farm: runs: dir: required")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("runs directory: %w", err)
	}
	cfg.Dir = dir
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	rs := &Runs{cfg: cfg, log: cfg.Logger, runs: map[string]*bgRun{}}
	if err := rs.load(); err != nil {
		return nil, err
	}
	return rs, nil
}

// Dir is the absolute path of the runs directory.
func (rs *Runs) Dir() string { return rs.cfg.Dir }

// load reads the runs of earlier servers from the runs directory.
func (rs *Runs) load() error {
	entries, err := os.ReadDir(rs.cfg.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("runs directory: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		out := filepath.Join(rs.cfg.Dir, e.Name())
		b, err := os.ReadFile(filepath.Join(out, RunFile))
		if err != nil {
			continue // not a run's directory
		}
		var info api.Run
		if json.Unmarshal(b, &info) != nil || info.ID != e.Name() {
			continue
		}
		info.Out = out
		if info.Status == api.RunRunning {
			// The server that ran it stopped without ending it.
			results, _ := ReadResults(filepath.Join(out, ResultsFile))
			info = ended(info, results, api.RunFailed, "the server stopped before the run ended")
			if err := writeRunFile(out, info); err != nil {
				rs.log.Warn("mark an interrupted run failed", "run", info.ID, "err", err)
			}
		}
		done := make(chan struct{})
		close(done)
		rs.runs[info.ID] = &bgRun{info: info, done: done}
	}
	return nil
}

// ended returns info as a run that ended with status and results.
func ended(info api.Run, results []Result, status, why string) api.Run {
	info.Status, info.Error = status, why
	info.FinishedAt = time.Now().UTC()
	info.Done, info.Passed, info.Failed, info.Errors, info.Skipped = 0, 0, 0, 0, 0
	for _, r := range results {
		count(&info, r)
	}
	info.Summary, info.OSWorld, info.TasksSHA256 = nil, "", ""
	if len(results) > 0 {
		info.Summary = Summarize(results)
		g := GradingOf(results)
		info.OSWorld, info.TasksSHA256 = g.OSWorld, g.TasksSHA256
	}
	return info
}

// count adds r to info's counts.
func count(info *api.Run, r Result) {
	info.Done++
	switch r.Status {
	case StatusPassed:
		info.Passed++
	case StatusFailed:
		info.Failed++
	case StatusSkipped:
		info.Skipped++
	default:
		info.Errors++
	}
}

// invalidField makes err, a problem with the request's field, an error
// of class [errdefs.ErrInvalidArgument] naming it.
func invalidField(field string, err error) error {
	return errdefs.ErrInvalidArgument.WithMessage(field + ": " + strings.TrimPrefix(err.Error(), "farm: "))
}

// Start checks req, loads its tasks and makes its agent, then runs them
// in the background in a new directory under the runs directory, and
// returns the run (status running). A bad request, tasks that do not
// load and an agent spec that does not make an agent are errors of
// class [errdefs.ErrInvalidArgument] naming the field ("parallel: must
// be between 1 and 64, got 0", "tasks: load tasks: ..."); a closed Runs
// or a runs directory that cannot be written is
// [errdefs.ErrUnavailable].
func (rs *Runs) Start(req api.CreateRunRequest) (api.Run, error) {
	pl, err := Prepare(req, rs.preparation())
	if err != nil {
		return api.Run{}, err
	}
	req, tasks := pl.Request, pl.Tasks

	id := newRunID()
	out := filepath.Join(rs.cfg.Dir, id)
	if err := os.MkdirAll(out, 0o700); err != nil {
		return api.Run{}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("runs directory: %v (give deskrun serve a writable --runs)", err))
	}
	info := api.Run{
		ID: id, Status: api.RunRunning, CreatedAt: time.Now().UTC(), Out: out, Request: req, Total: len(tasks) * req.Trials,
	}
	if err := writeRunFile(out, info); err != nil {
		os.RemoveAll(out)
		return api.Run{}, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("runs directory: %v", err))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &bgRun{info: info, cancel: cancel, done: make(chan struct{}), live: map[string]api.LiveTask{}}
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		cancel(errShutdown)
		os.RemoveAll(out)
		return api.Run{}, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	rs.runs[id] = r
	rs.wg.Add(1)
	rs.mu.Unlock()

	log := rs.log.With("run", id)
	log.Info("run started", "tasks", len(tasks), "agent", req.Agent, "parallel", req.Parallel, "out", out)
	cfg := pl.Config()
	cfg.Manager, cfg.Out, cfg.Logger = rs.cfg.Manager, out, log
	cfg.Labels = map[string]string{LabelRun: id}
	if *pl.Request.Snapshots {
		cfg.Snapshots = rs.cfg.Snapshots
		if cfg.Snapshots == nil {
			cfg.SnapshotsOff = "snapshots: this server keeps none (deskrun serve --snapshot-cache)"
		}
	}
	cfg.OnProgress = func(p Progress) {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		if p.Ended {
			delete(r.live, p.Task)
			return
		}
		r.live[p.Task] = p.LiveTask
	}
	cfg.OnResult = func(res Result) {
		rs.mu.Lock()
		count(&r.info, res)
		rs.mu.Unlock()
		if rs.cfg.OnResult != nil {
			rs.cfg.OnResult(res)
		}
	}
	if rs.cfg.OnStart != nil {
		rs.cfg.OnStart(info, pl)
	}
	go func() {
		defer rs.wg.Done()
		defer close(r.done)
		rs.run(ctx, r, cfg, tasks, log)
	}()
	return info, nil
}

// run runs the tasks of r and records how the run ended.
func (rs *Runs) run(ctx context.Context, r *bgRun, cfg Config, tasks []*task.Task, log *slog.Logger) {
	started := time.Now()
	results, err := Run(ctx, cfg, tasks)
	status, why := api.RunFinished, ""
	switch {
	case ctx.Err() != nil:
		status, why = api.RunCancelled, context.Cause(ctx).Error()
	case err != nil:
		status, why = api.RunFailed, err.Error()
	}
	if err := WriteReport(cfg.Out, results); err != nil && status == api.RunFinished {
		status, why = api.RunFailed, err.Error()
	}
	rs.mu.Lock()
	info := ended(r.info, results, status, why)
	rs.mu.Unlock()
	if err := writeRunFile(cfg.Out, info); err != nil {
		log.Warn("write run file", "err", err)
	}
	rs.mu.Lock()
	r.info = info
	rs.mu.Unlock()
	log.Info("run ended", "status", status, "done", info.Done, "of", info.Total, "passed", info.Passed,
		"took", time.Since(started).Round(time.Millisecond), "err", why)
}

// writeRunFile writes info to <out>/run.json, replacing it whole.
func writeRunFile(out string, info api.Run) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode run: %w", err)
	}
	tmp, err := os.CreateTemp(out, ".run-*.json")
	if err != nil {
		return fmt.Errorf("write run file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write run file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write run file: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write run file: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(out, RunFile)); err != nil {
		return fmt.Errorf("write run file: %w", err)
	}
	return nil
}

func newRunID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

func notFound(id string) error {
	return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("run %q not found", id))
}

// find returns the run id and its description, or an
// [errdefs.ErrNotFound] error.
func (rs *Runs) find(id string) (*bgRun, api.Run, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.runs[id]
	if !ok {
		return nil, api.Run{}, notFound(id)
	}
	return r, r.info, nil
}

// Get describes the run id; an unknown id is [errdefs.ErrNotFound].
func (rs *Runs) Get(id string) (api.Run, error) {
	_, info, err := rs.find(id)
	return info, err
}

// Live describes the run id and the tasks it runs now, in the order
// they started; an unknown id is [errdefs.ErrNotFound].
func (rs *Runs) Live(id string) (api.RunLive, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.runs[id]
	if !ok {
		return api.RunLive{}, notFound(id)
	}
	out := api.RunLive{Run: r.info, Tasks: make([]api.LiveTask, 0, len(r.live))}
	for _, t := range r.live {
		out.Tasks = append(out.Tasks, t)
	}
	slices.SortFunc(out.Tasks, func(a, b api.LiveTask) int {
		if c := a.StartedAt.Compare(b.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.Task, b.Task)
	})
	return out, nil
}

// List describes every run, by creation time.
func (rs *Runs) List() []api.Run {
	rs.mu.Lock()
	out := make([]api.Run, 0, len(rs.runs))
	for _, r := range rs.runs {
		out = append(out, r.info)
	}
	rs.mu.Unlock()
	slices.SortFunc(out, func(a, b api.Run) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Active counts the runs under way.
func (rs *Runs) Active() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	for _, r := range rs.runs {
		if r.info.Status == api.RunRunning {
			n++
		}
	}
	return n
}

// Results returns the results.jsonl of the run id as it stands: one
// [Result] per line, complete lines only (empty before the first).
func (rs *Runs) Results(id string) ([]byte, error) {
	_, info, err := rs.find(id)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(info.Out, ResultsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return []byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	return b[:bytes.LastIndexByte(b, '\n')+1], nil
}

// Report returns the report.html of the run id. A run under way is
// [errdefs.ErrConflict] (the report is written when it ends); a run that
// ended without one is [errdefs.ErrNotFound].
func (rs *Runs) Report(id string) ([]byte, error) {
	_, info, err := rs.find(id)
	if err != nil {
		return nil, err
	}
	if info.Status == api.RunRunning {
		return nil, errdefs.ErrConflict.WithMessage(fmt.Sprintf("run %q is still running: its report is written when it ends", id))
	}
	b, err := os.ReadFile(filepath.Join(info.Out, ReportFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("run %q has no report", id))
	}
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	return b, nil
}

// TaskFile returns the file name of the folder dir of a task of the run
// id (dir as [DirName] makes it): its trajectory.jsonl or a screenshot,
// the files the report refers to. Names that are not a plain file of that
// folder are [errdefs.ErrNotFound].
func (rs *Runs) TaskFile(id, dir, name string) ([]byte, error) {
	_, info, err := rs.find(id)
	if err != nil {
		return nil, err
	}
	missing := errdefs.ErrNotFound.WithMessage(fmt.Sprintf("run %q has no file %s/%s", id, dir, name))
	for _, part := range []string{dir, name} {
		if part == "" || strings.HasPrefix(part, ".") || strings.ContainsAny(part, `/\`) {
			return nil, missing
		}
	}
	root, err := os.OpenRoot(info.Out) // no way out of the run's directory, links included
	if err != nil {
		return nil, missing
	}
	defer root.Close()
	f, err := root.Open(filepath.Join(dir, name))
	if err != nil {
		return nil, missing
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, missing
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", dir, name, err)
	}
	return buf.Bytes(), nil
}

// Cancel stops the run id if it is under way: it starts no more tasks,
// ends those under way without a result (their sandboxes deleted) and
// writes the report; Cancel waits for that, at most until ctx ends, and
// returns the run (status cancelled). A run that has ended is returned
// as it is. An unknown id is [errdefs.ErrNotFound].
func (rs *Runs) Cancel(ctx context.Context, id string) (api.Run, error) {
	r, info, err := rs.find(id)
	if err != nil {
		return api.Run{}, err
	}
	if info.Status == api.RunRunning {
		r.cancel(errCancelled)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return info, fmt.Errorf("cancel run %s: %w", id, ctx.Err())
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return r.info, nil
}

// Forget removes the run id, which has ended, and its directory. A run
// under way is [errdefs.ErrConflict] (cancel it first); an unknown id is
// [errdefs.ErrNotFound].
func (rs *Runs) Forget(id string) error {
	rs.mu.Lock()
	r, ok := rs.runs[id]
	if !ok {
		rs.mu.Unlock()
		return notFound(id)
	}
	if r.info.Status == api.RunRunning {
		rs.mu.Unlock()
		return errdefs.ErrConflict.WithMessage(fmt.Sprintf("run %q is running: cancel it first", id))
	}
	delete(rs.runs, id)
	rs.mu.Unlock()
	if err := os.RemoveAll(r.info.Out); err != nil {
		return fmt.Errorf("remove run %s: %w", id, err)
	}
	return nil
}

// Close cancels the runs under way, as [Runs.Cancel] does, and waits for
// them to end, at most until ctx ends. Later Starts fail with
// [errdefs.ErrUnavailable].
func (rs *Runs) Close(ctx context.Context) error {
	rs.mu.Lock()
	rs.closed = true
	for _, r := range rs.runs {
		if r.info.Status == api.RunRunning {
			r.cancel(errShutdown)
		}
	}
	rs.mu.Unlock()
	done := make(chan struct{})
	go func() { rs.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("runs still ending: %w", ctx.Err())
	}
}

// within returns path, taken from root when relative, provided it stays
// inside root once symbolic links are followed.
func within(root, path string) (string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	path = filepath.Clean(path)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("the server's task root %s: %w", root, err)
	}
	inside := func(dir, p string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	if !inside(root, path) {
		return "", fmt.Errorf("%s is outside the server's task root %s", path, root)
	}
	// A missing path is reported when the tasks load.
	if real, err := filepath.EvalSymlinks(path); err == nil && !inside(realRoot, real) {
		return "", fmt.Errorf("%s leads outside the server's task root %s", path, root)
	}
	return path, nil
}
