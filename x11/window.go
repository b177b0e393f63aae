package x11

import (
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/jezek/xgb/xproto"
)

// Window is a top-level window.
type Window struct {
	ID    uint32
	Title string
	Class string // WM_CLASS's class ("Gnome-terminal")
	// Instance is WM_CLASS's instance ("gnome-terminal-server"):
	// wmctrl -x, and so OSWorld's by-class window steps, match the
	// two as "instance.class".
	Instance string
	PID      int
	Active   bool
}

// Windows lists the top-level windows the window manager manages
// (_NET_CLIENT_LIST), in its order. Without an EWMH window manager it
// lists the root's viewable children that carry a name or class.
func (c *Conn) Windows() ([]Window, error) {
	ids, err := c.clientList()
	if err != nil {
		return nil, err
	}
	active, _ := c.ActiveWindow()
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		w := Window{ID: uint32(id), Active: uint32(id) == active}
		w.Title = c.title(id)
		if v, err := c.prop(id, xproto.AtomWmClass, xproto.AtomString, 256); err == nil && len(v.Value) > 0 {
			parts := strings.Split(strings.TrimRight(string(v.Value), "\x00"), "\x00")
			w.Class = parts[len(parts)-1]
			if len(parts) > 1 {
				w.Instance = parts[0]
			}
		}
		if v, err := c.prop(id, c.atoms["_NET_WM_PID"], xproto.AtomCardinal, 1); err == nil && len(v.Value) >= 4 {
			w.PID = int(xgbUint32(v.Value))
		}
		out = append(out, w)
	}
	return out, nil
}

func (c *Conn) clientList() ([]xproto.Window, error) {
	v, err := c.prop(c.root, c.atoms["_NET_CLIENT_LIST"], xproto.AtomWindow, 4096)
	if err != nil {
		return nil, err
	}
	// A window manager's list is the answer even while it is empty (one
	// that is starting has framed windows it does not list yet: the
	// root's children are then its frames, not the applications').
	if v.Format == 32 {
		ids := make([]xproto.Window, v.ValueLen)
		for i := range ids {
			ids[i] = xproto.Window(xgbUint32(v.Value[4*i:]))
		}
		return ids, nil
	}
	tree, err := xproto.QueryTree(c.x, c.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: query tree: %w", err)
	}
	var ids []xproto.Window
	for _, w := range tree.Children {
		a, err := xproto.GetWindowAttributes(c.x, w).Reply()
		if err != nil || a.MapState != xproto.MapStateViewable || a.OverrideRedirect {
			continue
		}
		if c.title(w) == "" {
			if v, err := c.prop(w, xproto.AtomWmClass, xproto.AtomString, 256); err != nil || len(v.Value) == 0 {
				continue
			}
		}
		ids = append(ids, w)
	}
	return ids, nil
}

func (c *Conn) title(id xproto.Window) string {
	if v, err := c.prop(id, c.atoms["_NET_WM_NAME"], c.atoms["UTF8_STRING"], 1024); err == nil && len(v.Value) > 0 {
		return string(v.Value)
	}
	if v, err := c.prop(id, xproto.AtomWmName, xproto.AtomAny, 1024); err == nil {
		return string(v.Value)
	}
	return ""
}

// WindowTitle returns a window's title (_NET_WM_NAME, else WM_NAME).
func (c *Conn) WindowTitle(id uint32) (string, error) {
	if err := c.exists(id); err != nil {
		return "", err
	}
	return c.title(xproto.Window(id)), nil
}

func (c *Conn) prop(w xproto.Window, name, typ xproto.Atom, longs uint32) (*xproto.GetPropertyReply, error) {
	r, err := xproto.GetProperty(c.x, false, w, name, typ, 0, longs).Reply()
	if err != nil {
		return nil, fmt.Errorf("x11: get property of window %#x: %w", uint32(w), err)
	}
	return r, nil
}

// ActiveWindow returns the window the window manager reports active
// (_NET_ACTIVE_WINDOW), else the input focus; 0 if none.
func (c *Conn) ActiveWindow() (uint32, error) {
	v, err := c.prop(c.root, c.atoms["_NET_ACTIVE_WINDOW"], xproto.AtomWindow, 1)
	if err != nil {
		return 0, err
	}
	if v.Format == 32 && len(v.Value) >= 4 {
		return xgbUint32(v.Value), nil
	}
	f, err := xproto.GetInputFocus(c.x).Reply()
	if err != nil {
		return 0, fmt.Errorf("x11: get input focus: %w", err)
	}
	if f.Focus <= 1 || f.Focus == c.root { // None, PointerRoot
		return 0, nil
	}
	return uint32(f.Focus), nil
}

func (c *Conn) exists(id uint32) error {
	if _, err := xproto.GetWindowAttributes(c.x, xproto.Window(id)).Reply(); err != nil {
		return fmt.Errorf("x11: no window %#x: %w", id, err)
	}
	return nil
}

// WMRunning reports whether an EWMH window manager runs and manages
// windows: it set _NET_SUPPORTING_WM_CHECK and _NET_CLIENT_LIST (empty
// or not) on the root window. A window manager announces itself with the
// first before it has finished starting: openbox does so some hundreds
// of milliseconds before its client list, and a window mapped in between
// stays unmapped for seconds.
func (c *Conn) WMRunning() bool { return c.wmRunning() }

