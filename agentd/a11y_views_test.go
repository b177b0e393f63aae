package agentd

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// TestBrowserViewsKeptUntilTheyChange: where a browser's pages are read
// over DevTools, its own views (window, toolbar, tabs) are read over
// AT-SPI once and kept while they do not change: events from the page
// (here a counter ticking every 200 ms) leave them, reads past the
// cache's second still reuse them, and the page's part is read anew
// each time. A new title (events from the window and the tab with the
// new name) is in the next read; a moved window (its box no longer where
// it was) has its views read again.
func TestBrowserViewsKeptUntilTheyChange(t *testing.T) {
	needX(t)
	s, c := start(t)
	ctx := context.Background()
	const page = `<html><head><title>Views Page</title></head><body>
<button onclick="document.title='Retitled Page'">Retitle</button>
<p id="n">tick 0</p>
<script>let i = 0; setInterval(() => { document.getElementById('n').textContent = 'tick ' + (++i); }, 200);</script>
</body></html>`
	startChromium(t, c, page, freePort(t), "Retitle")
	cl, err := s.atspi(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile(`tick (\d+)`)
	read := func() (string, int, int64) {
		t.Helper()
		x, err := c.AccessibilityXML(ctx, "chromium")
		if err != nil {
			t.Fatal(err)
		}
		m := tick.FindStringSubmatch(x)
		if m == nil {
			t.Fatalf("no tick in the page: %.3000s", x)
		}
		n, _ := strconv.Atoi(m[1])
		fromCache, walked := cl.Stats()
		return x, n, fromCache + walked
	}
	// A browser that has just started still sends window events (focus,
	// its first layout) and, on a loaded machine, a read may run out of
	// time: either reads the views again, rightly. The check starts once
	// two reads a cache's second apart share the views.
	_, n0, reads0 := read()
	for settled := time.Now().Add(20 * time.Second); ; {
		time.Sleep(1200 * time.Millisecond)
		_, n, reads := read()
		n0 = n
		if reads == reads0 {
			break
		}
		reads0 = reads
		if time.Now().After(settled) {
			t.Fatalf("the browser's views were read anew on every read for 20 s (%d tree reads)", reads)
		}
	}
	for i := range 3 {
		time.Sleep(1200 * time.Millisecond) // past the cache's second
		_, n, reads := read()
		if reads != reads0 {
			t.Fatalf("read %d: the browser's views were read again (%d tree reads, %d before) though only the page changed", i+1, reads, reads0)
		}
		if n <= n0 {
			t.Fatalf("read %d: the page says tick %d, as the read before (%d): its part was not read anew", i+1, n, n0)
		}
		n0 = n
	}

	// a new title: the window's and the tab's names change
	a, err := c.Accessibility(ctx, api.A11yList, "chromium")
	if err != nil {
		t.Fatal(err)
	}
	b := findEl(a.Elements, "push button", "Retitle")
	if b == nil {
		t.Fatalf("no Retitle button: %s", a.List)
	}
	if err := c.ElementAction(ctx, api.ElementAction{ID: b.ID, Action: api.ElementClick}); err != nil {
		t.Fatal(err)
	}
	waitTitle(t, c, "Retitled Page")
	x, _, _ := read()
	for _, want := range []string{`<frame name="Retitled Page`, `<page-tab name="Retitled Page`} {
		if !strings.Contains(x, want) {
			t.Errorf("the new title is not in the tree (%s): %.3000s", want, x)
		}
	}

	// a moved window: its views' boxes change
	frame := regexp.MustCompile(`<frame name="Retitled Page[^>]*cp:screencoord="\((-?\d+), (-?\d+)\)"`)
	m := frame.FindStringSubmatch(x)
	if m == nil {
		t.Fatalf("no frame with coordinates: %.1500s", x)
	}
	time.Sleep(1200 * time.Millisecond)
	_, _, reads0 = read()
	mv := exec.Command("xdotool", "search", "--name", "Retitled Page", "windowmove", "--sync", "137", "91")
	mv.Env = append(mv.Environ(), "DISPLAY="+s.Display())
	if out, err := mv.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v: %s", err, out)
	}
	time.Sleep(300 * time.Millisecond)
	x, _, reads := read()
	if reads == reads0 {
		t.Errorf("the window moved, but the browser's views came from the cache")
	}
	m2 := frame.FindStringSubmatch(x)
	if m2 == nil || fmt.Sprint(m2[1:]) == fmt.Sprint(m[1:]) {
		t.Errorf("the frame was at (%s, %s) and is at %v after the move", m[1], m[2], m2)
	}
}
