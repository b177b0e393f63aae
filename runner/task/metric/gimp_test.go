package metric

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func savePNG(t *testing.T, name string, img image.Image) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return p
}

// mapScene rewrites every pixel of the scene fixture.
func mapScene(t *testing.T, name string, fn func(img *image.NRGBA, x, y int) color.NRGBA) string {
	f, err := os.Open("testdata/metrics/scene.png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := src.Bounds()
	in := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			in.Set(x, y, src.At(x, y))
		}
	}
	out := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.SetNRGBA(x, y, fn(in, x, y))
		}
	}
	return savePNG(t, name, out)
}

// triangle draws a red triangle centred at (cx, cy) on white, with a blue
// dot in a corner as the rarest colour.
func triangle(t *testing.T, name string, cx, cy int) string {
	img := image.NewNRGBA(image.Rect(0, 0, 100, 80))
	for y := 0; y < 80; y++ {
		for x := 0; x < 100; x++ {
			c := color.NRGBA{255, 255, 255, 255}
			dy := y - (cy - 10)
			if dy >= 0 && dy < 20 && x-cx >= -dy/2 && x-cx <= dy/2 {
				c = color.NRGBA{255, 0, 0, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	img.SetNRGBA(0, 0, color.NRGBA{0, 0, 255, 255})
	return savePNG(t, name, img)
}

func TestGimpMetrics(t *testing.T) {
	const dir = "testdata/metrics/"
	scene, small, other := dir+"scene.png", dir+"scene-small.png", dir+"other.png"
	missing := filepath.Join(t.TempDir(), "none.png")
	corrupt := writeTemp(t, "bad.png", "\x89PNG nothing")
	clamp := func(v float64) uint8 { return uint8(max(0, min(255, v))) }
	saturated := mapScene(t, "sat.png", func(img *image.NRGBA, x, y int) color.NRGBA {
		c := img.NRGBAAt(x, y)
		mx := float64(max(c.R, c.G, c.B))
		f := func(v uint8) uint8 { return clamp(mx - 1.3*(mx-float64(v))) }
		return color.NRGBA{f(c.R), f(c.G), f(c.B), 255}
	})
	blurred := mapScene(t, "blur.png", func(img *image.NRGBA, x, y int) color.NRGBA {
		var r, g, b, n float64
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				if p := (image.Point{x + dx, y + dy}); p.In(img.Bounds()) {
					c := img.NRGBAAt(p.X, p.Y)
					r, g, b, n = r+float64(c.R), g+float64(c.G), b+float64(c.B), n+1
				}
			}
		}
		return color.NRGBA{clamp(r / n), clamp(g / n), clamp(b / n), 255}
	})
	runSettingsCases(t, []settingsCase{
		{"resized back", "check_structure_sim_resized", small, scene, 1},
		{"same size", "check_structure_sim_resized", scene, scene, 1},
		{"other picture", "check_structure_sim_resized", other, scene, 0},
		{"missing", "check_structure_sim_resized", missing, scene, 0},
		{"corrupt", "check_structure_sim_resized", corrupt, scene, 0},

		{"more saturated", "check_saturation_increase_and_structure_sim", saturated, scene, 1},
		{"unchanged", "check_saturation_increase_and_structure_sim", scene, scene, 0},
		{"less saturated", "check_saturation_increase_and_structure_sim", scene, saturated, 0},
		{"missing", "check_saturation_increase_and_structure_sim", missing, scene, 0},

		{"centred", "check_triangle_position", triangle(t, "mid.png", 50, 40), nil, 1},
		{"in a corner", "check_triangle_position", triangle(t, "corner.png", 20, 15), nil, 0},
		{"missing", "check_triangle_position", missing, nil, 0},
		{"corrupt", "check_triangle_position", corrupt, nil, 0},

		{"sharper", "check_sharper", scene, blurred, 1},
		{"blurred", "check_sharper", blurred, scene, 0},
		{"unchanged", "check_sharper", scene, scene, 0},
		{"missing", "check_sharper", missing, scene, 0},
	})
}
