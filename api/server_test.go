package api

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/png"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

const token = "s3cret"

func serve(t *testing.T) (*Client, string) {
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
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: token}))
	t.Cleanup(func() { ts.Close(); m.Close(context.Background()); p.Close(context.Background()) })
	return NewClient(ts.URL, token, nil), ts.URL
}

func TestSessionOverHTTP(t *testing.T) {
	c, _ := serve(t)
	ctx := context.Background()
	s, err := c.CreateSession(ctx, wire.CreateSessionRequest{Screen: wire.Screen{Width: 800, Height: 600}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Provider != "local" || s.Screen != (wire.Screen{Width: 800, Height: 600}) || s.ID == "" {
		t.Errorf("created %+v", s)
	}
	if r, err := c.Exec(ctx, s.ID, wire.ExecRequest{Cmd: []string{"xsetroot", "-solid", "#00ff80"}}); err != nil || r.ExitCode != 0 {
		t.Fatalf("xsetroot: %+v %v", r, err)
	}
	shot, err := c.Screenshot(ctx, s.ID, wire.ScreenshotOptions{MaxWidth: 400})
	if err != nil || shot.Width != 400 || shot.Height != 300 || shot.Scale != 0.5 {
		t.Fatalf("screenshot %dx%d %v %v", shot.Width, shot.Height, shot.Scale, err)
	}
	img, _, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(200, 150).RGBA(); r>>8 != 0 || g>>8 != 0xff || b>>8 != 0x80 {
		t.Errorf("pixel %02x%02x%02x, want 00ff80", r>>8, g>>8, b>>8)
	}
	if _, err := c.Input(ctx, s.ID, []wire.Action{{Type: "move", X: wire.Int(123), Y: wire.Int(45)}}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.Cursor(ctx, s.ID); err != nil || p != (wire.Point{X: 123, Y: 45}) {
		t.Errorf("cursor %v %v", p, err)
	}
	if r, _ := c.Exec(ctx, s.ID, wire.ExecRequest{Cmd: []string{"xdotool", "getmouselocation"}}); !strings.HasPrefix(r.Stdout, "x:123 y:45 ") {
		t.Errorf("xdotool says %q", r.Stdout)
	}
	if err := c.WriteFile(ctx, s.ID, "/tmp/deskrun-api-test.txt", []byte("über")); err != nil {
		t.Fatal(err)
	}
	if b, err := c.ReadFile(ctx, s.ID, "/tmp/deskrun-api-test.txt"); err != nil || string(b) != "über" {
		t.Errorf("file %q %v", b, err)
	}
	res, err := c.CallTool(ctx, s.ID, "openai", "computer", map[string]any{"type": "move", "x": 7, "y": 8})
	if err != nil || res.IsError {
		t.Fatalf("openai move: %+v %v", res, err)
	}
	if p, _ := c.Cursor(ctx, s.ID); p != (wire.Point{X: 7, Y: 8}) {
		t.Errorf("cursor after openai move: %v", p)
	}
	l, err := c.Tools(ctx, "osworld")
	if err != nil || len(l.Tools) < 12 {
		t.Errorf("tools: %d %v", len(l.Tools), err)
	}
	if d, err := c.ToolInfo(ctx, "osworld", "desktop_mouse_click"); err != nil || d.Name != "desktop_mouse_click" {
		t.Errorf("tool info: %+v %v", d.Name, err)
	}
	if err := c.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Session(ctx, s.ID); !errdefs.IsNotFound(err) {
		t.Errorf("after delete: %v", err)
	}
}

// TestBadRequests: every mistake is a 4xx in the contract's shape naming
// what is wrong, and the server keeps serving.
func TestBadRequests(t *testing.T) {
	c, base := serve(t)
	ctx := context.Background()
	s, err := c.CreateSession(ctx, wire.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	sid := "/v1/sessions/" + s.ID
	for _, tc := range []struct {
		method, path, body string
		noAuth             bool
		status             int
		msg                string
	}{
		{"GET", "/v1/sessions", "", true, 401, "token"},
		{"POST", "/v1/sessions", `{"screen":{"width":"big"}}`, false, 400, "width"},
		{"POST", "/v1/sessions", `{"provider":"k8s"}`, false, 400, `provider: unknown provider "k8s"`},
		{"POST", "/v1/sessions", `{"colour":"red"}`, false, 400, "colour"},
		{"POST", "/v1/sessions", `{"dialect":"x"}`, false, 400, "dialect"},
		{"GET", "/v1/sessions/nope", "", false, 404, `no session "nope"`},
		{"DELETE", "/v1/sessions/nope", "", false, 404, "nope"},
		{"POST", sid + "/input", `{"actions":[{"type":"click","x":900}]}`, false, 400, "actions[0].y"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":1280,"y":0}]}`, false, 400, "actions[0].x: 1280 is off the screen"},
		{"POST", sid + "/input", `not json`, false, 400, ""},
		{"GET", sid + "/screenshot?region=0,0,99999,5", "", false, 400, "region"},
		{"POST", sid + "/exec", `{"cmd":[]}`, false, 400, "cmd"},
		{"GET", sid + "/files", "", false, 400, "path: required"},
		{"GET", sid + "/files?path=/no/such", "", false, 404, "does not exist"},
		{"POST", sid + "/tools/computer?dialect=nope", `{}`, false, 400, "dialect"},
		{"POST", sid + "/tools/nosuchtool", `{}`, false, 404, "nosuchtool"},
		{"POST", sid + "/tools/computer", `{bad`, false, 400, "JSON"},
		{"GET", "/v1/tools?dialect=nope", "", false, 400, "dialect"},
		{"GET", "/v1/tools/nosuch", "", false, 404, "nosuch"},
		{"GET", "/v2/whatever", "", false, 404, ""},
	} {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		if !tc.noAuth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body wire.ErrorBody
		derr := json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || derr != nil || body.Error.Code == "" || !strings.Contains(body.Error.Message, tc.msg) {
			t.Errorf("%s %s %s: %d %+v, want %d with %q", tc.method, tc.path, tc.body, resp.StatusCode, body, tc.status, tc.msg)
		}
	}
	// A tool-level mistake is a result the model reads, not an HTTP error.
	res, err := c.CallTool(ctx, s.ID, "osworld", "desktop_mouse_click", map[string]any{"num_clicks": 1.5})
	if err != nil || !res.IsError {
		t.Errorf("osworld num_clicks 1.5: %+v %v", res, err)
	}
	if _, err := c.Sessions(ctx); err != nil {
		t.Errorf("server stopped serving: %v", err)
	}
}
