package farm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/sandbox/local/localtest"
	"github.com/deskrun/deskrun/sandbox/pool"
)

// These tests run the shipped task suite (../../tasks) end to end: the
// real runner, local sandboxes (agentd with its own Xvfb and openbox),
// and the agentd and deskrun binaries TestMain builds.

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

// needSandboxes fails the test (skips it in -short mode) when local
// sandboxes cannot run here, and returns the agentd the shared harness
// built.
func needSandboxes(t testing.TB) string {
	t.Helper()
	return agentdtest.Agentd(t)
}

// deskrunBin is the deskrun command, built once per test binary.
func deskrunBin(t testing.TB) string {
	t.Helper()
	return agentdtest.Build(t, "github.com/deskrun/deskrun/cmd/deskrun")
}

// testProvider is the local provider, with every sandbox's home under
// home, recording starts per task and failing those fail says to.
type testProvider struct {
	*local.Provider
	home string
	fail func(task string, n int) error // n counts the task's starts from 1

	mu     sync.Mutex
	starts map[string]int
}

func newTestProvider(t testing.TB) *testProvider {
	t.Helper()
	needSandboxes(t)
	home := t.TempDir()
	lp, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), WM: "openbox", TempDir: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lp.Close(context.Background()) })
	return &testProvider{Provider: lp, home: home, starts: map[string]int{}}
}

func (p *testProvider) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	tk := spec.Labels[LabelTask]
	p.mu.Lock()
	p.starts[tk]++
	n := p.starts[tk]
	p.mu.Unlock()
	if p.fail != nil {
		if err := p.fail(tk, n); err != nil {
			return sandbox.Instance{}, err
		}
	}
	return p.Provider.Start(ctx, spec)
}

func (p *testProvider) startsOf(task string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts[DirName(task)]
}

// checkNoLeftovers fails when a sandbox process under dir is alive.
func checkNoLeftovers(t testing.TB, dir string) {
	t.Helper()
	var left []string
	for range 20 { // a process being killed may take a moment to go
		if left = localtest.ProcessesUnder(dir); len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
}

func newManager(t testing.TB, p sandbox.Provider) *runner.Manager {
	t.Helper()
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func loadSuite(t testing.TB, only ...string) []*task.Task {
	t.Helper()
	tasks, err := task.Load("../../tasks")
	if err != nil {
		t.Fatal(err)
	}
	if len(only) == 0 {
		return tasks
	}
	var out []*task.Task // in the order of only
	for _, id := range only {
		i := slices.IndexFunc(tasks, func(tk *task.Task) bool { return tk.ID == id })
		if i < 0 {
			t.Fatalf("the suite has no task %s", id)
		}
		out = append(out, tasks[i])
	}
	return out
}

func byID(results []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range results {
		m[r.ID] = r
	}
	return m
}

// checkResultsFile checks results.jsonl: one line per task, with every
// field of the contract, and returns its results.
func checkResultsFile(t *testing.T, out string, tasks []*task.Task) []Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(tasks) {
		t.Errorf("results.jsonl has %d lines, want %d (one per task)", len(lines), len(tasks))
	}
	seen := map[string]bool{}
	var results []Result
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		for _, k := range []string{"id", "domain", "score", "status", "duration_ms", "steps", "attempts"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, line)
			}
		}
		var r Result
		json.Unmarshal([]byte(line), &r)
		if seen[r.ID] {
			t.Errorf("task %s has two lines", r.ID)
		}
		seen[r.ID] = true
		results = append(results, r)
	}
	sums := map[string]string{}
	for _, tk := range tasks {
		if !seen[tk.ID] {
			t.Errorf("results.jsonl has no line for %s", tk.ID)
		}
		sums[tk.ID] = tk.SHA256
	}
	// Each line names the task file it graded and the OSWorld tree.
	for _, r := range results {
		if r.TaskSHA256 != sums[r.ID] || r.OSWorld != task.OSWorldCommit {
			t.Errorf("%s: task_sha256 %q osworld %q, want %q and %q", r.ID, r.TaskSHA256, r.OSWorld, sums[r.ID], task.OSWorldCommit)
		}
	}
	return results
}

