package dialect

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// The window tools of seeds/003 (written there for Win32: a bound HWND,
// ShowWindow, SendMessageW) carried over to X: a bound window, EWMH
// requests through the window manager, XTEST input after activating the
// window (X has one keyboard focus and one pointer, which the answers
// say), and the teach tools, which need a person watching the screen and
// are refused.

// anthWindowTools run without a plan.
var anthWindowTools = []string{
	"window_management", "bind_window", "activate_window", "virtual_keyboard", "virtual_mouse",
	"mouse_wheel", "prompt_respond", "status_indicator", "open_terminal",
	"request_teach_access", "teach_step", "teach_batch",
}

// teachRefusal answers the teach tools.
const teachRefusal = "teach mode is not available: it shows tooltips to a person watching the screen and waits " +
	"for them to click Next, and no one watches a deskrun sandbox. Do the work with the other tools " +
	"(computer_batch runs several actions in one call)."

// How long the window tools wait for the window manager to carry out a
// request, and for a terminal's window to appear.
const (
	windowWait   = 2 * time.Second
	terminalWait = 10 * time.Second
	windowPoll   = 25 * time.Millisecond
)

// windowSettle is how long an activated window must stay in place before
// input is sent to it. The golden tests, whose fake window manager acts
// at once, set it to zero so that their traces do not depend on timing.
var windowSettle = 150 * time.Millisecond

// boundWindow is the window bind_window chose.
type boundWindow struct {
	id    uint32
	title string
}

// indicator is the label status_indicator shows: the process drawing it.
type indicator struct {
	pid     int
	message string
}

func hwnd(id uint32) string { return fmt.Sprintf("%#x", id) }

// windowFacts is a window as the window tools answer it.
func windowFacts(w api.Window) map[string]any {
	m := map[string]any{"hwnd": hwnd(w.ID), "title": w.Title, "active": w.Active}
	if w.PID != 0 {
		m["pid"] = w.PID
	}
	if w.Class != "" {
		m["class"] = w.Class
	}
	if b := w.Bounds; b != nil {
		m["rect"] = map[string]int{"x": b.X, "y": b.Y, "width": b.W, "height": b.H}
		m["minimized"], m["maximized"] = w.Minimized, w.Maximized
	}
	return m
}

// describe names a window and, when known, its rectangle and state.
func describe(w api.Window) string {
	s := fmt.Sprintf("window %s %q", hwnd(w.ID), w.Title)
	if b := w.Bounds; b != nil {
		s += fmt.Sprintf(" at (%d, %d), %dx%d", b.X, b.Y, b.W, b.H)
		if w.Minimized {
			s += ", minimized"
		}
		if w.Maximized {
			s += ", maximized"
		}
	}
	return s
}

// windowResult is a text answer with the window's facts as structured
// content.
func windowResult(text string, w api.Window) Result {
	r := textResult(text)
	r.Structured = windowFacts(w)
	return r
}

// windowFailure turns a failed window call into a tool error when the
// desktop refused it (no such window, bad placement), and into an error
// otherwise.
func windowFailure(what string, err error) (Result, error) {
	if refused(err) {
		return errorResult(fmt.Sprintf("%s: %s", what, errMessage(err))), nil
	}
	return Result{}, fmt.Errorf("%s: %w", what, err)
}

// windowTool answers the tools of anthWindowTools.
func (a anthropic) windowTool(ctx context.Context, d Desktop, st *State, name string, m map[string]any) (Result, error) {
	switch name {
	case "request_teach_access", "teach_step", "teach_batch":
		return errorResult(name + ": " + teachRefusal), nil
	case "status_indicator":
		return statusIndicator(ctx, d, st, m)
	}
	wm, ok1 := d.(WindowManager)
	wc, ok2 := d.(WindowControl)
	if !ok1 || !ok2 {
		return errorResult(name + " is not available: this desktop offers no window control"), nil
	}
	switch name {
	case "bind_window":
		return bindWindow(ctx, wm, wc, st, m)
	case "open_terminal":
		return openTerminal(ctx, d, wm, st, m)
	}
	w, msg, err := st.boundWindow(ctx, wc, name)
	if err != nil || msg != "" {
		if err != nil {
			return windowFailure("read the bound window", err)
		}
		return errorResult(msg), nil
	}
	switch name {
	case "window_management":
		return windowManagement(ctx, wc, st, w, m)
	case "activate_window":
		return activateWindow(ctx, d, wc, st, w, m)
	case "virtual_keyboard":
		return virtualKeyboard(ctx, d, wc, st, w, m)
	case "virtual_mouse":
		return virtualMouse(ctx, d, wc, st, w, m)
	case "mouse_wheel":
		return mouseWheel(ctx, d, wc, st, w, m)
	case "prompt_respond":
		return promptRespond(ctx, d, wc, st, w, m)
	}
	return errorResult(fmt.Sprintf("unknown tool %q", name)), nil
}

