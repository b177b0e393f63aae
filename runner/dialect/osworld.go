package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/x11/keysym"
)

// osworld is OSWorld's computer_13 action space as the 12 desktop_* tools
// (seeds/000): each validates its parameters with OSWorld's rules and
// messages, produces OSWorld's action ({"action_type","parameters"} or
// the strings WAIT, DONE, FAIL), runs it, and answers with OSWorld's step
// envelope and the screenshot of the new observation.
type osworld struct{}

func (osworld) Name() string { return "osworld" }

func (osworld) Tools() []tool.Definition { return slices.Clone(toolsOf("osworld")) }

// osworldWaitDefault is how long WAIT waits when no pause is given:
// the default pause of OSWorld's DesktopEnv.step.
const osworldWaitDefault = 2.0

func (o osworld) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == infoToolName {
		return toolInfo(o, args), nil
	}
	plan, err := compileOSWorld(name, args)
	if err != nil {
		return o.envelope(st, nil, nil, errMessage(err), true), nil
	}
	res, err := st.execute(ctx, d, plan)
	if err != nil {
		return Result{}, err
	}
	if res.IsError {
		return o.envelope(st, plan.Action, nil, res.Text(), false), nil
	}
	st.steps++
	var shot *Part
	for i := range res.Content {
		if res.Content[i].Type == "image" {
			shot = &res.Content[i]
		}
	}
	out := o.envelope(st, plan.Action, shot, "", false)
	out.Done = plan.Action == "DONE" || plan.Action == "FAIL"
	return out, nil
}

// osworldStep is OSWorld's step envelope, as its tools answer.
type osworldStep struct {
	Observation map[string]any  `json:"observation"`
	Reward      json.RawMessage `json:"reward"`
	Done        bool            `json:"done"`
	Info        map[string]any  `json:"info"`
	Metadata    osworldMeta     `json:"metadata"`
}

type osworldMeta struct {
	StepNum          int     `json:"step_num"`
	Timestamp        string  `json:"timestamp"`
	ScreenshotFile   *string `json:"screenshot_file"`
	Action           any     `json:"action"`
	ValidationFailed bool    `json:"validation_failed"`
}

// envelope builds the answer: the envelope as text and structured
// content, followed by the screenshot if one was taken. errMsg marks a
// failed step (validation says whether the parameters were refused).
func (osworld) envelope(st *State, action any, shot *Part, errMsg string, validation bool) Result {
	e := osworldStep{
		Observation: map[string]any{},
		Reward:      json.RawMessage("0.0"),
		Info:        map[string]any{},
		Metadata: osworldMeta{
			StepNum:          st.steps,
			Timestamp:        st.now().Format("2006-01-02T15:04:05.000000"),
			Action:           action,
			ValidationFailed: validation,
		},
	}
	switch {
	case errMsg != "":
		e.Info["error"] = errMsg
	case action == "DONE":
		e.Done, e.Info["done"] = true, true
	case action == "FAIL":
		e.Done, e.Info["fail"] = true, true
	}
	if shot != nil {
		format := strings.TrimPrefix(shot.MIMEType, "image/")
		e.Observation["screenshot"] = map[string]any{"format": format, "width": shot.Width, "height": shot.Height}
	}
	text, _ := json.MarshalIndent(e, "", "  ")
	res := Result{Content: []Part{{Type: "text", Text: string(text)}}, Structured: e, IsError: errMsg != ""}
	if shot != nil {
		res.Content = append(res.Content, *shot)
	}
	return res
}

// osworldParams is a tool call's decoded parameters.
type osworldParams map[string]any

func (p osworldParams) has(k string) bool { _, ok := p[k]; return ok }