func TestSuiteReplay(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	tasks := loadSuite(t)
	out := t.TempDir()
	var progress bytes.Buffer
	start := time.Now()
	results, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: out, Parallel: 2, Progress: &progress}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tasks in %s at parallel 2", len(tasks), time.Since(start).Round(time.Millisecond))
	if len(results) != len(tasks) {
		t.Fatalf("%d results for %d tasks", len(results), len(tasks))
	}
	for _, r := range checkResultsFile(t, out, tasks) {
		if r.Status != StatusPassed || r.Score != 1 || r.Attempts != 1 || r.Steps < 1 || r.DurationMS <= 0 || r.LastAction == "" {
			t.Errorf("%s: %+v, want passed with score 1 in one attempt", r.ID, r)
		}
	}
	if n := strings.Count(progress.String(), "\n"); n != len(tasks) {
		t.Errorf("progress has %d lines, want one per task:\n%s", n, progress.String())
	}
	if len(m.List()) != 0 {
		t.Errorf("%d sessions left", len(m.List()))
	}
	checkNoLeftovers(t, p.home)

	// Trajectories: a screenshot per step, then the graded screen.
	for _, r := range results {
		dir := filepath.Join(out, DirName(r.ID))
		steps, err := ReadTrajectory(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != r.Steps+1 || !steps[len(steps)-1].Final {
			t.Errorf("%s: trajectory has %d records for %d steps (want one per step and the final screen)", r.ID, len(steps), r.Steps)
			continue
		}
		for _, s := range steps {
			f, err := os.Open(filepath.Join(dir, s.Screenshot))
			if err != nil {
				t.Errorf("%s step %d: %v", r.ID, s.Step, err)
				continue
			}
			cfg, err := png.DecodeConfig(f)
			f.Close()
			if err != nil || cfg.Width != 1280 || cfg.Height != 800 {
				t.Errorf("%s step %d: screenshot %dx%d, %v; want a 1280x800 PNG", r.ID, s.Step, cfg.Width, cfg.Height, err)
			}
		}
		if !steps[0].Final && len(steps[0].Calls) != 1 {
			t.Errorf("%s: step 0 has %d calls, want the solution's first", r.ID, len(steps[0].Calls))
		}
	}

	// The report, as a browser shows it.
	if err := WriteReport(out, results); err != nil {
		t.Fatal(err)
	}
	dom := renderDOM(t, chromium(t), filepath.Join(out, ReportFile))
	checkReportDOM(t, dom, results, len(results))
	if !strings.Contains(dom, `<td class="l">all</td><td>32</td><td>32</td>`) {
		t.Error("the report's summary does not show 32 of 32 passed")
	}
}

// killingAgent replays solutions, and at step 1 of one task stops that
// task's sandbox under the farm's feet (once), as a crashed container
// would.
type killingAgent struct {
	agent.Replay
	m      *runner.Manager
	p      *testProvider
	victim string
	done   atomic.Bool
}

func (a *killingAgent) Step(ctx context.Context, req agent.Request) (agent.Response, error) {
	if req.TaskID == a.victim && req.Step == 1 && !a.done.Swap(true) {
		for _, s := range a.m.List() {
			if s.Info().Labels[LabelTask] == DirName(a.victim) {
				if err := a.p.Provider.Stop(ctx, s.Instance().ID); err != nil {
					return agent.Response{}, err
				}
			}
		}
	}
	return a.Replay.Step(ctx, req)
}

// failingAgent replays solutions but cannot answer for some tasks, or
// answers with a dialect that does not exist.
type failingAgent struct {
	agent.Replay
	broken, babbling string
	calls            atomic.Int32
}

func (a *failingAgent) Step(ctx context.Context, req agent.Request) (agent.Response, error) {
	switch req.TaskID {
	case a.broken:
		a.calls.Add(1)
		return agent.Response{}, errors.New("model overloaded")
	case a.babbling:
		return agent.Response{Calls: []task.Call{{Dialect: "klingon", Tool: "bash"}}}, nil
	}
	return a.Replay.Step(ctx, req)
}

