// Package rfb serves a live view of the X display over the Remote
// Framebuffer protocol (RFB 3.8, RFC 6143; 3.7 and 3.3 clients are
// answered too), the protocol VNC viewers such as noVNC speak.
//
// The server offers the security type None: it runs behind agentd's
// authenticated routes (and the runner's), so the connection reaching it
// is already authorised. It speaks true-colour pixel formats of 8, 16 and
// 32 bits per pixel in either byte order (SetPixelFormat is honoured),
// the Raw encoding, and the DesktopSize pseudo-encoding when the screen
// changes size. An incremental FramebufferUpdateRequest is answered only
// once something changed, with the changed 64×64 tiles of the requested
// region (compared with the last frame sent), merged into rectangles, so
// a typing scene sends a few small rectangles rather than the screen.
// Unless the session is view-only, KeyEvent (X keysyms) and PointerEvent
// (button mask, wheel buttons 4 to 7 included) are injected through
// XTEST; keys and buttons still held when the viewer leaves are released.
package rfb

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"sync"
	"time"

	"github.com/deskrun/deskrun/x11/keysym"
)

// Display is the screen and input a session serves; *x11.Conn is one.
type Display interface {
	Size() (w, h int)
	CaptureInto(reuse *image.RGBA, r image.Rectangle) (*image.RGBA, error)
	Move(x, y int) error
	ButtonDown(n int) error
	ButtonUp(n int) error
	KeyDown(s keysym.Sym) error
	KeyUp(s keysym.Sym) error
}

// Options configure a session.
type Options struct {
	// ViewOnly drops the viewer's key and pointer events.
	ViewOnly bool
	// Name is the desktop name sent in ServerInit.
	Name string
	// Poll is how often an incremental request waiting for a change
	// looks at the screen again (default 50 ms).
	Poll time.Duration
}

// Tile is the side of the squares compared between frames.
const Tile = 64

// Encodings.
const (
	EncRaw         = 0
	EncDesktopSize = -223
)

// PixelFormat is the RFB PIXEL_FORMAT.
type PixelFormat struct {
	BPP, Depth                      uint8
	BigEndian, TrueColour           bool
	RedMax, GreenMax, BlueMax       uint16
	RedShift, GreenShift, BlueShift uint8
}

// DefaultFormat is what ServerInit offers: 32 bits, little-endian, xRGB.
var DefaultFormat = PixelFormat{BPP: 32, Depth: 24, TrueColour: true, RedMax: 255, GreenMax: 255, BlueMax: 255, RedShift: 16, GreenShift: 8}

func (f PixelFormat) marshal() []byte {
	b := make([]byte, 16)
	b[0], b[1] = f.BPP, f.Depth
	if f.BigEndian {
		b[2] = 1
	}
	if f.TrueColour {
		b[3] = 1
	}
	binary.BigEndian.PutUint16(b[4:], f.RedMax)
	binary.BigEndian.PutUint16(b[6:], f.GreenMax)
	binary.BigEndian.PutUint16(b[8:], f.BlueMax)
	b[10], b[11], b[12] = f.RedShift, f.GreenShift, f.BlueShift
	return b
}

func parseFormat(b []byte) (PixelFormat, error) {
	f := PixelFormat{BPP: b[0], Depth: b[1], BigEndian: b[2] != 0, TrueColour: b[3] != 0,
		RedMax: binary.BigEndian.Uint16(b[4:]), GreenMax: binary.BigEndian.Uint16(b[6:]), BlueMax: binary.BigEndian.Uint16(b[8:]),
		RedShift: b[10], GreenShift: b[11], BlueShift: b[12]}
	if !f.TrueColour {
		return f, errors.New("rfb: colour-map pixel formats are not supported")
	}
	if f.BPP != 8 && f.BPP != 16 && f.BPP != 32 {
		return f, fmt.Errorf("rfb: %d bits per pixel is not supported", f.BPP)
	}
	return f, nil
}

type request struct {
	incremental bool
	r           image.Rectangle
}

type session struct {
	d    Display
	opt  Options
	rw   io.ReadWriter
	out  *bufio.Writer
	mu   sync.Mutex // guards the fields below
	pf   PixelFormat
	encs map[int32]bool
	req  *request
	wake chan struct{}

	last    *image.RGBA // the frame last sent
	buttons uint8
	keys    map[keysym.Sym]bool
}

