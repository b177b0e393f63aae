// Package farm runs task suites: each task in a fresh sandbox of a
// [runner.Manager], set up ([task.Setup]), driven by an [agent.Agent]
// for at most a number of steps and a time, graded ([task.Evaluate]),
// and its result appended to results.jsonl the moment it is known.
//
// Infrastructure failures (a sandbox that does not start, a connection to
// it lost) are retried; an agent's failure never is. A run that stopped
// (a crash, Ctrl-C) resumes where it was: tasks already in results.jsonl
// are skipped. Each task leaves its trajectory (trajectory.jsonl and a
// screenshot per step) in a folder of its own; [WriteReport] turns a run
// into a self-contained HTML page and [Summarize] into a table per
// domain.
//
// [Runs] keeps the runs a server starts in the background (deskrun
// serve's POST /v1/runs): one run directory each under a runs directory,
// with the run's state in run.json, cancelled on request or when the
// server shuts down.
//
// The run directory:
//
//	results.jsonl             one [Result] per line, in the order tasks ended
//	report.html               [WriteReport]
//	run.json                  a background run's state ([Runs])
//	<task>/trajectory.jsonl   one [StepRecord] per step, then the graded screen
//	<task>/step-000.png       the screen each step started from
//	<task>/final.png          the screen that was graded
//	<task>/recording.webm     the attempt's video, with Config.Record
//	<task>/cache/             the task's cache folder (getters' files)
//
// <task> is the task's id as [DirName] makes it safe.
package farm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
	"golang.org/x/sync/errgroup"
)

// Config configures a run. Manager, Agent and Out are required; every
// other field has a useful zero value.
type Config struct {
	// Manager starts and stops the sandboxes, one session per attempt.
	Manager *runner.Manager
	// Agent drives the tasks; one value serves every task.
	Agent agent.Agent
	// Out is the run's directory (created if missing).
	Out string
	// Resume continues the run in Out: tasks results.jsonl already has a
	// line for are skipped. Without Resume, an Out holding a
	// results.jsonl is refused with [errdefs.ErrAlreadyExists].
	Resume bool

	// Trials is how many times each task runs, each in a fresh sandbox
	// (default 1). With more than one, every result carries its trial
	// (1..Trials) and has a folder of its own ([Result.Dir]); Resume runs
	// the trials results.jsonl has no line for.
	Trials int

	// Parallel is how many tasks run at once (default 1: a library
	// caller's; a run's request always sets it, [api.DefaultRunParallel]
	// when it names none).
	Parallel int
	// MaxSteps bounds the agent's steps per task (default
	// [api.DefaultRunMaxSteps]). A task
	// that reaches it is graded as it stands.
	MaxSteps int
	// Timeout bounds one attempt at a task, from starting its sandbox to
	// grading it (default [api.DefaultRunTimeoutMS]).
	Timeout time.Duration
	// Retries is how many more attempts a task gets after an
	// infrastructure failure: default 1, negative means none.
	Retries int
	// Settle bounds how long the desktop is left after a task's setup
	// steps and after a step's calls before the next screenshot, and
	// before grading; a step whose only call ends the episode (osworld's
	// done or fail) gets none. Programs react to input asynchronously: a
	// command typed into a terminal runs after the key press returns.
	// With Quiet (the default) it is the deadline of a settled wait
	// (default 2s); with a negative Quiet it is a fixed pause (default
	// 500ms). Negative means no wait at all.
	Settle time.Duration
	// Quiet makes the settle a settled wait: it ends as soon as nothing
	// on the screen has changed for Quiet (wait_idle), or at Settle.
	// Default 100ms; negative means the fixed pause of Settle.
	Quiet time.Duration

	// Provider, Image, Screen and Labels go into every session request
	// (empty: the Manager's defaults). The farm adds the label
	// "dev.deskrun.task".
	Provider string
	Image    string
	Screen   api.Screen
	Runtime  string
	Labels   map[string]string
	// Snapshots, when set, is where set-up desktops are kept: the first
	// trial of a task whose provider can save sandboxes saves its desktop
	// there once set up, and every further trial, in this run or a later
	// one, starts from it without running the setup ([SnapshotCache]).
	// Where that cannot be, the attempt runs its setup, and its result's
	// SnapshotError says why. Nil runs every setup. Not with Record (a
	// video starts with its sandbox).
	Snapshots *SnapshotCache
	// SnapshotsOff, with a nil Snapshots, says why snapshots asked for
	// cannot be had: every result carries it as its SnapshotError.
	SnapshotsOff string
	// ForkTrials runs a task's trials side by side: the first trial's
	// sandbox is set up (or restored from Snapshots) and forked into the
	// others, each then driven and graded on its own. A task then holds
	// Trials sandboxes at once; Parallel counts tasks. Where the fork
	// fails, the trials left run as without it.
	ForkTrials bool
	// Record makes a video of each attempt's desktop, from the sandbox's
	// start to its end, saved as <task>/recording.webm ([RecordingFile]);
	// the steps of the trajectory then carry video_ms and the report
	// embeds the video. The sandbox needs ffmpeg (the images have it).
	Record bool
	// Dialect is the session's dialect: the one of calls that name none
	// when the agent's response names none either. Empty means the
	// Manager's default.
	Dialect string
	// TaskOptions are passed to task setup and grading. An empty
	// CacheDir means <Out>/<task>/cache; HostBytes is the farm's (below).
	TaskOptions task.Options
	// MaxTaskBytes bounds the bytes one attempt copies to this host
	// (files fetched from its sandbox, downloads, command output kept as
	// files; default [task.DefaultTaskBytes]), MaxRunBytes those of the
	// whole run (default 32 GiB). A copy that would pass either fails its
	// step or getter with the reason.
	MaxTaskBytes int64
	MaxRunBytes  int64

	// Prices turn the model tokens agents report into money (default
	// [agent.DefaultPrices]).
	Prices agent.Prices

	// Progress receives progress: a line rewritten in place when
	// Terminal, else a line per finished task. Nil means none.
	Progress io.Writer
	Terminal bool
	// Logger receives retries and per-task outcomes. Nil discards them.
	Logger *slog.Logger
	// OnResult, when set, is called with each result of this run once it
	// is appended to results.jsonl, from the task's goroutine: it must be
	// safe for concurrent use.
	OnResult func(Result)
	// OnProgress, when set, is called as an attempt at a task moves on:
	// its sandbox starting, set up, each step of the agent, grading, and
	// once more with Ended when the attempt is over, from the task's
	// goroutine: it must be safe for concurrent use.
	OnProgress func(Progress)
}

