package rfb_test

import (
	"image"
	"image/color"
	"math/rand/v2"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
)

// paintDesktop draws what a desktop shows: a flat background, a
// two-colour "text" area, an area of a few dozen anti-aliased shades, and
// a photograph-like gradient with noise.
func paintDesktop(f *fake, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.screen
	for y := range s.Rect.Dy() {
		for x := range s.Rect.Dx() {
			c := color.RGBA{0xf0, 0xf0, 0xf0, 255}
			switch {
			case x >= 20 && x < 300 && y >= 20 && y < 120: // text: glyph-like strokes
				if (x/3+y/5+int(seed))%7 == 0 || (x*y+int(seed))%11 == 0 {
					c = color.RGBA{0x10, 0x10, 0x10, 255}
				}
			case x >= 320 && x < 560 && y >= 20 && y < 200: // anti-aliased: 40 shades
				v := uint8(((x+y+int(seed))%40)*6 + 10)
				c = color.RGBA{v, v, uint8(255 - int(v)/2), 255}
			case y >= 220 && y < 460: // photo
				c = color.RGBA{uint8(x/3 + rng.IntN(24)), uint8(y + rng.IntN(24)), uint8((x + y) / 5), 255}
			}
			s.SetRGBA(x, y, c)
		}
	}
}

// diff returns the mean absolute difference per channel between a and b
// within r, and the largest.
func diff(a, b *image.RGBA, r image.Rectangle) (mean float64, most int) {
	sum := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p, q := a.RGBAAt(x, y), b.RGBAAt(x, y)
			for _, d := range []int{int(p.R) - int(q.R), int(p.G) - int(q.G), int(p.B) - int(q.B)} {
				d = max(d, -d)
				sum += d
				most = max(most, d)
			}
		}
	}
	return float64(sum) / float64(3*r.Dx()*r.Dy()), most
}

func serveWith(t *testing.T, f *fake, encs ...int32) *rfbtest.Client {
	t.Helper()
	a, b := net.Pipe()
	go rfb.Serve(t.Context(), a, f, rfb.Options{Poll: 5 * time.Millisecond})
	c, err := rfbtest.HandshakeWith(b, encs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return c
}

// TestEncodingsDecode sends frames and changes in each encoding and
// decodes them with rfbtest's own decoders: lossless encodings give the
// screen exactly, Tight's JPEG within JPEG's error, and every update of
// the persistent zlib streams decodes after the ones before it.
func TestEncodingsDecode(t *testing.T) {
	for _, tt := range []struct {
		name     string
		encs     []int32
		want     int32 // the encoding of the pixel rectangles
		lossless bool
	}{
		{"raw", []int32{0}, rfb.EncRaw, true},
		{"tight", []int32{rfb.EncTight, rfb.EncCompressLevel0 + 2}, rfb.EncTight, true},
		{"tight-jpeg", []int32{rfb.EncCopyRect, rfb.EncTight, rfb.EncZRLE, rfb.EncRaw, rfb.EncQualityLevel0 + 6, rfb.EncCompressLevel0 + 2}, rfb.EncTight, false},
		{"zrle", []int32{rfb.EncZRLE, rfb.EncTight, rfb.EncRaw}, rfb.EncZRLE, true},
		{"tight-bigger-level", []int32{rfb.EncTight, rfb.EncCompressLevel0 + 9}, rfb.EncTight, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(700, 500, color.RGBA{A: 255})
			paintDesktop(f, 1)
			c := serveWith(t, f, tt.encs...)
			var sizes []int
			for i := range 4 {
				if i > 0 {
					paintDesktop(f, uint64(i+1))
				}
				c.Request(i > 0)
				u, err := c.Read()
				if err != nil {
					t.Fatalf("update %d: %v", i, err)
				}
				for _, e := range u.Encodings {
					if e != tt.want {
						t.Fatalf("update %d: rectangle encodings %v, want %d", i, u.Encodings, tt.want)
					}
				}
				sizes = append(sizes, u.Bytes)
				screen, _ := f.CaptureInto(nil, image.Rectangle{})
				mean, most := diff(screen, c.Frame, screen.Rect)
				if tt.lossless && most != 0 {
					t.Fatalf("update %d: frame differs from the screen by up to %d", i, most)
				}
				if !tt.lossless {
					// Flat and text areas go lossless (fill, palette);
					// only the photograph is JPEG.
					if _, m := diff(screen, c.Frame, image.Rect(0, 0, 700, 160)); m != 0 {
						t.Fatalf("update %d: the flat and indexed areas differ by up to %d", i, m)
					}
					if mean > 6 {
						t.Fatalf("update %d: mean error %.2f", i, mean)
					}
				}
			}
			t.Logf("bytes per update: %v (raw frame %d)", sizes, 700*500*4)
			if !tt.lossless || tt.want == rfb.EncRaw {
				return
			}
			if sizes[0] > 700*500*4/2 {
				t.Fatalf("a full frame took %d bytes", sizes[0])
			}
		})
	}
}

