package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// hermes is hermes-agent's single computer_use tool (seeds/001): an
// `action` discriminator, pixel coordinates in the screen space a vision
// capture reports, modifiers, drag, scroll, key combos and capture_after.
// On a desktop that reads accessibility trees (Accessible, agentd's
// AT-SPI) capture defaults to mode som (the screenshot with numbered
// marks and the element list) and takes mode ax (the list alone), app and
// max_elements; click, drag and set_value take element indexes of the last
// capture (hermes_ax.go). Elsewhere those calls answer "not available"
// rather than guess.
type hermes struct{}

func (hermes) Name() string { return "hermes" }

func (hermes) Tools() []tool.Definition { return slices.Clone(toolsOf("hermes")) }

const hermesToolName = "computer_use"

// errNoAX is the answer to everything that needs an accessibility tree.
const errNoAX = "not available: this desktop has no accessibility tree yet, so %s cannot be used; " +
	"capture with mode='vision' and target pixel coordinates instead"

func (h hermes) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == infoToolName {
		return toolInfo(h, args), nil
	}
	m, err := checkArgs(h, name, args)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	act, _ := m["action"].(string)
	switch act {
	case "list_apps", "focus_app":
		return h.apps(ctx, d, act, m)
	}
	if ax, ok := d.(Accessible); ok {
		if r, done, err := h.accessible(ctx, d, ax, st, act, m); done {
			return r, err
		}
	}
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	plan, err := h.compile(name, args, e)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	res, err := st.execute(ctx, d, plan)
	if err != nil || res.IsError {
		return res, err
	}
	for i, p := range res.Content {
		if p.Type == "image" {
			meta, _ := json.Marshal(map[string]any{"mode": "vision", "width": p.Width, "height": p.Height})
			res.Content = append(res.Content[:i:i], append([]Part{{Type: "text", Text: string(meta)}}, res.Content[i:]...)...)
			break
		}
	}
	return res, nil
}

// compile turns a computer_use call (other than list_apps and focus_app)
// into a plan. It is pure.
func (h hermes) compile(name string, args json.RawMessage, e env) (Plan, error) {
	m, err := checkArgs(h, name, args)
	if err != nil {
		return Plan{}, err
	}
	act, _ := m["action"].(string)
	capture := Step{Op: opScreenshot, Capture: &Capture{Remember: true}}
	for _, f := range []string{"element", "from_element", "to_element"} {
		if _, ok := m[f]; ok && act != "capture" {
			return Plan{}, toolErrorf(errNoAX, "targeting by "+f)
		}
	}
	var mods []string
	for _, it := range asList(m["modifiers"]) {
		s, _ := it.(string)
		k, err := comboKey(s, true)
		if err != nil {
			return Plan{}, toolErrorf("modifiers: %v", err)
		}
		// Several names are one key (alt and option; cmd, win,
		// windows, super and meta): each key is held once.
		if !slices.Contains(mods, k) {
			mods = append(mods, k)
		}
	}
	f, ok := hermesActions[act]
	if !ok {
		return Plan{}, toolErrorf("unknown action %q", act)
	}
	c := &hermesCall{act: act, m: m, e: e, mods: mods, capture: capture}
	actions, plan, err := f(c)
	if err != nil {
		return Plan{}, err
	}
	if plan != nil {
		return *plan, nil
	}
	mods = c.mods
	var steps []Step
	if len(mods) > 0 {
		var wrapped []api.Action
		for _, k := range mods {
			wrapped = append(wrapped, api.Action{Type: api.ActionKeyDown, Key: k})
		}
		wrapped = append(wrapped, actions...)
		for i := len(mods) - 1; i >= 0; i-- {
			wrapped = append(wrapped, api.Action{Type: api.ActionKeyUp, Key: mods[i]})
		}
		actions = wrapped
	}
	if len(actions) > 0 {
		steps = append(steps, inputStep(actions...))
	}
	steps = append(steps, textStep("OK"))
	if after, _ := m["capture_after"].(bool); after {
		steps = append(steps, Step{Op: opScreenshot, Capture: &Capture{Remember: true, Settle: true}})
	}
	return Plan{Steps: steps}, nil
}

// hermesCall is one computer_use action being compiled: its arguments,
// and the modifiers held around it (key consumes them itself).
type hermesCall struct {
	act     string
	m       map[string]any
	e       env
	mods    []string
	capture Step
}

// point converts a coordinate field to screen pixels; absent is nil.
func (c *hermesCall) point(field string) (*api.Point, error) {
	v := floats(c.m[field])
	if v == nil {
		return nil, nil
	}
	p, err := c.e.toScreen(screenSpace, v[0], v[1])
	if err != nil {
		return nil, toolErrorf("%s: %v", field, err)
	}
	return &p, nil
}