// compileOSWorld validates a desktop_* call with OSWorld's rules, in
// OSWorld's order, and compiles it. Errors carry OSWorld's exact texts.
func compileOSWorld(name string, args json.RawMessage) (Plan, error) {
	if !slices.Contains(osworldTools, name) {
		return Plan{}, toolErrorf("Unknown tool '%s'.", name)
	}
	v, err := tool.DecodeValue(args)
	if err != nil {
		return Plan{}, toolErrorf("Invalid parameters: %s", strings.TrimPrefix(err.Error(), "arguments: "))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Plan{}, toolErrorf("Invalid parameters: expected an object, got %s", pyType(v))
	}
	p := osworldParams(m)
	var pause float64
	if p.has("pause") {
		f, ok := number(p["pause"])
		if !ok || f < 0 || f > 3600 {
			return Plan{}, toolErrorf("Invalid pause '%s'. Must be a number of seconds between 0 and 3600.", py.Str(p["pause"]))
		}
		pause = f
	}
	var plan Plan
	switch name {
	case "desktop_mouse_move":
		plan, err = osworldMove(p)
	case "desktop_mouse_click":
		plan, err = osworldClick(p)
	case "desktop_mouse_button":
		plan, err = osworldButton(p)
	case "desktop_mouse_right_click":
		plan, err = osworldXYClick(p, "RIGHT_CLICK", api.ButtonRight, 1)
	case "desktop_mouse_double_click":
		plan, err = osworldXYClick(p, "DOUBLE_CLICK", api.ButtonLeft, 2)
	case "desktop_mouse_drag":
		plan, err = osworldDrag(p)
	case "desktop_scroll":
		plan, err = osworldScroll(p)
	case "desktop_type":
		plan, err = osworldType(p)
	case "desktop_key_press":
		plan, err = osworldPress(p)
	case "desktop_key_hold":
		plan, err = osworldKeyHold(p)
	case "desktop_hotkey":
		plan, err = osworldHotkey(p)
	case "desktop_control":
		return osworldControl(p, pause)
	default:
		return Plan{}, toolErrorf("Unknown tool '%s'.", name)
	}
	if err != nil {
		return Plan{}, err
	}
	if pause > 0 {
		plan.Steps = append(plan.Steps, inputStep(waitActions(pause)...))
	}
	plan.Steps = append(plan.Steps, Step{Op: opScreenshot, Capture: &Capture{Remember: true, Settle: true}})
	return plan, nil
}

// osworldTools are the 12 desktop_* tools of seeds/000's 工具总览表.
var osworldTools = []string{
	"desktop_mouse_move", "desktop_mouse_click", "desktop_mouse_button",
	"desktop_mouse_right_click", "desktop_mouse_double_click", "desktop_mouse_drag",
	"desktop_scroll", "desktop_type", "desktop_key_press", "desktop_key_hold",
	"desktop_hotkey", "desktop_control",
}

func osworldAction(actionType string, p osworldParams, keys ...string) map[string]any {
	params := map[string]any{}
	for _, k := range keys {
		if v, ok := p[k]; ok {
			params[k] = v
		}
	}
	return map[string]any{"action_type": actionType, "parameters": params}
}

// osworldXY reads x and y as numbers, rounded to pixels.
func osworldXY(p osworldParams) (x, y *int, err error) {
	if !p.has("x") && !p.has("y") {
		return nil, nil, nil
	}
	var out [2]int
	for i, k := range []string{"x", "y"} {
		f, ok := number(p[k])
		if !ok {
			return nil, nil, toolErrorf("Invalid %s '%s'. Must be a number.", k, py.Str(p[k]))
		}
		out[i] = roundPixel(f)
	}
	return &out[0], &out[1], nil
}

func validButton(p osworldParams) error {
	if !p.has("button") {
		return nil
	}
	if b, ok := p["button"].(string); ok && (b == "left" || b == "right" || b == "middle") {
		return nil
	}
	return toolErrorf("Invalid button '%s'. Must be 'left', 'right', or 'middle'.", py.Str(p["button"]))
}

