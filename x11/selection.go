package x11

import (
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Selection names an X selection: [Clipboard] is what applications copy
// to and paste from with Ctrl+C and Ctrl+V, [Primary] the text last
// selected with the mouse (pasted with the middle button).
type Selection string

// The selections a Conn reads and owns.
const (
	Clipboard Selection = "CLIPBOARD"
	Primary   Selection = "PRIMARY"
)

// Target names the form a selection is read or offered in.
type Target string

// The targets a Conn reads and offers.
const (
	// TargetText is UTF-8 text: read as UTF8_STRING, or STRING (Latin-1)
	// when the owner offers nothing better; offered as UTF8_STRING,
	// STRING, TEXT, text/plain;charset=utf-8 and text/plain.
	TargetText Target = "text"
	// TargetPNG is a PNG image (the image/png target).
	TargetPNG Target = "image/png"
)

// MaxSelection bounds the bytes a selection is read or offered with.
const MaxSelection = 32 << 20

// selectionTimeout bounds how long a read waits for the selection's owner
// (each answer of an INCR transfer included) and an owner waits for a
// reader taking its data in increments.
const selectionTimeout = 5 * time.Second

// ErrNoTarget is returned by ReadSelection when the selection has an
// owner that does not offer the target asked for.
var ErrNoTarget = errors.New("x11: the selection's owner does not offer that target")

// selections is a connection of its own that reads X selections and owns
// the ones set through it: a window to receive the data and to own
// selections with, and a goroutine that answers other clients' requests
// (ICCCM section 2), in increments (INCR) when the data is larger than
// one request may carry.
type selections struct {
	x     *xgb.Conn
	win   xproto.Window
	chunk int // bytes of one ChangeProperty, below the server's request size

	atoms map[string]xproto.Atom

	opMu   sync.Mutex     // one read or ownership change at a time
	events chan xgb.Event // SelectionNotify and PropertyNotify of win, for the operation under way
	mu     sync.Mutex     // offers and transfers
	offers map[xproto.Atom]*offer
	sends  map[sendKey]*incrSend
	done   chan struct{}
}

// offer is the content of a selection this connection owns.
type offer struct {
	time   xproto.Timestamp
	target Target
	data   []byte
}

type sendKey struct {
	win  xproto.Window
	prop xproto.Atom
}

// incrSend is an INCR transfer to a reader under way: the next chunk is
// written once the reader deleted the last one.
type incrSend struct {
	typ      xproto.Atom
	data     []byte
	off      int
	finished bool // the final, empty chunk was written
	timer    *time.Timer
}

var selectionAtoms = []string{
	"CLIPBOARD", "PRIMARY", "TARGETS", "TIMESTAMP", "MULTIPLE", "INCR", "ATOM", "INTEGER",
	"UTF8_STRING", "STRING", "TEXT", "text/plain;charset=utf-8", "text/plain", "image/png",
	"_DESKRUN_SELECTION", "_DESKRUN_TIME",
}

func dialSelections(display string) (*selections, error) {
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("x11: selection connection to %s: %w", display, err)
	}
	s := &selections{x: x, events: make(chan xgb.Event, 64), offers: map[xproto.Atom]*offer{},
		sends: map[sendKey]*incrSend{}, done: make(chan struct{})}
	if err := s.setup(); err != nil {
		x.Close()
		return nil, fmt.Errorf("x11: selections: %w", err)
	}
	go s.loop()
	return s, nil
}

func (s *selections) setup() error {
	setup := xproto.Setup(s.x)
	if setup == nil || len(setup.Roots) == 0 {
		return fmt.Errorf("server reports no screens")
	}
	// A request is at most MaximumRequestLength 4-byte units; a
	// ChangeProperty's header takes 24 bytes of it.
	s.chunk = min(int(setup.MaximumRequestLength)*4-64, 256<<10)
	scr := setup.DefaultScreen(s.x)
	id, err := s.x.NewId()
	if err != nil {
		return err
	}
	s.win = xproto.Window(id)
	err = xproto.CreateWindowChecked(s.x, 0, s.win, scr.Root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, xproto.CwOverrideRedirect|xproto.CwEventMask,
		[]uint32{1, xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		return fmt.Errorf("create window: %w", err)
	}
	cookies := make([]xproto.InternAtomCookie, len(selectionAtoms))
	for i, n := range selectionAtoms {
		cookies[i] = xproto.InternAtom(s.x, false, uint16(len(n)), n)
	}
	s.atoms = make(map[string]xproto.Atom, len(selectionAtoms))
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			return fmt.Errorf("intern atom %s: %w", selectionAtoms[i], err)
		}
		s.atoms[selectionAtoms[i]] = r.Atom
	}
	return nil
}

