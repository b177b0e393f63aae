package agentd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// TestRecording records an xterm on a green desktop while text is typed
// into it: the file is a VP8 WebM of the screen's size lasting about the
// recording's time, with several frames, whose last frame shows the
// green; no ffmpeg is left once it stopped.
func TestRecording(t *testing.T) {
	agentdtest.NeedProgram(t, "ffmpeg")
	s, c := start(t)
	ctx := t.Context()
	if _, err := c.DownloadRecording(ctx, &bytes.Buffer{}); !errdefs.IsNotFound(err) {
		t.Fatalf("GET /v1/recording before any: %v, want not found", err)
	}
	if _, err := c.StartRecording(ctx, api.RecordingRequest{FPS: 99}); !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "fps") {
		t.Fatalf("fps 99: %v, want an invalid argument naming fps", err)
	}
	sh(t, c, "xsetroot -solid '#00c000'")
	sh(t, c, "xterm -geometry 60x10+0+0 >/dev/null 2>&1 &")
	waitFor(t, "the xterm", func() bool {
		ws, _ := c.Windows(ctx)
		return len(ws) > 0
	})
	began := time.Now()
	rec, err := c.StartRecording(ctx, api.RecordingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// The answer comes once ffmpeg took the first frame (its start takes
	// seconds on a loaded machine): the video runs from then.
	started := time.Now()
	if rec.State != api.RecordingRecording || rec.Format != "webm" || rec.Codec != "vp8" || rec.StartedAt.IsZero() {
		t.Fatalf("started: %+v", rec)
	}
	if _, err := c.StartRecording(ctx, api.RecordingRequest{}); !errdefs.IsConflict(err) {
		t.Fatalf("a second start: %v, want a conflict", err)
	}
	// The pointer on the xterm gives it the keys (no window manager here);
	// each line it prints is a change the recording takes a frame of.
	for _, word := range []string{"echo recorded", "ls /"} {
		if _, err := c.Input(ctx, []api.Action{{Type: api.ActionMove, X: api.Int(100), Y: api.Int(60)}, {Type: api.ActionType, Text: word + "\n"}, {Type: api.ActionWait, MS: 400}}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	asked := time.Since(started).Seconds()
	rec, err = c.StopRecording(ctx)
	if err != nil {
		t.Fatal(err)
	}
	answered := time.Since(began).Seconds()
	if rec.State != api.RecordingStopped || rec.Error != "" || rec.Frames < 3 || rec.Bytes == 0 {
		t.Fatalf("stopped: %+v", rec)
	}
	if n := ffmpegs(t); n != 0 {
		t.Fatalf("%d ffmpeg processes left after the stop", n)
	}
	path := filepath.Join(t.TempDir(), "rec.webm")
	var buf bytes.Buffer
	if _, err := c.DownloadRecording(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	v := agentdtest.Probe(t, path)
	t.Logf("%+v, %d bytes; %.2fs from the start's answer to the stop, %.2fs from the start's call to the stop's answer", v, buf.Len(), asked, answered)
	if v.Codec != "vp8" || !strings.Contains(v.Format, "webm") || v.Width != 1280 || v.Height != 800 {
		t.Errorf("video %+v, want vp8 in webm, 1280x800", v)
	}
	if v.Frames < 3 || v.Frames != rec.Frames {
		t.Errorf("%d frames decoded, agentd wrote %d", v.Frames, rec.Frames)
	}
	// The last frame is taken at the stop; ffmpeg stamps each frame when
	// it reads it, so a busy ffmpeg can read the first a little after the
	// start's answer.
	if v.Duration < asked-1 || v.Duration > answered+0.5 {
		t.Errorf("duration %.2fs; %.2fs from the start's answer to the stop, %.2fs from the start's call to the stop's answer", v.Duration, asked, answered)
	}
	// The desktop's green, below the xterm.
	r, g, b, _ := agentdtest.LastFrame(t, path).At(1000, 700).RGBA()
	if r>>8 > 40 || g>>8 < 160 || b>>8 > 40 {
		t.Errorf("pixel (1000,700) of the last frame is %d,%d,%d, want the desktop's green #00c000", r>>8, g>>8, b>>8)
	}
	s.closeRecording()
	if _, err := c.DownloadRecording(ctx, &bytes.Buffer{}); !errdefs.IsNotFound(err) {
		t.Fatalf("GET /v1/recording after close: %v, want not found", err)
	}
}

// ffmpegs counts the ffmpeg processes that are children of this test
// process (agentd runs in it).
func ffmpegs(t testing.TB) int {
	out, _ := exec.Command("pgrep", "-P", strconv.Itoa(os.Getpid()), "-x", "ffmpeg").Output()
	return len(strings.Fields(string(out)))
}

// TestRecordingCut: a video that reaches its size bound ends soon after
// (ffmpeg's -fs sees the file grow a cluster, up to a second of video, at
// a time), the file final, and says it was cut.
func TestRecordingCut(t *testing.T) {
	agentdtest.NeedProgram(t, "ffmpeg")
	s, c := start(t)
	// A screen that changes every frame: the xterm's clock.
	sh(t, c, "xterm -geometry 100x40+0+0 -e sh -c 'while :; do date +%T.%N; sleep 0.05; done' >/dev/null 2>&1 &")
	const max = 40_000
	if _, err := s.StartRecording(api.RecordingRequest{FPS: 20, MaxBytes: max}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for s.rec.snapshot().State == api.RecordingRecording && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	rec, err := s.StopRecording()
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Cut || rec.Error != "" || rec.Bytes > 10*max || rec.DurationMS > 10_000 {
		t.Fatalf("recording %+v, want it cut soon after %d bytes", rec, max)
	}
	if n := ffmpegs(t); n != 0 {
		t.Fatalf("%d ffmpeg processes left", n)
	}
	v := agentdtest.Probe(t, s.rec.path)
	if v.Frames < 2 {
		t.Errorf("the cut video: %+v", v)
	}
}
