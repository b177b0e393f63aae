package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// anthropic is Anthropic's computer use: the `computer` tool of the API
// (one tool, an `action` parameter), the computer-use MCP server's tool
// list (seeds/003: one tool per action plus computer_batch), and the
// companion `bash` and `str_replace_based_edit_tool` tools. Coordinates
// are in pixels of the last screenshot (space pixelSpace, which scales
// screenshots to stay within vision models' limits) or 0..100
// (normalizedSpace); the tool descriptions state the one in use.
type anthropic struct{ space space }

func (a anthropic) Name() string {
	if a.space == normalizedSpace {
		return "anthropic_normalized"
	}
	return "anthropic"
}

// Coordinate wording of the MCP server, per mode.
var anthropicCoordText = map[space][2]string{
	pixelSpace: {
		"Horizontal pixel position read directly from the most recent screenshot image, measured from the left edge. The server handles all scaling.",
		"Vertical pixel position read directly from the most recent screenshot image, measured from the top edge. The server handles all scaling.",
	},
	normalizedSpace: {
		"Horizontal position as a percentage of screen width, 0.0–100.0 (0 = left edge, 100 = right edge).",
		"Vertical position as a percentage of screen height, 0.0–100.0 (0 = top edge, 100 = bottom edge).",
	},
}

func (a anthropic) Tools() []tool.Definition { return slices.Clone(toolsOf(a.Name())) }

// replacer fills the coordinate wording of the mode into the definitions.
func (a anthropic) replacer() *strings.Replacer {
	text := anthropicCoordText[a.space]
	return strings.NewReplacer("{coord_x}", text[0], "{coord_y}", text[1], "{coord_mode}", a.mode())
}

// mode names the coordinate mode as the MCP server does.
func (a anthropic) mode() string {
	if a.space == normalizedSpace {
		return "normalized_0_100"
	}
	return "pixels"
}

func (a anthropic) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if slices.Contains(anthWindowTools, name) {
		m, err := checkArgs(a, name, args)
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		return a.windowTool(ctx, d, st, name, m)
	}
	switch name {
	case infoToolName:
		return toolInfo(a, args), nil
	case "bash":
		return bashTool(ctx, d, st, a, args)
	case editorToolName:
		return editTool(ctx, d, st, a, args)
	case "click_element", "type_into_element":
		m, err := checkArgs(a, name, args)
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		return elementTool(ctx, d, name, m)
	case "request_access", "list_granted_applications", "open_application", "switch_display", "read_clipboard", "write_clipboard":
		m, err := checkArgs(a, name, args)
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		return a.session(ctx, d, name, m)
	}
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	if e.capture, err = st.boundCapture(ctx, d, e.screen); err != nil {
		return Result{}, err
	}
	plan, err := a.compile(name, args, e)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	return st.execute(ctx, d, plan)
}

// anthAction is one computer action, as the API's computer tool, the MCP
// tools and computer_batch items carry it.
type anthAction struct {
	Action          string
	Coordinate      []float64
	StartCoordinate []float64
	Text            *string
	ScrollDirection string
	ScrollAmount    *int
	Duration        *float64
	Repeat          int
	Region          []float64
}

func anthActionFrom(action string, m map[string]any) anthAction {
	a := anthAction{Action: action}
	a.Coordinate = floats(m["coordinate"])
	a.StartCoordinate = floats(m["start_coordinate"])
	a.Region = floats(m["region"])
	if s, ok := m["text"].(string); ok {
		a.Text = &s
	}
	a.ScrollDirection, _ = m["scroll_direction"].(string)
	if f, ok := number(m["scroll_amount"]); ok {
		n := int(f)
		a.ScrollAmount = &n
	}
	if f, ok := number(m["duration"]); ok {
		a.Duration = &f
	}
	if f, ok := number(m["repeat"]); ok {
		a.Repeat = int(f)
	}
	return a
}

func floats(v any) []float64 {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]float64, 0, len(list))
	for _, e := range list {
		f, _ := number(e)
		out = append(out, f)
	}
	return out
}