// Progress is the state of an attempt at a task ([Config.OnProgress]).
type Progress struct {
	api.LiveTask
	// Ended says the attempt is over (its result, if any, follows).
	Ended bool
}

func (c Config) withDefaults() Config {
	if c.Trials <= 0 {
		c.Trials = api.DefaultRunTrials
	}
	if c.Prices == nil {
		c.Prices = agent.DefaultPrices
	}
	if c.Parallel <= 0 {
		c.Parallel = 1
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = api.DefaultRunMaxSteps
	}
	if c.MaxTaskBytes <= 0 {
		c.MaxTaskBytes = task.DefaultTaskBytes
	}
	if c.MaxRunBytes <= 0 {
		c.MaxRunBytes = DefaultRunBytes
	}
	if c.Timeout <= 0 {
		c.Timeout = api.DefaultRunTimeoutMS * time.Millisecond
	}
	switch {
	case c.Retries == 0:
		c.Retries = api.DefaultRunRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	if c.Quiet == 0 {
		c.Quiet = 100 * time.Millisecond
	}
	switch {
	case c.Settle == 0 && c.Quiet > 0:
		c.Settle = 2 * time.Second
	case c.Settle == 0:
		c.Settle = 500 * time.Millisecond
	case c.Settle < 0:
		c.Settle = 0
	}
	if c.Quiet > 0 && c.Settle > 0 && c.Settle < c.Quiet {
		c.Settle = c.Quiet
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Statuses of a finished task, the "status" of its [Result].
const (
	// StatusPassed: graded with score 1.
	StatusPassed = "passed"
	// StatusSkipped: not run, for the task needs what this run cannot
	// give it (Google Drive credentials, an account login, an app the
	// image lacks, a part not available yet); Error says which field and
	// why. Neither the agent's failure nor the infrastructure's: it
	// counts in no success rate, and runs again on resume.
	StatusSkipped = "skipped"
	// StatusFailed: graded below 1 (the agent ended, or ran out of
	// steps, with the task not done).
	StatusFailed = "failed"
	// StatusTimeout: the attempt ran out of time before it was graded.
	StatusTimeout = "timeout"
	// StatusAgentError: the agent could not answer, or answered with a
	// call no dialect has. Never retried.
	StatusAgentError = "agent_error"
	// StatusSetupError: a setup step failed (not for want of the
	// sandbox). Never retried.
	StatusSetupError = "setup_error"
	// StatusEvalError: grading failed (a postconfig step failed).
	StatusEvalError = "eval_error"
	// StatusInfraError: the sandbox failed (did not start, stopped
	// answering), on every attempt.
	StatusInfraError = "infra_error"
)

// Result is one task's outcome: one line of results.jsonl.
type Result struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	// Trial is which run of the task this is (1..Config.Trials) when a
	// run has several per task; zero when it has one.
	Trial int `json:"trial,omitempty"`
	// Instruction is what the agent was asked to do.
	Instruction string  `json:"instruction,omitempty"`
	Score       float64 `json:"score"`
	Status      string  `json:"status"`
	// Error says what went wrong, for every status but passed and
	// failed.
	Error string `json:"error,omitempty"`
	// Detail says why grading gave less than 1, when a metric knows.
	Detail string `json:"detail,omitempty"`
	// TaskSHA256 is the SHA-256 of the task file (empty for a task not
	// read from a file); OSWorld the tree deskrun's grading follows
	// (task.OSWorldCommit).
	TaskSHA256 string `json:"task_sha256,omitempty"`
	OSWorld    string `json:"osworld,omitempty"`
	// DurationMS is the time from the first attempt's start to the
	// result, retries included.
	DurationMS int64 `json:"duration_ms"`
	// Steps is the number of agent steps of the last attempt.
	Steps int `json:"steps"`
	// Attempts counts the attempts (1 without retries).
	Attempts int `json:"attempts"`
	// LastAction is how the agent ended: task.ActionDone,
	// task.ActionFail, or empty (step limit, error).
	LastAction string `json:"last_action,omitempty"`
	// StepLimit reports that the agent used all its steps.
	StepLimit bool `json:"step_limit,omitempty"`
	// Where the last attempt's time went, in milliseconds: starting the
	// sandbox, setup, the agent's thinking, tool calls, screenshots for
	// the agent, settle pauses, grading.
	SandboxMS int64 `json:"sandbox_ms"`
	SetupMS   int64 `json:"setup_ms"`
	AgentMS   int64 `json:"agent_ms"`
	ToolsMS   int64 `json:"tools_ms"`
	ObserveMS int64 `json:"observe_ms"`
	SettleMS  int64 `json:"settle_ms"`
	EvalMS    int64 `json:"eval_ms"`
	// Snapshot says how the last attempt's desktop was set up when the
	// run used snapshots or forks: [SnapshotSaved], [SnapshotRestored] or
	// [SnapshotForked]; empty when it ran its setup alone, and then
	// SnapshotError says why, when snapshots were asked for.
	// SnapshotMS is the time saving took.
	Snapshot      string `json:"snapshot,omitempty"`
	SnapshotError string `json:"snapshot_error,omitempty"`
	SnapshotMS    int64  `json:"snapshot_ms,omitempty"`
	// Usage sums the model tokens of the last attempt's steps, when the
	// agent reports them; CostUSD is their price by Config.Prices (zero
	// when the model has none).
	Usage   *agent.Usage `json:"usage,omitempty"`
	CostUSD float64      `json:"cost_usd,omitempty"`
	// Finished is when the result was known.
	Finished time.Time `json:"finished"`
}

// addUsage adds a step's tokens to the result and prices them.
func (r *Result) addUsage(u agent.Usage, prices agent.Prices) {
	if r.Usage == nil {
		r.Usage = &agent.Usage{}
	}
	r.Usage.Add(u)
	if c, ok := prices.Cost(u); ok {
		r.CostUSD = round6(r.CostUSD + c)
	}
}

// Run runs the tasks, at most cfg.Parallel at a time, appending each
// result to <Out>/results.jsonl as it is known, and returns every result
// of the run directory (those of earlier runs resumed included) in file
// order. When ctx ends, Run stops starting tasks, ends the ones under way
// without a result (their sessions are deleted), and returns ctx's error
// with the results so far; resuming runs the rest.
//
// Errors before any task runs (a bad Config, a duplicate task id, an Out
// that holds a run without Resume) are of class
// [errdefs.ErrInvalidArgument] or [errdefs.ErrAlreadyExists].
func Run(ctx context.Context, cfg Config, tasks []*task.Task) ([]Result, error) {
	cfg = cfg.withDefaults()
	switch {
	case cfg.Manager == nil:
		return nil, errdefs.ErrInvalidArgument.WithMessage("farm: manager: required")
	case cfg.Agent == nil:
		return nil, errdefs.ErrInvalidArgument.WithMessage("farm: agent: required")
	case cfg.Out == "":
		return nil, errdefs.ErrInvalidArgument.WithMessage("farm: out: required (the run's directory)")
	}
	if err := checkTasks(tasks, cfg.Trials); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o700); err != nil {
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	path := filepath.Join(cfg.Out, ResultsFile)
	if !cfg.Resume {
		if _, err := os.Stat(path); err == nil {
			return nil, errdefs.ErrAlreadyExists.WithMessage(fmt.Sprintf("farm: %s already holds a run: resume it or choose another directory", cfg.Out))
		}
	}
	rf, done, err := openResults(path)
	if err != nil {
		return nil, err
	}
	defer rf.close()

	// Skipped tasks run again on resume: what they lacked (a mirror of
	// their files, an image with their app) may be there now.
	finished := make(map[string]bool, len(done))
	kept := done[:0:0]
	for _, r := range done {
		if r.Status == StatusSkipped {
			continue
		}
		finished[r.Key()] = true
		kept = append(kept, r)
	}
	done = kept
	var todo []job
	for _, t := range tasks {
		for n := range cfg.Trials {
			j := job{t: t}
			if cfg.Trials > 1 {
				j.trial = n + 1
			}
			if !finished[Result{ID: t.ID, Trial: j.trial}.Key()] {
				todo = append(todo, j)
			}
		}
	}
	prog := newProgress(cfg.Progress, cfg.Terminal, len(todo))
	defer prog.finish()
	defer prog.tick()()

	var mu sync.Mutex
	results := done
	emit := func(r Result) {
		if err := rf.append(r); err != nil {
			cfg.Logger.ErrorContext(ctx, "write result", "task", r.ID, "err", err)
		}
		mu.Lock()
		results = append(results, r)
		mu.Unlock()
		prog.finished(r)
		if cfg.OnResult != nil {
			cfg.OnResult(r)
		}
		cfg.Logger.InfoContext(ctx, "task finished", "task", r.ID, "status", r.Status, "score", r.Score, "steps", r.Steps, "attempts", r.Attempts, "err", r.Error)
	}
	f := &farm{cfg: cfg, prog: prog, bytes: task.NewHostBytes(cfg.MaxRunBytes, "the run", nil)}
	switch {
	case cfg.Snapshots == nil:
		f.snapsOff = cfg.SnapshotsOff
	case cfg.Record:
		f.snapsOff = "snapshots: not with a recorded run (a video starts with its sandbox)"
	default:
		f.snaps = newSnapshots(cfg.Snapshots)
	}
	var g errgroup.Group
	g.SetLimit(cfg.Parallel)
	for _, js := range schedule(todo, cfg) {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil
			}
			if len(js) > 1 {
				f.runForked(ctx, js, emit)
			} else {
				f.runTask(ctx, js[0], emit)
			}
			return nil
		})
	}
	_ = g.Wait()
	mu.Lock()
	defer mu.Unlock()
	return results, ctx.Err()
}

