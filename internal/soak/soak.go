// Package soak drives a running deskrun server the way a busy user
// would, for a long time, while faults are injected into its sandboxes
// at random, and reports what a user would check: every call answered
// within its deadline with a clear status (never a 500), each fault
// reported on its own session only (others keep answering), a killed
// sandbox marked unreachable and answering 503 at once, a paused one
// answering again once resumed, task suite runs under way keeping each
// result exactly once, and, once every session is deleted, the server's
// goroutines back where they started and its memory not grown.
//
// It speaks to the server over HTTP only, so it runs against `deskrun
// serve` as a process with any provider; the faults are the caller's,
// since killing and pausing a sandbox depends on the provider (processes
// for local, containers for docker). The tests that use it are
// cmd/deskrun's TestSoak (local sandboxes, part of the unit tests) and
// e2e's TestSoakDocker; `make soak` runs either for longer.
package soak

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deskrun/deskrun/api"
)

// A Fault breaks a session's sandbox.
type Fault struct {
	// Name says what it does, e.g. "kill agentd".
	Name string
	// Recovers says the sandbox answers again after the fault without
	// help (agentd restarts a killed Xvfb; a paused sandbox is resumed
	// after Config.Pause). A fault that does not recover must get the
	// session marked unreachable; the soak then deletes it and creates
	// another.
	Recovers bool
	// Pauses says Inject froze the sandbox and the undo it returns
	// resumes it.
	Pauses bool
	// Inject applies the fault to the sandbox of s. It returns the undo
	// of a pause (nil for the others).
	Inject func(ctx context.Context, s api.Session) (undo func() error, err error)
}

// Config configures a soak.
type Config struct {
	URL, Token string
	// Sessions is how many sessions are held and driven at once.
	Sessions int
	// Duration is how long they are driven.
	Duration time.Duration
	// Create is the body of every session's creation.
	Create api.CreateSessionRequest
	// CallTimeout is the server's bound on a call to a sandbox
	// (serve --call-timeout); every call must answer within it and a
	// margin.
	CallTimeout time.Duration
	// HealthInterval is the server's health check interval (2 s).
	HealthInterval time.Duration
	// StartTimeout bounds creating a session.
	StartTimeout time.Duration
	// FaultEvery is the mean time between two faults; Faults are chosen
	// from at random, on a session without a fault.
	FaultEvery time.Duration
	Faults     []Fault
	// Pause is the range a paused sandbox stays paused.
	Pause [2]time.Duration
	// Tasks, when set, is a task folder on the server run again and
	// again (POST /v1/runs) while the soak lasts, the tasks named by
	// RunOnly at parallel 2.
	Tasks   string
	RunOnly []string
	// OnSession is called with every session created (e.g. to find its
	// processes later).
	OnSession func(api.Session)
	// Logf receives progress lines.
	Logf func(format string, args ...any)
	// Seed makes the choices repeatable.
	Seed uint64
}

// Report is what a soak found.
type Report struct {
	Calls    int64                    // calls made on sessions
	ByStatus map[int]int64            // of those, by HTTP status
	Faults   map[string]int           // faults injected, by name
	Slowest  map[string]time.Duration // slowest answer by kind of call
	// SlowestClean is the slowest answer to a call on a session that had
	// no fault (an exec's own wait included).
	SlowestClean time.Duration
	Created      int // sessions created (the first ones and replacements)
	Runs         int // task suite runs finished
	Results      int // their results
	Passed       int // of which passed
	// Goroutines of the server before the first session and after the
	// last was deleted; RSS of the server early under load and at the
	// end of it, in bytes.
	GoroutinesBefore, GoroutinesAfter int
	RSSEarly, RSSLate                 float64
	RSSPeak                           float64
	// Problems lists every way the server fell short; empty is a pass.
	Problems []string
}

// Growth is the server's memory growth under load, late against early.
func (r *Report) Growth() float64 {
	if r.RSSEarly == 0 {
		return 0
	}
	return r.RSSLate/r.RSSEarly - 1
}

