package metric

import (
	"path/filepath"
	"strconv"
	"testing"
)

const vlcStatusPlaying = `<?xml version="1.0" encoding="utf-8" standalone="yes" ?>
<root>
<fullscreen>false</fullscreen>
<volume>256</volume>
<state>playing</state>
<information>
  <category name="meta">
    <info name='filename'>Never Gonna Give You Up.mp4</info>
    <info name='url'>file:///home/user/Never%20Gonna%20Give%20You%20Up.mp4</info>
  </category>
  <category name="Stream 0"><info name='Codec'>H264</info></category>
</information>
</root>`

// vlcrcSample is a vlcrc as VLC writes it: unchanged options commented
// out with their default.
const vlcrcSample = `###
### vlc 3.0.16
###

[qt] # Qt interface
#qt-minimal-view=0
qt-bgcone=0
#qt-max-volume=125
qt-max-volume=200
qt-slider-colours=10;20;30;0;0;0;99;99;99;1;2;3
#one-instance-when-started-from-file=1

[core] # core program
input-record-path=/home/user/Recordings
global-key-play-pause=Ctrl+Space
`

func TestVLCMetrics(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	playing := writeTemp(t, "status.xml", vlcStatusPlaying)
	paused := writeTemp(t, "paused.xml", `<root><state>paused</state></root>`)
	corrupt := writeTemp(t, "corrupt.xml", `<root><state>playing`)
	rc := writeTemp(t, "vlcrc", vlcrcSample)
	empty := writeTemp(t, "vlcrc-empty", "[qt]\n#input-record-path=/tmp\n")
	size := func(w, h int) map[string]any {
		return js(t, `{"width": `+strconv.Itoa(w)+`, "height": `+strconv.Itoa(h)+`}`).(map[string]any)
	}
	runSettingsCases(t, []settingsCase{
		{"playing file", "is_vlc_playing", playing, js(t, `{"type": "file_name", "file_name": "Give You Up.mp4"}`), 1},
		{"playing url", "is_vlc_playing", playing, js(t, `{"type": "url", "url": "Up.mp4"}`), 1},
		{"other file", "is_vlc_playing", playing, js(t, `{"type": "file_name", "file_name": "other.mp4"}`), 0},
		{"paused", "is_vlc_playing", paused, js(t, `{"type": "file_name", "file_name": "Up.mp4"}`), 0},
		{"corrupt", "is_vlc_playing", corrupt, js(t, `{"type": "file_name", "file_name": "Up.mp4"}`), 0},
		{"missing", "is_vlc_playing", missing, js(t, `{"type": "file_name", "file_name": "Up.mp4"}`), 0},
		{"no result", "is_vlc_playing", nil, js(t, `{"type": "file_name", "file_name": "Up.mp4"}`), 0},

		{"set", "is_vlc_recordings_folder", rc, js(t, `{"recording_file_path": "/home/user/Recordings"}`), 1},
		{"other", "is_vlc_recordings_folder", rc, js(t, `{"recording_file_path": "/home/user/Videos"}`), 0},
		{"commented only", "is_vlc_recordings_folder", empty, js(t, `{"recording_file_path": "/tmp"}`), 0},
		{"missing", "is_vlc_recordings_folder", missing, js(t, `{"recording_file_path": "/tmp"}`), 0},

		{"bgcone off", "check_qt_bgcone", rc, js(t, `{"expected_qt_bgcone": 0}`), 1},
		{"bgcone on", "check_qt_bgcone", rc, js(t, `{"expected_qt_bgcone": 1}`), 0},
		{"bgcone default", "check_qt_bgcone", empty, js(t, `{"expected_qt_bgcone": 1}`), 1},
		{"bgcone missing", "check_qt_bgcone", missing, js(t, `{"expected_qt_bgcone": 1}`), 0},
		{"max volume last line wins", "check_qt_max_volume", rc, js(t, `{"expected_qt_max_volume": 200}`), 1},
		{"max volume as text", "check_qt_max_volume", rc, js(t, `{"expected_qt_max_volume": "200"}`), 1},
		{"max volume default", "check_qt_max_volume", empty, js(t, `{"expected_qt_max_volume": 200}`), 0},
		{"minimal view off", "check_qt_minimal_view", rc, js(t, `{"expected_qt_minimal_view": 1}`), 0},
		{"minimal view default", "check_qt_minimal_view", rc, js(t, `{"expected_qt_minimal_view": 0}`), 1},
		{"one instance", "check_one_instance_when_started_from_file", rc, js(t, `{"expected_one_instance_when_started_from_file": 1}`), 1},
		{"one instance off", "check_one_instance_when_started_from_file", rc, js(t, `{"expected_one_instance_when_started_from_file": 0}`), 0},
		{"hotkey bound", "check_global_key_play_pause", rc, js(t, `{"expected_global_key_play_pause": 1}`), 1},
		{"hotkey unbound", "check_global_key_play_pause", empty, js(t, `{"expected_global_key_play_pause": 1}`), 0},
		{"hotkey missing", "check_global_key_play_pause", missing, js(t, `{"expected_global_key_play_pause": 0}`), 0},
		{"slider blackish", "check_qt_slider_colours", rc, js(t, `{"type": "blackish"}`), 1},
		{"slider default not blackish", "check_qt_slider_colours", empty, js(t, `{"type": "blackish"}`), 0},
		{"slider match", "check_qt_slider_colours", rc, js(t, `{"type": "match", "expected_qt_slider_colours": "10;20;30;0;0;0;99;99;99;1;2;3"}`), 1},
		{"slider other", "check_qt_slider_colours", rc, js(t, `{"type": "match", "expected_qt_slider_colours": "0;0;0"}`), 0},
		{"slider missing", "check_qt_slider_colours", missing, js(t, `{"type": "blackish"}`), 0},

		{"fullscreen", "is_vlc_fullscreen", size(1920, 1080), size(1920, 1080), 1},
		{"windowed", "is_vlc_fullscreen", size(1920, 1080), size(1280, 720), 0},
		{"no window", "is_vlc_fullscreen", size(1920, 1080), nil, 0},
	})
	for _, bad := range []string{`{"type": "path"}`, `{"type": "url"}`} {
		if metricTable["is_vlc_playing"].CheckRules(js(t, bad)) == nil {
			t.Errorf("%s: no load-time error", bad)
		}
	}
	if metricTable["check_qt_slider_colours"].CheckRules(js(t, `{"type": "red"}`)) == nil {
		t.Error("slider type red: no load-time error")
	}
}
