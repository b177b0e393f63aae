package task

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // formats the image metrics decode: PNG, JPEG and GIF (first frame, as PIL opens it)
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
)

// Image metrics: OSWorld's GIMP and VLC checks. Images are decoded with
// the standard library and held as PIL holds them (a mode and interleaved
// 8-bit channels), so that the arrays the metrics compare have the shape
// and values numpy sees: "L" and "P" are two-dimensional, "RGB" and
// "RGBA" have three or four channels.
//
// SSIM is our own implementation of scikit-image's structural_similarity
// with its defaults: a 7-wide uniform window, no Gaussian weights, the
// sample covariance, K1 0.01 and K2 0.03, a data range of 255 for 8-bit
// data, the mean over the image less three pixels at every border. Like
// OSWorld's calls, a two-dimensional image given channel_axis=-1 is taken
// as columns of one-dimensional signals (each column a channel).

func init() {
	addMetrics(map[string]metricSpec{
		"compare_images":                              {fn: compareImages, needsExpected: true},
		"check_structure_sim":                         {fn: checkStructureSim, needsExpected: true},
		"check_brightness_decrease_and_structure_sim": {fn: checkBrightnessDecrease, needsExpected: true},
		"check_contrast_increase_and_structure_sim":   {fn: checkContrastIncrease, needsExpected: true},
		"check_file_exists_and_structure_sim":         {fn: checkFileExistsAndStructureSim, needsExpected: true},
		"check_palette_and_structure_sim":             {fn: checkPaletteAndStructureSim, needsExpected: true},
		"check_image_mirror":                          {fn: checkImageMirror, needsExpected: true},
		"check_image_size":                            {fn: checkImageSize, needsExpected: true},
		"check_image_file_size":                       {fn: checkImageFileSize, needsExpected: true, checkRules: needKeys("max_size")},
		"check_textbox_on_leftside":                   {fn: checkTextboxOnLeftside},
		"check_green_background":                      {fn: checkGreenBackground, needsExpected: true},
		"compare_image_list":                          {fn: compareImageList, needsExpected: true},
	})
}

// maxImagePixels bounds a decoded image (a 16k x 16k RGBA is 1 GiB).
const maxImagePixels = 64 << 20

// pilImage is an image as PIL holds it.
type pilImage struct {
	mode string // "L", "LA", "P", "RGB" or "RGBA"
	w, h int
	ch   int     // channels per pixel
	pix  []uint8 // h rows of w pixels of ch channels
}

func (m *pilImage) at(x, y, c int) uint8 { return m.pix[(y*m.w+x)*m.ch+c] }

func fromImage(img image.Image) *pilImage {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch src := img.(type) {
	case *image.Gray:
		m := &pilImage{mode: "L", w: w, h: h, ch: 1, pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			copy(m.pix[y*w:(y+1)*w], src.Pix[y*src.Stride:y*src.Stride+w])
		}
		return m
	case *image.Gray16:
		m := &pilImage{mode: "L", w: w, h: h, ch: 1, pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				m.pix[y*w+x] = uint8(src.Gray16At(b.Min.X+x, b.Min.Y+y).Y >> 8)
			}
		}
		return m
	case *image.Paletted:
		// PIL keeps a palette image's indices; the metrics convert it when
		// they need colours.
		m := &pilImage{mode: "P", w: w, h: h, ch: 1, pix: make([]uint8, w*h)}
		for y := 0; y < h; y++ {
			copy(m.pix[y*w:(y+1)*w], src.Pix[y*src.Stride:y*src.Stride+w])
		}
		return m
	case *image.RGBA, *image.YCbCr, *image.RGBA64, *image.CMYK:
		m := &pilImage{mode: "RGB", w: w, h: h, ch: 3, pix: make([]uint8, w*h*3)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				i := (y*w + x) * 3
				m.pix[i], m.pix[i+1], m.pix[i+2] = c.R, c.G, c.B
			}
		}
		return m
	default:
		m := &pilImage{mode: "RGBA", w: w, h: h, ch: 4, pix: make([]uint8, w*h*4)}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				i := (y*w + x) * 4
				m.pix[i], m.pix[i+1], m.pix[i+2], m.pix[i+3] = c.R, c.G, c.B, c.A
			}
		}
		return m
	}
}

