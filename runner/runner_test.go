package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
	"github.com/deskrun/deskrun/sandbox/local"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

func testLogger(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// desktop returns a Manager over a local provider of real sandboxes, and
// its trajectory directory.
func desktop(t *testing.T) (*Manager, *local.Provider, string) {
	t.Helper()
	p, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), WM: "openbox", TempDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	traj := t.TempDir()
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"local": p}, TrajectoryDir: traj, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		m.Close(ctx)
		p.Close(ctx)
	})
	return m, p, traj
}

// pointer asks xdotool, on the host, where the pointer of display is.
func pointer(t *testing.T, display string) string {
	t.Helper()
	cmd := exec.Command("xdotool", "getmouselocation")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdotool getmouselocation on %s: %v", display, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		t.Fatalf("xdotool: %q", out)
	}
	return f[0] + " " + f[1]
}

// readTrajectory returns the lines of a session's trajectory.
func readTrajectory(t *testing.T, dir, id string) []TrajectoryLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []TrajectoryLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l TrajectoryLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trajectory line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

// sandboxAlive reports the processes of a local sandbox still running.
func sandboxProcs(p *local.Provider, sandboxID string) (marker string, pids []int) {
	marker, _ = p.Marker(sandboxID)
	return marker, local.Marked(marker)
}