func TestRetries(t *testing.T) {
	const (
		flaky  = "files-copy-notes"   // the sandbox fails to start once
		dead   = "files-delete-tmp"   // the sandbox never starts
		killed = "terminal-echo-file" // the sandbox dies during the episode
	)
	p := newTestProvider(t)
	p.fail = func(task string, n int) error {
		if task == DirName(dead) || task == DirName(flaky) && n == 1 {
			return errors.New("injected: no room for another sandbox")
		}
		return nil
	}
	m := newManager(t, p)
	out := t.TempDir()
	ag := &killingAgent{m: m, p: p, victim: killed}
	results, err := Run(t.Context(), Config{Manager: m, Agent: ag, Out: out, Parallel: 2}, loadSuite(t, flaky, dead, killed))
	if err != nil {
		t.Fatal(err)
	}
	got := byID(results)
	if r := got[flaky]; r.Status != StatusPassed || r.Attempts != 2 || p.startsOf(flaky) != 2 {
		t.Errorf("%s: %+v after %d starts; want passed on the second attempt", flaky, r, p.startsOf(flaky))
	}
	if r := got[dead]; r.Status != StatusInfraError || r.Attempts != 2 || p.startsOf(dead) != 2 || !strings.Contains(r.Error, "injected: no room") {
		t.Errorf("%s: %+v after %d starts; want an infrastructure error after two attempts", dead, r, p.startsOf(dead))
	}
	if r := got[killed]; r.Status != StatusPassed || r.Attempts != 2 || p.startsOf(killed) != 2 {
		t.Errorf("%s: %+v after %d starts; want passed on the second attempt after the lost sandbox", killed, r, p.startsOf(killed))
	}
	if !ag.done.Load() {
		t.Error("the sandbox was never killed")
	}
	checkNoLeftovers(t, p.home)
}

func TestAgentFailureNotRetried(t *testing.T) {
	const broken, babbling, fine = "shell-md5sum", "shell-permissions", "files-move-todo"
	p := newTestProvider(t)
	m := newManager(t, p)
	ag := &failingAgent{broken: broken, babbling: babbling}
	results, err := Run(t.Context(), Config{Manager: m, Agent: ag, Out: t.TempDir(), Parallel: 2, Retries: 3}, loadSuite(t, broken, babbling, fine))
	if err != nil {
		t.Fatal(err)
	}
	got := byID(results)
	if r := got[broken]; r.Status != StatusAgentError || r.Attempts != 1 || p.startsOf(broken) != 1 || ag.calls.Load() != 1 || !strings.Contains(r.Error, "model overloaded") {
		t.Errorf("%s: %+v (%d starts, %d agent calls); want one attempt ending in an agent error", broken, r, p.startsOf(broken), ag.calls.Load())
	}
	if r := got[babbling]; r.Status != StatusAgentError || r.Attempts != 1 || p.startsOf(babbling) != 1 || !strings.Contains(r.Error, `"klingon"`) {
		t.Errorf("%s: %+v; want one attempt ending in an agent error naming the dialect", babbling, r)
	}
	if r := got[fine]; r.Status != StatusPassed {
		t.Errorf("%s: %+v; the other task should pass", fine, r)
	}
	checkNoLeftovers(t, p.home)
}

func TestLimits(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	tasks := loadSuite(t, "gui-hotkey-select-all", "files-copy-notes")
	// gui-hotkey-select-all needs 5 steps: at 2 it is graded unfinished.
	results, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir(), MaxSteps: 2}, tasks[:1])
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != StatusFailed || r.Steps != 2 || !r.StepLimit || r.LastAction != "" || r.Attempts != 1 {
		t.Errorf("step limit: %+v", r)
	}
	// A timeout ends the attempt, without a retry.
	slow := agentFunc(func(ctx context.Context, req agent.Request) (agent.Response, error) {
		<-ctx.Done()
		return agent.Response{}, ctx.Err()
	})
	results, err = Run(t.Context(), Config{Manager: m, Agent: slow, Out: t.TempDir(), Timeout: 5 * time.Second}, tasks[1:])
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != StatusTimeout || r.Attempts != 1 || !strings.Contains(r.Error, "timed out after 5s") {
		t.Errorf("timeout: %+v", r)
	}
	checkNoLeftovers(t, p.home)
}

type agentFunc func(ctx context.Context, req agent.Request) (agent.Response, error)

func (f agentFunc) Step(ctx context.Context, req agent.Request) (agent.Response, error) {
	return f(ctx, req)
}

// cancelAfter is a progress writer that cancels a run after n lines.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n -= bytes.Count(b, []byte("\n"))
	if c.n <= 0 {
		c.cancel()
	}
	return len(b), nil
}