// boundWindow reads the bound window; msg is the tool error when none is
// bound or it has gone (which ends the binding).
func (st *State) boundWindow(ctx context.Context, wc WindowControl, tool string) (api.Window, string, error) {
	if st.bound == nil {
		return api.Window{}, tool + `: no window is bound; call bind_window with action "list", then "bind" with a title, hwnd or pid`, nil
	}
	w, err := wc.Window(ctx, st.bound.id)
	if errdefs.IsNotFound(err) {
		b := st.bound
		st.bound = nil
		return api.Window{}, fmt.Sprintf("%s: the bound window %s %q no longer exists; bind another with bind_window", tool, hwnd(b.id), b.title), nil
	}
	if err != nil {
		return api.Window{}, "", err
	}
	if w.Bounds == nil {
		return api.Window{}, "", fmt.Errorf("window %s: the desktop did not say where it is", hwnd(w.ID))
	}
	return w, "", nil
}

// boundCapture is the part of the screen a full screenshot shows: the
// bound window's client area where it is on the screen, nil for the
// whole screen (nothing bound, or the window minimized or off the
// screen). A bound window that has gone ends the binding.
func (st *State) boundCapture(ctx context.Context, d Desktop, screen api.Screen) (*api.Rect, error) {
	wc, ok := d.(WindowControl)
	if st.bound == nil || !ok {
		return nil, nil
	}
	w, err := wc.Window(ctx, st.bound.id)
	if errdefs.IsNotFound(err) {
		st.bound = nil
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the bound window: %w", err)
	}
	return visible(w, screen), nil
}

// visible is the part of w's client area on the screen, or nil if none.
func visible(w api.Window, screen api.Screen) *api.Rect {
	b := w.Bounds
	if b == nil || w.Minimized {
		return nil
	}
	r := api.Rect{X0: max(b.X, 0), Y0: max(b.Y, 0), X1: min(b.X+b.W, screen.Width), Y1: min(b.Y+b.H, screen.Height)}
	if r.Empty() {
		return nil
	}
	return &r
}

// awaitWindow reads window id until cond holds or windowWait passes; the
// last reading is returned with whether cond held. A window that is gone
// is returned with ok false and a nil error if cond accepts gone
// windows (gone is then true).
func awaitWindow(ctx context.Context, wc WindowControl, id uint32, cond func(w api.Window, gone bool) bool) (w api.Window, ok bool, err error) {
	deadline := time.Now().Add(windowWait)
	for {
		w, err = wc.Window(ctx, id)
		gone := errdefs.IsNotFound(err)
		if err != nil && !gone {
			return w, false, err
		}
		if cond(w, gone) {
			return w, true, nil
		}
		if gone {
			return w, false, err
		}
		if time.Now().After(deadline) {
			return w, false, nil
		}
		select {
		case <-ctx.Done():
			return w, false, ctx.Err()
		case <-time.After(windowPoll):
		}
	}
}