// Serve runs one RFB session on rw until the viewer leaves, ctx ends or
// the display fails, and closes rw if it is an io.Closer. A viewer
// closing the connection is a nil error.
func Serve(ctx context.Context, rw io.ReadWriter, d Display, opt Options) error {
	if opt.Poll <= 0 {
		opt.Poll = 50 * time.Millisecond
	}
	if opt.Name == "" {
		opt.Name = "deskrun"
	}
	s := &session{d: d, opt: opt, rw: rw, out: bufio.NewWriterSize(rw, 64<<10), pf: DefaultFormat,
		encs: map[int32]bool{}, wake: make(chan struct{}, 1), keys: map[keysym.Sym]bool{}}
	in := bufio.NewReader(rw)
	if err := s.handshake(in); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.updates(ctx)
		cancel()
	}()
	// Closing rw is what ends a read blocked on the viewer.
	stop := context.AfterFunc(ctx, func() {
		if c, ok := rw.(io.Closer); ok {
			c.Close()
		}
	})
	defer stop()
	rerr := s.read(ctx, in)
	readFirst := ctx.Err() == nil
	cancel()
	uerr := <-done
	s.release()
	if uerr != nil && !errors.Is(uerr, context.Canceled) && !isClosed(uerr) {
		return uerr
	}
	if rerr != nil && !isClosed(rerr) && readFirst {
		return rerr
	}
	return nil
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, context.Canceled)
}

func (s *session) handshake(in *bufio.Reader) error {
	if _, err := io.WriteString(s.rw, "RFB 003.008\n"); err != nil {
		return err
	}
	v := make([]byte, 12)
	if _, err := io.ReadFull(in, v); err != nil {
		return fmt.Errorf("rfb: read version: %w", err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(v), "RFB %03d.%03d\n", &major, &minor); err != nil || major != 3 {
		return fmt.Errorf("rfb: unsupported protocol version %q", v)
	}
	if minor < 7 {
		// 3.3: the server decides, no result follows None.
		if err := binary.Write(s.rw, binary.BigEndian, uint32(1)); err != nil {
			return err
		}
	} else {
		if _, err := s.rw.Write([]byte{1, 1}); err != nil {
			return err
		}
		t, err := in.ReadByte()
		if err != nil {
			return fmt.Errorf("rfb: read security type: %w", err)
		}
		if t != 1 {
			return fmt.Errorf("rfb: viewer chose security type %d, only None (1) is offered", t)
		}
		if minor >= 8 {
			if err := binary.Write(s.rw, binary.BigEndian, uint32(0)); err != nil {
				return err
			}
		}
	}
	if _, err := in.ReadByte(); err != nil { // ClientInit's shared flag: every session shares
		return fmt.Errorf("rfb: read ClientInit: %w", err)
	}
	w, h := s.d.Size()
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, [2]uint16{uint16(w), uint16(h)})
	b.Write(DefaultFormat.marshal())
	binary.Write(&b, binary.BigEndian, uint32(len(s.opt.Name)))
	b.WriteString(s.opt.Name)
	_, err := s.rw.Write(b.Bytes())
	return err
}

