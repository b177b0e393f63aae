// Package rfbtest is a minimal RFB 3.8 viewer for tests and benchmarks of
// package rfb: security None, 32-bit xRGB pixels, Raw and DesktopSize.
package rfbtest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"io"
)

// Client is a connected viewer; Frame holds what it has received.
type Client struct {
	rw    io.ReadWriter
	in    *bufio.Reader
	Name  string
	Frame *image.RGBA
}

// Update is one FramebufferUpdate.
type Update struct {
	Rects []image.Rectangle
	Bytes int // payload bytes, headers included
}

// Handshake runs the 3.8 handshake on rw and ServerInit.
func Handshake(rw io.ReadWriter) (*Client, error) {
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
	enc := []byte{2, 0, 0, 2}
	enc = binary.BigEndian.AppendUint32(enc, 0)
	enc = binary.BigEndian.AppendUint32(enc, uint32(0xffffff21)) // DesktopSize (-223)
	_, err = rw.Write(enc)
	return c, err
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
		switch enc := int32(binary.BigEndian.Uint32(rh[8:])); enc {
		case 0:
			px := make([]byte, w*h*4)
			if _, err := io.ReadFull(c.in, px); err != nil {
				return u, err
			}
			u.Bytes += len(px)
			for j := range h {
				for i := range w {
					p := px[(j*w+i)*4:]
					c.Frame.SetRGBA(x+i, y+j, color.RGBA{p[2], p[1], p[0], 255})
				}
			}
		case -223:
			c.Frame = image.NewRGBA(image.Rect(0, 0, w, h))
		default:
			return u, fmt.Errorf("encoding %d", enc)
		}
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
