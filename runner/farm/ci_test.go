package farm

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/runner/task"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// suiteRun makes the results of a run of n tasks in two domains, with
// trials trials each; pass says whether trial k of task i passed.
func suiteRun(n, trials int, pass func(i, k int) bool) []Result {
	var rs []Result
	for i := range n {
		dom := "files"
		if i%2 == 1 {
			dom = "shell"
		}
		for k := range trials {
			r := Result{ID: fmt.Sprintf("task-%02d", i), Domain: dom, Status: StatusFailed, DurationMS: int64(1000 + 10*i), Steps: 3, Attempts: 1,
				Detail: fmt.Sprintf("exact_match: got 'no\\n', want 'yes\\n' (task %d)", i), OSWorld: task.OSWorldCommit}
			sum := sha256.Sum256([]byte(r.ID))
			r.TaskSHA256 = hex.EncodeToString(sum[:])
			if trials > 1 {
				r.Trial = k + 1
			}
			if pass(i, k) {
				r.Status, r.Score, r.Detail = StatusPassed, 1, ""
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// writeRun writes results as a run folder's results.jsonl, as a finished
// run leaves it, and reads it back: comparisons start from folders.
func writeRun(t *testing.T, rs []Result) []Result {
	t.Helper()
	dir := t.TempDir()
	f, _, err := openResults(filepath.Join(dir, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := f.append(r); err != nil {
			t.Fatal(err)
		}
	}
	f.close()
	back, err := ReadResults(filepath.Join(dir, ResultsFile))
	if err != nil || len(back) != len(rs) {
		t.Fatalf("read back %d of %d results: %v", len(back), len(rs), err)
	}
	return back
}

func TestCompare(t *testing.T) {
	// 40 tasks, 5 trials; the base passes tasks 0-29 every time.
	base := writeRun(t, suiteRun(40, 5, func(i, k int) bool { return i < 30 }))

	t.Run("regression", func(t *testing.T) {
		// Tasks 0-11 now fail every trial.
		c := Compare(base, writeRun(t, suiteRun(40, 5, func(i, k int) bool { return i >= 12 && i < 30 })))
		if !c.Regressed() || c.Overall.NewlyFailing != 12 || c.Overall.Delta >= 0 || c.Overall.CI[1] >= 0 {
			t.Errorf("overall: %+v", c.Overall)
		}
		if c.Tasks[0].Change != ChangeNewlyFailing {
			t.Errorf("first task: %+v, want the newly failing first", c.Tasks[0])
		}
	})
	t.Run("improvement", func(t *testing.T) {
		c := Compare(base, writeRun(t, suiteRun(40, 5, func(i, k int) bool { return i < 40 })))
		if c.Overall.Verdict != VerdictBetter || c.Overall.NewlyPassing != 10 || c.Regressed() {
			t.Errorf("overall: %+v", c.Overall)
		}
	})
	t.Run("noise", func(t *testing.T) {
		// Two tasks lose one trial in five, one gains one: within the
		// interval.
		c := Compare(base, writeRun(t, suiteRun(40, 5, func(i, k int) bool {
			switch {
			case i < 2 && k == 0:
				return false
			case i == 35 && k == 0:
				return true
			}
			return i < 30
		})))
		if c.Overall.Verdict != VerdictNoise || c.Regressed() || c.Overall.CI[0] >= 0 || c.Overall.CI[1] <= 0 {
			t.Errorf("overall: %+v ci %v", c.Overall, *c.Overall.CI)
		}
		if c.Overall.NewlyFailing != 2 || c.Overall.NewlyPassing != 1 {
			t.Errorf("changes: %+v", c.Overall)
		}
	})
	t.Run("added and removed", func(t *testing.T) {
		c := Compare(suiteRun(3, 1, func(i, k int) bool { return true }), suiteRun(4, 1, func(i, k int) bool { return i > 0 })[1:])
		changes := map[string]string{}
		for _, d := range c.Tasks {
			changes[d.ID] = d.Change
		}
		if changes["task-00"] != ChangeRemoved || changes["task-03"] != ChangeAdded || changes["task-01"] != ChangeSame {
			t.Errorf("changes: %v", changes)
		}
		if c.Overall.Tasks != 2 {
			t.Errorf("overall compares %d tasks, want the 2 both runs have", c.Overall.Tasks)
		}
	})
}

func TestJUnit(t *testing.T) {
	rs := suiteRun(4, 2, func(i, k int) bool { return i == 0 || (i == 1 && k == 0) })
	rs[7].Status, rs[7].Error, rs[7].Detail = StatusTimeout, "timed out after 10m0s (agent: step 3)", ""
	rs = append(rs, Result{ID: "vscode-task", Domain: "files", Status: StatusSkipped, Error: "needs VS Code, which the image lacks", Trial: 1})
	rs[0].Finished = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, rs); err != nil {
		t.Fatal(err)
	}
	// The shape of the JUnit schema CI systems read: testsuites >
	// testsuite > testcase with failure, error or skipped children,
	// counts on each suite and on the whole.
	var doc struct {
		XMLName  xml.Name
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Errors   int    `xml:"errors,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Time     string `xml:"time,attr"`
			Cases    []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Time      string `xml:"time,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
				Skipped *struct {
					Message string `xml:"message,attr"`
				} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.XMLName.Local != "testsuites" || doc.Tests != 9 || doc.Failures != 4 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("testsuites: %+v\n%s", doc, buf.String())
	}
	files := doc.Suites[0]
	if files.Name != "files" || files.Tests != 5 || files.Failures != 2 || files.Skipped != 1 || files.Time != "4.040" {
		t.Errorf("files suite: %+v", files)
	}
	var sawFailure bool
	for _, c := range files.Cases {
		if c.Classname != "deskrun.files" || c.Time == "" {
			t.Errorf("case %+v", c)
		}
		if c.Failure != nil {
			sawFailure = true
			if c.Name != "task-02 [trial 1]" && c.Name != "task-02 [trial 2]" {
				t.Errorf("failure on %q", c.Name)
			}
			if !strings.Contains(c.Failure.Message, "exact_match: got 'no\\n', want 'yes\\n'") || c.Failure.Type != StatusFailed {
				t.Errorf("failure message %q type %q: want the grader's detail", c.Failure.Message, c.Failure.Type)
			}
		}
	}
	if !sawFailure {
		t.Error("no failure in the files suite")
	}
	if e := doc.Suites[1].Cases[3].Error; e == nil || !strings.Contains(e.Message, "timed out") {
		t.Errorf("the timeout is not an error: %+v", doc.Suites[1].Cases[3])
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestMarkdown(t *testing.T) {
	var buf bytes.Buffer
	rs := suiteRun(6, 1, func(i, k int) bool { return i%3 != 0 })
	rs[3].Detail = "compare_table: sheet 'Sheet1' B2: got 3 | want 4"
	if err := WriteMarkdown(&buf, "deskrun: suite", rs); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.md", buf.Bytes())

	buf.Reset()
	if err := WriteMarkdown(&buf, "deskrun: trials", suiteRun(4, 3, func(i, k int) bool { return i < 2 || k == 0 })); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary-trials.md", buf.Bytes())

	buf.Reset()
	base := suiteRun(40, 5, func(i, k int) bool { return i < 30 })
	c := Compare(base, suiteRun(40, 5, func(i, k int) bool { return i >= 12 && i < 30 }))
	if err := WriteComparisonMarkdown(&buf, "deskrun: main vs this change", c); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.md", buf.Bytes())
}
