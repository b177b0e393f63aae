package agentd

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/deskrun/deskrun/runner/dialect"
)

// startChromium opens html in a Chromium of its own on agentd's desktop
// (with a DevTools port when port > 0) and waits until want is in the
// page's element list.
func startChromium(t *testing.T, c *client.Client, html string, port int, want string) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("chromium is not installed (scripts/install-deps.sh installs it)")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "page.html")
	if err := os.WriteFile(p, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := ""
	if port > 0 {
		flags = fmt.Sprintf("--remote-debugging-port=%d", port)
	}
	r := sh(t, c, fmt.Sprintf("setsid chromium --no-sandbox --no-first-run --user-data-dir=%s/profile --window-size=1200,760 %s file://%s >%s/chromium.log 2>&1 & echo $!", dir, flags, p, dir))
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(r.Stdout)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		time.Sleep(500 * time.Millisecond)
	})
	waitFor(t, want+" in the page's elements", func() bool {
		a, err := c.Accessibility(context.Background(), api.A11yList, "chromium")
		return err == nil && strings.Contains(a.List, want)
	})
}

// waitTitle waits for a window whose title starts with want.
func waitTitle(t *testing.T, c *client.Client, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ws, _ := c.Windows(context.Background())
		for _, w := range ws {
			if strings.HasPrefix(w.Title, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window titled %q: %+v", want, ws)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

const byNamePage = `<html><head><title>By Name</title></head><body>
<form><label>Recipient <input oninput="document.title='To '+this.value"></label>
<a href="#list" onclick="document.title='Link clicked'">Recipients list</a>
<button type="button" onclick="document.title='Send A'">Send</button>
<button type="button" onclick="document.title='Send B'">Send</button>
<button type="button" onclick="document.title='Send later'">Send later</button>
<select aria-label="Shade" onchange="document.title='Shade '+this.value"><option>Blue</option><option>Light Blue</option><option>Dark Blue</option></select>
</form></body></html>`

// TestElementByNameChromium chooses elements by name on a real Chromium
// page as a person would: type_into_element "Recipient" fills the entry
// its label names (not the label's static text), equal names answer with
// the candidates, an exact name wins over a prefix, and set_value picks
// options by the same rules; with the page read through AT-SPI (a
// browser without DevTools) and through DevTools (the elements then act
// through the page's DOM).
func TestElementByNameChromium(t *testing.T) {
	needX(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	t.Run("atspi", func(t *testing.T) { elementsByName(t, false) })
	t.Run("devtools", func(t *testing.T) { elementsByName(t, true) })
}

func elementsByName(t *testing.T, devtools bool) {
	_, c := start(t)
	ctx := context.Background()
	port := 0
	if devtools {
		port = freePort(t)
	}
	startChromium(t, c, byNamePage, port, `"Send later"`)
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
	r := call("type_into_element", `{"name":"Recipient","text":"Ada"}`)
	if r.IsError || !strings.Contains(r.Content[0].Text, `entry "Recipient"`) {
		t.Fatalf("type_into_element Recipient: %+v", r.Content)
	}
	waitTitle(t, c, "To Ada")

	r = call("click_element", `{"name":"Send"}`)
	if !r.IsError || !strings.Contains(r.Content[0].Text, `2 elements match name "Send" equally well (exact match)`) ||
		strings.Count(r.Content[0].Text, `push button "Send" at`) != 2 {
		t.Fatalf("two buttons named Send: %+v", r.Content)
	}
	if r = call("click_element", `{"name":"send later"}`); r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	waitTitle(t, c, "Send later")
	if r = call("click_element", `{"name":"Recipients"}`); r.IsError || !strings.Contains(r.Content[0].Text, `link "Recipients list"`) {
		t.Fatalf("click Recipients: %+v", r.Content)
	}
	waitTitle(t, c, "Link clicked")

	l, err := c.Accessibility(ctx, api.A11yList, "chromium")
	if err != nil {
		t.Fatal(err)
	}
	sel := findEl(l.Elements, "combo box", "Shade")
	if sel == nil {
		t.Fatalf("no combo box Shade: %s", l.List)
	}
	if strings.HasPrefix(sel.ID, webIDPrefix) != devtools {
		t.Fatalf("element %s: read over DevTools is %v, want %v", sel.ID, !devtools, devtools)
	}
	set := func(v string) error {
		return c.ElementAction(ctx, api.ElementAction{ID: sel.ID, Action: api.ElementSetValue, Value: v})
	}
	if err := set("blue"); err != nil {
		t.Fatal(err)
	}
	if err := set("Light"); err != nil {
		t.Fatal(err)
	}
	waitTitle(t, c, "Shade Light Blue")
	if err := set("Blue"); err != nil {
		t.Fatal(err)
	}
	waitTitle(t, c, "Shade Blue")
	if err := set("lu"); err == nil || !strings.Contains(err.Error(), `several options matching "lu" (substring match): "Blue"; "Light Blue"; "Dark Blue"`) {
		t.Fatalf("set_value lu: %v", err)
	}

	// hermes: set_value on the select by its index in an ax capture
	h, _ := dialect.ByName("hermes")
	hst := &dialect.State{}
	hcall := func(args string) dialect.Result {
		t.Helper()
		r, err := h.Call(ctx, c, hst, "computer_use", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r = hcall(`{"action":"capture","mode":"ax","app":"chromium"}`)
	var meta struct {
		Elements []struct {
			Index      int
			Role, Name string
		}
	}
	if err := json.Unmarshal([]byte(r.Content[0].Text), &meta); err != nil {
		t.Fatal(err)
	}
	idx := 0
	for _, e := range meta.Elements {
		if e.Role == "combo box" && e.Name == "Shade" {
			idx = e.Index
		}
	}
	if idx == 0 {
		t.Fatal(r.Content[0].Text)
	}
	if r = hcall(fmt.Sprintf(`{"action":"set_value","element":%d,"value":"dark"}`, idx)); r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	waitTitle(t, c, "Shade Dark Blue")
}
