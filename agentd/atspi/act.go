package atspi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// ErrStale says an element no longer exists (its application closed it or
// exited).
var ErrStale = errors.New("element no longer exists")

// Node reads one object (without its children).
func (c *Client) Node(ctx context.Context, r Ref) (*Node, error) {
	actx, cancel := context.WithTimeout(ctx, c.opt.AppBudget)
	defer cancel()
	w := &walker{c: c, ctx: actx, sem: make(chan struct{}, 1)}
	n := &Node{Ref: r, ID: r.ID()}
	w.fill(n)
	if n.Partial {
		if strings.Contains(n.Error, "UnknownObject") || strings.Contains(n.Error, "ServiceUnknown") || strings.Contains(n.Error, "UnknownMethod") {
			return nil, fmt.Errorf("%w: %s", ErrStale, r.ID())
		}
		return nil, fmt.Errorf("read element %s: %s", r.ID(), n.Error)
	}
	if n.Has("defunct") {
		return nil, fmt.Errorf("%w: %s", ErrStale, r.ID())
	}
	return n, nil
}

// DoAction runs the object's action by name (the first of "click", "press",
// "activate", "toggle", "jump" when name is empty).
func (c *Client) DoAction(ctx context.Context, n *Node, name string) error {
	want := []string{name}
	if name == "" {
		want = []string{"click", "press", "activate", "toggle", "jump", "open", "select"}
	}
	for _, w := range want {
		for i, a := range n.Actions {
			if strings.EqualFold(a.Name, w) {
				var ok bool
				if err := c.call(ctx, n.Ref, ifAction+".DoAction", int32(i)).Store(&ok); err != nil {
					return fmt.Errorf("action %s on %s: %w", a.Name, n.ID, err)
				}
				if !ok {
					return fmt.Errorf("action %s on %s was refused", a.Name, n.ID)
				}
				return nil
			}
		}
	}
	names := make([]string, len(n.Actions))
	for i, a := range n.Actions {
		names[i] = a.Name
	}
	return fmt.Errorf("element %s (%s %q) has no action %q (it has: %s)", n.ID, n.Role, n.Name, name, strings.Join(names, ", "))
}

// Focus gives the object the keyboard focus.
func (c *Client) Focus(ctx context.Context, n *Node) error {
	var ok bool
	if err := c.call(ctx, n.Ref, ifComponent+".GrabFocus").Store(&ok); err != nil {
		return fmt.Errorf("focus %s: %w", n.ID, err)
	}
	return nil
}

// SetText replaces the text of an editable object.
func (c *Client) SetText(ctx context.Context, n *Node, text string) error {
	if !n.Implements("EditableText") {
		return fmt.Errorf("element %s (%s %q) has no editable text", n.ID, n.Role, n.Name)
	}
	var ok bool
	if err := c.call(ctx, n.Ref, ifEditable+".SetTextContents", text).Store(&ok); err != nil {
		return fmt.Errorf("set the text of %s: %w", n.ID, err)
	}
	if !ok {
		return fmt.Errorf("element %s refused the text", n.ID)
	}
	return nil
}

// SetValue sets the object's value: a number through the Value interface
// (sliders, spin buttons), an option by its label for a combo box or list
// (through Selection, or the option's action), text for an editable object.
func (c *Client) SetValue(ctx context.Context, n *Node, value string) error {
	if n.Implements("Value") && !n.Has("editable") {
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return fmt.Errorf("element %s (%s) takes a number, not %q", n.ID, n.Role, value)
		}
		if v := n.Value; v != nil && v.Min != nil && v.Max != nil && *v.Max > *v.Min && (f < *v.Min || f > *v.Max) {
			return fmt.Errorf("value %v is outside %s's range [%v, %v]", f, n.ID, *v.Min, *v.Max)
		}
		err = c.call(ctx, n.Ref, ifProps+".Set", ifValue, "CurrentValue", dbus.MakeVariant(f)).Err
		if err != nil {
			return fmt.Errorf("set the value of %s: %w", n.ID, err)
		}
		return nil
	}
	if n.Role == "combo box" || n.Role == "list box" || n.Role == "list" || n.Role == "menu" || n.Role == "page tab list" || n.Selection {
		return c.selectOption(ctx, n, value)
	}
	if n.Implements("EditableText") {
		return c.SetText(ctx, n, value)
	}
	return fmt.Errorf("element %s (%s %q) takes no value: it is neither a select, a slider nor editable text", n.ID, n.Role, n.Name)
}