// compile turns a call of one of the computer tools into a plan. It is
// pure.
func (a anthropic) compile(name string, args json.RawMessage, e env) (Plan, error) {
	m, err := checkArgs(a, name, args)
	if err != nil {
		return Plan{}, err
	}
	switch name {
	case "computer":
		act, _ := m["action"].(string)
		steps, err := a.action(anthActionFrom(act, m), &e, true)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Steps: steps}, nil
	case "computer_batch":
		return a.batch(m, e), nil
	}
	steps, err := a.action(anthActionFrom(name, m), &e, false)
	if err != nil {
		return Plan{}, err
	}
	if n := len(steps); n == 0 || steps[n-1].Op == opInput || steps[n-1].Op == opDragFromCursor {
		steps = append(steps, textStep("OK"))
	}
	return Plan{Steps: steps}, nil
}

// batch compiles computer_batch: the actions in order against the
// screenshot taken before the batch, stopping at the first that fails
// (compiling or running), with the earlier ones done.
func (a anthropic) batch(m map[string]any, e env) Plan {
	items, _ := m["actions"].([]any)
	var steps []Step
	for i, it := range items {
		im, _ := it.(map[string]any)
		act, _ := im["action"].(string)
		label := fmt.Sprintf("action %d of %d (%s)", i+1, len(items), act)
		s, err := a.action(anthActionFrom(act, im), &e, false)
		if err != nil {
			steps = append(steps, Step{Op: opFail, Label: label, Text: errMessage(err)})
			return Plan{Steps: steps}
		}
		for j := range s {
			s[j].Label = label
		}
		steps = append(steps, s...)
	}
	steps = append(steps, textStep(fmt.Sprintf("Ran %d actions.", len(items))))
	return Plan{Steps: steps}
}

// action compiles one computer action by the function anthActions has
// for its name. apiTool marks the API's computer tool: coordinates of
// clicks are optional there, and actions answer with a screenshot.
// e.leftHeld follows left_mouse_down and left_mouse_up.
func (a anthropic) action(act anthAction, e *env, apiTool bool) ([]Step, error) {
	f, ok := anthActions[act.Action]
	if !ok {
		return nil, toolErrorf("unknown action %q", act.Action)
	}
	c := &anthCall{act: act, e: e, sp: a.space, apiTool: apiTool}
	out, err := f(c)
	if err != nil {
		return nil, err
	}
	if out.final {
		return out.steps, nil
	}
	steps := out.steps
	if len(out.actions) > 0 {
		steps = append([]Step{inputStep(out.actions...)}, steps...)
	}
	if apiTool {
		steps = append(steps, e.shotStep(len(out.actions) > 0))
	}
	return steps, nil
}

// anthCall is one computer action being compiled.
type anthCall struct {
	act     anthAction
	e       *env
	sp      space
	apiTool bool
}

// anthOut is what an action compiles to: core actions run first as one
// input step, then steps; final steps are the whole answer (no
// screenshot is added).
type anthOut struct {
	actions []api.Action
	steps   []Step
	final   bool
}

// point converts a coordinate field to screen pixels; nil stays nil.
func (c *anthCall) point(v []float64, field string) (*api.Point, error) {
	if v == nil {
		return nil, nil
	}
	if len(v) != 2 {
		return nil, toolErrorf("%s must be a list of 2 numbers", field)
	}
	p, err := c.e.toScreen(c.sp, v[0], v[1])
	if err != nil {
		return nil, toolErrorf("%s: %v", field, err)
	}
	return &p, nil
}

// need is the error of a required field that is missing.
func (c *anthCall) need(ok bool, field string) error {
	if !ok {
		return toolErrorf("%s is required for %s", field, c.act.Action)
	}
	return nil
}

// anthActions compiles each action of the computer tool.
var anthActions = map[string]func(c *anthCall) (anthOut, error){
	"key":             anthKey,
	"type":            anthType,
	"mouse_move":      anthMouseMove,
	"left_click":      anthClick,
	"right_click":     anthClick,
	"middle_click":    anthClick,
	"double_click":    anthClick,
	"triple_click":    anthClick,
	"left_click_drag": anthDrag,
	"scroll":          anthScroll,
	"hold_key":        anthHoldKey,
	"left_mouse_down": anthMouseDown,
	"left_mouse_up":   anthMouseUp,
	"wait":            anthWait,
	"screenshot":      anthScreenshot,
	"cursor_position": anthCursorPosition,
	"zoom":            anthZoom,
}