func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d calls, by status %v; %d sessions created; faults %v; slowest answers %v (%v on sessions without a fault); ", r.Calls, r.ByStatus, r.Created, r.Faults, r.Slowest, r.SlowestClean)
	fmt.Fprintf(&b, "%d runs finished, %d results (%d passed); goroutines %d before, %d after; RSS %.1f MiB early, %.1f MiB late (%+.1f%%), peak %.1f MiB; %d problems",
		r.Runs, r.Results, r.Passed, r.GoroutinesBefore, r.GoroutinesAfter, r.RSSEarly/(1<<20), r.RSSLate/(1<<20), 100*r.Growth(), r.RSSPeak/(1<<20), len(r.Problems))
	return b.String()
}

// slot is one of the sessions held.
type slot struct {
	n int

	mu   sync.Mutex
	sess *api.Session // nil between a deletion and the next creation
	// faulty is set while a fault is injected and until the session
	// answers again or is deleted; epoch counts the faults, so a call
	// that overlapped one is known.
	faulty bool
	epoch  int
	fault  string
	// cursor is where the last move put the pointer, checked by the
	// next cursor call of an unfaulted session.
	cursorX, cursorY int
	cursorSet        bool
}

func (s *slot) state() (sess *api.Session, faulty bool, epoch int, fault string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, s.faulty, s.epoch, s.fault
}

type soak struct {
	cfg Config
	hc  *http.Client
	rnd *rand.Rand
	rmu sync.Mutex

	mu       sync.Mutex
	rep      Report
	rssSeen  []float64
	deadline time.Time
	calls    atomic.Int64
}

func (k *soak) problem(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	k.mu.Lock()
	k.rep.Problems = append(k.rep.Problems, time.Now().UTC().Format("15:04:05.000")+" "+msg)
	k.mu.Unlock()
	k.cfg.Logf("PROBLEM: %s", msg)
}

func (k *soak) intn(n int) int {
	k.rmu.Lock()
	defer k.rmu.Unlock()
	return k.rnd.IntN(n)
}

func (k *soak) between(r [2]time.Duration) time.Duration {
	if r[1] <= r[0] {
		return r[0]
	}
	return r[0] + time.Duration(k.intn(int(r[1]-r[0])))
}

// answer is one HTTP exchange.
type answer struct {
	status int
	body   []byte
	took   time.Duration
	err    error // no answer at all
}

