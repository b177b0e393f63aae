package agentd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/atspi"
)

// TestAccessibilityCacheMatchesWalk reads the same GTK window and Chromium
// page through the applications' Cache interface and object by object, and
// expects the same OSWorld XML, element list and partial marks.
func TestAccessibilityCacheMatchesWalk(t *testing.T) {
	py := needGTK(t)
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("chromium is not installed (scripts/install-deps.sh installs it)")
	}
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	s, c := start(t)
	ctx := context.Background()
	pid := startGTK(t, c, py, "Cache Test")
	dir := t.TempDir()
	url := chromiumPage(t, dir, 40)
	r := sh(t, c, fmt.Sprintf("setsid chromium --no-sandbox --no-first-run --force-renderer-accessibility --user-data-dir=%s/profile --window-size=1200,760 %s >%s/chromium.log 2>&1 & echo $!", dir, url, dir))
	cpid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatal(r.Stdout)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cpid, syscall.SIGKILL)
		time.Sleep(500 * time.Millisecond)
	})
	waitFor(t, "the page's last link in the tree", func() bool {
		x, err := c.AccessibilityXML(ctx, "chromium")
		return err == nil && strings.Contains(x, `name="link 39"`)
	})

	cached, err := atspi.Dial(ctx, atspi.Options{SessionBus: s.a11y.session, CallTimeout: loadedDeadlines.CallTimeout, AppBudget: loadedDeadlines.AppBudget})
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	walk, err := atspi.Dial(ctx, atspi.Options{SessionBus: s.a11y.session, Walk: true, CallTimeout: loadedDeadlines.CallTimeout, AppBudget: loadedDeadlines.AppBudget})
	if err != nil {
		t.Fatal(err)
	}
	defer walk.Close()
	for _, app := range []string{strconv.Itoa(pid), "chromium"} {
		for _, detail := range []atspi.Detail{atspi.DetailXML, atspi.DetailList} {
			// the page can change between two reads (a caret, a focus):
			// a few tries, and the last difference is reported
			var a, b string
			for range 5 {
				opt := atspi.SnapshotOptions{App: app, Fresh: true, Detail: detail}
				da, err := cached.Snapshot(ctx, opt)
				if err != nil {
					t.Fatal(err)
				}
				db, err := walk.Snapshot(ctx, opt)
				if err != nil {
					t.Fatal(err)
				}
				if da.Partial || db.Partial {
					t.Fatalf("%s: partial tree (cache %v, walk %v)", app, da.Partial, db.Partial)
				}
				if detail == atspi.DetailXML {
					a, b = da.XML(), db.XML()
				} else {
					a, b = atspi.List(da.Elements(1280, 800)), atspi.List(db.Elements(1280, 800))
				}
				if a == b {
					break
				}
			}
			if a != b {
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				t.Errorf("%s detail %d: the cache's tree differs from the walk's at byte %d:\ncache %.300q\nwalk  %.300q", app, detail, i, a[max(0, i-100):], b[max(0, i-100):])
			}
			if !strings.Contains(a, "Press Me") && !strings.Contains(a, "Go Button") {
				t.Errorf("%s: the tree lacks the application's controls: %.1000s", app, a)
			}
		}
	}
	if n, _ := cached.Stats(); n == 0 {
		t.Error("no tree was read through the Cache interface")
	}
	if n, _ := walk.Stats(); n != 0 {
		t.Errorf("the walking client read %d trees through the Cache interface", n)
	}
}
