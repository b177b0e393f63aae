package pil

import (
	"bufio"
	"bytes"
	"image"
	"os"
	"testing"
)

// imgDir holds the image metrics' fixtures, which these tests share.
const imgDir = "../../metric/testdata/metrics/"

// TestSSIMReference holds values computed by scikit-image 0.19 on the
// image metrics' fixtures (make_images.py there prints them when skimage
// is installed).
func TestSSIMReference(t *testing.T) {
	load := func(p string) *Image {
		m, _, err := Open(imgDir + p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	scene, other := load("scene.png"), load("other.png")
	got, err := SSIM(scene, other, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rgb channel_axis=-1: %.6f", got)
	g1, g2 := scene.Convert("L", nil), other.Convert("L", nil)
	s2, _ := SSIM(g1, g2, false)
	s1, _ := SSIM(g1, g2, true)
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
		m := FromImage(img)
		if m.W >= 7 && m.H >= 7 {
			SSIM(m, m, true)
		}
	})
}
