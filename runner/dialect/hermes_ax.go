package dialect

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// Limits of hermes' max_elements.
const (
	hermesDefaultElements = 100
	hermesMaxElements     = 1000
)

// accessible answers the hermes calls that need the accessibility tree:
// capture in modes som (the default) and ax, and click, drag and set_value
// by element index. done is false for the calls it leaves to compile.
func (h hermes) accessible(ctx context.Context, d Desktop, ax Accessible, st *State, act string, m map[string]any) (Result, bool, error) {
	_, byElement := m["element"]
	_, byFrom := m["from_element"]
	_, byTo := m["to_element"]
	switch {
	case act == "capture":
		mode, _ := m["mode"].(string)
		if mode == "vision" {
			return Result{}, false, nil
		}
		r, err := h.capture(ctx, ax, st, mode, m)
		return r, true, err
	case act == "set_value":
		r, err := h.setValue(ctx, ax, st, m)
		return r, true, err
	case byElement && (act == "click" || act == "double_click" || act == "right_click" || act == "middle_click"):
	case act == "drag" && (byFrom || byTo):
	default:
		return Result{}, false, nil
	}
	r, err := h.elementInput(ctx, d, ax, st, act, m)
	return r, true, err
}

func (h hermes) capture(ctx context.Context, ax Accessible, st *State, mode string, m map[string]any) (Result, error) {
	app, _ := m["app"].(string)
	maxEl := hermesDefaultElements
	if f, ok := number(m["max_elements"]); ok {
		if f != float64(int(f)) || f < 1 || f > hermesMaxElements {
			return errorResult(fmt.Sprintf("max_elements must be an integer between 1 and %d, got %s", hermesMaxElements, fmtCoord(f))), nil
		}
		maxEl = int(f)
	}
	var els []api.Element
	var img []byte
	meta := map[string]any{}
	if mode == "ax" {
		a, err := ax.Accessibility(ctx, api.A11yList, app)
		if err != nil {
			return axError(err)
		}
		els = a.Elements
		meta["partial"] = a.Partial
	} else {
		mode = "som"
		s, err := ax.SetOfMarks(ctx, app, 0)
		if err != nil {
			return axError(err)
		}
		els, img = s.Elements, s.Image
		meta["width"], meta["height"] = s.Width, s.Height
		meta["partial"] = s.Partial
		st.screen = s.Screen
		st.shot = api.Screen{Width: s.Width, Height: s.Height}
	}
	st.elements = els
	meta["mode"] = mode
	if app != "" {
		meta["app"] = app
	}
	shown := els
	if len(els) > maxEl {
		shown = els[:maxEl]
		meta["total_elements"] = len(els)
		meta["truncated_elements"] = len(els) - maxEl
	}
	type el struct {
		Index  int      `json:"index"`
		Role   string   `json:"role"`
		Name   string   `json:"name"`
		Value  string   `json:"value,omitempty"`
		States []string `json:"states,omitempty"`
		Bounds [4]int   `json:"bounds"`
		App    string   `json:"app,omitempty"`
		ID     string   `json:"id"`
	}
	list := make([]el, len(shown))
	for i, e := range shown {
		list[i] = el{e.Index, e.Role, e.Name, e.Value, e.States, [4]int{e.Bounds.X, e.Bounds.Y, e.Bounds.W, e.Bounds.H}, e.App, e.ID}
	}
	meta["elements"] = list
	res := jsonResult(meta)
	if img != nil {
		res.Content = append(res.Content, Part{Type: "image", MIMEType: "image/png", Data: img,
			Width: meta["width"].(int), Height: meta["height"].(int)})
	}
	return res, nil
}

// axError turns a tree error into the model's answer: no tree is a tool
// error, anything else the caller's.
func axError(err error) (Result, error) {
	if errdefs.IsUnavailable(err) || errdefs.IsNotFound(err) || errdefs.IsFailedPrecondition(err) || errdefs.IsInvalidArgument(err) {
		return errorResult(err.Error()), nil
	}
	return Result{}, err
}

// element resolves an index of the last capture to the element as it is
// now (its current box), or a message for the model.
func (h hermes) element(ctx context.Context, ax Accessible, st *State, field string, m map[string]any) (api.Element, string, error) {
	f, ok := number(m[field])
	if !ok || f != float64(int(f)) {
		return api.Element{}, fmt.Sprintf("%s must be an integer element index", field), nil
	}
	i := int(f)
	if len(st.elements) == 0 {
		return api.Element{}, fmt.Sprintf("%s %d is not in the last capture, which listed no elements; capture again (mode 'som' or 'ax')", field, i), nil
	}
	if i < 1 || i > len(st.elements) {
		return api.Element{}, fmt.Sprintf("%s %d is not in the last capture, which numbered elements 1 to %d; capture again (mode 'som' or 'ax')", field, i, len(st.elements)), nil
	}
	e := st.elements[i-1]
	a, err := ax.Accessibility(ctx, api.A11yList, "")
	if err != nil {
		return api.Element{}, "", err
	}
	k := slices.IndexFunc(a.Elements, func(x api.Element) bool { return x.ID == e.ID })
	if k < 0 {
		return api.Element{}, fmt.Sprintf("%s %d (%s %q) is stale: it is no longer on the screen; capture again", field, i, e.Role, e.Name), nil
	}
	return a.Elements[k], "", nil
}