func anthKey(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Text != nil, "text"); err != nil {
		return anthOut{}, err
	}
	combos, err := parseComboSequence(*c.act.Text, false)
	if err != nil {
		return anthOut{}, toolErrorf("key: %v", err)
	}
	var out anthOut
	for _, keys := range combos {
		k := api.Action{Type: api.ActionKey, Keys: keys}
		if c.act.Repeat > 1 {
			k.Repeat = c.act.Repeat
		}
		out.actions = append(out.actions, k)
	}
	return out, nil
}

func anthType(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Text != nil, "text"); err != nil {
		return anthOut{}, err
	}
	return anthOut{actions: typeActions(*c.act.Text)}, nil
}

func anthMouseMove(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Coordinate != nil, "coordinate"); err != nil {
		return anthOut{}, err
	}
	p, err := c.point(c.act.Coordinate, "coordinate")
	if err != nil {
		return anthOut{}, err
	}
	return anthOut{actions: []api.Action{{Type: api.ActionMove, X: &p.X, Y: &p.Y}}}, nil
}

// anthClick compiles left_click, right_click, middle_click, double_click
// and triple_click.
func anthClick(c *anthCall) (anthOut, error) {
	if !c.apiTool {
		if err := c.need(c.act.Coordinate != nil, "coordinate"); err != nil {
			return anthOut{}, err
		}
	}
	p, err := c.point(c.act.Coordinate, "coordinate")
	if err != nil {
		return anthOut{}, err
	}
	click := api.Action{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1}
	switch c.act.Action {
	case "right_click":
		click.Button = api.ButtonRight
	case "middle_click":
		click.Button = api.ButtonMiddle
	case "double_click":
		click.Count = 2
	case "triple_click":
		click.Count = 3
	}
	if p != nil {
		click.X, click.Y = &p.X, &p.Y
	}
	actions, err := withModifiers(c.act.Text, click)
	return anthOut{actions: actions}, err
}

func anthDrag(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Coordinate != nil, "coordinate"); err != nil {
		return anthOut{}, err
	}
	to, err := c.point(c.act.Coordinate, "coordinate")
	if err != nil {
		return anthOut{}, err
	}
	from, err := c.point(c.act.StartCoordinate, "start_coordinate")
	if err != nil {
		return anthOut{}, err
	}
	if from == nil {
		return anthOut{steps: []Step{{Op: opDragFromCursor, To: to, Button: api.ButtonLeft}}}, nil
	}
	return anthOut{actions: []api.Action{{Type: api.ActionDrag, Button: api.ButtonLeft, Path: [][2]int{{from.X, from.Y}, {to.X, to.Y}}}}}, nil
}

func anthScroll(c *anthCall) (anthOut, error) {
	act := c.act
	if !c.apiTool {
		if err := c.need(act.Coordinate != nil, "coordinate"); err != nil {
			return anthOut{}, err
		}
	}
	if err := c.need(act.ScrollDirection != "", "scroll_direction"); err != nil {
		return anthOut{}, err
	}
	if err := c.need(act.ScrollAmount != nil, "scroll_amount"); err != nil {
		return anthOut{}, err
	}
	n := *act.ScrollAmount
	if n < 0 || n > api.MaxScroll {
		return anthOut{}, toolErrorf("scroll_amount must be between 0 and %d, got %d", api.MaxScroll, n)
	}
	p, err := c.point(act.Coordinate, "coordinate")
	if err != nil {
		return anthOut{}, err
	}
	s := api.Action{Type: api.ActionScroll}
	switch act.ScrollDirection {
	case "up":
		s.DY = -n
	case "down":
		s.DY = n
	case "left":
		s.DX = -n
	case "right":
		s.DX = n
	default:
		return anthOut{}, toolErrorf("scroll_direction must be up, down, left or right, got %q", act.ScrollDirection)
	}
	if p != nil {
		s.X, s.Y = &p.X, &p.Y
	}
	if n == 0 {
		if p != nil {
			return anthOut{actions: []api.Action{{Type: api.ActionMove, X: &p.X, Y: &p.Y}}}, nil
		}
		return anthOut{}, nil
	}
	actions, err := withModifiers(act.Text, s)
	return anthOut{actions: actions}, err
}

