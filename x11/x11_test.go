package x11

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/x11/keysym"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

func TestDialErrors(t *testing.T) {
	if _, err := Dial(":9999"); err == nil {
		t.Fatal("Dial of a display with no server: want an error")
	}
	t.Setenv("DISPLAY", "")
	if _, err := Dial(""); err == nil || !strings.Contains(err.Error(), "DISPLAY") {
		t.Fatalf("Dial with no display: got %v, want an error naming DISPLAY", err)
	}
}

func TestCaptureKnownPixels(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	if w, h := c.Size(); w != 640 || h != 480 {
		t.Fatalf("Size = %dx%d, want 640x480", w, h)
	}
	if !c.SHM() {
		t.Error("MIT-SHM is not in use against a local Xvfb")
	}
	run(t, d, "xsetroot", "-solid", "#123456")
	want := color.RGBA{0x12, 0x34, 0x56, 0xff}
	for _, shm := range []bool{true, false} {
		t.Run(fmt.Sprintf("shm=%v", shm), func(t *testing.T) {
			if !shm {
				c.capMu.Lock()
				s := c.shm
				c.shm = nil
				c.capMu.Unlock()
				defer func() { c.capMu.Lock(); c.shm = s; c.capMu.Unlock() }()
			}
			img, err := c.Capture(image.Rectangle{})
			if err != nil {
				t.Fatal(err)
			}
			if img.Bounds() != image.Rect(0, 0, 640, 480) {
				t.Fatalf("bounds %v", img.Bounds())
			}
			for _, p := range []image.Point{{0, 0}, {639, 479}, {320, 240}} {
				if got := img.RGBAAt(p.X, p.Y); got != want {
					t.Errorf("pixel %v = %v, want %v", p, got, want)
				}
			}
			reg, err := c.Capture(image.Rect(600, 400, 700, 500)) // clipped to the screen
			if err != nil {
				t.Fatal(err)
			}
			if reg.Bounds().Dx() != 40 || reg.Bounds().Dy() != 80 || reg.RGBAAt(39, 79) != want {
				t.Errorf("region: bounds %v pixel %v", reg.Bounds(), reg.RGBAAt(39, 79))
			}
		})
	}
	if _, err := c.Capture(image.Rect(700, 500, 800, 600)); err == nil {
		t.Error("capture of a region off the screen: want an error")
	}
}

// TestCaptureIntoReuses captures into the memory of an earlier capture
// when it is large enough, and into new memory when it is not.
func TestCaptureIntoReuses(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	run(t, d, "xsetroot", "-solid", "#102030")
	want := color.RGBA{0x10, 0x20, 0x30, 0xff}
	small, err := c.Capture(image.Rect(0, 0, 10, 10))
	if err != nil {
		t.Fatal(err)
	}
	full, err := c.CaptureInto(small, image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	if &full.Pix[0] == &small.Pix[0] || full.Bounds() != image.Rect(0, 0, 640, 480) {
		t.Fatalf("a 10x10 buffer was reused for the whole screen (bounds %v)", full.Bounds())
	}
	reg, err := c.CaptureInto(full, image.Rect(100, 50, 300, 150))
	if err != nil {
		t.Fatal(err)
	}
	if &reg.Pix[0] != &full.Pix[0] {
		t.Error("the whole screen's buffer was not reused for a region")
	}
	if reg.Bounds() != image.Rect(0, 0, 200, 100) || reg.Stride != 800 || len(reg.Pix) != 200*100*4 {
		t.Fatalf("region: bounds %v stride %d len %d", reg.Bounds(), reg.Stride, len(reg.Pix))
	}
	for _, p := range []image.Point{{0, 0}, {199, 99}, {100, 50}} {
		if got := reg.RGBAAt(p.X, p.Y); got != want {
			t.Errorf("pixel %v = %v, want %v", p, got, want)
		}
	}
}

func TestCaptureWindowColour(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	rec := newRecorder(t, d, 100, 50, 200, 100, 0xff8000)
	_ = rec
	img, err := c.Capture(image.Rect(0, 0, 640, 480))
	if err != nil {
		t.Fatal(err)
	}
	if got := img.RGBAAt(150, 100); got != (color.RGBA{0xff, 0x80, 0x00, 0xff}) {
		t.Errorf("inside the window: %v, want ff8000", got)
	}
	if got := img.RGBAAt(99, 49); got == (color.RGBA{0xff, 0x80, 0x00, 0xff}) {
		t.Errorf("outside the window has its colour")
	}
}

func TestMoveSeenByXdotool(t *testing.T) {
	d := startXvfb(t, "1280x800x24")
	c := dial(t, d)
	for _, p := range []image.Point{{0, 0}, {100, 200}, {1279, 799}, {640, 400}} {
		if err := c.Move(p.X, p.Y); err != nil {
			t.Fatal(err)
		}
		if err := c.Sync(); err != nil {
			t.Fatal(err)
		}
		got := run(t, d, "xdotool", "getmouselocation", "--shell")
		if !strings.Contains(got, fmt.Sprintf("X=%d\n", p.X)) || !strings.Contains(got, fmt.Sprintf("Y=%d\n", p.Y)) {
			t.Errorf("after Move(%d,%d) xdotool reports %q", p.X, p.Y, got)
		}
		x, y, err := c.Cursor()
		if err != nil || x != p.X || y != p.Y {
			t.Errorf("Cursor = %d,%d,%v, want %v", x, y, err, p)
		}
	}
	if err := c.Move(1280, 0); err == nil {
		t.Error("Move off the screen: want an error")
	}
}

func TestButtonsAndScrollReachAWindow(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	rec := newRecorder(t, d, 0, 0, 300, 300, 0xffffff)
	if err := c.Move(50, 50); err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return c.Click(ButtonLeft, 2) },
		func() error { return c.Click(ButtonRight, 1) },
		func() error { return c.Scroll(0, 3) },
		func() error { return c.Scroll(0, -1) },
		func() error { return c.Scroll(2, 0) },
		func() error { return c.Scroll(-1, 0) },
		func() error { return c.ButtonDown(ButtonMiddle) },
		func() error { return c.ButtonUp(ButtonMiddle) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"press 1", "release 1", "press 1", "release 1", "press 3", "release 3",
		"press 5", "release 5", "press 5", "release 5", "press 5", "release 5",
		"press 4", "release 4", "press 7", "release 7", "press 7", "release 7",
		"press 6", "release 6", "press 2", "release 2",
	}
	got := rec.wait(t, len(want))
	if !slices.Equal(got, want) {
		t.Errorf("window received\n%v\nwant\n%v", got, want)
	}
	if err := c.Click(0, 1); err == nil {
		t.Error("button 0: want an error")
	}
}