func center(e api.Element) (int, int) { return e.Bounds.X + e.Bounds.W/2, e.Bounds.Y + e.Bounds.H/2 }

func (h hermes) elementInput(ctx context.Context, d Desktop, ax Accessible, st *State, act string, m map[string]any) (Result, error) {
	var mods []string
	for _, it := range asList(m["modifiers"]) {
		s, _ := it.(string)
		k, err := comboKey(s, true)
		if err != nil {
			return errorResult(fmt.Sprintf("modifiers: %v", err)), nil
		}
		if !slices.Contains(mods, k) {
			mods = append(mods, k)
		}
	}
	var actions []api.Action
	var what string
	if act == "drag" {
		var pts [2][2]int
		for j, f := range []string{"from_element", "to_element"} {
			if _, ok := m[f]; !ok {
				alt := strings.Replace(f, "element", "coordinate", 1)
				c := floats(m[alt])
				if c == nil {
					return errorResult(fmt.Sprintf("drag needs %s or %s", f, alt)), nil
				}
				e, err := st.loadEnv(ctx, d)
				if err != nil {
					return Result{}, err
				}
				p, err := e.toScreen(screenSpace, c[0], c[1])
				if err != nil {
					return errorResult(fmt.Sprintf("%s: %v", alt, err)), nil
				}
				pts[j] = [2]int{p.X, p.Y}
				continue
			}
			e, msg, err := h.element(ctx, ax, st, f, m)
			if err != nil || msg != "" {
				return errorOr(msg, err)
			}
			x, y := center(e)
			pts[j] = [2]int{x, y}
		}
		button, _ := m["button"].(string)
		actions = []api.Action{{Type: api.ActionDrag, Button: button, Path: [][2]int{pts[0], pts[1]}}}
		what = "Dragged."
	} else {
		e, msg, err := h.element(ctx, ax, st, "element", m)
		if err != nil || msg != "" {
			return errorOr(msg, err)
		}
		x, y := center(e)
		click := api.Action{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: &x, Y: &y}
		if b, _ := m["button"].(string); b != "" {
			click.Button = b
		}
		switch act {
		case "double_click":
			click.Count = 2
		case "right_click":
			click.Button = api.ButtonRight
		case "middle_click":
			click.Button = api.ButtonMiddle
		}
		actions = []api.Action{click}
		what = fmt.Sprintf("Clicked element %d (%s %q) at (%d, %d).", elIndex(m), e.Role, e.Name, x, y)
	}
	for i := len(mods) - 1; i >= 0; i-- {
		actions = append([]api.Action{{Type: api.ActionKeyDown, Key: mods[i]}}, actions...)
		actions = append(actions, api.Action{Type: api.ActionKeyUp, Key: mods[i]})
	}
	if _, err := d.Input(ctx, actions); err != nil {
		return axError(err)
	}
	return h.after(ctx, ax, st, m, textResult(what))
}

func errorOr(msg string, err error) (Result, error) {
	if err != nil {
		return axError(err)
	}
	return errorResult(msg), nil
}

// after appends a som capture when capture_after asks for one.
func (h hermes) after(ctx context.Context, ax Accessible, st *State, m map[string]any, r Result) (Result, error) {
	if after, _ := m["capture_after"].(bool); !after {
		return r, nil
	}
	c, err := h.capture(ctx, ax, st, "som", m)
	if err != nil || c.IsError {
		return c, err
	}
	r.Content = append(r.Content, c.Content...)
	return r, nil
}

func (h hermes) setValue(ctx context.Context, ax Accessible, st *State, m map[string]any) (Result, error) {
	v, ok := m["value"].(string)
	if !ok {
		return errorResult("set_value needs value, the option's label, a number or text"), nil
	}
	if _, ok := m["element"]; !ok {
		return errorResult("set_value needs element, the index of a select, slider or text field from the last capture"), nil
	}
	e, msg, err := h.element(ctx, ax, st, "element", m)
	if err != nil || msg != "" {
		return errorOr(msg, err)
	}
	if err := ax.ElementAction(ctx, api.ElementAction{ID: e.ID, Action: api.ElementSetValue, Value: v}); err != nil {
		return axError(err)
	}
	return h.after(ctx, ax, st, m, textResult(fmt.Sprintf("Set element %d (%s %q) to %q.", elIndex(m), e.Role, e.Name, v)))
}

func elIndex(m map[string]any) int {
	f, _ := number(m["element"])
	return int(f)
}
