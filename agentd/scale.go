package agentd

import (
	"image"
	"runtime"
	"sync"
)

// Downscaling of screenshots: an area average (each output pixel is the
// mean of the screen pixels it covers, partly covered ones weighted by
// their share), so that text and thin lines stay legible at any factor
// instead of dropping out as with point-sampling filters. Separable, in
// fixed point (vertical first, over contiguous bytes, then horizontal on
// the fewer output rows), the output rows split among the CPUs.

// weightBits is the fixed-point precision of the filter weights: the
// weights of one output pixel sum to 1<<weightBits.
const weightBits = 14

// taps are the source pixels one output pixel averages along one axis.
type taps struct {
	first int      // first source index
	w     []uint32 // weights of first, first+1, ...
}

// areaTaps computes, for each of m output positions, the source pixels of
// n that it covers and their weights (m <= n).
func areaTaps(n, m int) []taps {
	out := make([]taps, m)
	scale := float64(n) / float64(m)
	for j := range out {
		lo, hi := float64(j)*scale, float64(j+1)*scale
		first := int(lo)
		last := min(int(hi-1e-9), n-1)
		ws := make([]uint32, last-first+1)
		var sum uint32
		big := 0
		for i := first; i <= last; i++ {
			cover := min(hi, float64(i+1)) - max(lo, float64(i))
			w := uint32(cover/scale*(1<<weightBits) + 0.5)
			ws[i-first] = w
			sum += w
			if w > ws[big] {
				big = i - first
			}
		}
		// Rounding may leave the sum a little off: the largest weight
		// takes up the difference, so flat areas keep their exact value.
		ws[big] += 1<<weightBits - sum
		out[j] = taps{first: first, w: ws}
	}
	return out
}

// downscale returns src scaled to w x h (each no larger than src's) by
// area averaging.
func downscale(src *image.RGBA, w, h int) *image.RGBA {
	b := src.Bounds()
	sw, sh := b.Dx(), b.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	if w <= 0 || h <= 0 || sw == 0 || sh == 0 {
		return dst
	}
	xt, yt := areaTaps(sw, w), areaTaps(sh, h)
	parallel(h, func(y0, y1 int) {
		acc := make([]uint32, sw*4)
		mid := make([]uint16, sw*4)
		for y := y0; y < y1; y++ {
			// Vertical: the source rows this output row covers, summed
			// over contiguous bytes, kept with 8 extra bits.
			t := yt[y]
			clear(acc)
			for k, wt := range t.w {
				in := src.Pix[src.PixOffset(b.Min.X, b.Min.Y+t.first+k):][:len(acc)]
				for i, v := range in {
					acc[i] += uint32(v) * wt
				}
			}
			const vs = weightBits - 8
			for i, v := range acc {
				mid[i] = uint16((v + 1<<(vs-1)) >> vs)
			}
			// Horizontal: the columns each output pixel covers.
			out := dst.Pix[y*dst.Stride:][:w*4]
			for x, t := range xt {
				var r, g, bl, a uint32
				p := mid[t.first*4:][:len(t.w)*4]
				for k, wt := range t.w {
					q := p[k*4 : k*4+4 : k*4+4]
					r += uint32(q[0]) * wt
					g += uint32(q[1]) * wt
					bl += uint32(q[2]) * wt
					a += uint32(q[3]) * wt
				}
				const hs = weightBits + 8
				const half = 1 << (hs - 1)
				o := out[x*4 : x*4+4 : x*4+4]
				o[0], o[1], o[2], o[3] = uint8((r+half)>>hs), uint8((g+half)>>hs), uint8((bl+half)>>hs), uint8((a+half)>>hs)
			}
		}
	})
	return dst
}

// parallel calls f on consecutive bands [y0,y1) covering [0,n), several
// at once.
func parallel(n int, f func(y0, y1 int)) {
	workers := min(runtime.GOMAXPROCS(0), max(1, n/32))
	if workers <= 1 {
		f(0, n)
		return
	}
	band := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for y0 := 0; y0 < n; y0 += band {
		wg.Go(func() { f(y0, min(y0+band, n)) })
	}
	wg.Wait()
}
