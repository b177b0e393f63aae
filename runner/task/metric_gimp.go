package task

import (
	"fmt"
	"math"
	"sort"
)

// GIMP metrics beyond metric_image.go's: structure after a resize,
// saturation raised with hue and value kept, a triangle centred, and a
// sharper export (the variance of the 4-neighbour Laplacian, OpenCV's
// default kernel with reflected borders, on the "L" conversion).

func init() {
	addMetrics(map[string]metricSpec{
		"check_structure_sim_resized":                 {fn: checkStructureSimResized, needsExpected: true},
		"check_saturation_increase_and_structure_sim": {fn: checkSaturationIncrease, needsExpected: true},
		"check_triangle_position":                     {fn: checkTrianglePosition},
		"check_sharper":                               {fn: checkSharper, needsExpected: true},
	})
}

// resizeChannels resizes every channel with the Lanczos filter.
func resizeChannels(m *pilImage, w, h int) *pilImage {
	if m.w == w && m.h == h {
		return m
	}
	out := &pilImage{mode: m.mode, w: w, h: h, ch: m.ch, pix: make([]uint8, w*h*m.ch)}
	for c := 0; c < m.ch; c++ {
		plane := &pilImage{mode: "L", w: m.w, h: m.h, ch: 1, pix: make([]uint8, m.w*m.h)}
		for i := range plane.pix {
			plane.pix[i] = m.pix[i*m.ch+c]
		}
		r := lanczosResize(plane, w, h)
		for i, v := range r.pix {
			out.pix[i*m.ch+c] = v
		}
	}
	return out
}

// checkStructureSimResized resizes the result to the expected image's
// size and wants SSIM of at least 0.9. OSWorld resizes with PIL's default
// filter; Lanczos here.
func checkStructureSimResized(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, _, _, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ok, s, err := structureSame(resizeChannels(a, b.w, b.h), b, 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("SSIM %.4f under 0.9 after resizing to %dx%d", s, b.w, b.h), nil
	}
	return 1, "", nil
}

// hsvPlanes converts to PIL's HSV (each channel 0-255, truncated) and
// returns the three planes.
func hsvPlanes(m *pilImage) [3]*pilImage {
	var out [3]*pilImage
	for i := range out {
		out[i] = &pilImage{mode: "L", w: m.w, h: m.h, ch: 1, pix: make([]uint8, m.w*m.h)}
	}
	clip := func(f float64) uint8 { return uint8(max(0, min(255, int(f)))) }
	for i := 0; i < m.w*m.h; i++ {
		r, g, b := float64(m.pix[i*3]), float64(m.pix[i*3+1]), float64(m.pix[i*3+2])
		maxc, minc := math.Max(r, math.Max(g, b)), math.Min(r, math.Min(g, b))
		var h, s float64
		if maxc != minc {
			cr := maxc - minc
			s = cr / maxc
			rc, gc, bc := (maxc-r)/cr, (maxc-g)/cr, (maxc-b)/cr
			switch {
			case r == maxc:
				h = bc - gc
			case g == maxc:
				h = 2 + rc - bc
			default:
				h = 4 + gc - rc
			}
			h = math.Mod(h/6+1, 1)
		}
		out[0].pix[i], out[1].pix[i], out[2].pix[i] = clip(h*255), clip(s*255), uint8(maxc)
	}
	return out
}

func meanPix(m *pilImage) float64 {
	var s float64
	for _, v := range m.pix {
		s += float64(v)
	}
	return s / float64(len(m.pix))
}

// checkSaturationIncrease wants the result's mean HSV saturation above
// the expected image's, with its hue and value planes each at SSIM 0.9
// or more.
func checkSaturationIncrease(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ha, hb := hsvPlanes(a.convert("RGB", pa)), hsvPlanes(b.convert("RGB", pb))
	sa, sb := meanPix(ha[1]), meanPix(hb[1])
	if !(sa > sb) {
		return 0, fmt.Sprintf("mean saturation %.2f, not above the original's %.2f", sa, sb), nil
	}
	for i, name := range map[int]string{0: "hue", 2: "value"} {
		s, err := ssimImages(ha[i], hb[i], true)
		if err != nil {
			return 0, err.Error(), nil
		}
		if s < 0.9 {
			return 0, fmt.Sprintf("%s SSIM %.4f under 0.9", name, s), nil
		}
	}
	return 1, "", nil
}

// checkTrianglePosition takes the second rarest colour as the triangle's
// and wants its centroid within 5% of the image's size of the centre on
// both axes.
func checkTrianglePosition(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no image", nil
	}
	m, _, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if m.mode != "RGB" && m.mode != "RGBA" {
		return 0, fmt.Sprintf("result: a %s image, want RGB or RGBA", m.mode), nil
	}
	key := func(i int) string { return string(m.pix[i*m.ch : (i+1)*m.ch]) }
	counts := map[string]int{}
	for i := 0; i < m.w*m.h; i++ {
		counts[key(i)]++
	}
	if len(counts) < 2 {
		return 0, "the image has a single colour", nil
	}
	colors := make([]string, 0, len(counts))
	for c := range counts {
		colors = append(colors, c)
	}
	sort.Strings(colors) // numpy's unique order, then a stable sort by count
	sort.SliceStable(colors, func(i, j int) bool { return counts[colors[i]] < counts[colors[j]] })
	tri := colors[1]
	var sy, sx float64
	for i := 0; i < m.w*m.h; i++ {
		if key(i) == tri {
			sy += float64(i / m.w)
			sx += float64(i % m.w)
		}
	}
	n := float64(counts[tri])
	cy, cx := sy/n, sx/n
	if math.Abs(cy-float64(m.h)/2) < 0.05*float64(m.h) && math.Abs(cx-float64(m.w)/2) < 0.05*float64(m.w) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("the triangle's centre is at (%.1f, %.1f), the image's at (%.1f, %.1f)", cx, cy, float64(m.w)/2, float64(m.h)/2), nil
}

// laplacianVariance is the variance of the 4-neighbour Laplacian of the
// "L" plane, borders reflected without repeating the edge.
func laplacianVariance(g *pilImage) float64 {
	refl := func(i, n int) int {
		if n == 1 {
			return 0
		}
		if i < 0 {
			return -i
		}
		if i >= n {
			return 2*n - 2 - i
		}
		return i
	}
	at := func(x, y int) float64 { return float64(g.pix[refl(y, g.h)*g.w+refl(x, g.w)]) }
	var s, ss float64
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			v := at(x-1, y) + at(x+1, y) + at(x, y-1) + at(x, y+1) - 4*at(x, y)
			s += v
			ss += v * v
		}
	}
	n := float64(g.w * g.h)
	mean := s / n
	return ss/n - mean*mean
}

// checkSharper wants the result sharper than the expected (original)
// image.
func checkSharper(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	va, vb := laplacianVariance(a.convert("L", pa)), laplacianVariance(b.convert("L", pb))
	if !(va > vb) {
		return 0, fmt.Sprintf("Laplacian variance %.1f, not above the original's %.1f", va, vb), nil
	}
	return 1, "", nil
}
