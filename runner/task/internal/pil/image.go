package pil

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // the formats the image metrics decode: PNG, JPEG and GIF (first frame, as PIL opens it)
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
)

// MaxPixels bounds a decoded image (a 16k x 16k RGBA is 1 GiB).
const MaxPixels = 64 << 20

// Image is an image as PIL holds it.
type Image struct {
	Mode string // "L", "LA", "P", "RGB" or "RGBA"
	W, H int
	Ch   int     // channels per pixel
	Pix  []uint8 // H rows of W pixels of Ch channels
}

// At is channel c of the pixel at x, y.
func (m *Image) At(x, y, c int) uint8 { return m.Pix[(y*m.W+x)*m.Ch+c] }

// FromImage holds a decoded image in the mode PIL would open it in.
func FromImage(img image.Image) *Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch src := img.(type) {
	case *image.Gray:
		m := &Image{Mode: "L", W: w, H: h, Ch: 1, Pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			copy(m.Pix[y*w:(y+1)*w], src.Pix[y*src.Stride:y*src.Stride+w])
		}
		return m
	case *image.Gray16:
		// PIL opens a 16-bit grey PNG as mode "I" (the sample values
		// as they are) and clips them to 0..255 when it converts to "L"
		// or "RGB", which is all the metrics do with it.
		m := &Image{Mode: "L", W: w, H: h, Ch: 1, Pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				m.Pix[y*w+x] = uint8(min(src.Gray16At(b.Min.X+x, b.Min.Y+y).Y, 255))
			}
		}
		return m
	case *image.Paletted:
		// PIL keeps a palette image's indices; the metrics convert it when
		// they need colours.
		m := &Image{Mode: "P", W: w, H: h, Ch: 1, Pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			copy(m.Pix[y*w:(y+1)*w], src.Pix[y*src.Stride:y*src.Stride+w])
		}
		return m
	case *image.RGBA, *image.YCbCr, *image.RGBA64, *image.CMYK:
		m := &Image{Mode: "RGB", W: w, H: h, Ch: 3, Pix: make([]uint8, w*h*3)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				i := (y*w + x) * 3
				m.Pix[i], m.Pix[i+1], m.Pix[i+2] = c.R, c.G, c.B
			}
		}
		return m
	default:
		m := &Image{Mode: "RGBA", W: w, H: h, Ch: 4, Pix: make([]uint8, w*h*4)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				i := (y*w + x) * 4
				m.Pix[i], m.Pix[i+1], m.Pix[i+2], m.Pix[i+3] = c.R, c.G, c.B, c.A
			}
		}
		return m
	}
}

// Open decodes an image file in PIL's layout, with its palette for "P"
// images. An image over MaxPixels is refused before it is decoded.
func Open(name string) (*Image, color.Palette, error) {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	cfg, format, err := image.DecodeConfig(br)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: decode image: %w", name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > MaxPixels {
		return nil, nil, fmt.Errorf("%s: image of %dx%d pixels", name, cfg.Width, cfg.Height)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, nil, err
	}
	if format == "jpeg" {
		if m, err := decodeDjpeg(name); err == nil {
			return m, nil, nil
		}
	}
	img, _, err := image.Decode(bufio.NewReader(f))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: decode image: %w", name, err)
	}
	var pal color.Palette
	if p, ok := img.(*image.Paletted); ok {
		pal = p.Palette
	}
	return FromImage(img), pal, nil
}

// Convert returns the image in mode "L", "RGB" or "RGBA" with PIL's
// conversions (ITU-R 601-2 luma in PIL's fixed point for "L"); pal is
// the palette of a "P" image.
func (m *Image) Convert(mode string, pal color.Palette) *Image {
	if m.Mode == mode {
		return m
	}
	// To RGBA first.
	rgba := make([]uint8, m.W*m.H*4)
	for i := 0; i < m.W*m.H; i++ {
		var r, g, b, a uint8 = 0, 0, 0, 255
		switch m.Mode {
		case "L":
			r, g, b = m.Pix[i], m.Pix[i], m.Pix[i]
		case "P":
			if int(m.Pix[i]) < len(pal) {
				c := color.NRGBAModel.Convert(pal[m.Pix[i]]).(color.NRGBA)
				r, g, b, a = c.R, c.G, c.B, c.A
			}
		case "RGB":
			r, g, b = m.Pix[i*3], m.Pix[i*3+1], m.Pix[i*3+2]
		case "RGBA":
			r, g, b, a = m.Pix[i*4], m.Pix[i*4+1], m.Pix[i*4+2], m.Pix[i*4+3]
		}
		rgba[i*4], rgba[i*4+1], rgba[i*4+2], rgba[i*4+3] = r, g, b, a
	}
	out := &Image{Mode: mode, W: m.W, H: m.H}
	switch mode {
	case "L":
		out.Ch = 1
		out.Pix = make([]uint8, m.W*m.H)
		for i := range out.Pix {
			r, g, b := uint32(rgba[i*4]), uint32(rgba[i*4+1]), uint32(rgba[i*4+2])
			out.Pix[i] = uint8((r*19595 + g*38470 + b*7471 + 0x8000) >> 16)
		}
	case "RGB":
		out.Ch = 3
		out.Pix = make([]uint8, m.W*m.H*3)
		for i := 0; i < m.W*m.H; i++ {
			copy(out.Pix[i*3:i*3+3], rgba[i*4:i*4+3])
		}
	default:
		out.Mode, out.Ch, out.Pix = "RGBA", 4, rgba
	}
	return out
}

// Mirror is the image flipped left to right.
func (m *Image) Mirror() *Image {
	out := &Image{Mode: m.Mode, W: m.W, H: m.H, Ch: m.Ch, Pix: make([]uint8, len(m.Pix))}
	for y := 0; y < m.H; y++ {
		for x := 0; x < m.W; x++ {
			src := (y*m.W + x) * m.Ch
			dst := (y*m.W + m.W - 1 - x) * m.Ch
			copy(out.Pix[dst:dst+m.Ch], m.Pix[src:src+m.Ch])
		}
	}
	return out
}

// HSVPlanes converts an "RGB" image to PIL's HSV (each channel 0-255,
// truncated) and returns the three planes as "L" images.
func (m *Image) HSVPlanes() [3]*Image {
	var out [3]*Image
	for i := range out {
		out[i] = &Image{Mode: "L", W: m.W, H: m.H, Ch: 1, Pix: make([]uint8, m.W*m.H)}
	}
	clip := func(f float64) uint8 { return uint8(max(0, min(255, int(f)))) }
	for i := 0; i < m.W*m.H; i++ {
		r, g, b := float64(m.Pix[i*3]), float64(m.Pix[i*3+1]), float64(m.Pix[i*3+2])
		maxc, minc := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
		var h, s float64
		if maxc != minc {
			cr := maxc - minc
			s = cr / maxc
			rc, gc, bc := (maxc-r)/cr, (maxc-g)/cr, (maxc-b)/cr
			switch {
			case r == maxc:
				h = bc - gc
			case g == maxc:
				h = 2 + rc - bc
			default:
				h = 4 + gc - rc
			}
			h = math.Mod(h/6+1, 1)
		}
		out[0].Pix[i], out[1].Pix[i], out[2].Pix[i] = clip(h*255), clip(s*255), uint8(maxc)
	}
	return out
}