func TestSessionLifecycle(t *testing.T) {
	m, p, traj := desktop(t)
	ctx := t.Context()
	s, err := m.Create(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 1024, Height: 768}, Labels: map[string]string{"suite": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if info.Provider != "local" || info.Dialect != "anthropic" || info.Screen != (api.Screen{Width: 1024, Height: 768}) ||
		info.SandboxID == "" || info.CreatedAt.IsZero() || info.Labels["suite"] != "x" {
		t.Errorf("info %+v", info)
	}
	if got, err := m.Get(s.ID()); err != nil || got != s {
		t.Errorf("Get: %v", err)
	}
	if l := m.List(); len(l) != 1 || l[0] != s {
		t.Errorf("List: %v", l)
	}
	h, err := s.Health(ctx)
	if err != nil || h.Status != "ok" || h.Display == "" {
		t.Fatalf("health %+v %v", h, err)
	}
	marker, pids := sandboxProcs(p, info.SandboxID)
	if len(pids) < 3 {
		t.Errorf("sandbox runs processes %v, want agentd, Xvfb and openbox at least", pids)
	}

	t.Run("screenshot", func(t *testing.T) {
		shot, err := s.Screenshot(ctx, api.ScreenshotOptions{})
		if err != nil || shot.Width != 1024 || shot.Height != 768 || shot.Format != "png" {
			t.Fatalf("screenshot %dx%d %s %v", shot.Width, shot.Height, shot.Format, err)
		}
		lines := readTrajectory(t, traj, s.ID())
		last := lines[len(lines)-1]
		if last.Call != "screenshot" || last.Screenshot != filepath.Join(s.ID(), fmt.Sprint(last.N)+".png") {
			t.Fatalf("last trajectory line %+v, want the screenshot with its image", last)
		}
		b, err := os.ReadFile(filepath.Join(traj, last.Screenshot))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() != 1024 || img.Bounds().Dy() != 768 {
			t.Errorf("stored screenshot: %v %v", img.Bounds(), err)
		}
		// The trajectory is its owner's alone.
		for _, p := range []string{filepath.Join(traj, s.ID()+".jsonl"), filepath.Join(traj, s.ID()), filepath.Join(traj, last.Screenshot)} {
			if st, err := os.Stat(p); err != nil || st.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: mode %v %v, want none for group and others", p, st.Mode().Perm(), err)
			}
		}
	})

	t.Run("input", func(t *testing.T) {
		if _, err := s.Input(ctx, []api.Action{{Type: "move", X: api.Int(10), Y: api.Int(20)}}); err != nil {
			t.Fatal(err)
		}
		if got := pointer(t, h.Display); got != "x:10 y:20" {
			t.Errorf("xdotool after move: %s", got)
		}
		if p, err := s.Cursor(ctx); err != nil || p != (api.Point{X: 10, Y: 20}) {
			t.Errorf("cursor %v %v", p, err)
		}
		res, err := s.Input(ctx, []api.Action{{Type: "move", X: api.Int(5000), Y: api.Int(1)}})
		if err == nil && res.Error == nil {
			t.Errorf("move off screen: %+v, want an error", res)
		}
		lines := readTrajectory(t, traj, s.ID())
		if last := lines[len(lines)-1]; last.Call != "input" || !strings.Contains(string(last.Args), "5000") {
			t.Errorf("last line %+v, want the refused input, written as it happened", last)
		}
	})

	t.Run("exec and files", func(t *testing.T) {
		r, err := s.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `echo "$DISPLAY"; exit 3`}})
		if err != nil || r.ExitCode != 3 || strings.TrimSpace(r.Stdout) != h.Display {
			t.Errorf("exec: %+v %v", r, err)
		}
		path := filepath.Join(t.TempDir(), "note.txt")
		if err := s.WriteFile(ctx, path, []byte("héllo\n")); err != nil {
			t.Fatal(err)
		}
		if b, err := s.ReadFile(ctx, path); err != nil || string(b) != "héllo\n" {
			t.Errorf("read back %q %v", b, err)
		}
		if _, err := s.ReadFile(ctx, path+".missing"); !errdefs.IsNotFound(err) {
			t.Errorf("missing file: %v, want not found", err)
		}
		if _, err := s.ShellExec(ctx, "main", api.ShellExecRequest{Command: "cd /tmp && export X=42"}); err != nil {
			t.Fatal(err)
		}
		sh, err := s.ShellExec(ctx, "main", api.ShellExecRequest{Command: `echo "$(pwd) $X"`})
		if err != nil || strings.TrimSpace(sh.Output) != "/tmp 42" {
			t.Errorf("shell keeps no state: %+v %v", sh, err)
		}
		if _, err := s.ShellView(ctx, "nope"); !errdefs.IsNotFound(err) {
			t.Errorf("unknown shell: %v, want not found", err)
		}
	})

	t.Run("tools", func(t *testing.T) {
		res, err := s.CallTool(ctx, "", "computer", json.RawMessage(`{"action":"mouse_move","coordinate":[300,200]}`))
		if err != nil || res.IsError {
			t.Fatalf("anthropic mouse_move: %+v %v", res, err)
		}
		if got := pointer(t, h.Display); got != "x:300 y:200" {
			t.Errorf("xdotool after anthropic mouse_move: %s", got)
		}
		res, err = s.CallTool(ctx, "osworld", "desktop_mouse_move", json.RawMessage(`{"x":5,"y":6}`))
		if err != nil || res.IsError {
			t.Fatalf("osworld move: %+v %v", res, err)
		}
		if got := pointer(t, h.Display); got != "x:5 y:6" {
			t.Errorf("xdotool after osworld move: %s", got)
		}
		res, err = s.CallTool(ctx, "anthropic", "computer", json.RawMessage(`{"action":"screenshot"}`))
		if err != nil || res.IsError || len(res.Content) == 0 || res.Content[len(res.Content)-1].Type != "image" {
			t.Fatalf("anthropic screenshot: %+v %v", res, err)
		}
		res, err = s.CallTool(ctx, "", "computer", json.RawMessage(`{"action":"fly"}`))
		if err != nil || !res.IsError {
			t.Errorf("bad action: %+v %v, want a tool error", res, err)
		}
		_, err = s.CallTool(ctx, "klingon", "x", nil)
		if !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), `dialect: unknown dialect "klingon" (want one of anthropic`) {
			t.Errorf("unknown dialect: %v", err)
		}
		// Left held, for Delete to release.
		if res, err := s.CallTool(ctx, "", "computer", json.RawMessage(`{"action":"left_mouse_down"}`)); err != nil || res.IsError {
			t.Fatalf("left_mouse_down: %+v %v", res, err)
		}
		lines := readTrajectory(t, traj, s.ID())
		var tools, within, shots int
		for _, l := range lines {
			switch {
			case l.Call == "tool":
				tools++
				if strings.Contains(string(l.Args), `"action":"screenshot"`) {
					shots++
					if _, err := os.Stat(filepath.Join(traj, l.Screenshot)); l.Screenshot == "" || err != nil {
						t.Errorf("tool screenshot not stored: %+v %v", l, err)
					}
				}
			case l.Within != "":
				within++
			}
		}
		if tools != 5 || within == 0 || shots != 1 {
			t.Errorf("trajectory has %d tool lines (want 5, the unknown dialect is not a call), %d desktop calls within tools, %d tool screenshots", tools, within, shots)
		}
	})

	t.Run("windows", func(t *testing.T) {
		if _, err := exec.LookPath("xterm"); err != nil {
			t.Fatal("xterm is not installed (scripts/install-deps.sh installs it)")
		}
		if r, err := s.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "xterm -title runner-test >/dev/null 2>&1 &"}}); err != nil || r.ExitCode != 0 {
			t.Fatalf("start xterm: %+v %v", r, err)
		}
		var win api.Window
		for deadline := time.Now().Add(10 * time.Second); win.ID == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			ws, err := s.Windows(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(ws, func(w api.Window) bool { return w.Title == "runner-test" }); i >= 0 {
				win = ws[i]
			}
		}
		if win.ID == 0 {
			t.Fatal("the xterm window never showed up")
		}
		if err := s.ActivateWindow(ctx, win.ID); err != nil {
			t.Error(err)
		}
		if err := s.CloseWindow(ctx, win.ID); err != nil {
			t.Error(err)
		}
	})

	t.Run("clipboard", func(t *testing.T) {
		if err := s.SetClipboard(ctx, "copié"); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Clipboard(ctx); err != nil || got != "copié" {
			t.Errorf("clipboard %q %v", got, err)
		}
	})

	if err := m.Delete(ctx, s.ID()); err != nil {
		t.Fatal(err)
	}
	if left := local.Marked(marker); len(left) > 0 {
		t.Errorf("after Delete, processes %v of the sandbox remain", left)
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(b), ") Z ") {
				t.Errorf("after Delete, %s remains", b)
			}
		}
	}
	if _, err := m.Get(s.ID()); !errdefs.IsNotFound(err) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := m.Delete(ctx, s.ID()); !errdefs.IsNotFound(err) {
		t.Errorf("second Delete: %v", err)
	}
	if _, err := s.Screenshot(ctx, api.ScreenshotOptions{}); !errdefs.IsNotFound(err) {
		t.Errorf("screenshot of a deleted session: %v, want not found", err)
	}

	lines := readTrajectory(t, traj, s.ID())
	var calls []string
	for i, l := range lines {
		if l.N != i+1 || l.Time.IsZero() {
			t.Errorf("line %d: n %d time %v", i+1, l.N, l.Time)
		}
		calls = append(calls, l.Call)
	}
	got := " " + strings.Join(calls, " ") + " "
	for _, want := range []string{" create health screenshot input cursor input ", " exec write_file read_file read_file shell_exec shell_exec shell_view ",
		" tool ", " windows ", " activate_window close_window ", " release delete "} {
		if !strings.Contains(got, want) {
			t.Errorf("trajectory calls %q lack %q", got, want)
		}
	}
	if !strings.HasSuffix(got, " release delete ") {
		t.Errorf("trajectory does not end with the release of the held button and the delete: %s", got)
	}
	if rel := lines[len(lines)-2]; !strings.Contains(string(rel.Args), `"button_up"`) || rel.Error != "" {
		t.Errorf("release line %+v, want a button_up that worked", rel)
	}
}

