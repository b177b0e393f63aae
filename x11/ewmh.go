package x11

import (
	"fmt"
	"image"
	"time"

	"github.com/jezek/xgb/xproto"
)

// The window-state requests below follow the EWMH specification (1.5):
// _NET_WM_STATE, _NET_MOVERESIZE_WINDOW, and ICCCM's WM_CHANGE_STATE for
// iconifying. Each is a client message to the root window that the window
// manager carries out in its own time; without a window manager the
// window is changed directly.

// ICCCM WM_STATE values.
const (
	wmStateNormal = 1
	wmStateIconic = 3
)

// _NET_WM_STATE actions and the source indication of a pager (obeyed
// without focus-stealing checks).
const (
	netStateRemove = 0
	netStateAdd    = 1
	sourcePager    = 2
)

// WindowState is what the window manager says of a window's state.
type WindowState struct {
	// Minimized: iconified (ICCCM WM_STATE Iconic or _NET_WM_STATE_HIDDEN),
	// or, without a window manager, unmapped.
	Minimized bool
	// Maximized: both _NET_WM_STATE_MAXIMIZED_VERT and _HORZ are set.
	Maximized bool
}

// WindowState reads the state of window id.
func (c *Conn) WindowState(id uint32) (WindowState, error) {
	if err := c.exists(id); err != nil {
		return WindowState{}, err
	}
	w := xproto.Window(id)
	var st WindowState
	if v, err := c.prop(w, c.atoms["WM_STATE"], c.atoms["WM_STATE"], 2); err == nil && v.Format == 32 && len(v.Value) >= 4 {
		st.Minimized = xgbUint32(v.Value) == wmStateIconic
	}
	var vert, horz bool
	for _, a := range c.netStates(w) {
		switch a {
		case c.atoms["_NET_WM_STATE_HIDDEN"]:
			st.Minimized = true
		case c.atoms["_NET_WM_STATE_MAXIMIZED_VERT"]:
			vert = true
		case c.atoms["_NET_WM_STATE_MAXIMIZED_HORZ"]:
			horz = true
		}
	}
	st.Maximized = vert && horz
	if !c.wmRunning() {
		if a, err := xproto.GetWindowAttributes(c.x, w).Reply(); err == nil && a.MapState == xproto.MapStateUnmapped {
			st.Minimized = true
		}
	}
	return st, nil
}

// netStates returns the atoms of a window's _NET_WM_STATE.
func (c *Conn) netStates(w xproto.Window) []xproto.Atom {
	v, err := c.prop(w, c.atoms["_NET_WM_STATE"], xproto.AtomAtom, 32)
	if err != nil || v.Format != 32 {
		return nil
	}
	out := make([]xproto.Atom, 0, len(v.Value)/4)
	for i := 0; i+4 <= len(v.Value); i += 4 {
		out = append(out, xproto.Atom(xgbUint32(v.Value[i:])))
	}
	return out
}

// MinimizeWindow iconifies window id: WM_CHANGE_STATE to IconicState
// (ICCCM 4.1.4) through the window manager, else unmaps it.
func (c *Conn) MinimizeWindow(id uint32) error {
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if c.wmRunning() {
		return c.clientMessage(w, c.atoms["WM_CHANGE_STATE"], wmStateIconic)
	}
	if err := xproto.UnmapWindowChecked(c.x, w).Check(); err != nil {
		return fmt.Errorf("x11: unmap window %#x: %w", id, err)
	}
	return nil
}

// MaximizeWindow maximizes window id both ways (_NET_WM_STATE add
// MAXIMIZED_VERT and MAXIMIZED_HORZ); without a window manager it covers
// the screen.
func (c *Conn) MaximizeWindow(id uint32) error {
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if c.wmRunning() {
		if st, _ := c.WindowState(id); st.Minimized {
			if err := c.clientMessage(w, c.atoms["_NET_ACTIVE_WINDOW"], sourcePager, 0, 0); err != nil {
				return err
			}
		}
		return c.clientMessage(w, c.atoms["_NET_WM_STATE"], netStateAdd,
			uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_VERT"]), uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_HORZ"]), sourcePager)
	}
	if err := xproto.MapWindowChecked(c.x, w).Check(); err != nil {
		return fmt.Errorf("x11: map window %#x: %w", id, err)
	}
	return c.configure(w, image.Rect(0, 0, c.width, c.height))
}

// RestoreWindow undoes minimizing and maximizing: it removes the
// maximized states and brings an iconified window back
// (_NET_ACTIVE_WINDOW, which also activates it, as restoring a window
// does); without a window manager it maps the window.
func (c *Conn) RestoreWindow(id uint32) error {
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if !c.wmRunning() {
		if err := xproto.MapWindowChecked(c.x, w).Check(); err != nil {
			return fmt.Errorf("x11: map window %#x: %w", id, err)
		}
		return nil
	}
	st, err := c.WindowState(id)
	if err != nil {
		return err
	}
	if st.Minimized {
		if err := c.clientMessage(w, c.atoms["_NET_ACTIVE_WINDOW"], sourcePager, 0, 0); err != nil {
			return err
		}
	}
	return c.clientMessage(w, c.atoms["_NET_WM_STATE"], netStateRemove,
		uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_VERT"]), uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_HORZ"]), sourcePager)
}

