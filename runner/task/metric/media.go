package metric

import (
	"context"
	"fmt"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/id3"
)

// Media metrics. check_mp3_meta reads ID3v2 text frames with
// runner/task/internal/id3.

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
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	for k, r := range m {
		if _, ok := easyID3Frames[k]; !ok {
			return fmt.Errorf("%s: not a tag deskrun reads (want one of title, artist, album, ...)", k)
		}
		rm, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", k, py.TypeName(r))
		}
		if err := checkValueRule(rm); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// checkMP3Meta implements OSWorld's check_mp3_meta
// (desktop_env/evaluators/metrics/others.py).
//
// checkMP3Meta matches each tag (its values joined by commas, "" when
// unset) against its rule; a file without an ID3v2 tag scores 0.
func checkMP3Meta(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	name, ok := result.(string)
	if !ok {
		return 0, fmt.Sprintf("want a file path, got %s", py.TypeName(result)), nil
	}
	tags, err := id3.Read(name)
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
			return 0, fmt.Sprintf("%s is %q, want %s %s", k, value, py.Str(rm["method"]), py.Truncate(py.Repr(rm["ref"]), 100)), nil
		}
	}
	return 1, "", nil
}
