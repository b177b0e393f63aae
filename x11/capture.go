package x11

import (
	"encoding/binary"
	"fmt"
	"image"
	"unsafe"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"
)

// shmSeg is a System V shared memory segment attached by both this
// process and the X server, large enough for the whole screen.
type shmSeg struct {
	seg  shm.Seg
	data []byte
}

// newSHM sets up MIT-SHM capture, or returns nil when the server lacks
// the extension or cannot attach this process's memory (another host or
// IPC namespace); captures then use plain GetImage.
func newSHM(x *xgb.Conn, root xproto.Window, w, h int) *shmSeg {
	if initExt(x, "MIT-SHM") != nil {
		return nil
	}
	if _, err := shm.QueryVersion(x).Reply(); err != nil {
		return nil
	}
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, w*h*4, unix.IPC_CREAT|0o600)
	if err != nil {
		return nil
	}
	data, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
		return nil
	}
	seg, err := shm.NewSegId(x)
	if err == nil {
		err = shm.AttachChecked(x, seg, uint32(id), false).Check()
	}
	// Marked for removal now: the kernel frees it once both sides detach,
	// even if this process dies.
	_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	if err != nil {
		_ = unix.SysvShmDetach(data)
		return nil
	}
	s := &shmSeg{seg: seg, data: data}
	// Prove the round trip once: a server on another host accepts the
	// attach of an id it cannot see only to fail GetImage.
	if _, err := shm.GetImage(x, xproto.Drawable(root), 0, 0, 1, 1, 0xffffffff, xproto.ImageFormatZPixmap, seg, 0).Reply(); err != nil {
		s.close(x)
		return nil
	}
	return s
}

func (s *shmSeg) close(x *xgb.Conn) {
	_ = shm.DetachChecked(x, s.seg).Check()
	_ = unix.SysvShmDetach(s.data)
}

// Capture returns the pixels of r on the screen; an empty r means the whole
// screen. r is clipped to the screen; a rectangle entirely off it is an
// error.
func (c *Conn) Capture(r image.Rectangle) (*image.RGBA, error) {
	return c.CaptureInto(nil, r)
}

// CaptureInto is Capture returning an image that uses the pixel memory of
// reuse when it is large enough (reuse may be nil), so that a caller taking
// screenshots again and again allocates, and the runtime clears, several
// megabytes once rather than each time.
func (c *Conn) CaptureInto(reuse *image.RGBA, r image.Rectangle) (*image.RGBA, error) {
	full := image.Rect(0, 0, c.width, c.height)
	if r.Empty() {
		r = full
	}
	r = r.Intersect(full)
	if r.Empty() {
		return nil, fmt.Errorf("x11: capture region is off the %dx%d screen", c.width, c.height)
	}
	c.capMu.Lock()
	defer c.capMu.Unlock()
	w, h := r.Dx(), r.Dy()
	var src []byte
	if c.shm != nil {
		_, err := shm.GetImage(c.x, xproto.Drawable(c.root), int16(r.Min.X), int16(r.Min.Y), uint16(w), uint16(h),
			0xffffffff, xproto.ImageFormatZPixmap, c.shm.seg, 0).Reply()
		if err != nil {
			return nil, fmt.Errorf("x11: capture (MIT-SHM): %w", err)
		}
		src = c.shm.data[:w*h*4]
	} else {
		rep, err := xproto.GetImage(c.x, xproto.ImageFormatZPixmap, xproto.Drawable(c.root),
			int16(r.Min.X), int16(r.Min.Y), uint16(w), uint16(h), 0xffffffff).Reply()
		if err != nil {
			return nil, fmt.Errorf("x11: capture: %w", err)
		}
		src = rep.Data
	}
	if len(src) < w*h*4 {
		return nil, fmt.Errorf("x11: capture: %d bytes for %dx%d pixels (the screen must be 24 or 32 bits deep)", len(src), w, h)
	}
	var img *image.RGBA
	if reuse != nil && cap(reuse.Pix) >= w*h*4 {
		img = &image.RGBA{Pix: reuse.Pix[:w*h*4], Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	} else {
		img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	bgrxToRGBA(img.Pix, src[:w*h*4])
	return img, nil
}

// bgrxToRGBA converts the server's little-endian 32-bit pixels (blue,
// green, red, unused) to opaque RGBA, two pixels per 64-bit word.
func bgrxToRGBA(dst, src []byte) {
	n := len(src) / 8
	if n > 0 {
		s := unsafe.Slice((*uint64)(unsafe.Pointer(&src[0])), n)
		d := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), n)
		for i, v := range s {
			d[i] = 0xff000000ff000000 | v&0x0000ff000000ff00 | (v&0x000000ff000000ff)<<16 | (v>>16)&0x000000ff000000ff
		}
	}
	for i := n * 8; i+4 <= len(src); i += 4 {
		p := binary.LittleEndian.Uint32(src[i:])
		binary.LittleEndian.PutUint32(dst[i:], 0xff000000|(p&0xff)<<16|p&0xff00|(p>>16)&0xff)
	}
}
