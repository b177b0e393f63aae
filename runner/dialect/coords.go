package dialect

import (
	"fmt"
	"math"
	"strconv"

	"github.com/deskrun/deskrun/api"
)

// space is the coordinate space a model's coordinates are in.
type space string

const (
	// screenSpace: real screen pixels (OSWorld, OpenAI, hermes).
	screenSpace space = "screen"
	// pixelSpace: pixels of the last screenshot as the model saw it,
	// scaled down from the screen (Anthropic's "pixels" mode).
	pixelSpace space = "pixels"
	// normalizedSpace: 0..100 across the screen (Anthropic's
	// "normalized_0_100" mode).
	normalizedSpace space = "normalized"
)

// Screenshots handed to models that work in pixelSpace are scaled to stay
// within what vision models take without resizing on their side: a long
// edge of at most maxShotEdge pixels and at most maxShotPixels pixels.
const (
	maxShotEdge   = 1568
	maxShotPixels = 1_150_000
)

// env is what compiling a call may depend on.
type env struct {
	screen   api.Screen // the real screen; zero if unknown
	shot     api.Screen // the last screenshot the model saw; zero if none
	leftHeld bool       // the left mouse button is held (left_mouse_down)
	// view is the part of the screen the last screenshot showed (a bound
	// window); nil is the whole screen. Pixel and normalized coordinates
	// refer to it.
	view *api.Rect
	// capture is what a full screenshot taken now shows: the bound
	// window, or nil for the whole screen.
	capture *api.Rect
}

// area is the view's offset and size: the whole screen without a view.
func (e env) area() (x0, y0, w, h int) {
	if v := e.view; v != nil && !v.Empty() {
		return v.X0, v.Y0, v.X1 - v.X0, v.Y1 - v.Y0
	}
	return 0, 0, e.screen.Width, e.screen.Height
}

// shotStep takes a full screenshot as the model's next view: the bound
// window when there is one, scaled to stay within vision models' limits.
func (e env) shotStep(settle bool) Step {
	w, h := e.screen.Width, e.screen.Height
	var region *api.Rect
	if c := e.capture; c != nil {
		r := *c
		region, w, h = &r, r.X1-r.X0, r.Y1-r.Y0
	}
	return Step{Op: opScreenshot, Capture: &Capture{Region: region, MaxWidth: fitWidth(w, h), Remember: true, Settle: settle}}
}

// toScreen converts a model's point in sp to real screen pixels. It is the
// one place coordinates are scaled. Points outside the space are refused
// with a message in the model's terms.
func (e env) toScreen(sp space, x, y float64) (api.Point, error) {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return api.Point{}, fmt.Errorf("coordinate (%s, %s) is not a number", fmtCoord(x), fmtCoord(y))
	}
	w, h := e.screen.Width, e.screen.Height
	x0, y0, vw, vh := e.area()
	switch sp {
	case normalizedSpace:
		if x < 0 || x > 100 || y < 0 || y > 100 {
			return api.Point{}, fmt.Errorf("coordinate (%s, %s) is outside 0..100", fmtCoord(x), fmtCoord(y))
		}
		if vw == 0 || vh == 0 {
			return api.Point{}, fmt.Errorf("the screen size is unknown")
		}
		return api.Point{X: x0 + clamp(math.Round(x*float64(vw)/100), vw), Y: y0 + clamp(math.Round(y*float64(vh)/100), vh)}, nil
	case pixelSpace:
		if e.shot.Width > 0 && e.shot.Height > 0 && vw > 0 && vh > 0 {
			if x < 0 || y < 0 || x >= float64(e.shot.Width) || y >= float64(e.shot.Height) {
				return api.Point{}, fmt.Errorf("coordinate (%s, %s) is outside the screenshot (%dx%d)",
					fmtCoord(x), fmtCoord(y), e.shot.Width, e.shot.Height)
			}
			return api.Point{
				X: x0 + clamp(math.Round(x*float64(vw)/float64(e.shot.Width)), vw),
				Y: y0 + clamp(math.Round(y*float64(vh)/float64(e.shot.Height)), vh),
			}, nil
		}
	}
	if x < 0 || y < 0 || (w > 0 && x >= float64(w)) || (h > 0 && y >= float64(h)) {
		return api.Point{}, fmt.Errorf("coordinate (%s, %s) is outside the screen (%dx%d)", fmtCoord(x), fmtCoord(y), w, h)
	}
	return api.Point{X: int(math.Round(x)), Y: int(math.Round(y))}, nil
}

