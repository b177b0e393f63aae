package atspi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

// D-Bus names of AT-SPI2.
const (
	registryName = "org.a11y.atspi.Registry"
	rootPath     = "/org/a11y/atspi/accessible/root"
	ifAccessible = "org.a11y.atspi.Accessible"
	ifComponent  = "org.a11y.atspi.Component"
	ifText       = "org.a11y.atspi.Text"
	ifValue      = "org.a11y.atspi.Value"
	ifAction     = "org.a11y.atspi.Action"
	ifEditable   = "org.a11y.atspi.EditableText"
	ifSelection  = "org.a11y.atspi.Selection"
	ifImage      = "org.a11y.atspi.Image"
	ifProps      = "org.freedesktop.DBus.Properties"
)

// Defaults of Options.
const (
	DefaultCallTimeout = 2 * time.Second
	DefaultAppBudget   = 5 * time.Second
	DefaultConcurrency = 8
	DefaultCacheTTL    = time.Second
)

var errNotAsked = errors.New("atspi: call not made")

// ErrNoBus says no accessibility bus could be found.
var ErrNoBus = errors.New("atspi: no accessibility bus (set AT_SPI_BUS_ADDRESS or run at-spi-bus-launcher on the session bus)")

// Options tune a Client; zero fields take the defaults.
type Options struct {
	CallTimeout time.Duration // deadline of one D-Bus call
	AppBudget   time.Duration // time one application's tree may take
	Concurrency int           // applications read at once, and calls in flight per application
	CacheTTL    time.Duration // longest reuse of an unchanged application's tree
	// Walk reads every tree object by object even where the application
	// answers AT-SPI's Cache interface (for comparing the two ways).
	Walk bool
	// NoPeer calls applications over the bus only, never over the
	// peer-to-peer connections they offer.
	NoPeer bool
	// SessionBus is the session bus address to ask for the accessibility
	// bus; empty uses AT_SPI_BUS_ADDRESS, else DBUS_SESSION_BUS_ADDRESS.
	SessionBus string
}

// Client is a connection to the accessibility bus. It is safe for
// concurrent use.
type Client struct {
	conn *dbus.Conn
	opt  Options

	mu    sync.Mutex
	cache map[string]*appEntry         // by application bus name
	hung  map[string]time.Time         // applications that timed out, and when
	roles map[string]map[uint32]string // role names by role number, by application
	peers map[string]*dbus.Conn        // peer-to-peer connections by application (nil: none)
	// recs are the reads of trees with stubs under way, by application
	// bus name: the events that come while one reads (see app).
	recs map[string][]*recorder

	done chan struct{}

	fromCache, walked atomic.Int64 // trees read each way
}

// Stats counts the application trees read since Dial: through the
// applications' Cache interface, and object by object.
func (c *Client) Stats() (fromCache, walked int64) { return c.fromCache.Load(), c.walked.Load() }

type appEntry struct {
	node   *Node
	at     time.Time
	detail Detail
	// A tree read with stubs (a browser's own views around its pages,
	// which the caller reads elsewhere) is kept while none of its objects
	// sends an event and its windows stay where they were: objs are its
	// objects' paths, frames its windows' boxes before it was read.
	objs   map[string]bool
	frames []frameBox
	// names and states are changes events told of (a tab's name that
	// Chromium rewrites with the page's memory use, a button's focus),
	// by object path: applied to a copy of the tree when it is next used.
	names  map[string]string
	states map[string]map[string]bool
}

// patched returns a copy of the entry's tree with the changes events
// told of, or the tree itself when there are none.
func (e *appEntry) patched() *Node {
	if len(e.names) == 0 && len(e.states) == 0 {
		return e.node
	}
	var cp func(n *Node) *Node
	cp = func(n *Node) *Node {
		m := *n
		if name, ok := e.names[n.Ref.Path]; ok {
			m.Name = name
		}
		if ch := e.states[n.Ref.Path]; ch != nil {
			m.States = slices.DeleteFunc(slices.Clone(n.States), func(s string) bool { _, ok := ch[s]; return ok })
			for s, on := range ch {
				if on {
					m.States = append(m.States, s)
				}
			}
			SortStates(m.States)
		}
		if n.Children != nil {
			m.Children = make([]*Node, len(n.Children))
			for i, k := range n.Children {
				m.Children[i] = cp(k)
			}
		}
		return &m
	}
	return cp(e.node)
}

