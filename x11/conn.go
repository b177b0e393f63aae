package x11

import (
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deskrun/deskrun/x11/internal/wire"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xproto"
)

// Conn is a connection to an X server with everything input, capture and
// window calls need set up. It is safe for concurrent use.
type Conn struct {
	x      *xgb.Conn
	root   xproto.Window
	width  int
	height int
	depth  byte

	atoms map[string]xproto.Atom

	inMu  sync.Mutex // input state: the input connection, keymap, held keys and buttons
	in    *wire.Conn // XTEST requests and the round trips that check them
	km    *keymap
	held  []heldKey
	btns  map[byte]bool
	idle  *time.Timer // restores spare keycodes after typing goes quiet
	close chan struct{}

	capMu sync.Mutex // capture buffers
	shm   *shmSeg    // nil when MIT-SHM is unavailable

	dmg   damageState // screen changes, for WaitIdle
	cur   cursorState // XFixes, for CursorImage
	saver idleState   // MIT-SCREEN-SAVER, for SinceInput

	wmMu  sync.Mutex    // one WMSync at a time
	wm    wmSync        // guarded by wmMu
	wmWin atomic.Uint32 // wm.win, for the event loop

	resOnce sync.Once // X-Resource set up on the first WMPID
	resOK   bool

	display string
	selMu   sync.Mutex
	sel     *selections // made on the first clipboard call
}

// quietXGB silences xgb's own logging (a missing ~/.Xauthority, a closed
// connection): the errors that matter are returned.
var quietXGB sync.Once

// Dial connects to display ("" means $DISPLAY) and sets up XTEST, MIT-SHM
// (when the server shares memory with this process) and the atoms the
// window calls use. The keyboard map is read once here and re-read when
// another client changes it. Input goes through a second connection of
// its own, which sends a batch of XTEST requests and the request that
// checks them in one write and reads the answer without handing it
// between goroutines (see internal/wire).
func Dial(display string) (*Conn, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("x11: no display given and DISPLAY is not set")
	}
	quietXGB.Do(func() { xgb.Logger = log.New(io.Discard, "", 0) })
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("x11: connect to %s: %w", display, err)
	}
	in, err := wire.Dial(display)
	if err != nil {
		x.Close()
		return nil, fmt.Errorf("x11: input connection: %w", err)
	}
	c := &Conn{x: x, in: in, btns: map[byte]bool{}, close: make(chan struct{}), display: display, wm: wmSync{acks: make(chan struct{}, 1)}}
	if err := c.setup(); err != nil {
		x.Close()
		in.Close()
		return nil, fmt.Errorf("x11: %s: %w", display, err)
	}
	return c, nil
}

func (c *Conn) setup() error {
	setup := xproto.Setup(c.x)
	if setup == nil || len(setup.Roots) == 0 {
		return fmt.Errorf("server reports no screens")
	}
	scr := setup.DefaultScreen(c.x)
	c.root = scr.Root
	c.width, c.height = int(scr.WidthInPixels), int(scr.HeightInPixels)
	c.depth = scr.RootDepth
	if err := c.in.InitXTEST(); err != nil {
		return err
	}
	km, err := loadKeymap(c.x, setup.MinKeycode, setup.MaxKeycode)
	if err != nil {
		return err
	}
	// Key events queued before a keycode is rebound must reach the
	// server first, or it would read them with the new keysym.
	km.beforeChange = c.in.Check
	c.km = km
	if err := c.internAtoms(); err != nil {
		return err
	}
	c.shm = newSHM(c.x, c.root, c.width, c.height)
	go c.drainEvents()
	return nil
}

// drainEvents consumes the events and asynchronous errors xgb queues, so
// its queue never grows, and re-reads the keyboard map when another
// client changes it.
func (c *Conn) drainEvents() {
	for {
		ev, err := c.x.WaitForEvent()
		if ev == nil && err == nil {
			return // connection closed
		}
		if d, ok := ev.(damage.NotifyEvent); ok {
			c.noteDamage(d)
			continue
		}
		if p, ok := ev.(xproto.PropertyNotifyEvent); ok {
			c.noteWMAnswer(p)
			continue
		}
		if m, ok := ev.(xproto.MappingNotifyEvent); ok && m.Request == xproto.MappingKeyboard {
			c.inMu.Lock()
			c.km.noteChange(m.FirstKeycode, m.Count)
			c.inMu.Unlock()
		}
	}
}

// Close releases anything this connection holds pressed, restores the
// keycodes it rebound and closes the connection.
func (c *Conn) Close() error {
	c.inMu.Lock()
	select {
	case <-c.close:
		c.inMu.Unlock()
		return nil
	default:
	}
	close(c.close)
	if c.idle != nil {
		c.idle.Stop()
	}
	err := c.releaseAllLocked()
	if rerr := c.km.restoreAll(c.x, true); err == nil {
		err = rerr
	}
	c.inMu.Unlock()
	c.capMu.Lock()
	if c.shm != nil {
		c.shm.close(c.x)
		c.shm = nil
	}
	c.capMu.Unlock()
	c.selMu.Lock()
	if c.sel != nil {
		c.sel.close()
	}
	c.selMu.Unlock()
	c.x.Close()
	c.in.Close()
	return err
}

// Size returns the screen size in pixels.
func (c *Conn) Size() (w, h int) { return c.width, c.height }

// SHM reports whether captures use MIT-SHM.
func (c *Conn) SHM() bool {
	c.capMu.Lock()
	defer c.capMu.Unlock()
	return c.shm != nil
}

// Ping makes a round trip to the server; an error means it no longer
// answers.
func (c *Conn) Ping() error {
	_, err := xproto.GetInputFocus(c.x).Reply()
	if err != nil {
		return fmt.Errorf("x11: ping: %w", err)
	}
	return nil
}

func (c *Conn) internAtoms() error {
	names := []string{
		"_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "_NET_WM_PID",
		"_NET_CLOSE_WINDOW", "_NET_SUPPORTING_WM_CHECK", "UTF8_STRING", "WM_PROTOCOLS",
		"WM_DELETE_WINDOW", "WM_STATE", "WM_CHANGE_STATE", "_NET_WM_STATE", "_NET_WM_STATE_HIDDEN",
		"_NET_WM_STATE_MAXIMIZED_VERT", "_NET_WM_STATE_MAXIMIZED_HORZ", "_NET_MOVERESIZE_WINDOW",
		"_NET_SUPPORTED", "_NET_REQUEST_FRAME_EXTENTS", "_NET_FRAME_EXTENTS",
	}
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(c.x, false, uint16(len(n)), n)
	}
	c.atoms = make(map[string]xproto.Atom, len(names))
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			return fmt.Errorf("intern atom %s: %w", names[i], err)
		}
		c.atoms[names[i]] = r.Atom
	}
	return nil
}
