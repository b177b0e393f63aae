package rfb

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"image"
	"image/jpeg"
)

// Tight's limits and choices.
const (
	tightMaxWidth = 2048  // the protocol's limit on a rectangle's width
	tightMaxArea  = 65536 // pixels of one rectangle (libvncserver's bound, decoders size buffers by it)
	tightMinZlib  = 12    // data shorter than this is sent uncompressed
	// tightJPEGMinArea: below this many pixels a JPEG's own headers
	// (about 600 bytes from image/jpeg) cost more than they save.
	tightJPEGMinArea = 4096
)

// tightJPEGQuality maps the QualityLevel pseudo-encoding (0 to 9) to a
// JPEG quality, the scale TigerVNC uses for its Tight JPEG.
var tightJPEGQuality = [10]int{15, 29, 41, 42, 62, 77, 79, 86, 92, 100}

// tight is the Tight encoder of one connection: its four zlib streams
// persist across rectangles and updates, as the decoder's do.
type tight struct {
	zs    [4]*zlib.Writer
	zbuf  [4]bytes.Buffer
	level [4]int // the level each stream was made with
	pal   palette
	idx   []byte
	bits  []byte
	px    []byte
	jbuf  bytes.Buffer
}

// tightStreams: full colour, two colours, indexed colour.
const (
	streamFull = 0
	streamMono = 1
	streamIdx  = 2
)

// tpixel reports whether pf lets Tight send pixels as 3 bytes R, G, B.
func tpixel(pf PixelFormat) bool {
	return pf.TrueColour && pf.BPP == 32 && pf.Depth == 24 && pf.RedMax == 255 && pf.GreenMax == 255 && pf.BlueMax == 255
}

// encode appends r of img in Tight encoding to out and returns the
// number of rectangles written. quality is the JPEG quality level, -1
// when the viewer asked for none (no JPEG); level is the zlib level.
//
// r is looked at in Tile-square tiles, a row of tiles at a time: runs of
// tiles of one colour become fills, runs of tiles of few colours an
// indexed rectangle (lossless: text, borders, icons), and runs of
// many-coloured tiles (over 256 colours) one JPEG (or, without JPEG,
// full colour through zlib), so that a photograph beside text costs JPEG
// only where it is.
func (t *tight) encode(out *bytes.Buffer, img *image.RGBA, r image.Rectangle, pf PixelFormat, quality, level int) int {
	jpegOK := quality >= 0 && pf.TrueColour && pf.BPP == 32
	// Tiles of up to 256 colours (text, anti-aliased included; icons)
	// go lossless as an index: on desktop content that is both smaller
	// and cheaper than JPEG (scrolling a page of text in Chromium at
	// 1920x1080: 49 kB and 6 ms a frame against 108 kB and 14 ms with
	// JPEG above 64 colours).
	const tileLimit = 256
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y += Tile {
		strip := image.Rect(r.Min.X, y, r.Max.X, min(y+Tile, r.Max.Y))
		// Runs of tiles of one class (and, for fills, one colour).
		var run image.Rectangle
		runClass, runColour := -1, uint32(0)
		flush := func() {
			if runClass < 0 {
				return
			}
			n += t.run(out, img, run, runClass, runColour, pf, quality, level, jpegOK)
			runClass = -1
		}
		for x := strip.Min.X; x < strip.Max.X; x += Tile {
			tile := image.Rect(x, strip.Min.Y, min(x+Tile, strip.Max.X), strip.Max.Y)
			k := t.pal.count(img, tile, tileLimit)
			class, colour := classRich, uint32(0)
			switch {
			case k == 1:
				class, colour = classFill, t.pal.colours[0]
			case k <= tileLimit:
				class = classIndexed
			}
			if class == runClass && colour == runColour && run.Dx()+tile.Dx() <= tightMaxWidth {
				run.Max.X = tile.Max.X
				continue
			}
			flush()
			run, runClass, runColour = tile, class, colour
		}
		flush()
	}
	return n
}

// Classes of tiles.
const (
	classFill = iota
	classIndexed
	classRich
)

