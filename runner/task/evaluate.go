package task

import (
	"context"
	"fmt"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task/metric"
)

// EvalOptions are the settings of [Evaluate].
type EvalOptions struct {
	Options
	// LastAction is the agent's last action: ActionDone, ActionFail, or
	// anything else (empty when the episode ended otherwise, e.g. at the
	// step limit). Only ActionFail matters: it scores an infeasible task
	// 1 and every other task 0.
	LastAction string
}

// Result is the outcome of grading one task.
type Result struct {
	// Score is in [0, 1]; fractional scores are kept.
	Score float64
	// Metrics has one entry per metric of the evaluator, in order.
	Metrics []MetricResult
}

// MetricResult is the outcome of one metric.
type MetricResult struct {
	Func  string
	Score float64
	// Detail says why a metric did not score 1, when it knows.
	Detail string
	// Skipped reports that the metric was not run: an earlier one
	// decided the result (0 under "and", 1 under "or"), or the agent
	// gave up.
	Skipped bool
}

// Evaluate grades the task's outcome in sb as OSWorld does: it runs the
// evaluator's postconfig steps, then for each metric the result and
// expected getters and the metric itself. Several metrics combine with
// conj: "and" stops at the first 0 and otherwise averages the scores
// (OSWorld's sum/len), "or" stops at the first 1 and otherwise takes the
// maximum. An agent whose last action was FAIL scores 1 on an infeasible
// task and 0 on any other.
//
// A metric that cannot read its input (a file that is not there, output
// of the wrong shape) scores 0 with a Detail. Evaluate returns an error
// when the sandbox cannot be reached, a postconfig step or a getter
// fails, or ctx ends (the task's deadline is grading's too: postconfig,
// getters and metrics share it); the error names the metric and what
// was running, and the Result is then zero.
//
// Evaluate is safe for concurrent use with different sandboxes.
func Evaluate(ctx context.Context, sb Sandbox, t *Task, opts EvalOptions) (Result, error) {
	r, done, err := newRun(sb, t, opts.Options)
	if err != nil {
		return Result{}, fmt.Errorf("evaluate task %q: %w", t.ID, err)
	}
	defer done()
	ev := t.Evaluator
	if err := r.steps(ctx, ev.Postconfig, "evaluator.postconfig"); err != nil {
		return Result{}, fmt.Errorf("evaluate task %q: %w", t.ID, err)
	}
	if len(ev.Postconfig) > 0 {
		if err := settleAfterPostconfig(ctx, sb); err != nil {
			return Result{}, fmt.Errorf("evaluate task %q: settle after evaluator.postconfig: %w", t.ID, err)
		}
	}
	failed := opts.LastAction == ActionFail
	if ev.Infeasible() {
		res := MetricResult{Func: "infeasible", Score: 1}
		if !failed {
			res.Score = 0
			res.Detail = "the task is infeasible and the agent did not answer FAIL"
		}
		return Result{Score: res.Score, Metrics: []MetricResult{res}}, nil
	}
	out := Result{Metrics: make([]MetricResult, len(ev.Func))}
	for i, name := range ev.Func {
		out.Metrics[i] = MetricResult{Func: name, Skipped: true}
	}
	if failed {
		out.Metrics[0].Detail = "the agent answered FAIL on a feasible task"
		return out, nil
	}
	var scores []float64
	for i, name := range ev.Func {
		m, err := r.metric(ctx, i)
		if err != nil {
			return Result{}, fmt.Errorf("evaluate task %q: %s: %w", t.ID, name, err)
		}
		m.Func = name
		out.Metrics[i] = m
		if !ev.List {
			out.Score = m.Score
			return out, nil
		}
		switch {
		case ev.Conj == "and" && m.Score == 0:
			return out, nil
		case ev.Conj == "or" && m.Score == 1:
			out.Score = 1
			return out, nil
		}
		scores = append(scores, m.Score)
	}
	if ev.Conj == "or" {
		for _, s := range scores {
			out.Score = max(out.Score, s)
		}
		return out, nil
	}
	sum := 0.0
	for _, s := range scores {
		sum += s
	}
	out.Score = sum / float64(len(scores))
	return out, nil
}

