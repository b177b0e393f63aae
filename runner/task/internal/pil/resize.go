package pil

import "math"

// ResizeLanczos resizes a one-channel image as Pillow's LANCZOS filter
// does (Resample.c): a horizontal pass, then a vertical one, each only
// where that side changes, with the filter's weights normalised in
// floating point, then rounded to 22-bit fixed point (PRECISION_BITS), and
// each output sample the fixed-point sum, started at half a unit, shifted
// back and clipped to 8 bits.
func ResizeLanczos(m *Image, w, h int) *Image {
	if m.W == w && m.H == h {
		return m
	}
	pix, cw := m.Pix, m.W
	if w != m.W {
		pix, cw = resamplePass(pix, m.W, m.H, w, true), w
	}
	if h != m.H {
		pix = resamplePass(pix, cw, m.H, h, false)
	}
	return &Image{Mode: m.Mode, W: w, H: h, Ch: 1, Pix: pix}
}

// Resize resizes every channel with the Lanczos filter. An image with
// alpha (RGBA, LA) is resized as Pillow resizes it: its colours
// premultiplied by alpha first (Pillow's "RGBa") and divided again after.
func Resize(m *Image, w, h int) *Image {
	if m.W == w && m.H == h {
		return m
	}
	if (m.Mode == "RGBA" && m.Ch == 4) || (m.Mode == "LA" && m.Ch == 2) {
		out := resizeChannels(premultiply(m), w, h)
		unpremultiply(out)
		return out
	}
	return resizeChannels(m, w, h)
}

// premultiply is Pillow's RGBA to RGBa conversion: each colour times
// alpha, divided by 255 with its rounding (MULDIV255).
func premultiply(m *Image) *Image {
	out := &Image{Mode: m.Mode, W: m.W, H: m.H, Ch: m.Ch, Pix: make([]uint8, len(m.Pix))}
	a := m.Ch - 1
	for i := 0; i < len(m.Pix); i += m.Ch {
		alpha := uint32(m.Pix[i+a])
		for c := range a {
			t := uint32(m.Pix[i+c])*alpha + 128
			out.Pix[i+c] = uint8(((t >> 8) + t) >> 8)
		}
		out.Pix[i+a] = m.Pix[i+a]
	}
	return out
}

// unpremultiply is Pillow's RGBa to RGBA conversion, in place: each
// colour times 255 divided by alpha (truncated, clipped), kept as it is
// where alpha is 0 or 255.
func unpremultiply(m *Image) {
	a := m.Ch - 1
	for i := 0; i < len(m.Pix); i += m.Ch {
		alpha := uint32(m.Pix[i+a])
		if alpha == 0 || alpha == 255 {
			continue
		}
		for c := range a {
			m.Pix[i+c] = uint8(min(255, 255*uint32(m.Pix[i+c])/alpha))
		}
	}
}

// resizeChannels resizes each channel on its own.
func resizeChannels(m *Image, w, h int) *Image {
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

// precisionBits is Pillow's PRECISION_BITS for 8-bit samples: 32 - 8 - 2.
const precisionBits = 32 - 8 - 2

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
		ks    []int64 // fixed-point weights
	}
	spans := make([]span, n)
	for i := range spans {
		center := (float64(i) + 0.5) * scale
		lo := max(0, int(center-support+0.5)) // C's truncating cast, then the clamp
		hi := min(inSize, int(center+support+0.5))
		ws := make([]float64, 0, max(0, hi-lo))
		total := 0.0
		for k := lo; k < hi; k++ {
			v := lanczos((float64(k) - center + 0.5) / filterScale)
			ws = append(ws, v)
			total += v
		}
		ks := make([]int64, len(ws))
		for k, v := range ws {
			if total != 0 {
				v /= total
			}
			if v < 0 {
				ks[k] = int64(-0.5 + v*(1<<precisionBits))
			} else {
				ks[k] = int64(0.5 + v*(1<<precisionBits))
			}
		}
		spans[i] = span{lo, ks}
	}
	clip := func(v int64) uint8 {
		switch {
		case v >= 1<<precisionBits<<8:
			return 255
		case v <= 0:
			return 0
		}
		return uint8(v >> precisionBits)
	}
	const half = 1 << (precisionBits - 1)
	if horizontal {
		out := make([]uint8, n*h)
		for y := 0; y < h; y++ {
			for x, s := range spans {
				v := int64(half)
				for k, wt := range s.ks {
					v += wt * int64(src[y*w+s.start+k])
				}
				out[y*n+x] = clip(v)
			}
		}
		return out
	}
	out := make([]uint8, w*n)
	for y, s := range spans {
		for x := 0; x < w; x++ {
			v := int64(half)
			for k, wt := range s.ks {
				v += wt * int64(src[(s.start+k)*w+x])
			}
			out[y*w+x] = clip(v)
		}
	}
	return out
}