// hermesActions compiles each action of computer_use (but list_apps and
// focus_app, which read the window list): the core actions to run with
// the modifiers held, or a whole plan.
var hermesActions = map[string]func(c *hermesCall) ([]api.Action, *Plan, error){
	"capture":      hermesCapture,
	"click":        hermesClick,
	"double_click": hermesClick,
	"right_click":  hermesClick,
	"middle_click": hermesClick,
	"drag":         hermesDrag,
	"scroll":       hermesScroll,
	"type":         hermesType,
	"key":          hermesKey,
	"set_value":    hermesSetValue,
	"wait":         hermesWait,
}

func hermesCapture(c *hermesCall) ([]api.Action, *Plan, error) {
	var steps []Step
	mode, _ := c.m["mode"].(string)
	switch mode {
	case "som", "ax":
		return nil, nil, toolErrorf(errNoAX, "capture mode '"+mode+"'")
	case "":
		steps = append(steps, textStep("mode 'som' (the default) is not available without an accessibility tree; this is a plain 'vision' capture."))
	}
	if app, _ := c.m["app"].(string); app != "" {
		steps = append(steps, textStep(fmt.Sprintf("app %q: captures cover the whole screen.", app)))
	}
	return nil, &Plan{Steps: append(steps, c.capture)}, nil
}

// hermesClick compiles click, double_click, right_click and middle_click.
func hermesClick(c *hermesCall) ([]api.Action, *Plan, error) {
	p, err := c.point("coordinate")
	if err != nil {
		return nil, nil, err
	}
	if p == nil {
		return nil, nil, toolErrorf("%s needs coordinate [x, y] (element targeting is not available)", c.act)
	}
	click := api.Action{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: &p.X, Y: &p.Y}
	if b, _ := c.m["button"].(string); b != "" {
		click.Button = b
	}
	switch c.act {
	case "double_click":
		click.Count = 2
	case "right_click":
		click.Button = api.ButtonRight
	case "middle_click":
		click.Button = api.ButtonMiddle
	}
	return []api.Action{click}, nil, nil
}

func hermesDrag(c *hermesCall) ([]api.Action, *Plan, error) {
	from, err := c.point("from_coordinate")
	if err != nil {
		return nil, nil, err
	}
	to, err := c.point("to_coordinate")
	if err != nil {
		return nil, nil, err
	}
	if from == nil || to == nil {
		return nil, nil, toolErrorf("drag needs from_coordinate and to_coordinate (element targeting is not available)")
	}
	button, _ := c.m["button"].(string)
	return []api.Action{{Type: api.ActionDrag, Button: button, Path: [][2]int{{from.X, from.Y}, {to.X, to.Y}}}}, nil, nil
}

func hermesScroll(c *hermesCall) ([]api.Action, *Plan, error) {
	dir, _ := c.m["direction"].(string)
	if dir == "" {
		return nil, nil, toolErrorf("scroll needs direction (up, down, left or right)")
	}
	n := 3
	if f, ok := number(c.m["amount"]); ok {
		n = int(f)
	}
	if n < 0 || n > api.MaxScroll {
		return nil, nil, toolErrorf("amount must be between 0 and %d, got %d", api.MaxScroll, n)
	}
	s := api.Action{Type: api.ActionScroll}
	switch dir {
	case "up":
		s.DY = -n
	case "down":
		s.DY = n
	case "left":
		s.DX = -n
	case "right":
		s.DX = n
	}
	p, err := c.point("coordinate")
	if err != nil {
		return nil, nil, err
	}
	if p != nil {
		s.X, s.Y = &p.X, &p.Y
	}
	if n == 0 {
		return nil, nil, nil
	}
	return []api.Action{s}, nil, nil
}

func hermesType(c *hermesCall) ([]api.Action, *Plan, error) {
	text, ok := c.m["text"].(string)
	if !ok {
		return nil, nil, toolErrorf("type needs text")
	}
	return typeActions(text), nil, nil
}

// hermesKey presses each combo of keys with the modifiers pressed in it,
// so the modifiers are not held around it again.
func hermesKey(c *hermesCall) ([]api.Action, *Plan, error) {
	keys, _ := c.m["keys"].(string)
	if strings.TrimSpace(keys) == "" {
		return nil, nil, toolErrorf("key needs keys, e.g. 'ctrl+s' or 'return'")
	}
	combos, err := parseComboSequence(keys, true)
	if err != nil {
		return nil, nil, toolErrorf("keys: %v", err)
	}
	var actions []api.Action
	for _, combo := range combos {
		keys := slices.Clone(c.mods)
		for _, k := range combo {
			if !slices.Contains(c.mods, k) {
				keys = append(keys, k)
			}
		}
		actions = append(actions, api.Action{Type: api.ActionKey, Keys: keys})
	}
	c.mods = nil
	return actions, nil, nil
}

