package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// eventWindow is a Tk window that appends the wheel buttons and keys it
// receives to a file, one line each.
const eventWindow = `import sys, tkinter as tk
r = tk.Tk(); r.title(sys.argv[1]); r.geometry("300x200+10+10")
out = open(sys.argv[2], "a", buffering=1)
for b in (4, 5):
    r.bind("<Button-%d>" % b, lambda e, b=b: out.write("button %d at %d,%d\n" % (b, e.x, e.y)))
r.bind("<Key>", lambda e: out.write("key %s\n" % e.keysym))
r.mainloop()`

// realDesk is an agentd on its own Xvfb with openbox, the dialect's
// State, and helpers to call tools and read the desktop with programs of
// its own.
type realDesk struct {
	t    *testing.T
	c    *agentdclient.Client
	home string
	st   *State
}

func startRealDesk(t *testing.T) *realDesk {
	agentdtest.NeedX(t, "openbox", "python3", "xwininfo", "xprop", "xterm", "xmessage", "xdotool")
	if err := exec.Command("python3", "-c", "import tkinter").Run(); err != nil {
		t.Fatal("python3 has no tkinter (scripts/install-deps.sh installs python3-tk)")
	}
	dk := agentdtest.StartAgentd(t, "--wm", "openbox")
	return &realDesk{t: t, c: agentdclient.NewClient(dk.URL, dk.Token, nil), home: dk.Home, st: &State{}}
}

func (r *realDesk) call(name, args string) Result {
	r.t.Helper()
	res, err := Anthropic.Call(context.Background(), r.c, r.st, name, json.RawMessage(args))
	if err != nil {
		r.t.Fatalf("%s %s: %v", name, args, err)
	}
	return res
}

func (r *realDesk) ok(name, args string) Result {
	r.t.Helper()
	res := r.call(name, args)
	if res.IsError {
		r.t.Fatalf("%s %s: %s", name, args, res.Text())
	}
	return res
}