// checkTasks refuses tasks that cannot share a run directory: two with
// one id, or ids that map to one folder name. Its errors are of class
// [errdefs.ErrInvalidArgument].
func checkTasks(tasks []*task.Task, trials int) error {
	seen := map[string]string{}
	dirs := map[string]string{}
	for _, t := range tasks {
		if prev, dup := seen[t.ID]; dup {
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("farm: task id %q appears twice (%s, %s)", t.ID, prev, t.Path))
		}
		seen[t.ID] = t.Path
		for n := range trials {
			r := Result{ID: t.ID}
			if trials > 1 {
				r.Trial = n + 1
			}
			d := r.Dir()
			if other, dup := dirs[d]; dup && other != t.ID {
				return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("farm: task ids %q and %q share the folder name %q", other, t.ID, d))
			}
			dirs[d] = t.ID
		}
	}
	return nil
}

// job is one trial of one task.
type job struct {
	t     *task.Task
	trial int // 0 when the run has one trial per task
}

// Key identifies a result in its run: the task's id, and its trial when
// the run has several ("id#2").
func (r Result) Key() string {
	if r.Trial == 0 {
		return r.ID
	}
	return r.ID + "#" + strconv.Itoa(r.Trial)
}

// Dir is the folder of the result's trajectory in the run directory:
// [DirName] of its task, with ".trial-N" after it when the run has
// several trials.
func (r Result) Dir() string {
	if r.Trial == 0 {
		return DirName(r.ID)
	}
	return DirName(r.ID) + ".trial-" + strconv.Itoa(r.Trial)
}

