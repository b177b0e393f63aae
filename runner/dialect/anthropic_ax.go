package dialect

import (
	"context"
	"fmt"
	"strings"

	"github.com/deskrun/deskrun/api"
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

// findElement looks an element up by name (case-insensitive, partial;
// exact names first), role and id among the desktop's interactable
// elements.
func findElement(ctx context.Context, ax Accessible, m map[string]any) (api.Element, string, error) {
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
	n := strings.ToLower(strings.TrimSpace(name))
	var best *api.Element
	for i := range a.Elements {
		e := &a.Elements[i]
		if id != "" && e.ID != id || !roleMatches(role, e.Role) || n != "" && !strings.Contains(strings.ToLower(e.Name), n) {
			continue
		}
		if best == nil || n != "" && strings.ToLower(strings.TrimSpace(e.Name)) == n && strings.ToLower(strings.TrimSpace(best.Name)) != n {
			best = e
		}
	}
	if best == nil {
		var crit []string
		for k, v := range map[string]string{"name": name, "role": role, "automationId": id} {
			if v != "" {
				crit = append(crit, fmt.Sprintf("%s %q", k, v))
			}
		}
		return api.Element{}, fmt.Sprintf("no element on the screen matches %s; take a screenshot or check the names", strings.Join(crit, " and ")), nil
	}
	return *best, "", nil
}

// elementTool answers click_element and type_into_element.
func elementTool(ctx context.Context, d Desktop, name string, m map[string]any) (Result, error) {
	ax, ok := d.(Accessible)
	if !ok {
		return errorResult(name + " is not available: this desktop has no accessibility tree"), nil
	}
	e, msg, err := findElement(ctx, ax, m)
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