func anthHoldKey(c *anthCall) (anthOut, error) {
	act := c.act
	if err := c.need(act.Text != nil, "text"); err != nil {
		return anthOut{}, err
	}
	if err := c.need(act.Duration != nil, "duration"); err != nil {
		return anthOut{}, err
	}
	if err := checkDuration(*act.Duration); err != nil {
		return anthOut{}, err
	}
	keys, err := parseCombo(strings.TrimSpace(*act.Text), false)
	if err != nil {
		return anthOut{}, toolErrorf("hold_key: %v", err)
	}
	var out anthOut
	for _, k := range keys {
		out.actions = append(out.actions, api.Action{Type: api.ActionKeyDown, Key: k})
	}
	out.actions = append(out.actions, waitActions(*act.Duration)...)
	for i := len(keys) - 1; i >= 0; i-- {
		out.actions = append(out.actions, api.Action{Type: api.ActionKeyUp, Key: keys[i]})
	}
	return out, nil
}

func anthMouseDown(c *anthCall) (anthOut, error) {
	if c.e.leftHeld {
		return anthOut{}, toolErrorf("the left mouse button is already held; call left_mouse_up first")
	}
	c.e.leftHeld = true
	return anthOut{actions: []api.Action{{Type: api.ActionButtonDown, Button: api.ButtonLeft}}}, nil
}

func anthMouseUp(c *anthCall) (anthOut, error) {
	c.e.leftHeld = false
	return anthOut{actions: []api.Action{{Type: api.ActionButtonUp, Button: api.ButtonLeft}}}, nil
}

func anthWait(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Duration != nil, "duration"); err != nil {
		return anthOut{}, err
	}
	if err := checkDuration(*c.act.Duration); err != nil {
		return anthOut{}, err
	}
	actions := waitActions(*c.act.Duration)
	if len(actions) == 0 && !c.apiTool {
		return anthOut{steps: []Step{textStep("OK")}, final: true}, nil
	}
	return anthOut{actions: actions}, nil
}

func anthScreenshot(c *anthCall) (anthOut, error) {
	return anthOut{steps: []Step{c.e.shotStep(false)}, final: true}, nil
}

func anthCursorPosition(c *anthCall) (anthOut, error) {
	return anthOut{steps: []Step{{Op: opCursor, Space: c.sp}}, final: true}, nil
}

func anthZoom(c *anthCall) (anthOut, error) {
	if err := c.need(c.act.Region != nil, "region"); err != nil {
		return anthOut{}, err
	}
	r, err := c.e.rectToScreen(c.sp, c.act.Region)
	if err != nil {
		return anthOut{}, toolErrorf("zoom: %v", err)
	}
	return anthOut{steps: []Step{{Op: opScreenshot, Capture: &Capture{Region: &r, MaxWidth: fitWidth(r.X1-r.X0, r.Y1-r.Y0)}}}, final: true}, nil
}

func checkDuration(d float64) error {
	if d < 0 || d > 100 {
		return toolErrorf("duration must be between 0 and 100 seconds, got %s", fmtCoord(d))
	}
	return nil
}

// withModifiers holds the keys of an xdotool-style combo ("shift",
// "ctrl+shift") around an action.
func withModifiers(text *string, a api.Action) ([]api.Action, error) {
	if text == nil || strings.TrimSpace(*text) == "" {
		return []api.Action{a}, nil
	}
	keys, err := parseCombo(strings.TrimSpace(*text), false)
	if err != nil {
		return nil, toolErrorf("text (modifiers): %v", err)
	}
	var out []api.Action
	for _, k := range keys {
		out = append(out, api.Action{Type: api.ActionKeyDown, Key: k})
	}
	out = append(out, a)
	for i := len(keys) - 1; i >= 0; i-- {
		out = append(out, api.Action{Type: api.ActionKeyUp, Key: keys[i]})
	}
	return out, nil
}

// typeActions types text in core actions of at most api.MaxTextLen
// characters each.
func typeActions(text string) []api.Action {
	var out []api.Action
	r := []rune(text)
	for len(r) > 0 {
		n := min(len(r), api.MaxTextLen)
		out = append(out, api.Action{Type: api.ActionType, Text: string(r[:n])})
		r = r[n:]
	}
	return out
}