// bindWindow answers bind_window.
func bindWindow(ctx context.Context, wm WindowManager, wc WindowControl, st *State, m map[string]any) (Result, error) {
	action, _ := m["action"].(string)
	switch action {
	case "status":
		if st.bound == nil {
			r := textResult("No window is bound.")
			r.Structured = map[string]any{"bound": nil}
			return r, nil
		}
		w, msg, err := st.boundWindow(ctx, wc, "bind_window")
		if err != nil {
			return windowFailure("read the bound window", err)
		}
		if msg != "" {
			return errorResult(msg), nil
		}
		return windowResult("Bound to "+describe(w)+".", w), nil
	case "unbind":
		if st.bound == nil {
			return textResult("No window was bound."), nil
		}
		b := st.bound
		st.bound = nil
		return textResult(fmt.Sprintf("Unbound window %s %q.", hwnd(b.id), b.title)), nil
	}
	wins, err := wm.Windows(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list windows: %w", err)
	}
	if action == "list" {
		list := make([]map[string]any, 0, len(wins))
		var lines []string
		for _, w := range wins {
			list = append(list, windowFacts(w))
			line := fmt.Sprintf("%s pid=%d %q", hwnd(w.ID), w.PID, w.Title)
			if w.Class != "" {
				line += " class=" + w.Class
			}
			if w.Active {
				line += " (active)"
			}
			if st.bound != nil && st.bound.id == w.ID {
				line += " (bound)"
			}
			lines = append(lines, line)
		}
		text := "No windows are open."
		if len(lines) > 0 {
			text = strings.Join(lines, "\n")
		}
		r := textResult(text)
		r.Structured = map[string]any{"windows": list}
		return r, nil
	}
	// bind
	title, hasTitle := m["title"].(string)
	handle, hasHandle := m["hwnd"].(string)
	pidF, hasPID := number(m["pid"])
	if !hasTitle && !hasHandle && !hasPID {
		return errorResult("bind_window: bind needs title, hwnd or pid"), nil
	}
	var id uint64
	if hasHandle {
		id, err = strconv.ParseUint(strings.TrimSpace(handle), 0, 32)
		if err != nil {
			return errorResult(fmt.Sprintf("hwnd: want a window id from list such as 0x1a00004, got %q", handle)), nil
		}
	}
	var found *api.Window
	for i, w := range wins {
		if hasHandle && uint64(w.ID) != id ||
			hasTitle && !strings.Contains(strings.ToLower(w.Title), strings.ToLower(title)) ||
			hasPID && w.PID != int(pidF) {
			continue
		}
		if found == nil || w.Active {
			found = &wins[i]
		}
	}
	if found == nil {
		var crit []string
		if hasHandle {
			crit = append(crit, "hwnd "+handle)
		}
		if hasTitle {
			crit = append(crit, fmt.Sprintf("title %q", title))
		}
		if hasPID {
			crit = append(crit, "pid "+fmtCoord(pidF))
		}
		return errorResult(fmt.Sprintf("no window matches %s; call bind_window with action \"list\" to see the windows", strings.Join(crit, " and "))), nil
	}
	w, err := wc.Window(ctx, found.ID)
	if err != nil {
		return windowFailure("read window "+hwnd(found.ID), err)
	}
	st.bound = &boundWindow{id: w.ID, title: w.Title}
	return windowResult("Bound to "+describe(w)+". window_management, activate_window, virtual_keyboard, virtual_mouse, "+
		"mouse_wheel, prompt_respond and status_indicator now act on it; input to it activates it first (X has one "+
		"keyboard focus and one pointer). Screenshots now show this window alone, and the coordinates of the "+
		"other tools refer to them; unbind to see the whole screen again.", w), nil
}

// windowManagement answers window_management on the bound window w.
func windowManagement(ctx context.Context, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	action, _ := m["action"].(string)
	id := w.ID
	change := func(act string, place api.WindowPlacement) (Result, bool, error) {
		if err := wc.ChangeWindow(ctx, id, act, place); err != nil {
			r, err := windowFailure(action+" "+describe(w), err)
			return r, false, err
		}
		return Result{}, true, nil
	}
	report := func(verb string, got api.Window, ok bool, otherwise string) (Result, error) {
		if !ok {
			return windowResult(fmt.Sprintf("%s %s, but %s: it is now %s.", verb, hwnd(id), otherwise, describe(got)), got), nil
		}
		return windowResult(fmt.Sprintf("%s; it is now %s.", verb, describe(got)), got), nil
	}
	after := func(verb string, cond func(api.Window) bool, otherwise string) (Result, error) {
		got, ok, err := awaitWindow(ctx, wc, id, func(x api.Window, gone bool) bool { return !gone && cond(x) })
		if err != nil {
			return windowFailure("read "+describe(w), err)
		}
		return report(verb, got, ok, otherwise)
	}
	// A move is read back once: the desktop answers it after the window
	// manager has placed the window.
	afterMove := func(verb string, cond func(api.Window) bool, otherwise string) (Result, error) {
		got, err := wc.Window(ctx, id)
		if err != nil {
			return windowFailure("read "+describe(w), err)
		}
		return report(verb, got, cond(got), otherwise)
	}
	switch action {
	case "get_rect":
		return windowResult(strings.ToUpper(describe(w)[:1])+describe(w)[1:]+".", w), nil
	case "minimize":
		if r, ok, err := change(api.WindowMinimize, api.WindowPlacement{}); !ok {
			return r, err
		}
		return after("Minimized the window", func(x api.Window) bool { return x.Minimized }, "the window manager has not minimized it yet")
	case "maximize":
		if r, ok, err := change(api.WindowMaximize, api.WindowPlacement{}); !ok {
			return r, err
		}
		return after("Maximized the window", func(x api.Window) bool { return x.Maximized }, "the window manager has not maximized it yet")
	case "restore":
		if r, ok, err := change(api.WindowRestore, api.WindowPlacement{}); !ok {
			return r, err
		}
		return after("Restored the window", func(x api.Window) bool { return !x.Minimized && !x.Maximized }, "it is not back yet")
	case "focus":
		if r, ok, err := change(api.WindowActivate, api.WindowPlacement{}); !ok {
			return r, err
		}
		return after("Focused the window", func(x api.Window) bool { return x.Active }, "the window manager has not made it active")
	case "close":
		if r, ok, err := change(api.WindowClose, api.WindowPlacement{}); !ok {
			return r, err
		}
		_, closed, err := awaitWindow(ctx, wc, id, func(_ api.Window, gone bool) bool { return gone })
		if err != nil && !errdefs.IsNotFound(err) {
			return windowFailure("read "+describe(w), err)
		}
		if closed {
			st.bound = nil
			return textResult(fmt.Sprintf("Closed %s; no window is bound now.", describe(w))), nil
		}
		return textResult(fmt.Sprintf("Asked %s to close; it is still open (it may be asking something, such as whether to save): take a screenshot.", describe(w))), nil
	case "move_offscreen":
		x, y := -32000, -32000
		if r, ok, err := change(api.WindowMoveResize, api.WindowPlacement{X: &x, Y: &y}); !ok {
			return r, err
		}
		return afterMove("Moved the window off the screen", func(g api.Window) bool { return g.Bounds.X == x && g.Bounds.Y == y },
			"the window manager keeps part of it on the screen")
	case "move_resize":
		var place api.WindowPlacement
		for _, f := range []struct {
			name string
			dst  **int
		}{{"x", &place.X}, {"y", &place.Y}, {"width", &place.Width}, {"height", &place.Height}} {
			if v, ok := number(m[f.name]); ok {
				n := int(v)
				*f.dst = &n
			}
		}
		if place.X == nil && place.Y == nil && place.Width == nil && place.Height == nil {
			return errorResult("window_management: move_resize needs x, y, width or height"), nil
		}
		if err := place.Validate(); err != nil {
			return errorResult("window_management: " + errMessage(err)), nil
		}
		if r, ok, err := change(api.WindowMoveResize, place); !ok {
			return r, err
		}
		want := *w.Bounds
		for _, f := range []struct {
			dst *int
			src *int
		}{{&want.X, place.X}, {&want.Y, place.Y}, {&want.W, place.Width}, {&want.H, place.Height}} {
			if f.src != nil {
				*f.dst = *f.src
			}
		}
		return afterMove("Moved and resized the window", func(g api.Window) bool { return *g.Bounds == want },
			fmt.Sprintf("the window manager did not place it at (%d, %d), %dx%d", want.X, want.Y, want.W, want.H))
	}
	return errorResult(fmt.Sprintf("window_management: unknown action %q", action)), nil
}

