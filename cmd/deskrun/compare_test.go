package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/runner/farm"
)

// runFolder writes a run folder whose results.jsonl has n tasks of three
// trials each, task i's trial k passing when pass says.
func runFolder(t *testing.T, n int, pass func(i, k int) bool) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := range n {
		for k := range 3 {
			r := farm.Result{ID: fmt.Sprintf("t%02d", i), Domain: "d", Trial: k + 1, Status: farm.StatusFailed, Detail: "exact_match: got 'no', want 'yes'", Attempts: 1}
			if pass(i, k) {
				r.Status, r.Score, r.Detail = farm.StatusPassed, 1, ""
			}
			line, _ := json.Marshal(r)
			b.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, farm.ResultsFile), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunsCompare runs `deskrun runs compare` as a CI step does: exit 1
// on a significant regression with --fail-on-regression, 0 on noise,
// the Markdown written, --fail-under on NEW's rate.
func TestRunsCompare(t *testing.T) {
	base := runFolder(t, 30, func(i, k int) bool { return i < 25 })
	worse := runFolder(t, 30, func(i, k int) bool { return i >= 10 && i < 25 })
	noisy := runFolder(t, 30, func(i, k int) bool { return i < 25 && !(i == 3 && k == 1) })
	md := filepath.Join(t.TempDir(), "compare.md")

	code, stdout, stderr := runCLI(t, "runs", "compare", "--fail-on-regression", "--markdown", md, base, worse)
	if code != 1 || !strings.Contains(stderr, "significantly worse") || !strings.Contains(stdout, "newly failing") {
		t.Errorf("regression: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "**worse**") {
		t.Errorf("markdown: %v\n%s", err, b)
	}
	if code, _, stderr := runCLI(t, "runs", "compare", base, worse); code != 0 {
		t.Errorf("without --fail-on-regression: exit %d %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "runs", "compare", "--fail-on-regression", "--json", base, noisy)
	var c farm.Comparison
	if code != 0 || json.Unmarshal([]byte(stdout), &c) != nil || c.Overall.Verdict != farm.VerdictNoise {
		t.Errorf("noise: exit %d %s\n%s", code, stderr, stdout)
	}
	if code, _, stderr := runCLI(t, "runs", "compare", "--fail-under", "0.9", base, base); code != 1 || !strings.Contains(stderr, "under --fail-under") {
		t.Errorf("--fail-under 0.9 of a 83%% run: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "runs", "compare", "--fail-under", "2", base, base); code != 2 || !strings.Contains(stderr, "--fail-under") {
		t.Errorf("--fail-under 2: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "runs", "compare", "--server", "http://127.0.0.1:1", base, filepath.Join(base, "nothing")); code != 1 || !strings.Contains(stderr, "neither a run folder") {
		t.Errorf("a missing run: exit %d %s", code, stderr)
	}
}
