package agentd

import (
	"image"
	"image/color"
	"math/rand/v2"
	"strconv"
	"testing"
)

// refArea is the area average computed in floating point.
func refArea(src *image.RGBA, w, h int) [][4]float64 {
	b := src.Bounds()
	sx, sy := float64(b.Dx())/float64(w), float64(b.Dy())/float64(h)
	out := make([][4]float64, w*h)
	for y := range h {
		for x := range w {
			var sum [4]float64
			for j := int(float64(y) * sy); float64(j) < float64(y+1)*sy; j++ {
				cy := min(float64(y+1)*sy, float64(j+1)) - max(float64(y)*sy, float64(j))
				for i := int(float64(x) * sx); float64(i) < float64(x+1)*sx; i++ {
					cx := min(float64(x+1)*sx, float64(i+1)) - max(float64(x)*sx, float64(i))
					c := src.RGBAAt(b.Min.X+i, b.Min.Y+j)
					for k, v := range []uint8{c.R, c.G, c.B, c.A} {
						sum[k] += float64(v) * cx * cy
					}
				}
			}
			for k := range sum {
				sum[k] /= sx * sy
			}
			out[y*w+x] = sum
		}
	}
	return out
}

func noise(w, h int, seed uint64) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func TestDownscaleMatchesAreaAverage(t *testing.T) {
	for _, tc := range []struct{ sw, sh, w, h int }{
		{64, 40, 32, 20}, {64, 40, 51, 32}, {7, 5, 3, 2}, {100, 60, 99, 59}, {50, 50, 1, 1}, {33, 17, 33, 17},
	} {
		src := noise(tc.sw, tc.sh, uint64(tc.sw*1000+tc.w))
		got := downscale(src, tc.w, tc.h)
		if b := got.Bounds(); b.Dx() != tc.w || b.Dy() != tc.h {
			t.Fatalf("%v: got %v", tc, b)
		}
		want := refArea(src, tc.w, tc.h)
		for y := range tc.h {
			for x := range tc.w {
				c := got.RGBAAt(x, y)
				for k, v := range []uint8{c.R, c.G, c.B, c.A} {
					if d := float64(v) - want[y*tc.w+x][k]; d > 1 || d < -1 {
						t.Fatalf("%dx%d->%dx%d: pixel (%d,%d) channel %d = %d, want %.2f", tc.sw, tc.sh, tc.w, tc.h, x, y, k, v, want[y*tc.w+x][k])
					}
				}
			}
		}
	}
}

func TestDownscaleKeepsFlatColourAndThinLines(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	fill := color.RGBA{0x12, 0x34, 0x56, 0xff}
	for i := 0; i < len(src.Pix); i += 4 {
		src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = fill.R, fill.G, fill.B, fill.A
	}
	for _, w := range []int{1279, 1024, 640, 333, 100} {
		h := 800 * w / 1280
		got := downscale(src, w, h)
		for y := range h {
			for x := range w {
				if c := got.RGBAAt(x, y); c != fill {
					t.Fatalf("width %d: pixel (%d,%d) = %v, want %v", w, x, y, c, fill)
				}
			}
		}
	}
	// A one-pixel line darkens the column it falls in at any factor,
	// where point sampling may skip it.
	for y := range 800 {
		src.SetRGBA(641, y, color.RGBA{0, 0, 0, 255})
	}
	for _, w := range []int{400, 256, 100} {
		got := downscale(src, w, 800*w/1280)
		x := 641 * w / 1280
		if c := got.RGBAAt(x, 3); c.B >= fill.B {
			t.Errorf("width %d: the line left no trace at x=%d (%v)", w, x, c)
		}
	}
}

func TestDownscaleSubImage(t *testing.T) {
	src := noise(40, 30, 7)
	sub := src.SubImage(image.Rect(10, 5, 30, 25)).(*image.RGBA)
	got := downscale(sub, 10, 10)
	want := refArea(sub, 10, 10)
	for y := range 10 {
		for x := range 10 {
			if d := float64(got.RGBAAt(x, y).G) - want[y*10+x][1]; d > 1 || d < -1 {
				t.Fatalf("pixel (%d,%d) = %d, want %.2f", x, y, got.RGBAAt(x, y).G, want[y*10+x][1])
			}
		}
	}
}

func BenchmarkDownscale(b *testing.B) {
	img := scene(b)
	for _, w := range []int{1024, 640} {
		b.Run("to"+strconv.Itoa(w), func(b *testing.B) {
			for range b.N {
				downscale(img, w, 800*w/1280)
			}
		})
	}
}
