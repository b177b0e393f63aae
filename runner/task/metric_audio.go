package task

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Audio metric. compare_audios scores 1/(1+d), d the dynamic-time-warping
// distance between the two recordings' MFCC sequences under cosine
// distance, as OSWorld does with librosa and fastdtw. Decoding is an
// ffmpeg child process (any format ffmpeg reads, downmixed to mono 32-bit
// float PCM at librosa's default 22050 Hz) with a deadline; the features
// are computed here with librosa's defaults: 2048-point Hann STFT, hop
// 512, centred with zero padding, power spectrum, 128 Slaney mel bands,
// dB with an 80 dB floor below the peak, orthonormal DCT-II, 20
// coefficients, each coefficient's track then divided by its largest
// magnitude. The warping is exact where both sequences are short
// (fastdtw approximates it from above) and held to a band of a tenth of
// the longer sequence otherwise.

func init() {
	addMetrics(map[string]metricSpec{
		"compare_audios": {fn: compareAudios, needsExpected: true},
	})
}

const (
	audioRate      = 22050
	audioFFT       = 2048
	audioHop       = 512
	audioMels      = 128
	audioMFCC      = 20
	audioTimeout   = 120 * time.Second
	maxAudioSecs   = 30 * 60
	fullDTWCells   = 50_000_000
	audioBandShare = 10
)

// decodeAudio returns a file's samples, mono at audioRate.
func decodeAudio(ctx context.Context, p any) ([]float64, error) {
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
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", name,
		"-t", fmt.Sprint(maxAudioSecs), "-vn", "-ac", "1", "-ar", fmt.Sprint(audioRate), "-f", "f32le", "-")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("decoding ran past its deadline")
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("ffmpeg is not installed")
		}
		return nil, fmt.Errorf("not audio ffmpeg can decode: %s", truncate(strings.TrimSpace(errb.String()), 200))
	}
	b := out.Bytes()
	if len(b) < 4 {
		return nil, errors.New("no audio samples")
	}
	s := make([]float64, len(b)/4)
	for i := range s {
		s[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return s, nil
}

func compareAudios(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	if s, ok := expected.(string); expected == nil || ok && s == "" {
		return 0, "no expected file", nil
	}
	parent := env.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, audioTimeout)
	defer cancel()
	a, err := decodeAudio(ctx, result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, err := decodeAudio(ctx, expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	fa, fb := mfcc(a), mfcc(b)
	d, err := dtwCosine(ctx, fa, fb)
	if err != nil {
		return 0, fmt.Sprintf("the comparison ran past %s", audioTimeout), nil
	}
	s := 1 / (1 + d)
	if s < 1 {
		return s, fmt.Sprintf("MFCC warping distance %.3f over %d and %d frames", d, len(fa), len(fb)), nil
	}
	return 1, "", nil
}

// mfcc returns the normalised MFCC frames of mono samples at audioRate.
func mfcc(y []float64) [][]float64 {
	pad := audioFFT / 2
	padded := make([]float64, len(y)+2*pad)
	copy(padded[pad:], y)
	frames := 1 + (len(padded)-audioFFT)/audioHop
	window := make([]float64, audioFFT)
	for i := range window { // periodic Hann
		window[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/audioFFT)
	}
	bank := melBank()
	buf := make([]complex128, audioFFT)
	logmel := make([][]float64, frames)
	peak := math.Inf(-1)
	for f := 0; f < frames; f++ {
		for i := range buf {
			buf[i] = complex(padded[f*audioHop+i]*window[i], 0)
		}
		fft(buf)
		mel := make([]float64, audioMels)
		for m, w := range bank {
			var e float64
			for k, wk := range w {
				if wk != 0 {
					p := cmplx.Abs(buf[k])
					e += wk * p * p
				}
			}
			mel[m] = 10 * math.Log10(math.Max(e, 1e-10))
			peak = math.Max(peak, mel[m])
		}
		logmel[f] = mel
	}
	out := make([][]float64, frames)
	for f, mel := range logmel {
		c := make([]float64, audioMFCC)
		for k := range c {
			var s float64
			for n, v := range mel {
				s += math.Max(v, peak-80) * math.Cos(math.Pi*float64(k)*(2*float64(n)+1)/(2*audioMels))
			}
			scale := math.Sqrt(2.0 / audioMels)
			if k == 0 {
				scale = math.Sqrt(1.0 / audioMels)
			}
			c[k] = s * scale
		}
		out[f] = c
	}
	for k := 0; k < audioMFCC; k++ {
		var m float64
		for _, c := range out {
			m = math.Max(m, math.Abs(c[k]))
		}
		if m > 0 {
			for _, c := range out {
				c[k] /= m
			}
		}
	}
	return out
}

// melBank is librosa's default filter bank: Slaney mel scale and area
// normalisation, 0 Hz to Nyquist, over the rFFT bins.
func melBank() [][]float64 {
	hzToMel := func(f float64) float64 {
		if f < 1000 {
			return f * 3 / 200
		}
		return 15 + math.Log(f/1000)/(math.Log(6.4)/27)
	}
	melToHz := func(m float64) float64 {
		if m < 15 {
			return m * 200 / 3
		}
		return 1000 * math.Exp((m-15)*math.Log(6.4)/27)
	}
	bins := audioFFT/2 + 1
	top := hzToMel(audioRate / 2)
	pts := make([]float64, audioMels+2)
	for i := range pts {
		pts[i] = melToHz(top * float64(i) / float64(audioMels+1))
	}
	bank := make([][]float64, audioMels)
	for m := range bank {
		w := make([]float64, bins)
		lo, c, hi := pts[m], pts[m+1], pts[m+2]
		norm := 2 / (hi - lo)
		for k := range w {
			f := float64(k) * audioRate / audioFFT
			v := math.Min((f-lo)/(c-lo), (hi-f)/(hi-c))
			if v > 0 {
				w[k] = v * norm
			}
		}
		bank[m] = w
	}
	return bank
}

// fft is an in-place radix-2 transform; len(a) is a power of two.
func fft(a []complex128) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := 0; k < size/2; k++ {
				u, v := a[start+k], a[start+k+size/2]*wk
				a[start+k], a[start+k+size/2] = u+v, u-v
				wk *= w
			}
		}
	}
}