func TestChordCarriesModifiers(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	rec := newRecorder(t, d, 0, 0, 300, 300, 0xffffff)
	rec.focus(t)
	ctrl, _ := keysym.ByName("Control_L")
	shift, _ := keysym.ByName("Shift_L")
	tk, _ := keysym.ByName("t")
	if err := c.Chord([]keysym.Sym{ctrl, shift, tk}); err != nil {
		t.Fatal(err)
	}
	got := rec.wait(t, 6)
	// The t press carries Control and Shift in its state; releases come in
	// reverse order.
	if !strings.HasPrefix(got[2], "key press") || !strings.Contains(got[2], "state=5") {
		t.Errorf("events %v: third should be the t press with Shift|Control (state=5)", got)
	}
	if !strings.HasPrefix(got[3], "key release") || !strings.HasPrefix(got[5], "key release") {
		t.Errorf("events %v: want three releases after the presses", got)
	}
	// A held key shows in the state of later events until released.
	if err := c.Move(50, 50); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyDown(shift); err != nil {
		t.Fatal(err)
	}
	if err := c.Click(ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.ReleaseAll(); err != nil {
		t.Fatal(err)
	}
	got = rec.wait(t, 4)
	if got[1] != "press 1 state=1" || got[2] != "release 1" || !strings.HasPrefix(got[3], "key release") {
		t.Errorf("click while Shift held, then ReleaseAll: %v", got)
	}
}

// unicodeLines are typed into a terminal and must arrive exactly.
var unicodeLines = []string{
	"hello world 0123456789",
	`Shifted: ~!@#$%^&*()_+{}|:"<>? QWERTY`,
	"symbols: -=[]\\;',./`",
	"Straße, café, naïve, Ångström, façade, Øresund, ñandú",
	"Ελληνικά: αβγδε ΑΒΓΔΕ",
	"Кириллица: съешь же ещё этих",
	"中文输入测试，日本語のテキスト",
	"한국어 텍스트",
	"€ — “quoted” ‘single’ … ± × ÷ ≠ ≤ ≥ → ★",
	"mixed: aß€中b Ωω ÿŸ ĳ œŒ \uFFFD replacement",
}

func TestTypeUnicodeIntoTerminal(t *testing.T) {
	d := startXvfb(t, "1280x800x24")
	c := dial(t, d)
	out := filepath.Join(t.TempDir(), "typed.txt")
	startTerminalReader(t, d, out)
	if err := c.Move(100, 100); err != nil { // focus follows the pointer without a window manager
		t.Fatal(err)
	}
	const trials = 5
	var want strings.Builder
	for range trials {
		for _, l := range unicodeLines {
			if err := c.Type(l + "\n"); err != nil {
				t.Fatal(err)
			}
			want.WriteString(l + "\n")
		}
	}
	waitFor(t, "the terminal to receive every line", func() bool {
		b, _ := os.ReadFile(out)
		return bytes.Count(b, []byte("\n")) >= trials*len(unicodeLines)
	})
	got, _ := os.ReadFile(out)
	if string(got) != want.String() {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Errorf("line %d: got %q, want %q", i, gl[i], wl[i])
			}
		}
	}
}