func TestCreateRejectsBadRequests(t *testing.T) {
	m, _, _ := desktop(t)
	for _, tc := range []struct {
		req  api.CreateSessionRequest
		want string
	}{
		{api.CreateSessionRequest{Provider: "vmware"}, `provider: unknown provider "vmware" (this server has local)`},
		{api.CreateSessionRequest{Screen: api.Screen{Width: 10, Height: 800}}, "screen.width: 10 out of range 320..7680"},
		{api.CreateSessionRequest{Screen: api.Screen{Width: 8000, Height: 800}}, "screen.width: 8000 out of range"},
		{api.CreateSessionRequest{Screen: api.Screen{Width: 1280}}, "screen.height: 0 out of range 200..4320"},
		{api.CreateSessionRequest{Screen: api.Screen{Width: 1280, Height: 99999}}, "screen.height: 99999 out of range"},
		{api.CreateSessionRequest{Dialect: "klingon"}, `dialect: unknown dialect "klingon" (want one of anthropic, `},
		{api.CreateSessionRequest{Env: map[string]string{"A=B": "x"}}, `env: bad variable name "A=B"`},
		{api.CreateSessionRequest{Labels: map[string]string{sandbox.LabelSession: "x"}}, "labels: reserved"},
	} {
		_, err := m.Create(t.Context(), tc.req)
		if !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want invalid argument %q", tc.req, err, tc.want)
		}
	}
	if len(m.List()) != 0 {
		t.Error("a refused request left a session")
	}
	if _, err := m.Get("nope"); !errdefs.IsNotFound(err) {
		t.Errorf("Get of an unknown session: %v", err)
	}
	if err := m.Delete(t.Context(), "nope"); !errdefs.IsNotFound(err) {
		t.Errorf("Delete of an unknown session: %v", err)
	}
}