func (r *realDesk) sh(script string) string {
	r.t.Helper()
	res, err := r.c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", script}})
	if err != nil || res.ExitCode != 0 {
		r.t.Fatalf("%s: %v exit %d %s", script, err, res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

func (r *realDesk) waitFor(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// xwininfo reads a window's client area as xwininfo reports it.
func (r *realDesk) xwininfo(id uint32) api.Box {
	out := r.sh(fmt.Sprintf("xwininfo -id %d", id))
	num := func(label string) int {
		m := regexp.MustCompile(label + `:\s+(-?\d+)`).FindStringSubmatch(out)
		if m == nil {
			r.t.Fatalf("xwininfo says no %s: %s", label, out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return api.Box{X: num("Absolute upper-left X"), Y: num("Absolute upper-left Y"), W: num("Width"), H: num("Height")}
}

// events returns the lines the event window wrote.
func (r *realDesk) events(file string) []string {
	b, _ := os.ReadFile(file)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func boundID(t *testing.T, res Result) uint32 {
	t.Helper()
	m, _ := res.Structured.(map[string]any)
	h, _ := m["hwnd"].(string)
	id, err := strconv.ParseUint(h, 0, 32)
	if err != nil {
		t.Fatalf("no hwnd in %#v", res.Structured)
	}
	return uint32(id)
}

func TestWindowToolsOnARealDesktop(t *testing.T) {
	r := startRealDesk(t)
	script, events := filepath.Join(r.home, "events.py"), filepath.Join(r.home, "events.txt")
	if err := os.WriteFile(script, []byte(eventWindow), 0o644); err != nil {
		t.Fatal(err)
	}
	r.sh(fmt.Sprintf("setsid python3 %s 'deskrun events' %s >%s.log 2>&1 </dev/null &", script, events, events))
	t.Cleanup(func() { b, _ := os.ReadFile(events + ".log"); t.Logf("events window log: %s", b) })
	r.waitFor("bind_window list to show the Tk window", func() bool {
		return strings.Contains(r.ok("bind_window", `{"action":"list"}`).Text(), `"deskrun events"`)
	})
	if res := r.call("window_management", `{"action":"get_rect"}`); !res.IsError || !strings.Contains(res.Text(), "no window is bound") {
		t.Errorf("get_rect unbound: %v %q", res.IsError, res.Text())
	}
	id := boundID(t, r.ok("bind_window", `{"action":"bind","title":"DESKRUN EV"}`))

	// move_resize, read back by xwininfo.
	res := r.ok("window_management", `{"action":"move_resize","x":200,"y":150,"width":420,"height":310}`)
	want := api.Box{X: 200, Y: 150, W: 420, H: 310}
	if got := r.xwininfo(id); got != want {
		t.Errorf("xwininfo after move_resize: %+v, want %+v (tool said %q)", got, want, res.Text())
	}
	// Screenshots show the bound window; coordinates refer to them.
	shot := r.ok("screenshot", `{}`)
	if p := shot.Content[0]; p.Type != "image" || p.Width != want.W || p.Height != want.H {
		t.Errorf("screenshot of the bound window: %s %dx%d, want %dx%d", p.Type, p.Width, p.Height, want.W, want.H)
	}
	r.ok("mouse_move", `{"coordinate":[10,20]}`)
	if s := r.sh("xdotool getmouselocation --shell"); !strings.Contains(s, "X=210\n") || !strings.Contains(s, "Y=170\n") {
		t.Errorf("mouse_move [10,20] on the window's screenshot: xdotool says %q, want 210,170", s)
	}
	if res := r.call("window_management", `{"action":"move_resize","width":0}`); !res.IsError || !strings.Contains(res.Text(), "width must be between 1 and 32767, got 0") {
		t.Errorf("width 0: %q", res.Text())
	}

	// maximize and restore, read back by xprop.
	r.ok("window_management", `{"action":"maximize"}`)
	if s := r.sh(fmt.Sprintf("xprop -id %d _NET_WM_STATE", id)); !strings.Contains(s, "MAXIMIZED_VERT") || !strings.Contains(s, "MAXIMIZED_HORZ") {
		t.Errorf("after maximize xprop says %q", s)
	}
	r.ok("window_management", `{"action":"restore"}`)
	if s := r.sh(fmt.Sprintf("xprop -id %d _NET_WM_STATE", id)); strings.Contains(s, "MAXIMIZED") {
		t.Errorf("after restore xprop says %q", s)
	}
	r.ok("window_management", `{"action":"minimize"}`)
	if s := r.sh(fmt.Sprintf("xprop -id %d WM_STATE", id)); !strings.Contains(s, "Iconic") {
		t.Errorf("after minimize xprop says %q", s)
	}

	// activate_window brings it back, active as _NET_ACTIVE_WINDOW says.
	act := r.ok("activate_window", `{}`)
	if s := r.sh("xprop -root _NET_ACTIVE_WINDOW"); !strings.Contains(s, fmt.Sprintf("%#x", id)) {
		t.Errorf("after activate_window (%q) _NET_ACTIVE_WINDOW is %q, want %#x; window %+v, %s, pointer %s", act.Text(), s, id,
			r.xwininfo(id), r.sh(fmt.Sprintf("xprop -id %d WM_STATE _NET_WM_STATE", id)), r.sh("xdotool getmouselocation"))
	}
	if s := r.sh(fmt.Sprintf("xprop -id %d WM_STATE", id)); !strings.Contains(s, "Normal") {
		t.Errorf("after activate_window WM_STATE is %q", s)
	}

	// The wheel, keys and prompt answers reach the window.
	r.ok("mouse_wheel", `{"coordinate":[100,80],"delta":-3}`)
	r.ok("mouse_wheel", `{"coordinate":[20,30],"delta":2}`)
	r.ok("virtual_keyboard", `{"action":"type","text":"hi"}`)
	r.ok("virtual_keyboard", `{"action":"combo","text":"shift+a"}`)
	r.ok("prompt_respond", `{"response_type":"yes"}`)
	wantEvents := []string{
		"button 5 at 100,80", "button 5 at 100,80", "button 5 at 100,80", "button 4 at 20,30", "button 4 at 20,30",
		"key h", "key i", "key Shift_L", "key A", "key y", "key Return",
	}
	r.waitFor("the Tk window to record the input", func() bool { return len(r.events(events)) >= len(wantEvents) })
	if got := r.events(events); strings.Join(got, "|") != strings.Join(wantEvents, "|") {
		t.Errorf("the window received\n%q\nwant\n%q", got, wantEvents)
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"mouse_wheel", `{"coordinate":[10,10],"delta":101}`, "delta must be between -100 and 100, got 101"},
		{"mouse_wheel", `{"coordinate":[420,10],"delta":1}`, "coordinate (420, 10) is outside the bound window's client area (420x310)"},
		{"virtual_mouse", `{"action":"click"}`, "coordinate: required"},
		{"virtual_keyboard", `{"action":"press","text":"ctrl+a"}`, "press takes one key name"},
		{"prompt_respond", `{"response_type":"type"}`, "text is required for response_type type"},
		{"teach_step", `{"explanation":"x","next_preview":"y","actions":[]}`, "no one watches a deskrun sandbox"},
	} {
		if res := r.call(tc.tool, tc.args); !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("%s %s: %v %q, want an error with %q", tc.tool, tc.args, res.IsError, res.Text(), tc.want)
		}
	}

	// status_indicator: a label at the bottom of the window, in the screenshot.
	res = r.ok("status_indicator", `{"action":"show","message":"deskrun is saving"}`)
	m, _ := res.Structured.(map[string]any)
	lx, ly := m["x"].(int), m["y"].(int)
	r.waitFor("the label on the screen", func() bool {
		shot, err := r.c.Screenshot(context.Background(), api.ScreenshotOptions{Region: &api.Rect{X0: lx, Y0: ly, X1: lx + 4, Y1: ly + 4}})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot.Data))
		if err != nil {
			t.Fatal(err)
		}
		c := color.RGBAModel.Convert(img.At(img.Bounds().Min.X+1, img.Bounds().Min.Y+1)).(color.RGBA)
		return c == color.RGBA{0x1f, 0x29, 0x37, 0xff}
	})
	if s := r.sh("xprop -root _NET_ACTIVE_WINDOW"); !strings.Contains(s, fmt.Sprintf("%#x", id)) {
		t.Errorf("the label took the focus: _NET_ACTIVE_WINDOW is %q", s)
	}
	if res := r.ok("status_indicator", `{"action":"status"}`); !strings.Contains(res.Text(), "deskrun is saving") {
		t.Errorf("status: %q", res.Text())
	}
	r.ok("status_indicator", `{"action":"hide"}`)
	if res := r.ok("status_indicator", `{"action":"status"}`); !strings.Contains(res.Text(), "not showing") {
		t.Errorf("status after hide: %q", res.Text())
	}

	// close ends the window and the binding.
	r.ok("window_management", `{"action":"close"}`)
	if res := r.ok("bind_window", `{"action":"list"}`); strings.Contains(res.Text(), "deskrun events") {
		t.Errorf("the window is still listed after close: %s", res.Text())
	}
	if res := r.call("virtual_keyboard", `{"action":"type","text":"x"}`); !res.IsError || !strings.Contains(res.Text(), "no window is bound") {
		t.Errorf("after close: %q", res.Text())
	}
}

func TestOpenTerminalOnARealDesktop(t *testing.T) {
	r := startRealDesk(t)
	mark := filepath.Join(r.home, "ran")
	res := r.ok("open_terminal", fmt.Sprintf(`{"agent":"custom","command":"pwd > %s","working_directory":"/tmp"}`, mark))
	if !strings.Contains(res.Text(), "Opened xterm") || len(res.Content) != 2 || res.Content[1].Type != "image" {
		t.Errorf("open_terminal answered %q with %d parts", res.Text(), len(res.Content))
	}
	r.waitFor("the command to run", func() bool { b, _ := os.ReadFile(mark); return strings.TrimSpace(string(b)) == "/tmp" })
	st := r.ok("bind_window", `{"action":"status"}`)
	if m, _ := st.Structured.(map[string]any); m["class"] != "XTerm" {
		t.Errorf("bound after open_terminal: %s", st.Text())
	}
	id := boundID(t, st)
	r.ok("window_management", `{"action":"close"}`)
	r.waitFor("the terminal to close", func() bool {
		_, err := r.c.Window(context.Background(), id)
		return err != nil
	})
	for _, tc := range []struct{ args, want string }{
		{`{"agent":"claude"}`, "claude is not installed in this sandbox"},
		{`{"agent":"custom","command":"ls","working_directory":"/no/such/dir"}`, `working_directory: no directory "/no/such/dir"`},
		{`{"agent":"custom","command":"ls","terminal":"cmd"}`, "terminal cmd is a Windows program"},
	} {
		if res := r.call("open_terminal", tc.args); !res.IsError || !strings.Contains(res.Text(), tc.want) {
			t.Errorf("open_terminal %s: %q, want an error with %q", tc.args, res.Text(), tc.want)
		}
	}
}

// TestMouseWheelSidewaysReachesXev: a horizontal mouse_wheel is buttons 6
// (left) and 7 (right) at the point of the bound window, as xev, a
// program of its own, reports them.
func TestMouseWheelSidewaysReachesXev(t *testing.T) {
	r := startRealDesk(t)
	agentdtest.NeedX(t, "xev")
	out := filepath.Join(r.home, "xev.txt")
	r.sh(fmt.Sprintf("setsid xev -name deskrun-xev -geometry 300x200+40+40 >%s 2>&1 </dev/null &", out))
	r.waitFor("xev's window", func() bool { return !r.call("bind_window", `{"action":"bind","title":"deskrun-xev"}`).IsError })
	r.ok("mouse_wheel", `{"coordinate":[30,40],"delta":2,"direction":"horizontal"}`)
	r.ok("mouse_wheel", `{"coordinate":[50,60],"delta":-1,"direction":"horizontal"}`)
	presses := func() []string {
		b, _ := os.ReadFile(out)
		var got []string
		for _, ev := range strings.Split(string(b), "\n\n") {
			if !strings.HasPrefix(strings.TrimSpace(ev), "ButtonPress") {
				continue
			}
			m := regexp.MustCompile(`\((-?\d+),(-?\d+)\), root.*\n.*button (\d+)`).FindStringSubmatch(ev)
			if m != nil {
				got = append(got, fmt.Sprintf("button %s at %s,%s", m[3], m[1], m[2]))
			}
		}
		return got
	}
	want := []string{"button 7 at 30,40", "button 7 at 30,40", "button 6 at 50,60"}
	r.waitFor("xev to report 3 presses", func() bool { return len(presses()) >= 3 })
	if got := presses(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("xev saw %q, want %q", got, want)
	}
}