func (c *Conn) wmRunning() bool {
	v, err := c.prop(c.root, c.atoms["_NET_SUPPORTING_WM_CHECK"], xproto.AtomWindow, 1)
	if err != nil || v.Format != 32 || len(v.Value) < 4 {
		return false
	}
	l, err := c.prop(c.root, c.atoms["_NET_CLIENT_LIST"], xproto.AtomWindow, 1)
	return err == nil && l.Format == 32
}

// clientMessage sends an EWMH request about window w to the root window.
func (c *Conn) clientMessage(w xproto.Window, typ xproto.Atom, data ...uint32) error {
	var d [5]uint32
	copy(d[:], data)
	ev := xproto.ClientMessageEvent{
		Format: 32, Window: w, Type: typ,
		Data: xproto.ClientMessageDataUnionData32New(d[:]),
	}
	mask := uint32(xproto.EventMaskSubstructureRedirect | xproto.EventMaskSubstructureNotify)
	if err := xproto.SendEventChecked(c.x, false, c.root, mask, string(ev.Bytes())).Check(); err != nil {
		return fmt.Errorf("x11: send client message: %w", err)
	}
	return nil
}

// ActivateWindow raises window id and gives it the focus, through the
// window manager when one runs (_NET_ACTIVE_WINDOW), directly otherwise.
func (c *Conn) ActivateWindow(id uint32) error {
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if c.wmRunning() {
		// Source 2: a pager, which window managers obey without
		// focus-stealing checks.
		return c.clientMessage(w, c.atoms["_NET_ACTIVE_WINDOW"], 2, 0, 0)
	}
	if err := xproto.ConfigureWindowChecked(c.x, w, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check(); err != nil {
		return fmt.Errorf("x11: raise window %#x: %w", id, err)
	}
	if err := xproto.SetInputFocusChecked(c.x, xproto.InputFocusParent, w, 0).Check(); err != nil {
		return fmt.Errorf("x11: focus window %#x: %w", id, err)
	}
	return nil
}

// CloseWindow asks window id to close, as its close button would: through
// the window manager (_NET_CLOSE_WINDOW), else with WM_DELETE_WINDOW when
// the window takes it, else by destroying it.
func (c *Conn) CloseWindow(id uint32) error {
	if err := c.exists(id); err != nil {
		return err
	}
	w := xproto.Window(id)
	if c.wmRunning() {
		return c.clientMessage(w, c.atoms["_NET_CLOSE_WINDOW"], 0, 2)
	}
	if v, err := c.prop(w, c.atoms["WM_PROTOCOLS"], xproto.AtomAtom, 64); err == nil {
		for i := 0; i+4 <= len(v.Value); i += 4 {
			if xproto.Atom(xgbUint32(v.Value[i:])) == c.atoms["WM_DELETE_WINDOW"] {
				ev := xproto.ClientMessageEvent{
					Format: 32, Window: w, Type: c.atoms["WM_PROTOCOLS"],
					Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(c.atoms["WM_DELETE_WINDOW"]), 0, 0, 0, 0}),
				}
				if err := xproto.SendEventChecked(c.x, false, w, 0, string(ev.Bytes())).Check(); err != nil {
					return fmt.Errorf("x11: close window %#x: %w", id, err)
				}
				return nil
			}
		}
	}
	if err := xproto.DestroyWindowChecked(c.x, w).Check(); err != nil {
		return fmt.Errorf("x11: destroy window %#x: %w", id, err)
	}
	return nil
}

// WindowGeometry returns a window's rectangle in screen coordinates.
func (c *Conn) WindowGeometry(id uint32) (image.Rectangle, error) {
	w := xproto.Window(id)
	g, err := xproto.GetGeometry(c.x, xproto.Drawable(w)).Reply()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("x11: geometry of window %#x: %w", id, err)
	}
	t, err := xproto.TranslateCoordinates(c.x, w, c.root, 0, 0).Reply()
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("x11: position of window %#x: %w", id, err)
	}
	x, y := int(t.DstX), int(t.DstY)
	return image.Rect(x, y, x+int(g.Width), y+int(g.Height)), nil
}

// TopLevelAt returns the top-level window (a child of the root: with a
// window manager, the frame around a client) at (x, y), or 0 for the
// root itself.
func (c *Conn) TopLevelAt(x, y int) (uint32, error) {
	r, err := xproto.TranslateCoordinates(c.x, c.root, c.root, int16(x), int16(y)).Reply()
	if err != nil {
		return 0, fmt.Errorf("x11: window at %d,%d: %w", x, y, err)
	}
	return uint32(r.Child), nil
}

// FocusTopLevel returns the top-level window holding the keyboard focus,
// or 0 when the focus is on the root or nowhere.
func (c *Conn) FocusTopLevel() (uint32, error) {
	f, err := xproto.GetInputFocus(c.x).Reply()
	if err != nil {
		return 0, fmt.Errorf("x11: get input focus: %w", err)
	}
	w := f.Focus
	for w > 1 && w != c.root {
		t, err := xproto.QueryTree(c.x, w).Reply()
		if err != nil {
			return 0, nil // the window went away
		}
		if t.Parent == c.root {
			return uint32(w), nil
		}
		w = t.Parent
	}
	return 0, nil
}

// AwaitFocus waits until the keyboard focus is in the top-level window
// top, or timeout passes, and reports whether it is. After a click on a
// window that did not have the focus, the window manager moves the focus
// in its own time; input sent before then would go to the old window.
func (c *Conn) AwaitFocus(top uint32, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		f, err := c.FocusTopLevel()
		if err != nil {
			return false, err
		}
		if f == top {
			return true, nil
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		time.Sleep(time.Millisecond)
	}
}

func xgbUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