func TestCloseEndsEverySession(t *testing.T) {
	m, p, _ := desktop(t)
	var wg sync.WaitGroup
	sessions := make([]*Session, 3)
	errs := make([]error, 3)
	for i := range sessions {
		wg.Go(func() {
			sessions[i], errs[i] = m.Create(t.Context(), api.CreateSessionRequest{Dialect: "osworld", Screen: api.Screen{Width: 800, Height: 600}})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	var markers []string
	for _, s := range sessions {
		marker, pids := sandboxProcs(p, s.Info().SandboxID)
		if len(pids) == 0 {
			t.Errorf("session %s runs nothing", s.ID())
		}
		markers = append(markers, marker)
	}
	if l := m.List(); len(l) != 3 {
		t.Errorf("List: %d sessions", len(l))
	}
	if err := m.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, mk := range markers {
		if left := local.Marked(mk); len(left) > 0 {
			t.Errorf("after Close, processes %v remain", left)
		}
	}
	if l := m.List(); len(l) != 0 {
		t.Errorf("List after Close: %d sessions", len(l))
	}
	if _, err := m.Create(t.Context(), api.CreateSessionRequest{}); !errdefs.IsUnavailable(err) {
		t.Errorf("Create after Close: %v, want unavailable", err)
	}
}

func TestCreateClassifiesProviderFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		class func(error) bool
	}{
		{"plain error", errors.New("disk full"), errdefs.IsUnavailable},
		{"unavailable", errdefs.ErrUnavailable.WithMessage("no engine"), errdefs.IsUnavailable},
		{"bad spec", errdefs.ErrInvalidArgument.WithMessage("image: bad reference"), errdefs.IsInvalidArgument},
		{"no image", errdefs.ErrNotFound.WithMessage("image x not found"), errdefs.IsNotFound},
		{"cancelled", context.Canceled, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"agentd silent", nil, errdefs.IsUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fake.New(fake.Config{Errs: []error{tc.err}})
			m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"fake": f}, TrajectoryDir: t.TempDir(), Logger: testLogger(t)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Create(t.Context(), api.CreateSessionRequest{})
			if err == nil || !tc.class(err) || !strings.HasPrefix(err.Error(), "provider fake: ") {
				t.Errorf("Create: %v, want an error of the right class naming the provider", err)
			}
			if leaked := f.Running(); len(leaked) != 0 {
				t.Errorf("started and not stopped: %v", leaked)
			}
			if len(m.List()) != 0 {
				t.Error("a failed Create left a session")
			}
		})
	}
}

func TestNewManagerChecksConfig(t *testing.T) {
	f := fake.New(fake.Config{})
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "runner: no sandbox provider"},
		{Config{Providers: map[string]sandbox.Provider{"fake": f}, DefaultProvider: "docker"}, `runner: default provider "docker" is not configured`},
		{Config{Providers: map[string]sandbox.Provider{"fake": f}, DefaultDialect: "klingon"}, `runner: unknown default dialect "klingon"`},
	} {
		if _, err := NewManager(tc.cfg); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"b": f, "a": f}})
	if err != nil || m.cfg.DefaultProvider != "a" || m.cfg.DefaultDialect != "anthropic" {
		t.Errorf("defaults: %+v %v", m, err)
	}
}