// loadImage opens an image file in PIL's layout, with its palette for
// "P" images.
func loadImage(p any) (*pilImage, color.Palette, error) {
	name, ok := p.(string)
	if !ok {
		return nil, nil, fmt.Errorf("want a file path, got %s", typeName(p))
	}
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("%s: file not found", name)
		}
		return nil, nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	cfg, _, err := image.DecodeConfig(br)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: decode image: %w", name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImagePixels {
		return nil, nil, fmt.Errorf("%s: image of %dx%d pixels", name, cfg.Width, cfg.Height)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, nil, err
	}
	img, _, err := image.Decode(bufio.NewReader(f))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: decode image: %w", name, err)
	}
	var pal color.Palette
	if p, ok := img.(*image.Paletted); ok {
		pal = p.Palette
	}
	return fromImage(img), pal, nil
}

// convert returns the image in mode "L", "RGB" or "RGBA" with PIL's
// conversions (ITU-R 601-2 luma in PIL's fixed point for "L").
func (m *pilImage) convert(mode string, pal color.Palette) *pilImage {
	if m.mode == mode {
		return m
	}
	// To RGBA first.
	rgba := make([]uint8, m.w*m.h*4)
	for i := 0; i < m.w*m.h; i++ {
		var r, g, b, a uint8 = 0, 0, 0, 255
		switch m.mode {
		case "L":
			r, g, b = m.pix[i], m.pix[i], m.pix[i]
		case "P":
			if int(m.pix[i]) < len(pal) {
				c := color.NRGBAModel.Convert(pal[m.pix[i]]).(color.NRGBA)
				r, g, b, a = c.R, c.G, c.B, c.A
			}
		case "RGB":
			r, g, b = m.pix[i*3], m.pix[i*3+1], m.pix[i*3+2]
		case "RGBA":
			r, g, b, a = m.pix[i*4], m.pix[i*4+1], m.pix[i*4+2], m.pix[i*4+3]
		}
		rgba[i*4], rgba[i*4+1], rgba[i*4+2], rgba[i*4+3] = r, g, b, a
	}
	out := &pilImage{mode: mode, w: m.w, h: m.h}
	switch mode {
	case "L":
		out.ch = 1
		out.pix = make([]uint8, m.w*m.h)
		for i := range out.pix {
			r, g, b := uint32(rgba[i*4]), uint32(rgba[i*4+1]), uint32(rgba[i*4+2])
			out.pix[i] = uint8((r*19595 + g*38470 + b*7471 + 0x8000) >> 16)
		}
	case "RGB":
		out.ch = 3
		out.pix = make([]uint8, m.w*m.h*3)
		for i := 0; i < m.w*m.h; i++ {
			copy(out.pix[i*3:i*3+3], rgba[i*4:i*4+3])
		}
	default:
		out.mode, out.ch, out.pix = "RGBA", 4, rgba
	}
	return out
}

