package farm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
	"github.com/google/go-cmp/cmp"
)

func TestReadResultsResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ResultsFile)
	lines := `{"id":"a","domain":"files","score":1,"status":"passed","duration_ms":1000,"steps":2,"attempts":1}
not json at all
{"id":"b","domain":"shell","score":0,"status":"infra_error","error":"start sandbox: unavailable","duration_ms":5,"steps":0,"attempts":2}
{"domain":"x"}
{"id":"a","domain":"files","score":0,"status":"failed","duration_ms":900,"steps":3,"attempts":1}
{"id":"c","domain":"shell","sco`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, r := range got {
		ids = append(ids, fmt.Sprintf("%s:%s", r.ID, r.Status))
	}
	// a's later line wins at a's place; the torn line of c is no result.
	if diff := cmp.Diff([]string{"a:failed", "b:infra_error"}, ids); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}

	// Opening for a resumed run cuts the torn line, so the next result
	// starts on a line of its own.
	rf, done, err := openResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Errorf("openResults found %d results, want 2", len(done))
	}
	if err := rf.append(Result{ID: "c", Domain: "shell", Status: StatusPassed, Score: 1}); err != nil {
		t.Fatal(err)
	}
	rf.close()
	data, _ := os.ReadFile(path)
	last := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if !strings.HasPrefix(last[len(last)-1], `{"id":"c",`) {
		t.Errorf("last line = %q, want the appended result on its own line", last[len(last)-1])
	}
	got, _ = ReadResults(path)
	if len(got) != 3 || got[2].ID != "c" {
		t.Errorf("after append: %+v", got)
	}

	if got, err := ReadResults(filepath.Join(dir, "missing.jsonl")); err != nil || got != nil {
		t.Errorf("missing file: %v, %v; want no results and no error", got, err)
	}
}

