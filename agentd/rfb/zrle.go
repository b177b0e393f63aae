package rfb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
)

// zrleTile is the side of ZRLE's tiles.
const zrleTile = 64

// zrle is the ZRLE encoder of one connection: one zlib stream for the
// whole connection, as the protocol has it.
type zrle struct {
	z     *zlib.Writer
	zbuf  bytes.Buffer
	raw   bytes.Buffer // a rectangle's tiles before compression
	pal   palette
	cols  []uint32 // the tile's pixels as 0xRRGGBB
	cpix  []byte
	level int
}

// cpixel returns how many bytes of a pf pixel ZRLE's CPIXEL keeps, and
// the offset of the first one: 3 bytes for 32-bit true colour whose
// colours fit in the three least or most significant bytes.
func cpixel(pf PixelFormat) (size, off int) {
	bpp := int(pf.BPP) / 8
	if !pf.TrueColour || pf.BPP != 32 || pf.Depth > 24 {
		return bpp, 0
	}
	mask := uint32(pf.RedMax)<<pf.RedShift | uint32(pf.GreenMax)<<pf.GreenShift | uint32(pf.BlueMax)<<pf.BlueShift
	switch {
	case mask&0xff000000 == 0: // the least significant three bytes
		if pf.BigEndian {
			return 3, 1
		}
		return 3, 0
	case mask&0xff == 0: // the most significant three
		if pf.BigEndian {
			return 3, 0
		}
		return 3, 1
	}
	return bpp, 0
}

// appendCPixel appends the colour c (0xRRGGBB) as a ZRLE CPIXEL.
func appendCPixel(dst []byte, c uint32, pf PixelFormat, size, off int) []byte {
	src := [4]byte{byte(c >> 16), byte(c >> 8), byte(c), 255}
	var px [4]byte
	convert(px[:], src[:], pf)
	return append(dst, px[off:off+size]...)
}

// encode appends r of img in ZRLE encoding to out.
func (z *zrle) encode(out *bytes.Buffer, img *image.RGBA, r image.Rectangle, pf PixelFormat, level int) {
	rectHeader(out, r, EncZRLE)
	if z.z == nil {
		z.z, _ = zlib.NewWriterLevel(&z.zbuf, level)
		z.level = level
	}
	size, off := cpixel(pf)
	z.raw.Reset()
	for ty := r.Min.Y; ty < r.Max.Y; ty += zrleTile {
		for tx := r.Min.X; tx < r.Max.X; tx += zrleTile {
			z.tile(img, image.Rect(tx, ty, min(tx+zrleTile, r.Max.X), min(ty+zrleTile, r.Max.Y)), pf, size, off)
		}
	}
	z.zbuf.Reset()
	z.z.Write(z.raw.Bytes())
	z.z.Flush()
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(z.zbuf.Len()))
	out.Write(n[:])
	out.Write(z.zbuf.Bytes())
}

// tile writes one tile with the smallest of the subencodings raw, solid,
// packed palette, plain RLE and palette RLE.
func (z *zrle) tile(img *image.RGBA, r image.Rectangle, pf PixelFormat, size, off int) {
	w, h := r.Dx(), r.Dy()
	z.cols = z.cols[:0]
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			z.cols = append(z.cols, uint32(row[i])<<16|uint32(row[i+1])<<8|uint32(row[i+2]))
		}
	}
	n := z.pal.count(img, r, 127)
	// Runs (across rows, as ZRLE's runs go) and what they would cost.
	runs, plainRLE, palRLE := 0, 0, 0
	for i := 0; i < len(z.cols); {
		j := i + 1
		for j < len(z.cols) && z.cols[j] == z.cols[i] {
			j++
		}
		l := j - i
		runs++
		plainRLE += size + (l-1)/255 + 1
		palRLE++
		if l > 1 {
			palRLE += (l-1)/255 + 1
		}
		i = j
	}
	raw := w * h * size
	best, sub := raw, 0
	if n == 1 {
		best, sub = size, 1
	}
	if n >= 2 && n <= 16 {
		bits := 4
		switch {
		case n == 2:
			bits = 1
		case n <= 4:
			bits = 2
		}
		if c := n*size + (w*bits+7)/8*h; c < best {
			best, sub = c, 2
		}
	}
	if plainRLE < best {
		best, sub = plainRLE, 128
	}
	if n >= 2 && n <= 127 && n*size+palRLE < best {
		sub = 130
	}
	b := &z.raw
	z.cpix = z.cpix[:0]
	switch sub {
	case 0:
		b.WriteByte(0)
		for _, c := range z.cols {
			z.cpix = appendCPixel(z.cpix, c, pf, size, off)
		}
		b.Write(z.cpix)
	case 1:
		b.WriteByte(1)
		b.Write(appendCPixel(z.cpix, z.cols[0], pf, size, off))
	case 2:
		b.WriteByte(byte(n))
		z.writePalette(n, pf, size, off)
		bits := 4
		switch {
		case n == 2:
			bits = 1
		case n <= 4:
			bits = 2
		}
		for y := range h {
			var acc byte
			nb := 0
			for x := range w {
				acc = acc<<bits | z.pal.index(z.cols[y*w+x])
				nb += bits
				if nb == 8 {
					b.WriteByte(acc)
					acc, nb = 0, 0
				}
			}
			if nb > 0 {
				b.WriteByte(acc << (8 - nb))
			}
		}
	case 128:
		b.WriteByte(128)
		for i := 0; i < len(z.cols); {
			j := i + 1
			for j < len(z.cols) && z.cols[j] == z.cols[i] {
				j++
			}
			z.cpix = appendCPixel(z.cpix[:0], z.cols[i], pf, size, off)
			b.Write(z.cpix)
			runLength(b, j-i)
			i = j
		}
	case 130:
		b.WriteByte(byte(128 + n))
		z.writePalette(n, pf, size, off)
		for i := 0; i < len(z.cols); {
			j := i + 1
			for j < len(z.cols) && z.cols[j] == z.cols[i] {
				j++
			}
			ix := z.pal.index(z.cols[i])
			if j-i == 1 {
				b.WriteByte(ix)
			} else {
				b.WriteByte(ix | 0x80)
				runLength(b, j-i)
			}
			i = j
		}
	}
}

func (z *zrle) writePalette(n int, pf PixelFormat, size, off int) {
	z.cpix = z.cpix[:0]
	for _, c := range z.pal.colours[:n] {
		z.cpix = appendCPixel(z.cpix, c, pf, size, off)
	}
	z.raw.Write(z.cpix)
}

// runLength writes a run's length l as ZRLE does: l-1 as bytes of 255
// and a last byte below 255.
func runLength(b *bytes.Buffer, l int) {
	l--
	for l >= 255 {
		b.WriteByte(255)
		l -= 255
	}
	b.WriteByte(byte(l))
}
