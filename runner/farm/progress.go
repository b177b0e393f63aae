package farm

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progress reports a run as it goes: on a terminal one line rewritten in
// place (with a line of its own for each task that did not pass), else a
// line per finished task.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	term    bool
	total   int
	done    int
	passed  int
	running int
	start   time.Time
	now     func() time.Time
}

func newProgress(w io.Writer, term bool, total int) *progress {
	return &progress{w: w, term: term, total: total, start: time.Now(), now: time.Now}
}

// tick redraws the terminal's line every second (so the elapsed time
// moves while long tasks run) until the returned function is called; the
// function waits for the redrawing to end.
func (p *progress) tick() (stop func()) {
	if p.w == nil || !p.term {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.mu.Lock()
				p.redraw()
				p.mu.Unlock()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

func (p *progress) started() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running++
	p.redraw()
}

func (p *progress) ended() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	p.redraw()
}

// finished reports a result.
func (p *progress) finished(r Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if r.Status == StatusPassed {
		p.passed++
	}
	if p.w == nil {
		return
	}
	line := fmt.Sprintf("%d/%d %-7s %s score=%.2f steps=%d %s", p.done, p.total, r.Status, r.Key(), r.Score, r.Steps, seconds(r.DurationMS))
	if r.Attempts > 1 {
		line += fmt.Sprintf(" attempts=%d", r.Attempts)
	}
	if r.Error != "" {
		line += " error=" + oneLine(r.Error, 200)
	}
	if !p.term {
		fmt.Fprintln(p.w, line)
		return
	}
	if r.Status != StatusPassed {
		fmt.Fprintf(p.w, "\r\033[K%s\n", line)
	}
	p.redraw()
}

// redraw rewrites the terminal's status line. The caller holds p.mu.
func (p *progress) redraw() {
	if p.w == nil || !p.term {
		return
	}
	const width = 24
	n := 0
	if p.total > 0 {
		n = width * p.done / p.total
	}
	elapsed := p.now().Sub(p.start).Round(time.Second)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d done, %d passed, %d running, %s", strings.Repeat("#", n), strings.Repeat(".", width-n),
		p.done, p.total, p.passed, p.running, elapsed)
}

// finish ends the terminal's status line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w != nil && p.term {
		p.redraw()
		fmt.Fprintln(p.w)
	}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
