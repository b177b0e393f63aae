package agentd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// chromiumPage writes a page with a button that retitles the page, a
// select and n links, and returns its URL.
func chromiumPage(t testing.TB, dir string, n int) string {
	var b strings.Builder
	b.WriteString(`<html><head><title>A11y Page</title></head><body><h1>A11y</h1>`)
	b.WriteString(`<button onclick="document.title='Clicked'">Go Button</button>`)
	b.WriteString(`<select aria-label="Colour" onchange="document.title='Picked '+this.value"><option>Red</option><option>Green</option><option>Blue</option></select>`)
	for i := range n {
		fmt.Fprintf(&b, `<p><a href="#%d">link %d</a> <input aria-label="field %d" value="v%d"></p>`, i, i, i, i)
	}
	b.WriteString(`</body></html>`)
	p := filepath.Join(dir, "page.html")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + p
}

// TestAccessibilityChromium reads a Chromium page through agentd, clicks
// its button by element and picks a select option, verified by the title.
func TestAccessibilityChromium(t *testing.T) {
	needX(t)
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("chromium is not installed (scripts/install-deps.sh installs it)")
	}
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	_, c := start(t)
	ctx := context.Background()
	dir := t.TempDir()
	url := chromiumPage(t, dir, 20)
	r := sh(t, c, fmt.Sprintf("setsid chromium --no-sandbox --no-first-run --user-data-dir=%s/profile --window-size=1200,760 %s >%s/chromium.log 2>&1 & echo $!", dir, url, dir))
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(r.Stdout)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // its process group: the browser and its helpers
		time.Sleep(500 * time.Millisecond)
	})
	var els []api.Element
	waitFor(t, "the page's button in the tree", func() bool {
		a, err := c.Accessibility(ctx, api.A11yList, "chromium")
		els = a.Elements
		return err == nil && findEl(a.Elements, "push button", "Go Button") != nil
	})
	b := findEl(els, "push button", "Go Button")
	if err := c.ElementAction(ctx, api.ElementAction{ID: b.ID, Action: api.ElementClick}); err != nil {
		t.Fatal(err)
	}
	waitTitle := func(want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			ws, _ := c.Windows(ctx)
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
	waitTitle("Clicked")
	sel := findEl(els, "combo box", "Colour")
	if sel == nil {
		a, _ := c.Accessibility(ctx, api.A11yList, "chromium")
		t.Fatalf("no combo box Colour: %s", a.List)
	}
	if err := c.ElementAction(ctx, api.ElementAction{ID: sel.ID, Action: api.ElementSetValue, Value: "Green"}); err != nil {
		t.Fatal(err)
	}
	waitTitle("Picked Green")
	x, err := c.AccessibilityXML(ctx, "chromium")
	if err != nil || !strings.Contains(x, `<push-button name="Go Button"`) || !strings.Contains(x, `<link name="link 3"`) {
		t.Fatalf("xml: %v %.2000s", err, x)
	}
}
