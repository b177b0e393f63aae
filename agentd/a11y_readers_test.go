package agentd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// TestA11yConcurrentReaders runs 16 readers at once on one desktop (a GTK
// window and a Chromium page read over DevTools), each reading the whole
// tree uncached, as OSWorld's XML and as the element list, for 8 s: every
// read answers, and whole (both applications' objects in it); the work is
// bounded (concurrent reads of the same trees share one: at most one read
// per format in progress, whatever the number of readers); and nothing is
// left running after.
func TestA11yConcurrentReaders(t *testing.T) {
	py := needGTK(t)
	os.Unsetenv("DBUS_SESSION_BUS_ADDRESS")
	os.Unsetenv("AT_SPI_BUS_ADDRESS")
	s, c := start(t)
	ctx := context.Background()
	startGTK(t, c, py, "Readers Test")
	var page strings.Builder
	page.WriteString(`<html><head><title>Readers</title></head><body>`)
	for i := range 100 {
		fmt.Fprintf(&page, `<p><a href="#%d">link %d</a> <input aria-label="field %d"></p>`, i, i, i)
	}
	page.WriteString(`</body></html>`)
	startChromium(t, c, page.String(), freePort(t), `"field 3"`)
	time.Sleep(time.Second)
	before := runtime.NumGoroutine()

	var reads, fails atomic.Int64
	var mu sync.Mutex
	var worst time.Duration
	var errs []string
	stop := make(chan struct{})
	var maxInFlight atomic.Int64
	go func() { // how many tree reads run at once
		for {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				if n := s.a11yReads.Load(); n > maxInFlight.Load() {
					maxInFlight.Store(n)
				}
			}
		}
	}()
	end := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for time.Now().Before(end) {
				t0 := time.Now()
				var err error
				if i%2 == 0 {
					var x string
					x, err = freshRead(ctx, s, api.A11yXML)
					if err == nil && (!strings.Contains(x, `name="Press Me"`) || !strings.Contains(x, `name="link 99"`)) {
						err = fmt.Errorf("xml without the window's button or the page's last link (%d bytes)", len(x))
					}
				} else {
					var a api.Accessibility
					var b string
					if b, err = freshRead(ctx, s, api.A11yList); err == nil {
						err = json.Unmarshal([]byte(b), &a)
					}
					if err == nil && (findEl(a.Elements, "push button", "Press Me") == nil || findEl(a.Elements, "entry", "field 3") == nil) {
						err = fmt.Errorf("element list without the window's button or the page's field: %d elements", len(a.Elements))
					}
				}
				el := time.Since(t0)
				reads.Add(1)
				mu.Lock()
				worst = max(worst, el)
				if err != nil {
					fails.Add(1)
					if len(errs) < 5 {
						errs = append(errs, err.Error())
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	t.Logf("16 readers for 8 s: %d reads, %d failed, slowest %s, at most %d tree reads at once", reads.Load(), fails.Load(), worst, maxInFlight.Load())
	if fails.Load() > 0 {
		t.Errorf("%d reads failed: %s", fails.Load(), strings.Join(errs, "; "))
	}
	if reads.Load() < 16 {
		t.Errorf("only %d reads in 8 s", reads.Load())
	}
	if m := maxInFlight.Load(); m > 2 {
		t.Errorf("%d tree reads at once for two kinds of read: readers are not sharing reads", m)
	}
	if worst > 20*time.Second {
		t.Errorf("slowest read %s", worst)
	}
	// what the reads started ends with them (idle HTTP connections of the
	// 16 readers aside: two goroutines each)
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2*16+4 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2*16+4 {
		t.Errorf("%d goroutines after the readers, %d before", n, before)
	}
}

// freshRead reads the whole desktop's tree past agentd's cache.
func freshRead(ctx context.Context, s *Server, format string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.Addr()+"/v1/accessibility?fresh=true&format="+format, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return string(b), err
}