func (s *selections) close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.mu.Lock()
	for k, t := range s.sends {
		t.timer.Stop()
		delete(s.sends, k)
	}
	s.mu.Unlock()
	s.x.Close()
}

// loop answers other clients' requests and hands the events of this
// connection's window to the operation under way.
func (s *selections) loop() {
	for {
		ev, err := s.x.WaitForEvent()
		if ev == nil && err == nil {
			return // connection closed
		}
		switch e := ev.(type) {
		case xproto.SelectionRequestEvent:
			s.answer(e)
		case xproto.SelectionClearEvent:
			s.mu.Lock()
			if o := s.offers[e.Selection]; o != nil && e.Time >= o.time {
				delete(s.offers, e.Selection)
			}
			s.mu.Unlock()
		case xproto.PropertyNotifyEvent:
			if e.Window != s.win {
				if e.State == xproto.PropertyDelete {
					s.sendNext(sendKey{e.Window, e.Atom})
				}
				continue
			}
			s.hand(e)
		case xproto.SelectionNotifyEvent:
			s.hand(e)
		}
	}
}

// hand passes an event to the operation under way; with none waiting, or
// one that does not keep up, the event is of no use to anyone.
func (s *selections) hand(ev xgb.Event) {
	select {
	case s.events <- ev:
	default:
	}
}

// drain empties the event channel of what earlier operations left.
func (s *selections) drain() {
	for {
		select {
		case <-s.events:
		default:
			return
		}
	}
}

// wait returns the first event handed over that match accepts.
func (s *selections) wait(what string, deadline time.Time, match func(xgb.Event) bool) (xgb.Event, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for {
		select {
		case ev := <-s.events:
			if match(ev) {
				return ev, nil
			}
		case <-t.C:
			return nil, fmt.Errorf("x11: %s: no answer within %v", what, selectionTimeout)
		case <-s.done:
			return nil, fmt.Errorf("x11: %s: connection closed", what)
		}
	}
}

// serverTime returns the server's current time, read from the
// PropertyNotify of an empty append to this connection's window (ICCCM
// asks owners not to use CurrentTime).
func (s *selections) serverTime() (xproto.Timestamp, error) {
	prop := s.atoms["_DESKRUN_TIME"]
	err := xproto.ChangePropertyChecked(s.x, xproto.PropModeAppend, s.win, prop, s.atoms["STRING"], 8, 0, nil).Check()
	if err != nil {
		return 0, fmt.Errorf("x11: read the server time: %w", err)
	}
	ev, err := s.wait("read the server time", time.Now().Add(selectionTimeout), func(ev xgb.Event) bool {
		p, ok := ev.(xproto.PropertyNotifyEvent)
		return ok && p.Atom == prop
	})
	if err != nil {
		return 0, err
	}
	return ev.(xproto.PropertyNotifyEvent).Time, nil
}

// own makes this connection the owner of sel with data in the form of
// target.
func (s *selections) own(sel Selection, target Target, data []byte) error {
	if len(data) > MaxSelection {
		return fmt.Errorf("x11: %d bytes are more than a selection holds here (%d)", len(data), MaxSelection)
	}
	selAtom, ok := s.atoms[string(sel)]
	if !ok {
		return fmt.Errorf("x11: unknown selection %q", sel)
	}
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.drain()
	t, err := s.serverTime()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.offers[selAtom] = &offer{time: t, target: target, data: data}
	s.mu.Unlock()
	if err := xproto.SetSelectionOwnerChecked(s.x, s.win, selAtom, t).Check(); err != nil {
		return fmt.Errorf("x11: own %s: %w", sel, err)
	}
	r, err := xproto.GetSelectionOwner(s.x, selAtom).Reply()
	if err != nil {
		return fmt.Errorf("x11: own %s: %w", sel, err)
	}
	if r.Owner != s.win {
		s.mu.Lock()
		delete(s.offers, selAtom)
		s.mu.Unlock()
		return fmt.Errorf("x11: own %s: window %#x took it first", sel, r.Owner)
	}
	return nil
}