// BusAddress finds the accessibility bus: the answer of org.a11y.Bus on
// the session bus at session, else AT_SPI_BUS_ADDRESS, else org.a11y.Bus
// on DBUS_SESSION_BUS_ADDRESS.
func BusAddress(ctx context.Context, session string) (string, error) {
	if session == "" {
		if a := os.Getenv("AT_SPI_BUS_ADDRESS"); a != "" {
			return a, nil
		}
		session = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if session == "" {
		return "", ErrNoBus
	}
	sess, err := dbus.Connect(session, dbus.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("%w: session bus: %v", ErrNoBus, err)
	}
	defer sess.Close()
	var addr string
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := sess.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(cctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		return "", fmt.Errorf("%w: org.a11y.Bus.GetAddress: %v", ErrNoBus, err)
	}
	return addr, nil
}

// Dial connects to the accessibility bus and subscribes to the events that
// invalidate the cache.
func Dial(ctx context.Context, opt Options) (*Client, error) {
	addr, err := BusAddress(ctx, opt.SessionBus)
	if err != nil {
		return nil, err
	}
	c := &Client{cache: map[string]*appEntry{}, hung: map[string]time.Time{}, roles: map[string]map[uint32]string{}, peers: map[string]*dbus.Conn{},
		recs: map[string][]*recorder{}, done: make(chan struct{})}
	// no WithContext: it would close the connection when ctx ends. Events
	// are handled as they are read, before any answer that came after
	// them: a call answered is proof that the events sent before it have
	// been seen.
	conn, err := dbus.Connect(addr, dbus.WithSignalHandler(eventHandler{c}))
	if err != nil {
		return nil, fmt.Errorf("atspi: connect to %s: %w", addr, err)
	}
	if opt.CallTimeout <= 0 {
		opt.CallTimeout = DefaultCallTimeout
	}
	if opt.AppBudget <= 0 {
		opt.AppBudget = DefaultAppBudget
	}
	if opt.Concurrency <= 0 {
		opt.Concurrency = DefaultConcurrency
	}
	if opt.CacheTTL <= 0 {
		opt.CacheTTL = DefaultCacheTTL
	}
	c.conn, c.opt = conn, opt
	c.subscribe(ctx)
	return c, nil
}

// events that change a cached tree.
var cacheEvents = []string{"object:children-changed", "object:state-changed", "object:property-change",
	"object:text-changed", "object:value-changed", "object:bounds-changed", "object:visible-data-changed",
	"window:create", "window:destroy", "window:minimize", "window:maximize", "window:restore", "window:activate", "window:deactivate"}

const (
	evObject = "org.a11y.atspi.Event.Object"
	evWindow = "org.a11y.atspi.Event.Window"
	evFocus  = "org.a11y.atspi.Event.Focus"
)

// subscribe asks the registry to have applications send cacheEvents
// (at-spi2's bridges send only the events some client registered) and
// receives them.
func (c *Client) subscribe(ctx context.Context) {
	for _, iface := range []string{evObject, evWindow, evFocus} {
		_ = c.conn.AddMatchSignalContext(ctx, dbus.WithMatchInterface(iface))
	}
	reg := c.conn.Object(registryName, "/org/a11y/atspi/registry")
	for _, ev := range cacheEvents {
		cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
		// at-spi2-core 2.46's signature (event, properties, application),
		// then the older one
		if reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, ev, []string{}, "").Err != nil {
			_ = reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, ev).Err
		}
		cancel()
	}
}

// eventHandler takes the connection's signals as they are read.
type eventHandler struct{ c *Client }

func (h eventHandler) DeliverSignal(iface, member string, s *dbus.Signal) {
	if iface == evObject || iface == evWindow || iface == evFocus {
		h.c.event(iface, member, s.Sender, string(s.Path), s.Body)
	}
}

// event drops what an application's event makes stale: its whole tree;
// its tree with stubs when the event came from one of that tree's
// objects or was about a window (events from inside the stubs, a page's
// content, leave it), unless it is a new name or a state that the tree
// can take as it is (patch).
func (c *Client) event(iface, member, sender, path string, body []any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.cache, sender)
	if e := c.cache[sender+" stub"]; e != nil && (iface == evWindow || e.objs[path]) {
		if iface != evObject || !e.patch(member, path, body) {
			delete(c.cache, sender+" stub")
		}
	}
	for _, r := range c.recs[sender] {
		r.note(iface, path)
	}
}

