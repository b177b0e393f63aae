//go:build bench

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deskrun/deskrun/api"
)

// benchA11y times fresh reads of the accessibility tree in OSWorld's XML
// (no cache) of a Chromium page of 1,163 nodes (the page's content read
// both ways side by side: AT-SPI's walk, and the DevTools protocol, the
// browser's own views through AT-SPI), of the tests' GTK window and of a
// LibreOffice Calc window, then runs concurrent readers for o.soak.
func benchA11y(ctx context.Context, d *desktop, o options, t *table) error {
	page := filepath.Join(d.tmp, "a11y.html")
	var b strings.Builder
	b.WriteString(`<html><head><title>A11y Bench</title></head><body><h1>Bench</h1>`)
	for i := range 230 {
		fmt.Fprintf(&b, `<p><a href="#%d">link %d</a> <input aria-label="field %d" value="v%d"></p>`, i, i, i, i)
	}
	b.WriteString(`</body></html>`)
	if err := os.WriteFile(page, []byte(b.String()), 0o644); err != nil {
		return err
	}
	start := func(cmd string) error {
		_, err := d.client.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "setsid " + cmd + " >/dev/null 2>&1 &"}})
		return err
	}
	// a DevTools port, as OSWorld's tasks start google-chrome
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if err := start(fmt.Sprintf("chromium --no-sandbox --no-first-run --user-data-dir=%s/chromium --remote-debugging-port=%d --window-size=1200,760 file://%s", d.tmp, port, page)); err != nil {
		return err
	}
	apps := []struct{ name, app, want, pages string }{
		{"Chromium page, AT-SPI walk", "chromium", `name="link 229"`, "atspi"},
		{"Chromium page, DevTools", "chromium", `name="link 229"`, "devtools"},
	}
	// the tests' GTK 3 window (python3-gi)
	if py, err := filepath.Abs("agentd/atspi/testdata/gtkapp.py"); err == nil && fileExists(py) {
		r, err := d.client.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "setsid /usr/bin/python3 " + py + " 'Bench Window' >/dev/null 2>&1 & echo $!"}})
		if err != nil {
			return err
		}
		apps = append(apps, struct{ name, app, want, pages string }{"GTK 3 window", strings.TrimSpace(r.Stdout), `name="Press Me"`, ""})
	}
	// LibreOffice publishes its tree only through its GTK 3 plugin
	// (Debian: libreoffice-gtk3)
	if _, err := exec.LookPath("libreoffice"); err == nil && fileExists("/usr/lib/libreoffice/program/libvclplug_gtk3lo.so") {
		if err := start(fmt.Sprintf("libreoffice -env:UserInstallation=file://%s/lo --norestore --calc", d.tmp)); err != nil {
			return err
		}
		apps = append(apps, struct{ name, app, want, pages string }{"LibreOffice Calc window", "soffice", "<table-cell", ""})
	}
	t.section("Accessibility tree, OSWorld XML, uncached (n="+fmt.Sprint(o.a11yReads)+")", "per tree")
	for _, a := range apps {
		var nodes int
		deadline := time.Now().Add(90 * time.Second)
		for {
			x, err := d.fetch(ctx, a.app, "xml", a.pages)
			if err == nil && strings.Contains(x, a.want) {
				nodes = strings.Count(x, "<") - strings.Count(x, "</")
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: tree not readable within 90 s: %v", a.name, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
		ds, err := timeIt(o.a11yReads, func() error { _, err := d.fetch(ctx, a.app, "xml", a.pages); return err })
		if err != nil {
			return err
		}
		t.row(a.name, ds, 0, fmt.Sprintf("%d nodes, p95 %s", nodes, short(percentile(ds, 0.95))))
	}
	// the element list (hermes' ax capture, set-of-marks) reads less of
	// each object
	for _, a := range apps[:2] {
		ds, err := timeIt(o.a11yReads, func() error { _, err := d.fetch(ctx, a.app, "list", a.pages); return err })
		if err != nil {
			return err
		}
		t.row(a.name+", element list", ds, 0, "p95 "+short(percentile(ds, 0.95)))
	}
	// the reads agents make (no fresh=true), each more than the cache's
	// second after the last: the page over DevTools anew, the browser's
	// own views kept while AT-SPI's events say they have not changed
	for _, f := range []string{"xml", "list"} {
		var ds []time.Duration
		for i := range o.a11yReads + 1 {
			time.Sleep(1100 * time.Millisecond)
			start := time.Now()
			if _, err := d.fetchAs(ctx, "chromium", f, "", false); err != nil {
				return err
			}
			if i > 0 { // the first fills the cache
				ds = append(ds, time.Since(start))
			}
		}
		name := "Chromium page, DevTools, default read (views kept by events)"
		if f == "list" {
			name += ", element list"
		}
		t.row(name, ds, 0, "p95 "+short(percentile(ds, 0.95)))
	}
	// concurrent readers
	var reads, fails atomic.Int64
	var mu sync.Mutex
	var worst time.Duration
	var lastErr error
	end := time.Now().Add(o.a11ySoak)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for time.Now().Before(end) {
				t0 := time.Now()
				a := apps[i%len(apps)]
				_, err := d.fetch(ctx, a.app, "xml", a.pages)
				el := time.Since(t0)
				reads.Add(1)
				mu.Lock()
				worst = max(worst, el)
				if err != nil {
					fails.Add(1)
					lastErr = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	note := fmt.Sprintf("16 readers for %s: %d reads, %d failed, slowest %s", o.a11ySoak, reads.Load(), fails.Load(), short(worst))
	if lastErr != nil {
		note += "; last error: " + lastErr.Error()
	}
	fmt.Fprintf(&t.b, "\n%s\n", note)
	return nil
}

// fetch reads the tree uncached in a format, the pages of browsers as
// pages says ("atspi", "devtools"; "" for agentd's default).
func (d *desktop) fetch(ctx context.Context, app, format, pages string) (string, error) {
	return d.fetchAs(ctx, app, format, pages, true)
}

// fetchAs reads the tree; fresh ignores agentd's cache.
func (d *desktop) fetchAs(ctx context.Context, app, format, pages string, fresh bool) (string, error) {
	q := fmt.Sprintf("/v1/accessibility?format=%s&fresh=%v&app=%s", format, fresh, app)
	if pages != "" {
		q += "&pages=" + pages
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url+q, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer bench")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return string(body), err
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
