//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSuiteOnDocker replays the shipped task suite with deskrun eval on
// docker sandboxes, four at once: every task must pass, as it does on
// local ones (runner/farm's tests), and no sandbox may be left.
func TestSuiteOnDocker(t *testing.T) {
	cli := engine(t, minimalImage)
	repo := repoRoot()
	bin := buildDeskrun(t)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.CommandContext(t.Context(), bin, "eval", "--provider", "docker", "--image", minimalImage,
		"--tasks", filepath.Join(repo, "tasks"), "--agent", "replay", "--parallel", "4", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("deskrun eval: %v\n%s", err, b)
	}
	f, err := os.Open(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var r struct {
			ID, Status, Detail, Error string
			Score                     float64
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("results.jsonl line %d: %v", n+1, err)
		}
		if r.Status != "passed" {
			t.Errorf("%s: %s, score %v: %s%s", r.ID, r.Status, r.Score, r.Detail, r.Error)
		}
	}
	if n < 25 {
		t.Errorf("%d results, want the whole suite (at least 25)", n)
	}
	if left := managedContainers(t, cli, runOwner(t, out)); len(left) != 0 {
		t.Errorf("sandboxes left by deskrun eval: %q", left)
	}
}

// evalResult is what the tests read of a line of results.jsonl.
type evalResult struct {
	ID            string  `json:"id"`
	Trial         int     `json:"trial"`
	Status        string  `json:"status"`
	Score         float64 `json:"score"`
	Error         string  `json:"error"`
	Detail        string  `json:"detail"`
	Attempts      int     `json:"attempts"`
	Snapshot      string  `json:"snapshot"`
	SnapshotError string  `json:"snapshot_error"`
	SetupMS       int64   `json:"setup_ms"`
	SandboxMS     int64   `json:"sandbox_ms"`
}

// readResults reads the results.jsonl of the run in out.
func readResults(tb testing.TB, out string) []evalResult {
	tb.Helper()
	f, err := os.Open(filepath.Join(out, "results.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rs []evalResult
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var r evalResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("results.jsonl line %d: %v", len(rs)+1, err)
		}
		rs = append(rs, r)
	}
	return rs
}
