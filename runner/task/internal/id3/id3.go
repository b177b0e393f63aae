// Package id3 reads the text frames of an ID3v2 tag (versions 2.2, 2.3
// and 2.4) as mutagen does for OSWorld's check_mp3_meta: each frame's
// strings in its declared encoding (ISO-8859-1, UTF-16 with or without a
// byte order mark, UTF-8), split at NUL with the trailing empty string
// dropped, the tag's and the frames' unsynchronisation undone, extended
// headers skipped, compressed and encrypted frames and TXXX left out. The
// tag layout is small and stable, so this is a reader of our own rather
// than a dependency.
//
// It sits below the metrics (runner/task/metric), which map mutagen's
// EasyID3 keys to the frame IDs read here.
package id3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
)

// maxSize bounds the tag a file may declare.
const maxSize = 16 << 20

// Read returns the text frames of the ID3v2 tag at the start of the
// file, by frame ID.
func Read(name string) (map[string][]string, error) {
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	defer f.Close()
	var hdr [10]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || string(hdr[:3]) != "ID3" {
		return nil, fmt.Errorf("%s: no ID3v2 tag", name)
	}
	size := syncsafe(hdr[6:10])
	if size > maxSize {
		return nil, fmt.Errorf("%s: ID3 tag of %d bytes", name, size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, fmt.Errorf("%s: truncated ID3 tag: %w", name, err)
	}
	tags, err := Parse(hdr[3], hdr[5], body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tags, nil
}

// syncsafe is a 28-bit size stored 7 bits to a byte.
func syncsafe(b []byte) int {
	return int(b[0]&0x7f)<<21 | int(b[1]&0x7f)<<14 | int(b[2]&0x7f)<<7 | int(b[3]&0x7f)
}

// Parse reads the frames of a tag body of version major (2, 3 or 4)
// with header flags.
func Parse(major, flags byte, body []byte) (map[string][]string, error) {
	if major < 2 || major > 4 {
		return nil, fmt.Errorf("ID3v2.%d not supported", major)
	}
	if flags&0x80 != 0 && major < 4 {
		body = unsynchronise(body)
	}
	if flags&0x40 != 0 && major >= 3 { // extended header
		if len(body) < 4 {
			return nil, errors.New("truncated extended header")
		}
		n := int(binary.BigEndian.Uint32(body))
		if major == 4 {
			n = syncsafe(body[:4])
		} else {
			n += 4
		}
		if n > len(body) || n < 0 {
			return nil, errors.New("extended header larger than the tag")
		}
		body = body[n:]
	}
	idLen, hdrLen := 4, 10
	if major == 2 {
		idLen, hdrLen = 3, 6
	}
	tags := map[string][]string{}
	for len(body) >= hdrLen && body[0] != 0 {
		id := string(body[:idLen])
		var size int
		switch major {
		case 2:
			size = int(body[3])<<16 | int(body[4])<<8 | int(body[5])
		case 3:
			size = int(binary.BigEndian.Uint32(body[4:8]))
		default:
			size = syncsafe(body[4:8])
		}
		var fflags uint16
		if major > 2 {
			fflags = binary.BigEndian.Uint16(body[8:10])
		}
		if size < 0 || size > len(body)-hdrLen {
			return nil, fmt.Errorf("frame %s larger than the tag", id)
		}
		data := body[hdrLen : hdrLen+size]
		body = body[hdrLen+size:]
		if id[0] != 'T' || id == "TXXX" || id == "TXX" {
			continue
		}
		compressedOrEncrypted := (major == 3 && fflags&0x00c0 != 0) || (major == 4 && fflags&0x000c != 0)
		if compressedOrEncrypted {
			continue
		}
		if major == 4 && fflags&0x0001 != 0 { // data length indicator
			if len(data) < 4 {
				continue
			}
			data = data[4:]
		}
		if major == 4 && fflags&0x0002 != 0 {
			data = unsynchronise(data)
		}
		if len(data) == 0 {
			continue
		}
		vals, err := decodeText(data[0], data[1:])
		if err != nil {
			return nil, fmt.Errorf("frame %s: %w", id, err)
		}
		tags[id] = append(tags[id], vals...)
	}
	return tags, nil
}

// unsynchronise undoes the unsynchronisation scheme: the zero byte
// inserted after every 0xff is dropped.
func unsynchronise(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		out = append(out, b[i])
		if b[i] == 0xff && i+1 < len(b) && b[i+1] == 0 {
			i++
		}
	}
	return out
}

// decodeText decodes a text frame's strings (separated by NUL, the
// trailing empty one dropped, as mutagen does).
func decodeText(enc byte, b []byte) ([]string, error) {
	var s string
	switch enc {
	case 0: // ISO-8859-1
		r := make([]rune, len(b))
		for i, c := range b {
			r[i] = rune(c)
		}
		s = string(r)
	case 3: // UTF-8
		s = string(b)
	case 1, 2: // UTF-16 with BOM, UTF-16BE
		if len(b)%2 == 1 {
			b = b[:len(b)-1]
		}
		big := enc == 2
		var units []uint16
		start := true
		for i := 0; i+1 < len(b); i += 2 {
			u := binary.BigEndian.Uint16(b[i:])
			if !big {
				u = binary.LittleEndian.Uint16(b[i:])
			}
			if start && enc == 1 {
				switch {
				case b[i] == 0xff && b[i+1] == 0xfe:
					big = false
					start = false
					continue
				case b[i] == 0xfe && b[i+1] == 0xff:
					big = true
					start = false
					continue
				}
			}
			start = false
			if u == 0 {
				units = append(units, 0)
				start = true // each string of a v2.4 list has its own BOM
				continue
			}
			if !big {
				u = binary.LittleEndian.Uint16(b[i:])
			} else {
				u = binary.BigEndian.Uint16(b[i:])
			}
			units = append(units, u)
		}
		s = string(utf16.Decode(units))
	default:
		return nil, fmt.Errorf("text encoding %d unknown", enc)
	}
	parts := strings.Split(s, "\x00")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts, nil
}
