package metric

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/pil"
)

// GIMP metrics beyond image.go's: structure after a resize,
// saturation raised with hue and value kept, a triangle centred, and a
// sharper export (the variance of the 4-neighbour Laplacian, OpenCV's
// default kernel with reflected borders, on the "L" conversion), each on
// runner/task/internal/pil's images.

// checkStructureSimResized implements OSWorld's
// check_structure_sim_resized (desktop_env/evaluators/metrics/gimp.py).
//
// checkStructureSimResized resizes the result to the expected image's
// size and wants SSIM of at least 0.9. OSWorld resizes with PIL's default
// filter; Lanczos here.
func checkStructureSimResized(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ok, s, err := structureSame(pil.Resize(a.Convert("RGB", pa), b.W, b.H), b.Convert("RGB", pb), 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("SSIM %.4f under 0.9 after resizing to %dx%d", s, b.W, b.H), nil
	}
	return 1, "", nil
}

// checkSaturationIncrease implements OSWorld's
// check_saturation_increase_and_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkSaturationIncrease wants the result's mean HSV saturation above
// the expected image's, with its hue and value planes each at SSIM 0.9
// or more.
func checkSaturationIncrease(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ha, hb := a.Convert("RGB", pa).HSVPlanes(), b.Convert("RGB", pb).HSVPlanes()
	sa, sb := pil.Mean(ha[1]), pil.Mean(hb[1])
	if !(sa > sb) {
		return 0, fmt.Sprintf("mean saturation %.2f, not above the original's %.2f", sa, sb), nil
	}
	for i, name := range map[int]string{0: "hue", 2: "value"} {
		s, err := pil.SSIM(ha[i], hb[i], true)
		if err != nil {
			return 0, err.Error(), nil
		}
		if s < 0.9 {
			return 0, fmt.Sprintf("%s SSIM %.4f under 0.9", name, s), nil
		}
	}
	return 1, "", nil
}

// checkTrianglePosition implements OSWorld's check_triangle_position
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkTrianglePosition takes the second rarest colour as the triangle's
// and wants its centroid within 5% of the image's size of the centre on
// both axes.
func checkTrianglePosition(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no image", nil
	}
	m, _, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	if m.Mode != "RGB" && m.Mode != "RGBA" {
		return 0, fmt.Sprintf("result: a %s image, want RGB or RGBA", m.Mode), nil
	}
	key := func(i int) string { return string(m.Pix[i*m.Ch : (i+1)*m.Ch]) }
	counts := map[string]int{}
	for i := 0; i < m.W*m.H; i++ {
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
	for i := 0; i < m.W*m.H; i++ {
		if key(i) == tri {
			sy += float64(i / m.W)
			sx += float64(i % m.W)
		}
	}
	n := float64(counts[tri])
	cy, cx := sy/n, sx/n
	if math.Abs(cy-float64(m.H)/2) < 0.05*float64(m.H) && math.Abs(cx-float64(m.W)/2) < 0.05*float64(m.W) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("the triangle's centre is at (%.1f, %.1f), the image's at (%.1f, %.1f)", cx, cy, float64(m.W)/2, float64(m.H)/2), nil
}

// checkSharper implements OSWorld's check_sharper
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkSharper wants the result sharper than the expected (original)
// image.
func checkSharper(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	va, vb := pil.LaplacianVariance(a.Convert("L", pa)), pil.LaplacianVariance(b.Convert("L", pb))
	if !(va > vb) {
		return 0, fmt.Sprintf("Laplacian variance %.1f, not above the original's %.1f", va, vb), nil
	}
	return 1, "", nil
}

func checkSSIMThresholdOptions(opts map[string]any) error {
	for k, v := range opts {
		if k != "ssim_threshold" {
			return fmt.Errorf("%s: check_structure_sim_with_threshold takes ssim_threshold only", k)
		}
		if _, ok := py.Number(v); !ok {
			return fmt.Errorf("ssim_threshold: want a number, got %s", py.TypeName(v))
		}
	}
	return nil
}

// checkStructureSimWithThreshold implements OSWorld's
// check_structure_sim_with_threshold (desktop_env/evaluators/metrics/gimp.py):
// the result resized (Lanczos) to the expected image's size where they
// differ, both as RGB, SSIM at least ssim_threshold (default 0.85).
func checkStructureSimWithThreshold(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	threshold := 0.85
	if v, ok := opts["ssim_threshold"]; ok {
		threshold, _ = py.Number(v)
	}
	if a.W != b.W || a.H != b.H {
		a = pil.Resize(a, b.W, b.H)
	}
	ok, s, err := structureSame(a.Convert("RGB", pa), b.Convert("RGB", pb), threshold)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("SSIM %.4f under %g", s, threshold), nil
	}
	return 1, fmt.Sprintf("SSIM %.4f", s), nil
}

// checkThresholdOption accepts check_brightness_decrease_and_structure_sim's
// one keyword, threshold (a number).
func checkThresholdOption(opts map[string]any) error {
	for k, v := range opts {
		if k != "threshold" {
			return fmt.Errorf("%s: only threshold is taken", k)
		}
		if _, ok := py.Number(v); !ok {
			return fmt.Errorf("threshold: want a number, got %s", py.TypeName(v))
		}
	}
	return nil
}