func TestCancelAndResume(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	tasks := loadSuite(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	results, err := Run(ctx, Config{Manager: m, Agent: agent.Replay{}, Out: out, Parallel: 2, Progress: &cancelAfter{n: 3, cancel: cancel}}, tasks)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: err = %v, want context.Canceled", err)
	}
	if len(results) < 3 || len(results) >= len(tasks) {
		t.Fatalf("stopped run has %d results, want from 3 to fewer than %d", len(results), len(tasks))
	}
	onFile, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(onFile) != len(results) {
		t.Errorf("results.jsonl has %d results, Run returned %d", len(onFile), len(results))
	}
	if len(m.List()) != 0 {
		t.Errorf("%d sessions left after the stop", len(m.List()))
	}
	if l, _ := p.List(context.Background(), nil); len(l) != 0 {
		t.Errorf("%d sandboxes left after the stop", len(l))
	}
	checkNoLeftovers(t, p.home)
	t.Logf("stopped after %d results", len(results))

	// Without --resume the run directory is refused; with it, the rest
	// runs.
	if _, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: out}, tasks); !errdefs.IsAlreadyExists(err) {
		t.Errorf("rerun without resume: err = %v, want already exists", err)
	}
	var progress bytes.Buffer
	results, err = Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: out, Parallel: 2, Resume: true, Progress: &progress}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(tasks) {
		t.Errorf("resumed run has %d results, want %d", len(results), len(tasks))
	}
	if n := strings.Count(progress.String(), "\n"); n != len(tasks)-len(onFile) {
		t.Errorf("the resumed run ran %d tasks, want the %d without a result", n, len(tasks)-len(onFile))
	}
	for _, r := range checkResultsFile(t, out, tasks) {
		if r.Status != StatusPassed {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Error)
		}
	}
	checkNoLeftovers(t, p.home)
}

// TestEvalCommand drives `deskrun eval` as a user does: a run stopped
// with Ctrl-C (SIGINT) leaves no sandbox process, and --resume finishes
// it.
func TestEvalCommand(t *testing.T) {
	needSandboxes(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"eval", "--tasks", "../../tasks", "--only", "files-*,shell-*", "--provider", "local", "--agentd", agentdtest.Agentd(t), "--parallel", "2", "--out", out}
	env := append(os.Environ(), "TMPDIR="+tmp)

	cmd := exec.CommandContext(t.Context(), deskrunBin(t), args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errText strings.Builder
	sc := bufio.NewScanner(stderr)
	for n := 0; sc.Scan(); {
		errText.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), " passed ") {
			if n++; n == 2 {
				cmd.Process.Signal(syscall.SIGINT)
			}
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("stopped eval: %v, want exit status 1\n%s", err, errText.String())
	}
	if !strings.Contains(errText.String(), "--resume") {
		t.Errorf("stopped eval does not say how to resume:\n%s", errText.String())
	}
	checkNoLeftovers(t, tmp)
	first, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(first) < 2 || len(first) >= 21 {
		t.Errorf("stopped eval wrote %d results, want from 2 to fewer than 21", len(first))
	}

	cmd = exec.CommandContext(t.Context(), deskrunBin(t), append(args, "--resume")...)
	cmd.Env = env
	stdout.Reset()
	var stderr2 bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr2
	if err := cmd.Run(); err != nil {
		t.Fatalf("resumed eval: %v\n%s", err, stderr2.String())
	}
	checkNoLeftovers(t, tmp)
	all, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(all) != 21 {
		t.Errorf("after resume: %d results, want 21", len(all))
	}
	table := stdout.String()
	if !strings.Contains(table, "all     21      21       0        0   100.0%") {
		t.Errorf("summary table:\n%s", table)
	}
	if _, err := os.Stat(filepath.Join(out, ReportFile)); err != nil {
		t.Errorf("no report: %v", err)
	}
	if n := strings.Count(stderr2.String(), "\n"); n < 21-len(first) {
		t.Errorf("resumed eval printed %d progress lines for %d tasks:\n%s", n, 21-len(first), stderr2.String())
	}
}