// farm is one run.
type farm struct {
	cfg  Config
	prog *progress
	// bytes bounds what the run's tasks copy to this host.
	bytes *task.HostBytes
	// snaps keeps the run's use of Config.Snapshots; nil without, and
	// then snapsOff says why when snapshots were asked for.
	snaps    *snapshots
	snapsOff string
}

// schedule orders the run's jobs into the units its slots take: one
// trial each, or with ForkTrials a task's trials together. With
// snapshots and several trials, every task's first trial comes before
// the other trials, so that those find their task's desktop saved
// rather than wait for it.
func schedule(todo []job, cfg Config) [][]job {
	var out [][]job
	if cfg.ForkTrials && cfg.Trials > 1 {
		at := map[*task.Task]int{}
		for _, j := range todo {
			i, ok := at[j.t]
			if !ok {
				i = len(out)
				at[j.t] = i
				out = append(out, nil)
			}
			out[i] = append(out[i], j)
		}
		return out
	}
	for _, j := range todo {
		out = append(out, []job{j})
	}
	if cfg.Snapshots != nil && cfg.Trials > 1 {
		seen := map[*task.Task]bool{}
		var first, rest [][]job
		for _, js := range out {
			if seen[js[0].t] {
				rest = append(rest, js)
				continue
			}
			seen[js[0].t] = true
			first = append(first, js)
		}
		out = append(first, rest...)
	}
	return out
}

