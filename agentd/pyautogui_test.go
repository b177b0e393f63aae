package agentd

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// xevent is one event xev printed.
type xevent struct {
	kind   string // "ButtonPress", "KeyPress", "MotionNotify", ...
	x, y   int    // root coordinates
	button int
	keysym string // the keysym's name, for key events
	state  int
}

var (
	xevRoot   = regexp.MustCompile(`root:\((-?\d+),(-?\d+)\)`)
	xevButton = regexp.MustCompile(`button (\d+),`)
	xevKeysym = regexp.MustCompile(`\(keysym 0x[0-9a-f]+, ([^)]+)\)`)
	xevState  = regexp.MustCompile(`state 0x([0-9a-f]+),`)
)

// xevLog runs xev in a window of the display and collects the pointer
// and keyboard events it reports.
type xevLog struct {
	mu     sync.Mutex
	events []xevent
	// The window's client area in root coordinates.
	left, top, width, height int
}

func startXev(t *testing.T, display string) *xevLog {
	t.Helper()
	if _, err := exec.LookPath("xev"); err != nil {
		t.Fatal("xev is not installed (scripts/install-deps.sh installs x11-utils)")
	}
	cmd := exec.Command("xev", "-geometry", "1000x600+100+100", "-name", "pyautogui-events", "-event", "mouse", "-event", "button", "-event", "keyboard")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &xevLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// An event of interest is complete at its "same_screen" line,
		// the last one xev prints before the next event arrives.
		sc := bufio.NewScanner(out)
		var block []string
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				block = nil
				continue
			}
			block = append(block, line)
			if strings.Contains(line, "same_screen") {
				l.add(strings.Join(block, "\n"))
				block = nil
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); <-done })
	waitFor(t, "the xev window", func() bool {
		info, err := exec.Command("xwininfo", "-display", display, "-name", "pyautogui-events").Output()
		if err != nil {
			return false
		}
		for _, f := range []struct {
			label string
			v     *int
		}{{"Absolute upper-left X:", &l.left}, {"Absolute upper-left Y:", &l.top}, {"Width:", &l.width}, {"Height:", &l.height}} {
			i := strings.Index(string(info), f.label)
			if i < 0 {
				return false
			}
			fmt.Sscan(string(info[i+len(f.label):]), f.v)
		}
		return l.width > 0
	})
	return l
}

func (l *xevLog) add(block string) {
	kind, _, _ := strings.Cut(block, " ")
	e := xevent{kind: kind}
	if m := xevRoot.FindStringSubmatch(block); m != nil {
		e.x, _ = strconv.Atoi(m[1])
		e.y, _ = strconv.Atoi(m[2])
	}
	if m := xevButton.FindStringSubmatch(block); m != nil {
		e.button, _ = strconv.Atoi(m[1])
	}
	if m := xevKeysym.FindStringSubmatch(block); m != nil {
		e.keysym = m[1]
	}
	if m := xevState.FindStringSubmatch(block); m != nil {
		s, _ := strconv.ParseInt(m[1], 16, 32)
		e.state = int(s)
	}
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

// since returns the events after the first n.
func (l *xevLog) since(n int) []xevent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events[min(n, len(l.events)):])
}

