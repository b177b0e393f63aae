// Package webax builds the accessibility tree of a web page the way
// Chromium shows it over AT-SPI, from two calls of the DevTools protocol
// instead of four or more D-Bus calls per object: Accessibility.
// getFullAXTree (roles as Chromium's internal role, names and their
// sources, properties, DOM node ids) for the page and each of its frames,
// and DOMSnapshot.captureSnapshot (tag names, attributes, computed display
// and text-align, layout boxes, scroll offsets, frame documents).
//
// The nodes are [atspi.Node] values, so the page's subtree takes the place
// of the AT-SPI walk of its "document web" object in the desktop's tree
// (the browser's own toolbar and tabs, and other applications, still come
// from AT-SPI) and OSWorld's XML, the element lists and set-of-marks come
// out the same. What AT-SPI shows and this tree does not, or differently,
// is listed in the package's test (TestCDPMatchesATSPI in agentd).
//
// Roles: Chromium's internal role mapped to the ATK role as
// AXPlatformNodeAuraLinux::GetAtkRole does (roles.go). Objects: the
// unignored nodes, the children of leaf controls left out (their text
// becomes the control's). Screen coordinates: the layout box of the node's
// DOM node (for inline elements, with their descendants' boxes), in the
// document's coordinates, less the document's scroll offset, times the
// device scale, from the document's own box on the screen (the extents of
// its AT-SPI object: the window origin and the browser's toolbar offset);
// frames from their frame element's content box.
package webax

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domsnapshot"
	"github.com/deskrun/deskrun/agentd/atspi"
)

// Page is what the DevTools protocol answers about one page.
type Page struct {
	// Frames holds the AX nodes of each frame (Accessibility.getFullAXTree
	// with its frame id), the main frame's under MainFrame.
	Frames    map[cdp.FrameID][]*accessibility.Node
	MainFrame cdp.FrameID
	// Snapshot is DOMSnapshot.captureSnapshot with the computed styles
	// Styles names, in that order.
	Snapshot *domsnapshot.CaptureSnapshotResult
	// Scale is the device pixels per CSS pixel (window.devicePixelRatio).
	Scale float64
	// AXTook and SnapshotTook are how long the main frame's
	// getFullAXTree and the captureSnapshot took to answer (sent at
	// once).
	AXTook, SnapshotTook time.Duration
}

// Styles are the computed styles a Page's snapshot must carry, in order.
var Styles = []string{"display", "text-align", "direction"}

// Options say where the page is and what to read.
type Options struct {
	// Origin is the box of the page's document on the screen (its "document
	// web" object's extents); nil leaves every node without screen
	// coordinates and not showing.
	Origin *atspi.Rect
	// IDPrefix comes before each node's DOM node id in its ID.
	IDPrefix string
	// Detail is what the caller will read (DetailList leaves out
	// attributes).
	Detail atspi.Detail
}

// Build returns the objects under the page's document (the children of its
// "document web" object), in AT-SPI's order.
func Build(p *Page, o Options) []*atspi.Node {
	b := newBuilder(p, o)
	nodes := p.Frames[p.MainFrame]
	if len(nodes) == 0 {
		return nil
	}
	root := nodes[0]
	f := b.frames[p.MainFrame]
	if f == nil {
		return nil
	}
	var out []*atspi.Node
	for _, c := range root.ChildIDs {
		out = append(out, b.objects(f, c, nil)...)
	}
	return out
}

// frame is one frame's AX nodes by id, and the document of the snapshot
// that is its DOM.
type frame struct {
	byID map[accessibility.NodeID]*accessibility.Node
	doc  int
}

type builder struct {
	p      *Page
	o      Options
	s      []string
	frames map[cdp.FrameID]*frame
	docs   []*docIndex
	// view is the screen box the page shows in
	view       atspi.Rect
	haveOrigin bool
	scale      float64 // device pixels per CSS pixel
	// textObj are the objects of text nodes and line breaks, which are
	// text in their parent's text
	textObj map[*atspi.Node]bool
	// items memoizes unignored for setAttrs (by container and kind), so a
	// long list or a large table costs linear time
	items map[itemsKey]map[accessibility.NodeID]int
}

type itemsKey struct {
	p    *accessibility.Node
	kind int // a role, or -1 for cells
}

// docIndex finds one snapshot document's DOM nodes and layout boxes.
type docIndex struct {
	d         *domsnapshot.DocumentSnapshot
	byBackend map[cdp.BackendNodeID]int // DOM node index
	layout    map[int]int               // layout index by DOM node index
	clickable map[int]bool              // DOM nodes that take clicks
	childDoc  map[int]int               // frame element's DOM node → document index
	// ox, oy: the screen position of the document's origin, scroll applied
	ox, oy float64
	placed bool
}

