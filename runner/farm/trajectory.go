package farm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// trajectory writes a task's steps: trajectory.jsonl and a screenshot
// per step, in the task's folder.
type trajectory struct {
	dir string
	f   *os.File
}

// StepRecord is one line of a task's trajectory.jsonl.
type StepRecord struct {
	Step       int                 `json:"step"`
	Screenshot string              `json:"screenshot"` // file name in the task's folder
	Calls      []task.Call         `json:"calls,omitempty"`
	Results    []agent.CallOutcome `json:"results,omitempty"`
	Error      string              `json:"error,omitempty"`
	DurationMS int64               `json:"duration_ms"`
}

func newTrajectory(dir string) (*trajectory, error) {
	f, err := os.Create(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil {
		return nil, err
	}
	return &trajectory{dir: dir, f: f}, nil
}

func (t *trajectory) add(step int, shot []byte, calls []task.Call, results []agent.CallOutcome, err error, d time.Duration) {
	name := fmt.Sprintf("step-%03d.png", step)
	_ = os.WriteFile(filepath.Join(t.dir, name), shot, 0o644)
	rec := StepRecord{Step: step, Screenshot: name, Calls: calls, Results: results, DurationMS: d.Milliseconds()}
	if err != nil {
		rec.Error = err.Error()
	}
	b, _ := json.Marshal(rec)
	_, _ = t.f.Write(append(b, '\n'))
}

func (t *trajectory) close() { t.f.Close() }

// ReadTrajectory reads a task's trajectory.jsonl.
func ReadTrajectory(dir string) ([]StepRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, "trajectory.jsonl"))
	if err != nil {
		return nil, err
	}
	var out []StepRecord
	for _, line := range splitLines(b) {
		var r StepRecord
		if json.Unmarshal(line, &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	start := 0
	for i, c := range b {
		if c == '\n' {
			if i > start {
				out = append(out, b[start:i])
			}
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, b[start:])
	}
	return out
}
