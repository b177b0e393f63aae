package x11

import (
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"
)

// wmSync is the state of [Conn.WMSync]: a window of this connection that
// the window manager is asked about, and the notice of its answers.
type wmSync struct {
	win  xproto.Window // the window of the WMSync under way, else 0
	acks chan struct{} // a PropertyNotify of _NET_FRAME_EXTENTS on win
	// The window managers, by their check windows, that answered once,
	// and the one that never did: it lists the request but does not
	// answer it, so it cannot be waited for.
	answered, mute uint32
}

// WMSync waits until the window manager has handled the events the X
// server had queued for it when WMSync was called: a click it is to turn
// into a focus change, a new window it is to map and focus, a keyboard
// map change it is to take in. It asks the window manager to estimate
// the frame of a window of this connection (_NET_REQUEST_FRAME_EXTENTS,
// which EWMH obliges it to answer by setting _NET_FRAME_EXTENTS on that
// window) and waits for the answer: a window manager handles its events
// in order, so once it answers, it has handled everything before.
//
// It reports false, without waiting, when no window manager runs or the
// one that does does not list that request in _NET_SUPPORTED; an error
// when the answer did not come within timeout.
//
// A window manager that lists the request but did not answer the first
// one it was sent on this connection is taken not to support it.
func (c *Conn) WMSync(timeout time.Duration) (bool, error) {
	check := c.wmCheck()
	if check == 0 || !c.wmRunning() || !c.wmSupports("_NET_REQUEST_FRAME_EXTENTS") {
		return false, nil
	}
	c.wmMu.Lock()
	defer c.wmMu.Unlock()
	if c.wm.mute == check {
		return false, nil
	}
	// A window of its own for each call: answers to an earlier call's
	// requests (still in the window manager's queue) name another window.
	if err := c.makeSyncWindow(); err != nil {
		return false, err
	}
	defer func() {
		c.wmWin.Store(0)
		xproto.DestroyWindow(c.x, c.wm.win)
		c.wm.win = 0
		select { // an answer that came as the call ended
		case <-c.wm.acks:
		default:
		}
	}()
	if err := c.clientMessage(c.wm.win, c.atoms["_NET_REQUEST_FRAME_EXTENTS"]); err != nil {
		return false, err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	// The request is sent again every half second: one sent before the
	// window manager listened (it lists the request a moment before it
	// selects its root events) is lost, and an answer to a later one
	// also says that everything before the first was handled.
	again := time.NewTicker(500 * time.Millisecond)
	defer again.Stop()
	for {
		select {
		case <-c.wm.acks:
			c.wm.answered = check
			return true, nil
		case <-again.C:
			if err := c.clientMessage(c.wm.win, c.atoms["_NET_REQUEST_FRAME_EXTENTS"]); err != nil {
				return false, err
			}
		case <-t.C:
			if c.wm.answered != check {
				c.wm.mute = check
				return false, nil
			}
			return false, fmt.Errorf("x11: the window manager did not answer within %v: it is behind or hung", timeout)
		case <-c.close:
			return false, fmt.Errorf("x11: connection closed")
		}
	}
}

// makeSyncWindow creates the unmapped window a WMSync asks about, with
// property changes reported to this connection.
func (c *Conn) makeSyncWindow() error {
	w, err := xproto.NewWindowId(c.x)
	if err != nil {
		return fmt.Errorf("x11: new window id: %w", err)
	}
	err = xproto.CreateWindowChecked(c.x, 0, w, c.root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOutput, 0, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check()
	if err != nil {
		return fmt.Errorf("x11: create the window manager's sync window: %w", err)
	}
	c.wm.win = w
	c.wmWin.Store(uint32(w))
	return nil
}

// noteWMAnswer passes a property change on the sync window to WMSync.
func (c *Conn) noteWMAnswer(ev xproto.PropertyNotifyEvent) {
	if w := c.wmWin.Load(); w == 0 || uint32(ev.Window) != w || ev.Atom != c.atoms["_NET_FRAME_EXTENTS"] {
		return
	}
	select {
	case c.wm.acks <- struct{}{}:
	default:
	}
}

// wmSupports reports whether the window manager lists the atom name in
// _NET_SUPPORTED.
func (c *Conn) wmSupports(name string) bool {
	v, err := c.prop(c.root, c.atoms["_NET_SUPPORTED"], xproto.AtomAtom, 1024)
	if err != nil || v.Format != 32 {
		return false
	}
	var have []uint32
	for i := 0; i+4 <= len(v.Value); i += 4 {
		have = append(have, xgbUint32(v.Value[i:]))
	}
	return slices.Contains(have, uint32(c.atoms[name]))
}

// KeyboardFocused reports whether the keyboard focus is on a window
// (the root window and PointerRoot included: keys then go to the window
// under the pointer, or to the root's listeners); false when it is None,
// where the server drops key events.
func (c *Conn) KeyboardFocused() (bool, error) {
	f, err := xproto.GetInputFocus(c.x).Reply()
	if err != nil {
		return false, fmt.Errorf("x11: get input focus: %w", err)
	}
	return f.Focus != xproto.InputFocusNone, nil
}

// wmCheck returns the window manager's check window
// (_NET_SUPPORTING_WM_CHECK), 0 when none is set.
func (c *Conn) wmCheck() uint32 {
	v, err := c.prop(c.root, c.atoms["_NET_SUPPORTING_WM_CHECK"], xproto.AtomWindow, 1)
	if err != nil || v.Format != 32 || len(v.Value) < 4 {
		return 0
	}
	return xgbUint32(v.Value)
}

// WMPID returns the process id of the window manager, as the X server
// knows the client that owns its check window (X-Resource); 0 when no
// window manager runs or the server cannot tell.
func (c *Conn) WMPID() int {
	check := c.wmCheck()
	if check == 0 {
		return 0
	}
	c.resOnce.Do(func() { c.resOK = res.Init(c.x) == nil })
	if !c.resOK {
		return 0
	}
	spec := res.ClientIdSpec{Client: check, Mask: res.ClientIdMaskLocalClientPID}
	r, err := res.QueryClientIds(c.x, 1, []res.ClientIdSpec{spec}).Reply()
	if err != nil || len(r.Ids) == 0 || len(r.Ids[0].Value) == 0 {
		return 0
	}
	return int(r.Ids[0].Value[0])
}
