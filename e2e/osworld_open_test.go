//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/server/osworld"
)

// TestOSWorldOpenSpreadsheet runs OSWorld's commonest setup on the
// osworld image: download a spreadsheet and open it. As on OSWorld's
// Ubuntu VM, the file opens in LibreOffice Calc (the application
// registered for .xlsx), not in the web browser, and the open step
// returns once the document's window is on the screen (not at Calc's
// splash screen), so the activate_window step that OSWorld's tasks put
// next finds "table.xlsx - LibreOffice Calc" at once instead of waiting
// out its timeout.
func TestOSWorldOpenSpreadsheet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the osworld image")
	}
	m := osworldManager(t)
	xlsx, err := os.ReadFile("../runner/task/metric/testdata/metrics/table_bold.xlsx")
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(t.TempDir(), "table.xlsx")
	if err := os.WriteFile(input, xlsx, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "docker", Image: osworldImage, Screen: api.Screen{Width: 1920, Height: 1080}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Delete(context.WithoutCancel(ctx), sess.ID())
	const title = "table.xlsx - LibreOffice Calc"
	setup := func(steps string) time.Duration {
		t.Helper()
		tk, err := task.Parse(fmt.Appendf(nil, `{"id": "open-calc", "instruction": "Bold the header row.", "config": [%s], "evaluator": {"func": "infeasible"}}`, steps), task.FormatJSON)
		if err != nil {
			t.Fatal(err)
		}
		tk.Dir = filepath.Dir(input) // as a task file beside its input
		start := time.Now()
		if err := task.Setup(ctx, sess, tk, task.Options{}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}

	took := setup(fmt.Sprintf(`{"type": "download", "parameters": {"files": [{"url": "file://%s", "path": "/home/user/table.xlsx"}]}},
	  {"type": "open", "parameters": {"path": "/home/user/table.xlsx"}}`, input))
	t.Logf("download and open: %v", took.Round(time.Millisecond))
	ws, err := sess.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	found := false
	for _, w := range ws {
		titles = append(titles, fmt.Sprintf("%q (%s)", w.Title, w.Class))
		found = found || w.Title == title && strings.Contains(w.Class, "libreoffice")
	}
	if !found {
		t.Fatalf("after the open step, windows are %s; want %q of LibreOffice Calc", strings.Join(titles, ", "), title)
	}

	// The window is there: activating it by its exact title takes no
	// waiting (the step's timeout is 10 s).
	took = setup(fmt.Sprintf(`{"type": "activate_window", "parameters": {"window_name": %q, "strict": true}}`, title))
	if took > 5*time.Second {
		t.Errorf("activate_window %q took %v; the window was already there", title, took)
	}
	ws, err = sess.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.Active && w.Title != title {
			t.Errorf("active window after activate_window is %q, want %q", w.Title, title)
		}
	}

	// OSWorld's own client opens files through the server's
	// /setup/open_file: the same application (a second spreadsheet, in
	// the Calc that runs).
	srv, err := osworld.Start(sess, osworld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if err := sess.WriteFile(ctx, "/home/user/other.xlsx", xlsx); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+srv.Addrs().Server+"/setup/open_file", "application/json", strings.NewReader(`{"path": "~/other.xlsx"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/setup/open_file: %s", resp.Status)
	}
	eventually(t, 30*time.Second, "Calc's window after /setup/open_file", func() error {
		ws, err := sess.Windows(ctx)
		if err != nil {
			return err
		}
		for _, w := range ws {
			if w.Title == "other.xlsx - LibreOffice Calc" {
				return nil
			}
		}
		return fmt.Errorf("windows %v", ws)
	})
}
