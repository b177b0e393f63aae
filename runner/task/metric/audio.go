package metric

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/dsp"
)

// Audio metric. compare_audios scores 1/(1+d), d the dynamic-time-warping
// distance between the two recordings' MFCC sequences under cosine
// distance, as OSWorld does with librosa and fastdtw; the features and the
// warping are runner/task/internal/dsp's. Decoding is an ffmpeg child
// process (any format ffmpeg reads, downmixed to mono 32-bit float PCM at
// librosa's default 22050 Hz) with a deadline.

const (
	audioTimeout = 120 * time.Second
	maxAudioSecs = 30 * 60
)

// decodeAudio returns a file's samples, mono at dsp.Rate.
func decodeAudio(ctx context.Context, p any) ([]float64, error) {
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
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", name,
		"-t", fmt.Sprint(maxAudioSecs), "-vn", "-ac", "1", "-ar", fmt.Sprint(dsp.Rate), "-f", "f32le", "-")
	b, err := runFFmpeg(ctx, cmd, "audio")
	if err != nil {
		return nil, err
	}
	if len(b) < 4 {
		return nil, errors.New("no audio samples")
	}
	s := make([]float64, len(b)/4)
	for i := range s {
		s[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return s, nil
}

// compareAudios implements OSWorld's compare_audios
// (desktop_env/evaluators/metrics/vlc.py).
func compareAudios(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	if s, ok := expected.(string); expected == nil || ok && s == "" {
		return 0, "no expected file", nil
	}
	parent := ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, audioTimeout)
	defer cancel()
	// librosa.load's failures are caught: two files it cannot load (or
	// empty) are alike, one is 0; a path of the wrong type raises
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return 0, "ffmpeg is not installed", nil
	}
	for _, v := range []any{result, expected} {
		if _, ok := v.(string); !ok {
			return 0, fmt.Sprintf("want a file path, got %s", py.TypeName(v)), nil
		}
	}
	a, errA := decodeAudio(ctx, result)
	b, errB := decodeAudio(ctx, expected)
	if err := ctx.Err(); err != nil {
		return 0, fmt.Sprintf("decoding ran past %s", audioTimeout), nil
	}
	badA, badB := errA != nil || len(a) == 0, errB != nil || len(b) == 0
	switch {
	case badA && badB:
		return 1, "neither file decodes (OSWorld takes two unreadable files as alike)", nil
	case badA:
		return 0, fmt.Sprintf("result: %v", errOrEmpty(errA)), nil
	case badB:
		return 0, fmt.Sprintf("expected: %v", errOrEmpty(errB)), nil
	}
	fa, fb := dsp.MFCC(a), dsp.MFCC(b)
	d, err := dsp.DTWCosine(ctx, fa, fb)
	if err != nil {
		return 0, fmt.Sprintf("the comparison ran past %s", audioTimeout), nil
	}
	s := 1 / (1 + d)
	if s < 1 {
		return s, fmt.Sprintf("MFCC warping distance %.3f over %d and %d frames", d, len(fa), len(fb)), nil
	}
	return 1, "", nil
}

// runFFmpeg runs an ffmpeg command that decodes to its standard output and
// returns what it wrote; what names the kind of input in the error when
// ffmpeg cannot decode it ("audio", "a video").
func runFFmpeg(ctx context.Context, cmd *exec.Cmd, what string) ([]byte, error) {
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
		return nil, fmt.Errorf("not %s ffmpeg can decode: %s", what, py.Truncate(strings.TrimSpace(errb.String()), 200))
	}
	return out.Bytes(), nil
}

func errOrEmpty(err error) error {
	if err == nil {
		return errors.New("no samples")
	}
	return err
}
