// Package som draws set-of-marks overlays: every element's box outlined and
// its number written in a filled tag at its top-left corner, so a model can
// name an element by the number it sees.
//
// Drawing uses the standard image packages and the 7x13 bitmap face of
// golang.org/x/image/font/basicfont (the Go project's own fixed font, no
// font files needed), scaled by whole pixels so digits stay crisp; the
// scale grows with the image so numbers remain readable after a model's
// downscaling of a 1280x800 or larger screen to about half.
package som

import (
	"image"
	"image/color"
	"image/draw"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Mark is one element to draw: its number and box in image pixels.
type Mark struct {
	Index int
	Box   image.Rectangle
}

// palette of outline colours, chosen to contrast with light and dark
// interfaces; consecutive marks differ.
var palette = []color.RGBA{
	{230, 25, 75, 255}, {0, 130, 200, 255}, {60, 160, 60, 255}, {245, 130, 48, 255},
	{145, 30, 180, 255}, {0, 128, 128, 255}, {170, 110, 40, 255}, {128, 0, 0, 255},
}

// Scale is the glyph magnification for an image width: 2 up to 1920
// pixels, 3 above.
func Scale(width int) int {
	if width > 1920 {
		return 3
	}
	return 2
}

// Draw outlines every mark on img and writes its number; img is changed in
// place.
func Draw(img draw.Image, marks []Mark) {
	b := img.Bounds()
	sc := Scale(b.Dx())
	thick := 2
	for i, m := range marks {
		c := palette[i%len(palette)]
		r := m.Box.Intersect(b)
		if r.Empty() {
			continue
		}
		outline(img, r, thick, c)
	}
	// tags after all outlines, so no outline crosses a number
	for i, m := range marks {
		c := palette[i%len(palette)]
		r := m.Box.Intersect(b)
		if r.Empty() {
			continue
		}
		tag(img, strconv.Itoa(m.Index), r.Min, sc, c)
	}
}

func outline(img draw.Image, r image.Rectangle, t int, c color.RGBA) {
	u := image.NewUniform(c)
	t = min(t, r.Dx()/2+1, r.Dy()/2+1)
	draw.Draw(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+t), u, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(r.Min.X, r.Max.Y-t, r.Max.X, r.Max.Y), u, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+t, r.Max.Y), u, image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(r.Max.X-t, r.Min.Y, r.Max.X, r.Max.Y), u, image.Point{}, draw.Src)
}

// tag writes s in white on a box of colour c whose top-left is at p (kept
// inside the image).
func tag(img draw.Image, s string, p image.Point, sc int, c color.RGBA) {
	face := basicfont.Face7x13
	adv := font.MeasureString(face, s).Ceil()
	h := face.Height
	small := image.NewAlpha(image.Rect(0, 0, adv, h))
	d := font.Drawer{Dst: small, Src: image.Opaque, Face: face, Dot: fixed.P(0, face.Ascent)}
	d.DrawString(s)
	pad := sc
	w, hh := adv*sc+2*pad, h*sc
	b := img.Bounds()
	x0 := max(b.Min.X, min(p.X, b.Max.X-w))
	y0 := max(b.Min.Y, min(p.Y, b.Max.Y-hh))
	box := image.Rect(x0, y0, x0+w, y0+hh)
	draw.Draw(img, box, image.NewUniform(c), image.Point{}, draw.Src)
	white := color.RGBA{255, 255, 255, 255}
	for y := 0; y < h; y++ {
		for x := 0; x < adv; x++ {
			if small.AlphaAt(x, y).A < 128 {
				continue
			}
			for dy := 0; dy < sc; dy++ {
				for dx := 0; dx < sc; dx++ {
					px, py := x0+pad+x*sc+dx, y0+y*sc+dy
					if image.Pt(px, py).In(b) {
						img.Set(px, py, white)
					}
				}
			}
		}
	}
}
