package farm

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/task"
)

// A session is what tasks set up and grade on: a sandbox with its admin
// channel.
var (
	_ task.Sandbox     = (*runner.Session)(nil)
	_ task.AdminExecer = (*runner.Session)(nil)
)

// LabelTask is the session label naming the task a sandbox runs.
const LabelTask = "dev.deskrun.task"

// episode is the agent loop of one attempt.
type episode struct {
	f    *farm
	t    *task.Task
	sess *runner.Session
	traj *trajectory
	o    *outcome
	step int // steps taken
	// progress reports the attempt's phase and steps.
	progress func(phase string, step int)

	// status and what classify run's error.
	status, what string
	// unsettled is true when the settle after the last step that drove
	// the desktop ran out of time: grading waits longer for it.
	unsettled bool
	// drove is true once a step of the agent has driven the desktop.
	drove bool
}

// offScreen are the tools that run to their end without driving the
// desktop (commands run by agentd and file edits): the farm does not wait
// for the screen after them. A command they start in the background and
// that draws later is not waited for, as with any fixed pause.
var offScreen = map[string]bool{
	"bash": true, "str_replace_based_edit_tool": true, "str_replace_editor": true, // anthropic
	"shell_exec": true, "shell_view": true, "shell_wait": true, "shell_write_to_process": true, // sandbox
	"shell_kill_process": true, "file_read": true, "file_write": true, "file_str_replace": true,
	"image_view": true, "expose_port": true,
	"screenshot": true, "zoom": true, "cursor_position": true, "read_clipboard": true, // observations
}

// drivesDesktop reports whether a call of tool (in dialect, or the
// response's dialect when the call names none) may change the screen.
func drivesDesktop(dialect, respDialect, tool string) bool {
	if dialect == "" {
		dialect = respDialect
	}
	switch dialect {
	case "anthropic", "sandbox", "":
		return !offScreen[tool]
	}
	return true
}

// run lets the agent act until it ends the episode or runs out of steps.
// It sets the outcome's Steps, LastAction, StepLimit and timings.
func (ep *episode) run(ctx context.Context) error {
	cfg := ep.f.cfg
	var history []agent.Turn
	var state any
	obsType := ""
	if ot, ok := cfg.Agent.(agent.ObservationTyper); ok {
		obsType = ot.ObservationType()
	}
	for ep.step < cfg.MaxSteps {
		obs, err := ep.observe(ctx)
		if err != nil {
			ep.status, ep.what = StatusInfraError, "screenshot"
			return err
		}
		observation := agent.Observation{Screenshot: obs.Data, Width: obs.Width, Height: obs.Height}
		if err := ep.observeTree(ctx, obsType, &observation); err != nil {
			ep.status, ep.what = StatusInfraError, "observation"
			return err
		}
		rec := StepRecord{Step: ep.step, Time: time.Now().UTC()}
		rec.Screenshot = ep.traj.screenshot(fmt.Sprintf("step-%03d", ep.step), obs)
		rec.Width, rec.Height = obs.Width, obs.Height

		began := time.Now()
		resp, err := cfg.Agent.Step(ctx, agent.Request{
			TaskID: ep.t.ID, Instruction: ep.t.Instruction, Step: ep.step, Task: ep.t,
			Observation: observation,
			History:     history, State: state,
		})
		rec.AgentMS = since(began)
		ep.o.AgentMS += rec.AgentMS
		if err != nil {
			rec.Error = "agent: " + err.Error()
			ep.traj.add(rec)
			ep.status, ep.what = StatusAgentError, "agent"
			return err
		}
		state = resp.State
		if resp.ObservationType != "" {
			obsType = resp.ObservationType
		}
		rec.Text, rec.Calls, rec.Done, rec.Fail = resp.Text, resp.Calls, resp.Done, resp.Fail
		if resp.Usage != nil {
			rec.Usage = resp.Usage
			ep.o.addUsage(*resp.Usage, cfg.Prices)
		}
		turn := agent.Turn{Step: ep.step, Calls: resp.Calls}
		ended := ""
		endedByCall := false
		began = time.Now()
		for _, c := range resp.Calls {
			dn := c.Dialect
			if dn == "" {
				dn = resp.Dialect
			}
			res, err := ep.sess.CallTool(ctx, dn, c.Tool, c.Args)
			if err != nil {
				rec.ToolsMS = since(began)
				ep.o.ToolsMS += rec.ToolsMS
				rec.Results = turn.Results
				rec.Error = fmt.Sprintf("tool %s: %v", c.Tool, err)
				ep.traj.add(rec)
				ep.o.Steps = ep.step + 1
				ep.status, ep.what = StatusInfraError, "tool "+c.Tool
				if errdefs.IsInvalidArgument(err) { // an unknown dialect
					ep.status, ep.what = StatusAgentError, "agent"
				}
				return err
			}
			turn.Results = append(turn.Results, outcomeOf(res))
			if res.Done { // osworld's done or fail
				ended, endedByCall = endAction(c, res), true
				break
			}
		}
		rec.ToolsMS = since(began)
		ep.o.ToolsMS += rec.ToolsMS
		rec.Results = turn.Results
		ep.traj.add(rec)
		history = append(history, turn)
		ep.step++
		ep.o.Steps = ep.step
		ep.progress(api.PhaseActing, ep.step)
		switch {
		case ended != "":
		case resp.Fail:
			ended = task.ActionFail
		case resp.Done:
			ended = task.ActionDone
		}
		// Calls that drove the desktop (all but those that run to their end
		// off screen, and one that only ended the episode) get the desktop
		// time to react before it is looked at again.
		calls := resp.Calls[:min(len(turn.Results), len(resp.Calls))]
		if endedByCall {
			calls = calls[:len(calls)-1]
		}
		if slices.ContainsFunc(calls, func(c task.Call) bool { return drivesDesktop(c.Dialect, resp.Dialect, c.Tool) }) {
			ep.drove = true
			settled, err := ep.settle(ctx)
			if err != nil {
				ep.status, ep.what = StatusInfraError, "settle"
				return err
			}
			ep.unsettled = !settled
		}
		if ended != "" {
			ep.o.LastAction = ended
			return nil
		}
	}
	ep.o.StepLimit = true
	return nil
}

