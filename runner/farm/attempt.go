package farm

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
)

// How an attempt's desktop was set up ([Result.Snapshot]).
const (
	// SnapshotSaved: the attempt ran its task's setup, then saved the
	// set-up desktop for the task's other trials and later runs.
	SnapshotSaved = "saved"
	// SnapshotRestored: the attempt started from its task's saved
	// desktop; it ran no setup.
	SnapshotRestored = "restored"
	// SnapshotForked: the attempt's sandbox is a fork of the task's
	// first trial's, taken once that was set up; it ran no setup.
	SnapshotForked = "forked"
)

// attempt is one attempt at a trial of a task: its folder, its session
// and the outcome so far. Its phases are open (the folder), start (a
// session with the task set up) and play (the agent, then grading).
type attempt struct {
	f   *farm
	j   job
	ctx context.Context // the run's
	// tctx is the attempt's time: the run's until the session is up,
	// then bounded by Config.Timeout.
	tctx   context.Context
	cancel context.CancelFunc
	o      outcome
	live   api.LiveTask
	traj   *trajectory
	opts   task.Options
	dir    string
	sess   *runner.Session
	// teardown deletes the session; never nil, safe once ctx ended.
	teardown func()
}

// attempt makes one attempt at j in a new session: restored from the
// task's saved desktop where there is one, else set up (and saved, with
// snapshots). teardown deletes the session; it is never nil and is safe
// to call when ctx has ended.
func (f *farm) attempt(ctx context.Context, j job) (o outcome, teardown func()) {
	a := f.newAttempt(ctx, j)
	defer a.close()
	if !a.open() || !a.start() {
		return a.o, a.teardown
	}
	return a.play(), a.teardown
}

func (f *farm) newAttempt(ctx context.Context, j job) *attempt {
	t := j.t
	a := &attempt{f: f, j: j, ctx: ctx, tctx: ctx, cancel: func() {}, teardown: func() {}}
	a.o.ID, a.o.Domain, a.o.Trial, a.o.Instruction = t.ID, t.Domain, j.trial, t.Instruction
	a.live = api.LiveTask{Task: a.o.Dir(), ID: t.ID, Instruction: t.Instruction, Phase: api.PhaseStarting, StartedAt: time.Now().UTC()}
	a.progress(api.PhaseStarting, 0)
	return a
}

// progress reports the attempt's phase and steps (Config.OnProgress).
func (a *attempt) progress(phase string, step int) {
	if a.f.cfg.OnProgress != nil {
		a.live.Phase, a.live.Step = phase, step
		a.f.cfg.OnProgress(Progress{LiveTask: a.live})
	}
}

// close ends the attempt's time and reports it over.
func (a *attempt) close() {
	a.cancel()
	if a.traj != nil {
		a.traj.close()
	}
	if a.f.cfg.OnProgress != nil {
		a.f.cfg.OnProgress(Progress{LiveTask: a.live, Ended: true})
	}
}

// fail sets the outcome of a failure and returns it: canceled when the
// run was stopped, a timeout when the attempt's time ran out, else
// status, retried when the error is the infrastructure's.
func (a *attempt) fail(status, what string, err error) outcome {
	o := &a.o
	if sk := task.SkipOf(err); sk != nil && a.ctx.Err() == nil {
		o.Status, o.Error = StatusSkipped, sk.Error()
		return *o
	}
	switch {
	case a.ctx.Err() != nil:
		o.canceled = true
	case a.tctx.Err() != nil:
		o.Status = StatusTimeout
		o.Error = fmt.Sprintf("timed out after %s (%s: %v)", a.f.cfg.Timeout, what, err)
		return *o
	case status == StatusInfraError || infrastructure(err):
		o.Status, o.retry = StatusInfraError, infrastructure(err)
	default:
		o.Status = status
	}
	o.Error = what + ": " + err.Error()
	return *o
}

// open clears the attempt's folder and opens its trajectory.
func (a *attempt) open() bool {
	cfg := a.f.cfg
	a.dir = filepath.Join(cfg.Out, a.o.Dir())
	if err := os.RemoveAll(a.dir); err != nil { // an earlier attempt's
		a.fail(StatusInfraError, "clear task folder", err)
		return false
	}
	traj, err := newTrajectory(a.dir)
	if err != nil {
		a.fail(StatusInfraError, "create trajectory", err)
		return false
	}
	a.traj = traj
	a.opts = cfg.TaskOptions
	a.opts.HostBytes = task.NewHostBytes(cfg.MaxTaskBytes, "a task", a.f.bytes)
	if a.opts.CacheDir == "" {
		a.opts.CacheDir = filepath.Join(a.dir, "cache")
	}
	return true
}

// labels are the labels of the attempt's session.
func (a *attempt) labels() map[string]string {
	labels := maps.Clone(a.f.cfg.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelTask] = a.o.Dir()
	return labels
}