// activate raises and focuses w and waits until it is active; msg is the
// tool error when the window manager did not make it active.
func activate(ctx context.Context, wc WindowControl, w api.Window) (api.Window, string, error) {
	if err := wc.ChangeWindow(ctx, w.ID, api.WindowActivate, api.WindowPlacement{}); err != nil {
		if refused(err) {
			return w, fmt.Sprintf("activate %s: %s", describe(w), errMessage(err)), nil
		}
		return w, "", fmt.Errorf("activate window: %w", err)
	}
	got, ok, err := awaitWindow(ctx, wc, w.ID, func(x api.Window, gone bool) bool { return !gone && x.Active && !x.Minimized })
	if err != nil {
		if refused(err) {
			return w, fmt.Sprintf("activate %s: %s", describe(w), errMessage(err)), nil
		}
		return w, "", fmt.Errorf("activate window: %w", err)
	}
	if !ok {
		return got, fmt.Sprintf("%s did not become active within %v (minimized or refused by the window manager?); nothing was sent", describe(w), windowWait), nil
	}
	// A window coming back from minimized may still be moving (window
	// managers animate it): wait until it has stayed in one place and
	// active for windowSettle.
	deadline := time.Now().Add(windowWait)
	since := time.Now()
	for time.Now().Before(deadline) && time.Since(since) < windowSettle {
		select {
		case <-ctx.Done():
			return w, "", ctx.Err()
		case <-time.After(windowPoll):
		}
		x, err := wc.Window(ctx, w.ID)
		if err != nil {
			if refused(err) {
				return w, fmt.Sprintf("activate %s: %s", describe(w), errMessage(err)), nil
			}
			return w, "", fmt.Errorf("activate window: %w", err)
		}
		if *x.Bounds != *got.Bounds || x.Active != got.Active || x.Minimized != got.Minimized {
			since = time.Now()
		}
		got = x
	}
	if !got.Active || got.Minimized {
		return got, fmt.Sprintf("%s did not stay active (refused by the window manager?); nothing was sent", describe(got)), nil
	}
	return got, "", nil
}

// clientPoint checks a point of w's client area; at converts it to the
// screen once w is where it will be (activating a minimized window can
// move it).
func clientPoint(w api.Window, field string, x, y float64) error {
	b := w.Bounds
	if x < 0 || y < 0 || x >= float64(b.W) || y >= float64(b.H) {
		return toolErrorf("%s (%s, %s) is outside the bound window's client area (%dx%d)", field, fmtCoord(x), fmtCoord(y), b.W, b.H)
	}
	return nil
}

