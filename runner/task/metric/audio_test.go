package metric

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// tone writes a sine tone with ffmpeg's lavfi source.
func tone(t testing.TB, name string, freq, secs int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
		"sine=frequency="+itoa(freq)+":duration="+itoa(secs)+":sample_rate=44100", p).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompareAudios(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is not installed (scripts/install-deps.sh installs it)")
	}
	a440 := tone(t, "a440.wav", 440, 2)
	a440mp3 := tone(t, "a440.mp3", 440, 2)
	a880 := tone(t, "a880.wav", 880, 2)
	longer := tone(t, "a440-long.wav", 440, 3)
	runSettingsCases(t, []settingsCase{
		{"identical", "compare_audios", a440, a440, 1},
		{"missing", "compare_audios", filepath.Join(t.TempDir(), "x.mp3"), a440, 0},
		{"corrupt", "compare_audios", writeTemp(t, "x.mp3", "ID3 not audio"), a440, 0},
		{"no result", "compare_audios", nil, a440, 0},
	})
	score := func(a, b string) float64 {
		s, d, err := compareAudios(testEnv(t), a, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s vs %s: %.4f %s", filepath.Base(a), filepath.Base(b), s, d)
		return s
	}
	mp3, other, long := score(a440mp3, a440), score(a880, a440), score(longer, a440)
	if !(mp3 > other && long > other) {
		t.Errorf("the same tone (mp3 %.4f, longer %.4f) does not score above another tone (%.4f)", mp3, long, other)
	}
	if other >= 0.5 {
		t.Errorf("another tone scores %.4f", other)
	}
}