func newBuilder(p *Page, o Options) *builder {
	b := &builder{p: p, o: o, frames: map[cdp.FrameID]*frame{}, textObj: map[*atspi.Node]bool{}, items: map[itemsKey]map[accessibility.NodeID]int{}}
	b.scale = p.Scale
	if b.scale <= 0 {
		b.scale = 1
	}
	if o.Origin != nil {
		b.view, b.haveOrigin = *o.Origin, true
	}
	frameDoc := map[string]int{}
	if p.Snapshot != nil {
		b.s = p.Snapshot.Strings
		for i, d := range p.Snapshot.Documents {
			x := &docIndex{d: d, byBackend: map[cdp.BackendNodeID]int{}, layout: map[int]int{}, childDoc: map[int]int{}, clickable: map[int]bool{}}
			if n := d.Nodes; n != nil {
				if n.IsClickable != nil {
					for _, j := range n.IsClickable.Index {
						x.clickable[int(j)] = true
					}
				}
				for j, id := range n.BackendNodeID {
					x.byBackend[id] = j
				}
				if c := n.ContentDocumentIndex; c != nil {
					for k, j := range c.Index {
						if k < len(c.Value) {
							x.childDoc[int(j)] = int(c.Value[k])
						}
					}
				}
			}
			if l := d.Layout; l != nil {
				for j, ni := range l.NodeIndex {
					if _, dup := x.layout[int(ni)]; !dup {
						x.layout[int(ni)] = j
					}
				}
			}
			b.docs = append(b.docs, x)
			frameDoc[b.str(d.FrameID)] = i
		}
		if len(b.docs) > 0 && b.haveOrigin {
			top := b.docs[0]
			top.ox = float64(o.Origin.X) - top.d.ScrollOffsetX*b.scale
			top.oy = float64(o.Origin.Y) - top.d.ScrollOffsetY*b.scale
			top.placed = true
			b.place(0)
		}
	}
	for id, nodes := range p.Frames {
		f := &frame{byID: make(map[accessibility.NodeID]*accessibility.Node, len(nodes)), doc: -1}
		for _, n := range nodes {
			f.byID[n.NodeID] = n
		}
		if d, ok := frameDoc[string(id)]; ok {
			f.doc = d
		}
		b.frames[id] = f
	}
	return b
}

// place sets the origins of the documents of doc's frame elements, and
// theirs.
func (b *builder) place(doc int) {
	x := b.docs[doc]
	for el, child := range x.childDoc {
		if child <= 0 || child >= len(b.docs) || b.docs[child].placed {
			continue
		}
		li, ok := x.layout[el]
		if !ok {
			continue
		}
		r := x.d.Layout.Bounds[li]
		cx, cy := r[0], r[1]
		if cr := x.d.Layout.ClientRects; li < len(cr) && len(cr[li]) >= 2 {
			cx, cy = cx+cr[li][0], cy+cr[li][1]
		}
		c := b.docs[child]
		c.ox = x.ox + cx*b.scale - c.d.ScrollOffsetX*b.scale
		c.oy = x.oy + cy*b.scale - c.d.ScrollOffsetY*b.scale
		c.placed = true
		b.place(child)
	}
}

func (b *builder) str(i domsnapshot.StringIndex) string {
	if i < 0 || int(i) >= len(b.s) {
		return ""
	}
	return b.s[i]
}

// dom is an AX node's DOM node: its document and index, ok false when it
// has none in the snapshot.
func (b *builder) dom(f *frame, n *accessibility.Node) (*docIndex, int, bool) {
	if n.BackendDOMNodeID == 0 {
		return nil, 0, false
	}
	if f.doc >= 0 {
		x := b.docs[f.doc]
		if j, ok := x.byBackend[n.BackendDOMNodeID]; ok {
			return x, j, true
		}
	}
	for _, x := range b.docs {
		if j, ok := x.byBackend[n.BackendDOMNodeID]; ok {
			return x, j, true
		}
	}
	return nil, 0, false
}

// objects converts the AX node id and its subtree to the objects AT-SPI
// shows: the node itself, or the objects of its children when it is
// ignored.
func (b *builder) objects(f *frame, id accessibility.NodeID, parent *accessibility.Node) []*atspi.Node {
	n := f.byID[id]
	if n == nil {
		return nil
	}
	if n.Ignored || role(n) == roleNone || role(n) == roleRowGroup {
		var out []*atspi.Node
		for _, c := range n.ChildIDs {
			out = append(out, b.objects(f, c, parent)...)
		}
		return out
	}
	return []*atspi.Node{b.object(f, n, parent)}
}

func role(n *accessibility.Node) int {
	if n.ChromeRole == nil {
		return roleUnknown
	}
	var v int
	if err := json.Unmarshal(n.ChromeRole.Value, &v); err != nil {
		return roleUnknown
	}
	return v
}

