package x11

import (
	"fmt"
	"time"

	"github.com/deskrun/deskrun/x11/internal/wire"
	"github.com/deskrun/deskrun/x11/keysym"
	"github.com/jezek/xgb/xproto"
)

// Button numbers of the core protocol.
const (
	ButtonLeft    = 1
	ButtonMiddle  = 2
	ButtonRight   = 3
	WheelUp       = 4
	WheelDown     = 5
	WheelLeft     = 6
	WheelRight    = 7
	ButtonBack    = 8
	ButtonForward = 9
)

// heldKey is a key this connection pressed and has not released.
type heldKey struct {
	sym   keysym.Sym
	code  xproto.Keycode
	shift bool // Shift was pressed with it
}

// batch queues XTEST requests on the input connection. Nothing is
// written until flush (or Sync): then the queued requests and the one
// that answers for them go out in one write, and are checked together in
// one round trip.
type batch struct {
	c *Conn
}

// maxPending bounds the requests queued between two round trips.
const maxPending = 512

func (b *batch) fake(typ, detail byte, x, y int16) {
	b.c.in.FakeInput(typ, detail, uint32(b.c.root), x, y)
}

func (b *batch) key(down bool, code xproto.Keycode) {
	t := byte(wire.KeyRelease)
	if down {
		t = wire.KeyPress
	}
	b.fake(t, byte(code), 0, 0)
}

func (b *batch) button(down bool, n byte) {
	t := byte(wire.ButtonRelease)
	if down {
		t = wire.ButtonPress
	}
	b.fake(t, n, 0, 0)
}

// queued returns without waiting unless too many requests are pending.
func (b *batch) queued() error {
	if b.c.in.Pending() >= maxPending {
		return b.flush()
	}
	return nil
}

// flush sends the queued requests, waits until the server has processed
// them and returns the first failure.
func (b *batch) flush() error {
	if err := b.c.in.Check(); err != nil {
		return fmt.Errorf("x11: inject input: %w", err)
	}
	return nil
}

// Sync sends the input requests queued so far, waits until the server has
// processed them and reports the first that failed. Move, Click, Scroll
// and the button calls only queue their requests (a round trip costs more
// than the injection itself, and a batch costs one round trip); the key
// calls and Type send and check theirs before they return. Call Sync at
// the end of a sequence of actions: until then the server has seen none
// of it.
func (c *Conn) Sync() error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	return (&batch{c: c}).flush()
}