// TestEvalResumeReapsAKilledRun: an eval killed outright (SIGKILL) cannot
// delete its sandboxes; the next eval of its run folder removes them
// before it finishes the run, and a second eval of a folder in use is
// refused.
func TestEvalResumeReapsAKilledRun(t *testing.T) {
	needSandboxes(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"eval", "--tasks", "../../tasks", "--only", "files-*", "--provider", "local", "--agentd", agentdtest.Agentd(t), "--parallel", "2", "--out", out}
	env := append(os.Environ(), "TMPDIR="+tmp)

	cmd := exec.CommandContext(t.Context(), deskrunBin(t), args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), " passed ") {
			break
		}
	}
	second := exec.CommandContext(t.Context(), deskrunBin(t), append(args, "--resume")...)
	second.Env = env
	if b, err := second.CombinedOutput(); err == nil || !strings.Contains(string(b), "another deskrun eval is running") {
		t.Errorf("a second eval of the folder in use: %v\n%s", err, b)
	}
	cmd.Process.Kill()
	go io.Copy(io.Discard, stderr)
	cmd.Wait()
	homes, _ := filepath.Glob(filepath.Join(tmp, "deskrun-sandbox-*"))
	if len(homes) == 0 {
		t.Fatal("the killed eval left no sandbox: the test shows nothing")
	}

	cmd = exec.CommandContext(t.Context(), deskrunBin(t), append(args, "--resume")...)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resumed eval: %v\n%s", err, b)
	}
	checkNoLeftovers(t, tmp)
}

// TestWarmPool runs tasks on sandboxes a pool started ahead of them.
func TestWarmPool(t *testing.T) {
	p := newTestProvider(t)
	pl := pool.New(p, pool.Config{Specs: []sandbox.Spec{{Screen: sandbox.DefaultScreen}}, Size: 2})
	m := newManager(t, pl)
	tasks := loadSuite(t, "files-copy-notes", "files-move-todo", "shell-md5sum", "shell-permissions", "files-count-lines", "shell-log-times")
	deadline := time.Now().Add(30 * time.Second)
	for pl.Idle() < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	results, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir(), Parallel: 2}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	warm := 0
	for _, r := range results {
		if r.Status != StatusPassed {
			t.Errorf("%s: %s %s", r.ID, r.Status, r.Error)
		}
		if r.SandboxMS < 100 {
			warm++
		}
	}
	t.Logf("%d of %d tasks started on a warm sandbox", warm, len(results))
	if warm < 2 {
		t.Errorf("%d tasks got a warm sandbox, want at least the 2 waiting at the start", warm)
	}
	if err := pl.Close(context.Background()); err != nil {
		t.Error(err)
	}
	checkNoLeftovers(t, p.home)
}

// TestTrials runs two tasks three times each in fresh sandboxes, stops
// the run after two results and resumes it: every trial has one line and
// a folder of its own, and the summary counts trials.
func TestTrials(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	tasks := loadSuite(t, "files-copy-notes", "shell-md5sum")
	out := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cfg := Config{Manager: m, Agent: agent.Replay{}, Out: out, Parallel: 2, Trials: 3, Progress: &cancelAfter{n: 2, cancel: cancel}}
	if _, err := Run(ctx, cfg, tasks); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: err = %v, want context.Canceled", err)
	}
	cfg.Resume, cfg.Progress = true, nil
	results, err := Run(t.Context(), cfg, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 {
		t.Fatalf("%d results, want 6 (2 tasks x 3 trials)", len(results))
	}
	seen := map[string]bool{}
	for _, r := range results {
		if r.Trial < 1 || r.Trial > 3 || seen[r.Key()] {
			t.Errorf("result %s: trial %d (seen before: %v)", r.ID, r.Trial, seen[r.Key()])
		}
		seen[r.Key()] = true
		if r.Status != StatusPassed {
			t.Errorf("%s: %s %s", r.Key(), r.Status, r.Error)
		}
		if _, err := os.Stat(filepath.Join(out, r.Dir(), "trajectory.jsonl")); err != nil {
			t.Errorf("%s: %v", r.Key(), err)
		}
	}
	onFile, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(onFile) != 6 {
		t.Errorf("results.jsonl has %d results, want 6", len(onFile))
	}
	all := Summarize(results)
	s := all[len(all)-1]
	if s.Trials != 3 || s.DistinctTask != 2 || s.Tasks != 6 || s.PassAtK != 1 || s.PassHatK != 1 {
		t.Errorf("summary: %+v", s)
	}
	if err := WriteReport(out, results); err != nil {
		t.Fatal(err)
	}
	checkPrivate(t, out)
	checkNoLeftovers(t, p.home)
}