// at converts a checked point of w's client area to the screen; points
// off the screen are refused.
func at(w api.Window, screen api.Screen, field string, x, y float64) (api.Point, error) {
	b := w.Bounds
	p := api.Point{X: b.X + int(x), Y: b.Y + int(y)}
	if p.X < 0 || p.Y < 0 || (screen.Width > 0 && p.X >= screen.Width) || (screen.Height > 0 && p.Y >= screen.Height) {
		return api.Point{}, toolErrorf("%s (%s, %s) of the bound window is off the screen (the window is at %d, %d); move it with window_management",
			field, fmtCoord(x), fmtCoord(y), b.X, b.Y)
	}
	return p, nil
}

// sendTo activates w, then runs the steps build makes for the window as
// it is once active; text ends the answer.
func sendTo(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, build func(got api.Window) ([]Step, string, error)) (Result, error) {
	got, msg, err := activate(ctx, wc, w)
	if err != nil {
		return Result{}, err
	}
	if msg != "" {
		return errorResult(msg), nil
	}
	steps, text, err := build(got)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	res, err := st.execute(ctx, d, Plan{Steps: append(steps, textStep(text))})
	if err == nil && !res.IsError {
		res.Structured = windowFacts(got)
	}
	return res, err
}

func activateWindow(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	cx, cy := float64(w.Bounds.W/2), float64(w.Bounds.H/2)
	if v, ok := number(m["click_x"]); ok {
		cx = v
	}
	if v, ok := number(m["click_y"]); ok {
		cy = v
	}
	const field = "click_x, click_y"
	if err := clientPoint(w, field, cx, cy); err != nil {
		return errorResult("activate_window: " + errMessage(err)), nil
	}
	return sendTo(ctx, d, wc, st, w, func(got api.Window) ([]Step, string, error) {
		p, err := at(got, e.screen, field, cx, cy)
		if err != nil {
			return nil, "", toolErrorf("activate_window: %s", errMessage(err))
		}
		click := api.Action{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: &p.X, Y: &p.Y}
		return []Step{inputStep(click)}, fmt.Sprintf("Activated %s and clicked at (%s, %s) of its client area.", describe(got), fmtCoord(cx), fmtCoord(cy)), nil
	})
}

func virtualKeyboard(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	action, _ := m["action"].(string)
	text, _ := m["text"].(string)
	repeat := 1
	if v, ok := number(m["repeat"]); ok {
		repeat = int(v)
	}
	var once []api.Action
	keys := func() ([]string, error) {
		k, err := parseCombo(strings.TrimSpace(text), false)
		if err != nil {
			return nil, toolErrorf("virtual_keyboard: text: %v", err)
		}
		return k, nil
	}
	switch action {
	case "type":
		once = typeActions(text)
	case "combo":
		k, err := keys()
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		once = []api.Action{{Type: api.ActionKey, Keys: k}}
	case "press", "release":
		k, err := keys()
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		if len(k) != 1 {
			return errorResult(fmt.Sprintf("virtual_keyboard: text: %s takes one key name, got %q", action, text)), nil
		}
		typ := api.ActionKeyDown
		if action == "release" {
			typ = api.ActionKeyUp
		}
		once = []api.Action{{Type: typ, Key: k[0]}}
	case "hold":
		k, err := keys()
		if err != nil {
			return errorResult(errMessage(err)), nil
		}
		dur := 1.0
		if v, ok := number(m["duration"]); ok {
			dur = v
		}
		if err := checkDuration(dur); err != nil {
			return errorResult("virtual_keyboard: " + errMessage(err)), nil
		}
		for _, key := range k {
			once = append(once, api.Action{Type: api.ActionKeyDown, Key: key})
		}
		once = append(once, waitActions(dur)...)
		for i := len(k) - 1; i >= 0; i-- {
			once = append(once, api.Action{Type: api.ActionKeyUp, Key: k[i]})
		}
	default:
		return errorResult(fmt.Sprintf("virtual_keyboard: unknown action %q", action)), nil
	}
	var actions []api.Action
	for range repeat {
		actions = append(actions, once...)
	}
	var steps []Step
	if len(actions) > 0 {
		steps = append(steps, inputStep(actions...))
	}
	times := ""
	if repeat > 1 {
		times = fmt.Sprintf(" %d times", repeat)
	}
	return sendTo(ctx, d, wc, st, w, func(got api.Window) ([]Step, string, error) {
		return steps, fmt.Sprintf("Activated %s and sent %s%s.", describe(got), action, times), nil
	})
}

