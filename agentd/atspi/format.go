package atspi

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// Namespaces of OSWorld's accessibility XML for Linux, in the order its
// root declares them (the contract's).
var Namespaces = api.A11yNamespaces

// XML writes the desktop as OSWorld's desktop server answers /accessibility
// on Linux: a desktop-frame root declaring the namespaces, one element per
// object named by its role (spaces as dashes), the name attribute, st:
// states, attr: attributes, cp:screencoord and cp:size for visible showing
// objects, image and selection flags, val: value fields, act: action
// descriptions and key bindings, and the text as element text.
func (d *Desktop) XML() string {
	var b strings.Builder
	b.WriteString("<desktop-frame")
	for _, ns := range Namespaces {
		fmt.Fprintf(&b, ` xmlns:%s="%s"`, ns.Prefix, ns.URI)
	}
	if len(d.Apps) == 0 {
		b.WriteString("/>")
		return b.String()
	}
	b.WriteString(">")
	for _, a := range d.Apps {
		writeNode(&b, a)
	}
	b.WriteString("</desktop-frame>")
	return b.String()
}

// Tag is the element name of a role: spaces as dashes, "unknown" when
// empty.
func Tag(role string) string {
	role = strings.TrimSpace(role)
	if role == "" {
		return "unknown"
	}
	return strings.ReplaceAll(role, " ", "-")
}

func writeNode(b *strings.Builder, n *Node) {
	tag := Tag(n.Role)
	if !validName(tag) {
		tag = "unknown"
	}
	b.WriteString("<" + tag)
	attr := func(name, v string) {
		b.WriteString(" " + name + `="`)
		escAttr(b, v)
		b.WriteString(`"`)
	}
	attr("name", n.Name)
	for _, s := range n.States {
		attr("st:"+s, "true")
	}
	for _, a := range n.Attrs {
		if validName(a.Name) {
			attr("attr:"+a.Name, a.Value)
		}
	}
	if n.Bounds != nil {
		attr("cp:screencoord", fmt.Sprintf("(%d, %d)", n.Bounds.X, n.Bounds.Y))
		attr("cp:size", fmt.Sprintf("(%d, %d)", n.Bounds.W, n.Bounds.H))
	}
	if n.Image {
		attr("image", "true")
	}
	if n.Selection {
		attr("selection", "true")
	}
	if v := n.Value; v != nil {
		for _, f := range []struct {
			k string
			v *float64
		}{{"value", v.Current}, {"min", v.Min}, {"max", v.Max}, {"step", v.Step}} {
			if f.v != nil {
				attr("val:"+f.k, py.Float(*f.v))
			}
		}
	}
	for _, a := range n.Actions {
		name := strings.ReplaceAll(a.Name, " ", "-")
		if !validName(name + "_desc") {
			continue
		}
		attr("act:"+name+"_desc", a.Description)
		attr("act:"+name+"_kb", a.KeyBinding)
	}
	if n.Text == "" && len(n.Children) == 0 {
		b.WriteString("/>")
		return
	}
	b.WriteString(">")
	escText(b, n.Text)
	for _, k := range n.Children {
		writeNode(b, k)
	}
	b.WriteString("</" + tag + ">")
}

// validName reports whether s is an XML name without a colon.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xC0 && r != 0xD7 && r != 0xF7
		if i > 0 {
			ok = ok || r == '-' || r == '.' || r >= '0' && r <= '9' || r == 0xB7
		}
		if !ok {
			return false
		}
	}
	return true
}

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// escAttr escapes as libxml2 does inside double quotes.
func escAttr(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\n':
			b.WriteString("&#10;")
		case '\r':
			b.WriteString("&#13;")
		case '\t':
			b.WriteString("&#9;")
		default:
			if r == utf8.RuneError || !xmlChar(r) {
				continue
			}
			b.WriteRune(r)
		}
	}
}

// escText escapes element text as libxml2 does.
func escText(b *strings.Builder, s string) {
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#13;")
		default:
			if r == utf8.RuneError || !xmlChar(r) {
				continue
			}
			b.WriteRune(r)
		}
	}
}

// Element is one interactable object in a capture's list: Index counts
// from 1 in reading order and matches the set-of-marks label.
type Element struct {
	Index  int      `json:"index"`
	ID     string   `json:"id"`
	Role   string   `json:"role"`
	Name   string   `json:"name"`
	Value  string   `json:"value,omitempty"`
	States []string `json:"states,omitempty"`
	Bounds Rect     `json:"bounds"`
	App    string   `json:"app"`
	// Actions are the names of its actions.
	Actions []string `json:"actions,omitempty"`
}

