package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner/tool"
)

// hermes is hermes-agent's single computer_use tool (seeds/001): an
// `action` discriminator, pixel coordinates in the screen space a vision
// capture reports, modifiers, drag, scroll, key combos and capture_after.
// Targeting by accessibility element (SOM index, mode som or ax,
// set_value) needs an accessibility tree, which deskrun does not have
// yet: those calls answer a "not available" error rather than guess.
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
	switch act, _ := m["action"].(string); act {
	case "list_apps", "focus_app":
		return h.apps(ctx, d, act, m)
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
	point := func(field string) (*wire.Point, error) {
		c := floats(m[field])
		if c == nil {
			return nil, nil
		}
		p, err := e.toScreen(screenSpace, c[0], c[1])
		if err != nil {
			return nil, toolErrorf("%s: %v", field, err)
		}
		return &p, nil
	}
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
	var actions []wire.Action
	var steps []Step
	switch act {
	case "capture":
		mode, _ := m["mode"].(string)
		switch mode {
		case "som", "ax":
			return Plan{}, toolErrorf(errNoAX, "capture mode '"+mode+"'")
		case "":
			steps = append(steps, textStep("mode 'som' (the default) is not available without an accessibility tree; this is a plain 'vision' capture."))
		}
		if app, _ := m["app"].(string); app != "" {
			steps = append(steps, textStep(fmt.Sprintf("app %q: captures cover the whole screen.", app)))
		}
		return Plan{Steps: append(steps, capture)}, nil
	case "click", "double_click", "right_click", "middle_click":
		p, err := point("coordinate")
		if err != nil {
			return Plan{}, err
		}
		if p == nil {
			return Plan{}, toolErrorf("%s needs coordinate [x, y] (element targeting is not available)", act)
		}
		click := wire.Action{Type: wire.ActionClick, Button: wire.ButtonLeft, Count: 1, X: &p.X, Y: &p.Y}
		if b, _ := m["button"].(string); b != "" {
			click.Button = b
		}
		switch act {
		case "double_click":
			click.Count = 2
		case "right_click":
			click.Button = wire.ButtonRight
		case "middle_click":
			click.Button = wire.ButtonMiddle
		}
		actions = []wire.Action{click}
	case "drag":
		from, err := point("from_coordinate")
		if err != nil {
			return Plan{}, err
		}
		to, err := point("to_coordinate")
		if err != nil {
			return Plan{}, err
		}
		if from == nil || to == nil {
			return Plan{}, toolErrorf("drag needs from_coordinate and to_coordinate (element targeting is not available)")
		}
		button, _ := m["button"].(string)
		actions = []wire.Action{{Type: wire.ActionDrag, Button: button, Path: [][2]int{{from.X, from.Y}, {to.X, to.Y}}}}
	case "scroll":
		dir, _ := m["direction"].(string)
		if dir == "" {
			return Plan{}, toolErrorf("scroll needs direction (up, down, left or right)")
		}
		n := 3
		if f, ok := number(m["amount"]); ok {
			n = int(f)
		}
		if n < 0 || n > wire.MaxScroll {
			return Plan{}, toolErrorf("amount must be between 0 and %d, got %d", wire.MaxScroll, n)
		}
		s := wire.Action{Type: wire.ActionScroll}
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
		p, err := point("coordinate")
		if err != nil {
			return Plan{}, err
		}
		if p != nil {
			s.X, s.Y = &p.X, &p.Y
		}
		if n > 0 {
			actions = []wire.Action{s}
		}
	case "type":
		text, ok := m["text"].(string)
		if !ok {
			return Plan{}, toolErrorf("type needs text")
		}
		actions = typeActions(text)
	case "key":
		keys, _ := m["keys"].(string)
		if strings.TrimSpace(keys) == "" {
			return Plan{}, toolErrorf("key needs keys, e.g. 'ctrl+s' or 'return'")
		}
		combos, err := parseComboSequence(keys, true)
		if err != nil {
			return Plan{}, toolErrorf("keys: %v", err)
		}
		for _, c := range combos {
			keys := slices.Clone(mods)
			for _, k := range c {
				if !slices.Contains(mods, k) {
					keys = append(keys, k)
				}
			}
			actions = append(actions, wire.Action{Type: wire.ActionKey, Keys: keys})
		}
		mods = nil
	case "set_value":
		return Plan{}, toolErrorf(errNoAX, "set_value")
	case "wait":
		secs := 1.0
		if f, ok := number(m["seconds"]); ok {
			secs = f
		}
		if secs < 0 || secs > 30 {
			return Plan{}, toolErrorf("seconds must be between 0 and 30, got %s", fmtCoord(secs))
		}
		actions = waitActions(secs)
	default:
		return Plan{}, toolErrorf("unknown action %q", act)
	}
	if len(mods) > 0 {
		var wrapped []wire.Action
		for _, k := range mods {
			wrapped = append(wrapped, wire.Action{Type: wire.ActionKeyDown, Key: k})
		}
		wrapped = append(wrapped, actions...)
		for i := len(mods) - 1; i >= 0; i-- {
			wrapped = append(wrapped, wire.Action{Type: wire.ActionKeyUp, Key: mods[i]})
		}
		actions = wrapped
	}
	if len(actions) > 0 {
		steps = append(steps, inputStep(actions...))
	}
	steps = append(steps, textStep("OK"))
	if after, _ := m["capture_after"].(bool); after {
		steps = append(steps, capture)
	}
	return Plan{Steps: steps}, nil
}

// apps answers list_apps and focus_app from the window list.
func (hermes) apps(ctx context.Context, d Desktop, act string, m map[string]any) (Result, error) {
	wm, ok := d.(WindowManager)
	if !ok {
		return errorResult(fmt.Sprintf("%s is not available: this desktop does not list its windows", act)), nil
	}
	wins, err := wm.Windows(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list windows: %w", err)
	}
	if act == "list_apps" {
		type app struct {
			Name    string   `json:"name"`
			PID     int      `json:"pid,omitempty"`
			Windows []string `json:"windows"`
			Active  bool     `json:"active"`
		}
		byName := map[string]*app{}
		for _, w := range wins {
			n := w.Class
			if n == "" {
				n = w.Title
			}
			a := byName[n]
			if a == nil {
				a = &app{Name: n, PID: w.PID}
				byName[n] = a
			}
			a.Windows = append(a.Windows, w.Title)
			a.Active = a.Active || w.Active
		}
		out := make([]app, 0, len(byName))
		for _, a := range byName {
			out = append(out, *a)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		return jsonResult(map[string]any{"apps": out}), nil
	}
	name, _ := m["app"].(string)
	if strings.TrimSpace(name) == "" {
		return errorResult("focus_app needs app, the application's name"), nil
	}
	w, ok := matchWindow(wins, name)
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

func asList(v any) []any { l, _ := v.([]any); return l }