// DefaultRunBytes is [Config.MaxRunBytes]'s default.
const DefaultRunBytes = 32 << 30

// runTask runs t, retrying infrastructure failures, and emits its result
// unless ctx ended first. The result is emitted as soon as it is known,
// before the sandbox is stopped.
func (f *farm) runTask(ctx context.Context, j job, emitResult func(Result)) {
	f.runAttempts(ctx, j, emitResult, nil)
}

// runAttempts is runTask whose first attempt, when first is set, is
// first's (an attempt already under way: a forked trial's).
func (f *farm) runAttempts(ctx context.Context, j job, emitResult func(Result), first func() (outcome, func())) {
	// Every result names the task file it graded and the OSWorld tree
	// the grading follows.
	emit := func(r Result) {
		r.TaskSHA256, r.OSWorld = j.t.SHA256, task.OSWorldCommit
		emitResult(r)
	}
	f.prog.started()
	defer f.prog.ended()
	start := time.Now()
	log := f.cfg.Logger.With("task", j.t.ID)
	if j.trial > 0 {
		log = log.With("trial", j.trial)
	}
	if sk := j.t.Skip; sk != nil {
		r := Result{ID: j.t.ID, Domain: j.t.Domain, Trial: j.trial, Status: StatusSkipped, Error: sk.Error(),
			Attempts: 0, Finished: time.Now().UTC()}
		emit(r)
		return
	}
	for n := 1; ; n++ {
		var o outcome
		var teardown func()
		if n == 1 && first != nil {
			o, teardown = first()
		} else {
			o, teardown = f.attempt(ctx, j)
		}
		r := o.Result
		again := !o.canceled && o.retry && n <= f.cfg.Retries
		if !o.canceled && !again {
			r.Attempts = n
			r.DurationMS = time.Since(start).Milliseconds()
			r.Finished = time.Now().UTC()
			emit(r)
		}
		teardown()
		if !again {
			return
		}
		log.WarnContext(ctx, "retrying after an infrastructure failure", "attempt", n, "err", r.Error)
	}
}

// outcome is an attempt's result and what to do about it.
type outcome struct {
	Result
	retry    bool // an infrastructure failure worth another attempt
	canceled bool // the run was stopped: no result
}