// interactive roles: objects of these roles are listed when visible.
var interactiveRoles = map[string]bool{
	"push button": true, "toggle button": true, "check box": true, "radio button": true, "combo box": true,
	"menu item": true, "check menu item": true, "radio menu item": true, "menu": true, "link": true,
	"entry": true, "password text": true, "spin button": true, "slider": true, "page tab": true,
	"list item": true, "tree item": true, "table cell": true, "icon": true, "text": true, "scroll bar": true,
	"button": true, "tool bar item": true, "tearoff menu item": true, "terminal": true, "editbar": true,
	"push button menu": true, "toggle": true, "heading": false,
}

// Interactable reports whether the object is worth a mark: visible and
// showing, with a box on the screen, and a control (by role, or because it
// has actions or takes focus or text).
func (n *Node) Interactable(screenW, screenH int) bool {
	if n.Bounds == nil || n.Bounds.W <= 0 || n.Bounds.H <= 0 {
		return false
	}
	b := n.Bounds
	if b.X+b.W <= 0 || b.Y+b.H <= 0 || screenW > 0 && b.X >= screenW || screenH > 0 && b.Y >= screenH {
		return false
	}
	if !n.Has("showing") || !n.Has("visible") {
		return false
	}
	if !n.Has("enabled") && !n.Has("editable") && !n.Has("sensitive") {
		return false
	}
	if screenW > 0 && b.W >= screenW && b.H >= screenH {
		return false // the whole screen is no target
	}
	if interactiveRoles[n.Role] {
		return true
	}
	return len(n.Actions) > 0 && n.Role != "frame" && n.Role != "window" && n.Role != "filler" && n.Role != "panel" ||
		n.Has("editable") || n.Has("focusable") && n.Role != "frame" && n.Role != "window"
}

// Elements lists the interactable objects of the desktop in reading order
// (application, then depth first).
func (d *Desktop) Elements(screenW, screenH int) []Element {
	var out []Element
	var walk func(app string, n *Node)
	walk = func(app string, n *Node) {
		if n.Interactable(screenW, screenH) {
			out = append(out, Element{Index: len(out) + 1, ID: n.ID, Role: n.Role, Name: n.Name, Value: n.ValueText(),
				States: briefStates(n.States), Bounds: *n.Bounds, App: app, Actions: n.ActionNames()})
		}
		for _, k := range n.Children {
			walk(app, k)
		}
	}
	for _, a := range d.Apps {
		walk(a.Name, a)
	}
	return out
}

// ActionNames lists the names of the node's actions.
func (n *Node) ActionNames() []string {
	if len(n.Actions) == 0 {
		return nil
	}
	out := make([]string, len(n.Actions))
	for i, a := range n.Actions {
		out[i] = a.Name
	}
	return out
}

// ValueText is what a model reads as the object's value: the Value
// interface's current value, else the text of an editable object.
func (n *Node) ValueText() string {
	if n.Value != nil && n.Value.Current != nil {
		return strconv.FormatFloat(*n.Value.Current, 'f', -1, 64)
	}
	if n.Text != "" && (n.Has("editable") || n.Role == "combo box") {
		return n.Text
	}
	return ""
}

// states a model cares about in the list.
var listedStates = map[string]bool{"focused": true, "checked": true, "selected": true, "expanded": true,
	"collapsed": true, "editable": true, "pressed": true, "indeterminate": true, "read_only": true, "modal": true}

func briefStates(s []string) []string {
	var out []string
	for _, x := range s {
		if listedStates[x] {
			out = append(out, x)
		}
	}
	if !contains(s, "enabled") && !contains(s, "sensitive") {
		out = append(out, "disabled")
	}
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// List writes elements one per line for a model:
// `[3] push button "OK" value="…" (focused) @(x,y,w,h) id=…`.
func List(els []Element) string {
	var b strings.Builder
	for _, e := range els {
		fmt.Fprintf(&b, "[%d] %s %q", e.Index, e.Role, e.Name)
		if e.Value != "" {
			fmt.Fprintf(&b, " value=%q", e.Value)
		}
		if len(e.States) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(e.States, ","))
		}
		fmt.Fprintf(&b, " @(%d,%d,%d,%d) id=%s\n", e.Bounds.X, e.Bounds.Y, e.Bounds.W, e.Bounds.H, e.ID)
	}
	return b.String()
}
