package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox/local/localtest"
)

// TestRunsCommand drives `deskrun runs` against a deskrun serve process
// with local sandboxes: a run followed to its end, its results, report
// and metrics, then a run under way when the server is stopped, which
// the shutdown cancels and waits for, leaving no sandbox process.
func TestRunsCommand(t *testing.T) {
	tmp := t.TempDir() // the local sandboxes' homes
	runsDir := filepath.Join(t.TempDir(), "runs")
	t.Setenv("TMPDIR", tmp)
	srv := startServe(t, "--provider", "local", "--token", "tok", "--runs", runsDir)
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append([]string{"runs", "--server", srv.url, "--token", "tok"}, args...)...)
	}
	tasks, err := filepath.Abs("../../tasks/files")
	if err != nil {
		t.Fatal(err)
	}

	if code, _, stderr := cli("start", "--tasks", tasks, "--parallel", "65"); code != 1 || !strings.Contains(stderr, "parallel: must be between 1 and 64, got 65") {
		t.Errorf("bad parallel: %d %q", code, stderr)
	}
	if code, _, stderr := cli("start", "--tasks", tasks, "--only", "nothing-*"); code != 1 || !strings.Contains(stderr, `only: "nothing-*" matches none`) {
		t.Errorf("bad only: %d %q", code, stderr)
	}
	if code, _, stderr := runCLI(t, "runs", "--server", srv.url, "list"); code != 1 || !strings.Contains(stderr, "bearer token") {
		t.Errorf("without the token: %d %q", code, stderr)
	}
	if code, _, stderr := cli("fly"); code != 2 || !strings.Contains(stderr, `unknown verb "fly"`) {
		t.Errorf("unknown verb: %d %q", code, stderr)
	}

	// start --wait follows the run and prints its summary.
	code, stdout, stderr := cli("start", "--tasks", tasks, "--only", "files-copy-notes,files-move-todo", "--parallel", "2", "--wait")
	if code != 0 || !strings.Contains(stdout, ": finished\n2 of 2 tasks done: 2 passed, 0 failed, 0 errors") || !strings.Contains(stdout, "all") ||
		!strings.Contains(stderr, "2 tasks in "+runsDir) {
		t.Fatalf("start --wait: %d\n%s\n%s", code, stdout, stderr)
	}
	id := strings.TrimSuffix(strings.Fields(stdout)[1], ":") // "run ID: finished"
	// The summary names the OSWorld tree and the task files' SHA-256, as
	// tasks check names them for the same two files.
	loaded, err := task.Load(tasks)
	if err != nil {
		t.Fatal(err)
	}
	var files []task.TaskFile
	for _, tk := range loaded {
		if tk.ID == "files-copy-notes" || tk.ID == "files-move-todo" {
			files = append(files, task.TaskFile{Domain: tk.Domain, ID: tk.ID, SHA256: tk.SHA256})
		}
	}
	tasksSHA := task.TasksSHA256(files)
	if want := "OSWorld " + task.OSWorldCommit + "; the run's task files' SHA-256: " + tasksSHA + "\n"; len(files) != 2 || !strings.Contains(stdout, want) {
		t.Errorf("start --wait does not print %q:\n%s", want, stdout)
	}

	code, stdout, _ = cli("list")
	if code != 0 || !strings.Contains(stdout, id+"  finished  2/2") {
		t.Errorf("list: %d\n%s", code, stdout)
	}
	code, stdout, _ = cli("show", id, "--json")
	var run api.Run
	if err := json.Unmarshal([]byte(stdout), &run); code != 0 || err != nil || run.ID != id || run.Passed != 2 || len(run.Summary) != 2 ||
		run.OSWorld != task.OSWorldCommit || run.TasksSHA256 != tasksSHA {
		t.Errorf("show --json: %d %s %v", code, stdout, err)
	}
	if code, stdout, _ := cli("results", id); code != 0 || strings.Count(stdout, `"status":"passed"`) != 2 {
		t.Errorf("results: %d %s", code, stdout)
	}
	report := filepath.Join(t.TempDir(), "report.html")
	if code, _, stderr := cli("report", id, "-o", report); code != 0 {
		t.Errorf("report: %d %s", code, stderr)
	}
	if b, err := os.ReadFile(report); err != nil || !bytes.Contains(b, []byte(`data-task="files-copy-notes"`)) {
		t.Errorf("report file: %v %.200s", err, b)
	}
	// report --url: a URL a browser opens without the token, once.
	code, stdout, _ = cli("report", id, "--url")
	u := strings.TrimSpace(stdout)
	if code != 0 || !strings.HasPrefix(u, srv.url+"/v1/runs/"+id+"/report?ticket=") {
		t.Fatalf("report --url: %d %q", code, stdout)
	}
	for i, want := range []int{200, 401} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("report URL, use %d: %d, want %d", i+1, resp.StatusCode, want)
		}
	}

	// The metrics, with the token.
	req, _ := http.NewRequest("GET", srv.url+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, s := range []string{
		`deskrun_tasks_finished_total{status="passed"} 2`,
		`deskrun_sandbox_starts_total{outcome="ok",provider="local"} 2`,
		`deskrun_http_requests_total{code="201",method="POST",route="/v1/runs"} 1`,
		`deskrun_runs_active 0`,
		`go_goroutines `,
	} {
		if !strings.Contains(string(metrics), s) {
			t.Errorf("metrics lack %q", s)
		}
	}
	if resp, err := http.Get(srv.url + "/metrics"); err != nil || resp.StatusCode != 401 {
		t.Errorf("metrics without the token: %v %v", resp.StatusCode, err)
	}

	// cancel forgets a run that has ended.
	if code, stdout, _ := cli("cancel", id); code != 0 || stdout != id+" forgotten\n" {
		t.Errorf("cancel of an ended run: %d %q", code, stdout)
	}
	if code, _, stderr := cli("show", id); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("show after forget: %d %q", code, stderr)
	}

	// A run under way when the server stops: the shutdown cancels it and
	// waits for its sandboxes to go.
	sols := t.TempDir()
	for _, tk := range []string{"files-copy-notes", "files-move-todo", "files-delete-tmp"} {
		rec := `[{"dialect":"anthropic","tool":"bash","args":{"command":"sleep 60"}},{"dialect":"osworld","tool":"desktop_control","args":{"action":"done"}}]`
		if err := os.WriteFile(filepath.Join(sols, tk+".json"), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr = cli("start", "-q", "--tasks", tasks, "--agent", "replay:"+sols, "--only", "files-copy-notes,files-move-todo,files-delete-tmp", "--parallel", "2")
	id = strings.TrimSpace(stdout)
	if code != 0 || id == "" {
		t.Fatalf("start -q: %d %q %q", code, stdout, stderr)
	}
	deadline := time.Now().Add(time.Minute)
	for len(localtest.ProcessesUnder(tmp)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no sandbox process after a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // into the agent's long steps
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-time.After(60 * time.Second):
		t.Fatal("deskrun serve did not stop within 60s of SIGTERM")
	}
	if c := srv.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit status %d after SIGTERM", c)
	}
	var stopped api.Run
	b, err := os.ReadFile(filepath.Join(runsDir, id, "run.json"))
	if err != nil || json.Unmarshal(b, &stopped) != nil || stopped.Status != api.RunCancelled || stopped.Error != "cancelled: the server shut down" || stopped.Done != 0 {
		t.Errorf("run.json after the shutdown: %s %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(runsDir, id, "report.html")); err != nil {
		t.Errorf("report of the run the shutdown cancelled: %v", err)
	}
	var left []string
	for range 30 {
		if left = localtest.ProcessesUnder(tmp); len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(left, "\n"))
	}
}
