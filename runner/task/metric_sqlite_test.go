package task

import (
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
)

func TestRunSQLite3(t *testing.T) {
	db := file(t, "SQLite format 3\x00")
	fake := newFake()
	fake.exec = func(req api.ExecRequest) api.ExecResult {
		if req.Cmd[0] == "python3" {
			if !strings.Contains(req.Stdin, "SELECT") {
				return api.ExecResult{ExitCode: 1, Stderr: "sqlite3.OperationalError: syntax error"}
			}
			return api.ExecResult{Stdout: "1.0\n"}
		}
		return api.ExecResult{}
	}
	task := &Task{ID: "sql"}
	r, done, err := newRun(fake, task, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	sb := metricSandbox{r}
	got, _, err := lookupMetricScoreIn(t, sb, "run_sqlite3", db, jv(t, `{"sql": "SELECT count(*) = 1 FROM t"}`), nil)
	if err != nil || got != 1 {
		t.Errorf("run_sqlite3 = %v, %v, want 1", got, err)
	}
	// The database went into the sandbox and was removed afterwards.
	var copied, removed bool
	for _, e := range fake.execs {
		if e.Cmd[0] == "python3" {
			_, copied = fake.files[e.Cmd[len(e.Cmd)-1]]
		}
		if e.Cmd[0] == "rm" {
			removed = true
		}
	}
	if !copied || !removed {
		t.Errorf("database copied %v, removed %v; want both", copied, removed)
	}
	got, detail, err := lookupMetricScoreIn(t, sb, "run_sqlite3", db, jv(t, `{"sql": "nonsense"}`), nil)
	if err != nil || got != 0 || !strings.Contains(detail, "syntax error") {
		t.Errorf("bad query = %v, %q, %v; want 0 with the error", got, detail, err)
	}
	if got, _, _ := lookupMetricScoreIn(t, sb, "run_sqlite3", nil, jv(t, `{"sql": "SELECT 1"}`), nil); got != 0 {
		t.Errorf("no file = %v, want 0", got)
	}
}