func virtualMouse(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	action, _ := m["action"].(string)
	c := floats(m["coordinate"])
	if err := clientPoint(w, "coordinate", c[0], c[1]); err != nil {
		return errorResult("virtual_mouse: " + errMessage(err)), nil
	}
	s := floats(m["start_coordinate"])
	if s != nil {
		if err := clientPoint(w, "start_coordinate", s[0], s[1]); err != nil {
			return errorResult("virtual_mouse: " + errMessage(err)), nil
		}
	}
	switch action {
	case "click", "double_click", "right_click", "move", "down", "up", "drag":
	default:
		return errorResult(fmt.Sprintf("virtual_mouse: unknown action %q", action)), nil
	}
	return sendTo(ctx, d, wc, st, w, func(got api.Window) ([]Step, string, error) {
		p, err := at(got, e.screen, "coordinate", c[0], c[1])
		if err != nil {
			return nil, "", toolErrorf("virtual_mouse: %s", errMessage(err))
		}
		click := func(button string, count int) []Step {
			return []Step{inputStep(api.Action{Type: api.ActionClick, Button: button, Count: count, X: &p.X, Y: &p.Y})}
		}
		var steps []Step
		switch action {
		case "click":
			steps = click(api.ButtonLeft, 1)
		case "double_click":
			steps = click(api.ButtonLeft, 2)
		case "right_click":
			steps = click(api.ButtonRight, 1)
		case "move":
			steps = []Step{inputStep(api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y})}
		case "down", "up":
			typ := api.ActionButtonDown
			if action == "up" {
				typ = api.ActionButtonUp
			}
			steps = []Step{inputStep(api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y}, api.Action{Type: typ, Button: api.ButtonLeft})}
		case "drag":
			if s != nil {
				from, err := at(got, e.screen, "start_coordinate", s[0], s[1])
				if err != nil {
					return nil, "", toolErrorf("virtual_mouse: %s", errMessage(err))
				}
				steps = []Step{inputStep(api.Action{Type: api.ActionDrag, Button: api.ButtonLeft, Path: [][2]int{{from.X, from.Y}, {p.X, p.Y}}})}
			} else {
				steps = []Step{{Op: opDragFromCursor, To: &p, Button: api.ButtonLeft}}
			}
		}
		return steps, fmt.Sprintf("Activated %s and did %s at (%s, %s) of its client area (screen %d, %d).",
			describe(got), action, fmtCoord(c[0]), fmtCoord(c[1]), p.X, p.Y), nil
	})
}

func mouseWheel(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	c := floats(m["coordinate"])
	if err := clientPoint(w, "coordinate", c[0], c[1]); err != nil {
		return errorResult("mouse_wheel: " + errMessage(err)), nil
	}
	df, _ := number(m["delta"])
	delta := int(df)
	if delta < -api.MaxScroll || delta > api.MaxScroll {
		return errorResult(fmt.Sprintf("mouse_wheel: delta must be between -%d and %d, got %d", api.MaxScroll, api.MaxScroll, delta)), nil
	}
	dir, _ := m["direction"].(string)
	return sendTo(ctx, d, wc, st, w, func(got api.Window) ([]Step, string, error) {
		p, err := at(got, e.screen, "coordinate", c[0], c[1])
		if err != nil {
			return nil, "", toolErrorf("mouse_wheel: %s", errMessage(err))
		}
		s := api.Action{Type: api.ActionScroll, X: &p.X, Y: &p.Y}
		what := ""
		switch {
		case dir == "horizontal" && delta > 0:
			s.DX, what = delta, fmt.Sprintf("right %d", delta)
		case dir == "horizontal":
			s.DX, what = delta, fmt.Sprintf("left %d", -delta)
		case delta > 0:
			s.DY, what = -delta, fmt.Sprintf("up %d", delta)
		default:
			s.DY, what = -delta, fmt.Sprintf("down %d", -delta)
		}
		if delta == 0 {
			s = api.Action{Type: api.ActionMove, X: &p.X, Y: &p.Y}
		}
		return []Step{inputStep(s)}, fmt.Sprintf("Activated %s and scrolled %s clicks at (%s, %s) of its client area.",
			describe(got), what, fmtCoord(c[0]), fmtCoord(c[1])), nil
	})
}

