package x11

import (
	"fmt"
	"time"

	"github.com/deskrun/deskrun/x11/keysym"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// keymap is this connection's copy of the server's core keyboard map and
// the keysyms it bound to spare keycodes.
type keymap struct {
	min, max xproto.Keycode
	per      int // keysyms per keycode
	syms     []xproto.Keysym

	lookup map[keysym.Sym]keyPos   // keysyms reachable without binding
	spare  []xproto.Keycode        // keycodes with no keysyms, free for binding
	bound  map[keysym.Sym]*binding // keysyms this connection bound
	owned  map[xproto.Keycode]bool // spare keycodes this connection manages
	stale  bool                    // another client changed the map

	// beforeChange sends and checks the key events queued so far; it runs
	// before any binding changes, so the server sees them with the
	// binding they were queued under.
	beforeChange func() error
}

// keyPos is where a keysym is: its keycode and whether Shift selects it.
type keyPos struct {
	code  xproto.Keycode
	shift bool
}

// binding is a keysym bound to a spare keycode.
type binding struct {
	code   xproto.Keycode
	used   time.Time
	pinned int // held down by KeyDown; not evicted while > 0
}

// restoreAfter is how long a bound keycode stays bound after its last use.
// Clients re-read the keyboard map lazily, when they next translate a key
// event; undoing a binding before a slow client has processed its key
// events would make it read NoSymbol, the failure that loses characters
// under load. Every change of the map also costs the window manager a
// re-read of the map and new grabs of its key bindings, so bindings stay
// while typing goes on (an agent types the same characters again).
const restoreAfter = 30 * time.Second

// reuseAfter is how long a bound keycode must have been idle before it is
// rebound to another keysym when no spare keycode is left (text with more
// distinct unmapped characters than the map has spare keycodes, about 19
// on Xvfb's default map).
//
// A client translates a key event's keycode when it processes the event,
// with the map as the server holds it then (Xlib's XKEYBOARD support even
// marks its copy stale when it reads the change's notification from its
// socket, ahead of the key events still queued before it). A keycode
// rebound while a client runs behind therefore types the new keysym for
// the old events: with 300 ms, a terminal in each of 8 sandboxes typing
// ten lines of Greek, Cyrillic and CJK on a loaded 2-core machine got 76
// to 77 of 80 lines exactly, each wrong line holding characters of the
// next line. One second covers such a lag (80 of 80 in every run); a
// client more than a second behind still can be wrong, and text with
// many distinct characters types slower (a rebind waits for its keycode's
// last use to be a second old).
const reuseAfter = time.Second

func loadKeymap(x *xgb.Conn, min, max xproto.Keycode) (*keymap, error) {
	km := &keymap{min: min, max: max, bound: map[keysym.Sym]*binding{}, owned: map[xproto.Keycode]bool{}}
	return km, km.reload(x)
}

// reload reads the map from the server, keeping this connection's
// bindings.
func (km *keymap) reload(x *xgb.Conn) error {
	n := int(km.max) - int(km.min) + 1
	r, err := xproto.GetKeyboardMapping(x, km.min, byte(n)).Reply()
	if err != nil {
		return fmt.Errorf("read keyboard map: %w", err)
	}
	km.per = int(r.KeysymsPerKeycode)
	km.syms = r.Keysyms
	km.lookup = map[keysym.Sym]keyPos{}
	km.spare = km.spare[:0]
	for i := 0; i < n; i++ {
		code := km.min + xproto.Keycode(i)
		if km.owned[code] {
			continue
		}
		row := km.syms[i*km.per : (i+1)*km.per]
		empty := true
		for _, s := range row {
			if s != 0 {
				empty = false
				break
			}
		}
		if empty {
			km.spare = append(km.spare, code)
			continue
		}
		// Only the first group's two levels are reachable with Shift
		// alone; level 1 wins over level 2, the lowest keycode over others.
		for lvl := 0; lvl < 2 && lvl < km.per; lvl++ {
			s := keysym.Sym(row[lvl])
			if s == 0 {
				continue
			}
			if lvl == 1 && row[0] == row[1] {
				continue
			}
			if p, ok := km.lookup[s]; ok && (!p.shift || lvl == 1) {
				continue
			}
			km.lookup[s] = keyPos{code: code, shift: lvl == 1}
		}
	}
	// Keycodes this connection owns but no longer has bound are spare
	// too; keep them at the front so they are reused first.
	var mine []xproto.Keycode
	inUse := map[xproto.Keycode]bool{}
	for _, b := range km.bound {
		inUse[b.code] = true
	}
	for code := range km.owned {
		if !inUse[code] {
			mine = append(mine, code)
		}
	}
	km.spare = append(mine, km.spare...)
	km.stale = false
	return nil
}

// noteChange records a MappingNotify for count keycodes from first. Changes
// confined to keycodes this connection manages are its own and ignored.
func (km *keymap) noteChange(first xproto.Keycode, count byte) {
	for i := 0; i < int(count); i++ {
		if !km.owned[first+xproto.Keycode(i)] {
			km.stale = true
			return
		}
	}
}

// find returns where s is, binding it to a spare keycode when the map has
// no key for it.
func (km *keymap) find(x *xgb.Conn, s keysym.Sym) (keyPos, error) {
	if km.stale {
		if err := km.reload(x); err != nil {
			return keyPos{}, err
		}
	}
	if p, ok := km.lookup[s]; ok {
		return p, nil
	}
	if b, ok := km.bound[s]; ok {
		b.used = time.Now()
		return keyPos{code: b.code}, nil
	}
	code, err := km.freeCode(x)
	if err != nil {
		return keyPos{}, err
	}
	if err := km.set(x, code, s); err != nil {
		km.spare = append(km.spare, code)
		return keyPos{}, err
	}
	km.owned[code] = true
	km.bound[s] = &binding{code: code, used: time.Now()}
	return keyPos{code: code}, nil
}

// freeCode takes a spare keycode, undoing the least recently used binding
// when none is left.
func (km *keymap) freeCode(x *xgb.Conn) (xproto.Keycode, error) {
	if len(km.spare) > 0 {
		code := km.spare[0]
		km.spare = km.spare[1:]
		return code, nil
	}
	var oldest keysym.Sym
	var ob *binding
	for s, b := range km.bound {
		if b.pinned == 0 && (ob == nil || b.used.Before(ob.used)) {
			oldest, ob = s, b
		}
	}
	if ob == nil {
		return 0, fmt.Errorf("no spare keycode left to bind a keysym to (%d held)", len(km.bound))
	}
	// The victim's key events may still sit unprocessed in a client's
	// queue; rebinding now would make that client read the new keysym for
	// them. Send any still queued here, then give clients time to catch up.
	if err := km.sendQueued(); err != nil {
		return 0, err
	}
	if wait := reuseAfter - time.Since(ob.used); wait > 0 {
		time.Sleep(wait)
	}
	delete(km.bound, oldest)
	return ob.code, nil
}

// set binds s to code on both levels, so Shift does not change it.
func (km *keymap) set(x *xgb.Conn, code xproto.Keycode, s keysym.Sym) error {
	if err := km.sendQueued(); err != nil {
		return err
	}
	row := make([]xproto.Keysym, km.per)
	if s != 0 {
		row[0] = xproto.Keysym(s)
		if km.per > 1 {
			row[1] = xproto.Keysym(s)
		}
	}
	if err := xproto.ChangeKeyboardMappingChecked(x, 1, code, byte(km.per), row).Check(); err != nil {
		return fmt.Errorf("bind keysym %#x to keycode %d: %w", uint32(s), code, err)
	}
	return nil
}

func (km *keymap) sendQueued() error {
	if km.beforeChange == nil {
		return nil
	}
	if err := km.beforeChange(); err != nil {
		return fmt.Errorf("inject the input queued before a keymap change: %w", err)
	}
	return nil
}

// restore unbinds the keycodes not used for restoreAfter (all of them
// when force is set, pinned ones excepted unless force) and reports
// whether any binding is left.
func (km *keymap) restore(x *xgb.Conn, force bool) (left bool, err error) {
	now := time.Now()
	for s, b := range km.bound {
		if !force && (b.pinned > 0 || now.Sub(b.used) < restoreAfter) {
			left = true
			continue
		}
		if e := km.set(x, b.code, 0); e != nil && err == nil {
			err = e
		}
		delete(km.bound, s)
		km.spare = append([]xproto.Keycode{b.code}, km.spare...)
	}
	return left, err
}

// restoreAll unbinds every keycode this connection bound.
func (km *keymap) restoreAll(x *xgb.Conn, force bool) error {
	_, err := km.restore(x, force)
	return err
}
