package atspi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/pick"
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
	// the options in order, with their parents and indexes there; the
	// one meant is chosen as a person would (package pick)
	type option struct {
		node, parent *Node
		idx          int
	}
	var opts []option
	var cands []pick.Candidate
	var options []string
	var walk func(x *Node)
	walk = func(x *Node) {
		for i, k := range x.Children {
			if k.Role == "menu item" || k.Role == "list item" || k.Role == "option" || k.Role == "check menu item" || k.Role == "radio menu item" || k.Role == "page tab" || k.Role == "table cell" {
				name := k.Name
				if name == "" {
					name = k.Text
				}
				opts = append(opts, option{k, x, i})
				cands = append(cands, pick.Candidate{Name: name, Role: k.Role, Actions: k.ActionNames(), States: k.States})
				options = append(options, name)
			}
			walk(k)
		}
	}
	walk(full)
	r := pick.Choose(label, pick.Select, cands)
	if len(r.Tied) > 0 {
		return fmt.Errorf("element %s (%s %q) has several options matching %q (%s match): %s; give the whole label", n.ID, n.Role, n.Name, label, r.Match,
			pick.Describe(len(r.Tied), func(i int) string { return strconv.Quote(options[r.Tied[i]]) }))
	}
	if r.Index < 0 {
		return fmt.Errorf("element %s (%s %q) has no option %q (options: %s)", n.ID, n.Role, n.Name, label, strings.Join(options, ", "))
	}
	found, parent, idx, optIdx := opts[r.Index].node, opts[r.Index].parent, opts[r.Index].idx, r.Index
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

// Find returns the nodes of d matching q, interactable ones first, each
// group ordered as [pick] chooses.
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
	// as a person would: exact names before prefixes before the rest,
	// then what can be clicked before what only shows the words
	if name != "" {
		rank := func(n *Node) int {
			return int(pick.MatchName(n.Name, name))*3 + pick.Fitness(pick.Candidate{Name: n.Name, Role: n.Role, Actions: n.ActionNames(), States: n.States}, pick.Click)
		}
		slices.SortStableFunc(hit, func(a, b *Node) int { return rank(a) - rank(b) })
		slices.SortStableFunc(rest, func(a, b *Node) int { return rank(a) - rank(b) })
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