// ssimImages is structural_similarity(a, b) on two arrays of the same
// shape: h x w x ch, with channel axis -1 when multichannel is set (for
// one channel, numpy's two-dimensional array, whose last axis then holds
// the channels).
func ssimImages(a, b *pilImage, multichannel bool) (float64, error) {
	if a.w != b.w || a.h != b.h || a.ch != b.ch {
		return 0, fmt.Errorf("images of different shapes: %dx%dx%d and %dx%dx%d", a.w, a.h, a.ch, b.w, b.h, b.ch)
	}
	const win = 7
	plane := func(m *pilImage, c int) []float64 {
		out := make([]float64, m.w*m.h)
		for i := range out {
			out[i] = float64(m.pix[i*m.ch+c])
		}
		return out
	}
	if !multichannel && a.ch == 1 {
		if a.w < win || a.h < win {
			return 0, fmt.Errorf("image of %dx%d is smaller than the 7-pixel window", a.w, a.h)
		}
		return ssim2D(plane(a, 0), plane(b, 0), a.w, a.h), nil
	}
	if a.ch == 1 {
		// numpy shape (h, w), channel axis -1: w signals of length h.
		if a.h < win {
			return 0, fmt.Errorf("image of height %d is smaller than the 7-pixel window", a.h)
		}
		pa, pb := plane(a, 0), plane(b, 0)
		col := func(p []float64, x int) []float64 {
			out := make([]float64, a.h)
			for y := range out {
				out[y] = p[y*a.w+x]
			}
			return out
		}
		sum := 0.0
		for x := 0; x < a.w; x++ {
			sum += ssim2D(col(pa, x), col(pb, x), 1, a.h)
		}
		return sum / float64(a.w), nil
	}
	if a.w < win || a.h < win {
		return 0, fmt.Errorf("image of %dx%d is smaller than the 7-pixel window", a.w, a.h)
	}
	sum := 0.0
	for c := 0; c < a.ch; c++ {
		sum += ssim2D(plane(a, c), plane(b, c), a.w, a.h)
	}
	return sum / float64(a.ch), nil
}

