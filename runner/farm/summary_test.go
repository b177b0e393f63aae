package farm

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/runner/task"
)

// A run's grading names the same SHA-256 as tasks check on the same
// task files, whatever the order of the results and however many trials;
// a changed file or another OSWorld tree shows.
func TestGradingOf(t *testing.T) {
	rep, err := task.Check("../../tasks", nil, task.Apps{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) < 5 {
		t.Fatalf("the suite has %d tasks", len(rep.Tasks))
	}
	var results []Result
	for _, e := range rep.Tasks {
		for trial := 1; trial <= 2; trial++ {
			results = append(results, Result{ID: e.ID, Domain: e.Domain, Trial: trial, Status: StatusPassed, Score: 1, TaskSHA256: e.SHA256, OSWorld: task.OSWorldCommit})
		}
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	g := GradingOf(results)
	if g.TasksSHA256 != rep.TasksSHA256 || g.Tasks != len(rep.Tasks) || g.OSWorld != task.OSWorldCommit {
		t.Errorf("grading %+v, want the check's %s over %d files and %s", g, rep.TasksSHA256, len(rep.Tasks), task.OSWorldCommit)
	}
	want := "OSWorld " + task.OSWorldCommit + "; the run's " + strconv.Itoa(len(rep.Tasks)) + " task files' SHA-256: " + rep.TasksSHA256
	if g.String() != want {
		t.Errorf("printed %q, want %q", g.String(), want)
	}

	// One task file changed: another value.
	changed := append([]Result(nil), results...)
	changed[0].TaskSHA256 = strings.Repeat("0", 64)
	if c := GradingOf(changed); c.TasksSHA256 == g.TasksSHA256 || c.Tasks != g.Tasks+1 {
		t.Errorf("a changed task file: %+v, want another SHA-256 and the file counted", c)
	}
	// Results of an older build that named no tree, or another tree.
	changed[1].OSWorld = ""
	changed[2].OSWorld = "xlang-ai/OSWorld@0000000"
	if c := GradingOf(changed); c.OSWorld != task.OSWorldCommit+"; xlang-ai/OSWorld@0000000" {
		t.Errorf("two trees: %q", c.OSWorld)
	}
	if c := GradingOf([]Result{{ID: "x", Domain: "d"}}); !strings.HasPrefix(c.String(), "OSWorld not recorded; the run's 1 task files'") {
		t.Errorf("no tree recorded: %q", c.String())
	}
}

// runs compare names both runs' grading and the tasks whose files
// differ between them.
func TestCompareTaskFiles(t *testing.T) {
	base := suiteRun(6, 2, func(i, k int) bool { return i%2 == 0 })
	same := Compare(base, base)
	if same.FilesChanged != nil || same.BaseGrading != same.NewGrading {
		t.Errorf("a run against itself: files changed %v, gradings %+v and %+v", same.FilesChanged, same.BaseGrading, same.NewGrading)
	}
	var buf strings.Builder
	if err := WriteComparison(&buf, same); err != nil {
		t.Fatal(err)
	}
	g := GradingOf(base).String()
	if out := buf.String(); !strings.Contains(out, "base: "+g+"\nnew:  "+g+"\n") || strings.Contains(out, "different") {
		t.Errorf("a run against itself:\n%s", out)
	}

	changed := append([]Result(nil), base...)
	for i := range changed {
		switch changed[i].ID {
		case "task-01", "task-04":
			changed[i].TaskSHA256 = strings.Repeat("a", 64)
		}
		changed[i].OSWorld = "xlang-ai/OSWorld@0000000"
	}
	c := Compare(base, changed)
	if !slices.Equal(c.FilesChanged, []string{"task-01", "task-04"}) {
		t.Errorf("files changed %v, want [task-01 task-04]", c.FilesChanged)
	}
	buf.Reset()
	if err := WriteComparison(&buf, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"the runs were graded under different OSWorld trees\n",
		"2 tasks of both runs have different task files (their scores grade different tasks): task-01, task-04\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := WriteComparisonMarkdown(&buf, "x", c); err != nil || !strings.Contains(buf.String(), "task-01, task-04") {
		t.Errorf("Markdown: %v\n%s", err, buf.String())
	}
}