// selectOption picks the option labelled value under n.
func (c *Client) selectOption(ctx context.Context, n *Node, label string) error {
	actx, cancel := context.WithTimeout(ctx, c.opt.AppBudget)
	defer cancel()
	w := &walker{c: c, ctx: actx, sem: make(chan struct{}, c.opt.Concurrency)}
	full := w.node(n.Ref, MaxDepth-6, "")
	var found, parent *Node
	var idx, optIdx int
	var options []string
	var walk func(p, x *Node)
	walk = func(p, x *Node) {
		for i, k := range x.Children {
			if k.Role == "menu item" || k.Role == "list item" || k.Role == "option" || k.Role == "check menu item" || k.Role == "radio menu item" || k.Role == "page tab" || k.Role == "table cell" {
				name := k.Name
				if name == "" {
					name = k.Text
				}
				if found == nil && strings.EqualFold(strings.TrimSpace(name), strings.TrimSpace(label)) {
					found, parent, idx, optIdx = k, x, i, len(options)
				}
				options = append(options, name)
			}
			walk(x, k)
		}
	}
	walk(nil, full)
	if found == nil {
		return fmt.Errorf("element %s (%s %q) has no option %q (options: %s)", n.ID, n.Role, n.Name, label, strings.Join(options, ", "))
	}
	// a combo box selects its options itself (GTK: the active item)
	if parent != full && full.Selection && (full.Role == "combo box") {
		var ok bool
		if err := c.call(ctx, full.Ref, ifSelection+".SelectChild", int32(optIdx)).Store(&ok); err == nil && ok {
			return nil
		}
	}
	if parent.Selection {
		var ok bool
		if err := c.call(ctx, parent.Ref, ifSelection+".SelectChild", int32(idx)).Store(&ok); err == nil && ok {
			return nil
		}
	}
	if len(found.Actions) > 0 {
		return c.DoAction(ctx, found, "")
	}
	return fmt.Errorf("option %q of %s can be neither selected nor activated", label, n.ID)
}

// Query finds objects by name (case-insensitive, partial), role (role name,
// spaces or dashes) and id; empty criteria match all.
type Query struct {
	Name string
	Role string
	ID   string
}

// Find returns the nodes of d matching q, interactable ones first.
func (d *Desktop) Find(q Query, screenW, screenH int) []*Node {
	name := strings.ToLower(strings.TrimSpace(q.Name))
	role := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(q.Role), "-", " "))
	var hit, rest []*Node
	var walk func(n *Node)
	walk = func(n *Node) {
		ok := (name == "" || strings.Contains(strings.ToLower(n.Name), name)) &&
			(role == "" || strings.ToLower(n.Role) == role || strings.ReplaceAll(strings.ToLower(n.Role), " ", "") == strings.ReplaceAll(role, " ", "")) &&
			(q.ID == "" || n.ID == q.ID)
		if ok && n.Role != "application" {
			if n.Interactable(screenW, screenH) {
				hit = append(hit, n)
			} else {
				rest = append(rest, n)
			}
		}
		for _, k := range n.Children {
			walk(k)
		}
	}
	for _, a := range d.Apps {
		walk(a)
	}
	// exact names before partial ones
	if name != "" {
		exact := func(n *Node) int {
			if strings.ToLower(strings.TrimSpace(n.Name)) == name {
				return 0
			}
			return 1
		}
		slices.SortStableFunc(hit, func(a, b *Node) int { return exact(a) - exact(b) })
		slices.SortStableFunc(rest, func(a, b *Node) int { return exact(a) - exact(b) })
	}
	return append(hit, rest...)
}

// WaitFor polls until pred holds for a fresh snapshot or the timeout passes;
// it is meant for tests and for settling after an action.
func (c *Client) WaitFor(ctx context.Context, timeout time.Duration, opt SnapshotOptions, pred func(*Desktop) bool) (*Desktop, error) {
	deadline := time.Now().Add(timeout)
	opt.Fresh = true
	for {
		d, err := c.Snapshot(ctx, opt)
		if err == nil && pred(d) {
			return d, nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("condition not met")
			}
			return d, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