func TestRunRefusesBadConfig(t *testing.T) {
	ctx := t.Context()
	// A provider that is never asked to start anything.
	idle := fake.New(fake.Config{Errs: []error{errdefs.ErrUnavailable.WithMessage("idle provider")}})
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": idle}})
	if err != nil {
		t.Fatal(err)
	}
	used := t.TempDir()
	if err := os.WriteFile(filepath.Join(used, ResultsFile), []byte(`{"id":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	one := []*task.Task{{ID: "a"}}
	for _, tt := range []struct {
		name  string
		cfg   Config
		tasks []*task.Task
		class func(error) bool
		want  string
	}{
		{"no manager", Config{Agent: agent.Replay{}, Out: t.TempDir()}, one, errdefs.IsInvalidArgument, "manager: required"},
		{"no agent", Config{Manager: m, Out: t.TempDir()}, one, errdefs.IsInvalidArgument, "agent: required"},
		{"no out", Config{Manager: m, Agent: agent.Replay{}}, one, errdefs.IsInvalidArgument, "out: required"},
		{"duplicate id", Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir()},
			[]*task.Task{{ID: "a", Path: "x/a.yaml"}, {ID: "a", Path: "y/a.yaml"}}, errdefs.IsInvalidArgument, `task id "a" appears twice`},
		{"shared folder", Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir()},
			[]*task.Task{{ID: "results.jsonl"}, {ID: "_results.jsonl-" + DirName("results.jsonl")[len("_results.jsonl-"):]}}, errdefs.IsInvalidArgument, "share the folder name"},
		{"out holds a run", Config{Manager: m, Agent: agent.Replay{}, Out: used}, one, errdefs.IsAlreadyExists, "already holds a run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(ctx, tt.cfg, tt.tasks)
			if !tt.class(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want the right class, mentioning %q", err, tt.want)
			}
		})
	}
	// Resuming a run that is complete starts nothing.
	got, err := Run(ctx, Config{Manager: m, Agent: agent.Replay{}, Out: used, Resume: true}, one)
	if err != nil || len(got) != 1 || got[0].ID != "a" {
		t.Errorf("resume of a complete run = %+v, %v; want the one result", got, err)
	}
}

func TestInfrastructure(t *testing.T) {
	urlErr := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/input", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"unavailable", errdefs.ErrUnavailable.WithMessage("provider local: start sandbox: agentd did not start"), true},
		{"wrapped unavailable", fmt.Errorf("setup: step 1: %w", errdefs.ErrUnavailable.WithMessage("sandbox unreachable")), true},
		{"connection refused", fmt.Errorf("exec: %w", urlErr), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"cut short", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), true},
		{"canceled", fmt.Errorf("exec: %w", context.Canceled), false},
		{"request canceled", &url.Error{Op: "Post", URL: "http://x", Err: context.Canceled}, false},
		{"deadline", fmt.Errorf("exec: %w", context.DeadlineExceeded), false},
		{"setup command failed", errors.New(`setup task "x": config[0] (execute): exit status 1`), false},
		{"invalid argument", errdefs.ErrInvalidArgument.WithMessage("dialect: unknown dialect"), false},
		{"not found", errdefs.ErrNotFound.WithMessage("no such file"), false},
		{"failed precondition", errdefs.ErrFailedPrecondition.WithMessage("window gone"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := infrastructure(tt.err); got != tt.want {
				t.Errorf("infrastructure(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestPercentile(t *testing.T) {
	for _, tt := range []struct {
		vals []int64
		p    float64
		want int64
	}{
		{nil, 50, 0},
		{[]int64{7}, 50, 7},
		{[]int64{7}, 95, 7},
		{[]int64{1, 2}, 50, 1},
		{[]int64{1, 2}, 95, 2},
		{[]int64{1, 2, 3, 4}, 50, 2},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 50, 5},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10},
		{[]int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190, 200}, 95, 190},
	} {
		if got := percentile(tt.vals, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %d, want %d", tt.vals, tt.p, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	results := []Result{
		{ID: "f1", Domain: "files", Status: StatusPassed, Score: 1, DurationMS: 1000, Steps: 2},
		{ID: "f2", Domain: "files", Status: StatusFailed, Score: 0.5, DurationMS: 3000, Steps: 5},
		{ID: "f3", Domain: "files", Status: StatusTimeout, Score: 0, DurationMS: 9000, Steps: 30},
		{ID: "f4", Domain: "files", Status: StatusPassed, Score: 1, DurationMS: 2000, Steps: 3},
		{ID: "s1", Domain: "shell", Status: StatusInfraError, Score: 0, DurationMS: 500, Steps: 0},
	}
	got := Summarize(results)
	want := []DomainSummary{
		{Domain: "files", Tasks: 4, Passed: 2, Errors: 1, SuccessRate: 0.5, MeanScore: 0.625, P50MS: 2000, P95MS: 9000, P50Steps: 3, P95Steps: 30, MeanScoreCI: &[2]float64{0.25, 1}},
		{Domain: "shell", Tasks: 1, Passed: 0, Errors: 1, SuccessRate: 0, MeanScore: 0, P50MS: 500, P95MS: 500, P50Steps: 0, P95Steps: 0},
		{Domain: "all", Tasks: 5, Passed: 2, Errors: 2, SuccessRate: 0.4, MeanScore: 0.5, P50MS: 2000, P95MS: 9000, P50Steps: 3, P95Steps: 30, MeanScoreCI: &[2]float64{0.1, 0.9}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	if got := Summarize(nil); len(got) != 0 {
		t.Errorf("Summarize(nil) = %v, want nothing", got)
	}
	if s := Summarize(results[:1]); s[0].MeanScoreCI != nil {
		t.Errorf("one task has an interval: %v", *s[0].MeanScoreCI)
	}

	var buf bytes.Buffer
	if err := WriteTable(&buf, want); err != nil {
		t.Fatal(err)
	}
	table := buf.String()
	for _, s := range []string{"domain", "files", "50.0%", "0.625", "2.0s", "9.0s", "all", "40.0%"} {
		if !strings.Contains(table, s) {
			t.Errorf("table lacks %q:\n%s", s, table)
		}
	}
	if n := strings.Count(table, "\n"); n != 4 {
		t.Errorf("table has %d lines, want 4:\n%s", n, table)
	}
}

func TestDirName(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"files-copy-notes", "files-copy-notes"},
		{"0a1b2c3d-e4f5-6789-abcd-ef0123456789", "0a1b2c3d-e4f5-6789-abcd-ef0123456789"},
		{"v1.2_task", "v1.2_task"},
	} {
		if got := DirName(tt.id); got != tt.want {
			t.Errorf("DirName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
	seen := map[string]string{}
	for _, id := range []string{"..", ".", "", "a/b", "a_b", "a\\b", "../../etc", ".hidden", "results.jsonl", "report.html", "run.json", "ünïcode", strings.Repeat("x", 300), "a b"} {
		d := DirName(id)
		if d == "" || d == "." || d == ".." || strings.ContainsAny(d, `/\`) || strings.HasPrefix(d, ".") || d == ResultsFile || d == ReportFile || d == RunFile {
			t.Errorf("DirName(%q) = %q: not a safe folder name", id, d)
		}
		if len(d) > 100 {
			t.Errorf("DirName(%q) is %d bytes long", id, len(d))
		}
		if prev, dup := seen[d]; dup {
			t.Errorf("DirName(%q) = DirName(%q) = %q", id, prev, d)
		}
		seen[d] = id
		if DirName(id) != d {
			t.Errorf("DirName(%q) is not stable", id)
		}
	}
}

func TestProgress(t *testing.T) {
	var plain bytes.Buffer
	p := newProgress(&plain, false, 2)
	p.started()
	p.finished(Result{ID: "a", Status: StatusPassed, Score: 1, Steps: 2, DurationMS: 1500, Attempts: 1})
	p.ended()
	p.started()
	p.finished(Result{ID: "b", Status: StatusInfraError, Steps: 0, DurationMS: 20, Attempts: 2, Error: "start sandbox:\nunavailable"})
	p.ended()
	p.finish()
	want := "1/2 passed  a score=1.00 steps=2 1.5s\n2/2 infra_error b score=0.00 steps=0 0.0s attempts=2 error=start sandbox: unavailable\n"
	if plain.String() != want {
		t.Errorf("plain progress:\n%q\nwant\n%q", plain.String(), want)
	}

	var term bytes.Buffer
	p = newProgress(&term, true, 2)
	p.now = func() time.Time { return p.start.Add(75 * time.Second) }
	p.started()
	p.finished(Result{ID: "a", Status: StatusPassed, Score: 1})
	p.ended()
	p.started()
	p.finished(Result{ID: "b", Status: StatusFailed})
	p.ended()
	p.finish()
	out := term.String()
	if strings.Count(out, "\n") != 2 {
		t.Errorf("terminal progress has %d newlines, want 2 (the failed task, the end):\n%q", strings.Count(out, "\n"), out)
	}
	if !strings.Contains(out, "\r\033[K2/2 failed  b") {
		t.Errorf("terminal progress does not print the failed task on its own line:\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\033[K[########################] 2/2 done, 1 passed, 0 running, 1m15s\n") {
		t.Errorf("terminal progress ends with %q", out[max(0, len(out)-80):])
	}
	if strings.Contains(out, "passed  a") {
		t.Errorf("terminal progress prints a line for a passed task:\n%q", out)
	}
}

func TestProgressTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		p := newProgress(&buf, true, 3)
		stop := p.tick()
		time.Sleep(3500 * time.Millisecond)
		stop()
		out := buf.String()
		if n := strings.Count(out, "\r\033[K"); n != 3 {
			t.Errorf("%d redraws in 3.5s, want 3:\n%q", n, out)
		}
		if !strings.HasSuffix(out, "0/3 done, 0 passed, 0 running, 3s") {
			t.Errorf("last redraw = %q", out)
		}
		// Off a terminal nothing ticks.
		buf.Reset()
		stop = newProgress(&buf, false, 3).tick()
		time.Sleep(2 * time.Second)
		stop()
		if buf.Len() != 0 {
			t.Errorf("plain progress ticked: %q", buf.String())
		}
	})
}
