package x11

import (
	"fmt"
	"image"
	"image/color"
	"sync"

	"github.com/jezek/xgb/xfixes"
)

// cursorState is the XFixes set-up, made on first use.
type cursorState struct {
	once sync.Once
	err  error
}

// CursorImage reads the pointer's current cursor (XFixes
// GetCursorImage): its image, not premultiplied, its hotspot, and a
// serial that changes whenever the image does. An X server without
// XFixes 4 is an error. Safe for concurrent use.
func (c *Conn) CursorImage() (*image.RGBA, image.Point, uint32, error) {
	c.cur.once.Do(func() {
		if err := xfixes.Init(c.x); err != nil {
			c.cur.err = fmt.Errorf("x11: xfixes: %w", err)
			return
		}
		if _, err := xfixes.QueryVersion(c.x, 4, 0).Reply(); err != nil {
			c.cur.err = fmt.Errorf("x11: xfixes version: %w", err)
		}
	})
	if c.cur.err != nil {
		return nil, image.Point{}, 0, c.cur.err
	}
	r, err := xfixes.GetCursorImage(c.x).Reply()
	if err != nil {
		return nil, image.Point{}, 0, fmt.Errorf("x11: cursor image: %w", err)
	}
	return cursorRGBA(int(r.Width), int(r.Height), r.CursorImage), image.Pt(int(r.Xhot), int(r.Yhot)), r.CursorSerial, nil
}

// cursorRGBA turns XFixes' premultiplied ARGB words into an image.
func cursorRGBA(w, h int, argb []uint32) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, p := range argb[:min(len(argb), w*h)] {
		a := uint32(p >> 24)
		if a == 0 {
			continue
		}
		un := func(v uint32) uint8 { return uint8(min(255, v*255/a)) }
		img.SetRGBA(i%w, i/w, color.RGBA{un(p >> 16 & 0xff), un(p >> 8 & 0xff), un(p & 0xff), uint8(a)})
	}
	return img
}
