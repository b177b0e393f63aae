package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// openai is OpenAI's computer use: the one `computer` tool whose
// arguments are a computer_call's action object ({"type":"click",...}),
// or {"actions":[...]} for several in order. Coordinates are screen
// pixels; every call answers with a screenshot, the computer_call_output
// the model expects.
type openai struct{}

func (openai) Name() string { return "openai" }

func (openai) Tools() []tool.Definition { return slices.Clone(toolsOf("openai")) }

// scrollPixelsPerNotch converts OpenAI's scroll distances, in pixels, to
// wheel notches.
const scrollPixelsPerNotch = 100

func (o openai) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == infoToolName {
		return toolInfo(o, args), nil
	}
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	plan, err := o.compile(name, args, e)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	return st.execute(ctx, d, plan)
}

func (o openai) compile(name string, args json.RawMessage, e env) (Plan, error) {
	m, err := checkArgs(o, name, args)
	if err != nil {
		return Plan{}, err
	}
	var items []map[string]any
	if list, ok := m["actions"].([]any); ok {
		if _, single := m["type"]; single {
			return Plan{}, toolErrorf("give either type (one action) or actions (a list), not both")
		}
		for _, it := range list {
			im, _ := it.(map[string]any)
			items = append(items, im)
		}
	} else if _, ok := m["type"]; ok {
		items = []map[string]any{m}
	} else {
		return Plan{}, toolErrorf("type is required: the action to perform (click, double_click, drag, keypress, move, screenshot, scroll, type, wait)")
	}
	var steps []Step
	for i, it := range items {
		s, err := o.action(it, e)
		if err != nil {
			if len(items) > 1 {
				t, _ := it["type"].(string)
				steps = append(steps, Step{Op: opFail, Label: fmt.Sprintf("action %d of %d (%s)", i+1, len(items), t), Text: errMessage(err)})
				return Plan{Steps: steps}, nil
			}
			return Plan{}, err
		}
		if len(items) > 1 {
			t, _ := it["type"].(string)
			for j := range s {
				s[j].Label = fmt.Sprintf("action %d of %d (%s)", i+1, len(items), t)
			}
		}
		steps = append(steps, s...)
	}
	if n := len(steps); n == 0 || steps[n-1].Op != opScreenshot {
		steps = append(steps, Step{Op: opScreenshot, Capture: &Capture{Remember: true, Settle: true}})
	}
	return Plan{Steps: steps}, nil
}