func valueString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err == nil {
		return s
	}
	return strings.Trim(string(v.Value), `"`)
}

func valueFloat(v *accessibility.Value) (float64, bool) {
	if v == nil || len(v.Value) == 0 {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(v.Value, &f); err == nil {
		return f, true
	}
	var s string
	if err := json.Unmarshal(v.Value, &s); err == nil {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, true
		}
	}
	return 0, false
}

// props reads an AX node's properties by name, as strings ("true" for
// true booleans).
func props(n *accessibility.Node) map[string]string {
	out := make(map[string]string, len(n.Properties))
	for _, p := range n.Properties {
		if p.Value == nil {
			continue
		}
		out[string(p.Name)] = valueString(p.Value)
	}
	return out
}

// object converts one unignored AX node (and, unless it is a leaf, its
// subtree).
func (b *builder) object(f *frame, n *accessibility.Node, parent *accessibility.Node) *atspi.Node {
	r := role(n)
	pr := props(n)
	x, di, hasDOM := b.dom(f, n)
	out := &atspi.Node{Name: valueString(n.Name)}
	if hasDOM {
		out.ID = b.o.IDPrefix + strconv.FormatInt(int64(n.BackendDOMNodeID), 10)
	} else {
		out.ID = b.o.IDPrefix + "ax" + string(n.NodeID)
	}
	out.Ref = atspi.Ref{Path: out.ID}

	// children first: the text and the bounds of inline elements need them
	var kids []*atspi.Node
	leaf := leafRoles[r]
	if !leaf {
		if r == roleIframe || r == roleIframePresentational {
			kids = b.frameObjects(x, di, hasDOM)
		} else {
			for _, c := range n.ChildIDs {
				kids = append(kids, b.objects(f, c, n)...)
			}
		}
	}
	out.Role = atkRole(r, pr["protected"] == "true" || hasDOM && b.attr(x, di, "type") == "password", len(kids) > 0)

	// the box, and whether it shows
	var box *atspi.Rect
	laid := false
	if hasDOM {
		box, laid = b.box(x, di, kids)
	}
	if r == roleMenuListOption && pr["selected"] == "true" {
		// the selected option of a closed select is shown in the select
		if pb := b.parentSelectBox(f, n); pb != nil {
			box, laid = pb, true
		}
	}
	visible := laid && box != nil
	showing := visible && box.W > 0 && box.H > 0 && b.haveOrigin && intersects(*box, b.view)
	if r == roleLineBreak && visible && box.H > 0 && b.haveOrigin && intersects(atspi.Rect{X: box.X, Y: box.Y, W: max(box.W, 1), H: box.H}, b.view) {
		showing = true
	}

	// states, in AT-SPI's order
	var st []string
	// Chromium shows a read-only field neither enabled nor editable
	readOnlyField := pr["readonly"] == "true" && (textFieldRoles[r] || r == roleSpinButton)
	if pr["disabled"] != "true" && !readOnlyField {
		st = append(st, "enabled", "sensitive")
	}
	if visible {
		st = append(st, "visible")
	}
	if showing {
		st = append(st, "showing")
		out.Bounds = box
	}
	if pr["focusable"] == "true" {
		st = append(st, "focusable")
	}
	if pr["focused"] == "true" {
		st = append(st, "focused")
	}
	editable := pr["editable"] != "" && (textFieldRoles[r] || r == roleSpinButton || pr["editable"] == "richtext")
	root := editableRoot(f, n, pr)
	if editable {
		if !readOnlyField {
			st = append(st, "editable")
		}
		if pr["multiline"] == "true" || root && !textFieldRoles[r] {
			st = append(st, "multi_line")
		} else if textFieldRoles[r] || r == roleSpinButton {
			st = append(st, "single_line")
		}
		if textFieldRoles[r] || r == roleSpinButton || root {
			st = append(st, "selectable_text")
		}
	}
	checkable := r == roleCheckBox || r == roleRadioButton || r == roleSwitch || r == roleMenuItemCheckBox || r == roleMenuItemRadio
	if checkable {
		st = append(st, "checkable")
	}
	switch pr["checked"] {
	case "true":
		st = append(st, "checked")
	case "mixed":
		st = append(st, "indeterminate")
	}
	if pr["pressed"] == "true" {
		st = append(st, "pressed")
	} else if pr["pressed"] == "mixed" {
		st = append(st, "indeterminate")
	}
	if e, ok := pr["expanded"]; ok {
		st = append(st, "expandable")
		if e == "true" {
			st = append(st, "expanded")
		}
	}
	if hp := pr["hasPopup"]; hp != "" && hp != "false" {
		st = append(st, "has_popup")
	}
	if s, ok := pr["selected"]; ok {
		st = append(st, "selectable")
		if s == "true" {
			st = append(st, "selected")
		}
	}
	switch pr["orientation"] {
	case "horizontal":
		st = append(st, "horizontal")
	case "vertical":
		st = append(st, "vertical")
	}
	if pr["readonly"] == "true" {
		st = append(st, "read_only")
	}
	if pr["required"] == "true" {
		st = append(st, "required")
	}
	if pr["multiselectable"] == "true" {
		st = append(st, "multiselectable")
	}
	if pr["modal"] == "true" {
		st = append(st, "modal")
	}
	if inv := pr["invalid"]; inv != "" && inv != "false" {
		st = append(st, "invalid_entry")
	}
	if pr["busy"] == "true" {
		st = append(st, "busy")
	}
	atspi.SortStates(st)
	out.States = st

	// text: a leaf's subtree text, or its text children's text with the
	// objects among them left out (AT-SPI's U+FFFC, which the tree drops)
	switch {
	case textFieldRoles[r] || r == roleSpinButton:
		out.Text = b.fieldValue(n, x, di, hasDOM)
	case textRoles[r] || r == roleListMarker:
		out.Text = out.Name
		b.textObj[out] = true
	case leaf:
		out.Text = b.subtreeText(f, n)
		if out.Name != "" && (r == roleMenuListOption || r == roleListBoxOption || kindOf(r) == roleMenuItem) {
			out.Text = out.Name // an item's text is its label, without its list marker
		}
	default:
		var t strings.Builder
		for _, k := range kids {
			if b.textObj[k] {
				t.WriteString(k.Name)
			}
		}
		out.Text = t.String()
	}

	// actions: the default action's verb, the context menu, and a range's
	// steps
	verb := defaultVerb(r, pr, b, x, di, hasDOM, parent != nil && b.clickAncestor(f, n))
	if root && !textFieldRoles[r] {
		verb = "activate"
	}
	out.Actions = append(out.Actions, atspi.Action{Name: verb}, atspi.Action{Name: "showContextMenu"})
	if r == roleSlider || r == roleScrollBar {
		out.Actions = append(out.Actions, atspi.Action{Name: "decrement"}, atspi.Action{Name: "increment"})
	}

	// the Value interface of ranges
	if rangeRoles[r] {
		v := &atspi.Value{}
		if cur, ok := valueFloat(n.Value); ok {
			v.Current = &cur
		}
		input := hasDOM && strings.EqualFold(b.nodeName(x, di), "input")
		for _, p := range n.Properties {
			if r == roleSpinButton && input {
				break // a number field's bounds are its attributes'
			}
			switch p.Name {
			case "valuemin":
				if f, ok := valueFloat(p.Value); ok {
					v.Min = &f
				}
			case "valuemax":
				if f, ok := valueFloat(p.Value); ok {
					v.Max = &f
				}
			}
		}
		if r == roleSpinButton && input {
			zero := 0.0
			v.Max = &zero
			for _, a := range []struct {
				name string
				to   **float64
			}{{"min", &v.Min}, {"max", &v.Max}} {
				if f, err := strconv.ParseFloat(b.attr(x, di, a.name), 64); err == nil {
					*a.to = &f
				}
			}
		}
		step := 0.0
		if input {
			if s, err := strconv.ParseFloat(b.attr(x, di, "step"), 64); err == nil && s > 0 {
				step = s
			} else if strings.EqualFold(b.attr(x, di, "type"), "range") {
				step = 1
			}
		}
		v.Step = &step
		if v.Current != nil || v.Min != nil || v.Max != nil {
			out.Value = v
		}
	}
	out.Image = r == roleImage || r == roleDocCover || r == roleGraphicsSymbol
	out.Selection = selectionRoles[r]

	if b.o.Detail != atspi.DetailList {
		out.Attrs = b.attrs(attrNode{frame: f, node: n, role: r, props: pr, doc: x, di: di, hasDOM: hasDOM, laid: laid})
	}
	if !leaf {
		out.Children = kids
	}
	return out
}