// patch notes a change that event body tells in full (AT-SPI's events
// are (kind, detail1, detail2, data, properties)): a new name, or a state
// other than those that decide what else is read of the object.
func (e *appEntry) patch(member, path string, body []any) bool {
	if len(body) < 4 {
		return false
	}
	kind, _ := body[0].(string)
	switch member {
	case "PropertyChange":
		v, ok := body[3].(dbus.Variant)
		name, isStr := v.Value().(string)
		if kind != "accessible-name" || !ok || !isStr {
			return false
		}
		if e.names == nil {
			e.names = map[string]string{}
		}
		e.names[path] = name
		return true
	case "StateChanged":
		on, ok := body[1].(int32)
		// showing, visible and defunct decide whether the box is read
		if !ok || !slices.Contains(stateNames, kind) || kind == "showing" || kind == "visible" || kind == "defunct" {
			return false
		}
		if e.states == nil {
			e.states = map[string]map[string]bool{}
		}
		if e.states[path] == nil {
			e.states[path] = map[string]bool{}
		}
		e.states[path][kind] = on != 0
		return true
	}
	return false
}

// recorder keeps the events of one application while its tree is read.
type recorder struct {
	window bool            // a window event came
	paths  map[string]bool // the objects that sent the others
	over   bool            // more came than it keeps
}

const maxRecorded = 100000

func (r *recorder) note(iface, path string) {
	if iface == evWindow {
		r.window = true
		return
	}
	if len(r.paths) >= maxRecorded {
		r.over = true
		return
	}
	r.paths[path] = true
}

// record starts keeping bus's events; stop ends it and says whether any
// came from objs (or could have).
func (c *Client) record(bus string) *recorder {
	r := &recorder{paths: map[string]bool{}}
	c.mu.Lock()
	c.recs[bus] = append(c.recs[bus], r)
	c.mu.Unlock()
	return r
}

func (c *Client) stop(bus string, r *recorder, objs map[string]bool) (touched bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs[bus] = slices.DeleteFunc(c.recs[bus], func(x *recorder) bool { return x == r })
	if len(c.recs[bus]) == 0 {
		delete(c.recs, bus)
	}
	if r.window || r.over {
		return true
	}
	for p := range r.paths {
		if objs[p] {
			return true
		}
	}
	return false
}

// frameBox is one window of an application and its box on the screen.
type frameBox struct {
	path string
	box  struct{ X, Y, W, H int32 }
}

// frames reads the application's windows and their boxes over the bus
// (not a peer-to-peer connection: the answers then come after any event
// the application sent before them).
func (c *Client) frames(ctx context.Context, app Ref) ([]frameBox, error) {
	cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
	defer cancel()
	var kids []objRef
	if err := c.conn.Object(app.Bus, dbus.ObjectPath(app.Path)).CallWithContext(cctx, ifAccessible+".GetChildren", 0).Store(&kids); err != nil {
		return nil, err
	}
	calls := make([]*dbus.Call, len(kids))
	for i, k := range kids {
		calls[i] = c.conn.Object(app.Bus, k.Path).GoWithContext(cctx, ifComponent+".GetExtents", 0, make(chan *dbus.Call, 1), uint32(0))
	}
	out := make([]frameBox, len(kids))
	for i, call := range calls {
		<-call.Done
		out[i].path = string(kids[i].Path)
		if err := call.Store(&out[i].box); err != nil {
			if isTimeout(err) {
				return nil, err
			}
			out[i].box.W, out[i].box.H = -1, -1 // not a Component
		}
	}
	return out, nil
}

// objPaths are the paths of n's objects.
func objPaths(n *Node, into map[string]bool) map[string]bool {
	into[n.Ref.Path] = true
	for _, k := range n.Children {
		objPaths(k, into)
	}
	return into
}

// Close closes the connection.
func (c *Client) Close() error {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	c.mu.Lock()
	for _, p := range c.peers {
		if p != nil {
			p.Close()
		}
	}
	c.peers = map[string]*dbus.Conn{}
	c.mu.Unlock()
	return c.conn.Close()
}

