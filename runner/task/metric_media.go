package task

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf16"
)

// Media metrics. check_mp3_meta reads ID3v2 text frames with a reader of
// our own (the tag layout is small and stable; no dependency needed).

func init() {
	addMetrics(map[string]metricSpec{
		"check_mp3_meta": {fn: checkMP3Meta, needsExpected: true, checkRules: checkMP3Rules},
	})
}

// easyID3Frames maps the keys of mutagen's EasyID3 the tasks use to frame
// IDs (ID3v2.3/2.4 and the three-letter v2.2 ones).
var easyID3Frames = map[string][2]string{
	"title":        {"TIT2", "TT2"},
	"artist":       {"TPE1", "TP1"},
	"album":        {"TALB", "TAL"},
	"albumartist":  {"TPE2", "TP2"},
	"genre":        {"TCON", "TCO"},
	"composer":     {"TCOM", "TCM"},
	"tracknumber":  {"TRCK", "TRK"},
	"discnumber":   {"TPOS", "TPA"},
	"date":         {"TDRC", "TYE"},
	"copyright":    {"TCOP", "TCR"},
	"lyricist":     {"TEXT", "TXT"},
	"length":       {"TLEN", "TLE"},
	"organization": {"TPUB", "TPB"},
	"version":      {"TIT3", "TT3"},
	"bpm":          {"TBPM", "TBP"},
}

func checkMP3Rules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	for k, r := range m {
		if _, ok := easyID3Frames[k]; !ok {
			return fmt.Errorf("%s: not a tag deskrun reads (want one of title, artist, album, ...)", k)
		}
		rm, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", k, typeName(r))
		}
		if err := checkValueRule(rm); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// checkMP3Meta matches each tag (its values joined by commas, "" when
// unset) against its rule; a file without an ID3v2 tag scores 0.
func checkMP3Meta(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	name, ok := result.(string)
	if !ok {
		return 0, fmt.Sprintf("want a file path, got %s", typeName(result)), nil
	}
	tags, err := readID3(name)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for k, r := range rules {
		ids := easyID3Frames[k]
		vals, ok := tags[ids[0]]
		if !ok {
			vals = tags[ids[1]]
		}
		value := strings.Join(vals, ",")
		rm, _ := r.(map[string]any)
		if !matchValueRule(value, rm) {
			return 0, fmt.Sprintf("%s is %q, want %s %s", k, value, pyStr(rm["method"]), truncate(pyRepr(rm["ref"]), 100)), nil
		}
	}
	return 1, "", nil
}

const maxID3Size = 16 << 20

// readID3 returns the text frames of the ID3v2 tag at the start of the
// file, by frame ID.
func readID3(name string) (map[string][]string, error) {
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
	if size > maxID3Size {
		return nil, fmt.Errorf("%s: ID3 tag of %d bytes", name, size)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, fmt.Errorf("%s: truncated ID3 tag: %w", name, err)
	}
	tags, err := parseID3(hdr[3], hdr[5], body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return tags, nil
}

func syncsafe(b []byte) int {
	return int(b[0]&0x7f)<<21 | int(b[1]&0x7f)<<14 | int(b[2]&0x7f)<<7 | int(b[3]&0x7f)
}

// parseID3 reads the frames of a tag body of version major (2, 3 or 4)
// with header flags.
func parseID3(major, flags byte, body []byte) (map[string][]string, error) {
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
		vals, err := decodeID3Text(data[0], data[1:])
		if err != nil {
			return nil, fmt.Errorf("frame %s: %w", id, err)
		}
		tags[id] = append(tags[id], vals...)
	}
	return tags, nil
}

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

// decodeID3Text decodes a text frame's strings (separated by NUL, the
// trailing empty one dropped, as mutagen does).
func decodeID3Text(enc byte, b []byte) ([]string, error) {
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
