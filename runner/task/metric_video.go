package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Video metric. compare_videos compares the first 100 frames of two
// videos pairwise by perceptual hash (imagehash's phash: the 32x32 grey
// frame's 2-D DCT-II, its 8x8 lowest frequencies against their median);
// a pair more than 5 bits apart is a mismatch, more than 5 mismatches
// score 0, and so does one video ending before the other within those
// frames. Frames come from an ffmpeg child process (scaled to 32x32 grey
// by ffmpeg's Lanczos filter) with a deadline.

func init() {
	addMetrics(map[string]metricSpec{
		"compare_videos": {fn: compareVideos, needsExpected: true, checkOptions: checkVideoOptions},
	})
}

const (
	videoTimeout   = 120 * time.Second
	videoMaxFrames = 100
	videoThreshold = 5
)

func checkVideoOptions(opts map[string]any) error {
	for k, v := range opts {
		switch k {
		case "max_frames_to_check", "threshold":
			if f, ok := number(v); !ok || f < 0 || f != math.Trunc(f) {
				return fmt.Errorf("%s: want a whole number, got %s", k, truncate(pyRepr(v), 50))
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
		return nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	if _, err := os.Stat(name); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", name, "-an",
		"-frames:v", fmt.Sprint(n), "-vf", "scale=32:32:flags=lanczos,format=gray", "-f", "rawvideo", "-")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, errors.New("decoding ran past its deadline")
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("ffmpeg is not installed")
		}
		return nil, fmt.Errorf("not a video ffmpeg can decode: %s", truncate(strings.TrimSpace(errb.String()), 200))
	}
	raw := out.Bytes()
	if len(raw) < 1024 {
		return nil, errors.New("no video frames")
	}
	hashes := make([]uint64, 0, len(raw)/1024)
	for i := 0; i+1024 <= len(raw); i += 1024 {
		hashes = append(hashes, phash32(raw[i:i+1024]))
	}
	return hashes, nil
}

// phash32 hashes a 32x32 grey frame.
func phash32(px []byte) uint64 {
	var cos [8][32]float64
	for k := range cos {
		for n := range cos[k] {
			cos[k][n] = math.Cos(math.Pi * float64(k) * float64(2*n+1) / 64)
		}
	}
	var rows [32][8]float64 // DCT along x for the 8 lowest frequencies
	for y := 0; y < 32; y++ {
		for k := 0; k < 8; k++ {
			var s float64
			for x := 0; x < 32; x++ {
				s += float64(px[y*32+x]) * cos[k][x]
			}
			rows[y][k] = s
		}
	}
	low := make([]float64, 64)
	for ky := 0; ky < 8; ky++ {
		for kx := 0; kx < 8; kx++ {
			var s float64
			for y := 0; y < 32; y++ {
				s += rows[y][kx] * cos[ky][y]
			}
			low[ky*8+kx] = s
		}
	}
	sorted := slices.Clone(low)
	slices.Sort(sorted)
	med := (sorted[31] + sorted[32]) / 2
	var h uint64
	for i, v := range low {
		if v > med {
			h |= 1 << i
		}
	}
	return h
}

func compareVideos(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	frames, threshold := videoMaxFrames, videoThreshold
	if f, ok := number(opts["max_frames_to_check"]); ok {
		frames = int(f)
	}
	if f, ok := number(opts["threshold"]); ok {
		threshold = int(f)
	}
	parent := env.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, videoTimeout)
	defer cancel()
	a, err := videoHashes(ctx, result, frames)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, err := videoHashes(ctx, expected, frames)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
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