func osworldMove(p osworldParams) (Plan, error) {
	if !p.has("x") || !p.has("y") {
		return Plan{}, toolErrorf("MOVE_TO requires both 'x' and 'y' parameters")
	}
	x, y, err := osworldXY(p)
	if err != nil {
		return Plan{}, err
	}
	return Plan{
		Action: osworldAction("MOVE_TO", p, "x", "y"),
		Steps:  []Step{inputStep(api.Action{Type: api.ActionMove, X: x, Y: y})},
	}, nil
}

func osworldClick(p osworldParams) (Plan, error) {
	if p.has("x") != p.has("y") {
		return Plan{}, toolErrorf("If 'x' is provided, 'y' must also be provided, and vice versa.")
	}
	if err := validButton(p); err != nil {
		return Plan{}, err
	}
	count := 1
	if p.has("num_clicks") {
		f, ok := number(p["num_clicks"])
		if !ok || (f != 1 && f != 2 && f != 3) {
			return Plan{}, toolErrorf("Invalid num_clicks '%s'. Must be 1, 2, or 3.", py.Str(p["num_clicks"]))
		}
		count = int(f)
	}
	x, y, err := osworldXY(p)
	if err != nil {
		return Plan{}, err
	}
	button, _ := p["button"].(string)
	if button == "" {
		button = api.ButtonLeft
	}
	return Plan{
		Action: osworldAction("CLICK", p, "x", "y", "button", "num_clicks"),
		Steps:  []Step{inputStep(api.Action{Type: api.ActionClick, Button: button, Count: count, X: x, Y: y})},
	}, nil
}

// osworldUpDown reads the action parameter of the button and key tools.
func osworldUpDown(p osworldParams) (string, error) {
	if !p.has("action") {
		return "", toolErrorf("'action' parameter is required")
	}
	if s, ok := p["action"].(string); ok {
		if u := strings.ToUpper(s); u == "DOWN" || u == "UP" {
			return u, nil
		}
	}
	return "", toolErrorf("Invalid action '%s'. Must be 'down' or 'up'.", py.Str(p["action"]))
}

func osworldButton(p osworldParams) (Plan, error) {
	dir, err := osworldUpDown(p)
	if err != nil {
		return Plan{}, err
	}
	if err := validButton(p); err != nil {
		return Plan{}, err
	}
	for _, k := range sortedKeys(p) {
		if k != "action" && k != "button" && k != "pause" {
			return Plan{}, toolErrorf("Invalid parameter '%s'. MOUSE_%s accepts only 'action' and 'button'.", k, dir)
		}
	}
	button, _ := p["button"].(string)
	if button == "" {
		button = api.ButtonLeft
	}
	t := api.ActionButtonDown
	if dir == "UP" {
		t = api.ActionButtonUp
	}
	return Plan{
		Action: osworldAction("MOUSE_"+dir, p, "button"),
		Steps:  []Step{inputStep(api.Action{Type: t, Button: button})},
	}, nil
}

func osworldXYClick(p osworldParams, actionType, button string, count int) (Plan, error) {
	if p.has("x") != p.has("y") {
		return Plan{}, toolErrorf("%s requires both 'x' and 'y', or neither.", actionType)
	}
	x, y, err := osworldXY(p)
	if err != nil {
		return Plan{}, err
	}
	return Plan{
		Action: osworldAction(actionType, p, "x", "y"),
		Steps:  []Step{inputStep(api.Action{Type: api.ActionClick, Button: button, Count: count, X: x, Y: y})},
	}, nil
}

func osworldDrag(p osworldParams) (Plan, error) {
	if !p.has("x") || !p.has("y") {
		return Plan{}, toolErrorf("DRAG_TO requires both 'x' and 'y' parameters")
	}
	x, y, err := osworldXY(p)
	if err != nil {
		return Plan{}, err
	}
	return Plan{
		Action: osworldAction("DRAG_TO", p, "x", "y"),
		Steps:  []Step{{Op: opDragFromCursor, To: &api.Point{X: *x, Y: *y}, Button: api.ButtonLeft}},
	}, nil
}

