package pil

import (
	"fmt"
	"math"
)

// SSIM is scikit-image's structural_similarity(a, b) with its defaults,
// in our own implementation: a 7-wide uniform window, no Gaussian
// weights, the sample covariance, K1 0.01 and K2 0.03, a data range of
// 255 for 8-bit data, the mean over the image less three pixels at every
// border. The arrays are h x w x ch, with channel axis -1 when
// multichannel is set; like OSWorld's calls, a one-channel image given
// channel_axis=-1 is numpy's two-dimensional array, whose last axis then
// holds the channels: columns of one-dimensional signals.
func SSIM(a, b *Image, multichannel bool) (float64, error) {
	if a.W != b.W || a.H != b.H || a.Ch != b.Ch {
		return 0, fmt.Errorf("images of different shapes: %dx%dx%d and %dx%dx%d", a.W, a.H, a.Ch, b.W, b.H, b.Ch)
	}
	const win = 7
	plane := func(m *Image, c int) []float64 {
		out := make([]float64, m.W*m.H)
		for i := range out {
			out[i] = float64(m.Pix[i*m.Ch+c])
		}
		return out
	}
	if !multichannel && a.Ch == 1 {
		if a.W < win || a.H < win {
			return 0, fmt.Errorf("image of %dx%d is smaller than the 7-pixel window", a.W, a.H)
		}
		return ssim2D(plane(a, 0), plane(b, 0), a.W, a.H), nil
	}
	if a.Ch == 1 {
		// numpy shape (h, w), channel axis -1: w signals of length h.
		if a.H < win {
			return 0, fmt.Errorf("image of height %d is smaller than the 7-pixel window", a.H)
		}
		pa, pb := plane(a, 0), plane(b, 0)
		col := func(p []float64, x int) []float64 {
			out := make([]float64, a.H)
			for y := range out {
				out[y] = p[y*a.W+x]
			}
			return out
		}
		sum := 0.0
		for x := 0; x < a.W; x++ {
			sum += ssim2D(col(pa, x), col(pb, x), 1, a.H)
		}
		return sum / float64(a.W), nil
	}
	if a.W < win || a.H < win {
		return 0, fmt.Errorf("image of %dx%d is smaller than the 7-pixel window", a.W, a.H)
	}
	sum := 0.0
	for c := 0; c < a.Ch; c++ {
		sum += ssim2D(plane(a, c), plane(b, c), a.W, a.H)
	}
	return sum / float64(a.Ch), nil
}

// ssim2D is the mean SSIM of two w x h planes (w may be 1: a
// one-dimensional signal along h) over the positions whose whole window
// is inside the image.
func ssim2D(x, y []float64, w, h int) float64 {
	const win, k1, k2, r = 7, 0.01, 0.03, 255.0
	half := win / 2
	winW := win
	if w == 1 {
		winW = 1
	}
	np := float64(win * winW)
	covNorm := np / (np - 1)
	c1, c2 := (k1*r)*(k1*r), (k2*r)*(k2*r)
	// Window sums by summed-area tables of x, y, xx, yy, xy.
	sat := func(f func(i int) float64) []float64 {
		t := make([]float64, (w+1)*(h+1))
		for j := 0; j < h; j++ {
			row := 0.0
			for i := 0; i < w; i++ {
				row += f(j*w + i)
				t[(j+1)*(w+1)+i+1] = t[j*(w+1)+i+1] + row
			}
		}
		return t
	}
	sx := sat(func(i int) float64 { return x[i] })
	sy := sat(func(i int) float64 { return y[i] })
	sxx := sat(func(i int) float64 { return x[i] * x[i] })
	syy := sat(func(i int) float64 { return y[i] * y[i] })
	sxy := sat(func(i int) float64 { return x[i] * y[i] })
	box := func(t []float64, x0, y0, x1, y1 int) float64 {
		return t[y1*(w+1)+x1] - t[y0*(w+1)+x1] - t[y1*(w+1)+x0] + t[y0*(w+1)+x0]
	}
	hx := half
	if w == 1 {
		hx = 0
	}
	total, n := 0.0, 0
	for j := half; j < h-half; j++ {
		for i := hx; i < w-hx; i++ {
			x0, y0, x1, y1 := i-hx, j-half, i+hx+1, j+half+1
			ux := box(sx, x0, y0, x1, y1) / np
			uy := box(sy, x0, y0, x1, y1) / np
			uxx := box(sxx, x0, y0, x1, y1) / np
			uyy := box(syy, x0, y0, x1, y1) / np
			uxy := box(sxy, x0, y0, x1, y1) / np
			vx := covNorm * (uxx - ux*ux)
			vy := covNorm * (uyy - uy*uy)
			vxy := covNorm * (uxy - ux*uy)
			a1, a2 := 2*ux*uy+c1, 2*vxy+c2
			b1, b2 := ux*ux+uy*uy+c1, vx+vy+c2
			total += (a1 * a2) / (b1 * b2)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return total / float64(n)
}