func TestKeymapRestoredOnClose(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	before := run(t, d, "xmodmap", "-pke")
	c, err := Dial(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Type("ß€中"); err != nil {
		t.Fatal(err)
	}
	if len(c.km.bound) == 0 {
		t.Fatal("typing characters outside the map bound no keycode")
	}
	if during := run(t, d, "xmodmap", "-pke"); during == before {
		t.Error("the map did not change while characters were bound")
	}
	c.Close()
	if after := run(t, d, "xmodmap", "-pke"); after != before {
		t.Error("the keyboard map was not restored on Close")
	}
}

func TestWindowsWithoutAndWithWindowManager(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	a := newRecorder(t, d, 0, 0, 100, 100, 0xff0000)
	a.name(t, "deskrun alpha")
	b := newRecorder(t, d, 200, 0, 100, 100, 0x00ff00)
	b.name(t, "deskrun beta ☃")
	find := func(title string) (Window, bool) {
		ws, err := c.Windows()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Title == title {
				return w, true
			}
		}
		return Window{}, false
	}
	wa, ok := find("deskrun alpha")
	if !ok {
		t.Fatal("window alpha not listed")
	}
	if _, ok := find("deskrun beta ☃"); !ok {
		t.Fatal("window beta not listed")
	}
	if err := c.ActivateWindow(wa.ID); err != nil {
		t.Fatal(err)
	}
	if act, _ := c.ActiveWindow(); act != wa.ID {
		t.Errorf("active window %#x, want %#x", act, wa.ID)
	}
	g, err := c.WindowGeometry(wa.ID)
	if err != nil || g != image.Rect(0, 0, 100, 100) {
		t.Errorf("geometry %v %v", g, err)
	}
	if err := c.CloseWindow(wa.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alpha to close", func() bool { _, ok := find("deskrun alpha"); return !ok })
	if err := c.ActivateWindow(0x7fffff); err == nil {
		t.Error("activate a window that does not exist: want an error")
	}

	if _, err := exec.LookPath("openbox"); err != nil {
		if testing.Short() {
			t.Skip("openbox is not installed")
		}
		t.Fatal("openbox is not installed (scripts/install-deps.sh installs it)")
	}
	wm := exec.Command("openbox")
	wm.Env = append(os.Environ(), "DISPLAY="+d)
	wm.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := wm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wm.Process.Kill(); _ = wm.Wait() })
	// openbox takes in the windows already mapped one by one after it
	// starts: the list is whole once beta is on it.
	var wb Window
	waitFor(t, "openbox to manage and list beta", func() bool {
		var ok bool
		wb, ok = find("deskrun beta ☃")
		return c.wmRunning() && ok
	})
	x := newRecorder(t, d, 300, 200, 100, 100, 0x0000ff)
	x.name(t, "deskrun gamma")
	waitFor(t, "gamma to be managed", func() bool { _, ok := find("deskrun gamma"); return ok })
	if err := c.ActivateWindow(wb.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "beta to become active", func() bool { act, _ := c.ActiveWindow(); return act == wb.ID })
	if err := c.CloseWindow(wb.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "beta to close", func() bool { _, ok := find("deskrun beta ☃"); return !ok })
}

// recorder is a test window on its own connection that records the input
// events it receives.
type recorder struct {
	x      *xgb.Conn
	win    xproto.Window
	events chan string
}

func newRecorder(t testing.TB, display string, x, y, w, h int, rgb uint32) *recorder {
	t.Helper()
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	scr := xproto.Setup(conn).DefaultScreen(conn)
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	mask := uint32(xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease | xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease | xproto.EventMaskExposure)
	err = xproto.CreateWindowChecked(conn, scr.RootDepth, win, scr.Root, int16(x), int16(y), uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, scr.RootVisual, xproto.CwBackPixel|xproto.CwEventMask, []uint32{rgb, mask}).Check()
	if err != nil {
		t.Fatal(err)
	}
	cls := "deskrun-test\x00DeskrunTest\x00"
	xproto.ChangeProperty(conn, xproto.PropModeReplace, win, xproto.AtomWmClass, xproto.AtomString, 8, uint32(len(cls)), []byte(cls))
	if err := xproto.MapWindowChecked(conn, win).Check(); err != nil {
		t.Fatal(err)
	}
	r := &recorder{x: conn, win: win, events: make(chan string, 1024)}
	exposed := make(chan struct{}, 1)
	go func() {
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return
			}
			switch e := ev.(type) {
			case xproto.ExposeEvent:
				select {
				case exposed <- struct{}{}:
				default:
				}
			case xproto.ButtonPressEvent:
				r.events <- fmt.Sprintf("press %d state=%d", e.Detail, e.State)
			case xproto.ButtonReleaseEvent:
				r.events <- fmt.Sprintf("release %d", e.Detail)
			case xproto.KeyPressEvent:
				r.events <- fmt.Sprintf("key press %d state=%d", e.Detail, e.State)
			case xproto.KeyReleaseEvent:
				r.events <- fmt.Sprintf("key release %d", e.Detail)
			}
		}
	}()
	select {
	case <-exposed:
	case <-time.After(10 * time.Second):
		t.Fatal("test window never exposed")
	}
	return r
}

