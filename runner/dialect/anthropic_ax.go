package dialect

import (
	"context"
	"fmt"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/pick"
)

// control types of Windows UI Automation (seeds/003 names them) and the
// AT-SPI roles they stand for.
var controlRoles = map[string][]string{
	"button": {"push button", "toggle button", "button"}, "menuitem": {"menu item", "check menu item", "radio menu item"},
	"edit": {"text", "entry", "password text", "spin button"}, "link": {"link"}, "combobox": {"combo box"},
	"checkbox": {"check box"}, "radiobutton": {"radio button"}, "slider": {"slider"}, "tabitem": {"page tab"},
	"listitem": {"list item"}, "treeitem": {"tree item"}, "menu": {"menu"}, "hyperlink": {"link"},
	"text": {"text", "label", "static"}, "document": {"document web", "document frame", "document text"},
}

func roleMatches(want, role string) bool {
	w := strings.ToLower(strings.TrimSpace(want))
	if w == "" {
		return true
	}
	r := strings.ToLower(role)
	if strings.ReplaceAll(w, "-", " ") == r || strings.ReplaceAll(w, " ", "") == strings.ReplaceAll(r, " ", "") {
		return true
	}
	for _, x := range controlRoles[strings.ReplaceAll(w, " ", "")] {
		if x == r {
			return true
		}
	}
	return false
}

// findElement looks an element up by name, role and id among the
// desktop's interactable elements, as a person would (package pick): an
// exact name before a prefix before a substring (case-insensitive), then
// the element that can take the verb (an entry for typing, something with
// a click or press action for clicking) before static text and labels;
// several equally good candidates are answered with their list, not a
// guess.
func findElement(ctx context.Context, ax Accessible, m map[string]any, verb pick.Verb) (api.Element, string, error) {
	name, _ := m["name"].(string)
	role, _ := m["role"].(string)
	id, _ := m["automationId"].(string)
	if strings.TrimSpace(name) == "" && strings.TrimSpace(role) == "" && id == "" {
		return api.Element{}, "name, role or automationId is required", nil
	}
	a, err := ax.Accessibility(ctx, api.A11yList, "")
	if err != nil {
		return api.Element{}, "", err
	}
	var els []api.Element
	var cands []pick.Candidate
	for _, e := range a.Elements {
		if id != "" && e.ID != id || !roleMatches(role, e.Role) {
			continue
		}
		els = append(els, e)
		cands = append(cands, pick.Candidate{Name: e.Name, Role: e.Role, Actions: e.Actions, States: e.States})
	}
	r := pick.Choose(name, verb, cands)
	if len(r.Tied) > 0 {
		return api.Element{}, fmt.Sprintf("%d elements match name %q equally well (%s match); say which with automationId (or role): %s", len(r.Tied), name, r.Match,
			pick.Describe(len(r.Tied), func(i int) string {
				e := els[r.Tied[i]]
				return fmt.Sprintf("%s %q at (%d, %d) automationId=%s", e.Role, e.Name, e.Bounds.X+e.Bounds.W/2, e.Bounds.Y+e.Bounds.H/2, e.ID)
			})), nil
	}
	if r.Index < 0 {
		var crit []string
		for _, kv := range [][2]string{{"name", name}, {"role", role}, {"automationId", id}} {
			if kv[1] != "" {
				crit = append(crit, fmt.Sprintf("%s %q", kv[0], kv[1]))
			}
		}
		return api.Element{}, fmt.Sprintf("no element on the screen matches %s; take a screenshot or check the names", strings.Join(crit, " and ")), nil
	}
	return els[r.Index], "", nil
}

// elementTool answers click_element and type_into_element.
func elementTool(ctx context.Context, d Desktop, name string, m map[string]any) (Result, error) {
	ax, ok := d.(Accessible)
	if !ok {
		return errorResult(name + " is not available: this desktop has no accessibility tree"), nil
	}
	verb := pick.Click
	if name == "type_into_element" {
		verb = pick.Type
	}
	e, msg, err := findElement(ctx, ax, m, verb)
	if err != nil {
		return axError(err)
	}
	if msg != "" {
		return errorResult(msg), nil
	}
	x, y := e.Bounds.X+e.Bounds.W/2, e.Bounds.Y+e.Bounds.H/2
	click := func() error {
		_, err := d.Input(ctx, []api.Action{{Type: api.ActionClick, Button: api.ButtonLeft, Count: 1, X: &x, Y: &y}})
		return err
	}
	if name == "click_element" {
		if err := ax.ElementAction(ctx, api.ElementAction{ID: e.ID, Action: api.ElementClick}); err != nil {
			if err := click(); err != nil {
				return axError(err)
			}
			return textResult(fmt.Sprintf("Clicked %s %q at (%d, %d).", e.Role, e.Name, x, y)), nil
		}
		return textResult(fmt.Sprintf("Clicked %s %q.", e.Role, e.Name)), nil
	}
	text, _ := m["text"].(string)
	if err := ax.ElementAction(ctx, api.ElementAction{ID: e.ID, Action: api.ElementSetValue, Value: text}); err != nil {
		if err := click(); err != nil {
			return axError(err)
		}
		if _, err := d.Input(ctx, typeActions(text)); err != nil {
			return axError(err)
		}
		return textResult(fmt.Sprintf("Clicked %s %q and typed the text.", e.Role, e.Name)), nil
	}
	return textResult(fmt.Sprintf("Set %s %q to %q.", e.Role, e.Name, text)), nil
}
