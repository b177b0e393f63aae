package farm

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// TrajectoryFile is the name of a task's trajectory in its folder.
const TrajectoryFile = "trajectory.jsonl"

// RecordingFile is the name of an attempt's video in its task's folder
// (with [Config.Record]).
const RecordingFile = "recording.webm"

// StepRecord is one line of a task's trajectory.jsonl: a step of the
// agent, or (Final) the screen that was graded.
type StepRecord struct {
	Step int       `json:"step"`
	Time time.Time `json:"time"`
	// VideoMS is Time in the task's video (recording.webm), in
	// milliseconds from its first frame; set when the run is recorded.
	VideoMS *int64 `json:"video_ms,omitempty"`
	// Screenshot is the image file, in the task's folder, of the screen
	// the step started from; empty if it could not be written.
	Screenshot string `json:"screenshot,omitempty"`
	Width      int    `json:"width,omitempty"`
	Height     int    `json:"height,omitempty"`
	// Text is what the agent said beside its calls.
	Text    string              `json:"text,omitempty"`
	Calls   []task.Call         `json:"calls,omitempty"`
	Results []agent.CallOutcome `json:"results,omitempty"`
	Done    bool                `json:"done,omitempty"`
	Fail    bool                `json:"fail,omitempty"`
	// Error is the agent's or the infrastructure's failure that ended
	// the attempt at this step.
	Error   string `json:"error,omitempty"`
	AgentMS int64  `json:"agent_ms,omitempty"`
	ToolsMS int64  `json:"tools_ms,omitempty"`
	// Usage is the model tokens the agent reported for the step.
	Usage *agent.Usage `json:"usage,omitempty"`
	// Final marks the record of the screen as graded.
	Final bool `json:"final,omitempty"`
}

// trajectory writes a task's trajectory.jsonl and screenshots into its
// folder.
type trajectory struct {
	dir string
	mu  sync.Mutex
	f   *os.File
	// videoStart is the first frame of the attempt's video; zero when it
	// is not recorded.
	videoStart time.Time
}

func newTrajectory(dir string) (*trajectory, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create task folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, TrajectoryFile), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create trajectory: %w", err)
	}
	return &trajectory{dir: dir, f: f}, nil
}

// screenshot writes an observation as name plus its extension and
// returns the file name, or "" when it could not be written.
func (t *trajectory) screenshot(name string, s shot) string {
	ext := ".png"
	if s.MIMEType == "image/jpeg" {
		ext = ".jpg"
	}
	if os.WriteFile(filepath.Join(t.dir, name+ext), s.Data, 0o600) != nil {
		return ""
	}
	return name + ext
}

// add appends a record. A record that cannot be written is dropped: the
// trajectory is a record of the run, not part of its outcome.
func (t *trajectory) add(rec StepRecord) {
	if !t.videoStart.IsZero() {
		ms := rec.Time.Sub(t.videoStart).Milliseconds()
		rec.VideoMS = &ms
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.f.Write(append(b, '\n'))
}

// final records the screen as graded.
func (t *trajectory) final(step int, s shot) {
	t.add(StepRecord{Step: step, Time: time.Now().UTC(), Final: true, Screenshot: t.screenshot("final", s), Width: s.Width, Height: s.Height})
}

func (t *trajectory) close() { t.f.Close() }

// ReadTrajectory reads the trajectory.jsonl in a task's folder.
func ReadTrajectory(dir string) ([]StepRecord, error) {
	f, err := os.Open(filepath.Join(dir, TrajectoryFile))
	if err != nil {
		return nil, fmt.Errorf("read trajectory: %w", err)
	}
	defer f.Close()
	var out []StepRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r StepRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out, sc.Err()
}

// DirName is the folder of task id in a run directory: the id itself
// when it is made of letters, digits, '.', '_' and '-' only (and does not
// start with a dot or name a file of the run: results.jsonl, report.html,
// run.json), else a cleaned form with a hash of the id, so that different
// ids never share a folder and no id leaves the run directory.
func DirName(id string) string {
	var b strings.Builder
	clean := id != "" && len(id) <= 100
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			clean = false
		}
	}
	s := b.String()
	if strings.HasPrefix(s, ".") || s == ResultsFile || s == ReportFile || s == RunFile {
		clean = false
	}
	if clean {
		return s
	}
	if len(s) > 80 {
		s = s[:80]
	}
	sum := sha256.Sum256([]byte(id))
	return "_" + strings.TrimLeft(s, ".") + "-" + hex.EncodeToString(sum[:4])
}
