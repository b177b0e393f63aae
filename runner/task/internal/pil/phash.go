package pil

import (
	"math"
	"slices"
)

// PHash32 is imagehash's phash of a 32x32 grey frame (1024 bytes, row by
// row): the frame's 2-D DCT-II, its 8x8 lowest frequencies against their
// median, one bit each.
func PHash32(px []byte) uint64 {
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