// adopt makes sess the attempt's session; its time starts now (a
// sandbox waiting for room, a cluster's quota or nodes, is queued, not
// late: each provider bounds its own start).
func (a *attempt) adopt(sess *runner.Session) {
	cfg := a.f.cfg
	a.sess = sess
	a.live.Session = sess.ID()
	a.teardown = func() {
		// Long enough to save a video too.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(a.ctx), 2*time.Minute)
		defer dcancel()
		if err := cfg.Manager.Delete(dctx, sess.ID()); err != nil && !errdefs.IsNotFound(err) {
			cfg.Logger.WarnContext(a.ctx, "delete session", "task", a.j.t.ID, "session", sess.ID(), "err", err)
		}
	}
	a.tctx, a.cancel = context.WithTimeout(a.ctx, cfg.Timeout)
}

// start gives the attempt its session with the task set up: restored
// from the task's saved desktop, or a new sandbox set up, then saved
// when the run keeps snapshots and none is saved yet.
func (a *attempt) start() bool {
	cfg := a.f.cfg
	a.o.SnapshotError = a.f.snapsOff
	var plan snapPlan
	if a.f.snaps != nil {
		plan = a.f.snaps.plan(a.ctx, a.f, a.j.t)
		a.o.SnapshotError = plan.reason
	}
	if plan.saved != nil {
		began := time.Now()
		sess, err := cfg.Manager.CreateFrom(a.ctx, *plan.saved, a.labels())
		a.o.SandboxMS = since(began)
		if err == nil {
			a.adopt(sess)
			a.o.Snapshot = SnapshotRestored
			a.progress(api.PhaseSetup, 0)
			return true
		}
		if a.ctx.Err() != nil {
			a.fail(StatusInfraError, "restore the task's snapshot", err)
			return false
		}
		// The attempt goes on as one without a snapshot, and the next
		// trial saves a new one.
		a.f.snaps.drop(plan.key)
		a.o.SnapshotError = "restore: " + err.Error()
		cfg.Logger.WarnContext(a.ctx, "restore the task's snapshot", "task", a.j.t.ID, "err", err)
		plan = snapPlan{}
	}
	defer plan.done(errNotSaved) // unless saved below
	began := time.Now()
	sess, err := cfg.Manager.Create(a.ctx, api.CreateSessionRequest{
		Provider: cfg.Provider, Image: cfg.Image, Screen: cfg.Screen, Runtime: cfg.Runtime, Dialect: cfg.Dialect,
		Labels: a.labels(), Record: cfg.Record,
	})
	a.o.SandboxMS += since(began)
	if err != nil {
		if errdefs.IsInvalidArgument(err) || errdefs.IsNotFound(err) || errdefs.IsNotImplemented(err) {
			// A bad request, or one the image cannot serve (a recording
			// without ffmpeg): no retry.
			a.fail(StatusInfraError, "start sandbox", err)
			return false
		}
		o := a.fail(StatusInfraError, "start sandbox", err)
		a.o.retry = !o.canceled && o.Status == StatusInfraError
		return false
	}
	if cfg.Record {
		// Saved there when the session is deleted, by teardown.
		sess.RecordTo(filepath.Join(a.dir, RecordingFile))
		a.traj.videoStart = sess.Info().RecordingStartedAt
	}
	a.adopt(sess)
	a.progress(api.PhaseSetup, 0)
	began = time.Now()
	err = task.Setup(a.tctx, sess, a.j.t, a.opts)
	a.o.SetupMS = since(began)
	if err != nil {
		a.fail(StatusSetupError, "setup", err)
		return false
	}
	// What setup started draws asynchronously (a browser's window is
	// listed before its page is painted): the desktop gets the settle
	// time before the agent's first look too, as OSWorld's runners pause
	// after a reset.
	if len(a.j.t.Config) > 0 {
		ep := a.episode()
		settle := ep.settle
		if startsWindows(a.j.t) {
			settle = ep.settleLonger
		}
		if _, err := settle(a.tctx); err != nil {
			a.fail(StatusInfraError, "settle", err)
			return false
		}
	}
	if plan.key != "" {
		began = time.Now()
		err := a.f.snaps.save(a.tctx, plan.key, a.j.t, func(dir string) (runner.Saved, error) {
			return cfg.Manager.Save(a.tctx, sess.ID(), dir)
		})
		a.o.SnapshotMS = since(began)
		plan.done(err)
		if err != nil {
			a.o.SnapshotError = "save: " + err.Error()
			cfg.Logger.WarnContext(a.ctx, "save the task's snapshot", "task", a.j.t.ID, "err", err)
		} else {
			a.o.Snapshot = SnapshotSaved
		}
	}
	return true
}

// episode is the agent loop of the attempt.
func (a *attempt) episode() *episode {
	return &episode{f: a.f, t: a.j.t, sess: a.sess, traj: a.traj, o: &a.o, progress: a.progress}
}

