package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

func manager(t *testing.T) (*Manager, string) {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if testing.Short() {
			t.Skip("Xvfb is not installed")
		}
		t.Fatal("Xvfb is not installed (scripts/install-deps.sh installs it)")
	}
	bin := filepath.Join(t.TempDir(), "agentd")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/agentd").CombinedOutput(); err != nil {
		t.Fatalf("build agentd: %v\n%s", err, out)
	}
	p, err := local.New(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	traj := t.TempDir()
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"local": p}, TrajectoryDir: traj})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()); p.Close(context.Background()) })
	return m, traj
}

func TestSessionLifecycle(t *testing.T) {
	m, traj := manager(t)
	ctx := context.Background()
	s, err := m.Create(ctx, wire.CreateSessionRequest{Screen: wire.Screen{Width: 1024, Height: 768}})
	if err != nil {
		t.Fatal(err)
	}
	if info := s.Info(); info.Provider != "local" || info.Dialect != "anthropic" || info.Screen.Width != 1024 {
		t.Errorf("info %+v", info)
	}
	if got, err := m.Get(s.ID()); err != nil || got != s {
		t.Errorf("Get: %v", err)
	}
	shot, err := s.Screenshot(ctx, wire.ScreenshotOptions{})
	if err != nil || shot.Width != 1024 || shot.Height != 768 {
		t.Fatalf("screenshot %dx%d %v", shot.Width, shot.Height, err)
	}
	if _, err := s.Input(ctx, []wire.Action{{Type: "move", X: wire.Int(10), Y: wire.Int(20)}}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Exec(ctx, wire.ExecRequest{Cmd: []string{"xdotool", "getmouselocation"}})
	if err != nil || !strings.HasPrefix(r.Stdout, "x:10 y:20 ") {
		t.Errorf("xdotool after move: %+v %v", r, err)
	}
	// A tool call in the session's dialect (anthropic) and in another.
	res, err := s.CallTool(ctx, "", "computer", json.RawMessage(`{"action":"mouse_move","coordinate":[300,200]}`))
	if err != nil || res.IsError {
		t.Fatalf("anthropic mouse_move: %+v %v", res, err)
	}
	if p, _ := s.Cursor(ctx); p != (wire.Point{X: 300, Y: 200}) {
		t.Errorf("cursor after mouse_move: %v", p)
	}
	res, err = s.CallTool(ctx, "osworld", "desktop_mouse_move", json.RawMessage(`{"x":5,"y":6}`))
	if err != nil || res.IsError {
		t.Fatalf("osworld move: %+v %v", res, err)
	}
	if p, _ := s.Cursor(ctx); p != (wire.Point{X: 5, Y: 6}) {
		t.Errorf("cursor after osworld move: %v", p)
	}
	res, err = s.CallTool(ctx, "", "computer", json.RawMessage(`{"action":"fly"}`))
	if err != nil || !res.IsError {
		t.Errorf("bad action: %+v %v, want a tool error", res, err)
	}
	if _, err := s.CallTool(ctx, "klingon", "x", nil); !errdefs.IsInvalidArgument(err) {
		t.Errorf("unknown dialect: %v", err)
	}
	if err := s.WriteFile(ctx, "/tmp/deskrun-runner-test", []byte("x")); err != nil {
		t.Fatal(err)
	}
	sandboxID := s.Instance().ID
	if err := m.Delete(ctx, s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(s.ID()); !errdefs.IsNotFound(err) {
		t.Errorf("Get after Delete: %v", err)
	}
	if err := m.Delete(ctx, s.ID()); !errdefs.IsNotFound(err) {
		t.Errorf("second Delete: %v", err)
	}
	if _, err := os.Stat("/proc/" + sandboxID); err == nil {
		if b, _ := os.ReadFile("/proc/" + sandboxID + "/stat"); !strings.Contains(string(b), ") Z ") {
			t.Errorf("agentd %s still runs after Delete", sandboxID)
		}
	}
	f, err := os.Open(filepath.Join(traj, s.ID()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var st step
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatalf("trajectory line %q: %v", sc.Text(), err)
		}
		calls = append(calls, st.Call)
		if st.Call == "screenshot" {
			if _, err := os.Stat(filepath.Join(traj, st.Screenshot)); err != nil {
				t.Errorf("screenshot file: %v", err)
			}
		}
	}
	want := "create screenshot input exec"
	if got := strings.Join(calls, " "); !strings.HasPrefix(got, want) || !strings.Contains(got, "tool:anthropic/computer") || !strings.HasSuffix(got, "delete") {
		t.Errorf("trajectory calls: %s", got)
	}
}

func TestCreateRejectsBadRequests(t *testing.T) {
	m, _ := manager(t)
	for _, tc := range []struct {
		req  wire.CreateSessionRequest
		want string
	}{
		{wire.CreateSessionRequest{Provider: "vmware"}, `provider: unknown provider "vmware"`},
		{wire.CreateSessionRequest{Screen: wire.Screen{Width: 10, Height: 800}}, "screen.width: 10 out of range"},
		{wire.CreateSessionRequest{Screen: wire.Screen{Width: 1280, Height: 99999}}, "screen.height: 99999 out of range"},
		{wire.CreateSessionRequest{Dialect: "klingon"}, `dialect: unknown dialect "klingon"`},
		{wire.CreateSessionRequest{Env: map[string]string{"A=B": "x"}}, "env: bad variable name"},
	} {
		_, err := m.Create(context.Background(), tc.req)
		if !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want invalid argument %q", tc.req, err, tc.want)
		}
	}
	if len(m.List()) != 0 {
		t.Error("a refused request left a session")
	}
}