// session answers the MCP server's session tools: access grants (a
// deskrun sandbox is disposable, so every application is granted),
// applications, displays and the clipboard.
func (a anthropic) session(ctx context.Context, d Desktop, name string, m map[string]any) (Result, error) {
	switch name {
	case "request_access":
		apps, _ := m["apps"].([]any)
		granted := make([]string, 0, len(apps))
		for _, x := range apps {
			if s, ok := x.(string); ok {
				granted = append(granted, s)
			}
		}
		return jsonResult(map[string]any{
			"granted": granted, "denied": []string{}, "screenshotFiltering": "none",
			"note": "This is a disposable deskrun sandbox: every application, the clipboard and system key combinations are allowed.",
		}), nil
	case "list_granted_applications":
		return jsonResult(map[string]any{
			"apps": "all", "clipboardRead": true, "clipboardWrite": true, "systemKeyCombos": true, "coordinateMode": a.mode(),
		}), nil
	case "switch_display":
		disp, _ := m["display"].(string)
		if disp == "auto" || disp == "primary" || disp == ":0" {
			return textResult("This desktop has one display; screenshots capture it."), nil
		}
		return errorResult(fmt.Sprintf("no display %q: this desktop has one display (use \"auto\")", disp)), nil
	case "open_application":
		app, _ := m["app"].(string)
		return openApplication(ctx, d, app)
	case "read_clipboard":
		c, ok := d.(ClipboardAccess)
		if !ok {
			return errorResult("read_clipboard is not available: this desktop offers no clipboard access"), nil
		}
		text, err := c.Clipboard(ctx)
		if err != nil {
			if refused(err) {
				return errorResult(err.Error()), nil
			}
			return Result{}, fmt.Errorf("read clipboard: %w", err)
		}
		return textResult(text), nil
	case "write_clipboard":
		c, ok := d.(ClipboardAccess)
		if !ok {
			return errorResult("write_clipboard is not available: this desktop offers no clipboard access"), nil
		}
		text, _ := m["text"].(string)
		if err := c.SetClipboard(ctx, text); err != nil {
			if refused(err) {
				return errorResult(err.Error()), nil
			}
			return Result{}, fmt.Errorf("write clipboard: %w", err)
		}
		return textResult("OK"), nil
	}
	return errorResult(fmt.Sprintf("unknown tool %q", name)), nil
}

// openApplication activates a window whose title or class contains app
// (case-insensitively), or else starts the program named app.
func openApplication(ctx context.Context, d Desktop, app string) (Result, error) {
	app = strings.TrimSpace(app)
	if app == "" {
		return errorResult("app: empty application name"), nil
	}
	if wm, ok := d.(WindowManager); ok {
		wins, err := wm.Windows(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("list windows: %w", err)
		}
		if w, ok := matchWindow(wins, app); ok {
			if err := wm.ActivateWindow(ctx, w.ID); err != nil {
				if refused(err) {
					return errorResult(err.Error()), nil
				}
				return Result{}, fmt.Errorf("activate window: %w", err)
			}
			return textResult(fmt.Sprintf("Activated window %q.", w.Title)), nil
		}
	}
	prog := strings.ToLower(app)
	res, err := d.Exec(ctx, api.ExecRequest{
		Cmd:       []string{"sh", "-c", `command -v "$1" >/dev/null 2>&1 || exit 127; setsid "$1" >/dev/null 2>&1 </dev/null &`, "sh", prog},
		TimeoutMS: 10_000,
	})
	if err != nil {
		return Result{}, fmt.Errorf("start %s: %w", prog, err)
	}
	if res.ExitCode == 127 {
		return errorResult(fmt.Sprintf("no application %q: no open window matches it and no program %q is installed", app, prog)), nil
	}
	if res.ExitCode != 0 {
		return errorResult(fmt.Sprintf("start %s: exit status %d: %s", prog, res.ExitCode, strings.TrimSpace(res.Stderr))), nil
	}
	return textResult(fmt.Sprintf("Started %s.", prog)), nil
}

// matchWindow finds the window whose title or class contains name,
// preferring the active one.
func matchWindow(wins []api.Window, name string) (api.Window, bool) {
	name = strings.ToLower(name)
	var found *api.Window
	for i, w := range wins {
		if strings.Contains(strings.ToLower(w.Title), name) || strings.Contains(strings.ToLower(w.Class), name) {
			if found == nil || w.Active {
				found = &wins[i]
			}
		}
	}
	if found == nil {
		return api.Window{}, false
	}
	return *found, true
}

func jsonResult(v any) Result {
	b, _ := json.MarshalIndent(v, "", "  ")
	return Result{Content: []Part{{Type: "text", Text: string(b)}}, Structured: v}
}