// targetsOf returns the targets an offer answers, TARGETS and TIMESTAMP
// first.
func (s *selections) targetsOf(o *offer) []xproto.Atom {
	ts := []xproto.Atom{s.atoms["TARGETS"], s.atoms["TIMESTAMP"]}
	switch o.target {
	case TargetText:
		ts = append(ts, s.atoms["UTF8_STRING"], s.atoms["STRING"], s.atoms["TEXT"],
			s.atoms["text/plain;charset=utf-8"], s.atoms["text/plain"])
	case TargetPNG:
		ts = append(ts, s.atoms["image/png"])
	}
	return ts
}

// convert returns an offer's content as target, with its type and format;
// ok is false when the offer has no such form.
func (s *selections) convert(o *offer, target xproto.Atom) (typ xproto.Atom, format byte, data []byte, ok bool) {
	a := s.atoms
	switch target {
	case a["TARGETS"]:
		return a["ATOM"], 32, atomBytes(s.targetsOf(o)), true
	case a["TIMESTAMP"]:
		return a["INTEGER"], 32, atomBytes([]xproto.Atom{xproto.Atom(o.time)}), true
	}
	switch o.target {
	case TargetText:
		switch target {
		case a["UTF8_STRING"], a["TEXT"]:
			return a["UTF8_STRING"], 8, o.data, true
		case a["text/plain;charset=utf-8"], a["text/plain"]:
			return target, 8, o.data, true
		case a["STRING"]:
			return a["STRING"], 8, latin1(o.data), true
		}
	case TargetPNG:
		if target == a["image/png"] {
			return target, 8, o.data, true
		}
	}
	return 0, 0, nil, false
}

func atomBytes(as []xproto.Atom) []byte {
	b := make([]byte, 4*len(as))
	for i, v := range as {
		xgb.Put32(b[4*i:], uint32(v))
	}
	return b
}

// latin1 is text as STRING: ISO Latin-1, with '?' for what it lacks.
func latin1(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, r := range string(b) {
		if r > 0xff {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out
}

// answer serves another client's SelectionRequest.
func (s *selections) answer(e xproto.SelectionRequestEvent) {
	prop := e.Property
	if prop == xproto.AtomNone { // an obsolete client: the target names the property
		prop = e.Target
	}
	refused := prop
	s.mu.Lock()
	o := s.offers[e.Selection]
	s.mu.Unlock()
	if o != nil && (e.Time == xproto.TimeCurrentTime || e.Time >= o.time) {
		if typ, format, data, ok := s.convert(o, e.Target); ok {
			s.put(e.Requestor, prop, typ, format, data)
			refused = 0
		}
	}
	if refused != 0 {
		prop = xproto.AtomNone
	}
	ev := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop}
	xproto.SendEvent(s.x, false, e.Requestor, 0, string(ev.Bytes()))
}

// put writes data to the requestor's property: at once when it fits one
// request, else as an INCR transfer driven by the requestor's deletions.
func (s *selections) put(win xproto.Window, prop, typ xproto.Atom, format byte, data []byte) {
	unit := int(format / 8)
	if len(data) <= s.chunk {
		xproto.ChangeProperty(s.x, xproto.PropModeReplace, win, prop, typ, format, uint32(len(data)/unit), data)
		return
	}
	k := sendKey{win, prop}
	t := &incrSend{typ: typ, data: data}
	s.mu.Lock()
	if old := s.sends[k]; old != nil {
		old.timer.Stop()
	}
	s.sends[k] = t
	// A reader that stops taking chunks does not hold the transfer forever.
	t.timer = time.AfterFunc(selectionTimeout, func() { s.endSend(k, t) })
	s.mu.Unlock()
	xproto.ChangeWindowAttributes(s.x, win, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange})
	size := make([]byte, 4)
	xgb.Put32(size, uint32(len(data)))
	xproto.ChangeProperty(s.x, xproto.PropModeReplace, win, prop, s.atoms["INCR"], 32, 1, size)
}