func (l *xevLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// buttons renders the button events as "press 1 (x,y)" lines.
func buttons(evs []xevent) []string {
	var out []string
	for _, e := range evs {
		switch e.kind {
		case "ButtonPress", "ButtonRelease":
			out = append(out, fmt.Sprintf("%s %d (%d,%d)", strings.ToLower(strings.TrimPrefix(e.kind, "Button")), e.button, e.x, e.y))
		}
	}
	return out
}

// keys renders the key events as "+a" (press) and "-a" (release).
func keys(evs []xevent) []string {
	var out []string
	for _, e := range evs {
		switch e.kind {
		case "KeyPress":
			out = append(out, "+"+e.keysym)
		case "KeyRelease":
			out = append(out, "-"+e.keysym)
		}
	}
	return out
}

// TestPyautoguiFunctions runs the embedded pyautogui module with python3
// against agentd on Xvfb, one function of those agents use at a time
// (click, doubleClick, rightClick, moveTo, dragTo, scroll, hscroll,
// vscroll, write, typewrite, press, hotkey, keyDown, keyUp, mouseDown,
// mouseUp, position, size, screenshot, sleep, PAUSE), and checks what
// the X server saw: the pointer by xdotool, buttons and keys by xev in a
// window covering the points used.
func TestPyautoguiFunctions(t *testing.T) {
	s, c := start(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is not installed (scripts/install-deps.sh installs it)")
	}
	xev := startXev(t, s.Display())
	// Points inside the xev window, in root coordinates.
	at := func(dx, dy int) (int, int) { return xev.left + dx, xev.top + dy }
	py := func(code string) (string, time.Duration) {
		t.Helper()
		start := time.Now()
		r, err := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"python3", "-c", "import pyautogui\n" + code}})
		if err != nil {
			t.Fatal(err)
		}
		if r.ExitCode != 0 {
			t.Fatalf("python3 -c %q: exit %d: %s", code, r.ExitCode, r.Stderr)
		}
		return r.Stdout, time.Since(start)
	}
	pointer := func() string {
		t.Helper()
		out := sh(t, c, "xdotool getmouselocation --shell").Stdout
		var x, y string
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "X="); ok {
				x = v
			}
			if v, ok := strings.CutPrefix(l, "Y="); ok {
				y = v
			}
		}
		return x + "," + y
	}
	// run runs code with PAUSE 0 and returns the events xev saw. To know
	// they are all in, it then nudges the pointer right and back with
	// xdotool and waits for xev to report both moves, which it drops.
	run := func(code string) []xevent {
		t.Helper()
		n := xev.count()
		py("pyautogui.PAUSE = 0\n" + code)
		var px, py int
		fmt.Sscanf(pointer(), "%d,%d", &px, &py)
		sh(t, c, fmt.Sprintf("xdotool mousemove %d %d mousemove %d %d", px+1, py, px, py))
		var evs []xevent
		defer func() {
			if t.Failed() {
				t.Logf("events: %+v (pointer %d,%d)", evs, px, py)
			}
		}()
		waitFor(t, "xev to report the pointer nudged", func() bool {
			evs = xev.since(n)
			for i := len(evs) - 2; i >= 0; i-- {
				a, b := evs[i], evs[i+1]
				if a.kind == "MotionNotify" && b.kind == "MotionNotify" && a.x == px+1 && a.y == py && b.x == px && b.y == py {
					evs = evs[:i]
					return true
				}
			}
			return false
		})
		return evs
	}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
		}
	}
	p := func(x, y int) string { return fmt.Sprintf("(%d,%d)", x, y) }

	// size, position, moveTo (plain, with duration, and a tuple).
	if out, _ := py("print(tuple(pyautogui.size()), pyautogui.size().width)"); out != "(1280, 800) 1280\n" {
		t.Errorf("size: %q", out)
	}
	x0, y0 := at(100, 100)
	run(fmt.Sprintf("pyautogui.moveTo(%d, %d)", x0, y0))
	if got := pointer(); got != fmt.Sprintf("%d,%d", x0, y0) {
		t.Errorf("moveTo(%d, %d): pointer at %s", x0, y0, got)
	}
	if out, _ := py("print(tuple(pyautogui.position()))"); out != fmt.Sprintf("(%d, %d)\n", x0, y0) {
		t.Errorf("position: %q", out)
	}
	x1, y1 := at(400, 300)
	evs := run(fmt.Sprintf("pyautogui.moveTo((%d, %d), duration=0.3)", x1, y1))
	var motions int
	for _, e := range evs {
		if e.kind == "MotionNotify" {
			motions++
		}
	}
	if got := pointer(); got != fmt.Sprintf("%d,%d", x1, y1) || motions < 3 {
		t.Errorf("moveTo with duration: pointer at %s after %d motions, want %d,%d in several steps", got, motions, x1, y1)
	}

	// click and its relatives; buttons are 1 left, 2 middle, 3 right.
	x, y := at(110, 110)
	check("click(x, y)", buttons(run(fmt.Sprintf("pyautogui.click(%d, %d)", x, y))),
		[]string{"press 1 " + p(x, y), "release 1 " + p(x, y)})
	check("click(button='right') where the pointer is", buttons(run("pyautogui.click(button='right')")),
		[]string{"press 3 " + p(x, y), "release 3 " + p(x, y)})
	x, y = at(120, 120)
	check("doubleClick", buttons(run(fmt.Sprintf("pyautogui.doubleClick(%d, %d)", x, y))),
		[]string{"press 1 " + p(x, y), "release 1 " + p(x, y), "press 1 " + p(x, y), "release 1 " + p(x, y)})
	x, y = at(130, 130)
	check("rightClick", buttons(run(fmt.Sprintf("pyautogui.rightClick(%d, %d)", x, y))),
		[]string{"press 3 " + p(x, y), "release 3 " + p(x, y)})
	x, y = at(140, 140)
	check("click(clicks=3, interval)", buttons(run(fmt.Sprintf("pyautogui.click(x=%d, y=%d, clicks=3, interval=0.05, button='middle')", x, y))),
		[]string{"press 2 " + p(x, y), "release 2 " + p(x, y), "press 2 " + p(x, y), "release 2 " + p(x, y), "press 2 " + p(x, y), "release 2 " + p(x, y)})

	// mouseDown and mouseUp, at points and where the pointer is.
	xa, ya := at(150, 150)
	xb, yb := at(160, 170)
	check("mouseDown(x, y), mouseUp(x, y)", buttons(run(fmt.Sprintf("pyautogui.mouseDown(%d, %d)\npyautogui.mouseUp(%d, %d)", xa, ya, xb, yb))),
		[]string{"press 1 " + p(xa, ya), "release 1 " + p(xb, yb)})
	check("mouseDown(button='right'), mouseUp(button='right')", buttons(run("pyautogui.mouseDown(button='right')\npyautogui.mouseUp(button='right')")),
		[]string{"press 3 " + p(xb, yb), "release 3 " + p(xb, yb)})

	// dragTo: press where the pointer is, move with the button held,
	// release at the target.
	xa, ya = at(200, 200)
	xb, yb = at(500, 350)
	evs = run(fmt.Sprintf("pyautogui.moveTo(%d, %d)\npyautogui.dragTo(%d, %d, duration=0.2)", xa, ya, xb, yb))
	check("dragTo", buttons(evs), []string{"press 1 " + p(xa, ya), "release 1 " + p(xb, yb)})
	var held int
	for _, e := range evs {
		if e.kind == "MotionNotify" && e.state&0x100 != 0 {
			held++
		}
	}
	if held < 2 {
		t.Errorf("dragTo: %d motions with the left button held, want several", held)
	}
	xa, ya = at(510, 360)
	check("dragTo(button='right')", buttons(run(fmt.Sprintf("pyautogui.dragTo(%d, %d, button='right')", xa, ya))),
		[]string{"press 3 " + p(xb, yb), "release 3 " + p(xa, ya)})

	// scroll: positive is up (button 4), negative down (5); hscroll
	// positive is right (7), negative left (6); at a point when given.
	rep := func(n int, s ...string) []string {
		var out []string
		for range n {
			out = append(out, s...)
		}
		return out
	}
	x, y = xa, ya
	check("scroll(3)", buttons(run("pyautogui.scroll(3)")), rep(3, "press 4 "+p(x, y), "release 4 "+p(x, y)))
	xb, yb = at(300, 250)
	check("scroll(-2, x, y)", buttons(run(fmt.Sprintf("pyautogui.scroll(-2, x=%d, y=%d)", xb, yb))), rep(2, "press 5 "+p(xb, yb), "release 5 "+p(xb, yb)))
	check("vscroll(1)", buttons(run("pyautogui.vscroll(1)")), rep(1, "press 4 "+p(xb, yb), "release 4 "+p(xb, yb)))
	check("hscroll(2)", buttons(run("pyautogui.hscroll(2)")), rep(2, "press 7 "+p(xb, yb), "release 7 "+p(xb, yb)))
	check("hscroll(-1)", buttons(run("pyautogui.hscroll(-1)")), rep(1, "press 6 "+p(xb, yb), "release 6 "+p(xb, yb)))

	// Keys go to the xev window, which a click has focused.
	run(fmt.Sprintf("pyautogui.click(%d, %d)", xb, yb))
	pressed := func(evs []xevent) []string {
		var out []string
		for _, k := range keys(evs) {
			if strings.HasPrefix(k, "+") && !strings.HasPrefix(k, "+Shift") {
				out = append(out, k[1:])
			}
		}
		return out
	}
	check("write('Hi!')", pressed(run("pyautogui.write('Hi!')")), []string{"H", "i", "exclam"})
	check("typewrite('ab', interval)", pressed(run("pyautogui.typewrite('ab', interval=0.05)")), []string{"a", "b"})
	check("typewrite(list of keys)", pressed(run("pyautogui.typewrite(['a', 'left', 'enter'])")), []string{"a", "Left", "Return"})
	check("press('enter')", keys(run("pyautogui.press('enter')")), []string{"+Return", "-Return"})
	check("press([...])", pressed(run("pyautogui.press(['tab', 'esc', 'F5'])")), []string{"Tab", "Escape", "F5"})
	check("press('a', presses=3)", keys(run("pyautogui.press('a', presses=3, interval=0.02)")), rep(3, "+a", "-a"))
	check("hotkey('ctrl', 'shift', 'a')", keys(run("pyautogui.hotkey('ctrl', 'shift', 'a')")),
		[]string{"+Control_L", "+Shift_L", "+A", "-A", "-Shift_L", "-Control_L"})
	check("hotkey with interval", keys(run("pyautogui.hotkey('alt', 'tab', interval=0.05)")),
		[]string{"+Alt_L", "+Tab", "-Tab", "-Alt_L"})
	check("keyDown, keyUp", keys(run("pyautogui.keyDown('shift')\npyautogui.keyUp('shift')")), []string{"+Shift_L", "-Shift_L"})
	check("keyDown('ctrl'), press('c'), keyUp('ctrl')", keys(run("pyautogui.keyDown('ctrl')\npyautogui.press('c')\npyautogui.keyUp('ctrl')")),
		[]string{"+Control_L", "+c", "-c", "-Control_L"})

	// screenshot: the whole screen, saved when given a file name.
	shot := filepath.Join(t.TempDir(), "s.png")
	if out, _ := py(fmt.Sprintf("print(pyautogui.screenshot(%q).size)", shot)); out != "(1280, 800)\n" {
		t.Errorf("screenshot: %q", out)
	}
	if b, err := os.ReadFile(shot); err != nil {
		t.Error(err)
	} else if w, h, err := imageSize(b); err != nil || w != 1280 || h != 800 {
		t.Errorf("saved screenshot %dx%d %v", w, h, err)
	}

	// sleep and PAUSE, the pause after every call.
	if _, d := py("pyautogui.sleep(0.4)"); d < 400*time.Millisecond {
		t.Errorf("sleep(0.4) took %v", d)
	}
	if _, d := py("pyautogui.PAUSE = 0.3\nfor _ in range(3): pyautogui.moveRel(1, 0)"); d < 900*time.Millisecond {
		t.Errorf("three calls with PAUSE 0.3 took %v", d)
	}
	// timed inside Python: the interpreter's start is no part of it
	if out, _ := py("import time\npyautogui.PAUSE = 5\nt = time.monotonic()\npyautogui.moveRel(-3, 0, _pause=False)\nprint(time.monotonic() - t)"); !func() bool {
		s, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
		return err == nil && s < 5
	}() {
		t.Errorf("a call with _pause=False beside PAUSE = 5 took %q s", out)
	}
	// Seconds out of range are refused naming the argument, at once:
	// time.sleep overflows on 1e18, and a step count made of it never ends.
	for _, tc := range []struct{ code, field string }{
		{"pyautogui.sleep(1e18)", "seconds: 1e+18 is outside 0..3600"},
		{"pyautogui.sleep(-1)", "seconds: -1 is outside"},
		{"pyautogui.moveTo(10, 10, duration=1e18)", "duration: 1e+18 is outside"},
		{"pyautogui.dragTo(10, 10, duration=float('nan'))", "duration: nan is outside"},
		{"pyautogui.press('a', presses=2, interval=1e18)", "interval: 1e+18 is outside"},
	} {
		t0 := time.Now()
		r, err := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"python3", "-c", "import pyautogui\n" + tc.code}})
		if err != nil || r.ExitCode == 0 || !strings.Contains(r.Stderr, "ValueError: "+tc.field) || time.Since(t0) > 10*time.Second {
			t.Errorf("%s: exit %d after %v: %s, want a ValueError naming %q", tc.code, r.ExitCode, time.Since(t0), r.Stderr, tc.field)
		}
	}

	// FAILSAFE: with the pointer in a corner, the next call raises, as
	// in pyautogui; with FAILSAFE off it goes on.
	r, err := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"python3", "-c", "import pyautogui\npyautogui.moveTo(0, 0)\npyautogui.click()"}})
	if err != nil || r.ExitCode == 0 || !strings.Contains(r.Stderr, "FailSafeException") {
		t.Errorf("fail-safe: %+v %v", r, err)
	}
	py("pyautogui.FAILSAFE = False\npyautogui.moveTo(0, 0)\npyautogui.moveTo(5, 5)")
	if got := pointer(); got != "5,5" {
		t.Errorf("with FAILSAFE off: pointer at %s, want 5,5", got)
	}
}