func TestSetEncodingsOrder(t *testing.T) {
	f := newFake(200, 100, color.RGBA{1, 2, 3, 255})
	c := serveWith(t, f, rfb.EncZRLE, rfb.EncTight, rfb.EncRaw)
	c.Request(false)
	u, err := c.Read()
	if err != nil || len(u.Encodings) != 1 || u.Encodings[0] != rfb.EncZRLE {
		t.Fatalf("first listed ZRLE: %v %v", u.Encodings, err)
	}
	// A new SetEncodings takes effect: Tight first now; unknown
	// encodings (Hextile, TightPNG) are passed over.
	c.SetEncodings(5, -260, rfb.EncTight, rfb.EncZRLE)
	time.Sleep(20 * time.Millisecond)
	c.Request(false)
	u, err = c.Read()
	if err != nil || len(u.Encodings) == 0 || slices.ContainsFunc(u.Encodings, func(e int32) bool { return e != rfb.EncTight }) {
		t.Fatalf("first listed Tight: %v %v", u.Encodings, err)
	}
	if got := c.Frame.RGBAAt(100, 50); got != (color.RGBA{1, 2, 3, 255}) {
		t.Fatalf("pixel %v", got)
	}
}

// TestScrollSendsCopyRect scrolls a textured page by 40 rows under a
// fixed header and scroll bar: the update copies the page and sends only
// what scrolled in and what else changed, and the frame is exact.
func TestScrollSendsCopyRect(t *testing.T) {
	for _, enc := range []int32{rfb.EncTight, rfb.EncZRLE, rfb.EncRaw} {
		f := newFake(640, 480, color.RGBA{0xff, 0xff, 0xff, 255})
		page := image.NewRGBA(image.Rect(0, 0, 600, 2000))
		rng := rand.New(rand.NewPCG(3, 4))
		for y := range 2000 {
			for x := range 600 {
				c := color.RGBA{0xff, 0xff, 0xff, 255}
				if (y/14)%2 == 0 && rng.IntN(3) == 0 { // lines of "text"
					c = color.RGBA{uint8(rng.IntN(80)), uint8(rng.IntN(80)), uint8(rng.IntN(255)), 255}
				}
				page.SetRGBA(x, y, c)
			}
		}
		show := func(top int) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for y := 40; y < 480; y++ { // a header of 40 rows stays
				copy(f.screen.Pix[f.screen.PixOffset(0, y):f.screen.PixOffset(600, y)], page.Pix[page.PixOffset(0, top+y-40):page.PixOffset(600, top+y-40)])
				for x := 600; x < 640; x++ { // the scroll bar's thumb moves
					c := color.RGBA{0xcc, 0xcc, 0xcc, 255}
					if y-40 >= top/5 && y-40 < top/5+60 {
						c = color.RGBA{0x55, 0x55, 0x55, 255}
					}
					f.screen.SetRGBA(x, y, c)
				}
			}
		}
		show(0)
		c := serveWith(t, f, rfb.EncCopyRect, enc)
		c.Request(false)
		if _, err := c.Read(); err != nil {
			t.Fatal(err)
		}
		top := 0
		for i := range 3 {
			top += 40
			show(top)
			c.Request(true)
			u, err := c.Read()
			if err != nil {
				t.Fatal(err)
			}
			screen, _ := f.CaptureInto(nil, image.Rectangle{})
			if _, most := diff(screen, c.Frame, screen.Rect); most != 0 {
				t.Fatalf("encoding %d, scroll %d: frame differs by up to %d", enc, i, most)
			}
			if len(u.Encodings) == 0 || u.Encodings[0] != rfb.EncCopyRect {
				t.Fatalf("encoding %d, scroll %d: rectangles %v %v, want a CopyRect first", enc, i, u.Rects, u.Encodings)
			}
			// Raw without the copy would send 600x440 pixels at least.
			if enc == rfb.EncRaw && u.Bytes > 600*440*4/3 {
				t.Fatalf("raw scroll update of %d bytes", u.Bytes)
			}
			t.Logf("encoding %d: scroll update %d bytes, rectangles %v", enc, u.Bytes, u.Rects)
		}
	}
}

// cursorFake is a fake with a cursor image.
type cursorFake struct {
	*fake
	serial uint32
}

func (c *cursorFake) CursorImage() (*image.RGBA, image.Point, uint32, error) {
	img := image.NewRGBA(image.Rect(0, 0, 10, 16))
	for y := range 16 {
		for x := range min(y, 10) {
			img.SetRGBA(x, y, color.RGBA{0xff, 0, 0, 255})
		}
	}
	return img, image.Pt(1, 2), c.serial, nil
}

func TestCursorPseudoEncoding(t *testing.T) {
	f := &cursorFake{fake: newFake(100, 100, color.RGBA{A: 255}), serial: 5}
	a, b := net.Pipe()
	go rfb.Serve(t.Context(), a, f, rfb.Options{})
	c, err := rfbtest.HandshakeWith(b, rfb.EncTight, rfb.EncCursor)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c.Request(false)
	u, err := c.Read()
	if err != nil {
		t.Fatal(err)
	}
	if c.Cursor == nil || c.CursorHot != image.Pt(1, 2) || c.Cursor.Rect.Dx() != 10 {
		t.Fatalf("cursor %v hot %v; update %v", c.Cursor, c.CursorHot, u.Encodings)
	}
	if c.Cursor.RGBAAt(2, 10) != (color.RGBA{0xff, 0, 0, 255}) || c.Cursor.RGBAAt(9, 3).A != 0 {
		t.Fatal("cursor pixels or mask wrong")
	}
	// The same cursor is not sent again.
	f.fill(image.Rect(0, 0, 10, 10), color.RGBA{9, 9, 9, 255})
	c.Request(true)
	if u, err = c.Read(); err != nil || len(u.Encodings) != 1 {
		t.Fatalf("second update %v %v", u.Encodings, err)
	}
}
