package api

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg" // decode the size of JPEG screenshots
	_ "image/png"  // and of PNG ones
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Screenshot formats.
const (
	FormatPNG  = "png"
	FormatJPEG = "jpeg"
)

// Rect is a region of the screen: x0,y0 inclusive, x1,y1 exclusive.
type Rect struct {
	X0, Y0, X1, Y1 int
}

// String formats r as the region query value "x0,y0,x1,y1".
func (r Rect) String() string { return fmt.Sprintf("%d,%d,%d,%d", r.X0, r.Y0, r.X1, r.Y1) }

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.X1 <= r.X0 || r.Y1 <= r.Y0 }

// ScreenshotOptions are the query parameters of the screenshot calls.
// The zero value asks for a full-screen PNG at the screen's size.
type ScreenshotOptions struct {
	// Format is FormatPNG or FormatJPEG; empty means PNG.
	Format string
	// MaxWidth scales the image down, keeping the aspect ratio, so that it
	// is at most this wide; zero means no limit. It never scales up.
	MaxWidth int
	// Region crops the screen before scaling; nil means the whole screen.
	Region *Rect
	// Quality is the JPEG quality 1..100; zero means 80.
	Quality int
	// SettleMS, when positive, waits before the capture until nothing on
	// the screen has changed for this many milliseconds, or until
	// TimeoutMS has passed (a settled observation).
	SettleMS int
	// TimeoutMS bounds the settle wait; zero means DefaultSettleTimeoutMS.
	TimeoutMS int
}

// Settle waits: the default deadline and the largest values accepted.
const (
	DefaultSettleTimeoutMS = 2_000
	MaxSettleMS            = 10_000
)

// Query encodes o as URL query parameters.
func (o ScreenshotOptions) Query() url.Values {
	q := url.Values{}
	if o.Format != "" {
		q.Set("format", o.Format)
	}
	if o.MaxWidth > 0 {
		q.Set("max_width", strconv.Itoa(o.MaxWidth))
	}
	if o.Region != nil {
		q.Set("region", o.Region.String())
	}
	if o.Quality > 0 {
		q.Set("quality", strconv.Itoa(o.Quality))
	}
	if o.SettleMS > 0 {
		q.Set("settle_ms", strconv.Itoa(o.SettleMS))
	}
	if o.TimeoutMS > 0 {
		q.Set("timeout_ms", strconv.Itoa(o.TimeoutMS))
	}
	return q
}

// ParseScreenshotQuery decodes and checks screenshot query parameters
// against the screen size. Errors are [errdefs.ErrInvalidArgument] naming
// the parameter.
func ParseScreenshotQuery(q url.Values, screen Screen) (ScreenshotOptions, error) {
	var o ScreenshotOptions
	switch f := strings.ToLower(q.Get("format")); f {
	case "", FormatPNG:
		o.Format = FormatPNG
	case FormatJPEG, "jpg":
		o.Format = FormatJPEG
	default:
		return o, invalid("format: unknown format %q (want png or jpeg)", q.Get("format"))
	}
	if s := q.Get("max_width"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			return o, invalid("max_width: want a positive integer, got %q", s)
		}
		o.MaxWidth = n
	}
	if s := q.Get("quality"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return o, invalid("quality: want an integer 1..100, got %q", s)
		}
		o.Quality = n
	}
	if s := q.Get("settle_ms"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > MaxSettleMS {
			return o, invalid("settle_ms: want an integer 0..%d, got %q", MaxSettleMS, s)
		}
		o.SettleMS = n
	}
	if s := q.Get("timeout_ms"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > MaxWaitMS {
			return o, invalid("timeout_ms: want an integer 0..%d, got %q", MaxWaitMS, s)
		}
		if o.SettleMS == 0 && n > 0 {
			return o, invalid("timeout_ms: only with settle_ms")
		}
		o.TimeoutMS = n
	}
	if s := q.Get("region"); s != "" {
		r, err := ParseRegion(s, screen)
		if err != nil {
			return o, err
		}
		o.Region = &r
	}
	return o, nil
}

// ParseRegion parses "x0,y0,x1,y1" and checks that it is a non-empty
// rectangle on the screen.
func ParseRegion(s string, screen Screen) (Rect, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return Rect{}, invalid("region: want x0,y0,x1,y1, got %q", s)
	}
	var v [4]int
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return Rect{}, invalid("region: %q is not an integer", p)
		}
		v[i] = n
	}
	r := Rect{v[0], v[1], v[2], v[3]}
	if r.Empty() {
		return Rect{}, invalid("region: %s is empty (want x0<x1 and y0<y1)", r)
	}
	if r.X0 < 0 || r.Y0 < 0 || (screen.Width > 0 && r.X1 > screen.Width) || (screen.Height > 0 && r.Y1 > screen.Height) {
		return Rect{}, invalid("region: %s is not within the screen 0,0,%d,%d", r, screen.Width, screen.Height)
	}
	return r, nil
}

// Screenshot is an encoded image of the screen or a region of it.
type Screenshot struct {
	Data   []byte
	Format string // FormatPNG or FormatJPEG
	// Width and Height are the image's size.
	Width, Height int
	// Scale is Width divided by the captured region's width (1 when
	// unscaled).
	Scale float64
	// Screen is the real screen size.
	Screen Screen
	// Settled is set when the capture waited for the screen to settle:
	// true when it was quiet for SettleMS, false when the wait timed out.
	Settled *bool
	// SettleMS is how long that wait lasted, in milliseconds.
	SettleMS int
}

// ParseScreenshot reads a screenshot answer: the image bytes and the
// scale and screen headers.
func ParseScreenshot(h http.Header, data []byte) (Screenshot, error) {
	s := Screenshot{Data: data, Format: strings.TrimPrefix(h.Get("Content-Type"), "image/"), Scale: 1}
	if v := h.Get(HeaderScale); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return s, fmt.Errorf("bad %s header %q", HeaderScale, v)
		}
		s.Scale = f
	}
	if v := h.Get(HeaderScreen); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &s.Screen.Width, &s.Screen.Height); err != nil {
			return s, fmt.Errorf("bad %s header %q", HeaderScreen, v)
		}
	}
	if v := h.Get(HeaderSettled); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return s, fmt.Errorf("bad %s header %q", HeaderSettled, v)
		}
		s.Settled = &b
		s.SettleMS, _ = strconv.Atoi(h.Get(HeaderSettleMS))
	}
	w, hgt, err := imageSize(data)
	if err != nil {
		return s, err
	}
	s.Width, s.Height = w, hgt
	return s, nil
}

// imageSize reads the size of an encoded image from its header.
func imageSize(b []byte) (int, int, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, fmt.Errorf("screenshot: %w", err)
	}
	return cfg.Width, cfg.Height, nil
}