// BenchmarkCreate measures creating a session on a local sandbox (with
// openbox when installed) until its agentd answers; the median is
// reported as median-create-ms.
func BenchmarkCreate(b *testing.B) {
	p, err := local.New(agentdtest.Agentd(b), "openbox")
	if err != nil {
		b.Fatal(err)
	}
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	defer m.Close(context.Background())
	var took []time.Duration
	for b.Loop() {
		t0 := time.Now()
		s, err := m.Create(b.Context(), api.CreateSessionRequest{})
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(t0))
		b.StopTimer()
		if err := m.Delete(b.Context(), s.ID()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-create-ms")
}

// TestUnresponsiveSandbox: a paused sandbox (its agentd stopped) cannot
// hang a call: the call ends at its deadline with an error naming it;
// the health checks then mark the session unreachable, and its calls
// answer unavailable at once, until the sandbox answers again. A killed
// agentd is found the same way.
func TestUnresponsiveSandbox(t *testing.T) {
	p, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), WM: "openbox", TempDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: testLogger(t), CallTimeout: time.Second, HealthInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		m.Close(ctx)
		p.Close(ctx)
	})
	ctx := t.Context()
	s, err := m.Create(ctx, api.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// The local sandbox's id starts with agentd's pid.
	pid, _, _ := strings.Cut(s.Info().SandboxID, "-")
	agentd, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("sandbox id %q does not start with agentd's pid", s.Info().SandboxID)
	}
	if s.Info().State != api.SessionRunning {
		t.Errorf("state %q", s.Info().State)
	}

	syscall.Kill(agentd, syscall.SIGSTOP)
	start := time.Now()
	_, err = s.Screenshot(ctx, api.ScreenshotOptions{})
	if took := time.Since(start); !errdefs.IsDeadlineExceeded(err) || !strings.Contains(err.Error(), "did not answer screenshot within 1s") || took > 3*time.Second {
		t.Errorf("screenshot of a paused sandbox: %v after %s, want a deadline error after 1s", err, took)
	}
	waitUntil(t, "the session is marked unreachable", func() bool { return s.Info().State == api.SessionUnreachable })
	start = time.Now()
	if _, err := s.Exec(ctx, api.ExecRequest{Cmd: []string{"true"}}); !errdefs.IsUnavailable(err) || time.Since(start) > 50*time.Millisecond {
		t.Errorf("exec on an unreachable session: %v after %s, want unavailable at once", err, time.Since(start))
	}
	if info := s.Info(); !strings.Contains(info.Unreachable, "health") {
		t.Errorf("unreachable %q", info.Unreachable)
	}

	syscall.Kill(agentd, syscall.SIGCONT)
	waitUntil(t, "the session answers again", func() bool { return s.Info().State == api.SessionRunning })
	if _, err := s.Screenshot(ctx, api.ScreenshotOptions{}); err != nil {
		t.Errorf("screenshot after resuming: %v", err)
	}

	syscall.Kill(agentd, syscall.SIGKILL)
	waitUntil(t, "a killed agentd is found", func() bool { return s.Info().State == api.SessionUnreachable })
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A session made as OSWorld's virtual machine and asking for no screen
// gets OSWorld's, 1920x1080; any other gets 1280x800, and a screen asked
// for is kept.
func TestCreateScreenDefaults(t *testing.T) {
	f := fake.New(fake.Config{})
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"fake": f}, TrajectoryDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  api.CreateSessionRequest
		want api.Screen
	}{
		{api.CreateSessionRequest{}, api.Screen{Width: 1280, Height: 800}},
		{api.CreateSessionRequest{OSWorld: true}, api.Screen{Width: 1920, Height: 1080}},
		{api.CreateSessionRequest{OSWorld: true, Screen: api.Screen{Width: 1024, Height: 768}}, api.Screen{Width: 1024, Height: 768}},
	} {
		_, got, _, err := m.validate(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%+v: screen %+v, want %+v", tc.req, got, tc.want)
		}
	}
}