func cosineDistance(u, v []float64) float64 {
	var uv, uu, vv float64
	for i := range u {
		uv += u[i] * v[i]
		uu += u[i] * u[i]
		vv += v[i] * v[i]
	}
	if uu == 0 || vv == 0 {
		if uu == vv {
			return 0
		}
		return 1
	}
	return 1 - uv/math.Sqrt(uu*vv)
}

// dtwCosine is the warping distance between two frame sequences: exact
// for up to fullDTWCells cells, else within a Sakoe-Chiba band.
func dtwCosine(ctx context.Context, a, b [][]float64) (float64, error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		if n == m {
			return 0, nil
		}
		return math.Inf(1), nil
	}
	band := max(n, m)
	if n*m > fullDTWCells {
		band = max(max(n, m)/audioBandShare, abs(n-m)+1)
	}
	inf := math.Inf(1)
	prev, cur := make([]float64, m+1), make([]float64, m+1)
	for j := range prev {
		prev[j] = inf
	}
	prev[0] = 0
	for i := 1; i <= n; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		for j := range cur {
			cur[j] = inf
		}
		// the band around the diagonal scaled to the lengths
		centre := i * m / n
		lo, hi := max(1, centre-band), min(m, centre+band)
		for j := lo; j <= hi; j++ {
			best := math.Min(prev[j], math.Min(cur[j-1], prev[j-1]))
			cur[j] = best + cosineDistance(a[i-1], b[j-1])
		}
		prev, cur = cur, prev
	}
	return prev[m], nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
