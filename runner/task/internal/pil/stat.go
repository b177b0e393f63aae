package pil

import (
	"image/color"
	"math"
)

// Brightness is PIL's mean of the "L" conversion.
func Brightness(m *Image, pal color.Palette) float64 {
	return Mean(m.Convert("L", pal))
}

// Mean is the mean of all the image's values (numpy's mean of the array).
func Mean(m *Image) float64 {
	var s float64
	for _, v := range m.Pix {
		s += float64(v)
	}
	return s / float64(len(m.Pix))
}

// NormalizeBrightness is OSWorld's point transform of every channel by
// target / Brightness, truncated and clipped to 0..255; a "P" image is
// converted to "RGB" first.
func NormalizeBrightness(m *Image, pal color.Palette, target float64) *Image {
	if m.Mode == "P" {
		m = m.Convert("RGB", pal)
	}
	factor := target / Brightness(m, pal)
	out := &Image{Mode: m.Mode, W: m.W, H: m.H, Ch: m.Ch, Pix: make([]uint8, len(m.Pix))}
	for i, v := range m.Pix {
		out.Pix[i] = uint8(math.Min(255, math.Max(0, math.Trunc(float64(v)*factor))))
	}
	return out
}

// Contrast is numpy's standard deviation of all the array's values.
func Contrast(m *Image) float64 {
	sum := 0.0
	for _, v := range m.Pix {
		sum += float64(v)
	}
	mean := sum / float64(len(m.Pix))
	ss := 0.0
	for _, v := range m.Pix {
		d := float64(v) - mean
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(m.Pix)))
}

// LaplacianVariance is the variance of the 4-neighbour Laplacian of a
// one-channel image (OpenCV's default kernel), borders reflected without
// repeating the edge.
func LaplacianVariance(g *Image) float64 {
	refl := func(i, n int) int {
		if n == 1 {
			return 0
		}
		if i < 0 {
			return -i
		}
		if i >= n {
			return 2*n - 2 - i
		}
		return i
	}
	at := func(x, y int) float64 { return float64(g.Pix[refl(y, g.H)*g.W+refl(x, g.W)]) }
	var s, ss float64
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			v := at(x-1, y) + at(x+1, y) + at(x, y-1) + at(x, y+1) - 4*at(x, y)
			s += v
			ss += v * v
		}
	}
	n := float64(g.W * g.H)
	mean := s / n
	return ss/n - mean*mean
}