// action compiles one action object.
func (o openai) action(m map[string]any, e env) ([]Step, error) {
	typ, _ := m["type"].(string)
	xy := func() (*api.Point, error) {
		x, okx := number(m["x"])
		y, oky := number(m["y"])
		if !okx || !oky {
			return nil, toolErrorf("%s: x and y are required", typ)
		}
		p, err := e.toScreen(screenSpace, x, y)
		if err != nil {
			return nil, toolErrorf("%s: %v", typ, err)
		}
		return &p, nil
	}
	mods, err := o.keys(m["keys"], typ != "keypress")
	if err != nil {
		return nil, err
	}
	held := func(a ...api.Action) []Step {
		var out []api.Action
		for _, k := range mods {
			out = append(out, api.Action{Type: api.ActionKeyDown, Key: k})
		}
		out = append(out, a...)
		for i := len(mods) - 1; i >= 0; i-- {
			out = append(out, api.Action{Type: api.ActionKeyUp, Key: mods[i]})
		}
		return []Step{inputStep(out...)}
	}
	switch typ {
	case "click", "double_click":
		p, err := xy()
		if err != nil {
			return nil, err
		}
		button, _ := m["button"].(string)
		click := api.Action{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: &p.X, Y: &p.Y}
		if typ == "double_click" {
			click.Count = 2
		}
		switch button {
		case "", "left":
		case "right":
			click.Button = api.ButtonRight
		case "wheel", "middle":
			click.Button = api.ButtonMiddle
		case "back", "forward":
			// X has no core action for buttons 8 and 9; browsers and file
			// managers take the dedicated navigation keys instead.
			key := "XF86Back"
			if button == "forward" {
				key = "XF86Forward"
			}
			return held(api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y}, api.Action{Type: api.ActionKey, Keys: []string{key}}), nil
		default:
			return nil, toolErrorf("click: unknown button %q (want left, right, wheel, back or forward)", button)
		}
		return held(click), nil
	case "drag":
		list, _ := m["path"].([]any)
		if len(list) < 2 {
			return nil, toolErrorf("drag: path needs at least 2 points, got %d", len(list))
		}
		path := make([][2]int, 0, len(list))
		for i, it := range list {
			pm, _ := it.(map[string]any)
			x, okx := number(pm["x"])
			y, oky := number(pm["y"])
			if !okx || !oky {
				return nil, toolErrorf("drag: path[%d] needs x and y", i)
			}
			p, err := e.toScreen(screenSpace, x, y)
			if err != nil {
				return nil, toolErrorf("drag: path[%d]: %v", i, err)
			}
			path = append(path, [2]int{p.X, p.Y})
		}
		return held(api.Action{Type: api.ActionDrag, Button: api.ButtonLeft, Path: path}), nil
	case "keypress":
		if len(mods) == 0 {
			return nil, toolErrorf("keypress: keys is required, a list of key names such as [\"CTRL\", \"C\"]")
		}
		return []Step{inputStep(api.Action{Type: api.ActionKey, Keys: mods})}, nil
	case "move":
		p, err := xy()
		if err != nil {
			return nil, err
		}
		return held(api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y}), nil
	case "screenshot":
		return []Step{{Op: opScreenshot, Capture: &Capture{Remember: true}}}, nil
	case "scroll":
		p, err := xy()
		if err != nil {
			return nil, err
		}
		sx, _ := number(m["scroll_x"])
		sy, _ := number(m["scroll_y"])
		dx, dy := notches(sx), notches(sy)
		if dx == 0 && dy == 0 {
			return held(api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y}), nil
		}
		return held(api.Action{Type: api.ActionScroll, DX: dx, DY: dy, X: &p.X, Y: &p.Y}), nil
	case "type":
		text, ok := m["text"].(string)
		if !ok {
			return nil, toolErrorf("type: text is required")
		}
		if text == "" {
			return nil, nil
		}
		return []Step{inputStep(typeActions(text)...)}, nil
	case "wait":
		ms := 1000.0
		if f, ok := number(m["ms"]); ok {
			ms = f
		}
		if ms < 0 || ms > 60_000 {
			return nil, toolErrorf("wait: ms must be between 0 and 60000, got %s", fmtCoord(ms))
		}
		if ms == 0 {
			return nil, nil
		}
		return []Step{inputStep(api.Action{Type: api.ActionWait, MS: int(ms)})}, nil
	}
	return nil, toolErrorf("unknown action type %q (want click, double_click, drag, keypress, move, screenshot, scroll, type or wait)", typ)
}

// keys resolves OpenAI key names ("CTRL", "ENTER", "ARROWLEFT", "a",
// "ctrl+c") to X keysyms. For actions other than keypress they are the
// modifiers held during the action.
func (openai) keys(v any, modifiers bool) ([]string, error) {
	list, _ := v.([]any)
	var out []string
	for _, it := range list {
		s, _ := it.(string)
		var ks []string
		var err error
		if len(s) > 1 && strings.Contains(s, "+") {
			ks, err = parseCombo(s, true)
		} else {
			var k string
			k, err = comboKey(s, true)
			ks = []string{k}
		}
		if err != nil {
			what := "keypress"
			if modifiers {
				what = "keys (held modifiers)"
			}
			return nil, toolErrorf("%s: %v", what, err)
		}
		out = append(out, ks...)
	}
	return out, nil
}

// notches converts a scroll distance in pixels to wheel notches, at least
// one for any movement, within the core's limit.
func notches(px float64) int {
	if px == 0 || math.IsNaN(px) {
		return 0
	}
	n := int(math.Round(math.Abs(px) / scrollPixelsPerNotch))
	n = max(1, min(n, api.MaxScroll))
	if px < 0 {
		return -n
	}
	return n
}
