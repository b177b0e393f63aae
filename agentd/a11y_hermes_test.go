package agentd

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/dialect"
)

// TestHermesElements drives hermes' computer_use against a real GTK window:
// capture som and ax, click the button by its index, a stale index refused.
func TestHermesElements(t *testing.T) {
	py := needGTK(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	_, c := start(t)
	ctx := context.Background()
	pid := startGTK(t, c, py, "Hermes Test")
	h, _ := dialect.ByName("hermes")
	st := &dialect.State{}
	call := func(args map[string]any) dialect.Result {
		t.Helper()
		b, _ := json.Marshal(args)
		r, err := h.Call(ctx, c, st, "computer_use", b)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := call(map[string]any{"action": "capture", "mode": "ax", "app": strconv.Itoa(pid), "max_elements": 2})
	if r.IsError || !strings.Contains(r.Content[0].Text, `"truncated_elements": 2`) || !strings.Contains(r.Content[0].Text, `"total_elements": 4`) {
		t.Fatalf("ax capture: %+v", r.Content)
	}
	r = call(map[string]any{"action": "capture", "app": strconv.Itoa(pid)})
	if r.IsError || len(r.Content) != 2 || r.Content[1].Type != "image" {
		t.Fatalf("som capture: %+v", r)
	}
	var meta struct {
		Elements []struct {
			Index int
			Role  string
			Name  string
		}
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), &meta); err != nil {
		t.Fatal(err)
	}
	idx := 0
	for _, e := range meta.Elements {
		if e.Role == "push button" && e.Name == "Press Me" {
			idx = e.Index
		}
	}
	if idx == 0 {
		t.Fatal(r.Content[0].Text)
	}
	r = call(map[string]any{"action": "click", "element": idx})
	if r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	waitFor(t, "label Pressed", func() bool {
		x, _ := c.AccessibilityXML(ctx, strconv.Itoa(pid))
		return strings.Contains(x, `<label name="Pressed"`)
	})
	r = call(map[string]any{"action": "set_value", "element": idx + 1, "value": "Green", "capture_after": true})
	if r.IsError || len(r.Content) < 3 {
		t.Fatalf("set_value: %+v", r.Content[0].Text)
	}
	a, _ := c.Accessibility(ctx, api.A11yList, strconv.Itoa(pid))
	if cb := findEl(a.Elements, "combo box", ""); cb == nil || cb.Name != "Green" {
		t.Fatalf("combo after set_value: %s", a.List)
	}
	r = call(map[string]any{"action": "click", "element": 99})
	if !r.IsError || !strings.Contains(r.Content[0].Text, "element 99 is not in the last capture, which numbered elements 1 to 4; capture again") {
		t.Fatalf("stale index: %+v", r.Content)
	}
}

// TestAnthropicElementTools drives click_element and type_into_element
// against a real GTK window.
func TestAnthropicElementTools(t *testing.T) {
	py := needGTK(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	_, c := start(t)
	ctx := context.Background()
	pid := startGTK(t, c, py, "Anthropic Test")
	a, _ := dialect.ByName("anthropic")
	st := &dialect.State{}
	call := func(name, args string) dialect.Result {
		t.Helper()
		r, err := a.Call(ctx, c, st, name, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := call("click_element", `{"name":"press me","role":"Button"}`); r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	waitFor(t, "label Pressed", func() bool {
		x, _ := c.AccessibilityXML(ctx, strconv.Itoa(pid))
		return strings.Contains(x, `<label name="Pressed"`)
	})
	if r := call("type_into_element", `{"role":"Edit","text":"filled in"}`); r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	waitFor(t, "entry text", func() bool {
		l, _ := c.Accessibility(ctx, api.A11yList, strconv.Itoa(pid))
		e := findEl(l.Elements, "text", "")
		return e != nil && e.Value == "filled in"
	})
	r := call("click_element", `{"name":"No Such Button"}`)
	if !r.IsError || r.Content[0].Text != `no element on the screen matches name "No Such Button"; take a screenshot or check the names` {
		t.Fatalf("missing element: %+v", r.Content)
	}
}

// TestHermesApps lists the applications (a GTK window on the accessibility
// bus, an xterm that is not) and focuses each by name, checked by the
// active window.
func TestHermesApps(t *testing.T) {
	py := needGTK(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	_, c := start(t)
	ctx := context.Background()
	pid := startGTK(t, c, py, "Apps Window")
	sh(t, c, "setsid xterm -T 'Apps Terminal' >/dev/null 2>&1 &")
	waitFor(t, "the xterm's window", func() bool {
		ws, _ := c.Windows(ctx)
		for _, w := range ws {
			if w.Title == "Apps Terminal" {
				return true
			}
		}
		return false
	})
	h, _ := dialect.ByName("hermes")
	st := &dialect.State{}
	call := func(args map[string]any) dialect.Result {
		t.Helper()
		b, _ := json.Marshal(args)
		r, err := h.Call(ctx, c, st, "computer_use", b)
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError {
			t.Fatalf("%v: %s", args, r.Content[0].Text)
		}
		return r
	}
	var list struct {
		Apps []struct {
			Name       string
			PID        int
			Windows    []string
			Active     bool
			Accessible bool
		}
	}
	r := call(map[string]any{"action": "list_apps"})
	if err := json.Unmarshal([]byte(r.Content[0].Text), &list); err != nil {
		t.Fatal(err)
	}
	gtkName := ""
	term := false
	for _, a := range list.Apps {
		if a.PID == pid {
			if !a.Accessible || a.Name == "" || len(a.Windows) != 1 || a.Windows[0] != "Apps Window" {
				t.Errorf("the GTK application: %+v", a)
			}
			gtkName = a.Name
		}
		if len(a.Windows) == 1 && a.Windows[0] == "Apps Terminal" {
			term = !a.Accessible
		}
	}
	if gtkName == "" || !term {
		t.Fatalf("list_apps: %s", r.Content[0].Text)
	}
	active := func() string {
		ws, _ := c.Windows(ctx)
		for _, w := range ws {
			if w.Active {
				return w.Title
			}
		}
		return ""
	}
	call(map[string]any{"action": "focus_app", "app": "xterm"})
	waitFor(t, "the terminal active", func() bool { return active() == "Apps Terminal" })
	r = call(map[string]any{"action": "focus_app", "app": strings.ToUpper(gtkName)})
	if !strings.Contains(r.Content[0].Text, `"Apps Window"`) {
		t.Fatalf("focus_app %s: %s", gtkName, r.Content[0].Text)
	}
	waitFor(t, "the GTK window active", func() bool { return active() == "Apps Window" })
}