func promptRespond(ctx context.Context, d Desktop, wc WindowControl, st *State, w api.Window, m map[string]any) (Result, error) {
	kind, _ := m["response_type"].(string)
	enter := api.Action{Type: api.ActionKey, Keys: []string{"Return"}}
	var actions []api.Action
	switch kind {
	case "yes":
		actions = []api.Action{{Type: api.ActionType, Text: "y"}, enter}
	case "no":
		actions = []api.Action{{Type: api.ActionType, Text: "n"}, enter}
	case "enter":
		actions = []api.Action{enter}
	case "escape":
		actions = []api.Action{{Type: api.ActionKey, Keys: []string{"Escape"}}}
	case "select":
		n := 1
		if v, ok := number(m["arrow_count"]); ok {
			n = int(v)
		}
		arrow := "Down"
		if dir, _ := m["arrow_direction"].(string); dir == "up" {
			arrow = "Up"
		}
		if n > 0 {
			a := api.Action{Type: api.ActionKey, Keys: []string{arrow}}
			if n > 1 {
				a.Repeat = n
			}
			actions = append(actions, a)
		}
		actions = append(actions, enter)
	case "type":
		text, ok := m["text"].(string)
		if !ok {
			return errorResult("prompt_respond: text is required for response_type type"), nil
		}
		actions = append(typeActions(text), enter)
	default:
		return errorResult(fmt.Sprintf("prompt_respond: unknown response_type %q", kind)), nil
	}
	return sendTo(ctx, d, wc, st, w, func(got api.Window) ([]Step, string, error) {
		return []Step{inputStep(actions...)}, fmt.Sprintf("Activated %s and answered %s.", describe(got), kind), nil
	})
}

