// Package rfbtest is a minimal RFB 3.8 viewer for tests and benchmarks of
// package rfb: security None, 32-bit xRGB pixels; the encodings Raw,
// CopyRect, Tight (fill, JPEG, copy and palette filters, its four zlib
// streams) and ZRLE, and the DesktopSize and Cursor pseudo-encodings.
// Its decoders are written from the protocol's text, apart from package
// rfb's encoders, so that a test decoding rfb's output checks both
// against the specification rather than against each other.
package rfbtest

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
)

// Client is a connected viewer; Frame holds what it has received.
type Client struct {
	rw    io.ReadWriter
	in    *bufio.Reader
	Name  string
	Frame *image.RGBA
	// Cursor and CursorHot are the last cursor image received (Cursor
	// pseudo-encoding), nil before one.
	Cursor    *image.RGBA
	CursorHot image.Point
	// Discard makes the client read and inflate updates without drawing
	// them into Frame (nor decoding JPEG), as a benchmark's viewer that
	// must not compete with the server for the CPU.
	Discard bool

	tightZ [4]*inflater
	zrleZ  *inflater
}

// inflater is a persistent zlib stream fed with chunks as they arrive.
type inflater struct {
	src bytes.Buffer
	r   io.ReadCloser
}

// read feeds data into the stream and reads n inflated bytes from it.
func (f *inflater) read(data []byte, n int) ([]byte, error) {
	f.src.Write(data)
	if f.r == nil {
		r, err := zlib.NewReader(&f.src)
		if err != nil {
			return nil, fmt.Errorf("zlib header: %w", err)
		}
		f.r = r
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(f.r, out); err != nil {
		return nil, fmt.Errorf("inflate %d bytes: %w", n, err)
	}
	return out, nil
}

// Update is one FramebufferUpdate.
type Update struct {
	Rects     []image.Rectangle
	Encodings []int32 // of each rectangle
	Bytes     int     // payload bytes, headers included
}

// Pseudo-encodings a test may ask for.
const (
	EncDesktopSize    = -223
	EncCursor         = -239
	EncQualityLevel0  = -32
	EncCompressLevel0 = -256
)

// Handshake runs the 3.8 handshake on rw and ServerInit, and asks for
// Raw and DesktopSize.
func Handshake(rw io.ReadWriter) (*Client, error) {
	return HandshakeWith(rw, 0, EncDesktopSize)
}

// HandshakeWith is Handshake sending the SetEncodings list encs.
func HandshakeWith(rw io.ReadWriter, encs ...int32) (*Client, error) {
	c := &Client{rw: rw, in: bufio.NewReader(rw)}
	v := make([]byte, 12)
	if _, err := io.ReadFull(c.in, v); err != nil {
		return nil, err
	}
	if string(v) != "RFB 003.008\n" {
		return nil, fmt.Errorf("server version %q", v)
	}
	if _, err := io.WriteString(rw, "RFB 003.008\n"); err != nil {
		return nil, err
	}
	n, err := c.in.ReadByte()
	if err != nil {
		return nil, err
	}
	types := make([]byte, n)
	if _, err := io.ReadFull(c.in, types); err != nil {
		return nil, err
	}
	if n != 1 || types[0] != 1 {
		return nil, fmt.Errorf("security types %v, want [1]", types)
	}
	if _, err := rw.Write([]byte{1}); err != nil {
		return nil, err
	}
	var res uint32
	if err := binary.Read(c.in, binary.BigEndian, &res); err != nil || res != 0 {
		return nil, fmt.Errorf("security result %d %v", res, err)
	}
	if _, err := rw.Write([]byte{1}); err != nil {
		return nil, err
	}
	init := make([]byte, 24)
	if _, err := io.ReadFull(c.in, init); err != nil {
		return nil, err
	}
	w, h := binary.BigEndian.Uint16(init), binary.BigEndian.Uint16(init[2:])
	if init[4] != 32 || init[6] != 0 || init[7] != 1 || init[14] != 16 || init[15] != 8 || init[16] != 0 {
		return nil, fmt.Errorf("pixel format % x is not little-endian 32-bit xRGB", init[4:20])
	}
	name := make([]byte, binary.BigEndian.Uint32(init[20:]))
	if _, err := io.ReadFull(c.in, name); err != nil {
		return nil, err
	}
	c.Name = string(name)
	c.Frame = image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
	_, err = rw.Write(setEncodings(encs))
	return c, err
}

func setEncodings(encs []int32) []byte {
	b := []byte{2, 0}
	b = binary.BigEndian.AppendUint16(b, uint16(len(encs)))
	for _, e := range encs {
		b = binary.BigEndian.AppendUint32(b, uint32(e))
	}
	return b
}

// SetEncodings sends a SetEncodings message.
func (c *Client) SetEncodings(encs ...int32) error {
	_, err := c.rw.Write(setEncodings(encs))
	return err
}

// Request sends a FramebufferUpdateRequest for the whole screen.
func (c *Client) Request(incremental bool) error {
	b := []byte{3, 0, 0, 0, 0, 0}
	if incremental {
		b[1] = 1
	}
	b = binary.BigEndian.AppendUint16(b, uint16(c.Frame.Rect.Dx()))
	b = binary.BigEndian.AppendUint16(b, uint16(c.Frame.Rect.Dy()))
	_, err := c.rw.Write(b)
	return err
}

// Pointer sends a PointerEvent.
func (c *Client) Pointer(mask uint8, x, y int) error {
	b := []byte{5, mask}
	b = binary.BigEndian.AppendUint16(b, uint16(x))
	b = binary.BigEndian.AppendUint16(b, uint16(y))
	_, err := c.rw.Write(b)
	return err
}

// Key sends a KeyEvent of X keysym sym.
func (c *Client) Key(down bool, sym uint32) error {
	b := []byte{4, 0, 0, 0}
	if down {
		b[1] = 1
	}
	b = binary.BigEndian.AppendUint32(b, sym)
	_, err := c.rw.Write(b)
	return err
}

// Read reads one FramebufferUpdate into Frame.
func (c *Client) Read() (Update, error) {
	var u Update
	hdr := make([]byte, 4)
	if _, err := io.ReadFull(c.in, hdr); err != nil {
		return u, err
	}
	if hdr[0] != 0 {
		return u, fmt.Errorf("server message type %d, want 0", hdr[0])
	}
	u.Bytes = 4
	n := int(binary.BigEndian.Uint16(hdr[2:]))
	rh := make([]byte, 12)
	for range n {
		if _, err := io.ReadFull(c.in, rh); err != nil {
			return u, err
		}
		u.Bytes += 12
		x, y := int(binary.BigEndian.Uint16(rh)), int(binary.BigEndian.Uint16(rh[2:]))
		w, h := int(binary.BigEndian.Uint16(rh[4:])), int(binary.BigEndian.Uint16(rh[6:]))
		r := image.Rect(x, y, x+w, y+h)
		enc := int32(binary.BigEndian.Uint32(rh[8:]))
		cr := &countReader{r: c.in}
		var err error
		switch enc {
		case 0:
			err = c.raw(cr, r)
		case 1:
			var src [4]byte
			if _, err = io.ReadFull(cr, src[:]); err == nil {
				sx, sy := int(binary.BigEndian.Uint16(src[:])), int(binary.BigEndian.Uint16(src[2:]))
				// Through a copy, so that overlapping areas read the old frame.
				if c.Discard {
					break
				}
				old := image.NewRGBA(image.Rect(0, 0, w, h))
				draw.Draw(old, old.Rect, c.Frame, image.Pt(sx, sy), draw.Src)
				draw.Draw(c.Frame, r, old, image.Point{}, draw.Src)
			}
		case 7:
			err = c.tight(cr, r)
		case 16:
			err = c.zrle(cr, r)
		case -223:
			c.Frame = image.NewRGBA(image.Rect(0, 0, w, h))
		case -239:
			err = c.cursor(cr, x, y, w, h)
		default:
			return u, fmt.Errorf("encoding %d", enc)
		}
		u.Bytes += cr.n
		if err != nil {
			return u, fmt.Errorf("rectangle %v, encoding %d: %w", r, enc, err)
		}
		u.Encodings = append(u.Encodings, enc)
		u.Rects = append(u.Rects, r)
	}
	return u, nil
}

// Close closes the connection if it can be closed.
func (c *Client) Close() error {
	if cl, ok := c.rw.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

type countReader struct {
	r io.Reader
	n int
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func (c *Client) set(x, y int, r, g, b byte) {
	if c.Discard {
		return
	}
	if !image.Pt(x, y).In(c.Frame.Rect) {
		return
	}
	i := c.Frame.PixOffset(x, y)
	p := c.Frame.Pix[i : i+4 : i+4]
	p[0], p[1], p[2], p[3] = r, g, b, 255
}

func (c *Client) raw(in io.Reader, r image.Rectangle) error {
	px := make([]byte, r.Dx()*r.Dy()*4)
	if _, err := io.ReadFull(in, px); err != nil {
		return err
	}
	for j := range r.Dy() {
		for i := range r.Dx() {
			p := px[(j*r.Dx()+i)*4:]
			c.set(r.Min.X+i, r.Min.Y+j, p[2], p[1], p[0])
		}
	}
	return nil
}

// readCompact reads Tight's compact length.
func readCompact(in io.Reader) (int, error) {
	var b [1]byte
	n := 0
	for i := range 3 {
		if _, err := io.ReadFull(in, b[:]); err != nil {
			return 0, err
		}
		if i == 2 {
			return n | int(b[0])<<14, nil
		}
		n |= int(b[0]&0x7f) << (7 * i)
		if b[0]&0x80 == 0 {
			break
		}
	}
	return n, nil
}

// tight decodes a Tight rectangle; pixels are TPIXELs (3 bytes R, G, B)
// as the 32-bit depth-24 format makes them.
func (c *Client) tight(in io.Reader, r image.Rectangle) error {
	var b [1]byte
	if _, err := io.ReadFull(in, b[:]); err != nil {
		return err
	}
	ctl := b[0]
	for i := range 4 {
		if ctl&(1<<i) != 0 {
			c.tightZ[i] = nil
		}
	}
	kind := ctl >> 4
	w, h := r.Dx(), r.Dy()
	switch {
	case kind == 8: // fill
		var p [3]byte
		if _, err := io.ReadFull(in, p[:]); err != nil {
			return err
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c.set(x, y, p[0], p[1], p[2])
			}
		}
		return nil
	case kind == 9: // JPEG
		n, err := readCompact(in)
		if err != nil {
			return err
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(in, data); err != nil {
			return err
		}
		if c.Discard {
			return nil
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("jpeg: %w", err)
		}
		if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
			return fmt.Errorf("jpeg of %v in a rectangle %v", img.Bounds(), r)
		}
		draw.Draw(c.Frame, r, img, img.Bounds().Min, draw.Src)
		return nil
	case kind > 9:
		return fmt.Errorf("tight compression %#x", ctl)
	}
	stream := int(kind & 3)
	filter := byte(0)
	if kind&4 != 0 {
		if _, err := io.ReadFull(in, b[:]); err != nil {
			return err
		}
		filter = b[0]
	}
	var pal [][3]byte
	size := w * h * 3
	switch filter {
	case 0:
	case 1:
		if _, err := io.ReadFull(in, b[:]); err != nil {
			return err
		}
		n := int(b[0]) + 1
		raw := make([]byte, 3*n)
		if _, err := io.ReadFull(in, raw); err != nil {
			return err
		}
		for i := range n {
			pal = append(pal, [3]byte{raw[3*i], raw[3*i+1], raw[3*i+2]})
		}
		if n == 2 {
			size = (w + 7) / 8 * h
		} else {
			size = w * h
		}
	default:
		return fmt.Errorf("tight filter %d", filter)
	}
	var data []byte
	if size < 12 {
		data = make([]byte, size)
		if _, err := io.ReadFull(in, data); err != nil {
			return err
		}
	} else {
		n, err := readCompact(in)
		if err != nil {
			return err
		}
		z := make([]byte, n)
		if _, err := io.ReadFull(in, z); err != nil {
			return err
		}
		if c.tightZ[stream] == nil {
			c.tightZ[stream] = &inflater{}
		}
		if data, err = c.tightZ[stream].read(z, size); err != nil {
			return err
		}
	}
	if c.Discard {
		return nil
	}
	for j := range h {
		for i := range w {
			var p [3]byte
			switch {
			case pal == nil:
				copy(p[:], data[(j*w+i)*3:])
			case len(pal) == 2:
				bit := data[j*((w+7)/8)+i/8] >> (7 - i%8) & 1
				p = pal[bit]
			default:
				ix := int(data[j*w+i])
				if ix >= len(pal) {
					return fmt.Errorf("palette index %d of %d colours", ix, len(pal))
				}
				p = pal[ix]
			}
			c.set(r.Min.X+i, r.Min.Y+j, p[0], p[1], p[2])
		}
	}
	return nil
}

// zrle decodes a ZRLE rectangle; CPIXELs are 3 bytes B, G, R (the least
// significant bytes of the little-endian xRGB pixel).
func (c *Client) zrle(in io.Reader, r image.Rectangle) error {
	var n [4]byte
	if _, err := io.ReadFull(in, n[:]); err != nil {
		return err
	}
	z := make([]byte, binary.BigEndian.Uint32(n[:]))
	if _, err := io.ReadFull(in, z); err != nil {
		return err
	}
	if c.zrleZ == nil {
		c.zrleZ = &inflater{}
	}
	c.zrleZ.src.Write(z)
	if c.zrleZ.r == nil {
		zr, err := zlib.NewReader(&c.zrleZ.src)
		if err != nil {
			return err
		}
		c.zrleZ.r = zr
	}
	src := bufio.NewReader(c.zrleZ.r)
	byte1 := func() (byte, error) { return src.ReadByte() }
	cpix := func() ([3]byte, error) {
		var p [3]byte
		_, err := io.ReadFull(src, p[:])
		return [3]byte{p[2], p[1], p[0]}, err
	}
	runLen := func() (int, error) {
		l := 1
		for {
			b, err := byte1()
			if err != nil {
				return 0, err
			}
			l += int(b)
			if b != 255 {
				return l, nil
			}
		}
	}
	for ty := r.Min.Y; ty < r.Max.Y; ty += 64 {
		for tx := r.Min.X; tx < r.Max.X; tx += 64 {
			t := image.Rect(tx, ty, min(tx+64, r.Max.X), min(ty+64, r.Max.Y))
			w, h := t.Dx(), t.Dy()
			px := make([][3]byte, 0, w*h)
			sub, err := byte1()
			if err != nil {
				return err
			}
			var pal [][3]byte
			psize := int(sub &^ 128)
			for range psize {
				p, err := cpix()
				if err != nil {
					return err
				}
				pal = append(pal, p)
			}
			switch {
			case sub == 0:
				for range w * h {
					p, err := cpix()
					if err != nil {
						return err
					}
					px = append(px, p)
				}
			case sub == 1:
				for range w * h {
					px = append(px, pal[0])
				}
			case sub >= 2 && sub <= 16:
				bits := 4
				switch {
				case psize == 2:
					bits = 1
				case psize <= 4:
					bits = 2
				}
				for range h {
					row := make([]byte, (w*bits+7)/8)
					if _, err := io.ReadFull(src, row); err != nil {
						return err
					}
					for i := range w {
						bit := i * bits
						ix := int(row[bit/8]>>(8-bits-bit%8)) & (1<<bits - 1)
						if ix >= psize {
							return fmt.Errorf("packed index %d of %d", ix, psize)
						}
						px = append(px, pal[ix])
					}
				}
			case sub == 128:
				for len(px) < w*h {
					p, err := cpix()
					if err != nil {
						return err
					}
					l, err := runLen()
					if err != nil {
						return err
					}
					for range l {
						px = append(px, p)
					}
				}
			case sub >= 130:
				for len(px) < w*h {
					ix, err := byte1()
					if err != nil {
						return err
					}
					l := 1
					if ix&128 != 0 {
						if l, err = runLen(); err != nil {
							return err
						}
					}
					if int(ix&127) >= psize {
						return fmt.Errorf("rle index %d of %d", ix&127, psize)
					}
					for range l {
						px = append(px, pal[ix&127])
					}
				}
			default:
				return fmt.Errorf("zrle subencoding %d", sub)
			}
			if len(px) != w*h {
				return fmt.Errorf("tile %v: %d pixels", t, len(px))
			}
			for j := range h {
				for i := range w {
					p := px[j*w+i]
					c.set(t.Min.X+i, t.Min.Y+j, p[0], p[1], p[2])
				}
			}
		}
	}
	if n := src.Buffered(); n > 0 {
		return fmt.Errorf("%d bytes left over after the tiles", n)
	}
	return nil
}

func (c *Client) cursor(in io.Reader, hx, hy, w, h int) error {
	px := make([]byte, w*h*4)
	mask := make([]byte, (w+7)/8*h)
	if _, err := io.ReadFull(in, px); err != nil {
		return err
	}
	if _, err := io.ReadFull(in, mask); err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for j := range h {
		for i := range w {
			p := px[(j*w+i)*4:]
			if mask[j*((w+7)/8)+i/8]>>(7-i%8)&1 != 0 {
				img.SetRGBA(i, j, color.RGBA{p[2], p[1], p[0], 255})
			}
		}
	}
	c.Cursor, c.CursorHot = img, image.Pt(hx, hy)
	return nil
}