// settle gives the desktop time to react to the last input: until
// nothing on the screen changed for cfg.Quiet and no command typed into
// a terminal still runs, at most cfg.Settle, or the fixed cfg.Settle when
// Quiet is negative.
func (ep *episode) settle(ctx context.Context) (bool, error) {
	return ep.settleFor(ctx, ep.f.cfg.Quiet, ep.f.cfg.Settle, false)
}

// settleLonger is the settle after a setup that started programs, whose
// windows may not draw at once (a quiet screen while an application
// loads is not a settled one): the desktop's programs quiet, within
// setupSettle, then the settle of a step with a quiet screen of at least
// half a second, within at least three seconds. With fixed pauses it is
// the same pause.
func (ep *episode) settleLonger(ctx context.Context) (bool, error) {
	q, d := ep.f.cfg.Quiet, ep.f.cfg.Settle
	if q <= 0 || d <= 0 {
		return ep.settleFor(ctx, q, d, true)
	}
	began := time.Now()
	_, err := ep.sess.Input(ctx, []api.Action{{Type: api.ActionWaitIdle, MS: 1, TimeoutMS: int(setupSettle.Milliseconds()), Processes: true}})
	ep.o.SettleMS += since(began)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		ep.f.cfg.Logger.Debug("waiting for the desktop's programs failed", "err", err)
	}
	return ep.settleFor(ctx, max(q, 500*time.Millisecond), max(d, 3*time.Second), false)
}

// setupSettle bounds the wait for the desktop's programs to go quiet
// after a setup that started programs. OSWorld's runner pauses 60 s
// after each reset before the agent's first look (lib_run_single.py);
// a loaded host needs that kind of time for LibreOffice to finish
// loading a document after its window shows (seen: the toolbars still
// drawing 5 s after, and the text a postconfig typed then lost, in 4 of
// 8 Writer tasks at --parallel 8 on 2 cores, when this wait was 3 s).
// The wait ends as soon as the programs are quiet (a program waiting,
// as a command left running in a terminal does, is quiet): on an idle
// host within a second. 45 s keeps it inside a session call's bound.
const setupSettle = 45 * time.Second

// startsWindows reports whether t's setup starts programs that may open
// windows (launch, open, a browser's tabs) rather than only preparing
// files and running commands to their end.
func startsWindows(t *task.Task) bool {
	for _, st := range t.Config {
		switch st.Type {
		case "launch", "open", "chrome_open_tabs", "activate_window":
			return true
		}
	}
	return false
}