func (r *recorder) name(t testing.TB, title string) {
	t.Helper()
	utf8, err := xproto.InternAtom(r.x, false, 11, "UTF8_STRING").Reply()
	if err != nil {
		t.Fatal(err)
	}
	net, err := xproto.InternAtom(r.x, false, 12, "_NET_WM_NAME").Reply()
	if err != nil {
		t.Fatal(err)
	}
	xproto.ChangeProperty(r.x, xproto.PropModeReplace, r.win, net.Atom, utf8.Atom, 8, uint32(len(title)), []byte(title))
	xproto.ChangeProperty(r.x, xproto.PropModeReplace, r.win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	if _, err := xproto.GetInputFocus(r.x).Reply(); err != nil { // sync
		t.Fatal(err)
	}
}

func (r *recorder) focus(t testing.TB) {
	t.Helper()
	if err := xproto.SetInputFocusChecked(r.x, xproto.InputFocusParent, r.win, 0).Check(); err != nil {
		t.Fatal(err)
	}
}

// wait returns the next n events the window received.
func (r *recorder) wait(t testing.TB, n int) []string {
	t.Helper()
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case e := <-r.events:
			got = append(got, e)
		case <-timeout:
			t.Fatalf("window received %d of %d events: %v", len(got), n, got)
		}
	}
	// Strip the state from button presses for the plain comparisons.
	out := make([]string, len(got))
	for i, e := range got {
		if strings.HasPrefix(e, "press ") {
			out[i] = e
			if f := strings.Fields(e); len(f) == 3 && f[2] == "state=0" {
				out[i] = f[0] + " " + f[1]
			}
		} else {
			out[i] = e
		}
	}
	return out
}

// startTerminalReader opens an xterm whose shell copies what is typed into
// out, a line at a time.
func startTerminalReader(t testing.TB, display, out string) {
	t.Helper()
	if _, err := exec.LookPath("xterm"); err != nil {
		t.Fatal("xterm is not installed (scripts/install-deps.sh installs it)")
	}
	ready := out + ".ready"
	cmd := exec.Command("xterm", "-geometry", "100x20+0+0", "-fa", "DejaVu Sans Mono", "-u8",
		"-e", "sh", "-c", `stty -echo; touch "$1"; exec cat > "$2"`, "sh", ready, out)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "LC_ALL=C.UTF-8", "LANG=C.UTF-8")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, "the terminal to start", func() bool { _, err := os.Stat(ready); return err == nil })
}

func TestBGRXToRGBA(t *testing.T) {
	src := []byte{0x56, 0x34, 0x12, 0x00, 0x01, 0x02, 0x03, 0x99, 0xaa, 0xbb, 0xcc, 0x00}
	dst := make([]byte, len(src))
	bgrxToRGBA(dst, src)
	want := []byte{0x12, 0x34, 0x56, 0xff, 0x03, 0x02, 0x01, 0xff, 0xcc, 0xbb, 0xaa, 0xff}
	if !bytes.Equal(dst, want) {
		t.Fatalf("got % x, want % x", dst, want)
	}
}

// TestDialWhileAnotherConnReadsEvents dials connections while another one
// receives events: every client gets MappingNotify when a keyboard map
// changes (here another program changes it), and its reader looks the
// event up in xgb's shared tables, which the extension set-up of a new
// connection must not write to (the race detector catches it when it
// does).
func TestDialWhileAnotherConnReadsEvents(t *testing.T) {
	d := startXvfb(t, "640x480x24")
	dial(t, d) // its reader gets the MappingNotify events
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			sym := []string{"a", "b"}[i%2]
			cmd := exec.Command("xmodmap", "-e", "keycode 200 = "+sym)
			cmd.Env = append(os.Environ(), "DISPLAY="+d)
			if out, err := cmd.CombinedOutput(); err != nil {
				done <- fmt.Errorf("xmodmap: %v: %s", err, out)
				return
			}
		}
	}()
	for range 8 {
		b, err := Dial(d)
		if err != nil {
			close(stop)
			t.Fatal(err)
		}
		b.Close()
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