// Ref names one accessible object: the bus name of its application and its
// object path.
type Ref struct {
	Bus  string `json:"bus"`
	Path string `json:"path"`
}

// ID is the element's stable identifier while its application runs: the
// application's bus name and the last part of the object path.
func (r Ref) ID() string {
	return strings.TrimPrefix(r.Bus, ":") + "/" + strings.TrimPrefix(r.Path, "/org/a11y/atspi/accessible/")
}

// ParseID turns an ID back into a Ref.
func ParseID(id string) (Ref, error) {
	bus, tail, ok := strings.Cut(id, "/")
	if !ok || bus == "" || tail == "" {
		return Ref{}, fmt.Errorf("element id %q is not of the form bus/object", id)
	}
	if !strings.HasPrefix(bus, ":") && strings.Count(bus, ".") == 1 && bus[0] >= '0' && bus[0] <= '9' {
		bus = ":" + bus
	}
	path := tail
	if !strings.HasPrefix(path, "/") {
		path = "/org/a11y/atspi/accessible/" + tail
	}
	if !dbus.ObjectPath(path).IsValid() {
		return Ref{}, fmt.Errorf("element id %q names no valid object path", id)
	}
	return Ref{Bus: bus, Path: path}, nil
}

// call runs one method with the per-call deadline.
func (c *Client) call(ctx context.Context, r Ref, method string, args ...any) *dbus.Call {
	cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
	defer cancel()
	return c.connFor(r.Bus).Object(r.Bus, dbus.ObjectPath(r.Path)).CallWithContext(cctx, method, 0, args...)
}

// async starts one method call; the answer arrives on the returned call's
// Done channel (or the deadline passes: wait handles both).
type pending struct {
	call   *dbus.Call
	cancel context.CancelFunc
}

func (c *Client) async(ctx context.Context, r Ref, method string, args ...any) pending {
	cctx, cancel := context.WithTimeout(ctx, c.opt.CallTimeout)
	call := c.connFor(r.Bus).Object(r.Bus, dbus.ObjectPath(r.Path)).GoWithContext(cctx, method, 0, make(chan *dbus.Call, 1), args...)
	return pending{call: call, cancel: cancel}
}

func (p pending) wait() *dbus.Call {
	if p.call == nil { // never started
		return &dbus.Call{Err: errNotAsked}
	}
	<-p.call.Done
	p.cancel()
	return p.call
}

func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var de dbus.Error
	if errors.As(err, &de) && (de.Name == "org.freedesktop.DBus.Error.NoReply" || de.Name == "org.freedesktop.DBus.Error.Timeout") {
		return true
	}
	return strings.Contains(err.Error(), "deadline exceeded")
}

// connFor is the connection calls to an application go over: its own
// peer-to-peer connection when it offered one (no bus daemon in between),
// else the bus.
func (c *Client) connFor(bus string) *dbus.Conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.peers[bus]; p != nil && p.Connected() {
		return p
	}
	return c.conn
}

// peer opens the peer-to-peer connection an application offers through
// org.a11y.atspi.Application.GetApplicationBusAddress (at-spi2-atk's
// bridge: GTK, Chromium, LibreOffice), once per application.
func (c *Client) peer(ctx context.Context, app Ref) {
	if c.opt.NoPeer {
		return
	}
	c.mu.Lock()
	_, tried := c.peers[app.Bus]
	if !tried {
		c.peers[app.Bus] = nil
	}
	c.mu.Unlock()
	if tried {
		return
	}
	var addr string
	cctx, cancel := context.WithTimeout(ctx, min(c.opt.CallTimeout, 500*time.Millisecond))
	defer cancel()
	err := c.conn.Object(app.Bus, dbus.ObjectPath(app.Path)).CallWithContext(cctx, "org.a11y.atspi.Application.GetApplicationBusAddress", 0).Store(&addr)
	if err != nil || addr == "" {
		return
	}
	conn, err := dbus.Dial(addr, dbus.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return
	}
	// a stopped application accepts the connection but never answers
	authed := make(chan error, 1)
	go func() { authed <- conn.Auth(nil) }()
	select {
	case err = <-authed:
	case <-cctx.Done():
		err = cctx.Err()
	}
	if err != nil {
		conn.Close()
		return
	}
	c.mu.Lock()
	c.peers[app.Bus] = conn
	c.mu.Unlock()
}