// run encodes a run of tiles of one class and returns the rectangles
// written.
func (t *tight) run(out *bytes.Buffer, img *image.RGBA, r image.Rectangle, class int, colour uint32, pf PixelFormat, quality, level int, jpegOK bool) int {
	tp := tpixel(pf)
	switch {
	case class == classFill:
		rectHeader(out, r, EncTight)
		out.WriteByte(0x80)
		out.Write(appendTPixel(nil, colour, pf, tp))
		return 1
	case class == classRich && jpegOK && r.Dx()*r.Dy() >= tightJPEGMinArea:
		t.jbuf.Reset()
		// image/jpeg writes the RGBA sub-image as 4:2:0 YCbCr.
		if err := jpeg.Encode(&t.jbuf, img.SubImage(r), &jpeg.Options{Quality: tightJPEGQuality[quality]}); err == nil {
			rectHeader(out, r, EncTight)
			out.WriteByte(0x90)
			compactLen(out, t.jbuf.Len())
			out.Write(t.jbuf.Bytes())
			return 1
		}
	}
	n := 0
	for _, c := range tightChunks(r) {
		t.chunk(out, img, c, pf, level)
		n++
	}
	return n
}

// tightChunks cuts r into rectangles at most tightMaxWidth wide and
// tightMaxArea large, their height a multiple of 16 where possible (JPEG
// blocks).
func tightChunks(r image.Rectangle) []image.Rectangle {
	var out []image.Rectangle
	for x := r.Min.X; x < r.Max.X; x += tightMaxWidth {
		w := min(tightMaxWidth, r.Max.X-x)
		h := tightMaxArea / w
		if h >= 16 {
			h &^= 15
		}
		for y := r.Min.Y; y < r.Max.Y; y += h {
			out = append(out, image.Rect(x, y, x+w, min(y+h, r.Max.Y)))
		}
	}
	return out
}

func rectHeader(out *bytes.Buffer, r image.Rectangle, enc int32) {
	var h [12]byte
	binary.BigEndian.PutUint16(h[0:], uint16(r.Min.X))
	binary.BigEndian.PutUint16(h[2:], uint16(r.Min.Y))
	binary.BigEndian.PutUint16(h[4:], uint16(r.Dx()))
	binary.BigEndian.PutUint16(h[6:], uint16(r.Dy()))
	binary.BigEndian.PutUint32(h[8:], uint32(enc))
	out.Write(h[:])
}

// compactLen appends Tight's 1 to 3 byte length.
func compactLen(out *bytes.Buffer, n int) {
	b := byte(n & 0x7f)
	if n > 0x7f {
		out.WriteByte(b | 0x80)
		b = byte(n >> 7 & 0x7f)
		if n > 0x3fff {
			out.WriteByte(b | 0x80)
			b = byte(n >> 14 & 0xff)
		}
	}
	out.WriteByte(b)
}

// appendTPixel appends the colour c (0xRRGGBB) as a Tight pixel.
func appendTPixel(dst []byte, c uint32, pf PixelFormat, tp bool) []byte {
	if tp {
		return append(dst, byte(c>>16), byte(c>>8), byte(c))
	}
	return appendPixel(dst, c, pf)
}

// appendPixel appends the colour c (0xRRGGBB) as a pixel of pf.
func appendPixel(dst []byte, c uint32, pf PixelFormat) []byte {
	src := [4]byte{byte(c >> 16), byte(c >> 8), byte(c), 255}
	var px [4]byte
	convert(px[:], src[:], pf)
	return append(dst, px[:pf.BPP/8]...)
}

// chunk writes r (within Tight's limits) losslessly: a fill, an
// indexed rectangle for up to 256 colours, else full colour.
func (t *tight) chunk(out *bytes.Buffer, img *image.RGBA, r image.Rectangle, pf PixelFormat, level int) {
	rectHeader(out, r, EncTight)
	tp := tpixel(pf)
	// One pass counts the colours and writes each pixel's index.
	n := t.pal.countIndex(img, r, 256, &t.idx)
	switch {
	case n == 1:
		out.WriteByte(0x80)
		out.Write(appendTPixel(nil, t.pal.colours[0], pf, tp))
		return
	case n <= 256:
		t.indexed(out, r, pf, tp, n, level)
		return
	}
	// Full colour through the copy filter.
	t.px = t.px[:0]
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			t.px = appendTPixel(t.px, uint32(row[i])<<16|uint32(row[i+1])<<8|uint32(row[i+2]), pf, tp)
		}
	}
	t.basic(out, streamFull, nil, t.px, level)
}

// indexed sends r, whose pixels' indices are in t.idx, with the
// palette filter: one bit a pixel for two colours, a byte a pixel
// otherwise.
func (t *tight) indexed(out *bytes.Buffer, r image.Rectangle, pf PixelFormat, tp bool, n, level int) {
	var head []byte
	head = append(head, 1, byte(n-1)) // filter palette, colours - 1
	for _, c := range t.pal.colours[:n] {
		head = appendTPixel(head, c, pf, tp)
	}
	if n > 2 {
		t.basic(out, streamIdx, head, t.idx, level)
		return
	}
	w := r.Dx()
	t.bits = t.bits[:0]
	for y := range r.Dy() {
		row := t.idx[y*w : (y+1)*w]
		var b byte
		for x, ix := range row {
			b |= ix << (7 - x&7)
			if x&7 == 7 {
				t.bits = append(t.bits, b)
				b = 0
			}
		}
		if w&7 != 0 {
			t.bits = append(t.bits, b)
		}
	}
	t.basic(out, streamMono, head, t.bits, level)
}

