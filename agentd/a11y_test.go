package agentd

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// needGTK skips unless a python3 with GTK 3 bindings and the
// accessibility bus are installed (scripts/install-deps.sh installs them).
func needGTK(t *testing.T) string {
	t.Helper()
	needX(t)
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import gi; gi.require_version('Gtk','3.0'); from gi.repository import Gtk").Run(); err != nil {
		t.Fatalf("python3-gi with GTK 3 is not installed (scripts/install-deps.sh installs it): %v", err)
	}
	if findLauncher() == "" {
		t.Fatal("at-spi2-core is not installed (scripts/install-deps.sh installs it)")
	}
	return py
}

// startGTK starts the test window titled title and returns its pid.
func startGTK(t *testing.T, c *client.Client, py, title string) int {
	t.Helper()
	app, err := filepath.Abs("atspi/testdata/gtkapp.py")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "gtk.log")
	r := sh(t, c, fmt.Sprintf("%s %s '%s' >%s 2>&1 & echo $!", py, app, title, log))
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(r.Stdout)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT); _ = syscall.Kill(pid, syscall.SIGKILL) })
	waitFor(t, title+" in the tree", func() bool {
		a, err := c.Accessibility(context.Background(), api.A11yList, strconv.Itoa(pid))
		return err == nil && findEl(a.Elements, "push button", "Press Me") != nil
	})
	return pid
}

func findEl(els []api.Element, role, name string) *api.Element {
	for i := range els {
		if els[i].Role == role && (name == "" || els[i].Name == name) {
			return &els[i]
		}
	}
	return nil
}