// read handles the viewer's messages.
func (s *session) read(ctx context.Context, in *bufio.Reader) error {
	buf := make([]byte, 20)
	for {
		t, err := in.ReadByte()
		if err != nil {
			return err
		}
		switch t {
		case 0: // SetPixelFormat
			if _, err := io.ReadFull(in, buf[:19]); err != nil {
				return err
			}
			pf, err := parseFormat(buf[3:19])
			if err != nil {
				return err
			}
			s.mu.Lock()
			s.pf = pf
			s.mu.Unlock()
		case 2: // SetEncodings
			if _, err := io.ReadFull(in, buf[:3]); err != nil {
				return err
			}
			n := int(binary.BigEndian.Uint16(buf[1:]))
			encs := map[int32]bool{}
			for range n {
				if _, err := io.ReadFull(in, buf[:4]); err != nil {
					return err
				}
				encs[int32(binary.BigEndian.Uint32(buf))] = true
			}
			s.mu.Lock()
			s.encs = encs
			s.mu.Unlock()
		case 3: // FramebufferUpdateRequest
			if _, err := io.ReadFull(in, buf[:9]); err != nil {
				return err
			}
			x, y := int(binary.BigEndian.Uint16(buf[1:])), int(binary.BigEndian.Uint16(buf[3:]))
			w, h := int(binary.BigEndian.Uint16(buf[5:])), int(binary.BigEndian.Uint16(buf[7:]))
			s.mu.Lock()
			s.req = &request{incremental: buf[0] != 0, r: image.Rect(x, y, x+w, y+h)}
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
		case 4: // KeyEvent
			if _, err := io.ReadFull(in, buf[:7]); err != nil {
				return err
			}
			if !s.opt.ViewOnly {
				s.key(buf[0] != 0, keysym.Sym(binary.BigEndian.Uint32(buf[3:])))
			}
		case 5: // PointerEvent
			if _, err := io.ReadFull(in, buf[:5]); err != nil {
				return err
			}
			if !s.opt.ViewOnly {
				s.pointer(buf[0], int(binary.BigEndian.Uint16(buf[1:])), int(binary.BigEndian.Uint16(buf[3:])))
			}
		case 6: // ClientCutText: the clipboard has its own route
			if _, err := io.ReadFull(in, buf[:7]); err != nil {
				return err
			}
			n := int64(binary.BigEndian.Uint32(buf[3:]))
			if _, err := io.CopyN(io.Discard, in, n); err != nil {
				return err
			}
		default:
			return fmt.Errorf("rfb: unknown client message type %d", t)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// key injects a key event; failures (a keysym no keycode can carry) are
// dropped, as a viewer has no way to hear of them.
func (s *session) key(down bool, k keysym.Sym) {
	if down {
		if s.d.KeyDown(k) == nil {
			s.keys[k] = true
		}
		return
	}
	_ = s.d.KeyUp(k)
	delete(s.keys, k)
}

func (s *session) pointer(mask uint8, x, y int) {
	w, h := s.d.Size()
	x, y = min(max(x, 0), w-1), min(max(y, 0), h-1)
	_ = s.d.Move(x, y)
	for i := range 8 {
		bit := uint8(1) << i
		switch {
		case mask&bit != 0 && s.buttons&bit == 0:
			_ = s.d.ButtonDown(i + 1)
		case mask&bit == 0 && s.buttons&bit != 0:
			_ = s.d.ButtonUp(i + 1)
		}
	}
	s.buttons = mask
	if sy, ok := s.d.(interface{ Sync() error }); ok {
		_ = sy.Sync() // the pointer calls only queue their requests
	}
}

// release lets go of what the viewer still held.
func (s *session) release() {
	for i := range 8 {
		if s.buttons&(1<<i) != 0 {
			_ = s.d.ButtonUp(i + 1)
		}
	}
	for k := range s.keys {
		_ = s.d.KeyUp(k)
	}
}

// updates answers the viewer's update requests.
func (s *session) updates(ctx context.Context) error {
	var cur *image.RGBA
	w, h := s.d.Size()
	tick := time.NewTimer(0)
	defer tick.Stop()
	for {
		s.mu.Lock()
		req := s.req
		s.mu.Unlock()
		if req == nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-s.wake:
				continue
			}
		}
		nw, nh := s.d.Size()
		if nw != w || nh != h {
			w, h = nw, nh
			s.last = nil
			if err := s.resize(w, h); err != nil {
				return err
			}
		}
		var err error
		cur, err = s.d.CaptureInto(cur, image.Rectangle{})
		if err != nil {
			return err
		}
		area := req.r.Intersect(cur.Bounds())
		var rects []image.Rectangle
		if !req.incremental || s.last == nil {
			if !area.Empty() {
				rects = []image.Rectangle{area}
			}
		} else {
			rects = Changed(s.last, cur, area)
		}
		if len(rects) == 0 && req.incremental {
			tick.Reset(s.opt.Poll)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-s.wake:
			case <-tick.C:
			}
			continue
		}
		s.mu.Lock()
		if s.req == req {
			s.req = nil
		}
		pf := s.pf
		s.mu.Unlock()
		if err := s.send(cur, rects, pf); err != nil {
			return err
		}
		// s.last holds what the viewer now shows.
		if s.last == nil || s.last.Bounds() != cur.Bounds() {
			s.last = image.NewRGBA(cur.Bounds())
		}
		for _, r := range rects {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				i, j := cur.PixOffset(r.Min.X, y), cur.PixOffset(r.Max.X, y)
				copy(s.last.Pix[i:j], cur.Pix[i:j])
			}
		}
	}
}

func (s *session) resize(w, h int) error {
	s.mu.Lock()
	ok := s.encs[EncDesktopSize]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("rfb: the screen changed to %dx%d and the viewer cannot resize", w, h)
	}
	hdr := []byte{0, 0, 0, 1}
	hdr = binary.BigEndian.AppendUint16(hdr, 0)
	hdr = binary.BigEndian.AppendUint16(hdr, 0)
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(w))
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(h))
	enc := int32(EncDesktopSize)
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(enc))
	if _, err := s.out.Write(hdr); err != nil {
		return err
	}
	return s.out.Flush()
}

