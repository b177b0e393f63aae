package task

import (
	"bufio"
	"bytes"
	"image"
	"os"
	"path/filepath"
	"testing"
)

const imgDir = "testdata/metrics/"

func TestImageMetrics(t *testing.T) {
	scene := imgDir + "scene.png"
	missing := filepath.Join(t.TempDir(), "none.png")
	corrupt := writeTemp(t, "corrupt.png", "\x89PNG\r\n\x1a\nnot really")
	for _, tt := range []struct {
		name             string
		metric           string
		result, expected any
		want             float64
	}{
		{"identical", "compare_images", scene, scene, 1},
		{"other picture", "compare_images", imgDir + "other.png", scene, -1},
		{"grey copy", "compare_images", imgDir + "scene-grey.png", scene, 1},
		{"missing", "compare_images", missing, scene, 0},
		{"corrupt", "compare_images", corrupt, scene, 0},
		{"no result", "compare_images", nil, scene, 0},

		{"identical", "check_structure_sim", scene, scene, 1},
		{"other picture", "check_structure_sim", imgDir + "other.png", scene, 0},
		{"mirrored", "check_structure_sim", imgDir + "scene-mirrored.png", scene, 0},
		{"other size", "check_structure_sim", imgDir + "scene-small.png", scene, 0},
		{"missing", "check_structure_sim", missing, scene, 0},

		{"darker", "check_brightness_decrease_and_structure_sim", imgDir + "scene-darker.png", scene, 1},
		{"same brightness", "check_brightness_decrease_and_structure_sim", scene, scene, 0},
		{"darker but other picture", "check_brightness_decrease_and_structure_sim", imgDir + "scene-darker.png", imgDir + "other.png", 0},

		{"more contrast", "check_contrast_increase_and_structure_sim", imgDir + "scene-contrast.png", scene, 1},
		{"same contrast", "check_contrast_increase_and_structure_sim", scene, scene, 0},

		{"exported", "check_file_exists_and_structure_sim", scene, scene, 1},
		{"not exported", "check_file_exists_and_structure_sim", missing, scene, 0},

		{"palette", "check_palette_and_structure_sim", imgDir + "scene-palette.png", scene, 1},
		{"not palette", "check_palette_and_structure_sim", scene, scene, 0},

		{"mirrored", "check_image_mirror", scene, imgDir + "scene-mirrored.png", 1},
		{"not mirrored", "check_image_mirror", scene, scene, 0},

		{"size", "check_image_size", scene, js(t, `{"height": 48, "width": 64}`), 1},
		{"width only", "check_image_size", scene, js(t, `{"width": 64}`), 1},
		{"wrong height", "check_image_size", scene, js(t, `{"height": 128, "width": 64}`), 0},

		{"small file", "check_image_file_size", scene, js(t, `{"max_size": 500000}`), 1},
		{"too big", "check_image_file_size", scene, js(t, `{"max_size": 100}`), 0},
		{"missing", "check_image_file_size", missing, js(t, `{"max_size": 100}`), 0},

		{"text on the left", "check_textbox_on_leftside", imgDir + "text-left.png", nil, 1},
		{"text in the middle", "check_textbox_on_leftside", imgDir + "text-middle.png", nil, 0},

		{"green", "check_green_background", imgDir + "green-yes.png", imgDir + "green-mask.png", 1},
		{"not green", "check_green_background", imgDir + "green-no.png", imgDir + "green-mask.png", 0},

		{"same image", "compare_image_list", scene, scene, 1},
		{"same list", "compare_image_list", []any{scene, imgDir + "other.png"}, []any{scene, imgDir + "other.png"}, 1},
		{"one differs", "compare_image_list", []any{scene, scene}, []any{scene, imgDir + "other.png"}, 0},
		{"darker", "compare_image_list", imgDir + "scene-darker.png", scene, 0},
		{"other mode", "compare_image_list", imgDir + "scene-grey.png", scene, 0},
		{"missing", "compare_image_list", []any{missing}, []any{scene}, 0},
	} {
		t.Run(tt.metric+"/"+tt.name, func(t *testing.T) {
			s, detail, err := metricSpecs[tt.metric].fn(testEnv(t), tt.result, tt.expected, nil)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == -1:
				if s <= 0 || s >= 0.9 {
					t.Errorf("score %v (%s), want a fraction well under 1", s, detail)
				}
			case tt.want == 1 && tt.metric == "compare_images":
				if s < 0.999 {
					t.Errorf("score %v (%s), want 1", s, detail)
				}
			case s != tt.want:
				t.Errorf("score %v (%s), want %v", s, detail, tt.want)
			}
		})
	}
}

// TestSSIMReference holds values computed by scikit-image 0.19 on the
// fixtures (make_images.py prints them when skimage is installed).
func TestSSIMReference(t *testing.T) {
	load := func(p string) *pilImage {
		m, _, err := loadImage(imgDir + p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	scene, other := load("scene.png"), load("other.png")
	got, err := ssimImages(scene, other, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rgb channel_axis=-1: %.6f", got)
	g1, g2 := scene.convert("L", nil), other.convert("L", nil)
	s2, _ := ssimImages(g1, g2, false)
	s1, _ := ssimImages(g1, g2, true)
	t.Logf("L 2-D: %.6f; L channel_axis=-1: %.6f", s2, s1)
	for _, c := range ssimReference {
		var v float64
		switch c.kind {
		case "rgb":
			v = got
		case "L2":
			v = s2
		case "L1":
			v = s1
		}
		if d := v - c.want; d > 1e-6 || d < -1e-6 {
			t.Errorf("%s: %.6f, scikit-image %.6f", c.kind, v, c.want)
		}
	}
}

func FuzzDecodeImage(f *testing.F) {
	for _, p := range []string{"scene.png", "scene.jpg", "scene-palette.png"} {
		data, err := os.ReadFile(imgDir + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1<<20 {
			return
		}
		img, _, err := image.Decode(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		m := fromImage(img)
		if m.w >= 7 && m.h >= 7 {
			ssimImages(m, m, true)
		}
	})
}

func BenchmarkCompareImages(b *testing.B) {
	for b.Loop() {
		compareImages(testEnv(b), imgDir+"scene.png", imgDir+"scene-small.png", nil)
	}
}

func BenchmarkCheckStructureSim(b *testing.B) {
	for b.Loop() {
		checkStructureSim(testEnv(b), imgDir+"scene.png", imgDir+"scene-mirrored.png", nil)
	}
}

// ssimReference: scikit-image's structural_similarity of scene.png and
// other.png as RGB with channel_axis=-1 (rgb), and of their "L"
// conversions as 2-D arrays (L2) and with channel_axis=-1 (L1).
var ssimReference = []struct {
	kind string
	want float64
}{
	{"rgb", 0.24458503329856787},
	{"L2", 0.25640623288032066},
	{"L1", 0.48949220961224915},
}

// TestCompareImagesResizedReference: OSWorld's compare_images of scene.png
// and scene-small.png (PIL's Lanczos to 48x36, then SSIM) is 0.999502 with
// Pillow 9.4 and scikit-image 0.19; our resampler is within 1e-3 of it.
func TestCompareImagesResizedReference(t *testing.T) {
	s, detail, _ := compareImages(testEnv(t), imgDir+"scene.png", imgDir+"scene-small.png", nil)
	if d := s - 0.9995015487053887; d > 1e-3 || d < -1e-3 {
		t.Errorf("score %v (%s), want 0.999502 within 1e-3", s, detail)
	}
	t.Logf("score %.6f", s)
}
