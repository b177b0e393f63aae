// Package rfb serves a live view of the X display over the Remote
// Framebuffer protocol (RFB 3.8, RFC 6143; 3.7 and 3.3 clients are
// answered too), the protocol VNC viewers such as noVNC and TigerVNC
// speak.
//
// The server offers the security type None: it runs behind agentd's
// authenticated routes (and the runner's), so the connection reaching it
// is already authorised. It speaks true-colour pixel formats of 8, 16 and
// 32 bits per pixel in either byte order (SetPixelFormat is honoured).
//
// Encodings: Raw, Tight (fill, JPEG, and basic compression with the copy
// and palette filters on its four persistent zlib streams; the
// QualityLevel pseudo-encodings turn JPEG on and set its quality, the
// CompressLevel ones the zlib level) and ZRLE (one persistent zlib
// stream a connection), the first of them in the viewer's SetEncodings
// list being used, as RFC 6143 has it (Raw when it names none).
// CopyRect, when the viewer lists it, carries vertical scrolling: a band
// of the screen that moved up or down since the last frame is copied by
// the viewer and only what scrolled in is sent. The Cursor
// pseudo-encoding sends the X cursor's image when the display has one
// (XFixes), and the DesktopSize pseudo-encoding the screen's new size.
// Everything is the standard library (compress/zlib, image/jpeg); no
// maintained Go package serves RFB's server side.
//
// An incremental FramebufferUpdateRequest is answered only once something
// changed, with the changed 64×64 tiles of the requested region (compared
// with the last frame sent), merged into rectangles, so a typing scene
// sends a few small rectangles rather than the screen. Unless the
// session is view-only, KeyEvent (X keysyms) and PointerEvent (button
// mask, wheel buttons 4 to 7 included) are injected through XTEST; keys
// and buttons still held when the viewer leaves are released.
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
	// Observe, when set, is called after each FramebufferUpdate sent,
	// from the session's goroutine.
	Observe func(Sent)
}

// Sent describes one FramebufferUpdate written to the viewer.
type Sent struct {
	// Encoding is the encoding of its pixel rectangles (EncRaw, EncTight
	// or EncZRLE); CopyRect says one rectangle was a CopyRect.
	Encoding int32
	CopyRect bool
	Rects    int // rectangles, pseudo-rectangles included
	Bytes    int // the message's length
}

// Tile is the side of the squares compared between frames.
const Tile = 64