// sendNext writes the next chunk of the INCR transfer to (win, prop) once
// the reader deleted the previous one; after the last, an empty chunk
// ends the transfer.
func (s *selections) sendNext(k sendKey) {
	s.mu.Lock()
	t := s.sends[k]
	if t == nil {
		s.mu.Unlock()
		return
	}
	if t.finished {
		delete(s.sends, k)
		t.timer.Stop()
		s.mu.Unlock()
		xproto.ChangeWindowAttributes(s.x, k.win, xproto.CwEventMask, []uint32{0})
		return
	}
	n := min(s.chunk, len(t.data)-t.off)
	part := t.data[t.off : t.off+n]
	t.off += n
	t.finished = n == 0
	t.timer.Reset(selectionTimeout)
	s.mu.Unlock()
	xproto.ChangeProperty(s.x, xproto.PropModeReplace, k.win, k.prop, t.typ, 8, uint32(len(part)), part)
}

func (s *selections) endSend(k sendKey, t *incrSend) {
	s.mu.Lock()
	if s.sends[k] == t {
		delete(s.sends, k)
	}
	s.mu.Unlock()
}

// read converts sel to target through its owner and returns the bytes;
// a selection without owner reads as nothing.
func (s *selections) read(sel Selection, target Target) ([]byte, error) {
	selAtom, ok := s.atoms[string(sel)]
	if !ok {
		return nil, fmt.Errorf("x11: unknown selection %q", sel)
	}
	var tries []xproto.Atom
	switch target {
	case TargetText:
		tries = []xproto.Atom{s.atoms["UTF8_STRING"], s.atoms["STRING"]}
	case TargetPNG:
		tries = []xproto.Atom{s.atoms["image/png"]}
	default:
		return nil, fmt.Errorf("x11: unknown target %q", target)
	}
	// What this connection owns is answered here: the event loop that
	// would answer the request is the one this read waits on.
	s.mu.Lock()
	o := s.offers[selAtom]
	s.mu.Unlock()
	s.opMu.Lock()
	defer s.opMu.Unlock()
	owner, err := xproto.GetSelectionOwner(s.x, selAtom).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: read %s: %w", sel, err)
	}
	if owner.Owner == xproto.WindowNone {
		return nil, nil
	}
	if owner.Owner == s.win && o != nil {
		for _, tgt := range tries {
			if typ, _, data, ok := s.convert(o, tgt); ok {
				if typ == s.atoms["STRING"] {
					data = fromLatin1(data)
				}
				return data, nil
			}
		}
		return nil, fmt.Errorf("%w: %s holds %s, not %s", ErrNoTarget, sel, o.target, target)
	}
	for _, tgt := range tries {
		data, typ, err := s.convertFrom(selAtom, tgt)
		if errors.Is(err, ErrNoTarget) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("x11: read %s: %w", sel, err)
		}
		// Some owners answer any target with what they hold; data of
		// another type is not the target asked for.
		if typ != tgt && !(target == TargetText && (typ == s.atoms["UTF8_STRING"] || typ == s.atoms["STRING"])) {
			continue
		}
		if typ == s.atoms["STRING"] {
			data = fromLatin1(data)
		} else if target == TargetText && !utf8.Valid(data) {
			return nil, fmt.Errorf("x11: read %s: the owner's %s is not UTF-8", sel, s.atomName(typ))
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: %s (owner window %#x) offers no %s", ErrNoTarget, sel, owner.Owner, target)
}

// convertFrom asks the selection's owner for target and reads what it
// writes to this connection's window, in increments when it says INCR.
// opMu must be held.
func (s *selections) convertFrom(sel, target xproto.Atom) ([]byte, xproto.Atom, error) {
	s.drain()
	prop := s.atoms["_DESKRUN_SELECTION"]
	xproto.DeleteProperty(s.x, s.win, prop)
	if err := xproto.ConvertSelectionChecked(s.x, s.win, sel, target, prop, xproto.TimeCurrentTime).Check(); err != nil {
		return nil, 0, err
	}
	deadline := time.Now().Add(selectionTimeout)
	ev, err := s.wait("the selection's owner", deadline, func(ev xgb.Event) bool {
		n, ok := ev.(xproto.SelectionNotifyEvent)
		return ok && n.Selection == sel && n.Requestor == s.win
	})
	if err != nil {
		return nil, 0, err
	}
	if ev.(xproto.SelectionNotifyEvent).Property == xproto.AtomNone {
		return nil, 0, ErrNoTarget
	}
	typ, data, err := s.getProperty(prop)
	if err != nil {
		return nil, 0, err
	}
	if typ != s.atoms["INCR"] {
		return data, typ, nil
	}
	// INCR: the owner writes a chunk each time this window's property is
	// deleted, and an empty one at the end.
	var out []byte
	for {
		_, err := s.wait("the next part of the selection", time.Now().Add(selectionTimeout), func(ev xgb.Event) bool {
			p, ok := ev.(xproto.PropertyNotifyEvent)
			return ok && p.Atom == prop && p.State == xproto.PropertyNewValue
		})
		if err != nil {
			return nil, 0, err
		}
		ctyp, chunk, err := s.getProperty(prop)
		if err != nil {
			return nil, 0, err
		}
		if len(chunk) == 0 {
			return out, ctyp, nil
		}
		if len(out)+len(chunk) > MaxSelection {
			return nil, 0, fmt.Errorf("more than %d bytes", MaxSelection)
		}
		out = append(out, chunk...)
		typ = ctyp
	}
}

// getProperty reads and deletes prop of this connection's window.
func (s *selections) getProperty(prop xproto.Atom) (xproto.Atom, []byte, error) {
	r, err := xproto.GetProperty(s.x, true, s.win, prop, xproto.GetPropertyTypeAny, 0, (MaxSelection+3)/4).Reply()
	if err != nil {
		return 0, nil, err
	}
	if r.BytesAfter > 0 {
		return 0, nil, fmt.Errorf("more than %d bytes", MaxSelection)
	}
	return r.Type, r.Value, nil
}

func (s *selections) atomName(a xproto.Atom) string {
	r, err := xproto.GetAtomName(s.x, a).Reply()
	if err != nil {
		return fmt.Sprintf("atom %d", a)
	}
	return r.Name
}

func fromLatin1(b []byte) []byte {
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return []byte(string(rs))
}

// selections returns the connection that reads and owns selections,
// made on first use.
func (c *Conn) selections() (*selections, error) {
	c.selMu.Lock()
	defer c.selMu.Unlock()
	select {
	case <-c.close:
		return nil, fmt.Errorf("x11: connection closed")
	default:
	}
	if c.sel == nil {
		s, err := dialSelections(c.display)
		if err != nil {
			return nil, err
		}
		c.sel = s
	}
	return c.sel, nil
}

// ReadSelection returns the content of sel as target: UTF-8 text for
// [TargetText], PNG bytes for [TargetPNG]. A selection nobody owns reads
// as nil; one whose owner does not offer target is an error wrapping
// [ErrNoTarget]. The owner has 5 s to answer (each part of a transfer in
// increments included). Safe for concurrent use; reads are serialized.
func (c *Conn) ReadSelection(sel Selection, target Target) ([]byte, error) {
	s, err := c.selections()
	if err != nil {
		return nil, err
	}
	return s.read(sel, target)
}

// SetSelection makes this connection the owner of sel, offering data as
// target ([TargetText] data must be UTF-8). It answers other clients until
// one of them takes the selection or the connection closes. Data larger
// than one request goes to readers in increments (INCR).
func (c *Conn) SetSelection(sel Selection, target Target, data []byte) error {
	switch target {
	case TargetText:
		if !utf8.Valid(data) {
			return fmt.Errorf("x11: selection text is not UTF-8")
		}
	case TargetPNG:
	default:
		return fmt.Errorf("x11: unknown target %q", target)
	}
	s, err := c.selections()
	if err != nil {
		return err
	}
	return s.own(sel, target, data)
}
