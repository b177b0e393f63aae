package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// TrajectoryLine is one line of a session's trajectory,
// <TrajectoryDir>/<session>.jsonl: one call on the session, appended when
// the call returns.
type TrajectoryLine struct {
	// N numbers the lines of a trajectory from 1.
	N    int       `json:"n"`
	Time time.Time `json:"time"` // when the call began
	// Call is "create", "input", "screenshot", "cursor", "screen",
	// "health", "exec", "read_file", "write_file", "windows",
	// "activate_window", "close_window", "shell_exec", "shell_view",
	// "shell_wait", "shell_write", "shell_kill", "clipboard",
	// "set_clipboard", "tool", "release" (keys and buttons released
	// before the sandbox stops), "recording" (the video saved on the
	// host: its path, bytes, frames), "delete", or "trajectory_cut": the last
	// line of a trajectory that reached its size limit (Error says so).
	Call string `json:"call"`
	// Within names the tool call ("anthropic/computer") that made this
	// desktop call; the tool's own line follows its desktop calls.
	Within     string          `json:"within,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMS float64         `json:"duration_ms"`
	// VideoMS is when the call began in the session's video, in
	// milliseconds from its first frame; set when the session is recorded
	// ("record": true), negative for calls before the video started.
	VideoMS *int64 `json:"video_ms,omitempty"`
	// Screenshot is the image the call returned, relative to the
	// trajectory directory: "<session>/<n>.png".
	Screenshot string `json:"screenshot,omitempty"`
}

// trajectory appends a session's calls to its JSONL file. Every line is
// written with one write as the call returns; nothing is buffered. It is
// safe for concurrent use; a nil *trajectory records nothing.
type trajectory struct {
	dir     string // the trajectory directory
	session string
	store   *trajStore // the directory's total; nil: no bound

	mu       sync.Mutex
	f        *os.File // nil once closed
	n        int
	limit    int64 // bytes of lines and images; negative: no bound
	used     int64
	madeDir  bool
	lastData []byte // the last image saved and its reference,
	lastRef  string // so a tool's screenshot is stored once
}

// DefaultTrajectoryLimit bounds a session's trajectory when
// Config.TrajectoryLimit is zero.
const DefaultTrajectoryLimit = 256 << 20

func openTrajectory(dir, session string, limit int64, store *trajStore) (*trajectory, error) {
	f, err := os.OpenFile(filepath.Join(dir, session+".jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open trajectory: %w", err)
	}
	if limit == 0 {
		limit = DefaultTrajectoryLimit
	}
	return &trajectory{dir: dir, session: session, f: f, limit: limit, store: store}, nil
}

// cut ends the trajectory with a line saying it reached its limit, or
// the directory's total when total is set. Called with t.mu held.
func (t *trajectory) cut(start time.Time, total bool) {
	t.n++
	msg := fmt.Sprintf("trajectory cut at %d bytes, its limit (deskrun serve --trajectory-limit): later calls of the session are not recorded", t.limit)
	if total {
		msg = fmt.Sprintf("trajectory cut at %d bytes: the trajectories of the sessions running fill the directory's total (deskrun serve --trajectory-total, %d bytes); later calls of the session are not recorded", t.used, t.store.limit)
	}
	b, _ := json.Marshal(TrajectoryLine{N: t.n, Time: start.UTC(), Call: "trajectory_cut", Error: msg})
	_, _ = t.f.Write(append(b, '\n'))
	t.used += int64(len(b)) + 1
	t.f.Close()
	t.f = nil
	t.store.end(t.session, t.used)
}

// image is a picture a call returned.
type image struct {
	data   []byte
	format string // "png" or "jpeg"
}

// record appends one call to the session's trajectory, if it keeps one.
func (s *Session) record(ctx context.Context, call string, args, result any, err error, start time.Time, img *image) {
	within, _ := ctx.Value(toolKey{}).(string)
	s.traj.append(call, within, args, result, err, start, img, s.videoMS(start))
}

func (t *trajectory) append(call, within string, args, result any, err error, start time.Time, img *image, videoMS *int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return
	}
	t.n++
	line := TrajectoryLine{
		N: t.n, Time: start.UTC(), Call: call, Within: within,
		Args: encode(args), Result: encode(result),
		DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		VideoMS:    videoMS,
	}
	if err != nil {
		line.Error = err.Error()
	}
	if img != nil && len(img.data) > 0 {
		fresh := t.lastRef == "" || !bytes.Equal(t.lastData, img.data) // else saveImage refers to the last one
		if fresh && t.limit >= 0 && t.used+int64(len(img.data)) > t.limit {
			t.n--
			t.cut(start, false)
			return
		}
		if fresh && !t.store.reserve(int64(len(img.data))) {
			t.n--
			t.cut(start, true)
			return
		}
		if line.Screenshot = t.saveImage(img); fresh && line.Screenshot != "" {
			t.used += int64(len(img.data))
		}
	}
	b, merr := json.Marshal(line)
	if merr != nil {
		b, _ = json.Marshal(TrajectoryLine{N: t.n, Time: line.Time, Call: call, Within: within, Error: "encode trajectory line: " + merr.Error()})
	}
	if t.limit >= 0 && t.used+int64(len(b))+1 > t.limit {
		t.n--
		t.cut(start, false)
		return
	}
	if !t.store.reserve(int64(len(b)) + 1) {
		t.n--
		t.cut(start, true)
		return
	}
	t.used += int64(len(b)) + 1
	_, _ = t.f.Write(append(b, '\n'))
}

// saveImage stores img as <session>/<n>.<format> and returns that path,
// or the path of the last image saved when img is the same picture.
// Called with t.mu held.
func (t *trajectory) saveImage(img *image) string {
	if t.lastRef != "" && bytes.Equal(t.lastData, img.data) {
		return t.lastRef
	}
	format := img.format
	if format == "" {
		format = "png"
	}
	rel := filepath.Join(t.session, fmt.Sprintf("%d.%s", t.n, format))
	if !t.madeDir {
		if os.MkdirAll(filepath.Join(t.dir, t.session), 0o700) != nil {
			return ""
		}
		t.madeDir = true
	}
	if os.WriteFile(filepath.Join(t.dir, rel), img.data, 0o600) != nil {
		return ""
	}
	t.lastData, t.lastRef = img.data, rel
	return rel
}

// encode turns v into JSON for a trajectory line: raw JSON as it is
// (as a string if it is not valid JSON), anything else marshalled.
func encode(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		if json.Valid(x) {
			return x
		}
		b, _ := json.Marshal(string(x))
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal("unencodable: " + err.Error())
	}
	return b
}

func (t *trajectory) close() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		_ = t.f.Close()
		t.f = nil
		t.store.end(t.session, t.used)
	}
	t.lastData = nil
}