// Encodings and pseudo-encodings (RFC 6143 and the RFB community
// specification).
const (
	EncRaw         = 0
	EncCopyRect    = 1
	EncTight       = 7
	EncZRLE        = 16
	EncDesktopSize = -223
	EncCursor      = -239
	// EncQualityLevel0 + n (n 0 to 9) asks for Tight's JPEG at quality
	// level n; EncCompressLevel0 + n for zlib level n.
	EncQualityLevel0  = -32
	EncCompressLevel0 = -256
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
	enc  encoding // chosen from the viewer's SetEncodings
	req  *request
	wake chan struct{}

	last    *image.RGBA // the frame last sent
	buf     bytes.Buffer
	tight   *tight
	zrle    *zrle
	cursor  uint32 // serial of the cursor image last sent, 0 for none
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
			order := make([]int32, 0, n)
			for range n {
				if _, err := io.ReadFull(in, buf[:4]); err != nil {
					return err
				}
				e := int32(binary.BigEndian.Uint32(buf))
				encs[e] = true
				order = append(order, e)
			}
			s.mu.Lock()
			s.encs = encs
			s.enc = chooseEncoding(order)
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
// fullLook is how often a session captures the screen though the
// display's change count says nothing was drawn.
const fullLook = time.Second

func (s *session) updates(ctx context.Context) error {
	var cur *image.RGBA
	w, h := s.d.Size()
	tick := time.NewTimer(0)
	defer tick.Stop()
	var changes uint64 // the display's change count at the last capture
	counted := false
	var looked time.Time // the last capture
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
		// A display that counts its changes spares the capture of a
		// screen nothing was drawn on since the last one. The count is
		// read before the capture: a drawing after it counts again.
		// Still, the screen is looked at at least every fullLook: a
		// viewer once kept an old root colour for 30 s on a loaded
		// machine (TestNoVNC), a change the count did not show.
		if cc, ok := s.d.(ChangeCounter); ok {
			if n, err := cc.Changes(); err == nil {
				if counted && n == changes && req.incremental && s.last != nil && !s.cursorChanged() && time.Since(looked) < fullLook {
					tick.Reset(s.opt.Poll)
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-s.wake:
					case <-tick.C:
					}
					continue
				}
				changes, counted = n, true
			}
		}
		var err error
		cur, err = s.d.CaptureInto(cur, image.Rectangle{})
		if err != nil {
			return err
		}
		looked = time.Now()
		area := req.r.Intersect(cur.Bounds())
		var rects []image.Rectangle
		if !req.incremental || s.last == nil {
			if !area.Empty() {
				rects = []image.Rectangle{area}
			}
		} else {
			rects = Changed(s.last, cur, area)
		}
		if len(rects) == 0 && req.incremental && !s.cursorChanged() {
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
		pf, enc := s.pf, s.enc
		s.mu.Unlock()
		var moved *scrolled
		if enc.copyRect && req.incremental && s.last != nil && len(rects) > 0 {
			if dst, dy, ok := Scroll(s.last, cur, rects); ok {
				// The viewer copies the band; what is left is what
				// scrolled in and what else changed.
				copyRows(s.last, dst, dy)
				moved = &scrolled{dst: dst, dy: dy}
				// Left to send: the tiles that differed and are not
				// wholly inside the band (Scroll checked the band's
				// pixels against the rows they came from).
				before := rects
				rects = changedTiles(area, func(t image.Rectangle) bool {
					return !t.In(dst) && overlaps(before, t) && tileDiffers(s.last, cur, t)
				})
			}
		}
		if err := s.send(cur, rects, pf, enc, moved); err != nil {
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

// scrolled is a CopyRect: dst gets the pixels dy rows above it.
type scrolled struct {
	dst image.Rectangle
	dy  int
}

// encoding is what the viewer's SetEncodings chose.
type encoding struct {
	kind     int32 // EncRaw, EncTight or EncZRLE
	copyRect bool
	cursor   bool
	quality  int // Tight's JPEG quality level 0 to 9, -1 for no JPEG
	level    int // zlib level
}

// defaultZlibLevel is the zlib level when the viewer names none.
const defaultZlibLevel = 6

// chooseEncoding reads a SetEncodings list: the first encoding of pixel
// data this server has is used, the first quality and compression levels
// listed count, and the pseudo-encodings are flags.
func chooseEncoding(order []int32) encoding {
	e := encoding{kind: EncRaw, quality: -1, level: -1}
	chosen := false
	for _, v := range order {
		switch {
		case v == EncRaw || v == EncTight || v == EncZRLE:
			if !chosen {
				e.kind, chosen = v, true
			}
		case v == EncCopyRect:
			e.copyRect = true
		case v == EncCursor:
			e.cursor = true
		case v >= EncQualityLevel0 && v <= EncQualityLevel0+9:
			if e.quality < 0 {
				e.quality = int(v - EncQualityLevel0)
			}
		case v >= EncCompressLevel0 && v <= EncCompressLevel0+9:
			if e.level < 0 {
				e.level = int(v - EncCompressLevel0)
			}
		}
	}
	switch {
	case e.level < 0:
		e.level = defaultZlibLevel
	case e.level <= 2:
		// Go's level 1 is its fast encoder: on a full 1920x1080 frame of
		// text as Tight's index it took 45 ms against 107 ms at level 2
		// for 1% fewer bytes. Level 0 (stored) would not compress.
		e.level = 1
	}
	return e
}

// send writes one FramebufferUpdate: the CopyRect of moved if any, then
// rects of img in the chosen encoding.
func (s *session) send(img *image.RGBA, rects []image.Rectangle, pf PixelFormat, enc encoding, moved *scrolled) error {
	b := &s.buf
	b.Reset()
	b.Write([]byte{0, 0, 0, 0}) // the rectangle count is set below
	n := 0
	if moved != nil {
		rectHeader(b, moved.dst, EncCopyRect)
		var src [4]byte
		binary.BigEndian.PutUint16(src[0:], uint16(moved.dst.Min.X))
		binary.BigEndian.PutUint16(src[2:], uint16(moved.dst.Min.Y-moved.dy))
		b.Write(src[:])
		n++
	}
	if enc.cursor {
		n += s.cursorUpdate(b, pf)
	}
	for _, r := range rects {
		switch enc.kind {
		case EncTight:
			if s.tight == nil {
				s.tight = &tight{}
			}
			n += s.tight.encode(b, img, r, pf, enc.quality, enc.level)
		case EncZRLE:
			if s.zrle == nil {
				s.zrle = &zrle{}
			}
			s.zrle.encode(b, img, r, pf, enc.level)
			n++
		default:
			rectHeader(b, r, EncRaw)
			bpp := int(pf.BPP) / 8
			for y := r.Min.Y; y < r.Max.Y; y++ {
				src := img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)]
				b.Grow(r.Dx() * bpp)
				row := b.AvailableBuffer()[:r.Dx()*bpp]
				convert(row, src, pf)
				b.Write(row)
			}
			n++
		}
	}
	out := b.Bytes()
	binary.BigEndian.PutUint16(out[2:], uint16(n))
	if s.opt.Observe != nil {
		s.opt.Observe(Sent{Encoding: enc.kind, CopyRect: moved != nil, Rects: n, Bytes: len(out)})
	}
	if _, err := s.out.Write(out); err != nil {
		return err
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
	return changedTiles(area, func(t image.Rectangle) bool { return tileDiffers(a, b, t) })
}

// changedTiles returns the Tile-square tiles of area for which differs
// is true, merged as Changed merges them.
func changedTiles(area image.Rectangle, differs func(image.Rectangle) bool) []image.Rectangle {
	var out []image.Rectangle
	var prevRow []image.Rectangle // rectangles of the previous tile row, still growing
	for ty := area.Min.Y; ty < area.Max.Y; ty += Tile {
		var row []image.Rectangle
		for tx := area.Min.X; tx < area.Max.X; tx += Tile {
			t := image.Rect(tx, ty, tx+Tile, ty+Tile).Intersect(area)
			if !differs(t) {
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

// overlaps reports whether t overlaps one of rs.
func overlaps(rs []image.Rectangle, t image.Rectangle) bool {
	for _, r := range rs {
		if r.Overlaps(t) {
			return true
		}
	}
	return false
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

// ChangeCounter is a [Display] that counts the changes drawn on its
// screen (DAMAGE on X; *x11.Conn is one): a session then captures the
// screen only when the count moved since its last capture.
type ChangeCounter interface {
	Changes() (uint64, error)
}

// CursorDisplay is a [Display] that also has the image of the pointer's
// cursor (XFixes on X): with it, viewers that list the Cursor
// pseudo-encoding draw the cursor themselves. Serial changes whenever
// the image does; hot is the hotspot within img.
type CursorDisplay interface {
	Display
	CursorImage() (img *image.RGBA, hot image.Point, serial uint32, err error)
}

// cursorChanged reports whether the viewer takes cursor images and the
// cursor changed since the last one sent.
func (s *session) cursorChanged() bool {
	s.mu.Lock()
	want := s.enc.cursor
	s.mu.Unlock()
	cd, ok := s.d.(CursorDisplay)
	if !want || !ok {
		return false
	}
	_, _, serial, err := cd.CursorImage()
	return err == nil && serial != s.cursor
}

// cursorUpdate appends a Cursor pseudo-rectangle when the cursor changed
// since the last one sent, and returns the number of rectangles added.
func (s *session) cursorUpdate(b *bytes.Buffer, pf PixelFormat) int {
	cd, ok := s.d.(CursorDisplay)
	if !ok {
		return 0
	}
	img, hot, serial, err := cd.CursorImage()
	if err != nil || serial == s.cursor || img == nil || img.Rect.Empty() {
		return 0
	}
	s.cursor = serial
	r := img.Rect
	rectHeader(b, image.Rect(hot.X, hot.Y, hot.X+r.Dx(), hot.Y+r.Dy()), EncCursor)
	bpp := int(pf.BPP) / 8
	row := make([]byte, r.Dx()*bpp)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		convert(row, img.Pix[img.PixOffset(r.Min.X, y):img.PixOffset(r.Max.X, y)], pf)
		b.Write(row)
	}
	// The mask: a bit a pixel, rows padded to a byte, set where the
	// cursor is more than half opaque.
	for y := r.Min.Y; y < r.Max.Y; y++ {
		var m byte
		for x := 0; x < r.Dx(); x++ {
			if img.Pix[img.PixOffset(r.Min.X+x, y)+3] >= 128 {
				m |= 0x80 >> (x & 7)
			}
			if x&7 == 7 {
				b.WriteByte(m)
				m = 0
			}
		}
		if r.Dx()&7 != 0 {
			b.WriteByte(m)
		}
	}
	return 1
}
