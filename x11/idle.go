package x11

import (
	"fmt"
	"sync"
	"time"

	"github.com/jezek/xgb/screensaver"
	"github.com/jezek/xgb/xproto"
)

// idleState is MIT-SCREEN-SAVER, set up on the first SinceInput call.
type idleState struct {
	once sync.Once
	err  error
}

// SinceInput reports how long ago the X server last received input from
// any client: a person, XTEST through this connection or another
// program's (pyautogui, xdotool). It is the server's own idle counter
// (MIT-SCREEN-SAVER QueryInfo), the one screen savers read. An X server
// without that extension is an error. Safe for concurrent use.
func (c *Conn) SinceInput() (time.Duration, error) {
	c.saver.once.Do(func() {
		if err := initExt(c.x, "MIT-SCREEN-SAVER"); err != nil {
			c.saver.err = fmt.Errorf("x11: %w", err)
		}
	})
	if c.saver.err != nil {
		return 0, c.saver.err
	}
	r, err := screensaver.QueryInfo(c.x, xproto.Drawable(c.root)).Reply()
	if err != nil {
		return 0, fmt.Errorf("x11: time since input: %w", err)
	}
	return time.Duration(r.MsSinceUserInput) * time.Millisecond, nil
}