// Get runs one getter in sb as [Evaluate] runs a metric's result or
// expected getter (placeholders expanded, the same sandbox calls) and
// returns its value: nil for OSWorld's None, a string, a number, a list
// or an object; a fetched file is the host path of its copy in the cache
// folder. t gives the task's ID and folder (for cache_file and
// cloud_file). Files stay only when opts.CacheDir is set: without one the
// cache is a temporary folder removed before Get returns. It lets a
// caller see a getter's value itself, e.g. to set it beside OSWorld's own
// getter's for the same sandbox.
func Get(ctx context.Context, sb Sandbox, t *Task, g *Getter, opts Options) (any, error) {
	r, done, err := newRun(sb, t, opts)
	if err != nil {
		return nil, fmt.Errorf("getter of task %q: %w", t.ID, err)
	}
	defer done()
	v, err := r.get(ctx, g)
	if err != nil && g != nil {
		return nil, fmt.Errorf("getter %s: %w", g.Type, err)
	}
	return v, err
}

// metric runs metric i of the evaluator with its getters.
func (r *run) metric(ctx context.Context, i int) (MetricResult, error) {
	ev := r.t.Evaluator
	spec, ok := metric.Lookup(ev.Func[i])
	if !ok {
		return MetricResult{}, fmt.Errorf("unknown metric %q", ev.Func[i])
	}
	result, err := r.get(ctx, ev.Result[i])
	if err != nil {
		return MetricResult{}, fmt.Errorf("result getter %s: %w", ev.Result[i].Type, err)
	}
	expected, err := r.get(ctx, ev.Expected[i])
	if err != nil {
		return MetricResult{}, fmt.Errorf("expected getter %s: %w", ev.Expected[i].Type, err)
	}
	if err := ctx.Err(); err != nil {
		return MetricResult{}, fmt.Errorf("the task's time ran out in its getters: %w", err)
	}
	type scored struct {
		s      float64
		detail string
		err    error
	}
	ch := make(chan scored, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				ch <- scored{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		s, detail, err := spec.Score(ctx, metricSandbox{r}, result, expected, ev.Options[i])
		ch <- scored{s, detail, err}
	}()
	// The metric runs under the task's deadline: one that outlasts it
	// (a regex, a sequence ratio, a reader, a child process) is a
	// timeout, whatever it would have answered. The metrics that can run
	// long look at ctx and stop soon after.
	select {
	case o := <-ch:
		if err := ctx.Err(); err != nil {
			return MetricResult{}, fmt.Errorf("the task's time ran out while the metric ran: %w", err)
		}
		if o.err != nil {
			return MetricResult{}, o.err
		}
		return MetricResult{Score: o.s, Detail: o.detail}, nil
	case <-ctx.Done():
		return MetricResult{}, fmt.Errorf("the task's time ran out while the metric ran: %w", ctx.Err())
	}
}

// metricSandbox gives a metric that runs something in the sandbox the
// run's sandbox and exec settings.
type metricSandbox struct{ r *run }

func (s metricSandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	return s.r.sb.WriteFile(ctx, path, data)
}

func (s metricSandbox) Exec(ctx context.Context, argv []string, stdin string) (api.ExecResult, error) {
	return s.r.exec(ctx, argv, false, 0, stdin)
}

// Waiter is implemented by sandboxes that can wait for their desktop to
// settle (a runner session: a wait_idle action).
type Waiter interface {
	Input(ctx context.Context, actions []api.Action) (api.InputResult, error)
}

// Postconfig's settle: at most postconfigSettle for the desktop's
// programs to take in what the postconfig gave them (wait_idle with
// processes), then for no command typed into a terminal to run and the
// screen to be quiet for postconfigQuiet.
const (
	postconfigSettle = 10 * time.Second
	postconfigQuiet  = 200 * time.Millisecond
)

// settleAfterPostconfig waits, where sb can, until the desktop has
// reacted to the postconfig before the getters read it. OSWorld's
// postconfigs drive programs by keyboard with fixed waits made for its
// VM (activate a window, 0.5 s, Ctrl+S, 0.5 s); on a loaded host the
// program may still be working through the keys when those waits end,
// and the getter would read the file before it was saved. The wait ends
// as soon as the programs are quiet: on an idle desktop within about
// half a second.
func settleAfterPostconfig(ctx context.Context, sb Sandbox) error {
	return waitIdle(ctx, sb, api.Action{Type: api.ActionWaitIdle, MS: int(postconfigQuiet.Milliseconds()),
		TimeoutMS: int(postconfigSettle.Milliseconds()), Commands: true, Processes: true})
}

// waitIdle runs agentd's wait_idle a where sb can wait; it fails only
// when ctx ended (an agentd that cannot wait, an older image, leaves
// setup and grading as they were).
func waitIdle(ctx context.Context, sb Sandbox, a api.Action) error {
	w, ok := sb.(Waiter)
	if !ok {
		return nil
	}
	_, err := w.Input(ctx, []api.Action{a})
	if err != nil && ctx.Err() != nil {
		return err
	}
	return nil
}