func hermesSetValue(*hermesCall) ([]api.Action, *Plan, error) {
	return nil, nil, toolErrorf(errNoAX, "set_value")
}

func hermesWait(c *hermesCall) ([]api.Action, *Plan, error) {
	secs := 1.0
	if f, ok := number(c.m["seconds"]); ok {
		secs = f
	}
	if secs < 0 || secs > 30 {
		return nil, nil, toolErrorf("seconds must be between 0 and 30, got %s", fmtCoord(secs))
	}
	return waitActions(secs), nil, nil
}

// apps answers list_apps and focus_app from the applications on the
// accessibility bus (their names and pids) and the window list (their
// windows, by pid), either alone when the desktop has only one of them.
func (hermes) apps(ctx context.Context, d Desktop, act string, m map[string]any) (Result, error) {
	wm, hasWM := d.(WindowManager)
	lister, hasApps := d.(AppLister)
	if !hasWM {
		return errorResult(fmt.Sprintf("%s is not available: this desktop does not list its windows", act)), nil
	}
	wins, err := wm.Windows(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list windows: %w", err)
	}
	var accs []api.App
	if hasApps {
		// without an accessibility bus the windows alone answer
		accs, _ = lister.Apps(ctx)
	}
	if act == "list_apps" {
		return jsonResult(map[string]any{"apps": appList(accs, wins)}), nil
	}
	name, _ := m["app"].(string)
	if strings.TrimSpace(name) == "" {
		return errorResult("focus_app needs app, the application's name"), nil
	}
	w, ok := appWindow(accs, wins, name)
	if !ok {
		return errorResult(fmt.Sprintf("no open window belongs to an application matching %q; list_apps shows the open ones", name)), nil
	}
	if err := wm.ActivateWindow(ctx, w.ID); err != nil {
		if refused(err) {
			return errorResult(err.Error()), nil
		}
		return Result{}, fmt.Errorf("activate window: %w", err)
	}
	return textResult(fmt.Sprintf("Focused %q.", w.Title)), nil
}

// listedApp is one application of list_apps.
type listedApp struct {
	Name    string   `json:"name"`
	PID     int      `json:"pid,omitempty"`
	Windows []string `json:"windows"`
	Active  bool     `json:"active"`
	// Accessible says the application publishes its accessibility tree:
	// capture with app= reads its elements.
	Accessible bool `json:"accessible,omitempty"`
}

// appList names the applications of the accessibility bus with their
// windows (same pid), then groups the other windows by class.
func appList(accs []api.App, wins []api.Window) []listedApp {
	byPID := map[int]*listedApp{}
	byName := map[string]*listedApp{}
	var out []*listedApp
	for _, a := range accs {
		if a.Name == "" && a.PID == 0 {
			continue
		}
		if a.PID != 0 && byPID[a.PID] != nil {
			continue
		}
		l := &listedApp{Name: a.Name, PID: a.PID, Windows: []string{}, Accessible: true}
		if a.PID != 0 {
			byPID[a.PID] = l
		}
		out = append(out, l)
	}
	for _, w := range wins {
		l := byPID[w.PID]
		if w.PID == 0 || l == nil {
			n := w.Class
			if n == "" {
				n = w.Title
			}
			l = byName[n]
			if l == nil {
				l = &listedApp{Name: n, PID: w.PID, Windows: []string{}}
				byName[n] = l
				out = append(out, l)
			}
		}
		if l.Name == "" {
			l.Name = w.Class
		}
		l.Windows = append(l.Windows, w.Title)
		l.Active = l.Active || w.Active
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	list := make([]listedApp, len(out))
	for i, l := range out {
		list[i] = *l
	}
	return list
}

// appWindow finds the window focus_app activates: a window of the
// accessibility bus's application whose name contains name (its active
// window first), else a window whose title or class does.
func appWindow(accs []api.App, wins []api.Window, name string) (api.Window, bool) {
	low := strings.ToLower(strings.TrimSpace(name))
	var found *api.Window
	for _, a := range accs {
		if a.PID == 0 || !strings.Contains(strings.ToLower(a.Name), low) {
			continue
		}
		for i, w := range wins {
			if w.PID == a.PID && (found == nil || w.Active) {
				found = &wins[i]
			}
		}
	}
	if found != nil {
		return *found, true
	}
	return matchWindow(wins, name)
}

func asList(v any) []any { l, _ := v.([]any); return l }