// MoveResizeWindow places the client area of window id (its own pixels,
// without the window manager's frame) at r in screen coordinates, as
// [Conn.WindowGeometry] reports it. Through the window manager this is
// _NET_MOVERESIZE_WINDOW with static gravity; a maximized window is
// restored first, since window managers keep maximized windows in place.
// Positions may be off the screen (negative, or past its size); sizes
// must be at least 1 and at most 32767. With a window manager it waits
// (at most a second) to read the window back, and corrects a placement
// a few pixels off once.
func (c *Conn) MoveResizeWindow(id uint32, r image.Rectangle) error {
	if r.Dx() < 1 || r.Dy() < 1 || r.Dx() > 32767 || r.Dy() > 32767 {
		return fmt.Errorf("x11: window size %dx%d is outside 1..32767", r.Dx(), r.Dy())
	}
	if r.Min.X < -32768 || r.Min.Y < -32768 || r.Min.X > 32767 || r.Min.Y > 32767 {
		return fmt.Errorf("x11: window position %d,%d is outside -32768..32767", r.Min.X, r.Min.Y)
	}
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if !c.wmRunning() {
		return c.configure(w, r)
	}
	if st, _ := c.WindowState(id); st.Maximized {
		if err := c.clientMessage(w, c.atoms["_NET_WM_STATE"], netStateRemove,
			uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_VERT"]), uint32(c.atoms["_NET_WM_STATE_MAXIMIZED_HORZ"]), sourcePager); err != nil {
			return err
		}
	}
	before, _ := c.WindowGeometry(id)
	if err := c.netMoveResize(w, r); err != nil {
		return err
	}
	// The window manager moves the window in its own time, and may place
	// it off by the border the client had before it was managed (openbox
	// keeps that border for static gravity; an xterm lands 1 pixel off).
	// Read the window back and correct such a small offset once; a large
	// one is the window manager keeping the window on the screen.
	got := c.awaitGeometry(id, before, r)
	if got == r || got.Size() != r.Size() {
		return nil
	}
	d := got.Min.Sub(r.Min)
	if d.X < -64 || d.X > 64 || d.Y < -64 || d.Y > 64 {
		return nil
	}
	return c.netMoveResize(w, r.Sub(d))
}

// netMoveResize sends _NET_MOVERESIZE_WINDOW with static gravity.
func (c *Conn) netMoveResize(w xproto.Window, r image.Rectangle) error {
	// data[0]: gravity (bits 0-7), x, y, width and height present (bits
	// 8-11), source (bits 12-13).
	flags := uint32(xproto.GravityStatic) | 0xf<<8 | sourcePager<<12
	return c.clientMessage(w, c.atoms["_NET_MOVERESIZE_WINDOW"], flags,
		uint32(int32(r.Min.X)), uint32(int32(r.Min.Y)), uint32(r.Dx()), uint32(r.Dy()))
}

// awaitGeometry reads window id's geometry until it is want, or has
// changed from before and then kept still for 20 ms (a window manager
// may place and size a window in separate steps), or a second has
// passed; it returns the last reading.
func (c *Conn) awaitGeometry(id uint32, before, want image.Rectangle) image.Rectangle {
	const still = 20 * time.Millisecond
	deadline := time.Now().Add(time.Second)
	last, since := before, time.Now()
	for time.Now().Before(deadline) {
		g, err := c.WindowGeometry(id)
		if err != nil || g == want {
			return g
		}
		if g != last {
			last, since = g, time.Now()
		} else if g != before && time.Since(since) >= still {
			return g
		}
		time.Sleep(2 * time.Millisecond)
	}
	return last
}

// configure moves and resizes a window directly (no window manager) so
// that its inside is at r: X places a window by the outer corner of its
// border.
func (c *Conn) configure(w xproto.Window, r image.Rectangle) error {
	if g, err := xproto.GetGeometry(c.x, xproto.Drawable(w)).Reply(); err == nil {
		r = r.Sub(image.Pt(int(g.BorderWidth), int(g.BorderWidth)))
	}
	mask := uint16(xproto.ConfigWindowX | xproto.ConfigWindowY | xproto.ConfigWindowWidth | xproto.ConfigWindowHeight)
	vals := []uint32{uint32(int32(r.Min.X)), uint32(int32(r.Min.Y)), uint32(r.Dx()), uint32(r.Dy())}
	if err := xproto.ConfigureWindowChecked(c.x, w, mask, vals).Check(); err != nil {
		return fmt.Errorf("x11: configure window %#x: %w", uint32(w), err)
	}
	return nil
}
