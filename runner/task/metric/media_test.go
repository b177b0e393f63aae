package metric

import (
	"path/filepath"
	"testing"
)

func TestCheckMP3Meta(t *testing.T) {
	const dir = "testdata/metrics/"
	v24, v23, none := dir+"tagged-v24.mp3", dir+"tagged-v23.mp3", dir+"untagged.mp3"
	garbage := writeTemp(t, "x.mp3", "ID3\x04\x00\x00\x00\x00\x00\x20TIT2\x00\x00\x7f\x7f")
	runSettingsCases(t, []settingsCase{
		{"v2.4 title and artist", "check_mp3_meta", v24, js(t, `{"title": {"method": "eq", "ref": "Missing You"}, "artist": {"method": "eq", "ref": "Cheng Xiang"}}`), 1},
		{"v2.4 UTF-8 album", "check_mp3_meta", v24, js(t, `{"album": {"method": "eq", "ref": "歌"}}`), 1},
		{"v2.4 other artist", "check_mp3_meta", v24, js(t, `{"title": {"method": "eq", "ref": "Missing You"}, "artist": {"method": "eq", "ref": "Han Baoyi"}}`), 0},
		{"v2.3 title and artist", "check_mp3_meta", v23, js(t, `{"title": {"method": "eq", "ref": "Tears of Dancing Girl"}, "artist": {"method": "eq", "ref": "Han Baoyi"}}`), 1},
		{"v2.3 UTF-16 album", "check_mp3_meta", v23, js(t, `{"album": {"method": "eq", "ref": "歌"}}`), 1},
		{"v2.3 regular expression", "check_mp3_meta", v23, js(t, `{"title": {"method": "re.I", "ref": "^tears"}}`), 1},
		{"unset tag is empty", "check_mp3_meta", v23, js(t, `{"genre": {"method": "eq", "ref": ""}}`), 1},
		{"no tag", "check_mp3_meta", none, js(t, `{"title": {"method": "eq", "ref": ""}}`), 0},
		{"corrupt tag", "check_mp3_meta", garbage, js(t, `{"title": {"method": "eq", "ref": ""}}`), 0},
		{"missing", "check_mp3_meta", filepath.Join(t.TempDir(), "none.mp3"), js(t, `{"title": {"method": "eq", "ref": ""}}`), 0},
	})
	if err := metricTable["check_mp3_meta"].CheckRules(js(t, `{"mood": {"method": "eq", "ref": ""}}`)); err == nil {
		t.Error("unknown tag: no load-time error")
	}
}

func BenchmarkCheckMP3Meta(b *testing.B) {
	rules := js(b, `{"title": {"method": "eq", "ref": "Missing You"}, "artist": {"method": "eq", "ref": "Cheng Xiang"}}`)
	for b.Loop() {
		if s, d, _ := checkMP3Meta(testEnv(b), "testdata/metrics/tagged-v24.mp3", rules, nil); s != 1 {
			b.Fatal(d)
		}
	}
}
