package dsp

import (
	"context"
	"math"
	"math/cmplx"
)

// Rate is the sample rate MFCC takes its samples at (librosa's default).
const Rate = 22050

const (
	nFFT         = 2048
	hop          = 512
	nMels        = 128
	nMFCC        = 20
	fullDTWCells = 50_000_000
	bandShare    = 10
)

// MFCC returns the normalised MFCC frames of mono samples at Rate.
func MFCC(y []float64) [][]float64 {
	pad := nFFT / 2
	padded := make([]float64, len(y)+2*pad)
	copy(padded[pad:], y)
	frames := 1 + (len(padded)-nFFT)/hop
	window := make([]float64, nFFT)
	for i := range window { // periodic Hann
		window[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/nFFT)
	}
	bank := melBank()
	buf := make([]complex128, nFFT)
	logmel := make([][]float64, frames)
	peak := math.Inf(-1)
	for f := 0; f < frames; f++ {
		for i := range buf {
			buf[i] = complex(padded[f*hop+i]*window[i], 0)
		}
		fft(buf)
		mel := make([]float64, nMels)
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
		c := make([]float64, nMFCC)
		for k := range c {
			var s float64
			for n, v := range mel {
				s += math.Max(v, peak-80) * math.Cos(math.Pi*float64(k)*(2*float64(n)+1)/(2*nMels))
			}
			scale := math.Sqrt(2.0 / nMels)
			if k == 0 {
				scale = math.Sqrt(1.0 / nMels)
			}
			c[k] = s * scale
		}
		out[f] = c
	}
	for k := 0; k < nMFCC; k++ {
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
	bins := nFFT/2 + 1
	top := hzToMel(Rate / 2)
	pts := make([]float64, nMels+2)
	for i := range pts {
		pts[i] = melToHz(top * float64(i) / float64(nMels+1))
	}
	bank := make([][]float64, nMels)
	for m := range bank {
		w := make([]float64, bins)
		lo, c, hi := pts[m], pts[m+1], pts[m+2]
		norm := 2 / (hi - lo)
		for k := range w {
			f := float64(k) * Rate / nFFT
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

// cosineDistance is 1 less the cosine of the angle between u and v; 0
// between two zero vectors, 1 between a zero vector and another.
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

// DTWCosine is the warping distance between two frame sequences: exact
// for up to fullDTWCells cells, else within a Sakoe-Chiba band.
func DTWCosine(ctx context.Context, a, b [][]float64) (float64, error) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		if n == m {
			return 0, nil
		}
		return math.Inf(1), nil
	}
	band := max(n, m)
	if n*m > fullDTWCells {
		band = max(max(n, m)/bandShare, abs(n-m)+1)
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
