package rfb_test

import (
	"context"
	"image"
	"image/color"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/deskrun/deskrun/agentd/rfb/rfbtest"
	"github.com/deskrun/deskrun/x11/keysym"
)

// fake is a Display whose screen the test paints and whose input it records.
type fake struct {
	mu     sync.Mutex
	screen *image.RGBA
	events []string
}

func newFake(w, h int, c color.RGBA) *fake {
	f := &fake{screen: image.NewRGBA(image.Rect(0, 0, w, h))}
	f.fill(f.screen.Rect, c)
	return f
}

func (f *fake) fill(r image.Rectangle, c color.RGBA) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			f.screen.SetRGBA(x, y, c)
		}
	}
}

func (f *fake) Size() (int, int) { return f.screen.Rect.Dx(), f.screen.Rect.Dy() }
func (f *fake) CaptureInto(reuse *image.RGBA, _ image.Rectangle) (*image.RGBA, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if reuse == nil || reuse.Rect != f.screen.Rect {
		reuse = image.NewRGBA(f.screen.Rect)
	}
	copy(reuse.Pix, f.screen.Pix)
	return reuse, nil
}
func (f *fake) log(e string) error {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
	return nil
}
func (f *fake) Move(x, y int) error        { return f.log("move " + itoa(x) + "," + itoa(y)) }
func (f *fake) ButtonDown(n int) error     { return f.log("down " + itoa(n)) }
func (f *fake) ButtonUp(n int) error       { return f.log("up " + itoa(n)) }
func (f *fake) KeyDown(s keysym.Sym) error { return f.log("keydown " + keysym.Name(s)) }
func (f *fake) KeyUp(s keysym.Sym) error   { return f.log("keyup " + keysym.Name(s)) }
func itoa(n int) string {
	return string(rune('0'+n/100%10)) + string(rune('0'+n/10%10)) + string(rune('0'+n%10))
}
func (f *fake) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.events...)
}

func serve(t *testing.T, f *fake, opt rfb.Options) (*rfbtest.Client, chan error) {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- rfb.Serve(t.Context(), a, f, opt) }()
	c, err := rfbtest.Handshake(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return c, done
}

func TestUpdatesSendChangedTiles(t *testing.T) {
	blue := color.RGBA{0x10, 0x20, 0xc0, 255}
	f := newFake(300, 200, blue)
	c, _ := serve(t, f, rfb.Options{Poll: 5 * time.Millisecond})
	if c.Frame.Rect.Dx() != 300 || c.Frame.Rect.Dy() != 200 {
		t.Fatalf("ServerInit size %v", c.Frame.Rect)
	}
	if err := c.Request(false); err != nil {
		t.Fatal(err)
	}
	u, err := c.Read()
	if err != nil || len(u.Rects) != 1 || u.Rects[0] != c.Frame.Rect {
		t.Fatalf("full update %+v %v", u.Rects, err)
	}
	if got := c.Frame.RGBAAt(150, 100); got != blue {
		t.Fatalf("pixel %v, want %v", got, blue)
	}
	// A change in one tile: the incremental update carries that tile only.
	red := color.RGBA{0xff, 0, 0, 255}
	f.fill(image.Rect(70, 70, 75, 75), red)
	c.Request(true)
	u, err = c.Read()
	if err != nil || len(u.Rects) != 1 || u.Rects[0] != image.Rect(64, 64, 128, 128) {
		t.Fatalf("incremental update %+v %v", u.Rects, err)
	}
	if c.Frame.RGBAAt(72, 72) != red || c.Frame.RGBAAt(80, 80) != blue {
		t.Fatal("frame after the incremental update is wrong")
	}
	// Nothing changed: the request waits until something does.
	c.Request(true)
	time.AfterFunc(100*time.Millisecond, func() { f.fill(image.Rect(290, 190, 300, 200), red) })
	start := time.Now()
	u, err = c.Read()
	if err != nil || time.Since(start) < 90*time.Millisecond || len(u.Rects) != 1 || u.Rects[0] != image.Rect(256, 128, 300, 200) {
		t.Fatalf("deferred update %+v after %v: %v", u.Rects, time.Since(start), err)
	}
}

func TestChangedMerges(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 256, 256))
	b := image.NewRGBA(a.Rect)
	for y := 10; y < 150; y++ {
		for x := 10; x < 150; x++ {
			b.SetRGBA(x, y, color.RGBA{1, 2, 3, 255})
		}
	}
	got := rfb.Changed(a, b, a.Rect)
	if len(got) != 1 || got[0] != image.Rect(0, 0, 192, 192) {
		t.Fatalf("Changed = %v", got)
	}
}

func TestInputAndViewOnly(t *testing.T) {
	f := newFake(300, 200, color.RGBA{A: 255})
	c, done := serve(t, f, rfb.Options{})
	c.Pointer(0, 10, 20)
	c.Pointer(1, 10, 20)
	c.Pointer(0, 11, 20)
	c.Pointer(8, 11, 20) // wheel up
	c.Pointer(0, 11, 20)
	c.Key(true, 0x61)
	c.Key(true, 0xffe1) // Shift held when the viewer leaves
	c.Key(false, 0x61)
	c.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	want := []string{"move 010,020", "move 010,020", "down 001", "move 011,020", "up 001", "move 011,020", "down 004", "move 011,020", "up 004",
		"keydown a", "keydown Shift_L", "keyup a", "keyup Shift_L"}
	if got := f.got(); !equal(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}

	f = newFake(300, 200, color.RGBA{A: 255})
	c, done = serve(t, f, rfb.Options{ViewOnly: true})
	c.Pointer(1, 10, 20)
	c.Key(true, 0x61)
	c.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if got := f.got(); len(got) != 0 {
		t.Fatalf("view-only session injected %q", got)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		f := newFake(100, 100, color.RGBA{A: 255})
		a, b := net.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- rfb.Serve(ctx, a, f, rfb.Options{}) }()
		c, err := rfbtest.Handshake(b)
		if err != nil {
			t.Fatal(err)
		}
		c.Request(true) // waits on a screen that never changes
		c.Read()
		c.Request(true)
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Serve after cancel: %v", err)
		}
		b.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines before, %d after", before, n)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
