package metric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"time"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/pil"
)

// Video metric. compare_videos compares the first 100 frames of two
// videos pairwise by perceptual hash (imagehash's phash: the 32x32 grey
// frame's 2-D DCT-II, its 8x8 lowest frequencies against their median;
// pil.PHash32);
// a pair more than 5 bits apart is a mismatch, more than 5 mismatches
// score 0, and so does one video ending before the other within those
// frames. Frames come from an ffmpeg child process (scaled to 32x32 grey
// by ffmpeg's Lanczos filter) with a deadline.

const (
	videoTimeout   = 120 * time.Second
	videoMaxFrames = 100
	videoThreshold = 5
)

func checkVideoOptions(opts map[string]any) error {
	for k, v := range opts {
		switch k {
		case "max_frames_to_check", "threshold":
			if f, ok := py.Number(v); !ok || f < 0 || f != math.Trunc(f) {
				return fmt.Errorf("%s: want a whole number, got %s", k, py.Truncate(py.Repr(v), 50))
			}
		default:
			return fmt.Errorf("%s: not an option of compare_videos (max_frames_to_check, threshold)", k)
		}
	}
	return nil
}

// videoHashes returns the phash of each of the first n frames.
func videoHashes(ctx context.Context, p any, n int) ([]uint64, error) {
	name, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	if _, err := os.Stat(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", name, "-an",
		"-frames:v", fmt.Sprint(n), "-vf", "scale=32:32:flags=lanczos,format=gray", "-f", "rawvideo", "-")
	raw, err := runFFmpeg(ctx, cmd, "a video")
	if err != nil {
		return nil, err
	}
	if len(raw) < 1024 {
		return nil, errors.New("no video frames")
	}
	hashes := make([]uint64, 0, len(raw)/1024)
	for i := 0; i+1024 <= len(raw); i += 1024 {
		hashes = append(hashes, pil.PHash32(raw[i:i+1024]))
	}
	return hashes, nil
}

// compareVideos implements OSWorld's compare_videos
// (desktop_env/evaluators/metrics/vlc.py).
func compareVideos(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	// cv2.VideoCapture opens nothing for None, "", a missing file or a
	// camera index: its first read fails, and two videos whose first
	// reads fail are alike (1); a dict or a list raises
	for _, v := range []any{result, expected} {
		switch v.(type) {
		case map[string]any, []any:
			return 0, fmt.Sprintf("want a file path, got %s", py.TypeName(v)), nil
		}
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return 0, "ffmpeg is not installed", nil
	}
	frames, threshold := videoMaxFrames, videoThreshold
	if f, ok := py.Number(opts["max_frames_to_check"]); ok {
		frames = int(f)
	}
	if f, ok := py.Number(opts["threshold"]); ok {
		threshold = int(f)
	}
	parent := ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, videoTimeout)
	defer cancel()
	a, errA := videoHashes(ctx, result, frames)
	b, errB := videoHashes(ctx, expected, frames)
	if ctx.Err() != nil {
		return 0, fmt.Sprintf("decoding ran past %s", videoTimeout), nil
	}
	switch {
	case errA != nil && errB != nil:
		return 1, "neither video can be read (OSWorld takes them as alike)", nil
	case errA != nil:
		return 0, "result: " + errA.Error(), nil
	case errB != nil:
		return 0, "expected: " + errB.Error(), nil
	}
	mismatches := 0
	for i := 0; i < frames; i++ {
		if i >= len(a) || i >= len(b) {
			if len(a) != len(b) {
				return 0, fmt.Sprintf("the videos end at different frames (%d and %d)", len(a), len(b)), nil
			}
			break
		}
		if bits.OnesCount64(a[i]^b[i]) > threshold {
			mismatches++
			if mismatches > threshold {
				return 0, fmt.Sprintf("more than %d of the first %d frames differ", threshold, i+1), nil
			}
		}
	}
	return 1, "", nil
}
