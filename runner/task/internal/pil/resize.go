package pil

import "math"

// ResizeLanczos resizes a one-channel image as PIL's LANCZOS filter does
// (separable, support 3 scaled when shrinking, horizontal then vertical
// pass, each rounded to 8 bits).
func ResizeLanczos(m *Image, w, h int) *Image {
	if m.W == w && m.H == h {
		return m
	}
	tmp := resamplePass(m.Pix, m.W, m.H, w, true)
	out := resamplePass(tmp, w, m.H, h, false)
	return &Image{Mode: m.Mode, W: w, H: h, Ch: 1, Pix: out}
}

// Resize resizes every channel with the Lanczos filter.
func Resize(m *Image, w, h int) *Image {
	if m.W == w && m.H == h {
		return m
	}
	out := &Image{Mode: m.Mode, W: w, H: h, Ch: m.Ch, Pix: make([]uint8, w*h*m.Ch)}
	for c := 0; c < m.Ch; c++ {
		plane := &Image{Mode: "L", W: m.W, H: m.H, Ch: 1, Pix: make([]uint8, m.W*m.H)}
		for i := range plane.Pix {
			plane.Pix[i] = m.Pix[i*m.Ch+c]
		}
		r := ResizeLanczos(plane, w, h)
		for i, v := range r.Pix {
			out.Pix[i*m.Ch+c] = v
		}
	}
	return out
}

func lanczos(x float64) float64 {
	sinc := func(x float64) float64 {
		if x == 0 {
			return 1
		}
		x *= math.Pi
		return math.Sin(x) / x
	}
	if x > -3 && x < 3 {
		return sinc(x) * sinc(x/3)
	}
	return 0
}

func resamplePass(src []uint8, w, h, n int, horizontal bool) []uint8 {
	inSize := h
	if horizontal {
		inSize = w
	}
	scale := float64(inSize) / float64(n)
	filterScale := math.Max(scale, 1)
	support := 3 * filterScale
	type span struct {
		start int
		ws    []float64
	}
	spans := make([]span, n)
	for i := range spans {
		center := (float64(i) + 0.5) * scale
		lo := int(math.Max(0, math.Floor(center-support+0.5)))
		hi := int(math.Min(float64(inSize), math.Floor(center+support+0.5)))
		ws := make([]float64, 0, hi-lo)
		total := 0.0
		for k := lo; k < hi; k++ {
			v := lanczos((float64(k) - center + 0.5) / filterScale)
			ws = append(ws, v)
			total += v
		}
		if total != 0 {
			for k := range ws {
				ws[k] /= total
			}
		}
		spans[i] = span{lo, ws}
	}
	clip := func(v float64) uint8 {
		v = math.Round(v)
		if v < 0 {
			return 0
		}
		if v > 255 {
			return 255
		}
		return uint8(v)
	}
	if horizontal {
		out := make([]uint8, n*h)
		for y := 0; y < h; y++ {
			for x, s := range spans {
				v := 0.0
				for k, wt := range s.ws {
					v += wt * float64(src[y*w+s.start+k])
				}
				out[y*n+x] = clip(v)
			}
		}
		return out
	}
	out := make([]uint8, w*n)
	for y, s := range spans {
		for x := 0; x < w; x++ {
			v := 0.0
			for k, wt := range s.ws {
				v += wt * float64(src[(s.start+k)*w+x])
			}
			out[y*w+x] = clip(v)
		}
	}
	return out
}