// send writes one FramebufferUpdate of rects of img in Raw encoding.
func (s *session) send(img *image.RGBA, rects []image.Rectangle, pf PixelFormat) error {
	hdr := []byte{0, 0}
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(rects)))
	if _, err := s.out.Write(hdr); err != nil {
		return err
	}
	bpp := int(pf.BPP) / 8
	var row []byte
	for _, r := range rects {
		h := make([]byte, 0, 12)
		h = binary.BigEndian.AppendUint16(h, uint16(r.Min.X))
		h = binary.BigEndian.AppendUint16(h, uint16(r.Min.Y))
		h = binary.BigEndian.AppendUint16(h, uint16(r.Dx()))
		h = binary.BigEndian.AppendUint16(h, uint16(r.Dy()))
		h = binary.BigEndian.AppendUint32(h, EncRaw)
		if _, err := s.out.Write(h); err != nil {
			return err
		}
		if cap(row) < r.Dx()*bpp {
			row = make([]byte, r.Dx()*bpp)
		}
		row = row[:r.Dx()*bpp]
		for y := r.Min.Y; y < r.Max.Y; y++ {
			src := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
			convert(row, src, pf)
			if _, err := s.out.Write(row); err != nil {
				return err
			}
		}
	}
	return s.out.Flush()
}

// convert writes RGBA pixels src as pf into dst.
func convert(dst, src []byte, pf PixelFormat) {
	if pf == DefaultFormat {
		// BGRX little-endian: swap red and blue.
		for i := 0; i+4 <= len(src); i += 4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+2], src[i+1], src[i], 0
		}
		return
	}
	bpp := int(pf.BPP) / 8
	for i, j := 0, 0; i+4 <= len(src); i, j = i+4, j+bpp {
		v := uint32(src[i])*uint32(pf.RedMax)/255<<pf.RedShift |
			uint32(src[i+1])*uint32(pf.GreenMax)/255<<pf.GreenShift |
			uint32(src[i+2])*uint32(pf.BlueMax)/255<<pf.BlueShift
		switch {
		case bpp == 1:
			dst[j] = byte(v)
		case bpp == 2 && pf.BigEndian:
			binary.BigEndian.PutUint16(dst[j:], uint16(v))
		case bpp == 2:
			binary.LittleEndian.PutUint16(dst[j:], uint16(v))
		case pf.BigEndian:
			binary.BigEndian.PutUint32(dst[j:], v)
		default:
			binary.LittleEndian.PutUint32(dst[j:], v)
		}
	}
}

// Changed returns the parts of area that differ between a and b (images
// of the same bounds), as Tile-square tiles merged along rows and then
// down columns of equal span.
func Changed(a, b *image.RGBA, area image.Rectangle) []image.Rectangle {
	if a.Bounds() != b.Bounds() {
		return []image.Rectangle{area}
	}
	var out []image.Rectangle
	var prevRow []image.Rectangle // rectangles of the previous tile row, still growing
	for ty := area.Min.Y; ty < area.Max.Y; ty += Tile {
		var row []image.Rectangle
		for tx := area.Min.X; tx < area.Max.X; tx += Tile {
			t := image.Rect(tx, ty, tx+Tile, ty+Tile).Intersect(area)
			if !tileDiffers(a, b, t) {
				continue
			}
			if n := len(row); n > 0 && row[n-1].Max.X == t.Min.X {
				row[n-1].Max.X = t.Max.X
				continue
			}
			row = append(row, t)
		}
		// extend a rectangle of the row above with the same span
		var next []image.Rectangle
		for _, r := range row {
			merged := false
			for i, p := range prevRow {
				if p.Min.X == r.Min.X && p.Max.X == r.Max.X && p.Max.Y == r.Min.Y {
					prevRow[i].Max.Y = r.Max.Y
					next = append(next, prevRow[i])
					prevRow = append(prevRow[:i], prevRow[i+1:]...)
					merged = true
					break
				}
			}
			if !merged {
				next = append(next, r)
			}
		}
		out = append(out, prevRow...)
		prevRow = next
	}
	return append(out, prevRow...)
}

func tileDiffers(a, b *image.RGBA, t image.Rectangle) bool {
	for y := t.Min.Y; y < t.Max.Y; y++ {
		i, j := a.PixOffset(t.Min.X, y), a.PixOffset(t.Max.X, y)
		if !bytes.Equal(a.Pix[i:j], b.Pix[i:j]) {
			return true
		}
	}
	return false
}
