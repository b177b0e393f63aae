package metric

import (
	"context"
	"fmt"
	"image/color"
	"os"

	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/pil"
)

// Image metrics: OSWorld's GIMP and VLC checks, on images decoded and
// compared as PIL and scikit-image do (runner/task/internal/pil).

// loadImage opens the image file at path p (a getter's value) in PIL's
// layout, with its palette for "P" images.
func loadImage(p any) (*pil.Image, color.Palette, error) {
	name, ok := p.(string)
	if !ok {
		return nil, nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	return pil.Open(name)
}

// compareImages implements OSWorld's compare_images
// (desktop_env/evaluators/metrics/vlc.py).
//
// compareImages (VLC's compare_images) is the SSIM of the two images in
// grey, both resized with Lanczos to the smaller size (Python's min of
// the (width, height) pairs): a fraction, not a verdict.
func compareImages(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result image", nil
	}
	a, pa, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	b, pb, err := loadImage(expected)
	if err != nil {
		return 0, "expected: " + err.Error(), nil
	}
	ga, gb := a.Convert("L", pa), b.Convert("L", pb)
	w, h := ga.W, ga.H
	if gb.W < w || gb.W == w && gb.H < h {
		w, h = gb.W, gb.H
	}
	ga, gb = pil.ResizeLanczos(ga, w, h), pil.ResizeLanczos(gb, w, h)
	s, err := pil.SSIM(ga, gb, false)
	if err != nil {
		return 0, err.Error(), nil
	}
	// reference_base_result: OSWorld rescales the SSIM above that base to
	// 0..1, and scores 0 below base + 0.01.
	if base, ok := opts["reference_base_result"]; ok && base != nil {
		b, ok := py.Number(base)
		if !ok {
			return 0, "", fmt.Errorf("options.reference_base_result: want a number, got %s", py.TypeName(base))
		}
		if s >= b+0.01 {
			return (s - b) / (1 - b), fmt.Sprintf("SSIM %.4f over base %g", s, b), nil
		}
		return 0, fmt.Sprintf("SSIM %.4f under base %g + 0.01", s, b), nil
	}
	return s, fmt.Sprintf("SSIM %.4f", s), nil
}

// structureSame is OSWorld's structure_check_by_ssim: SSIM with the
// channel axis last, at least threshold.
func structureSame(a, b *pil.Image, threshold float64) (bool, float64, error) {
	// OSWorld refuses images under 7 pixels a side, and compares them as
	// RGB (the callers convert).
	if a.W < 7 || a.H < 7 || b.W < 7 || b.H < 7 {
		return false, 0, nil
	}
	s, err := pil.SSIM(a, b, true)
	if err != nil {
		return false, 0, err
	}
	return s >= threshold, s, nil
}

func twoImages(result, expected any) (a, b *pil.Image, pa, pb color.Palette, detail string) {
	if result == nil || expected == nil {
		return nil, nil, nil, nil, "no image"
	}
	a, pa, err := loadImage(result)
	if err != nil {
		return nil, nil, nil, nil, "result: " + err.Error()
	}
	b, pb, err = loadImage(expected)
	if err != nil {
		return nil, nil, nil, nil, "expected: " + err.Error()
	}
	return a, b, pa, pb, ""
}

// checkStructureSim implements OSWorld's check_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
func checkStructureSim(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ok, s, err := structureSame(a.Convert("RGB", pa), b.Convert("RGB", pb), 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("SSIM %.4f under 0.9", s), nil
	}
	return 1, "", nil
}

// checkFileExistsAndStructureSim implements OSWorld's
// check_file_exists_and_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
func checkFileExistsAndStructureSim(ctx context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	return checkStructureSim(ctx, result, expected, opts)
}

