package pil

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"
)

// djpegTimeout bounds one decode by djpeg.
const djpegTimeout = 30 * time.Second

// decodeDjpeg decodes a JPEG file with libjpeg-turbo's djpeg, as Pillow
// decodes it (libjpeg's default islow IDCT and fancy upsampling; Go's
// image/jpeg differs by a level on some pixels): an "RGB" or "L" image,
// or an error when djpeg is not installed or refuses the file (a CMYK
// JPEG, for one), and the caller falls back to image/jpeg.
func decodeDjpeg(name string) (*Image, error) {
	path, err := exec.LookPath("djpeg")
	if err != nil {
		return nil, errors.New("djpeg is not installed (Debian package libjpeg-turbo-progs)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), djpegTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-pnm", name)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("djpeg: %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return readPNM(&out)
}

// readPNM reads a binary PGM (P5) or PPM (P6) of 8-bit samples.
func readPNM(r io.Reader) (*Image, error) {
	br := bufio.NewReader(r)
	var fields []int
	var magic string
	for len(fields) < 3 {
		tok, err := pnmToken(br)
		if err != nil {
			return nil, fmt.Errorf("read pnm header: %w", err)
		}
		if magic == "" {
			magic = tok
			continue
		}
		n, err := strconv.Atoi(tok)
		if err != nil {
			return nil, fmt.Errorf("read pnm header: %q", tok)
		}
		fields = append(fields, n)
	}
	w, h, maxval := fields[0], fields[1], fields[2]
	ch := 0
	switch magic {
	case "P5":
		ch = 1
	case "P6":
		ch = 3
	}
	if ch == 0 || maxval != 255 || w <= 0 || h <= 0 || w*h > MaxPixels {
		return nil, fmt.Errorf("pnm %s of %dx%d, maxval %d not supported", magic, w, h, maxval)
	}
	m := &Image{Mode: "RGB", W: w, H: h, Ch: ch, Pix: make([]uint8, w*h*ch)}
	if ch == 1 {
		m.Mode = "L"
	}
	if _, err := io.ReadFull(br, m.Pix); err != nil {
		return nil, fmt.Errorf("read pnm pixels: %w", err)
	}
	return m, nil
}

// pnmToken reads one whitespace-separated header token (comments
// skipped) and the single whitespace after it.
func pnmToken(br *bufio.Reader) (string, error) {
	var tok []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		switch {
		case c == '#' && len(tok) == 0:
			if _, err := br.ReadBytes('\n'); err != nil {
				return "", err
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if len(tok) > 0 {
				return string(tok), nil
			}
		default:
			tok = append(tok, c)
		}
	}
}
