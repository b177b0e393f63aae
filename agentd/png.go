package agentd

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"image"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// encodePNG writes an opaque image as an 8-bit RGB PNG, built for speed:
// every row uses the Sub filter (no per-row search), and horizontal bands
// of rows are deflated in parallel, each ending on a byte-aligned sync
// flush so that the pieces join into one zlib stream, the way parallel
// gzip tools do it. A busy 1280x800 desktop encodes several times faster
// than image/png at BestSpeed, at a similar size.
func encodePNG(w io.Writer, img *image.RGBA) error {
	b := img.Bounds()
	width, height := b.Dx(), b.Dy()
	stride := 1 + 3*width
	bands := runtime.GOMAXPROCS(0)
	const minRows = 64
	if n := (height + minRows - 1) / minRows; n < bands {
		bands = n
	}
	bands = max(bands, 1)
	raw := make([]byte, stride*height)
	out := make([]bytes.Buffer, bands)
	errs := make([]error, bands)
	var wg sync.WaitGroup
	for i := range bands {
		y0, y1 := height*i/bands, height*(i+1)/bands
		wg.Go(func() {
			for y := y0; y < y1; y++ {
				filterSub(raw[y*stride:(y+1)*stride], img.Pix[(y+b.Min.Y-img.Rect.Min.Y)*img.Stride+(b.Min.X-img.Rect.Min.X)*4:])
			}
			fw, err := flate.NewWriter(&out[i], pngLevel)
			if err == nil {
				_, err = fw.Write(raw[y0*stride : y1*stride])
			}
			if err == nil {
				if i == bands-1 {
					err = fw.Close()
				} else {
					err = fw.Flush()
				}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	var hdr [13]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(width))
	binary.BigEndian.PutUint32(hdr[4:], uint32(height))
	hdr[8], hdr[9] = 8, 2 // 8 bits per sample, truecolour
	if _, err := io.WriteString(w, "\x89PNG\r\n\x1a\n"); err != nil {
		return err
	}
	if err := chunk(w, "IHDR", hdr[:]); err != nil {
		return err
	}
	// One IDAT: the zlib header, the deflate pieces, the Adler-32 of the
	// filtered rows.
	size := 2 + 4
	for i := range out {
		size += out[i].Len()
	}
	crc := crc32.NewIEEE()
	var lenType [4]byte
	binary.BigEndian.PutUint32(lenType[:], uint32(size))
	mw := io.MultiWriter(w, crc)
	if _, err := w.Write(lenType[:]); err != nil {
		return err
	}
	if _, err := mw.Write([]byte("IDAT\x78\x01")); err != nil {
		return err
	}
	for i := range out {
		if _, err := mw.Write(out[i].Bytes()); err != nil {
			return err
		}
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], adler32.Checksum(raw))
	if _, err := mw.Write(tail[:]); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	if _, err := w.Write(tail[:]); err != nil {
		return err
	}
	return chunk(w, "IEND", nil)
}

// filterSub writes one filtered row: the filter byte (1, Sub) and each RGB
// sample minus the one to its left.
func filterSub(dst, rgba []byte) {
	dst[0] = 1
	d := dst[1:]
	var pr, pg, pb byte
	for x := 0; x < len(d)/3; x++ {
		r, g, b := rgba[4*x], rgba[4*x+1], rgba[4*x+2]
		d[3*x], d[3*x+1], d[3*x+2] = r-pr, g-pg, b-pb
		pr, pg, pb = r, g, b
	}
}

func chunk(w io.Writer, typ string, data []byte) error {
	var buf [8]byte
	binary.BigEndian.PutUint32(buf[:], uint32(len(data)))
	copy(buf[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(buf[4:])
	crc.Write(data)
	if _, err := w.Write(buf[:]); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf[:4], crc.Sum32())
	_, err := w.Write(buf[:4])
	return err
}

var pngLevel = flate.BestSpeed