// play lets the agent act on the set-up desktop, then grades it.
func (a *attempt) play() outcome {
	t := a.j.t
	ep := a.episode()
	a.progress(api.PhaseActing, 0)
	if err := ep.run(a.tctx); err != nil {
		return a.fail(ep.status, ep.what, err)
	}
	a.progress(api.PhaseGrading, ep.step)
	// Before grading: the settle after the agent's last step that drove
	// the desktop waited for its commands and the screen; grading also
	// waits for the desktop's programs to have taken in the agent's input
	// (a program starved of the processor on a loaded host draws nothing
	// while it works through the keys: the screen looks settled before
	// Ctrl+S has saved the file), and waits longer where the settle ran
	// out of time (a build typed last, say).
	if ep.unsettled || ep.drove {
		d := a.f.cfg.Settle
		if d > 0 && a.f.cfg.Quiet > 0 {
			d = max(d, 3*time.Second)
		}
		if _, err := ep.settleFor(a.tctx, a.f.cfg.Quiet, d, true); err != nil {
			return a.fail(StatusInfraError, "settle", err)
		}
	}

	// The screen as graded, for the report.
	if shot, err := ep.observe(a.tctx); err == nil {
		a.traj.final(ep.step, shot)
	}
	began := time.Now()
	res, err := task.Evaluate(a.tctx, a.sess, t, task.EvalOptions{Options: a.opts, LastAction: a.o.LastAction})
	a.o.EvalMS = since(began)
	if err != nil {
		return a.fail(StatusEvalError, "evaluate", err)
	}
	a.o.Score = res.Score
	a.o.Status = StatusFailed
	if res.Score >= 1 {
		a.o.Status = StatusPassed
	}
	var details []string
	for _, m := range res.Metrics {
		if m.Detail != "" {
			details = append(details, m.Func+": "+m.Detail)
		}
	}
	a.o.Detail = strings.Join(details, "; ")
	return a.o
}

// runForked runs the trials js of one task side by side (Config.ForkTrials):
// the first trial's session is set up (or restored), then forked into
// the others' (at most [api.MaxForkCount] per fork), and every trial is
// then played and graded on its own, retried as runTask retries. Trials
// left without a fork (the first's setup failed, the fork failed) run as
// runTask runs them, their results saying why.
func (f *farm) runForked(ctx context.Context, js []job, emit func(Result)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	alone := func(j job, why string) {
		wg.Go(func() {
			f.runAttempts(ctx, j, emit, func() (outcome, func()) {
				a := f.newAttempt(ctx, j)
				defer a.close()
				if !a.open() || !a.start() {
					return a.o, a.teardown
				}
				if a.o.SnapshotError == "" {
					a.o.SnapshotError = why
				}
				return a.play(), a.teardown
			})
		})
	}
	if js[0].t.Skip != nil {
		for _, j := range js {
			wg.Go(func() { f.runTask(ctx, j, emit) })
		}
		return
	}
	first := f.newAttempt(ctx, js[0])
	if !first.open() || !first.start() {
		o, teardown := first.o, first.teardown
		first.close()
		wg.Go(func() { f.runAttempts(ctx, js[0], emit, func() (outcome, func()) { return o, teardown }) })
		for _, j := range js[1:] {
			alone(j, "fork: the first trial's desktop was not set up: "+o.Error)
		}
		return
	}
	rest := js[1:]
	forks := make([]*runner.Session, len(rest))
	var forkErr error
	forkMS := make([]int64, len(rest))
	for i := 0; i < len(rest) && forkErr == nil; i += api.MaxForkCount {
		n := min(api.MaxForkCount, len(rest)-i)
		began := time.Now()
		res, err := f.cfg.Manager.Fork(first.tctx, first.sess.ID(), api.ForkRequest{Count: n})
		if err != nil {
			forkErr = err
			break
		}
		for k, info := range res.Sessions {
			s, err := f.cfg.Manager.Get(info.ID)
			if err != nil {
				forkErr = err
				break
			}
			forks[i+k], forkMS[i+k] = s, since(began)
		}
	}
	if forkErr != nil {
		f.cfg.Logger.WarnContext(ctx, "fork the first trial's sandbox", "task", js[0].t.ID, "err", forkErr)
	}
	wg.Go(func() {
		f.runAttempts(ctx, js[0], emit, func() (outcome, func()) {
			defer first.close()
			return first.play(), first.teardown
		})
	})
	for i, j := range rest {
		s := forks[i]
		if s == nil {
			alone(j, "fork: "+forkErr.Error())
			continue
		}
		wg.Go(func() {
			f.runAttempts(ctx, j, emit, func() (outcome, func()) {
				a := f.newAttempt(ctx, j)
				defer a.close()
				if !a.open() {
					td := func() { _ = f.cfg.Manager.Delete(context.WithoutCancel(ctx), s.ID()) }
					return a.o, td
				}
				a.adopt(s)
				a.o.Snapshot, a.o.SandboxMS = SnapshotForked, forkMS[i]
				a.progress(api.PhaseSetup, 0)
				return a.play(), a.teardown
			})
		})
	}
}
