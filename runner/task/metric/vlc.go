package metric

import (
	"context"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/internal/py"
)

// VLC metrics. They read what the VLC getters fetch: the player's HTTP
// status document (status.xml of VLC's web interface) and its vlcrc
// configuration file, plus window and screen sizes for fullscreen.
//
// vlcrc lists every option, the unchanged ones commented out with their
// default ("#qt-bgcone=1"); like OSWorld, a check takes the value of the
// last line naming the option, commented or not, and the option's
// default when no line names it.

// vlcStatusDoc is the part of VLC's status.xml the metrics read.
type vlcStatusDoc struct {
	State      string `xml:"state"`
	Categories []struct {
		Name  string `xml:"name,attr"`
		Infos []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:",chardata"`
		} `xml:"info"`
	} `xml:"information>category"`
}

func (s *vlcStatusDoc) meta(name string) string {
	for _, c := range s.Categories {
		if c.Name != "meta" {
			continue
		}
		for _, i := range c.Infos {
			if i.Name == name {
				return i.Value
			}
		}
	}
	return ""
}

func checkVLCPlayingRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	switch t := py.Str(m["type"]); t {
	case "file_name", "url":
		if _, ok := m[t].(string); !ok {
			return fmt.Errorf("%s: want a string, got %s", t, py.TypeName(m[t]))
		}
	default:
		return fmt.Errorf("type: want file_name or url, got %s", py.Truncate(py.Repr(m["type"]), 50))
	}
	return nil
}

// isVLCPlaying implements OSWorld's is_vlc_playing
// (desktop_env/evaluators/metrics/vlc.py).
//
// isVLCPlaying scores 1 when VLC's state is playing and the playing
// item's file name (or URL) ends with the rule's.
func isVLCPlaying(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no status file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var st vlcStatusDoc
	if err := xml.Unmarshal([]byte(text), &st); err != nil {
		return 0, "result: not a VLC status document: " + err.Error(), nil
	}
	if st.State != "playing" {
		return 0, fmt.Sprintf("VLC is %q, not playing", st.State), nil
	}
	kind := py.Str(rules["type"])
	want, _ := rules[kind].(string)
	got := st.meta(map[string]string{"file_name": "filename", "url": "url"}[kind])
	if got == "" {
		return 0, fmt.Sprintf("the status has no %s of the playing item", kind), nil
	}
	if !strings.HasSuffix(got, want) {
		return 0, fmt.Sprintf("playing %q, want one ending with %q", got, want), nil
	}
	return 1, "", nil
}

// vlcrcLines returns the lines of a vlcrc file.
func vlcrcLines(result any) ([]string, string) {
	if result == nil {
		return nil, "no vlcrc file"
	}
	text, err := readText(result)
	if err != nil {
		return nil, "result: " + err.Error()
	}
	return strings.Split(text, "\n"), ""
}

// vlcrcValue is the value of the last line containing "key=" (the text
// after its last '=', trimmed), or def.
func vlcrcValue(lines []string, key, def string) string {
	v := def
	for _, l := range lines {
		if strings.Contains(l, key+"=") {
			v = strings.TrimSpace(l[strings.LastIndex(l, "=")+1:])
		}
	}
	return v
}

// ruleString is a rule value as OSWorld compares it: integers as their
// decimal text, strings as they are.
func ruleString(v any) string {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return py.Str(v)
}

// vlcrcOption implements OSWorld's check_qt_bgcone, check_qt_max_volume,
// check_qt_minimal_view and check_one_instance_when_started_from_file
// (desktop_env/evaluators/metrics/vlc.py).
//
// vlcrcOption builds the metric comparing one vlcrc option (default def
// when unset) with rules[ruleKey].
func vlcrcOption(key, def, ruleKey string) Metric {
	fn := func(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
		rules, err := rulesMap(expected)
		if err != nil {
			return 0, "", err
		}
		lines, detail := vlcrcLines(result)
		if detail != "" {
			return 0, detail, nil
		}
		got, want := vlcrcValue(lines, key, def), ruleString(rules[ruleKey])
		if got != want {
			return 0, fmt.Sprintf("%s is %q, want %q", key, got, want), nil
		}
		return 1, "", nil
	}
	return Metric{Fn: fn, CheckRules: needKeys(ruleKey)}
}

// checkGlobalKeyPlayPause implements OSWorld's
// check_global_key_play_pause (desktop_env/evaluators/metrics/vlc.py).
//
// checkGlobalKeyPlayPause compares whether the global play/pause hotkey
// is bound ("1" when global-key-play-pause has a value, else "0").
func checkGlobalKeyPlayPause(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	lines, detail := vlcrcLines(result)
	if detail != "" {
		return 0, detail, nil
	}
	got := "0"
	if vlcrcValue(lines, "global-key-play-pause", "") != "" {
		got = "1"
	}
	if want := ruleString(rules["expected_global_key_play_pause"]); got != want {
		return 0, fmt.Sprintf("global play/pause key bound is %s, want %s", got, want), nil
	}
	return 1, "", nil
}

func checkSliderRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	switch py.Str(m["type"]) {
	case "blackish":
	case "match":
		if _, ok := m["expected_qt_slider_colours"].(string); !ok {
			return fmt.Errorf("expected_qt_slider_colours: want a string, got %s", py.TypeName(m["expected_qt_slider_colours"]))
		}
	default:
		return fmt.Errorf("type: want match or blackish, got %s", py.Truncate(py.Repr(m["type"]), 50))
	}
	return nil
}

// checkQtSliderColours implements OSWorld's check_qt_slider_colours
// (desktop_env/evaluators/metrics/vlc.py).
//
// checkQtSliderColours compares the volume slider's colours (a list of
// r;g;b triples): "match" wants the exact text, "blackish" every channel
// below 100.
func checkQtSliderColours(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	lines, detail := vlcrcLines(result)
	if detail != "" {
		return 0, detail, nil
	}
	got := vlcrcValue(lines, "qt-slider-colours", "153;210;153;20;210;20;255;199;15;245;39;29")
	if py.Str(rules["type"]) == "match" {
		if want, _ := rules["expected_qt_slider_colours"].(string); got != want {
			return 0, fmt.Sprintf("qt-slider-colours is %q, want %q", got, want), nil
		}
		return 1, "", nil
	}
	fields := strings.Split(got, ";")
	vals := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return 0, fmt.Sprintf("qt-slider-colours %q: not a list of integers", got), nil
		}
		vals[i] = n
	}
	// OSWorld zips the values into whole triples; a trailing partial one
	// is not read.
	for i, n := range vals[:len(vals)/3*3] {
		if n >= 100 {
			return 0, fmt.Sprintf("qt-slider-colours %q: channel %d is %d, not below 100", got, i+1, n), nil
		}
	}
	return 1, "", nil
}

// isVLCFullscreen implements OSWorld's is_vlc_fullscreen
// (desktop_env/evaluators/metrics/vlc.py).
//
// isVLCFullscreen scores 1 when VLC's window has the screen's width and
// height.
func isVLCFullscreen(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	screen, ok1 := result.(map[string]any)
	window, ok2 := expected.(map[string]any)
	if !ok1 || !ok2 {
		return 0, fmt.Sprintf("want two sizes, got %s and %s", py.TypeName(result), py.TypeName(expected)), nil
	}
	for _, k := range []string{"width", "height"} {
		if screen[k] == nil || window[k] == nil || !py.Equal(screen[k], window[k]) {
			return 0, fmt.Sprintf("window %sx%s, screen %sx%s", py.Str(window["width"]), py.Str(window["height"]), py.Str(screen["width"]), py.Str(screen["height"])), nil
		}
	}
	return 1, "", nil
}

// isVLCRecordingsFolder implements OSWorld's is_vlc_recordings_folder
// (desktop_env/evaluators/metrics/vlc.py).
//
// isVLCRecordingsFolder compares the recordings folder (input-record-path)
// of the first uncommented line naming it.
func isVLCRecordingsFolder(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	lines, detail := vlcrcLines(result)
	if detail != "" {
		return 0, detail, nil
	}
	want := py.Str(rules["recording_file_path"])
	for _, l := range lines {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" || !strings.Contains(l, "input-record-path") {
			continue
		}
		got := strings.TrimSpace(l[strings.LastIndex(l, "=")+1:])
		if got != want {
			return 0, fmt.Sprintf("recordings folder is %q, want %q", got, want), nil
		}
		return 1, "", nil
	}
	return 0, "no recordings folder set (input-record-path)", nil
}