// basic writes a basic-compression rectangle on stream id: the control
// byte (with the explicit-filter bit when head, the filter and its
// parameters, is given), then data, zlib-compressed on the stream's
// persistent deflater when 12 bytes or longer.
func (t *tight) basic(out *bytes.Buffer, id int, head, data []byte, level int) {
	ctl := byte(id << 4)
	if head != nil {
		ctl |= 0x40
	}
	if len(data) >= tightMinZlib && t.zs[id] != nil && t.level[id] != level {
		// A new level needs a new stream: the viewer resets its own.
		ctl |= 1 << id
		t.zs[id] = nil
	}
	out.WriteByte(ctl)
	out.Write(head)
	if len(data) < tightMinZlib {
		out.Write(data)
		return
	}
	if t.zs[id] == nil {
		t.zbuf[id].Reset()
		t.zs[id], _ = zlib.NewWriterLevel(&t.zbuf[id], level)
		t.level[id] = level
	}
	t.zbuf[id].Reset()
	t.zs[id].Write(data)
	t.zs[id].Flush()
	compactLen(out, t.zbuf[id].Len())
	out.Write(t.zbuf[id].Bytes())
}

// palette counts and indexes the colours of a rectangle (0xRRGGBB), in
// an open-addressed table.
type palette struct {
	colours []uint32
	keys    [1024]uint32 // colour | 1<<24 when used
	vals    [1024]uint8
	used    []uint16 // slots to clear
	// the last colour index found, for runs
	lastC  uint32
	lastI  uint8
	lastOK bool
}

func (p *palette) reset() {
	for _, i := range p.used {
		p.keys[i] = 0
	}
	p.used = p.used[:0]
	p.colours = p.colours[:0]
	p.lastOK = false
}

func slot(c uint32) uint16 { return uint16((c * 0x9E3779B1) >> 22) }

// count fills the palette with r's colours and returns how many there
// are, or limit+1 when there are more than limit (at most 256).
func (p *palette) count(img *image.RGBA, r image.Rectangle, limit int) int {
	p.reset()
	prev := uint32(1 << 31)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			c := uint32(row[i])<<16 | uint32(row[i+1])<<8 | uint32(row[i+2])
			if c == prev {
				continue
			}
			prev = c
			k := c | 1<<24
			for s := slot(c); ; s = (s + 1) & 1023 {
				if p.keys[s] == k {
					break
				}
				if p.keys[s] == 0 {
					if len(p.colours) == limit {
						return limit + 1
					}
					p.keys[s] = k
					p.vals[s] = uint8(len(p.colours))
					p.used = append(p.used, s)
					p.colours = append(p.colours, c)
					break
				}
			}
		}
	}
	return len(p.colours)
}

// countIndex is count that also sets *idx to the index of each pixel of
// r, row by row, when there are at most limit colours.
func (p *palette) countIndex(img *image.RGBA, r image.Rectangle, limit int, idx *[]byte) int {
	p.reset()
	out := (*idx)[:0]
	prev, prevI := uint32(1<<31), uint8(0)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
		for i := 0; i < len(row); i += 4 {
			c := uint32(row[i])<<16 | uint32(row[i+1])<<8 | uint32(row[i+2])
			if c != prev {
				k := c | 1<<24
				for s := slot(c); ; s = (s + 1) & 1023 {
					if p.keys[s] == k {
						prevI = p.vals[s]
						break
					}
					if p.keys[s] == 0 {
						if len(p.colours) == limit {
							*idx = out
							return limit + 1
						}
						p.keys[s] = k
						p.vals[s] = uint8(len(p.colours))
						p.used = append(p.used, s)
						prevI = uint8(len(p.colours))
						p.colours = append(p.colours, c)
						break
					}
				}
				prev = c
			}
			out = append(out, prevI)
		}
	}
	*idx = out
	return len(p.colours)
}

// index is the palette index of a colour count has seen.
func (p *palette) index(c uint32) uint8 {
	if c == p.lastC && p.lastOK {
		return p.lastI
	}
	k := c | 1<<24
	for s := slot(c); ; s = (s + 1) & 1023 {
		if p.keys[s] == k {
			p.lastC, p.lastI, p.lastOK = c, p.vals[s], true
			return p.vals[s]
		}
	}
}