// Move moves the pointer to (x, y) on the screen.
func (c *Conn) Move(x, y int) error {
	if err := c.onScreen(x, y); err != nil {
		return err
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	b.fake(wire.MotionNotify, 0, int16(x), int16(y))
	return b.queued()
}

func (c *Conn) onScreen(x, y int) error {
	if x < 0 || y < 0 || x >= c.width || y >= c.height {
		return fmt.Errorf("x11: point (%d,%d) is off the %dx%d screen", x, y, c.width, c.height)
	}
	return nil
}

func checkButton(n int) error {
	if n < 1 || n > 9 {
		return fmt.Errorf("x11: button %d out of range 1..9", n)
	}
	return nil
}

// ButtonDown presses button n (1 left, 2 middle, 3 right, 4..7 the wheel,
// 8 back, 9 forward) and holds it.
func (c *Conn) ButtonDown(n int) error {
	if err := checkButton(n); err != nil {
		return err
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	b.button(true, byte(n))
	c.btns[byte(n)] = true
	return b.queued()
}

// ButtonUp releases button n.
func (c *Conn) ButtonUp(n int) error {
	if err := checkButton(n); err != nil {
		return err
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	b.button(false, byte(n))
	delete(c.btns, byte(n))
	return b.queued()
}

// Click presses and releases button n count times where the pointer is.
func (c *Conn) Click(n, count int) error {
	if err := checkButton(n); err != nil {
		return err
	}
	if count < 1 {
		return fmt.Errorf("x11: click count %d is below 1", count)
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	for range count {
		b.button(true, byte(n))
		b.button(false, byte(n))
	}
	return b.queued()
}

// Scroll turns the wheel by dy notches down (negative: up) and dx notches
// right (negative: left), as buttons 5, 4, 7 and 6.
func (c *Conn) Scroll(dx, dy int) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	notch := func(n int, pos, neg byte) {
		btn := pos
		if n < 0 {
			btn, n = neg, -n
		}
		for range n {
			b.button(true, btn)
			b.button(false, btn)
		}
	}
	notch(dy, WheelDown, WheelUp)
	notch(dx, WheelRight, WheelLeft)
	return b.queued()
}

// KeyDown presses the key of s and holds it. A keysym that needs Shift
// holds Shift with it; one missing from the keyboard map is bound to a
// spare keycode for as long as it is held.
func (c *Conn) KeyDown(s keysym.Sym) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	if err := c.keyDown(b, s); err != nil {
		return err
	}
	return b.flush()
}

func (c *Conn) keyDown(b *batch, s keysym.Sym) error {
	p, err := c.km.find(c.x, s)
	if err != nil {
		return fmt.Errorf("x11: %w", err)
	}
	h := heldKey{sym: s, code: p.code}
	if p.shift && !c.shiftHeld() {
		sp, err := c.km.find(c.x, symShiftL)
		if err != nil {
			return fmt.Errorf("x11: %w", err)
		}
		b.key(true, sp.code)
		h.shift = true
	}
	b.key(true, p.code)
	if bd, ok := c.km.bound[s]; ok {
		bd.pinned++
	}
	c.held = append(c.held, h)
	return nil
}

func (c *Conn) shiftHeld() bool {
	for _, h := range c.held {
		if h.sym == symShiftL || h.sym == symShiftR {
			return true
		}
	}
	return false
}

// KeyUp releases the key of s, and Shift if KeyDown pressed it. Releasing
// a key that is not held sends the release anyway (a client may have
// missed it).
func (c *Conn) KeyUp(s keysym.Sym) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	if err := c.keyUp(b, s); err != nil {
		return err
	}
	err := b.flush()
	c.scheduleRestore()
	return err
}

func (c *Conn) keyUp(b *batch, s keysym.Sym) error {
	for i := len(c.held) - 1; i >= 0; i-- {
		h := c.held[i]
		if h.sym != s {
			continue
		}
		b.key(false, h.code)
		if h.shift {
			if sp, err := c.km.find(c.x, symShiftL); err == nil {
				b.key(false, sp.code)
			}
		}
		if bd, ok := c.km.bound[s]; ok && bd.pinned > 0 {
			bd.pinned--
			bd.used = time.Now()
		}
		c.held = append(c.held[:i], c.held[i+1:]...)
		return nil
	}
	p, err := c.km.find(c.x, s)
	if err != nil {
		return fmt.Errorf("x11: %w", err)
	}
	b.key(false, p.code)
	return nil
}

// Chord presses syms in order and releases them in reverse: ctrl+shift+t.
func (c *Conn) Chord(syms []keysym.Sym) error {
	if len(syms) == 0 {
		return fmt.Errorf("x11: empty chord")
	}
	c.inMu.Lock()
	defer c.inMu.Unlock()
	b := &batch{c: c}
	var err error
	pressed := 0
	for _, s := range syms {
		if err = c.keyDown(b, s); err != nil {
			break
		}
		pressed++
	}
	for i := pressed - 1; i >= 0; i-- {
		if uerr := c.keyUp(b, syms[i]); uerr != nil && err == nil {
			err = uerr
		}
	}
	if ferr := b.flush(); err == nil {
		err = ferr
	}
	c.scheduleRestore()
	return err
}

// Type types text exactly: each character through the key that produces
// it in the current keyboard map (with Shift when that key's second level
// has it), or through a spare keycode bound to its keysym. "\r\n", "\n"
// and "\r" are Return, "\t" is Tab.
//
// The characters the keyboard map lacks are bound before the first key
// is sent (see [Conn.Bind]).
func (c *Conn) Type(text string) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	defer c.scheduleRestore()
	if err := c.bindMissing(text); err != nil {
		return err
	}
	b := &batch{c: c}
	var shift keyPos
	haveShift := false
	prev := rune(0)
	for _, r := range text {
		if r == '\n' && prev == '\r' {
			prev = r
			continue
		}
		prev = r
		s := keysym.ForRune(r)
		if s == 0 {
			return fmt.Errorf("x11: no keysym types %q", r)
		}
		p, err := c.km.find(c.x, s)
		if err != nil {
			_ = b.flush()
			return fmt.Errorf("x11: type %q: %w", r, err)
		}
		if p.shift && !haveShift {
			if shift, err = c.km.find(c.x, symShiftL); err != nil {
				_ = b.flush()
				return fmt.Errorf("x11: %w", err)
			}
			haveShift = true
		}
		if p.shift {
			b.key(true, shift.code)
		}
		b.key(true, p.code)
		b.key(false, p.code)
		if p.shift {
			b.key(false, shift.code)
		}
		if err := b.queued(); err != nil {
			return err
		}
	}
	return b.flush()
}