// TestEvalCIOutputs runs `deskrun eval` as a CI job does: two trials of
// a task, a JUnit file with a testcase per trial, a Markdown summary,
// and --fail-under met.
func TestEvalCIOutputs(t *testing.T) {
	needSandboxes(t)
	dir := t.TempDir()
	out, junit, md := filepath.Join(dir, "run"), filepath.Join(dir, "junit.xml"), filepath.Join(dir, "summary.md")
	cmd := exec.CommandContext(t.Context(), deskrunBin(t), "eval", "--tasks", "../../tasks", "--only", "files-copy-notes", "--provider", "local", "--agentd", agentdtest.Agentd(t),
		"--trials", "2", "--junit", junit, "--markdown", md, "--fail-under", "1", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "2 of 2 trials (1 tasks x 2) have results") || !strings.Contains(string(b), "pass@k") {
		t.Errorf("eval's output:\n%s", b)
	}
	x, err := os.ReadFile(junit)
	if err != nil || strings.Count(string(x), "<testcase ") != 2 || !strings.Contains(string(x), `name="files-copy-notes [trial 2]"`) {
		t.Errorf("junit: %v\n%s", err, x)
	}
	m, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(m), "of 2 trials passed (1 tasks × 2 trials)") {
		t.Errorf("markdown: %v\n%s", err, m)
	}
}

// TestExampleAgentServer runs the example agent server of examples/ and
// a suite against it, as docs/benchmarks.md's CI recipe does: every task passes
// and the tokens it reports are summed.
func TestExampleAgentServer(t *testing.T) {
	needSandboxes(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent-server")
	if b, err := exec.Command("go", "build", "-o", bin, "../../examples/agent-server").CombinedOutput(); err != nil {
		t.Fatalf("build the example agent server: %v\n%s", err, b)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "--addr", addr, "--tasks", "../../tasks")
	srv.Env = append(os.Environ(), "AGENT_TOKEN=s3cret")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	for range 50 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := filepath.Join(dir, "run")
	cmd := exec.CommandContext(t.Context(), deskrunBin(t), "eval", "--tasks", "../../tasks", "--only", "files-copy-notes,shell-md5sum,infeasible-*", "--provider", "local", "--agentd", agentdtest.Agentd(t),
		"--agent", "http://"+addr+"/step", "--agent-token", "s3cret", "--fail-under", "1", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("eval against the example agent server: %v\n%s", err, b)
	}
	results, _ := ReadResults(filepath.Join(out, ResultsFile))
	if len(results) < 3 {
		t.Fatalf("%d results", len(results))
	}
	for _, r := range results {
		if r.Status != StatusPassed || r.Usage == nil || r.Usage.Model != "reference-solution" || r.Usage.InputTokens == 0 {
			t.Errorf("%s: %s %s usage %+v", r.ID, r.Status, r.Error, r.Usage)
		}
	}
}

// TestEvalRecord runs `deskrun eval --record` on a task: its folder holds
// a VP8 WebM of the desktop, its steps carry video_ms within the video,
// the report embeds the video, and no encoder or sandbox process is left.
func TestEvalRecord(t *testing.T) {
	needSandboxes(t)
	agentdtest.NeedProgram(t, "ffmpeg")
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.CommandContext(t.Context(), deskrunBin(t), "eval", "--tasks", "../../tasks", "--only", "files-copy-notes",
		"--provider", "local", "--agentd", agentdtest.Agentd(t), "--record", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("eval --record: %v\n%s", err, b)
	}
	checkNoLeftovers(t, tmp)
	dir := filepath.Join(out, "files-copy-notes")
	v := agentdtest.Probe(t, filepath.Join(dir, RecordingFile))
	if v.Codec != "vp8" || v.Frames < 2 || v.Duration <= 0 {
		t.Errorf("the task's video: %+v", v)
	}
	steps, err := ReadTrajectory(dir)
	if err != nil || len(steps) == 0 {
		t.Fatalf("trajectory: %v", err)
	}
	for _, s := range steps {
		if s.VideoMS == nil || *s.VideoMS < 0 || float64(*s.VideoMS) > v.Duration*1000 {
			t.Errorf("step %d at %v ms of a %.2fs video", s.Step, s.VideoMS, v.Duration)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil || !bytes.Contains(b, []byte(`src="files-copy-notes/recording.webm"`)) {
		t.Errorf("the report embeds no video (%v)", err)
	}
}