// checkBrightnessDecrease implements OSWorld's
// check_brightness_decrease_and_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
func checkBrightnessDecrease(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	threshold := 0.03
	if v, ok := opts["threshold"]; ok {
		t, ok := py.Number(v)
		if !ok {
			return 0, "", fmt.Errorf("options.threshold: want a number, got %s", py.TypeName(v))
		}
		threshold = t
	}
	ba, bb := pil.Brightness(a, pa), pil.Brightness(b, pb)
	na, nb := pil.NormalizeBrightness(a, pa, 128), pil.NormalizeBrightness(b, pb, 128)
	// OSWorld (structure_check_by_mse) resizes the result (Lanczos) to the
	// original's size, then takes both as RGB: an alpha channel, scaled
	// by the brightness normalisation with the others, is dropped.
	if na.W != nb.W || na.H != nb.H {
		na = pil.Resize(na, nb.W, nb.H)
	}
	if na.Mode != "RGB" {
		na = na.Convert("RGB", nil)
	}
	if nb.Mode != "RGB" {
		nb = nb.Convert("RGB", nil)
	}
	mse := 0.0
	for i := range na.Pix {
		d := float64(float32(na.Pix[i])/255) - float64(float32(nb.Pix[i])/255)
		mse += d * d
	}
	mse /= float64(len(na.Pix))
	switch {
	case !(bb > ba):
		return 0, fmt.Sprintf("brightness %.2f is not below the original's %.2f", ba, bb), nil
	case !(mse < threshold):
		return 0, fmt.Sprintf("structure differs (MSE %.4f)", mse), nil
	}
	return 1, "", nil
}

// checkContrastIncrease implements OSWorld's
// check_contrast_increase_and_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
func checkContrastIncrease(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ca, cb := pil.Contrast(a), pil.Contrast(b)
	ok, s, err := structureSame(a.Convert("RGB", pa), b.Convert("RGB", pb), 0.65)
	if err != nil {
		return 0, err.Error(), nil
	}
	switch {
	case !(cb < ca):
		return 0, fmt.Sprintf("contrast %.2f is not above the original's %.2f", ca, cb), nil
	case !ok:
		return 0, fmt.Sprintf("SSIM %.4f under 0.65", s), nil
	}
	return 1, "", nil
}

// checkPaletteAndStructureSim implements OSWorld's
// check_palette_and_structure_sim
// (desktop_env/evaluators/metrics/gimp.py).
func checkPaletteAndStructureSim(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	palette := a.Mode == "P"
	ok, s, err := structureSame(a.Convert("RGB", pa), b.Convert("RGB", pb), 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	switch {
	case !palette:
		return 0, "the image is not palette-based (mode " + a.Mode + ")", nil
	case !ok:
		return 0, fmt.Sprintf("SSIM %.4f under 0.9", s), nil
	}
	return 1, "", nil
}

// checkImageMirror implements OSWorld's check_image_mirror
// (desktop_env/evaluators/metrics/gimp.py).
func checkImageMirror(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	flipped := a.Mirror()
	ok, s, err := structureSame(flipped.Convert("RGB", pa), b.Convert("RGB", pb), 0.99)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("the mirrored image's SSIM %.4f is under 0.99", s), nil
	}
	return 1, "", nil
}

// checkImageSize implements OSWorld's check_image_size
// (desktop_env/evaluators/metrics/gimp.py).
func checkImageSize(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result image", nil
	}
	m, _, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	for _, dim := range []struct {
		key string
		got int
	}{{"height", m.H}, {"width", m.W}} {
		want, ok := rules[dim.key]
		if !ok || want == nil {
			continue
		}
		if !py.Equal(py.IntNumber(dim.got), want) {
			return 0, fmt.Sprintf("%s %d, want %s", dim.key, dim.got, py.Repr(want)), nil
		}
	}
	return 1, "", nil
}

// checkImageFileSize implements OSWorld's check_image_file_size
// (desktop_env/evaluators/metrics/gimp.py).
func checkImageFileSize(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	name, ok := result.(string)
	if !ok {
		return 0, "no result file", nil
	}
	fi, err := os.Stat(name)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	max, ok := py.Number(rules["max_size"])
	if !ok {
		return 0, "", fmt.Errorf("rules.max_size: want a number, got %s", py.TypeName(rules["max_size"]))
	}
	if !(float64(fi.Size()) < max) {
		return 0, fmt.Sprintf("%d bytes, want under %v", fi.Size(), max), nil
	}
	return 1, "", nil
}