// Bind binds the characters of text that the keyboard map lacks to
// spare keycodes (as many as there are), so that a caller can let the window manager take the changes in
// ([Conn.WMSync]) before it types text: a window manager re-reads the
// map and grabs its key bindings anew for each change, and one that runs
// behind hands out the focus late, so that keys sent meanwhile reach the
// window that had it before. The bindings are restored as Type's are.
func (c *Conn) Bind(text string) error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	defer c.scheduleRestore()
	return c.bindMissing(text)
}

// bindMissing binds the characters of text that the keyboard map lacks,
// as many as there are spare keycodes. inMu must be held.
func (c *Conn) bindMissing(text string) error {
	if c.km.stale {
		if err := c.km.reload(c.x); err != nil {
			return fmt.Errorf("x11: %w", err)
		}
	}
	for _, r := range text {
		s := keysym.ForRune(r)
		if s == 0 || r == '\n' || r == '\r' || r == '\t' {
			continue
		}
		if _, ok := c.km.lookup[s]; ok {
			continue
		}
		if _, ok := c.km.bound[s]; ok {
			continue
		}
		if len(c.km.spare) == 0 {
			break // the rest are bound as typing reaches them
		}
		if _, err := c.km.find(c.x, s); err != nil {
			return fmt.Errorf("x11: type %q: %w", r, err)
		}
	}
	return nil
}

// scheduleRestore arranges for idle bindings to be undone once they have
// not been used for restoreAfter. inMu must be held.
func (c *Conn) scheduleRestore() {
	if len(c.km.bound) == 0 {
		return
	}
	if c.idle != nil {
		c.idle.Stop()
	}
	c.idle = time.AfterFunc(restoreAfter+100*time.Millisecond, func() {
		c.inMu.Lock()
		defer c.inMu.Unlock()
		select {
		case <-c.close:
			return
		default:
		}
		if left, _ := c.km.restore(c.x, false); left {
			c.scheduleRestore()
		}
	})
}

// ReleaseAll releases every key and button this connection holds.
func (c *Conn) ReleaseAll() error {
	c.inMu.Lock()
	defer c.inMu.Unlock()
	return c.releaseAllLocked()
}

func (c *Conn) releaseAllLocked() error {
	b := &batch{c: c}
	for i := len(c.held) - 1; i >= 0; i-- {
		_ = c.keyUp(b, c.held[i].sym)
	}
	for n := range c.btns {
		b.button(false, n)
	}
	clear(c.btns)
	return b.flush()
}

// Cursor returns the pointer position on the screen.
func (c *Conn) Cursor() (x, y int, err error) {
	r, err := xproto.QueryPointer(c.x, c.root).Reply()
	if err != nil {
		return 0, 0, fmt.Errorf("x11: query pointer: %w", err)
	}
	return int(r.RootX), int(r.RootY), nil
}

// The Shift keysyms (keysymdef.h).
const (
	symShiftL keysym.Sym = 0xffe1
	symShiftR keysym.Sym = 0xffe2
)