func TestAccessibilityGTK(t *testing.T) {
	py := needGTK(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // agentd starts its own buses
	t.Setenv("AT_SPI_BUS_ADDRESS", "")
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	_, c := start(t)
	ctx := context.Background()
	pid := startGTK(t, c, py, "Deskrun Test")
	app := strconv.Itoa(pid)

	t.Run("xml in OSWorld's format", func(t *testing.T) {
		x, err := c.AccessibilityXML(ctx, app)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(x, `<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:attr="https://accessibility.ubuntu.example.org/ns/attributes" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component"`) {
			t.Fatalf("root: %.300s", x)
		}
		// parse it as the linearizer does and find the button with its box
		type node struct {
			XMLName xml.Name
			Attrs   []xml.Attr `xml:",any,attr"`
			Text    string     `xml:",chardata"`
			Kids    []node     `xml:",any"`
		}
		var root node
		if err := xml.Unmarshal([]byte(x), &root); err != nil {
			t.Fatal(err)
		}
		var button, entry *node
		var walk func(n *node)
		walk = func(n *node) {
			for _, a := range n.Attrs {
				if a.Name.Local == "name" && a.Value == "Press Me" && n.XMLName.Local == "push-button" {
					button = n
				}
			}
			if n.XMLName.Local == "text" && strings.TrimSpace(n.Text) == "hello" {
				entry = n
			}
			for i := range n.Kids {
				walk(&n.Kids[i])
			}
		}
		walk(&root)
		if button == nil || entry == nil {
			t.Fatalf("no push-button \"Press Me\" or text \"hello\" in %s", x)
		}
		attrs := map[string]string{}
		for _, a := range button.Attrs {
			attrs[a.Name.Space+" "+a.Name.Local] = a.Value
		}
		const st, cp = "https://accessibility.ubuntu.example.org/ns/state", "https://accessibility.ubuntu.example.org/ns/component"
		if attrs[st+" showing"] != "true" || attrs[st+" enabled"] != "true" {
			t.Errorf("button states: %v", attrs)
		}
		if v := attrs[cp+" screencoord"]; !strings.HasPrefix(v, "(") || !strings.Contains(v, ", ") {
			t.Errorf("screencoord %q is not \"(x, y)\"", v)
		}
		if v := attrs[cp+" size"]; !strings.HasPrefix(v, "(") || !strings.Contains(v, ", ") {
			t.Errorf("size %q is not \"(w, h)\"", v)
		}
		if !strings.Contains(x, `val:value="10.0" val:min="0.0" val:max="100.0" val:step="1.0"`) {
			t.Errorf("slider value attributes missing: %s", x)
		}
	})

	t.Run("click by element", func(t *testing.T) {
		a, err := c.Accessibility(ctx, api.A11yList, app)
		if err != nil {
			t.Fatal(err)
		}
		b := findEl(a.Elements, "push button", "Press Me")
		if b == nil {
			t.Fatal(a.List)
		}
		if err := c.ElementAction(ctx, api.ElementAction{ID: b.ID, Action: api.ElementClick}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "label Pressed", func() bool {
			x, _ := c.AccessibilityXML(ctx, app)
			return strings.Contains(x, `<label name="Pressed"`)
		})
	})

	t.Run("set_value select, slider and text read back", func(t *testing.T) {
		a, err := c.Accessibility(ctx, api.A11yList, app)
		if err != nil {
			t.Fatal(err)
		}
		combo, slider, entry := findEl(a.Elements, "combo box", ""), findEl(a.Elements, "slider", ""), findEl(a.Elements, "text", "")
		if combo == nil || slider == nil || entry == nil {
			t.Fatal(a.List)
		}
		for _, x := range []api.ElementAction{{ID: combo.ID, Action: api.ElementSetValue, Value: "blue"},
			{ID: slider.ID, Action: api.ElementSetValue, Value: "42"}, {ID: entry.ID, Action: api.ElementSetValue, Value: "typed"}} {
			if err := c.ElementAction(ctx, x); err != nil {
				t.Fatalf("%+v: %v", x, err)
			}
		}
		var last string
		defer func() {
			if t.Failed() {
				t.Log(last)
			}
		}()
		waitFor(t, "values read back", func() bool {
			a, err := c.Accessibility(ctx, api.A11yList, app)
			if err != nil {
				return false
			}
			cb, sl, en := findEl(a.Elements, "combo box", ""), findEl(a.Elements, "slider", ""), findEl(a.Elements, "text", "")
			last = a.List
			return cb != nil && cb.Name == "Blue" && sl != nil && sl.Value == "42" && en != nil && en.Value == "typed"
		})
		err = c.ElementAction(ctx, api.ElementAction{ID: combo.ID, Action: api.ElementSetValue, Value: "Purple"})
		if err == nil || !strings.Contains(err.Error(), `no option "Purple" (options: Red, Green, Blue)`) {
			t.Errorf("unknown option: %v", err)
		}
		err = c.ElementAction(ctx, api.ElementAction{ID: "1.999/999999", Action: api.ElementClick})
		if err == nil {
			t.Error("a stale id was accepted")
		}
	})

	t.Run("set of marks", func(t *testing.T) {
		m, err := c.SetOfMarks(ctx, app, 0)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(m.Image))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != 1280 || len(m.Elements) < 4 {
			t.Fatalf("%v, %d elements", img.Bounds(), len(m.Elements))
		}
		b := findEl(m.Elements, "push button", "Press Me")
		// the outline is drawn on the box's top edge, in the first mark colour or another
		r, g, bl, _ := img.At(b.Bounds.X+b.Bounds.W/2, b.Bounds.Y).RGBA()
		if r>>8 == g>>8 && g>>8 == bl>>8 {
			t.Errorf("no coloured outline at the top of %+v", b.Bounds)
		}
		half, err := c.SetOfMarks(ctx, app, 640)
		if err != nil || half.Width != 640 || half.Height != 400 {
			t.Fatalf("half size: %v %dx%d", err, half.Width, half.Height)
		}
	})

	t.Run("a stopped application does not stall", func(t *testing.T) {
		pid2 := startGTK(t, c, py, "Stopped One")
		if err := syscall.Kill(pid2, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(pid2, syscall.SIGCONT)
		time.Sleep(1100 * time.Millisecond) // past the cache
		for i := range 2 {
			t0 := time.Now()
			lag := meterLag()
			a, err := c.Accessibility(ctx, api.A11yList, "")
			took, late := time.Since(t0), lag.done()
			if err != nil {
				t.Fatal(err)
			}
			if findEl(a.Elements, "push button", "Press Me") == nil {
				t.Fatalf("the running window is missing: %s", a.List)
			}
			if !a.Partial {
				t.Errorf("capture %d not marked partial with a stopped application", i)
			}
			if took > 8*time.Second+2*late {
				t.Errorf("capture %d took %v (timers up to %v late)", i, took, late)
			}
			t.Logf("capture %d with a stopped application: %v", i, took)
		}
	})
}
