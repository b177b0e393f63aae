package x11

import (
	"fmt"
	"sync"
	"time"

	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xproto"
)

// damageState tracks changes to the screen through the DAMAGE
// extension: one Damage object on the root window (with subwindows, so
// every drawing counts) at report level NonEmpty. The server sends one
// event when the damaged region goes from empty to non-empty; the event
// loop subtracts (empties) it again and notes the time, so the next
// drawing sends the next event.
type damageState struct {
	once sync.Once
	err  error
	id   damage.Damage

	mu   sync.Mutex
	last time.Time // when the last change was reported
	n    uint64    // changes reported so far
}

// startDamage creates the root window's Damage on first use.
func (c *Conn) startDamage() error {
	d := &c.dmg
	d.once.Do(func() {
		if err := initExt(c.x, "DAMAGE"); err != nil {
			d.err = err
			return
		}
		if _, err := damage.QueryVersion(c.x, 1, 1).Reply(); err != nil {
			d.err = fmt.Errorf("damage version: %w", err)
			return
		}
		id, err := damage.NewDamageId(c.x)
		if err != nil {
			d.err = fmt.Errorf("damage id: %w", err)
			return
		}
		if err := damage.CreateChecked(c.x, id, xproto.Drawable(c.root), damage.ReportLevelNonEmpty).Check(); err != nil {
			d.err = fmt.Errorf("create damage: %w", err)
			return
		}
		d.mu.Lock()
		d.id = id
		d.mu.Unlock()
	})
	return d.err
}

// noteDamage is called by the event loop for each DamageNotify.
//
// The report level notifies only when the damaged region turns
// non-empty, and the Subtract that empties it again reaches the server
// later: what is drawn in between joins the region, is subtracted with
// it and sends no notify of its own. So the change is counted twice: at
// the notify, and once the server has done the Subtract (a look at the
// screen after that count sees that drawing; a drawing after the
// Subtract notifies anew). The second count waits for the server off the
// event loop, which must go on reading.
func (c *Conn) noteDamage(ev damage.NotifyEvent) {
	d := &c.dmg
	sub := damage.SubtractChecked(c.x, ev.Damage, 0, 0)
	d.count()
	go func() {
		if sub.Check() == nil {
			d.count()
		}
	}()
}

func (d *damageState) count() {
	d.mu.Lock()
	d.last = time.Now()
	d.n++
	d.mu.Unlock()
}

// lastChange reports when the screen last changed and how many changes
// were reported so far.
func (c *Conn) lastChange() (time.Time, uint64) {
	c.dmg.mu.Lock()
	defer c.dmg.mu.Unlock()
	return c.dmg.last, c.dmg.n
}

// Settle is the outcome of [Conn.WaitIdle].
type Settle struct {
	// Settled is true when nothing on the screen changed for the quiet
	// period; false when the deadline came first.
	Settled bool
	// Took is how long the wait lasted.
	Took time.Duration
	// Changes is how many times the screen changed during the wait.
	Changes uint64
}

// WaitIdle waits until nothing on the screen has changed for quiet, or
// until timeout has passed, and says which happened. The quiet period
// counts from the call: a change just before it (the effect of an
// action still being drawn) is waited out like one during it. A
// timeout below quiet is raised to quiet.
func (c *Conn) WaitIdle(quiet, timeout time.Duration) (Settle, error) {
	start := time.Now()
	if err := c.startDamage(); err != nil {
		return Settle{}, fmt.Errorf("x11: wait for the screen to settle: %w", err)
	}
	// A round trip makes every change made before the call reach the
	// event loop before the first look.
	if _, err := xproto.GetInputFocus(c.x).Reply(); err != nil {
		return Settle{}, fmt.Errorf("x11: wait for the screen to settle: %w", err)
	}
	timeout = max(timeout, quiet)
	deadline := start.Add(timeout)
	_, n0 := c.lastChange()
	from := start
	for {
		last, n := c.lastChange()
		if n != n0 && last.After(from) {
			from = last
		}
		now := time.Now()
		if now.Sub(from) >= quiet {
			_, n = c.lastChange()
			return Settle{Settled: true, Took: now.Sub(start), Changes: n - n0}, nil
		}
		if !now.Before(deadline) {
			return Settle{Took: now.Sub(start), Changes: n - n0}, nil
		}
		wait := min(from.Add(quiet).Sub(now), deadline.Sub(now))
		select {
		case <-time.After(wait):
		case <-c.close:
			return Settle{}, fmt.Errorf("x11: wait for the screen to settle: connection closed")
		}
	}
}

// Changes reports how many times the screen has changed (DAMAGE
// notifications on the root window) since the connection began watching
// it, which the first call starts. A caller that polls it learns whether
// anything was drawn between two looks without capturing the screen.
func (c *Conn) Changes() (uint64, error) {
	if err := c.startDamage(); err != nil {
		return 0, fmt.Errorf("x11: watch the screen for changes: %w", err)
	}
	_, n := c.lastChange()
	return n, nil
}
