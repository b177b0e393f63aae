package rfb_test

import (
	"image"
	"image/color"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
)

// scrolledPage draws a 1920x1080 page of text lines at scroll offset top.
func scrolledPage(img *image.RGBA, top int) {
	for y := range 1080 {
		py := y + top
		r := rand.New(rand.NewPCG(uint64(py), 9))
		for x := range 1920 {
			c := color.RGBA{0xff, 0xff, 0xff, 255}
			if x >= 1900 {
				c = color.RGBA{0xdd, 0xdd, 0xdd, 255}
				if y >= top/20 && y < top/20+80 {
					c = color.RGBA{0x88, 0x88, 0x88, 255}
				}
			} else if (py/20)%3 != 0 && x > 40 && x < 1800 && r.IntN(4) == 0 {
				v := uint8(r.IntN(200))
				c = color.RGBA{v, v, v, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
}

// BenchmarkScrollFrame is the cost of one update of a 1920x1080 page
// scrolled by 60 rows, per encoding, through Serve and rfbtest.
func BenchmarkScrollFrame(b *testing.B) {
	for _, enc := range []int32{rfb.EncTight, rfb.EncZRLE} {
		b.Run(map[int32]string{rfb.EncTight: "tight", rfb.EncZRLE: "zrle"}[enc], func(b *testing.B) {
			f := newFake(1920, 1080, color.RGBA{A: 255})
			frames := make([]*image.RGBA, 8)
			for i := range frames {
				frames[i] = image.NewRGBA(image.Rect(0, 0, 1920, 1080))
				scrolledPage(frames[i], i*60)
			}
			copy(f.screen.Pix, frames[0].Pix)
			a, c := net.Pipe()
			go rfb.Serve(b.Context(), a, f, rfb.Options{Poll: time.Millisecond})
			v, err := rfbtest.HandshakeWith(c, rfb.EncCopyRect, enc, rfb.EncQualityLevel0+6, rfb.EncCompressLevel0+2)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			v.Request(false)
			v.Read()
			var sent int
			i := 0
			for b.Loop() {
				i++
				f.mu.Lock()
				copy(f.screen.Pix, frames[i%len(frames)].Pix)
				f.mu.Unlock()
				v.Request(true)
				u, err := v.Read()
				if err != nil {
					b.Fatal(err)
				}
				sent += u.Bytes
			}
			b.ReportMetric(float64(sent)/float64(b.N), "B/frame")
		})
	}
}
