// Package farm runs task suites: each task in a fresh sandbox, set up,
// driven by an agent for at most a number of steps and a time, graded,
// and its result appended to results.jsonl the moment it is known.
// Infrastructure failures (a sandbox that does not start, a connection
// lost) are retried; an agent's failure never is. A run that stopped
// (crash, Ctrl-C) resumes where it was, skipping finished tasks.
package farm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// Config configures a run.
type Config struct {
	Manager  *runner.Manager
	Agent    agent.Agent
	Parallel int           // tasks at once (default 1)
	MaxSteps int           // agent steps per task (default 30)
	Timeout  time.Duration // per task, setup to grade (default 10 min)
	// Retries is how many more times a task is tried after an
	// infrastructure failure (default 1).
	Retries int
	// Out is the run's directory: results.jsonl, a folder per task with
	// its trajectory and screenshots, report.html.
	Out string
	// Resume skips the tasks results.jsonl already has a result for.
	Resume   bool
	Provider string
	Image    string
	Screen   wire.Screen
	// Dialect is the default dialect of agent calls that name none.
	Dialect string
	// Progress receives progress: a line rewritten in place when
	// Terminal, a line per task otherwise. Nil means none.
	Progress io.Writer
	Terminal bool
	Logger   *slog.Logger
	// TaskOptions are passed to task setup and evaluation.
	TaskOptions task.Options
}

// Status of a finished task.
const (
	StatusPassed     = "passed"      // score 1
	StatusFailed     = "failed"      // graded below 1
	StatusTimeout    = "timeout"     // the task's time ran out
	StatusAgentError = "agent_error" // the agent failed to answer
	StatusInfraError = "infra_error" // the sandbox failed, after retries
	StatusSetupError = "setup_error" // the task's setup failed, after retries
	StatusCanceled   = "canceled"    // the run was stopped
)

// Result is one line of results.jsonl.
type Result struct {
	ID         string    `json:"id"`
	Domain     string    `json:"domain"`
	Status     string    `json:"status"`
	Score      float64   `json:"score"`
	Error      string    `json:"error,omitempty"`
	Steps      int       `json:"steps"`
	Attempts   int       `json:"attempts"`
	DurationMS int64     `json:"duration_ms"`
	SandboxMS  int64     `json:"sandbox_ms"` // of it, starting the sandbox
	LastAction string    `json:"last_action,omitempty"`
	Finished   time.Time `json:"finished"`
}

// infra marks a failure of the infrastructure, worth another attempt.
type infra struct{ err error }

func (e infra) Error() string { return e.err.Error() }
func (e infra) Unwrap() error { return e.err }