// settleFor waits until no command typed into a terminal runs and the
// screen was quiet for quiet (first, with processes, until the desktop's
// programs are quiet: wait_idle's processes), at most deadline, and
// reports whether that happened; with a quiet of zero or less it pauses
// for deadline.
func (ep *episode) settleFor(ctx context.Context, quiet, deadline time.Duration, processes bool) (bool, error) {
	if deadline <= 0 {
		return true, nil
	}
	began := time.Now()
	defer func() { ep.o.SettleMS += since(began) }()
	if q := quiet; q > 0 {
		res, err := ep.sess.Input(ctx, []api.Action{{Type: api.ActionWaitIdle, MS: max(1, int(q.Milliseconds())), TimeoutMS: int(deadline.Milliseconds()), Commands: true, Processes: processes}})
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err == nil {
			return len(res.Results) == 1 && res.Results[0].Settled != nil && *res.Results[0].Settled, nil
		}
		// An agentd without wait_idle (an older image): pause instead.
		ep.f.cfg.Logger.Debug("settled wait failed; pausing instead", "err", err)
	}
	t := time.NewTimer(deadline)
	defer t.Stop()
	select {
	case <-t.C:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// shot is an observation.
type shot struct {
	Data          []byte
	MIMEType      string
	Width, Height int
}

// observe takes the agent's observation: a screenshot, or the image of
// the agent's observation call ([agent.Observer]).
func (ep *episode) observe(ctx context.Context) (shot, error) {
	began := time.Now()
	defer func() { ep.o.ObserveMS += since(began) }()
	if ob, ok := ep.f.cfg.Agent.(agent.Observer); ok {
		c := ob.ObservationCall()
		res, err := ep.sess.CallTool(ctx, c.Dialect, c.Tool, c.Args)
		if err != nil {
			return shot{}, err
		}
		for _, p := range res.Content {
			if p.Type == "image" {
				return shot{Data: p.Data, MIMEType: p.MIMEType, Width: p.Width, Height: p.Height}, nil
			}
		}
		return shot{}, fmt.Errorf("observation call %s/%s returned no image: %s", c.Dialect, c.Tool, res.Text())
	}
	sh, err := ep.sess.Screenshot(ctx, api.ScreenshotOptions{Format: api.FormatPNG})
	if err != nil {
		return shot{}, err
	}
	return shot{Data: sh.Data, MIMEType: "image/png", Width: sh.Width, Height: sh.Height}, nil
}

// observeTree adds what the observation type asks for beyond the
// screenshot: OSWorld's XML tree and the element list, or the screenshot
// with the elements marked. A desktop without an accessibility tree is no
// failure of the task: the observation says why it has none.
func (ep *episode) observeTree(ctx context.Context, typ string, o *agent.Observation) error {
	if typ == "" || typ == agent.ObserveScreenshot {
		return nil
	}
	began := time.Now()
	defer func() { ep.o.ObserveMS += since(began) }()
	if typ == agent.ObserveSetOfMarks {
		m, err := ep.sess.SetOfMarks(ctx, "", 0)
		if err != nil {
			return treeError(ctx, err, o)
		}
		o.Screenshot, o.Width, o.Height = m.Image, m.Width, m.Height
		o.Elements, o.AccessibilityPartial = m.List, m.Partial
		return nil
	}
	x, err := ep.sess.AccessibilityXML(ctx, "")
	if err != nil {
		return treeError(ctx, err, o)
	}
	// the list comes from the tree just read (agentd's cache)
	l, err := ep.sess.Accessibility(ctx, api.A11yList, "")
	if err != nil {
		return treeError(ctx, err, o)
	}
	o.AccessibilityTree, o.Elements, o.AccessibilityPartial = x, l.List, l.Partial
	return nil
}

// treeError records why the tree is missing. The screenshot was just
// taken, so the sandbox answers: a lost one fails the next screenshot.
func treeError(ctx context.Context, err error, o *agent.Observation) error {
	if ctx.Err() != nil {
		return err
	}
	o.AccessibilityError = err.Error()
	return nil
}

// endAction is the OSWorld action a call that ended the episode stands
// for, DONE or FAIL, as the osworld dialect's step envelope reports it
// (info.fail), else as the call's arguments say.
func endAction(c task.Call, res dialect.Result) string {
	var env struct {
		Info map[string]any `json:"info"`
	}
	if json.Unmarshal([]byte(res.Text()), &env) == nil && env.Info != nil {
		if env.Info["fail"] == true {
			return task.ActionFail
		}
		return task.ActionDone
	}
	var a struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(c.Args, &a)
	if strings.EqualFold(a.Action, "fail") {
		return task.ActionFail
	}
	return task.ActionDone
}

// outcomeOf is what the agent is told a call returned.
func outcomeOf(res dialect.Result) agent.CallOutcome {
	out := agent.CallOutcome{Text: res.Text(), IsError: res.IsError}
	for _, p := range res.Content {
		if p.Type == "image" {
			out.Images = append(out.Images, agent.Image{MIMEType: p.MIMEType, Data: p.Data, Width: p.Width, Height: p.Height})
		}
	}
	return out
}

func since(t time.Time) int64 { return time.Since(t).Milliseconds() }
