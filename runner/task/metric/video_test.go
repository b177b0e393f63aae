package metric

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// clip writes a short video from one of ffmpeg's lavfi sources.
func clip(t *testing.T, name, source string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", source, "-pix_fmt", "yuv420p", p).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	return p
}

func TestCompareVideos(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatal("ffmpeg is not installed (scripts/install-deps.sh installs it)")
	}
	bars := clip(t, "bars.mp4", "testsrc=size=160x120:rate=25:duration=2")
	barsMKV := clip(t, "bars.mkv", "testsrc=size=160x120:rate=25:duration=2")
	short := clip(t, "short.mp4", "testsrc=size=160x120:rate=25:duration=1")
	other := clip(t, "other.mp4", "mandelbrot=size=160x120:rate=25,trim=duration=2")
	runSettingsCases(t, []settingsCase{
		{"identical", "compare_videos", bars, bars, 1},
		{"re-encoded", "compare_videos", barsMKV, bars, 1},
		{"ends early", "compare_videos", short, bars, 0},
		{"other picture", "compare_videos", other, bars, 0},
		{"missing", "compare_videos", filepath.Join(t.TempDir(), "x.mp4"), bars, 0},
		{"corrupt", "compare_videos", writeTemp(t, "x.mp4", "not a video"), bars, 0},
		{"no result", "compare_videos", nil, bars, 0},
	})
	if metricTable["compare_videos"].CheckOptions(map[string]any{"fps": 1}) == nil {
		t.Error("unknown option: no load-time error")
	}
}