// checkTextboxOnLeftside implements OSWorld's check_textbox_on_leftside
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkTextboxOnLeftside wants the leftmost dark pixel (grey under 128)
// within the left 5% of the image.
func checkTextboxOnLeftside(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result image", nil
	}
	m, pal, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	g := m.Convert("L", pal)
	left := g.W
	for y := 0; y < g.H; y++ {
		for x := 0; x < g.W; x++ {
			if g.Pix[y*g.W+x] < 128 {
				left = min(left, x)
				break
			}
		}
	}
	if !(float64(left) < float64(g.W)*0.05) {
		return 0, fmt.Sprintf("the leftmost dark pixel is at x=%d of %d", left, g.W), nil
	}
	return 1, "", nil
}

// checkGreenBackground implements OSWorld's check_green_background
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkGreenBackground wants every pixel that is not black in the
// expected image green (G above R and B) in the result. OSWorld indexes
// the arrays [x, y], so it reads row x, column y; so does this, within
// the min of both shapes, and an index outside an image scores 0 as
// Python's IndexError would.
func checkGreenBackground(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	if a.Mode == "P" || a.Mode == "L" {
		a = a.Convert("RGB", pa)
	}
	if b.Mode == "P" || b.Mode == "L" {
		b = b.Convert("RGB", pb)
	}
	for x := 0; x < b.W; x++ {
		for y := 0; y < b.H; y++ {
			// numpy [x, y]: row x, column y.
			row, col := x, y
			if row >= b.H || col >= b.W {
				return 0, "the expected image is not square: index out of range", nil
			}
			if b.At(col, row, 0) == 0 && b.At(col, row, 1) == 0 && b.At(col, row, 2) == 0 {
				continue
			}
			if row >= a.H || col >= a.W {
				return 0, "the result image is smaller than the expected one", nil
			}
			r, g, bl := a.At(col, row, 0), a.At(col, row, 1), a.At(col, row, 2)
			if !(g > r && g > bl) {
				return 0, fmt.Sprintf("pixel at row %d, column %d is not green", row, col), nil
			}
		}
	}
	return 1, "", nil
}

// compareImageList implements OSWorld's compare_image_list
// (desktop_env/evaluators/metrics/gimp.py).
//
// compareImageList wants each result image pixel-identical to its
// expected one (PIL's ImageChops.difference without a bounding box: same
// mode, compared over the common area). A single path stands for a list
// of one; extra items of the longer list are not compared (Python's zip).
func compareImageList(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	got, ok := result.([]any)
	want, wantList := expected.([]any)
	if !ok {
		got, want = []any{result}, []any{expected}
	} else if !wantList {
		// zip(list, expected): a string is zipped by its characters
		// (each a path Image.open fails on), anything else raises
		if s, isStr := expected.(string); !isStr || s != "" {
			return 0, fmt.Sprintf("a list of results against %s (OSWorld's zip fails)", py.TypeName(expected)), nil
		}
		return 1, "", nil
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if s, ok := got[i].(string); got[i] == nil || ok && s == "" {
			return 0, fmt.Sprintf("image %d: no result", i+1), nil
		}
		if s, ok := want[i].(string); want[i] == nil || ok && s == "" {
			return 0, fmt.Sprintf("image %d: no expected image", i+1), nil
		}
		a, palA, err := loadImage(got[i])
		if err != nil {
			return 0, fmt.Sprintf("image %d: result: %v", i+1, err), nil
		}
		b, _, err := loadImage(want[i])
		if err != nil {
			return 0, fmt.Sprintf("image %d: expected: %v", i+1, err), nil
		}
		if a.Mode != b.Mode {
			// OSWorld converts the result to the expected image's mode
			// (Pillow's convert: a palette looked up, alpha dropped)
			if b.Mode != "L" && b.Mode != "RGB" && b.Mode != "RGBA" {
				return 0, fmt.Sprintf("image %d: mode %s, want %s", i+1, a.Mode, b.Mode), nil
			}
			a = a.Convert(b.Mode, palA)
		}
		for y := 0; y < min(a.H, b.H); y++ {
			for x := 0; x < min(a.W, b.W); x++ {
				for c := 0; c < a.Ch; c++ {
					if a.At(x, y, c) != b.At(x, y, c) {
						return 0, fmt.Sprintf("image %d: pixel %d,%d differs", i+1, x, y), nil
					}
				}
			}
		}
	}
	return 1, "", nil
}