func osworldScroll(p osworldParams) (Plan, error) {
	if !p.has("dx") && !p.has("dy") {
		return Plan{}, toolErrorf("SCROLL requires at least one of 'dx' or 'dy'")
	}
	var d [2]int
	for i, k := range []string{"dx", "dy"} {
		if !p.has(k) {
			continue
		}
		f, ok := number(p[k])
		if !ok || f != math.Trunc(f) {
			return Plan{}, toolErrorf("Invalid %s '%s'. Must be an integer.", k, py.Str(p[k]))
		}
		if math.Abs(f) > osworldMaxScroll {
			return Plan{}, toolErrorf("Invalid %s '%s'. Must be an integer between -%d and %d.", k, py.Str(p[k]), osworldMaxScroll, osworldMaxScroll)
		}
		d[i] = int(f)
	}
	plan := Plan{Action: osworldAction("SCROLL", p, "dx", "dy")}
	// pyautogui scrolls up for positive clicks; the core scrolls down for
	// positive dy.
	if acts := scrollChunks(d[0], -d[1]); len(acts) > 0 {
		plan.Steps = []Step{inputStep(acts...)}
	}
	return plan, nil
}

// osworldMaxScroll bounds SCROLL's dx and dy, which seeds/000 §7 leaves
// unbounded ("dx和dy是整数"): as many notches as one input request of
// core scroll actions can carry.
const osworldMaxScroll = api.MaxScroll * api.MaxActions

// scrollChunks scrolls dx, dy notches in core scroll actions of at most
// api.MaxScroll notches per axis each.
func scrollChunks(dx, dy int) []api.Action {
	var out []api.Action
	for dx != 0 || dy != 0 {
		cx := max(-api.MaxScroll, min(dx, api.MaxScroll))
		cy := max(-api.MaxScroll, min(dy, api.MaxScroll))
		out = append(out, api.Action{Type: api.ActionScroll, DX: cx, DY: cy})
		dx, dy = dx-cx, dy-cy
	}
	return out
}

func osworldType(p osworldParams) (Plan, error) {
	if !p.has("text") {
		return Plan{}, toolErrorf("TYPING requires 'text' parameter")
	}
	text, ok := p["text"].(string)
	if !ok {
		return Plan{}, toolErrorf("Invalid text '%s'. Must be a string.", py.Str(p["text"]))
	}
	plan := Plan{Action: osworldAction("TYPING", p, "text")}
	if text != "" {
		plan.Steps = []Step{inputStep(api.Action{Type: api.ActionType, Text: text})}
	}
	return plan, nil
}

// osworldKey checks a key against KEYBOARD_KEYS after lower-casing it as
// Python's str.lower does, as OSWorld does, and resolves it to an X
// keysym. A key OSWorld accepts that X has no keysym for ("accept",
// "final") passes validation and comes back with unpressable set: the
// action is valid, but running it fails (seeds/000 §9-11 list those keys
// as valid).
func osworldKey(v any, msg string) (x, unpressable string, err error) {
	k, ok := v.(string)
	if !ok || !keysym.IsPyautoguiKey(py.Lower(k)) {
		return "", "", toolErrorf(msg, py.Str(v))
	}
	x, err = pyautoguiKey(k)
	if err != nil {
		return "", fmt.Sprintf("Key '%s' cannot be pressed: %v", k, err), nil
	}
	return x, "", nil
}

const invalidKey = "Invalid key '%s'. Must be one of the valid keyboard keys."

// keyPlan is the plan of a key action, or, when a key cannot be pressed
// on X, the valid action whose execution fails.
func keyPlan(action map[string]any, unpressable string, a api.Action) Plan {
	if unpressable != "" {
		return Plan{Action: action, Steps: []Step{failStep(unpressable)}}
	}
	return Plan{Action: action, Steps: []Step{inputStep(a)}}
}