// do makes one call and checks what every call must be: answered
// within bound, never a 500, and an error in the contract's shape
// naming its cause.
func (k *soak) do(ctx context.Context, kind, method, path string, body any, bound time.Duration) answer {
	var rd io.Reader
	if body != nil {
		switch b := body.(type) {
		case []byte:
			rd = bytes.NewReader(b)
		default:
			j, _ := json.Marshal(b)
			rd = bytes.NewReader(j)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, k.cfg.URL+path, rd)
	if err != nil {
		return answer{err: err}
	}
	if k.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+k.cfg.Token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	t0 := time.Now()
	resp, err := k.hc.Do(req)
	a := answer{err: err}
	if err == nil {
		a.body, a.err = io.ReadAll(resp.Body)
		resp.Body.Close()
		a.status = resp.StatusCode
	}
	a.took = time.Since(t0)
	k.mu.Lock()
	if a.took > k.rep.Slowest[kind] {
		k.rep.Slowest[kind] = a.took
	}
	if a.err == nil {
		k.rep.ByStatus[a.status]++
	}
	k.mu.Unlock()
	switch {
	case a.err != nil && ctx.Err() != nil:
		k.problem("%s %s: no answer within %v", method, path, bound)
	case a.err != nil:
		k.problem("%s %s: %v", method, path, a.err)
	case a.status >= 500 && a.status != http.StatusServiceUnavailable && a.status != http.StatusGatewayTimeout:
		k.problem("%s %s: status %d: %.300s", method, path, a.status, a.body)
	case a.status >= 400:
		var e api.ErrorBody
		if json.Unmarshal(a.body, &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
			k.problem("%s %s: status %d without an error in the contract's shape: %.300s", method, path, a.status, a.body)
		}
	}
	return a
}

// Run soaks the server as cfg says and returns the report; the error is
// for a soak that could not start at all.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.HealthInterval == 0 {
		cfg.HealthInterval = 2 * time.Second
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 90 * time.Second
	}
	k := &soak{
		cfg: cfg,
		hc:  &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * cfg.Sessions}},
		rnd: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed)),
	}
	defer k.hc.CloseIdleConnections()
	k.rep.ByStatus, k.rep.Faults, k.rep.Slowest = map[int]int64{}, map[string]int{}, map[string]time.Duration{}

	m, err := k.metrics(ctx)
	if err != nil {
		return nil, err
	}
	k.rep.GoroutinesBefore = int(m["go_goroutines"])

	slots := make([]*slot, cfg.Sessions)
	var wg sync.WaitGroup
	for i := range slots {
		slots[i] = &slot{n: i}
		wg.Go(func() { k.create(ctx, slots[i]) })
	}
	wg.Wait()
	cfg.Logf("%d sessions up", cfg.Sessions)

	k.deadline = time.Now().Add(cfg.Duration)
	loadCtx, stopLoad := context.WithDeadline(ctx, k.deadline)
	defer stopLoad()
	var load, faults sync.WaitGroup
	for _, s := range slots {
		load.Go(func() { k.drive(loadCtx, s) })
	}
	load.Go(func() { k.sample(loadCtx) })
	if cfg.Tasks != "" {
		load.Go(func() { k.runs(loadCtx) })
	}
	load.Go(func() { k.inject(loadCtx, slots, &faults) })
	load.Wait()
	faults.Wait() // paused sandboxes resumed, killed ones replaced
	cfg.Logf("load ended; deleting the sessions")

	// Every session is deleted, as a user ends; then the server must be
	// back to where it began.
	for _, s := range slots {
		wg.Go(func() {
			if sess, _, _, _ := s.state(); sess != nil {
				a := k.do(ctx, "delete", http.MethodDelete, "/v1/sessions/"+sess.ID, nil, time.Minute)
				if a.err == nil && a.status != http.StatusNoContent {
					k.problem("delete %s: status %d", sess.ID, a.status)
				}
			}
		})
	}
	wg.Wait()
	k.hc.CloseIdleConnections()
	// A leak per session would show as 20 and more; the margin is what
	// the server's HTTP clients may keep idle after the load (a
	// connection to the Docker engine is two goroutines, and the engine's
	// client keeps two; one run on docker ended at +3).
	const margin = 4
	settle := time.Now().Add(15 * time.Second)
	for {
		m, err = k.metrics(ctx)
		if err != nil {
			k.problem("metrics at the end: %v", err)
			break
		}
		k.rep.GoroutinesAfter = int(m["go_goroutines"])
		if k.rep.GoroutinesAfter <= k.rep.GoroutinesBefore+margin || time.Now().After(settle) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if k.rep.GoroutinesAfter > k.rep.GoroutinesBefore+margin {
		k.problem("the server has %d goroutines after every session was deleted, %d before the first", k.rep.GoroutinesAfter, k.rep.GoroutinesBefore)
	}
	if open := m[`deskrun_sessions_open`] + m[`deskrun_sessions_unreachable`]; open != 0 {
		k.problem("metrics count %v sessions after every one was deleted", open)
	}
	a := k.do(ctx, "list", http.MethodGet, "/v1/sessions", nil, 10*time.Second)
	var list api.SessionList
	if a.err == nil && (json.Unmarshal(a.body, &list) != nil || len(list.Sessions) != 0) {
		k.problem("sessions listed after every one was deleted: %.300s", a.body)
	}

	// Memory: RSS early under load (the samples of the first quarter
	// after the first tenth) against late (the last quarter).
	k.mu.Lock()
	rss := slices.Clone(k.rssSeen)
	k.mu.Unlock()
	if n := len(rss); n >= 8 {
		k.rep.RSSEarly = medianOf(rss[n/10 : n/10+n/4])
		k.rep.RSSLate = medianOf(rss[n-n/4:])
		k.rep.RSSPeak = slices.Max(rss)
		if k.rep.Growth() > 0.10 {
			k.problem("the server's memory grew %.1f%% under load (%.1f MiB early, %.1f MiB late)", 100*k.rep.Growth(), k.rep.RSSEarly/(1<<20), k.rep.RSSLate/(1<<20))
		}
	}
	k.rep.Calls = k.calls.Load()
	return &k.rep, nil
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// create makes the slot's session.
func (k *soak) create(ctx context.Context, s *slot) {
	for ctx.Err() == nil {
		a := k.do(ctx, "create", http.MethodPost, "/v1/sessions", k.cfg.Create, k.cfg.StartTimeout)
		if a.err == nil && a.status == http.StatusCreated {
			var sess api.Session
			if err := json.Unmarshal(a.body, &sess); err != nil {
				k.problem("create: %v", err)
				return
			}
			s.mu.Lock()
			s.sess, s.cursorSet = &sess, false
			s.mu.Unlock()
			k.mu.Lock()
			k.rep.Created++
			k.mu.Unlock()
			if k.cfg.OnSession != nil {
				k.cfg.OnSession(sess)
			}
			return
		}
		if a.err == nil {
			k.problem("create: status %d: %.300s", a.status, a.body)
		}
		time.Sleep(time.Second)
	}
}

// drive makes calls on the slot's session until ctx ends, one at a time
// with short pauses, each checked.
func (k *soak) drive(ctx context.Context, s *slot) {
	for ctx.Err() == nil {
		sess, faulty, epoch, _ := s.state()
		if sess == nil {
			if !faulty {
				k.create(ctx, s)
			} else {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		k.call(ctx, s, sess, faulty, epoch)
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(50+k.intn(250)) * time.Millisecond):
		}
	}
}

// call makes one call of a kind chosen at random on sess and checks its
// answer: right when the session had no fault, a clear refusal when it
// had.
func (k *soak) call(ctx context.Context, s *slot, sess *api.Session, faulty bool, epoch int) {
	base := "/v1/sessions/" + sess.ID
	bound := k.cfg.CallTimeout + 5*time.Second
	var (
		kind, method, path string
		body               any
		check              func(answer) string // "" when right
	)
	switch k.intn(6) {
	case 0, 1:
		kind, method, path = "screenshot", http.MethodGet, base+"/screenshot?format=png"
		check = func(a answer) string {
			if !bytes.HasPrefix(a.body, []byte("\x89PNG")) {
				return "not a PNG"
			}
			return ""
		}
	case 2:
		x, y := 1+k.intn(sess.Screen.Width-2), 1+k.intn(sess.Screen.Height-2)
		kind, method, path = "input", http.MethodPost, base+"/input"
		body = map[string]any{"actions": []map[string]any{{"type": "move", "x": x, "y": y}}}
		check = func(a answer) string {
			s.mu.Lock()
			if s.epoch == epoch {
				s.cursorX, s.cursorY, s.cursorSet = x, y, true
			}
			s.mu.Unlock()
			return ""
		}
	case 3:
		kind, method, path = "cursor", http.MethodGet, base+"/cursor"
		s.mu.Lock()
		wx, wy, set := s.cursorX, s.cursorY, s.cursorSet
		s.mu.Unlock()
		check = func(a answer) string {
			var c struct{ X, Y int }
			if err := json.Unmarshal(a.body, &c); err != nil {
				return err.Error()
			}
			if set && (c.X != wx || c.Y != wy) {
				return fmt.Sprintf("cursor at %d,%d, moved to %d,%d", c.X, c.Y, wx, wy)
			}
			return ""
		}
	case 4:
		word := "soak" + strconv.Itoa(k.intn(1_000_000))
		kind, method, path = "exec", http.MethodPost, base+"/exec"
		body = api.ExecRequest{Cmd: []string{"sh", "-c", "echo " + word}, TimeoutMS: 10_000}
		bound += 40 * time.Second // the exec's own wait and half a minute
		check = func(a answer) string {
			var r api.ExecResult
			if err := json.Unmarshal(a.body, &r); err != nil {
				return err.Error()
			}
			if r.ExitCode != 0 || r.Stdout != word+"\n" {
				return fmt.Sprintf("exec answered %+v, want %s", r, word)
			}
			return ""
		}
	case 5:
		content := []byte("soak " + strconv.Itoa(k.intn(1_000_000)))
		name := "/tmp/soak-" + strconv.Itoa(s.n)
		kind, method, path = "file", http.MethodPut, base+"/files?path="+name
		body = content
		check = func(a answer) string {
			b := k.do(ctx, "file", http.MethodGet, base+"/files?path="+name, nil, bound)
			if b.err != nil || b.status != http.StatusOK {
				if _, f, e, _ := s.state(); f || e != epoch {
					return ""
				}
				return fmt.Sprintf("read back: status %d %.200s", b.status, b.body)
			}
			if !bytes.Equal(b.body, content) {
				return fmt.Sprintf("read back %q, wrote %q", b.body, content)
			}
			return ""
		}
	}
	k.calls.Add(1)
	// The end of the load does not cut a call short: every call made
	// gets its answer, checked.
	ctx = context.WithoutCancel(ctx)
	a := k.do(ctx, kind, method, path, body, bound)
	if a.err != nil {
		return // reported
	}
	_, faultyNow, epochNow, fault := s.state()
	hit := faulty || faultyNow || epochNow != epoch
	ok := a.status >= 200 && a.status < 300
	switch {
	case ok:
		if !hit {
			k.mu.Lock()
			k.rep.SlowestClean = max(k.rep.SlowestClean, a.took)
			k.mu.Unlock()
		}
		if why := check(a); why != "" && !hit {
			k.problem("%s on %s (no fault): %s", kind, sess.ID, why)
		}
	case !hit:
		k.problem("%s on %s, which had no fault: status %d: %.300s", kind, sess.ID, a.status, a.body)
	case a.status != http.StatusServiceUnavailable && a.status != http.StatusGatewayTimeout && a.status != http.StatusNotFound &&
		a.status != http.StatusUnprocessableEntity:
		k.problem("%s on %s during %q: status %d, want 503, 504 (or 404 once deleted): %.300s", kind, sess.ID, fault, a.status, a.body)
	}
}

// inject applies a fault every FaultEvery on average until ctx ends.
func (k *soak) inject(ctx context.Context, slots []*slot, wg *sync.WaitGroup) {
	if len(k.cfg.Faults) == 0 || k.cfg.FaultEvery <= 0 {
		return
	}
	for {
		wait := k.between([2]time.Duration{k.cfg.FaultEvery / 2, k.cfg.FaultEvery * 3 / 2})
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		// A fault must have time to be seen before the load ends.
		if time.Until(k.deadline) < k.cfg.Pause[1]+4*k.cfg.HealthInterval {
			return
		}
		var free []*slot
		for _, s := range slots {
			if sess, faulty, _, _ := s.state(); sess != nil && !faulty {
				free = append(free, s)
			}
		}
		if len(free) < 2 { // keep sessions without faults to compare with
			continue
		}
		s := free[k.intn(len(free))]
		f := k.cfg.Faults[k.intn(len(k.cfg.Faults))]
		s.mu.Lock()
		sess := s.sess
		s.faulty, s.fault = true, f.Name
		s.epoch++
		s.mu.Unlock()
		k.mu.Lock()
		k.rep.Faults[f.Name]++
		k.mu.Unlock()
		wg.Go(func() { k.fault(context.WithoutCancel(ctx), s, sess, f) })
	}
}

// fault applies f to the slot's session and follows it to its end.
func (k *soak) fault(ctx context.Context, s *slot, sess *api.Session, f Fault) {
	t0 := time.Now()
	k.cfg.Logf("%s: %s", sess.ID, f.Name)
	undo, err := f.Inject(ctx, *sess)
	if err != nil {
		k.problem("inject %s into %s: %v", f.Name, sess.ID, err)
	}
	// Marked within two missed checks and a margin for the load.
	markBy := 3*k.cfg.HealthInterval + 3*time.Second
	switch {
	case f.Pauses:
		pause := k.between(k.cfg.Pause)
		if pause > markBy {
			k.waitState(ctx, sess, api.SessionUnreachable, markBy, f.Name)
			k.refusedAtOnce(ctx, sess, f.Name)
		}
		time.Sleep(time.Until(t0.Add(pause)))
		if undo != nil {
			if err := undo(); err != nil {
				k.problem("resume %s: %v", sess.ID, err)
			}
		}
		k.recovers(ctx, s, sess, f.Name, t0)
	case f.Recovers:
		k.recovers(ctx, s, sess, f.Name, t0)
	default:
		k.waitState(ctx, sess, api.SessionUnreachable, markBy, f.Name)
		k.refusedAtOnce(ctx, sess, f.Name)
		a := k.do(ctx, "delete", http.MethodDelete, "/v1/sessions/"+sess.ID, nil, time.Minute)
		if a.err == nil && a.status != http.StatusNoContent {
			k.problem("delete %s after %s: status %d %.200s", sess.ID, f.Name, a.status, a.body)
		}
		s.mu.Lock()
		s.sess, s.faulty = nil, false
		s.mu.Unlock()
		k.cfg.Logf("%s: deleted after %s, %v after the fault", sess.ID, f.Name, time.Since(t0).Round(time.Millisecond))
	}
}

// waitState waits until the session shows state, a problem if not
// within d.
func (k *soak) waitState(ctx context.Context, sess *api.Session, state string, d time.Duration, fault string) {
	t0 := time.Now()
	for {
		a := k.do(ctx, "get", http.MethodGet, "/v1/sessions/"+sess.ID, nil, 10*time.Second)
		var got api.Session
		if a.err == nil && a.status == http.StatusOK && json.Unmarshal(a.body, &got) == nil && got.State == state {
			if state == api.SessionUnreachable && got.Unreachable == "" {
				k.problem("%s is unreachable after %s without saying why", sess.ID, fault)
			}
			k.cfg.Logf("%s: %s %v after %s", sess.ID, state, time.Since(t0).Round(time.Millisecond), fault)
			return
		}
		if time.Since(t0) > d {
			k.problem("%s not %s within %v of %s (last answer %d %.200s)", sess.ID, state, d, fault, a.status, a.body)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// refusedAtOnce checks that a call on an unreachable session answers 503
// at once and that the metrics count it.
func (k *soak) refusedAtOnce(ctx context.Context, sess *api.Session, fault string) {
	a := k.do(ctx, "screenshot", http.MethodGet, "/v1/sessions/"+sess.ID+"/screenshot", nil, 10*time.Second)
	if a.err == nil && (a.status != http.StatusServiceUnavailable || a.took > time.Second) {
		k.problem("screenshot of %s, unreachable after %s: status %d in %v, want 503 at once", sess.ID, fault, a.status, a.took)
	}
	m, err := k.metrics(ctx)
	if err != nil {
		k.problem("metrics: %v", err)
	} else if m["deskrun_sessions_unreachable"] < 1 {
		k.problem("metrics count no unreachable session while %s is (after %s)", sess.ID, fault)
	}
}

// recovers waits until the session answers screenshots again, a problem
// if it does not within the bound, then lets it be driven as before.
func (k *soak) recovers(ctx context.Context, s *slot, sess *api.Session, fault string, t0 time.Time) {
	bound := k.cfg.CallTimeout + 4*k.cfg.HealthInterval + 15*time.Second
	start := time.Now()
	for {
		a := k.do(ctx, "screenshot", http.MethodGet, "/v1/sessions/"+sess.ID+"/screenshot", nil, k.cfg.CallTimeout+5*time.Second)
		if a.err == nil && a.status == http.StatusOK {
			break
		}
		if time.Since(start) > bound {
			k.problem("%s does not answer again %v after %s ended (last status %d %.200s)", sess.ID, bound, fault, a.status, a.body)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	k.cfg.Logf("%s: answers again %v after %s", sess.ID, time.Since(t0).Round(time.Millisecond), fault)
	s.mu.Lock()
	s.faulty, s.cursorSet = false, false
	s.mu.Unlock()
}

// sample records the server's RSS every second.
func (k *soak) sample(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m, err := k.metrics(ctx)
		if err != nil {
			if ctx.Err() == nil {
				k.problem("metrics: %v", err)
			}
			continue
		}
		k.mu.Lock()
		k.rssSeen = append(k.rssSeen, m["process_resident_memory_bytes"])
		k.mu.Unlock()
	}
}

// runs starts task suite runs one after another until ctx ends and
// checks each: finished, every task's result there exactly once.
func (k *soak) runs(ctx context.Context) {
	for ctx.Err() == nil {
		// A run must have time to finish before the load ends.
		if time.Until(k.deadline) < 30*time.Second {
			return
		}
		req := api.CreateRunRequest{Tasks: k.cfg.Tasks, Only: k.cfg.RunOnly, Parallel: 2, Screen: k.cfg.Create.Screen, Provider: k.cfg.Create.Provider, Image: k.cfg.Create.Image}
		a := k.do(ctx, "run", http.MethodPost, "/v1/runs", req, 30*time.Second)
		if a.err != nil || a.status != http.StatusCreated && a.status != http.StatusAccepted {
			if a.err == nil {
				k.problem("start a run: status %d %.300s", a.status, a.body)
			}
			return
		}
		var run api.Run
		if err := json.Unmarshal(a.body, &run); err != nil {
			k.problem("start a run: %v", err)
			return
		}
		for {
			time.Sleep(time.Second)
			a = k.do(context.WithoutCancel(ctx), "run", http.MethodGet, "/v1/runs/"+run.ID, nil, 10*time.Second)
			if a.err != nil || a.status != http.StatusOK || json.Unmarshal(a.body, &run) != nil {
				k.problem("run %s: status %d %.300s", run.ID, a.status, a.body)
				return
			}
			if run.Status != api.RunRunning && run.Status != "" {
				break
			}
		}
		a = k.do(context.WithoutCancel(ctx), "run", http.MethodGet, "/v1/runs/"+run.ID+"/results", nil, 10*time.Second)
		if a.err != nil || a.status != http.StatusOK {
			k.problem("results of run %s: status %d", run.ID, a.status)
			return
		}
		seen := map[string]int{}
		passed := 0
		sc := bufio.NewScanner(bytes.NewReader(a.body))
		for sc.Scan() {
			var r struct {
				ID, Status, Error string
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				k.problem("run %s: result line %q: %v", run.ID, sc.Text(), err)
				continue
			}
			seen[r.ID]++
			if r.Status == "passed" {
				passed++
			} else {
				k.problem("run %s: task %s %s: %s", run.ID, r.ID, r.Status, r.Error)
			}
		}
		for _, id := range k.cfg.RunOnly {
			if seen[id] != 1 {
				k.problem("run %s: task %s has %d results, want exactly one", run.ID, id, seen[id])
			}
		}
		if run.Status != api.RunFinished {
			k.problem("run %s ended %s", run.ID, run.Status)
		}
		k.mu.Lock()
		k.rep.Runs++
		k.rep.Results += len(seen)
		k.rep.Passed += passed
		k.mu.Unlock()
	}
}

// metrics reads the server's /metrics, summing the samples of each
// name over their labels.
func (k *soak) metrics(ctx context.Context) (map[string]float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.cfg.URL+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if k.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+k.cfg.Token)
	}
	resp, err := k.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: status %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		name := line[:i]
		if j := strings.IndexByte(name, '{'); j >= 0 {
			name = name[:j]
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[name] += v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if _, ok := out["go_goroutines"]; !ok {
		return nil, errors.New("GET /metrics: no go_goroutines")
	}
	return out, nil
}
