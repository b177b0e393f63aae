package atspi

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

// Limits of a walk, as OSWorld's desktop server has them.
const (
	MaxDepth = 50   // depth of the deepest node read (applications are at depth 1)
	MaxWidth = 1024 // children read under one node
)

// Rect is a box in screen pixels.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Center is the middle of the box.
func (r Rect) Center() (int, int) { return r.X + r.W/2, r.Y + r.H/2 }

// Attr is one object attribute.
type Attr struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Value is what the Value interface reports; a nil field was not readable.
type Value struct {
	Current *float64 `json:"current,omitempty"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Step    *float64 `json:"step,omitempty"`
}

// Action is one action of the Action interface.
type Action struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	KeyBinding  string `json:"key_binding,omitempty"`
}

// Node is one accessible object.
type Node struct {
	Ref         Ref      `json:"ref"`
	ID          string   `json:"id"`
	Role        string   `json:"role"` // role name as AT-SPI gives it ("push button")
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	States      []string `json:"states,omitempty"` // in AT-SPI order ("enabled", "focusable", ...)
	Attrs       []Attr   `json:"attributes,omitempty"`
	Interfaces  []string `json:"interfaces,omitempty"`
	// Bounds is set when the object is visible and showing and has a
	// Component.
	Bounds    *Rect    `json:"bounds,omitempty"`
	Text      string   `json:"text,omitempty"`
	Image     bool     `json:"image,omitempty"`
	Selection bool     `json:"selection,omitempty"`
	Value     *Value   `json:"value,omitempty"`
	Actions   []Action `json:"actions,omitempty"`
	PID       int      `json:"pid,omitempty"` // applications only
	Children  []*Node  `json:"children,omitempty"`
	// Partial says some of this node's subtree could not be read (its
	// application stopped answering, or a call failed); Error says why.
	Partial bool   `json:"partial,omitempty"`
	Error   string `json:"error,omitempty"`
	// Stub says the node was read without its subtree, for the caller to
	// fill in (see SnapshotOptions.Stub).
	Stub bool `json:"-"`
}

// Has reports whether the node has the state.
func (n *Node) Has(state string) bool { return slices.Contains(n.States, state) }

// Implements reports whether the node has the AT-SPI interface (short
// name: "Action", "Value", ...).
func (n *Node) Implements(iface string) bool {
	return slices.Contains(n.Interfaces, "org.a11y.atspi."+iface)
}

// Desktop is a snapshot of the accessibility trees of the desktop's
// applications.
type Desktop struct {
	Apps    []*Node   `json:"apps"`
	Partial bool      `json:"partial,omitempty"`
	Took    string    `json:"took"`
	At      time.Time `json:"at"`
}

// SnapshotOptions choose what a Snapshot reads.
type SnapshotOptions struct {
	// App keeps the applications whose name contains it (case-insensitive)
	// or whose pid it is; empty reads all.
	App string
	// Fresh ignores the cache.
	Fresh bool
	// Detail is what the caller will read of each object; less detail
	// costs fewer calls.
	Detail Detail
	// Stub, when set, is asked about each application before its tree is
	// read; where it answers true, the application's "document web"
	// objects are read without their subtrees and marked Stub, for the
	// caller to fill in (agentd fills a browser's pages from the DevTools
	// protocol) or read with Subtree. Such trees are cached apart.
	Stub func(app *Node) bool
}

// Detail says which data of each object a snapshot reads.
type Detail int

const (
	// DetailFull reads everything the Node holds (for JSON).
	DetailFull Detail = iota
	// DetailXML reads what OSWorld's XML shows: all but descriptions.
	DetailXML
	// DetailList reads what the element list and set-of-marks show:
	// no descriptions or attributes; text only of editable objects,
	// values and actions only of showing ones.
	DetailList
)

// covers reports whether a tree read at detail d serves a read at want.
func (d Detail) covers(want Detail) bool { return d <= want }

// state names in AT-SPI's numbering (AtspiStateType).
var stateNames = []string{"invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
	"enabled", "expandable", "expanded", "focusable", "focused", "has_tooltip", "horizontal", "iconified",
	"modal", "multi_line", "multiselectable", "opaque", "pressed", "resizable", "selectable", "selected",
	"sensitive", "showing", "single_line", "stale", "transient", "vertical", "visible", "manages_descendants",
	"indeterminate", "required", "truncated", "animated", "invalid_entry", "supports_autocompletion",
	"selectable_text", "is_default", "visited", "checkable", "has_popup", "read_only"}

// SortStates orders state names as AT-SPI numbers them (the order a
// Node's States keep); unknown names go last.
func SortStates(s []string) {
	rank := func(x string) int {
		if i := slices.Index(stateNames, x); i >= 0 {
			return i
		}
		return len(stateNames)
	}
	slices.SortStableFunc(s, func(a, b string) int { return rank(a) - rank(b) })
}

func decodeStates(bits []uint32) []string {
	var out []string
	for w, word := range bits {
		for b := 0; b < 32; b++ {
			if word&(1<<b) == 0 {
				continue
			}
			i := w*32 + b
			if i < len(stateNames) {
				out = append(out, stateNames[i])
			}
		}
	}
	return out
}

// Apps lists the applications registered on the accessibility bus, with
// their names and process ids, without their trees.
func (c *Client) Apps(ctx context.Context) ([]*Node, error) {
	refs, err := c.appRefs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Node, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		wg.Go(func() {
			n := &Node{Ref: r, ID: r.ID(), Role: "application"}
			// a short deadline: a stopped application must not hold up the list
			nctx, cancel := context.WithTimeout(ctx, min(c.opt.CallTimeout, 500*time.Millisecond))
			v, err := c.prop(nctx, r, ifAccessible, "Name")
			cancel()
			if err == nil {
				n.Name, _ = v.Value().(string)
			} else {
				n.Partial, n.Error = true, err.Error()
			}
			n.PID = c.pid(ctx, r.Bus)
			out[i] = n
		})
	}
	wg.Wait()
	return out, nil
}

func (c *Client) appRefs(ctx context.Context) ([]Ref, error) {
	var kids []struct {
		Bus  string
		Path dbus.ObjectPath
	}
	if err := c.call(ctx, Ref{registryName, rootPath}, ifAccessible+".GetChildren").Store(&kids); err != nil {
		return nil, fmt.Errorf("atspi: list applications: %w", err)
	}
	out := make([]Ref, 0, len(kids))
	for _, k := range kids {
		out = append(out, Ref{Bus: k.Bus, Path: string(k.Path)})
	}
	return out, nil
}

func (c *Client) prop(ctx context.Context, r Ref, iface, name string) (dbus.Variant, error) {
	var v dbus.Variant
	err := c.call(ctx, r, ifProps+".Get", iface, name).Store(&v)
	return v, err
}

func (c *Client) pid(ctx context.Context, bus string) int {
	var pid uint32
	cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
	defer cancel()
	if err := c.conn.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, bus).Store(&pid); err != nil {
		return 0
	}
	return int(pid)
}

// Snapshot reads the trees of the applications (all, or those opt.App
// names), each within its budget; unchanged trees come from the cache.
func (c *Client) Snapshot(ctx context.Context, opt SnapshotOptions) (*Desktop, error) {
	start := time.Now()
	apps, err := c.Apps(ctx)
	if err != nil {
		return nil, err
	}
	if opt.App != "" {
		want := strings.ToLower(opt.App)
		apps = slices.DeleteFunc(apps, func(n *Node) bool {
			return !strings.Contains(strings.ToLower(n.Name), want) && strconv.Itoa(n.PID) != opt.App
		})
	}
	d := &Desktop{Apps: make([]*Node, len(apps)), At: start}
	sem := make(chan struct{}, c.opt.Concurrency)
	var wg sync.WaitGroup
	for i, a := range apps {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			d.Apps[i] = c.app(ctx, a, opt.Fresh, opt.Detail, opt.Stub != nil && opt.Stub(a))
		})
	}
	wg.Wait()
	for _, a := range d.Apps {
		if a.Partial {
			d.Partial = true
		}
	}
	d.Took = time.Since(start).Round(time.Millisecond).String()
	return d, nil
}

// app reads one application's tree, from the cache when unchanged.
func (c *Client) app(ctx context.Context, a *Node, fresh bool, detail Detail, stub bool) *Node {
	key := a.Ref.Bus
	if stub {
		key += " stub"
	}
	c.mu.Lock()
	e := c.cache[key]
	hungAt, wasHung := c.hung[a.Ref.Bus]
	c.mu.Unlock()
	if !fresh && e != nil && e.detail.covers(detail) {
		if !stub && time.Since(e.at) < c.opt.CacheTTL {
			return e.node
		}
		if stub && time.Since(e.at) < stubTTL {
			if n := c.unmoved(ctx, a.Ref, key, e); n != nil {
				return n
			}
		}
	}
	if a.Partial { // its name did not come: it is not answering
		c.markHung(a.Ref.Bus, true)
		return a
	}
	if wasHung && time.Since(hungAt) < time.Minute {
		// a short probe first, so a stopped application costs little
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := c.conn.Object(a.Ref.Bus, dbus.ObjectPath(a.Ref.Path)).CallWithContext(pctx, ifAccessible+".GetRoleName", 0).Err
		cancel()
		if err != nil {
			a.Partial, a.Error = true, "application not answering: "+err.Error()
			return a
		}
	}
	actx, cancel := context.WithTimeout(ctx, c.opt.AppBudget)
	defer cancel()
	c.peer(actx, a.Ref)
	var rec *recorder
	var frames []frameBox
	var framesErr error
	if stub {
		rec = c.record(a.Ref.Bus)
		frames, framesErr = c.frames(actx, a.Ref)
	}
	w := &walker{c: c, ctx: actx, sem: make(chan struct{}, c.opt.Concurrency), detail: detail, stub: stub}
	// Chromium exposes its whole tree (its own views and the pages) only
	// once an assistive technology has asked for attributes: ask for the
	// application object's, whatever the detail
	wake := c.async(actx, a.Ref, ifAccessible+".GetAttributes")
	var n *Node
	ok := false
	if !c.opt.Walk {
		n, ok = w.fromCache(a.Ref)
	}
	if ok {
		c.fromCache.Add(1)
	} else {
		c.walked.Add(1)
		n = w.node(a.Ref, 1, "")
	}
	wake.wait()
	n.PID = a.PID
	if n.Name == "" {
		n.Name = a.Name
	}
	w.mu.Lock()
	timedOut := w.timedOut
	w.mu.Unlock()
	c.markHung(a.Ref.Bus, timedOut)
	e = &appEntry{node: n, at: time.Now(), detail: detail}
	keep := !n.Partial && !timedOut
	if stub {
		// kept only when nothing it holds changed while it was read
		e.objs, e.frames = objPaths(n, map[string]bool{}), frames
		// A tree with subtrees left out is not kept: what shows in them
		// later (a page's document once loaded) may send its events from
		// objects the tree does not hold, which would not drop it.
		if c.stop(a.Ref.Bus, rec, e.objs) || framesErr != nil || w.pruned.Load() {
			keep = false
		}
	}
	if keep {
		c.mu.Lock()
		c.cache[key] = e
		c.mu.Unlock()
	}
	return n
}

// stubTTL bounds the reuse of a tree with stubs, which events keep
// (appEntry): an application that stops sending them is read again at
// least this often.
const stubTTL = 30 * time.Second

// unmoved returns the tree with stubs e, cached under key, with the
// changes events told of, if it still holds: the application's windows
// are where they were when it was read, and no event that drops it came
// before the windows' answer. Else nil.
func (c *Client) unmoved(ctx context.Context, app Ref, key string, e *appEntry) *Node {
	now, err := c.frames(ctx, app)
	if err != nil || !slices.Equal(now, e.frames) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cache[key] != e {
		return nil
	}
	if len(e.names) > 0 || len(e.states) > 0 {
		// the changes applied once, to a new entry: the trees handed out
		// before are not changed
		e2 := *e
		e2.node, e2.names, e2.states = e.patched(), nil, nil
		c.cache[key] = &e2
		return e2.node
	}
	return e.node
}

// Subtree reads the object r and its subtree (at detail, with the walk's
// limits), as a Snapshot reads an application: a Stub's subtree.
func (c *Client) Subtree(ctx context.Context, r Ref, detail Detail) *Node {
	actx, cancel := context.WithTimeout(ctx, c.opt.AppBudget)
	defer cancel()
	w := &walker{c: c, ctx: actx, sem: make(chan struct{}, c.opt.Concurrency), detail: detail}
	return w.node(r, 2, "")
}

func (c *Client) markHung(bus string, hung bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hung {
		c.hung[bus] = time.Now()
	} else {
		delete(c.hung, bus)
	}
}

// walker reads one application's tree.
type walker struct {
	c   *Client
	ctx context.Context
	sem chan struct{} // calls in flight for this application
	// detail is what to read of each object
	detail Detail
	// stub reads "document web" objects without their subtrees
	stub bool
	// pruned is set once the walk has left out a subtree (unseen)
	pruned atomic.Bool

	mu       sync.Mutex
	timedOut bool
}

func (w *walker) dead() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.timedOut || w.ctx.Err() != nil
}

func (w *walker) note(err error) {
	if isTimeout(err) || w.ctx.Err() != nil {
		w.mu.Lock()
		w.timedOut = true
		w.mu.Unlock()
	}
}

// node reads one object and, below MaxDepth, its children.
func (w *walker) node(r Ref, depth int, flag string) *Node {
	n := &Node{Ref: r, ID: r.ID()}
	if w.dead() {
		n.Partial, n.Error = true, "application not answering"
		return n
	}
	w.fill(n)
	if n.Partial {
		return n
	}
	if flag == "" && n.Role == "document spreadsheet" {
		flag = "calc"
	}
	if w.unseen(n) {
		return n
	}
	if w.stub && n.Role == "document web" {
		n.Stub = true
		return n
	}
	if depth >= MaxDepth {
		return n
	}
	if flag == "calc" && n.Role == "table" {
		w.calcCells(n, depth, flag)
		return n
	}
	kids, err := w.children(r, n.Role)
	if err != nil {
		n.Partial, n.Error = true, err.Error()
		if len(kids) == 0 {
			return n
		}
	}
	if len(kids) > MaxWidth {
		kids = kids[:MaxWidth]
	}
	n.Children = make([]*Node, len(kids))
	var wg sync.WaitGroup
	for i, k := range kids {
		select {
		case w.sem <- struct{}{}:
			wg.Go(func() {
				defer func() { <-w.sem }()
				n.Children[i] = w.node(k, depth+1, flag)
			})
		default: // the pool is busy: read it on this goroutine
			n.Children[i] = w.node(k, depth+1, flag)
		}
	}
	wg.Wait()
	for _, k := range n.Children {
		if k.Partial {
			n.Partial = true
		}
	}
	return n
}

// unseen reports whether the walk leaves n's subtree out: the element
// list shows only what is on the screen, and an object that is not
// showing has nothing showing below it (ATK's SHOWING: the object and
// each of its ancestors are shown). In Chromium, most of its own views
// and a long page's content past the viewport are not showing (731 of
// 1,162 objects on the benchmark's page). Objects whose states did not
// come are walked.
func (w *walker) unseen(n *Node) bool {
	if w.detail == DetailList && n.Role != "application" && len(n.States) > 0 && !n.Has("showing") {
		w.pruned.Store(true)
		return true
	}
	return false
}

// fill reads the node's own properties in two pipelined rounds, the
// description and attributes only when the walker's detail wants them.
func (w *walker) fill(n *Node) {
	r := n.Ref
	ctx := w.ctx
	role := w.c.async(ctx, r, ifAccessible+".GetRoleName")
	// Properties.Get one by one: Chromium's GetAll aborts its browser
	// process (libdbus: "Array or variant type requires that type variant
	// be written")
	pname := w.c.async(ctx, r, ifProps+".Get", ifAccessible, "Name")
	var pdesc, attrs pending
	if w.detail == DetailFull {
		pdesc = w.c.async(ctx, r, ifProps+".Get", ifAccessible, "Description")
	}
	state := w.c.async(ctx, r, ifAccessible+".GetState")
	if w.detail != DetailList {
		attrs = w.c.async(ctx, r, ifAccessible+".GetAttributes")
	}
	ifaces := w.c.async(ctx, r, ifAccessible+".GetInterfaces")

	if err := role.wait().Store(&n.Role); err != nil {
		w.note(err)
		for _, p := range []pending{pname, pdesc, state, attrs, ifaces} {
			p.wait()
		}
		n.Partial, n.Error = true, err.Error()
		return
	}
	n.Role = trimRole(n.Role)
	for _, p := range []struct {
		call pending
		to   *string
	}{{pname, &n.Name}, {pdesc, &n.Description}} {
		if p.call.call == nil {
			continue
		}
		var v dbus.Variant
		if err := p.call.wait().Store(&v); err == nil {
			*p.to, _ = v.Value().(string)
		} else {
			w.note(err)
		}
	}
	var bits []uint32
	if err := state.wait().Store(&bits); err == nil {
		n.States = decodeStates(bits)
	} else {
		w.note(err)
	}
	if attrs.call != nil {
		var am map[string]string
		if err := attrs.wait().Store(&am); err == nil {
			n.Attrs = sortAttrs(am)
		} else {
			w.note(err)
		}
	}
	if err := ifaces.wait().Store(&n.Interfaces); err != nil {
		w.note(err)
	}
	if w.dead() {
		n.Partial, n.Error = true, "application not answering"
		return
	}
	w.data(n, false)
}

func trimRole(s string) string { return strings.TrimSpace(s) }

// data reads what the object's interfaces hold (and its attributes when
// attrs is set), pipelined: extents of visible showing objects, text,
// value and actions.
func (w *walker) data(n *Node, attrs bool) {
	r := n.Ref
	ctx := w.ctx
	var pattrs pending
	attrs = attrs && w.detail != DetailList
	// a list needs the text of editable objects, and values and actions
	// of what is on the screen
	list := w.detail == DetailList
	showing := n.Has("visible") && n.Has("showing")
	if attrs {
		pattrs = w.c.async(ctx, r, ifAccessible+".GetAttributes")
	}
	var ext, text, nact pending
	var value [4]pending
	var hasExt, hasText, hasValue, hasAct bool
	if n.Implements("Component") && showing {
		ext, hasExt = w.c.async(ctx, r, ifComponent+".GetExtents", uint32(0)), true
	}
	if n.Implements("Text") && (!list || showing && (n.Has("editable") || n.Role == "combo box")) {
		text, hasText = w.c.async(ctx, r, ifText+".GetText", int32(0), int32(-1)), true
	}
	if n.Implements("Value") && (!list || showing) {
		for i, k := range valueProps {
			value[i] = w.c.async(ctx, r, ifProps+".Get", ifValue, k)
		}
		hasValue = true
	}
	if n.Implements("Action") && (!list || showing) {
		nact, hasAct = w.c.async(ctx, r, ifAction+".GetActions"), true
	}
	if attrs {
		var am map[string]string
		if err := pattrs.wait().Store(&am); err == nil {
			n.Attrs = sortAttrs(am)
		} else {
			w.note(err)
		}
	}
	n.Image = n.Implements("Image")
	n.Selection = n.Implements("Selection")
	if hasExt {
		var b struct{ X, Y, W, H int32 }
		if err := ext.wait().Store(&b); err == nil {
			n.Bounds = &Rect{int(b.X), int(b.Y), int(b.W), int(b.H)}
		} else {
			w.note(err)
		}
	}
	if hasText {
		var s string
		if err := text.wait().Store(&s); err == nil {
			n.Text = strings.NewReplacer("\ufffc", "", "\ufffd", "").Replace(s)
		} else {
			w.note(err)
		}
	}
	if hasValue {
		var fs [4]*float64
		for i, p := range value {
			var v dbus.Variant
			if err := p.wait().Store(&v); err == nil {
				if f, ok := v.Value().(float64); ok {
					fs[i] = &f
				}
			} else {
				w.note(err)
			}
		}
		n.Value = &Value{Current: fs[0], Min: fs[1], Max: fs[2], Step: fs[3]}
	}
	if hasAct {
		// GetActions answers every action's name, description and key
		// binding in one call (instead of 1+3n)
		var acts []struct{ Name, Description, KeyBinding string }
		if err := nact.wait().Store(&acts); err == nil {
			// Chromium answers GetActions without names: ask those by index
			names := make([]pending, len(acts))
			for i, a := range acts {
				if a.Name == "" && i < 32 {
					names[i] = w.c.async(ctx, r, ifAction+".GetName", int32(i))
				}
			}
			for i, a := range acts {
				if names[i].call != nil {
					_ = names[i].wait().Store(&a.Name)
				}
				n.Actions = append(n.Actions, Action{a.Name, a.Description, a.KeyBinding})
			}
		} else {
			w.note(err)
		}
	}
}

func sortAttrs(am map[string]string) []Attr {
	keys := make([]string, 0, len(am))
	for k := range am {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]Attr, 0, len(keys))
	for _, k := range keys {
		out = append(out, Attr{k, am[k]})
	}
	return out
}

var valueProps = [4]string{"CurrentValue", "MinimumValue", "MaximumValue", "MinimumIncrement"}

type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

// roles whose objects can have more children than are worth listing at
// once (a sheet's table has millions of cells)
var bigRoles = map[string]bool{"table": true, "tree table": true, "tree": true, "list": true, "list box": true, "document spreadsheet": true}

// children lists a node's children: GetChildren in one call when there are
// few, else GetChildAtIndex for the first MaxWidth.
func (w *walker) children(r Ref, role string) ([]Ref, error) {
	if !bigRoles[role] { // one call: few children
		var kids []objRef
		err := w.c.async(w.ctx, r, ifAccessible+".GetChildren").wait().Store(&kids)
		if err == nil {
			if len(kids) > MaxWidth {
				kids = kids[:MaxWidth]
			}
			return toRefs(kids), nil
		}
		if isTimeout(err) {
			w.note(err)
			return nil, err
		}
	}
	var v dbus.Variant
	if err := w.c.async(w.ctx, r, ifProps+".Get", ifAccessible, "ChildCount").wait().Store(&v); err != nil {
		w.note(err)
		return nil, err
	}
	cnt, _ := v.Value().(int32)
	if cnt <= 0 {
		return nil, nil
	}
	if cnt <= MaxWidth {
		var kids []objRef
		if err := w.c.async(w.ctx, r, ifAccessible+".GetChildren").wait().Store(&kids); err == nil {
			return toRefs(kids), nil
		} else if isTimeout(err) {
			w.note(err)
			return nil, err
		}
	}
	return w.childrenAt(r, 0, int(min(cnt, MaxWidth)))
}

func toRefs(kids []objRef) []Ref {
	out := make([]Ref, 0, len(kids))
	for _, k := range kids {
		if k.Path == "/org/a11y/atspi/null" {
			continue
		}
		out = append(out, Ref{k.Bus, string(k.Path)})
	}
	return out
}

// childrenAt reads children [from, from+n) one by one, pipelined.
func (w *walker) childrenAt(r Ref, from, n int) ([]Ref, error) {
	ps := make([]pending, n)
	for i := range n {
		ps[i] = w.c.async(w.ctx, r, ifAccessible+".GetChildAtIndex", int32(from+i))
	}
	out := make([]Ref, n)
	var first error
	for i, p := range ps {
		var k objRef
		if err := p.wait().Store(&k); err != nil {
			w.note(err)
			if first == nil {
				first = err
			}
			continue
		}
		out[i] = Ref{k.Bus, string(k.Path)}
	}
	return out, first
}

// calcCells applies OSWorld's rule for a Calc sheet's table: walk row by
// row from the top-left cell, keep the showing cells, start each row at the
// first showing column and stop at the first row whose first cell is not
// showing.
func (w *walker) calcCells(n *Node, depth int, flag string) {
	maxCol := calcColumns()
	const maxRow = 1048576
	const batch = 64
	indexBase := 0
	firstShowing := false
	columnBase := -1
	rowWidth := 16
	for r := 0; r < maxRow; r++ {
		clm := max(columnBase, 0)
		start := clm
	row:
		for start < maxCol {
			cnt := min(batch, maxCol-start)
			if firstShowing && r > 0 {
				cnt = min(cnt, max(rowWidth, 8)) // a row is as wide as the first
			}
			refs, _ := w.childrenAt(n.Ref, indexBase+start, cnt)
			showing := make([]bool, cnt)
			ps := make([]pending, cnt)
			for i, k := range refs {
				if k.Path != "" {
					ps[i] = w.c.async(w.ctx, k, ifAccessible+".GetState")
				}
			}
			for i := range refs {
				if ps[i].call == nil {
					continue
				}
				var bits []uint32
				if err := ps[i].wait().Store(&bits); err == nil {
					showing[i] = slices.Contains(decodeStates(bits), "showing")
				} else {
					w.note(err)
				}
			}
			if w.dead() {
				n.Partial, n.Error = true, "application not answering"
				return
			}
			var keep []Ref
			stop := false
			for i := range cnt {
				clm = start + i
				if showing[i] {
					keep = append(keep, refs[i])
					if !firstShowing {
						columnBase = clm
						firstShowing = true
					}
				} else if firstShowing && columnBase >= 0 || clm >= 500 {
					stop = true
					break
				}
			}
			n.Children = append(n.Children, w.nodes(keep, depth+1, flag)...)
			if stop {
				break row
			}
			if firstShowing && r == 0 {
				rowWidth = clm - columnBase + 2
			}
			start += cnt
		}
		if firstShowing && clm == columnBase || !firstShowing && r >= 500 {
			break
		}
		indexBase += maxCol
	}
}

// nodes reads several objects concurrently (bounded by the walker's pool),
// in order.
func (w *walker) nodes(refs []Ref, depth int, flag string) []*Node {
	out := make([]*Node, len(refs))
	var wg sync.WaitGroup
	for i, k := range refs {
		select {
		case w.sem <- struct{}{}:
			wg.Go(func() {
				defer func() { <-w.sem }()
				out[i] = w.node(k, depth, flag)
			})
		default:
			out[i] = w.node(k, depth, flag)
		}
	}
	wg.Wait()
	return out
}

var (
	calcColsOnce sync.Once
	calcCols     = 16384
)

// calcColumns is the column count of a Calc sheet: 1024 before
// LibreOffice 7.4, 16384 since.
func calcColumns() int {
	calcColsOnce.Do(func() {
		out, err := exec.Command("libreoffice", "--version").Output()
		if err != nil {
			return
		}
		m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(string(out))
		if m == nil {
			return
		}
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if major < 7 || major == 7 && minor < 4 {
			calcCols = 1024
		}
	})
	return calcCols
}
