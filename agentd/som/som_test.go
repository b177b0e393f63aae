package som

import (
	"image"
	"image/color"
	"image/draw"
	"testing"
)

func TestDraw(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	Draw(img, []Mark{{Index: 1, Box: image.Rect(100, 100, 300, 140)}, {Index: 27, Box: image.Rect(1250, 780, 1400, 900)}})
	// the outline of mark 1 is in the first colour
	if c := img.RGBAAt(200, 139); c != palette[0] {
		t.Errorf("bottom edge of mark 1: %v", c)
	}
	// its tag at the top-left corner holds white glyph pixels on the colour
	white, fill := 0, 0
	for y := 100; y < 100+13*Scale(1280); y++ {
		for x := 100; x < 100+7*2+2*2; x++ {
			switch img.RGBAAt(x, y) {
			case color.RGBA{255, 255, 255, 255}:
				white++
			case palette[0]:
				fill++
			}
		}
	}
	if white < 20 || fill < 50 {
		t.Errorf("tag of mark 1: %d white and %d filled pixels", white, fill)
	}
	// a mark at the edge keeps its tag inside the image
	if c := img.RGBAAt(1279, 799); c == (color.RGBA{255, 255, 255, 255}) {
		t.Error("no tag drawn in the corner for the clipped mark")
	}
}