// ssim2D is the mean SSIM of two w x h planes (w may be 1: a
// one-dimensional signal along h) over the positions whose whole window
// is inside the image.
func ssim2D(x, y []float64, w, h int) float64 {
	const win, k1, k2, r = 7, 0.01, 0.03, 255.0
	half := win / 2
	winW := win
	if w == 1 {
		winW = 1
	}
	np := float64(win * winW)
	covNorm := np / (np - 1)
	c1, c2 := (k1*r)*(k1*r), (k2*r)*(k2*r)
	// Window sums by summed-area tables of x, y, xx, yy, xy.
	sat := func(f func(i int) float64) []float64 {
		t := make([]float64, (w+1)*(h+1))
		for j := 0; j < h; j++ {
			row := 0.0
			for i := 0; i < w; i++ {
				row += f(j*w + i)
				t[(j+1)*(w+1)+i+1] = t[j*(w+1)+i+1] + row
			}
		}
		return t
	}
	sx := sat(func(i int) float64 { return x[i] })
	sy := sat(func(i int) float64 { return y[i] })
	sxx := sat(func(i int) float64 { return x[i] * x[i] })
	syy := sat(func(i int) float64 { return y[i] * y[i] })
	sxy := sat(func(i int) float64 { return x[i] * y[i] })
	box := func(t []float64, x0, y0, x1, y1 int) float64 {
		return t[y1*(w+1)+x1] - t[y0*(w+1)+x1] - t[y1*(w+1)+x0] + t[y0*(w+1)+x0]
	}
	hx := half
	if w == 1 {
		hx = 0
	}
	total, n := 0.0, 0
	for j := half; j < h-half; j++ {
		for i := hx; i < w-hx; i++ {
			x0, y0, x1, y1 := i-hx, j-half, i+hx+1, j+half+1
			ux := box(sx, x0, y0, x1, y1) / np
			uy := box(sy, x0, y0, x1, y1) / np
			uxx := box(sxx, x0, y0, x1, y1) / np
			uyy := box(syy, x0, y0, x1, y1) / np
			uxy := box(sxy, x0, y0, x1, y1) / np
			vx := covNorm * (uxx - ux*ux)
			vy := covNorm * (uyy - uy*uy)
			vxy := covNorm * (uxy - ux*uy)
			a1, a2 := 2*ux*uy+c1, 2*vxy+c2
			b1, b2 := ux*ux+uy*uy+c1, vx+vy+c2
			total += (a1 * a2) / (b1 * b2)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return total / float64(n)
}

// lanczosResize resizes a one-channel image as PIL's LANCZOS filter does
// (separable, support 3 scaled when shrinking, horizontal then vertical
// pass, each rounded to 8 bits).
func lanczosResize(m *pilImage, w, h int) *pilImage {
	if m.w == w && m.h == h {
		return m
	}
	tmp := resamplePass(m.pix, m.w, m.h, w, true)
	out := resamplePass(tmp, w, m.h, h, false)
	return &pilImage{mode: m.mode, w: w, h: h, ch: 1, pix: out}
}

func lanczos(x float64) float64 {
	sinc := func(x float64) float64 {
		if x == 0 {
			return 1
		}
		x *= math.Pi
		return math.Sin(x) / x
	}
	if x > -3 && x < 3 {
		return sinc(x) * sinc(x/3)
	}
	return 0
}

func resamplePass(src []uint8, w, h, n int, horizontal bool) []uint8 {
	inSize := h
	if horizontal {
		inSize = w
	}
	scale := float64(inSize) / float64(n)
	filterScale := math.Max(scale, 1)
	support := 3 * filterScale
	type span struct {
		start int
		ws    []float64
	}
	spans := make([]span, n)
	for i := range spans {
		center := (float64(i) + 0.5) * scale
		lo := int(math.Max(0, math.Floor(center-support+0.5)))
		hi := int(math.Min(float64(inSize), math.Floor(center+support+0.5)))
		ws := make([]float64, 0, hi-lo)
		total := 0.0
		for k := lo; k < hi; k++ {
			v := lanczos((float64(k) - center + 0.5) / filterScale)
			ws = append(ws, v)
			total += v
		}
		if total != 0 {
			for k := range ws {
				ws[k] /= total
			}
		}
		spans[i] = span{lo, ws}
	}
	clip := func(v float64) uint8 {
		v = math.Round(v)
		if v < 0 {
			return 0
		}
		if v > 255 {
			return 255
		}
		return uint8(v)
	}
	if horizontal {
		out := make([]uint8, n*h)
		for y := 0; y < h; y++ {
			for x, s := range spans {
				v := 0.0
				for k, wt := range s.ws {
					v += wt * float64(src[y*w+s.start+k])
				}
				out[y*n+x] = clip(v)
			}
		}
		return out
	}
	out := make([]uint8, w*n)
	for y, s := range spans {
		for x := 0; x < w; x++ {
			v := 0.0
			for k, wt := range s.ws {
				v += wt * float64(src[(s.start+k)*w+x])
			}
			out[y*w+x] = clip(v)
		}
	}
	return out
}

// compareImages (VLC's compare_images) is the SSIM of the two images in
// grey, both resized with Lanczos to the smaller size (Python's min of
// the (width, height) pairs): a fraction, not a verdict.
func compareImages(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	ga, gb := a.convert("L", pa), b.convert("L", pb)
	w, h := ga.w, ga.h
	if gb.w < w || gb.w == w && gb.h < h {
		w, h = gb.w, gb.h
	}
	ga, gb = lanczosResize(ga, w, h), lanczosResize(gb, w, h)
	s, err := ssimImages(ga, gb, false)
	if err != nil {
		return 0, err.Error(), nil
	}
	return s, fmt.Sprintf("SSIM %.4f", s), nil
}

// structureSame is OSWorld's structure_check_by_ssim: SSIM with the
// channel axis last, at least threshold.
func structureSame(a, b *pilImage, threshold float64) (bool, float64, error) {
	s, err := ssimImages(a, b, true)
	if err != nil {
		return false, 0, err
	}
	return s >= threshold, s, nil
}

func twoImages(result, expected any) (a, b *pilImage, pa, pb color.Palette, detail string) {
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

func checkStructureSim(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, _, _, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ok, s, err := structureSame(a, b, 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("SSIM %.4f under 0.9", s), nil
	}
	return 1, "", nil
}

func checkFileExistsAndStructureSim(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	return checkStructureSim(env, result, expected, opts)
}

// brightness is PIL's mean of the "L" conversion.
func brightness(m *pilImage, pal color.Palette) float64 {
	g := m.convert("L", pal)
	sum := 0.0
	for _, v := range g.pix {
		sum += float64(v)
	}
	return sum / float64(len(g.pix))
}

// normalizeBrightness is OSWorld's point transform of every channel by
// target / brightness, truncated and clipped to 0..255.
func normalizeBrightness(m *pilImage, pal color.Palette, target float64) *pilImage {
	if m.mode == "P" {
		m = m.convert("RGB", pal)
	}
	factor := target / brightness(m, pal)
	out := &pilImage{mode: m.mode, w: m.w, h: m.h, ch: m.ch, pix: make([]uint8, len(m.pix))}
	for i, v := range m.pix {
		out.pix[i] = uint8(math.Min(255, math.Max(0, math.Trunc(float64(v)*factor))))
	}
	return out
}

func checkBrightnessDecrease(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ba, bb := brightness(a, pa), brightness(b, pb)
	na, nb := normalizeBrightness(a, pa, 128), normalizeBrightness(b, pb, 128)
	if na.w != nb.w || na.h != nb.h || na.ch != nb.ch {
		return 0, "images of different shapes", nil
	}
	mse := 0.0
	for i := range na.pix {
		d := float64(float32(na.pix[i])/255) - float64(float32(nb.pix[i])/255)
		mse += d * d
	}
	mse /= float64(len(na.pix))
	switch {
	case !(bb > ba):
		return 0, fmt.Sprintf("brightness %.2f is not below the original's %.2f", ba, bb), nil
	case !(mse < 0.03):
		return 0, fmt.Sprintf("structure differs (MSE %.4f)", mse), nil
	}
	return 1, "", nil
}

// contrast is numpy's standard deviation of all the array's values.
func contrast(m *pilImage) float64 {
	sum := 0.0
	for _, v := range m.pix {
		sum += float64(v)
	}
	mean := sum / float64(len(m.pix))
	ss := 0.0
	for _, v := range m.pix {
		d := float64(v) - mean
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(m.pix)))
}

func checkContrastIncrease(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, _, _, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	ca, cb := contrast(a), contrast(b)
	ok, s, err := structureSame(a, b, 0.65)
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

func checkPaletteAndStructureSim(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, _, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	palette := a.mode == "P"
	ok, s, err := structureSame(a.convert("RGB", pa), b, 0.9)
	if err != nil {
		return 0, err.Error(), nil
	}
	switch {
	case !palette:
		return 0, "the image is not palette-based (mode " + a.mode + ")", nil
	case !ok:
		return 0, fmt.Sprintf("SSIM %.4f under 0.9", s), nil
	}
	return 1, "", nil
}

func checkImageMirror(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, _, _, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	flipped := &pilImage{mode: a.mode, w: a.w, h: a.h, ch: a.ch, pix: make([]uint8, len(a.pix))}
	for y := 0; y < a.h; y++ {
		for x := 0; x < a.w; x++ {
			src := (y*a.w + x) * a.ch
			dst := (y*a.w + a.w - 1 - x) * a.ch
			copy(flipped.pix[dst:dst+a.ch], a.pix[src:src+a.ch])
		}
	}
	ok, s, err := structureSame(flipped, b, 0.99)
	if err != nil {
		return 0, err.Error(), nil
	}
	if !ok {
		return 0, fmt.Sprintf("the mirrored image's SSIM %.4f is under 0.99", s), nil
	}
	return 1, "", nil
}

func checkImageSize(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	}{{"height", m.h}, {"width", m.w}} {
		want, ok := rules[dim.key]
		if !ok || want == nil {
			continue
		}
		if !pyEqual(intNumber(dim.got), want) {
			return 0, fmt.Sprintf("%s %d, want %s", dim.key, dim.got, pyRepr(want)), nil
		}
	}
	return 1, "", nil
}

func checkImageFileSize(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	max, ok := number(rules["max_size"])
	if !ok {
		return 0, "", fmt.Errorf("rules.max_size: want a number, got %s", typeName(rules["max_size"]))
	}
	if !(float64(fi.Size()) < max) {
		return 0, fmt.Sprintf("%d bytes, want under %v", fi.Size(), max), nil
	}
	return 1, "", nil
}

// checkTextboxOnLeftside wants the leftmost dark pixel (grey under 128)
// within the left 5% of the image.
func checkTextboxOnLeftside(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result image", nil
	}
	m, pal, err := loadImage(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	g := m.convert("L", pal)
	left := g.w
	for y := 0; y < g.h; y++ {
		for x := 0; x < g.w; x++ {
			if g.pix[y*g.w+x] < 128 {
				left = min(left, x)
				break
			}
		}
	}
	if !(float64(left) < float64(g.w)*0.05) {
		return 0, fmt.Sprintf("the leftmost dark pixel is at x=%d of %d", left, g.w), nil
	}
	return 1, "", nil
}

// checkGreenBackground wants every pixel that is not black in the
// expected image green (G above R and B) in the result. OSWorld indexes
// the arrays [x, y], so it reads row x, column y; so does this, within
// the min of both shapes, and an index outside an image scores 0 as
// Python's IndexError would.
func checkGreenBackground(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	a, b, pa, pb, detail := twoImages(result, expected)
	if a == nil {
		return 0, detail, nil
	}
	if a.mode == "P" || a.mode == "L" {
		a = a.convert("RGB", pa)
	}
	if b.mode == "P" || b.mode == "L" {
		b = b.convert("RGB", pb)
	}
	for x := 0; x < b.w; x++ {
		for y := 0; y < b.h; y++ {
			// numpy [x, y]: row x, column y.
			row, col := x, y
			if row >= b.h || col >= b.w {
				return 0, "the expected image is not square: index out of range", nil
			}
			if b.at(col, row, 0) == 0 && b.at(col, row, 1) == 0 && b.at(col, row, 2) == 0 {
				continue
			}
			if row >= a.h || col >= a.w {
				return 0, "the result image is smaller than the expected one", nil
			}
			r, g, bl := a.at(col, row, 0), a.at(col, row, 1), a.at(col, row, 2)
			if !(g > r && g > bl) {
				return 0, fmt.Sprintf("pixel at row %d, column %d is not green", row, col), nil
			}
		}
	}
	return 1, "", nil
}

// compareImageList wants each result image pixel-identical to its
// expected one (PIL's ImageChops.difference without a bounding box: same
// mode, compared over the common area). A single path stands for a list
// of one; extra items of the longer list are not compared (Python's zip).
func compareImageList(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	got, ok := result.([]any)
	want, _ := expected.([]any)
	if !ok {
		got, want = []any{result}, []any{expected}
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if s, ok := got[i].(string); got[i] == nil || ok && s == "" {
			return 0, fmt.Sprintf("image %d: no result", i+1), nil
		}
		if s, ok := want[i].(string); want[i] == nil || ok && s == "" {
			return 0, fmt.Sprintf("image %d: no expected image", i+1), nil
		}
		a, _, err := loadImage(got[i])
		if err != nil {
			return 0, fmt.Sprintf("image %d: result: %v", i+1, err), nil
		}
		b, _, err := loadImage(want[i])
		if err != nil {
			return 0, fmt.Sprintf("image %d: expected: %v", i+1, err), nil
		}
		if a.mode != b.mode {
			return 0, fmt.Sprintf("image %d: mode %s, want %s", i+1, a.mode, b.mode), nil
		}
		for y := 0; y < min(a.h, b.h); y++ {
			for x := 0; x < min(a.w, b.w); x++ {
				for c := 0; c < a.ch; c++ {
					if a.at(x, y, c) != b.at(x, y, c) {
						return 0, fmt.Sprintf("image %d: pixel %d,%d differs", i+1, x, y), nil
					}
				}
			}
		}
	}
	return 1, "", nil
}
