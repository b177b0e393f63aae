package task

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/metric"
)

// fakeSandbox is a hand-written Sandbox: files in a map, windows in a
// slice, and Exec answered by a script function (or a default that
// answers the few commands this package itself runs).
type fakeSandbox struct {
	mu      sync.Mutex
	files   map[string][]byte
	windows []api.Window
	screen  api.Screen
	// exec answers a command; nil uses defaultExec.
	exec func(req api.ExecRequest) api.ExecResult

	execs     []api.ExecRequest
	activated []uint32
	closed    []uint32
	// gone lists windows that are still listed but no longer exist:
	// activating or closing them is not found, as agentd answers.
	gone map[uint32]bool
}

func newFake() *fakeSandbox {
	return &fakeSandbox{files: map[string][]byte{}, screen: api.Screen{Width: 1280, Height: 800}}
}

func (f *fakeSandbox) Exec(_ context.Context, req api.ExecRequest) (api.ExecResult, error) {
	f.mu.Lock()
	f.execs = append(f.execs, req)
	fn := f.exec
	f.mu.Unlock()
	if fn != nil {
		if res, ok := defaultExec(f, req); ok {
			return res, nil
		}
		return fn(req), nil
	}
	res, _ := defaultExec(f, req)
	return res, nil
}

// defaultExec answers the helper commands of this package.
func defaultExec(f *fakeSandbox, req api.ExecRequest) (api.ExecResult, bool) {
	cmd := req.Cmd
	switch {
	case len(cmd) == 3 && cmd[0] == "sh" && cmd[2] == `printf %s "$HOME"`:
		return api.ExecResult{Stdout: "/home/user"}, true
	case len(cmd) >= 3 && cmd[0] == "mkdir" && cmd[1] == "-p":
		return api.ExecResult{}, true
	case len(cmd) == 3 && cmd[0] == "test" && cmd[1] == "-e":
		f.mu.Lock()
		defer f.mu.Unlock()
		if _, ok := f.files[cmd[2]]; ok {
			return api.ExecResult{}, true
		}
		return api.ExecResult{ExitCode: 1}, true
	}
	return api.ExecResult{ExitCode: 127, Stderr: "fake: unknown command " + strings.Join(cmd, " ")}, false
}

func (f *fakeSandbox) ReadFile(_ context.Context, path string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, ok := f.files[path]
	if !ok {
		return nil, errdefs.ErrNotFound.WithMessage(path + ": no such file")
	}
	return data, nil
}

func (f *fakeSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = append([]byte(nil), data...)
	return nil
}

func (f *fakeSandbox) Health(context.Context) (api.Health, error) {
	return api.Health{Status: "ok", Display: ":99", Screen: f.screen}, nil
}

func (f *fakeSandbox) Windows(context.Context) ([]api.Window, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Window(nil), f.windows...), nil
}

func (f *fakeSandbox) ActivateWindow(_ context.Context, id uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone[id] {
		return errdefs.ErrNotFound.WithMessage("window gone")
	}
	f.activated = append(f.activated, id)
	return nil
}

func (f *fakeSandbox) CloseWindow(_ context.Context, id uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone[id] {
		return errdefs.ErrNotFound.WithMessage("window gone")
	}
	f.closed = append(f.closed, id)
	return nil
}

// adminFake adds the admin channel.
type adminFake struct {
	*fakeSandbox
	admin []api.ExecRequest
}

func (a *adminFake) AdminExec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error) {
	a.admin = append(a.admin, req)
	return api.ExecResult{}, nil
}

var _ Sandbox = (*fakeSandbox)(nil)
var _ AdminExecer = (*adminFake)(nil)

// lookupMetricScore scores a metric of the table on its own.
func lookupMetricScore(t *testing.T, name string, result, expected any, opts map[string]any) (float64, string, error) {
	t.Helper()
	m, ok := metric.Lookup(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return m.Score(t.Context(), nil, result, expected, opts)
}

// lookupMetricScoreIn scores a metric of the table that runs in sb.
func lookupMetricScoreIn(t *testing.T, sb metric.Sandbox, name string, result, expected any, opts map[string]any) (float64, string, error) {
	t.Helper()
	m, ok := metric.Lookup(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return m.Score(t.Context(), sb, result, expected, opts)
}

// jv decodes JSON into the task's data model.
func jv(t *testing.T, s string) any {
	t.Helper()
	v, err := py.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// file writes content to a temporary file and returns its path.
func file(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fx is a document of the metric package's test data.
func fx(name string) string { return filepath.Join("metric", "testdata", "metrics", name) }

// tone writes a sine tone of freq Hz lasting secs seconds as a WAV file.
func tone(t testing.TB, name string, freq, secs int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
		"sine=frequency="+strconv.Itoa(freq)+":duration="+strconv.Itoa(secs)+":sample_rate=44100", p).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	return p
}