// statusIndicator answers status_indicator: an xmessage label made
// override-redirect (the window manager leaves it alone, so it takes no
// focus), at the bottom of the bound window or of the screen.
func statusIndicator(ctx context.Context, d Desktop, st *State, m map[string]any) (Result, error) {
	action, _ := m["action"].(string)
	alive := func() (bool, error) {
		if st.indicator == nil {
			return false, nil
		}
		res, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"kill", "-0", itoa(st.indicator.pid)}, TimeoutMS: 5_000})
		if err != nil {
			return false, fmt.Errorf("check the status indicator: %w", err)
		}
		return res.ExitCode == 0, nil
	}
	hide := func() error {
		if st.indicator == nil {
			return nil
		}
		_, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"kill", itoa(st.indicator.pid)}, TimeoutMS: 5_000})
		if err != nil {
			return fmt.Errorf("hide the status indicator: %w", err)
		}
		st.indicator = nil
		return nil
	}
	switch action {
	case "status":
		on, err := alive()
		if err != nil {
			return Result{}, err
		}
		if !on {
			st.indicator = nil
			r := textResult("The status indicator is not showing.")
			r.Structured = map[string]any{"active": false}
			return r, nil
		}
		r := textResult(fmt.Sprintf("The status indicator shows %q.", st.indicator.message))
		r.Structured = map[string]any{"active": true, "message": st.indicator.message}
		return r, nil
	case "hide":
		if st.indicator == nil {
			return textResult("The status indicator was not showing."), nil
		}
		if err := hide(); err != nil {
			return Result{}, err
		}
		return textResult("Hid the status indicator."), nil
	case "show":
		msg, _ := m["message"].(string)
		if strings.TrimSpace(msg) == "" {
			return errorResult("status_indicator: message is required for action show"), nil
		}
		if err := hide(); err != nil {
			return Result{}, err
		}
		e, err := st.loadEnv(ctx, d)
		if err != nil {
			return Result{}, err
		}
		x, y, where := 8, e.screen.Height-40, "the bottom of the screen"
		if st.bound != nil {
			if wc, ok := d.(WindowControl); ok {
				if w, err := wc.Window(ctx, st.bound.id); err == nil && w.Bounds != nil {
					b := w.Bounds
					x, y, where = b.X+8, b.Y+b.H-40, "the bottom of "+describe(w)
				}
			}
		}
		x = max(0, min(x, e.screen.Width-40))
		y = max(0, min(y, e.screen.Height-30))
		res, err := d.Exec(ctx, api.ExecRequest{
			Cmd: []string{"sh", "-c", indicatorScript, "sh", msg, fmt.Sprintf("+%d+%d", x, y)}, TimeoutMS: 10_000,
		})
		if err != nil {
			return Result{}, fmt.Errorf("show the status indicator: %w", err)
		}
		if res.ExitCode == 127 {
			return errorResult("status_indicator is not available: xmessage (x11-utils) is not installed in this sandbox"), nil
		}
		pid, perr := strconv.Atoi(strings.TrimSpace(res.Stdout))
		if res.ExitCode != 0 || perr != nil {
			return errorResult(fmt.Sprintf("status_indicator: the label did not start: exit status %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))), nil
		}
		st.indicator = &indicator{pid: pid, message: msg}
		r := textResult(fmt.Sprintf("Showing %q at %s; it stays until hide.", msg, where))
		r.Structured = map[string]any{"active": true, "message": msg, "x": x, "y": y}
		return r, nil
	}
	return errorResult(fmt.Sprintf("status_indicator: unknown action %q", action)), nil
}

// indicatorScript starts the label: $1 the message (read from stdin, so
// no text is taken for an option), $2 its position; it prints the pid.
const indicatorScript = `command -v xmessage >/dev/null 2>&1 || exit 127
printf '%s' "$1" | setsid xmessage -file - -buttons '' -geometry "$2" -xrm '*overrideRedirect: True' -xrm '*borderWidth: 0' \
  -bg '#1f2937' -fg '#f9fafb' -title 'deskrun status' >/dev/null 2>&1 &
echo $!`

// terminalScript starts a terminal: $1 the terminal (default, xterm or
// gnome-terminal), $2 the directory ("" for home), $3 the command, $4 a
// program that must exist. Exit 2: no such directory; 126: no terminal;
// 127: the program is missing. It prints the terminal it started.
const terminalScript = `dir=${2:-$HOME}
cd "$dir" 2>/dev/null || { echo "no directory $dir" >&2; exit 2; }
if [ -n "$4" ] && ! command -v "$4" >/dev/null 2>&1; then exit 127; fi
term=$1
if [ "$term" = default ]; then
  for t in xterm gnome-terminal x-terminal-emulator; do
    if command -v "$t" >/dev/null 2>&1; then term=$t; break; fi
  done
fi
command -v "$term" >/dev/null 2>&1 || { echo "no terminal $term" >&2; exit 126; }
run='eval "$1"; exec "${SHELL:-/bin/sh}" -i'
case $term in
gnome-terminal) setsid gnome-terminal --working-directory="$dir" -- sh -c "$run" sh "$3" >/dev/null 2>&1 </dev/null & ;;
*) setsid "$term" -e sh -c "$run" sh "$3" >/dev/null 2>&1 </dev/null & ;;
esac
echo "$term"`

// openTerminal answers open_terminal: a terminal running the command,
// whose new window is bound, and a screenshot.
func openTerminal(ctx context.Context, d Desktop, wm WindowManager, st *State, m map[string]any) (Result, error) {
	agent, _ := m["agent"].(string)
	command, check := agent, agent
	if agent == "custom" {
		command, _ = m["command"].(string)
		check = ""
		if strings.TrimSpace(command) == "" {
			return errorResult("open_terminal: command is required when agent is custom"), nil
		}
	}
	term, _ := m["terminal"].(string)
	switch term {
	case "", "wt":
		term = "default"
	case "powershell", "cmd":
		return errorResult(fmt.Sprintf("open_terminal: terminal %s is a Windows program and this sandbox runs Linux; leave terminal out, or use xterm or gnome-terminal", term)), nil
	}
	dir, _ := m["working_directory"].(string)
	before, err := wm.Windows(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("list windows: %w", err)
	}
	res, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", terminalScript, "sh", term, dir, command, check}, TimeoutMS: 10_000})
	if err != nil {
		return Result{}, fmt.Errorf("start a terminal: %w", err)
	}
	switch res.ExitCode {
	case 0:
	case 2:
		return errorResult(fmt.Sprintf("working_directory: no directory %q in the sandbox", dir)), nil
	case 126:
		return errorResult(fmt.Sprintf("open_terminal: %s", strings.TrimSpace(res.Stderr))), nil
	case 127:
		return errorResult(fmt.Sprintf("open_terminal: %s is not installed in this sandbox; use agent custom with a command", check)), nil
	default:
		return errorResult(fmt.Sprintf("open_terminal: exit status %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr))), nil
	}
	started := strings.TrimSpace(res.Stdout)
	deadline := time.Now().Add(terminalWait)
	var w *api.Window
	for w == nil {
		wins, err := wm.Windows(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("list windows: %w", err)
		}
		for i, x := range wins {
			if !slices.ContainsFunc(before, func(b api.Window) bool { return b.ID == x.ID }) {
				w = &wins[i]
				break
			}
		}
		if w != nil {
			break
		}
		if time.Now().After(deadline) {
			return errorResult(fmt.Sprintf("open_terminal: %s started, but no new window appeared within %v", started, terminalWait)), nil
		}
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case <-time.After(windowPoll * 4):
		}
	}
	st.bound = &boundWindow{id: w.ID, title: w.Title}
	e, err := st.loadEnv(ctx, d)
	if err != nil {
		return Result{}, err
	}
	text := fmt.Sprintf("Opened %s running %q and bound its window %s %q.", started, command, hwnd(w.ID), w.Title)
	if e.capture, err = st.boundCapture(ctx, d, e.screen); err != nil {
		return Result{}, err
	}
	out, err := st.execute(ctx, d, Plan{Steps: []Step{textStep(text), e.shotStep(true)}})
	if err == nil && !out.IsError {
		out.Structured = windowFacts(*w)
	}
	return out, err
}
