package pil

import (
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestLanczosAsPillow resizes random gray images (enlarged, shrunk, one
// side only) and compares every sample with what Pillow 9.4's
// Image.resize(size, LANCZOS) made of them (testdata/lanczos: inN.png,
// outN.png, cases.json of [N, width, height], written by Pillow).
func TestLanczosAsPillow(t *testing.T) {
	dir := filepath.Join("testdata", "lanczos")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases [][3]int
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	load := func(name string) *image.Gray { return loadPNG(t, name).(*image.Gray) }
	for _, c := range cases {
		in, want := load(fmt.Sprintf("in%d.png", c[0])), load(fmt.Sprintf("out%d.png", c[0]))
		got := ResizeLanczos(&Image{Mode: "L", W: in.Rect.Dx(), H: in.Rect.Dy(), Ch: 1, Pix: in.Pix}, c[1], c[2])
		diff := 0
		for i := range got.Pix {
			if got.Pix[i] != want.Pix[i] {
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%dx%d to %dx%d: %d of %d samples differ from Pillow's", in.Rect.Dx(), in.Rect.Dy(), c[1], c[2], diff, len(got.Pix))
		}
	}
}

// TestResizeRGBAAsPillow: an RGBA image with transparent, opaque and
// partly transparent pixels, resized as Pillow 9.4 resized it
// (testdata/lanczos/rgba_in.png to rgba_out.png, 41x29 to 60x17): its
// colours premultiplied by alpha around the resampling.
func TestResizeRGBAAsPillow(t *testing.T) {
	load := func(name string) *image.NRGBA { return loadPNG(t, name).(*image.NRGBA) }
	in, want := load("rgba_in.png"), load("rgba_out.png")
	got := Resize(&Image{Mode: "RGBA", W: in.Rect.Dx(), H: in.Rect.Dy(), Ch: 4, Pix: in.Pix}, want.Rect.Dx(), want.Rect.Dy())
	diff := 0
	for i := range got.Pix {
		if got.Pix[i] != want.Pix[i] {
			diff++
		}
	}
	if diff > 0 {
		t.Errorf("%d of %d samples differ from Pillow's", diff, len(got.Pix))
	}
}

// loadPNG decodes testdata/lanczos/name.
func loadPNG(t *testing.T, name string) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "lanczos", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