func intersects(a, b atspi.Rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// box is the node's box on the screen: its layout box (an inline
// element's with its descendants'), rounded outwards as Chromium's
// enclosing rectangles are. laid says the node has a layout object.
func (b *builder) box(x *docIndex, di int, kids []*atspi.Node) (*atspi.Rect, bool) {
	li, ok := x.layout[di]
	if !ok || x.d.Layout == nil || li >= len(x.d.Layout.Bounds) {
		return nil, false
	}
	r := x.d.Layout.Bounds[li]
	if len(r) < 4 {
		return nil, false
	}
	x0, y0, x1, y1 := r[0], r[1], r[0]+r[2], r[1]+r[3]
	if _, frameEl := x.childDoc[di]; frameEl {
		// a frame's box is its content box (inside its border)
		if cr := x.d.Layout.ClientRects; li < len(cr) && len(cr[li]) >= 2 {
			x0, y0, x1, y1 = x0+cr[li][0], y0+cr[li][1], x1-cr[li][0], y1-cr[li][1]
		}
	}
	if !x.placed || !b.haveOrigin {
		return nil, true
	}
	s := b.scale
	sx0, sy0, sx1, sy1 := x.ox+x0*s, x.oy+y0*s, x.ox+x1*s, x.oy+y1*s
	if b.style(x, li, 0) == "inline" {
		for _, k := range kids {
			if kb := k.Bounds; kb != nil && kb.W > 0 && kb.H > 0 {
				sx0, sy0 = math.Min(sx0, float64(kb.X)), math.Min(sy0, float64(kb.Y))
				sx1, sy1 = math.Max(sx1, float64(kb.X+kb.W)), math.Max(sy1, float64(kb.Y+kb.H))
			}
		}
	}
	X, Y := int(math.Floor(sx0)), int(math.Floor(sy0))
	out := &atspi.Rect{X: X, Y: Y, W: int(math.Ceil(sx1)) - X, H: int(math.Ceil(sy1)) - Y}
	if r[2] == 0 {
		out.W = 0
	}
	if r[3] == 0 {
		out.H = 0
	}
	return out, true
}

// parentSelectBox is the box of the select an option of a closed select
// belongs to.
func (b *builder) parentSelectBox(f *frame, n *accessibility.Node) *atspi.Rect {
	p := f.byID[n.ParentID]
	for i := 0; p != nil && i < 4; i++ {
		if role(p) == roleComboBoxSelect {
			if x, di, ok := b.dom(f, p); ok {
				r, _ := b.box(x, di, nil)
				return r
			}
			return nil
		}
		p = f.byID[p.ParentID]
	}
	return nil
}

// style is computed style i (of Styles) of layout object li.
func (b *builder) style(x *docIndex, li, i int) string {
	l := x.d.Layout
	if l == nil || li >= len(l.Styles) || i >= len(l.Styles[li]) {
		return ""
	}
	return b.str(domsnapshot.StringIndex(l.Styles[li][i]))
}

func (b *builder) nodeName(x *docIndex, di int) string {
	n := x.d.Nodes
	if n == nil || di >= len(n.NodeName) {
		return ""
	}
	return b.str(n.NodeName[di])
}

// attr is the DOM attribute name of node di ("" when absent).
func (b *builder) attr(x *docIndex, di int, name string) string {
	n := x.d.Nodes
	if n == nil || di >= len(n.Attributes) {
		return ""
	}
	a := n.Attributes[di]
	for i := 0; i+1 < len(a); i += 2 {
		if strings.EqualFold(b.str(domsnapshot.StringIndex(a[i])), name) {
			return b.str(domsnapshot.StringIndex(a[i+1]))
		}
	}
	return ""
}

func rare(r *domsnapshot.RareStringData, di int) (domsnapshot.StringIndex, bool) {
	if r == nil {
		return 0, false
	}
	for k, j := range r.Index {
		if int(j) == di && k < len(r.Value) {
			return r.Value[k], true
		}
	}
	return 0, false
}

// fieldValue is a text field's text: the value the DOM snapshot holds,
// else the AX value.
func (b *builder) fieldValue(n *accessibility.Node, x *docIndex, di int, hasDOM bool) string {
	if hasDOM && x.d.Nodes != nil {
		if s, ok := rare(x.d.Nodes.InputValue, di); ok {
			return b.str(s)
		}
		if s, ok := rare(x.d.Nodes.TextValue, di); ok {
			return b.str(s)
		}
	}
	return valueString(n.Value)
}

// subtreeText is the text of a leaf's unignored descendants' text nodes.
func (b *builder) subtreeText(f *frame, n *accessibility.Node) string {
	var t strings.Builder
	var walk func(id accessibility.NodeID)
	walk = func(id accessibility.NodeID) {
		c := f.byID[id]
		if c == nil {
			return
		}
		if role(c) == roleListMarker {
			return
		}
		if !c.Ignored && textRoles[role(c)] {
			t.WriteString(valueString(c.Name))
			return
		}
		for _, k := range c.ChildIDs {
			walk(k)
		}
	}
	for _, k := range n.ChildIDs {
		walk(k)
	}
	return t.String()
}

// frameObjects is the document of a frame element, as its one child.
func (b *builder) frameObjects(x *docIndex, di int, hasDOM bool) []*atspi.Node {
	if !hasDOM {
		return nil
	}
	child, ok := x.childDoc[di]
	if !ok || child >= len(b.docs) {
		return nil
	}
	fid := cdp.FrameID(b.str(b.docs[child].d.FrameID))
	f := b.frames[fid]
	nodes := b.p.Frames[fid]
	if f == nil || len(nodes) == 0 {
		return nil
	}
	return []*atspi.Node{b.object(f, nodes[0], nil)}
}

// clickAncestor reports whether an ancestor of n takes clicks for it (a
// link, a button, a clickable element), as Chromium's clickAncestor verb.
func (b *builder) clickAncestor(f *frame, n *accessibility.Node) bool {
	p := f.byID[n.ParentID]
	for i := 0; p != nil && i < 64; i++ {
		r := role(p)
		if r == roleRootWebArea {
			return false
		}
		if !p.Ignored && (r == roleLink || r == roleButton || r == roleMenuItem || r == roleTab) {
			return true
		}
		if x, di, ok := b.dom(f, p); ok && !p.Ignored && r != roleLabelText && !rangeRoles[r] && b.clickable(x, di) {
			return true
		}
		p = f.byID[p.ParentID]
	}
	return false
}

// clickable reports whether the DOM node has a click handler.
func (b *builder) clickable(x *docIndex, di int) bool { return x.clickable[di] }

// nativeActions are the elements that act by themselves (Chromium's
// action element), whatever their role says.
var nativeActions = map[string]bool{"a": true, "button": true, "input": true, "select": true, "option": true,
	"textarea": true, "summary": true}

// defaultVerb names the object's first action as Chromium's default action
// verb does: an element that acts (a native control, one with a click
// handler, rich editable content) by its role; one that does not, even
// with a control's ARIA role, "doDefault", or "clickAncestor" below one
// that acts.
func defaultVerb(r int, pr map[string]string, b *builder, x *docIndex, di int, hasDOM, ancestor bool) string {
	if pr["disabled"] == "true" {
		return "doDefault"
	}
	acts := hasDOM && !textRoles[r] && (b.clickable(x, di) || nativeActions[strings.ToLower(b.nodeName(x, di))])
	if !acts {
		if ancestor {
			return "clickAncestor"
		}
		return "doDefault"
	}
	switch r {
	case roleButton, roleColorWell, roleDisclosureTriangle, roleDisclosureTriangleGrouped:
		return "press"
	case rolePopUpButton:
		return "open"
	case roleToggleButton:
		if pr["pressed"] == "true" {
			return "uncheck"
		}
		return "check"
	case roleCheckBox, roleSwitch, roleMenuItemCheckBox, roleRadioButton, roleMenuItemRadio:
		if pr["checked"] == "true" {
			return "uncheck"
		}
		return "check"
	case roleMenuListOption, roleListBoxOption:
		return "select"
	case roleLink:
		return "jump"
	case roleTextField, roleSearchBox, roleTextFieldWithComboBox, roleSpinButton:
		return "activate"
	case roleComboBoxSelect, roleComboBoxMenuButton, roleComboBoxGrouping:
		if pr["expanded"] == "true" {
			return "close"
		}
		return "open"
	case roleSlider, roleScrollBar, roleSplitter, roleProgressIndicator, roleMeter, roleLabelText:
		return "doDefault" // clickable in the DOM (activation), no verb in Chromium
	}
	return "click"
}

// attrNode is what attrs reads of one object.
type attrNode struct {
	frame *frame
	node  *accessibility.Node
	role  int
	props map[string]string // the node's properties
	doc   *docIndex
	di    int // the node's index in doc, when hasDOM
	// hasDOM: the node has a DOM node in the snapshot; laid: a layout box.
	hasDOM, laid bool
}

// attrs are the object attributes Chromium exposes over AT-SPI, sorted by
// name.
func (b *builder) attrs(a attrNode) []atspi.Attr {
	f, n, r, pr, x, di, hasDOM, laid := a.frame, a.node, a.role, a.props, a.doc, a.di, a.hasDOM, a.laid
	m := map[string]string{}
	text := r == roleStaticText || r == roleInlineTextBox
	if hasDOM && !text {
		name := strings.ToLower(b.nodeName(x, di))
		li, hasLayout := x.layout[di]
		if r != roleLineBreak && name != "" {
			m["tag"] = name
		}
		if hasLayout {
			if d := b.style(x, li, 0); d != "" && r != roleLineBreak && name != "#document" {
				m["display"] = d
			}
			if ta := textAlign(b.style(x, li, 1), b.style(x, li, 2)); ta != "" {
				m["text-align"] = ta
			}
		}
		if id := b.attr(x, di, "id"); id != "" {
			m["id"] = id
		}
		if c := b.attr(x, di, "class"); c != "" {
			m["class"] = c
		}
		if ph := b.attr(x, di, "placeholder"); ph != "" && valueString(n.Name) != ph {
			m["placeholder"] = ph
		}
		if r == roleImage {
			if src := b.attr(x, di, "src"); src != "" {
				m["src"] = src
			}
		}
		if r == roleRadioButton && name == "input" {
			if nm := b.attr(x, di, "name"); nm != "" {
				m["html-input-name"] = nm
			}
		}
		if (textFieldRoles[r] || r == roleSpinButton || r == roleDate || r == roleDateTime || r == roleInputTime) && name == "input" {
			t := strings.ToLower(b.attr(x, di, "type"))
			if t == "" {
				t = "text"
			}
			m["text-input-type"] = t
		}
		if xr := b.attr(x, di, "role"); xr != "" {
			m["xml-roles"] = xr
		}
	}
	switch {
	case r == roleMenuListPopup && m["tag"] == "":
		// a select's popup: Chromium's own element, not in the snapshot
		m["tag"], m["display"] = "div", "none"
	case r == roleMenuListOption && m["display"] == "":
		m["display"] = "block" // options have no layout in a closed select
	case r == roleRootWebArea && m["text-align"] == "":
		m["text-align"] = "left"
	}
	if _, ok := m["xml-roles"]; !ok {
		if lr, ok := landmarkXMLRoles[r]; ok {
			m["xml-roles"] = lr
		}
	}
	if !laid && !text && r != roleRootWebArea {
		m["hidden"] = "true"
	}
	if nf := nameFrom(n); nf != "" {
		m["name-from"] = nf
		if nf != "contents" && valueString(n.Name) != "" {
			m["explicit-name"] = "true"
		}
	}
	if l := pr["level"]; l != "" && (r == roleHeading || r == roleTreeItem || r == roleListItem) {
		m["level"] = l
	}
	if hp := pr["hasPopup"]; hp != "" && hp != "false" {
		m["haspopup"] = hp
	}
	if vt := pr["valuetext"]; vt != "" {
		m["valuetext"] = vt
	} else if r == roleProgressIndicator || r == roleMeter || r == roleSlider {
		if f, ok := valueFloat(n.Value); ok {
			m["valuetext"] = strconv.FormatFloat(f, 'f', -1, 32) // Chromium keeps values as float
		}
	}
	if r == roleCheckBox || r == roleRadioButton || r == roleSwitch || r == roleMenuItemCheckBox || r == roleMenuItemRadio {
		m["checkable"] = "true"
	}
	if (textFieldRoles[r] || r == roleSpinButton) && pr["editable"] != "" || editableRoot(f, n, pr) {
		m["text-model"] = "a1"
	}
	if r == roleMenuListPopup {
		m["ispopup"] = "auto"
	}
	b.setAttrs(f, n, r, m)
	out := make([]atspi.Attr, 0, len(m))
	for k, v := range m {
		out = append(out, atspi.Attr{Name: k, Value: v})
	}
	slices.SortFunc(out, func(a, c atspi.Attr) int { return strings.Compare(a.Name, c.Name) })
	return out
}

// setAttrs adds posinset and setsize (items among their kind, a select's
// chosen option) and a cell's table-cell-index.
func (b *builder) setAttrs(f *frame, n *accessibility.Node, r int, m map[string]string) {
	switch r {
	case roleListItem, roleListBoxOption, roleMenuListOption, roleTab, roleTreeItem, roleRadioButton,
		roleMenuItem, roleMenuItemCheckBox, roleMenuItemRadio, roleTerm:
		p := f.byID[n.ParentID]
		for p != nil && p.Ignored {
			p = f.byID[p.ParentID]
		}
		if p == nil {
			return
		}
		sibs := b.indexed(f, p, kindOf(r), func(c *accessibility.Node) bool { return sameKind(role(c), r) })
		if i, ok := sibs[n.NodeID]; ok {
			m["posinset"], m["setsize"] = strconv.Itoa(i+1), strconv.Itoa(len(sibs))
		}
	case roleList, roleListBox, roleTabList, roleTree, roleRadioGroup, roleMenu, roleMenuBar, roleDescriptionList:
		m["setsize"] = strconv.Itoa(len(b.unignored(f, n, func(c *accessibility.Node) bool { return sameKind(role(c), itemOf[r]) })))
	case roleGroup:
		m["setsize"] = strconv.Itoa(len(b.unignored(f, n, func(c *accessibility.Node) bool { return role(c) == roleRadioButton && c.ParentID == n.NodeID })))
	case roleDisclosureTriangle, roleDisclosureTriangleGrouped:
		m["posinset"], m["setsize"] = "1", "1"
	case roleComboBoxSelect, roleMenuListPopup:
		opts := b.unignored(f, n, func(c *accessibility.Node) bool { return role(c) == roleMenuListOption })
		m["setsize"] = strconv.Itoa(len(opts))
		if r == roleComboBoxSelect && len(opts) > 0 {
			m["posinset"] = "1" // the first option when none says it is selected
			for i, o := range opts {
				if props(o)["selected"] == "true" {
					m["posinset"] = strconv.Itoa(i + 1)
				}
			}
		}
	}
	if cellRoles[r] {
		// the index among the table's cells, in order
		t := f.byID[n.ParentID]
		for t != nil && !(role(t) == roleTable || role(t) == roleGrid || role(t) == roleTreeGrid) {
			t = f.byID[t.ParentID]
		}
		if t == nil {
			return
		}
		cells := b.indexed(f, t, -1, func(c *accessibility.Node) bool { return cellRoles[role(c)] })
		if i, ok := cells[n.NodeID]; ok {
			m["table-cell-index"] = strconv.Itoa(i)
		}
	}
}

// itemOf is the kind of item a container's setsize counts.
var itemOf = map[int]int{roleList: roleListItem, roleListBox: roleListBoxOption, roleTabList: roleTab, roleTree: roleTreeItem,
	roleRadioGroup: roleRadioButton, roleMenu: roleMenuItem, roleMenuBar: roleMenuItem, roleDescriptionList: roleTerm}

// kindOf folds the menu item roles into one kind: a menu counts its items
// of every kind together.
func kindOf(r int) int {
	if r == roleMenuItemCheckBox || r == roleMenuItemRadio {
		return roleMenuItem
	}
	return r
}

func sameKind(a, b int) bool { return kindOf(a) == kindOf(b) }

// indexed is unignored's answer as indexes by node id, memoized by
// container and kind.
func (b *builder) indexed(f *frame, p *accessibility.Node, kind int, keep func(*accessibility.Node) bool) map[accessibility.NodeID]int {
	k := itemsKey{p, kind}
	if m, ok := b.items[k]; ok {
		return m
	}
	l := b.unignored(f, p, keep)
	m := make(map[accessibility.NodeID]int, len(l))
	for i, n := range l {
		m[n.NodeID] = i
	}
	b.items[k] = m
	return m
}

// unignored lists the unignored descendants of p that keep (not looking
// into the ones kept).
func (b *builder) unignored(f *frame, p *accessibility.Node, keep func(*accessibility.Node) bool) []*accessibility.Node {
	var out []*accessibility.Node
	var walk func(id accessibility.NodeID)
	walk = func(id accessibility.NodeID) {
		c := f.byID[id]
		if c == nil {
			return
		}
		if !c.Ignored && keep(c) {
			out = append(out, c)
			return
		}
		for _, k := range c.ChildIDs {
			walk(k)
		}
	}
	for _, k := range p.ChildIDs {
		walk(k)
	}
	return out
}

// editableRoot reports whether n is the root of rich editable content
// (contenteditable), which Chromium shows as a text field.
func editableRoot(f *frame, n *accessibility.Node, pr map[string]string) bool {
	if pr["editable"] != "richtext" {
		return false
	}
	p := f.byID[n.ParentID]
	for p != nil && p.Ignored {
		p = f.byID[p.ParentID]
	}
	return p == nil || props(p)["editable"] == ""
}

// nameFrom is Chromium's name-from attribute: where the name came from (the
// first source with a value that nothing supersedes).
func nameFrom(n *accessibility.Node) string {
	if n.Name == nil {
		return ""
	}
	for _, s := range n.Name.Sources {
		if s.Value == nil || s.Superseded {
			continue
		}
		switch s.Type {
		case "contents":
			return "contents"
		case "placeholder":
			return "placeholder"
		case "relatedElement":
			if s.NativeSource == "tablecaption" {
				return "caption"
			}
			if s.NativeSource == "figcaption" {
				return "caption"
			}
			if s.NativeSource == "legend" {
				return "related-element"
			}
			return "related-element"
		case "attribute":
			switch s.Attribute {
			case "title":
				return "tooltip"
			case "alt":
				return "attribute"
			case "value":
				return "value"
			}
			return "attribute"
		case "style":
			return "css-alt-text"
		}
		return "attribute"
	}
	return ""
}

// textAlign maps the computed text-align to Chromium's attribute.
func textAlign(v, dir string) string {
	rtl := dir == "rtl"
	switch v {
	case "", "auto":
		return ""
	case "start", "-webkit-auto":
		if rtl {
			return "right"
		}
		return "left"
	case "end":
		if rtl {
			return "left"
		}
		return "right"
	case "-webkit-left", "left":
		return "left"
	case "-webkit-right", "right":
		return "right"
	case "-webkit-center", "-internal-center", "center":
		return "center"
	case "justify":
		return "justify"
	}
	return v
}