func osworldPress(p osworldParams) (Plan, error) {
	if !p.has("key") {
		return Plan{}, toolErrorf("PRESS requires 'key' parameter")
	}
	k, unpressable, err := osworldKey(p["key"], invalidKey)
	if err != nil {
		return Plan{}, err
	}
	return keyPlan(osworldAction("PRESS", p, "key"), unpressable, api.Action{Type: api.ActionKey, Keys: []string{k}}), nil
}

func osworldKeyHold(p osworldParams) (Plan, error) {
	dir, err := osworldUpDown(p)
	if err != nil {
		return Plan{}, err
	}
	if !p.has("key") {
		return Plan{}, toolErrorf("'key' parameter is required")
	}
	k, unpressable, err := osworldKey(p["key"], invalidKey)
	if err != nil {
		return Plan{}, err
	}
	t := api.ActionKeyDown
	if dir == "UP" {
		t = api.ActionKeyUp
	}
	return keyPlan(osworldAction("KEY_"+dir, p, "key"), unpressable, api.Action{Type: t, Key: k}), nil
}

func osworldHotkey(p osworldParams) (Plan, error) {
	if !p.has("keys") {
		return Plan{}, toolErrorf("HOTKEY requires 'keys' parameter")
	}
	list, ok := p["keys"].([]any)
	if !ok {
		return Plan{}, toolErrorf("'keys' must be a list, got %s", pyType(p["keys"]))
	}
	keys := make([]string, 0, len(list))
	var unpressable string
	for _, v := range list {
		k, u, err := osworldKey(v, "Invalid key '%s' in keys list. All keys must be valid keyboard keys.")
		if err != nil {
			return Plan{}, err
		}
		if unpressable == "" {
			unpressable = u
		}
		keys = append(keys, k)
	}
	action := osworldAction("HOTKEY", p, "keys")
	if len(keys) == 0 {
		return Plan{Action: action}, nil
	}
	return keyPlan(action, unpressable, api.Action{Type: api.ActionKey, Keys: keys}), nil
}

func osworldControl(p osworldParams, pause float64) (Plan, error) {
	if !p.has("action") {
		return Plan{}, toolErrorf("'action' parameter is required")
	}
	s, _ := p["action"].(string)
	switch u := strings.ToUpper(s); {
	case !isString(p["action"]) || (u != "WAIT" && u != "DONE" && u != "FAIL"):
		return Plan{}, toolErrorf("Invalid action '%s'. Must be 'wait', 'done', or 'fail'.", py.Str(p["action"]))
	case u == "WAIT":
		if !p.has("pause") {
			pause = osworldWaitDefault
		}
		plan := Plan{Action: u}
		if pause > 0 {
			plan.Steps = append(plan.Steps, inputStep(waitActions(pause)...))
		}
		plan.Steps = append(plan.Steps, Step{Op: opScreenshot, Capture: &Capture{Remember: true}})
		return plan, nil
	default:
		return Plan{Action: u, Steps: []Step{}}, nil
	}
}

// waitActions waits for the given seconds in core wait actions of at most
// api.MaxWaitMS each.
func waitActions(seconds float64) []api.Action {
	ms := int(math.Round(seconds * 1000))
	var out []api.Action
	for ms > 0 {
		n := min(ms, api.MaxWaitMS)
		out = append(out, api.Action{Type: api.ActionWait, MS: n})
		ms -= n
	}
	return out
}

func roundPixel(f float64) int {
	return int(math.Round(math.Max(-1e9, math.Min(1e9, f))))
}

func isString(v any) bool { _, ok := v.(string); return ok }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// number returns a decoded JSON number (not a bool) with a finite value
// as float64; see [py.Finite].
func number(v any) (float64, bool) { return py.Finite(v) }

// pyType names the Python type json.loads gives for v; see
// [py.Type].
func pyType(v any) string { return py.Type(v) }
