package farm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

// A task that loads as skipped gets the status skipped without a
// sandbox, counts in no rate, and runs again on resume.
func TestSkippedTask(t *testing.T) {
	ctx := t.Context()
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": fake.New(fake.Config{Errs: []error{errdefs.ErrUnavailable.WithMessage("idle provider")}})}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	skip := &task.Skip{Field: "config[0] (googledrive)", Reason: "needs Google Drive credentials"}
	tasks := []*task.Task{
		{ID: "drive", Domain: "chrome", Skip: skip},
		{ID: "down", Domain: "chrome"}, // the idle provider starts nothing: an infrastructure error
	}
	cfg := Config{Manager: m, Agent: agent.Replay{}, Out: out, Retries: -1}
	got, err := Run(ctx, cfg, tasks)
	if err != nil {
		t.Fatal(err)
	}
	by := byID(got)
	if r := by["drive"]; r.Status != StatusSkipped || r.Error != "skipped: config[0] (googledrive): needs Google Drive credentials" || r.Attempts != 0 {
		t.Errorf("drive = %+v", r)
	}
	if r := by["down"]; r.Status != StatusInfraError {
		t.Errorf("down = %+v, want an infrastructure error", r)
	}
	sums := Summarize(got)
	all := sums[len(sums)-1]
	if all.Tasks != 2 || all.Skipped != 1 || all.Errors != 1 || all.SuccessRate != 0 {
		t.Errorf("summary = %+v", all)
	}
	// Only "down" counts in the rates: pass it and the rate is 100%.
	passed := []Result{by["drive"], {ID: "down", Domain: "chrome", Status: StatusPassed, Score: 1}}
	if s := Summarize(passed); s[len(s)-1].SuccessRate != 1 || s[len(s)-1].MeanScore != 1 {
		t.Errorf("summary with the other passed = %+v", s[len(s)-1])
	}
	var b strings.Builder
	if err := WriteTable(&b, sums); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "skipped") {
		t.Errorf("table has no skipped column:\n%s", b.String())
	}
	if err := WriteReport(out, got); err != nil {
		t.Fatal(err)
	}
	report, _ := os.ReadFile(filepath.Join(out, ReportFile))
	if !strings.Contains(string(report), "<th>skipped</th>") || !strings.Contains(string(report), "needs Google Drive credentials") {
		t.Error("report shows neither the skipped column nor the reason")
	}

	// Resume: the skipped task runs again (and is skipped again); the
	// infrastructure error stays.
	tasks[0].Skip = &task.Skip{Field: "config[0] (googledrive)", Reason: "still no credentials"}
	cfg.Resume = true
	got, err = Run(ctx, cfg, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("after resume: %d results, want 2: %+v", len(got), got)
	}
	if r := byID(got)["drive"]; !strings.Contains(r.Error, "still no credentials") {
		t.Errorf("drive after resume = %+v, want it run again", r)
	}
	onDisk, err := ReadResults(filepath.Join(out, ResultsFile))
	if err != nil || len(onDisk) != 2 {
		t.Errorf("results.jsonl after resume: %+v, %v", onDisk, err)
	}
}