// Run runs tasks and returns every result of the run (resumed ones
// included). It returns early with ctx's error when ctx ends; the results
// written so far stay.
func Run(ctx context.Context, cfg Config, tasks []*task.Task) ([]Result, error) {
	if cfg.Parallel <= 0 {
		cfg.Parallel = 1
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 30
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Minute
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Out == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage("out: required")
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range tasks {
		if seen[t.ID] {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("tasks: id %q appears twice (%s)", t.ID, t.Path))
		}
		seen[t.ID] = true
	}
	resultsPath := filepath.Join(cfg.Out, "results.jsonl")
	var done []Result
	if cfg.Resume {
		var err error
		if done, err = ReadResults(resultsPath); err != nil {
			return nil, err
		}
	} else if _, err := os.Stat(resultsPath); err == nil {
		return nil, errdefs.ErrAlreadyExists.WithMessage(fmt.Sprintf("out: %s already holds a run; use --resume to finish it or choose another directory", cfg.Out))
	}
	// Tasks that ended on an infrastructure failure are tried again.
	finished := map[string]bool{}
	kept := done[:0]
	for _, r := range done {
		if r.Status != StatusInfraError && r.Status != StatusSetupError {
			finished[r.ID] = true
			kept = append(kept, r)
		}
	}
	done = kept
	f, err := os.OpenFile(resultsPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	var todo []*task.Task
	for _, t := range tasks {
		if !finished[t.ID] {
			todo = append(todo, t)
		}
	}
	p := &progress{w: cfg.Progress, term: cfg.Terminal, total: len(tasks), done: len(done)}
	var mu sync.Mutex
	results := append([]Result(nil), done...)
	work := make(chan *task.Task)
	var wg sync.WaitGroup
	for range min(cfg.Parallel, max(1, len(todo))) {
		wg.Go(func() {
			for t := range work {
				r := runTask(ctx, cfg, t)
				if r.Status == StatusCanceled {
					continue // not a result: --resume runs it again
				}
				mu.Lock()
				b, _ := json.Marshal(r)
				_, werr := f.Write(append(b, '\n'))
				if werr == nil {
					werr = f.Sync()
				}
				if werr != nil {
					cfg.Logger.Error("write result", "task", r.ID, "err", werr)
				}
				results = append(results, r)
				p.add(r)
				mu.Unlock()
			}
		})
	}
feed:
	for _, t := range todo {
		select {
		case work <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	p.finish()
	return results, ctx.Err()
}

// runTask runs one task, retrying infrastructure failures.
func runTask(ctx context.Context, cfg Config, t *task.Task) Result {
	start := time.Now()
	var r Result
	for attempt := 1; ; attempt++ {
		r = attemptTask(ctx, cfg, t)
		r.Attempts = attempt
		if ctx.Err() != nil {
			r.Status = StatusCanceled
			break
		}
		if r.Status != StatusInfraError && r.Status != StatusSetupError || attempt > cfg.Retries {
			break
		}
		cfg.Logger.Warn("retrying after an infrastructure failure", "task", t.ID, "attempt", attempt, "err", r.Error)
	}
	r.DurationMS = time.Since(start).Milliseconds()
	r.Finished = time.Now().UTC()
	return r
}

func attemptTask(ctx context.Context, cfg Config, t *task.Task) (r Result) {
	r = Result{ID: t.ID, Domain: t.Domain}
	tctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	dir := filepath.Join(cfg.Out, safeName(t.ID))
	_ = os.RemoveAll(dir) // an earlier attempt's
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Status, r.Error = StatusInfraError, err.Error()
		return r
	}
	traj, err := newTrajectory(dir)
	if err != nil {
		r.Status, r.Error = StatusInfraError, err.Error()
		return r
	}
	defer traj.close()

	sbStart := time.Now()
	sess, err := cfg.Manager.Create(tctx, wire.CreateSessionRequest{
		Provider: cfg.Provider, Image: cfg.Image, Screen: cfg.Screen, Dialect: cfg.Dialect,
		Labels: map[string]string{"dev.deskrun.task": safeName(t.ID)},
	})
	r.SandboxMS = time.Since(sbStart).Milliseconds()
	if err != nil {
		r.Status, r.Error = classify(tctx, err, StatusInfraError), "start sandbox: "+err.Error()
		return r
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_ = cfg.Manager.Delete(dctx, sess.ID())
		dcancel()
	}()
	if err := task.Setup(tctx, sess, t, cfg.TaskOptions); err != nil {
		r.Status, r.Error = classify(tctx, err, StatusSetupError), "setup: "+err.Error()
		return r
	}
	var history []agent.Turn
	last := ""
	for step := 0; step < cfg.MaxSteps; step++ {
		r.Steps = step
		shot, err := sess.Screenshot(tctx, wire.ScreenshotOptions{})
		if err != nil {
			r.Status, r.Error = classify(tctx, err, StatusInfraError), "screenshot: "+err.Error()
			return r
		}
		stepStart := time.Now()
		resp, err := cfg.Agent.Step(tctx, agent.Request{
			TaskID: t.ID, Instruction: t.Instruction, Step: step, Task: t, History: history,
			Observation: agent.Observation{Screenshot: shot.Data, Width: shot.Width, Height: shot.Height},
		})
		if err != nil {
			traj.add(step, shot.Data, nil, nil, err, time.Since(stepStart))
			r.Status, r.Error = classify(tctx, err, StatusAgentError), "agent: "+err.Error()
			return r
		}
		turn := agent.Turn{Step: step, Calls: resp.Calls}
		ended := false
		for _, c := range resp.Calls {
			dn := c.Dialect
			if dn == "" {
				dn = resp.Dialect
			}
			args := c.Args
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			res, err := sess.CallTool(tctx, dn, c.Tool, args)
			if err != nil {
				traj.add(step, shot.Data, resp.Calls, turn.Results, err, time.Since(stepStart))
				if errdefs.IsInvalidArgument(err) {
					r.Status, r.Error = StatusAgentError, "agent: "+err.Error()
				} else {
					r.Status, r.Error = classify(tctx, err, StatusInfraError), "tool "+c.Tool+": "+err.Error()
				}
				return r
			}
			turn.Results = append(turn.Results, agent.CallOutcome{Text: res.Text(), IsError: res.IsError})
			if res.Done {
				last = endAction(c)
				ended = true
				break
			}
		}
		traj.add(step, shot.Data, resp.Calls, turn.Results, nil, time.Since(stepStart))
		history = append(history, turn)
		r.Steps = step + 1
		if resp.Fail {
			last, ended = task.ActionFail, true
		} else if resp.Done && !ended {
			last, ended = task.ActionDone, true
		}
		if ended {
			break
		}
	}
	r.LastAction = last
	if tctx.Err() != nil {
		r.Status, r.Error = classify(tctx, tctx.Err(), StatusTimeout), "timed out"
		return r
	}
	ev, err := task.Evaluate(tctx, sess, t, task.EvalOptions{Options: cfg.TaskOptions, LastAction: last})
	if err != nil {
		r.Status, r.Error = classify(tctx, err, StatusInfraError), "evaluate: "+err.Error()
		return r
	}
	r.Score = ev.Score
	r.Status = StatusFailed
	if ev.Score >= 1 {
		r.Status = StatusPassed
	}
	return r
}

// classify names a failure: the task's own timeout, or else the given
// status.
func classify(tctx context.Context, err error, otherwise string) string {
	if errors.Is(tctx.Err(), context.DeadlineExceeded) && (errors.Is(err, context.DeadlineExceeded) || errdefs.IsDeadlineExceeded(err) || errors.Is(err, context.Canceled)) {
		return StatusTimeout
	}
	return otherwise
}

// endAction is the OSWorld action a call that ended the episode stands
// for: desktop_control's done or fail.
func endAction(c task.Call) string {
	var a struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(c.Args, &a)
	if strings.EqualFold(a.Action, "fail") {
		return task.ActionFail
	}
	return task.ActionDone
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
}

// ReadResults reads a results.jsonl; a missing file is an empty run. A
// torn last line (a crash mid-write) is ignored.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	at := map[string]int{} // a task's latest line wins
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == "" {
			continue
		}
		if i, ok := at[r.ID]; ok {
			out[i] = r
			continue
		}
		at[r.ID] = len(out)
		out = append(out, r)
	}
	return out, sc.Err()
}