// fromScreen converts a real screen point to sp, for reporting the cursor.
func (e env) fromScreen(sp space, p api.Point) (x, y float64) {
	x0, y0, w, h := e.area()
	switch {
	case sp == normalizedSpace && w > 0 && h > 0:
		return math.Round(float64(p.X-x0)*1000/float64(w)) / 10, math.Round(float64(p.Y-y0)*1000/float64(h)) / 10
	case sp == pixelSpace && e.shot.Width > 0 && e.shot.Height > 0 && w > 0 && h > 0:
		return math.Round(float64(p.X-x0) * float64(e.shot.Width) / float64(w)),
			math.Round(float64(p.Y-y0) * float64(e.shot.Height) / float64(h))
	}
	return float64(p.X), float64(p.Y)
}

// rectToScreen converts a rectangle x0,y0,x1,y1 in sp (x1,y1 exclusive,
// up to the width and height of the space) to real screen pixels.
func (e env) rectToScreen(sp space, r []float64) (api.Rect, error) {
	if len(r) != 4 {
		return api.Rect{}, fmt.Errorf("region: want 4 numbers (x0, y0, x1, y1), got %d", len(r))
	}
	ox, oy, vw, vh := e.area()
	w, h := float64(vw), float64(vh)
	sw, sh := w, h
	switch {
	case sp == normalizedSpace:
		sw, sh = 100, 100
	case sp == pixelSpace && e.shot.Width > 0 && e.shot.Height > 0:
		sw, sh = float64(e.shot.Width), float64(e.shot.Height)
	}
	x0, y0, x1, y1 := r[0], r[1], r[2], r[3]
	if !(x0 >= 0 && y0 >= 0 && x1 <= sw && y1 <= sh && x0 < x1 && y0 < y1) {
		return api.Rect{}, fmt.Errorf("region (%s, %s, %s, %s) is not a rectangle within 0,0,%s,%s (want x0<x1, y0<y1)",
			fmtCoord(x0), fmtCoord(y0), fmtCoord(x1), fmtCoord(y1), fmtCoord(sw), fmtCoord(sh))
	}
	if w == 0 || h == 0 {
		return api.Rect{}, fmt.Errorf("the screen size is unknown")
	}
	rect := api.Rect{
		X0: int(math.Floor(x0 * w / sw)), Y0: int(math.Floor(y0 * h / sh)),
		X1: int(math.Ceil(x1 * w / sw)), Y1: int(math.Ceil(y1 * h / sh)),
	}
	rect.X1, rect.Y1 = min(rect.X1, vw), min(rect.Y1, vh)
	if rect.Empty() {
		rect.X1, rect.Y1 = max(rect.X1, rect.X0+1), max(rect.Y1, rect.Y0+1)
	}
	rect.X0, rect.X1, rect.Y0, rect.Y1 = rect.X0+ox, rect.X1+ox, rect.Y0+oy, rect.Y1+oy
	return rect, nil
}

// fitWidth is the width to scale a w x h image to so that it stays within
// maxShotEdge and maxShotPixels, or 0 if it already does.
func fitWidth(w, h int) int {
	if w <= 0 || h <= 0 {
		return 0
	}
	scale := math.Min(1, float64(maxShotEdge)/float64(max(w, h)))
	scale = math.Min(scale, math.Sqrt(float64(maxShotPixels)/(float64(w)*float64(h))))
	if scale >= 1 {
		return 0
	}
	return max(1, int(math.Floor(float64(w)*scale)))
}

func clamp(v float64, n int) int {
	if v < 0 {
		return 0
	}
	if n > 0 && v > float64(n-1) {
		return n - 1
	}
	return int(v)
}

func fmtCoord(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
