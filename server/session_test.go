package server

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg"
	_ "image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

const testToken = "s3cret"

// localServer serves the API, with a token, over the local provider
// running the agentd TestMain built, openbox as window manager.
func localServer(t *testing.T) (*client.Client, string) {
	t.Helper()
	agentdtest.NeedX(t, "openbox", "xdotool", "xsetroot", "xterm")
	p, err := local.New(agentdtest.Agentd(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(NewServer(Config{Manager: m, Token: testToken, Logger: log}))
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close manager: %v", err)
		}
		if err := p.Close(ctx); err != nil {
			t.Errorf("close provider: %v", err)
		}
	})
	return client.NewClient(ts.URL, testToken, testClient), ts.URL
}

func rgb(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("%02x%02x%02x", r>>8, g>>8, b>>8)
}

func decodeImage(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode image: %v", err)
	}
	return img
}

// TestSession drives one session through every call of the contract, as
// a user with curl would, and checks each effect on the desktop itself.
func TestSession(t *testing.T) {
	c, base := localServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// Create: 201, Location, the session object.
	a := call(t, base, "POST", "/v1/sessions", testToken, `{"provider":"local","screen":{"width":800,"height":600},"dialect":"openai","labels":{"test":"api"}}`)
	if a.status != http.StatusCreated {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var s api.Session
	if err := json.Unmarshal(a.body, &s); err != nil {
		t.Fatal(err)
	}
	conform(t, "Session", a.body)
	t.Cleanup(func() { _ = c.DeleteSession(context.Background(), s.ID) })
	if s.ID == "" || s.Provider != "local" || s.Screen != (api.Screen{Width: 800, Height: 600}) || s.Dialect != "openai" ||
		s.Labels["test"] != "api" || s.CreatedAt.IsZero() || time.Since(s.CreatedAt) > time.Minute {
		t.Errorf("created %+v", s)
	}
	if loc := a.header.Get("Location"); loc != "/v1/sessions/"+s.ID {
		t.Errorf("Location %q", loc)
	}
	if l, err := c.Sessions(ctx); err != nil || len(l) != 1 || l[0].ID != s.ID {
		t.Errorf("list %+v %v", l, err)
	}
	conform(t, "SessionList", call(t, base, "GET", "/v1/sessions", testToken, "").body)
	conform(t, "Session", call(t, base, "GET", "/v1/sessions/"+s.ID, testToken, "").body)
	if got, err := c.Session(ctx, s.ID); err != nil || got.ID != s.ID || !got.CreatedAt.Equal(s.CreatedAt) {
		t.Errorf("get %+v %v", got, err)
	}

	// Exec paints the root window; the screenshot shows it.
	if r, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"xsetroot", "-solid", "#00ff80"}}); err != nil || r.ExitCode != 0 {
		t.Fatalf("xsetroot: %+v %v", r, err)
	}
	a = call(t, base, "GET", "/v1/sessions/"+s.ID+"/screenshot", testToken, "")
	if a.status != 200 || a.header.Get("Content-Type") != "image/png" || a.header.Get(api.HeaderScale) != "1" || a.header.Get(api.HeaderScreen) != "800x600" {
		t.Fatalf("screenshot: %d %v", a.status, a.header)
	}
	img := decodeImage(t, a.body)
	if img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Errorf("screenshot is %v", img.Bounds())
	}
	for _, p := range []image.Point{{0, 0}, {400, 300}, {799, 599}} {
		if got := rgb(img.At(p.X, p.Y)); got != "00ff80" {
			t.Errorf("pixel %v is %s, want 00ff80", p, got)
		}
	}
	shot, err := c.Screenshot(ctx, s.ID, api.ScreenshotOptions{MaxWidth: 400})
	if err != nil || shot.Width != 400 || shot.Height != 300 || shot.Scale != 0.5 || shot.Screen != s.Screen {
		t.Fatalf("scaled screenshot %dx%d scale %v screen %v: %v", shot.Width, shot.Height, shot.Scale, shot.Screen, err)
	}
	shot, err = c.Screenshot(ctx, s.ID, api.ScreenshotOptions{Format: api.FormatJPEG, Region: &api.Rect{X0: 10, Y0: 20, X1: 110, Y1: 70}})
	if err != nil || shot.Format != "jpeg" || shot.Width != 100 || shot.Height != 50 {
		t.Fatalf("jpeg region %q %dx%d: %v", shot.Format, shot.Width, shot.Height, err)
	}
	if r, g, b, _ := decodeImage(t, shot.Data).At(50, 25).RGBA(); r>>8 > 16 || g>>8 < 235 || b>>8 < 112 || b>>8 > 144 {
		t.Errorf("jpeg pixel %02x%02x%02x, want about 00ff80", r>>8, g>>8, b>>8)
	}

	// Input moves the pointer; the cursor call and xdotool agree.
	res, err := c.Input(ctx, s.ID, []api.Action{
		{Type: "move", X: api.Int(123), Y: api.Int(45)},
		{Type: "wait", MS: 10},
	})
	if err != nil || len(res.Results) != 2 || !res.Results[0].OK || !res.Results[1].OK {
		t.Fatalf("input %+v %v", res, err)
	}
	if p, err := c.Cursor(ctx, s.ID); err != nil || p != (api.Point{X: 123, Y: 45}) {
		t.Errorf("cursor %v %v, want 123,45", p, err)
	}
	conform(t, "Point", call(t, base, "GET", "/v1/sessions/"+s.ID+"/cursor", testToken, "").body)
	a = call(t, base, "POST", "/v1/sessions/"+s.ID+"/input", testToken, `{"actions":[{"type":"wait","ms":1},{"type":"key","keys":["Escape"]}]}`)
	if a.status != 200 {
		t.Errorf("input: %d %s", a.status, a.body)
	}
	conform(t, "InputResult", a.body)
	if r, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"xdotool", "getmouselocation"}}); err != nil || !strings.HasPrefix(r.Stdout, "x:123 y:45 ") {
		t.Errorf("xdotool says %q %v", r.Stdout, err)
	}
	if _, err := c.Input(ctx, s.ID, []api.Action{{Type: "click", X: api.Int(700), Y: api.Int(500), Button: "right"}}); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Cursor(ctx, s.ID); p != (api.Point{X: 700, Y: 500}) {
		t.Errorf("cursor after click %v", p)
	}
	// openbox opens its root menu on a right click; Escape closes it.
	if _, err := c.Input(ctx, s.ID, []api.Action{{Type: "key", Keys: []string{"Escape"}}}); err != nil {
		t.Fatal(err)
	}

	// Exec: output, exit code, environment, stdin.
	r, err := c.Exec(ctx, s.ID, api.ExecRequest{
		Cmd:   []string{"sh", "-c", `echo "$DISPLAY $GREETING"; cat; echo oops >&2; exit 3`},
		Env:   map[string]string{"GREETING": "grüße"},
		Stdin: "from stdin\n",
	})
	if err != nil || r.ExitCode != 3 || !strings.HasPrefix(r.Stdout, ":") || !strings.Contains(r.Stdout, " grüße\nfrom stdin\n") || r.Stderr != "oops\n" {
		t.Errorf("exec %+v %v", r, err)
	}
	a = call(t, base, "POST", "/v1/sessions/"+s.ID+"/exec", testToken, `{"cmd":["sleep","5"],"timeout_ms":200}`)
	if err := json.Unmarshal(a.body, &r); err != nil || a.status != 200 || !r.TimedOut {
		t.Errorf("exec timeout: %d %s", a.status, a.body)
	}
	conform(t, "ExecResult", a.body)

	// Files: raw bytes both ways, binary included.
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	path := filepath.Join(t.TempDir(), "sub", "blob.bin")
	if err := c.WriteFile(ctx, s.ID, path, data); err != nil {
		t.Fatal(err)
	}
	if b, err := c.ReadFile(ctx, s.ID, path); err != nil || !bytes.Equal(b, data) {
		t.Errorf("read back %d bytes, %v", len(b), err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, data) {
		t.Errorf("on disk: %d bytes, %v", len(b), err)
	}
	if r, _ := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"md5sum", path}}); !strings.HasPrefix(r.Stdout, md5hex(data)) {
		t.Errorf("md5sum in the sandbox: %q", r.Stdout)
	}
	if _, err := c.ReadFile(ctx, s.ID, path+".missing"); !errdefs.IsNotFound(err) {
		t.Errorf("missing file: %v", err)
	}

	// Windows: an xterm appears in the list, can be activated and closed.
	if _, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"sh", "-c", "xterm -T deskrun-api-test -geometry 40x10+50+50 &"}}); err != nil {
		t.Fatal(err)
	}
	w := waitWindow(t, c, s.ID, "deskrun-api-test", true)
	conform(t, "WindowList", call(t, base, "GET", "/v1/sessions/"+s.ID+"/windows", testToken, "").body)
	if err := c.ActivateWindow(ctx, s.ID, w.ID); err != nil {
		t.Errorf("activate: %v", err)
	}
	// One window: moved, read back, bad input refused naming the field.
	if err := c.ChangeWindow(ctx, s.ID, w.ID, api.WindowMoveResize, api.WindowPlacement{X: api.Int(120), Y: api.Int(90)}); err != nil {
		t.Errorf("move_resize: %v", err)
	}
	wpath := fmt.Sprintf("/v1/sessions/%s/windows/%d", s.ID, w.ID)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := c.Window(ctx, s.ID, w.ID)
		if err == nil && got.Bounds != nil && got.Bounds.X == 120 && got.Bounds.Y == 90 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("window after move_resize to 120,90: %+v %v", got.Bounds, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	conform(t, "Window", call(t, base, "GET", wpath, testToken, "").body)
	if a := call(t, base, "POST", wpath+"/move_resize", testToken, `{"width":0}`); a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "width must be between 1 and 32767") {
		t.Errorf("move_resize width 0: %d %s", a.status, a.body)
	}
	if a := call(t, base, "POST", wpath+"/explode", testToken, ""); a.status != http.StatusNotFound || !strings.Contains(string(a.body), "action") {
		t.Errorf("action explode: %d %s", a.status, a.body)
	}
	if err := c.CloseWindow(ctx, s.ID, w.ID); err != nil {
		t.Errorf("close: %v", err)
	}
	waitWindow(t, c, s.ID, "deskrun-api-test", false)

	// Tool calls: the session's dialect (openai) by default, any other
	// by name; images come back as base64 in the JSON.
	tr, err := c.CallTool(ctx, s.ID, "", "computer", map[string]any{"type": "move", "x": 7, "y": 8})
	if err != nil || tr.IsError {
		t.Fatalf("openai move: %+v %v", tr, err)
	}
	if p, _ := c.Cursor(ctx, s.ID); p != (api.Point{X: 7, Y: 8}) {
		t.Errorf("cursor after the openai move: %v", p)
	}
	a = call(t, base, "POST", "/v1/sessions/"+s.ID+"/tools/computer?dialect=anthropic", testToken, `{"action":"screenshot"}`)
	var raw struct {
		Content []struct {
			Type, MIMEType string
			Data           string // base64
		} `json:"content"`
		IsError bool `json:"is_error"`
	}
	if err := json.Unmarshal(a.body, &raw); a.status != 200 || err != nil || raw.IsError || len(raw.Content) == 0 {
		t.Fatalf("anthropic screenshot: %d %.300s %v", a.status, a.body, err)
	}
	conform(t, "ToolResult", a.body)
	tr, err = c.CallTool(ctx, s.ID, "anthropic", "computer", map[string]any{"action": "screenshot"})
	if err != nil || tr.IsError {
		t.Fatalf("anthropic screenshot: %v", err)
	}
	var found bool
	for _, part := range tr.Content {
		if part.Type == "image" {
			found = true
			img := decodeImage(t, part.Data)
			if got := rgb(img.At(img.Bounds().Dx()-1, img.Bounds().Dy()-1)); got != "00ff80" {
				t.Errorf("tool screenshot corner pixel %s, want 00ff80", got)
			}
		}
	}
	if !found {
		t.Errorf("anthropic screenshot has no image: %+v", tr)
	}
	a = call(t, base, "POST", "/v1/sessions/"+s.ID+"/tools/desktop_mouse_click?dialect=osworld", testToken, `{"num_clicks":1.5}`)
	if err := json.Unmarshal(a.body, &tr); a.status != 200 || err != nil || !tr.IsError || tr.Text() == "" {
		t.Errorf("an argument the dialect refuses is a result with is_error: %d %s", a.status, a.body)
	}
	conform(t, "ToolResult", a.body)

	// Delete: 204, then the session is gone.
	a = call(t, base, "DELETE", "/v1/sessions/"+s.ID, testToken, "")
	if a.status != http.StatusNoContent || len(a.body) != 0 {
		t.Errorf("delete: %d %s", a.status, a.body)
	}
	if _, err := c.Session(ctx, s.ID); !errdefs.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	if _, err := c.Cursor(ctx, s.ID); !errdefs.IsNotFound(err) {
		t.Errorf("cursor after delete: %v", err)
	}
	if l, err := c.Sessions(ctx); err != nil || len(l) != 0 {
		t.Errorf("list after delete: %+v %v", l, err)
	}
}

func waitWindow(t *testing.T, c *client.Client, id, title string, present bool) api.Window {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws, err := c.Windows(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		var w api.Window
		for _, x := range ws {
			if x.Title == title {
				w = x
			}
		}
		if (w.ID != 0) == present {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("window %q present=%v never happened; windows: %+v", title, present, ws)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func md5hex(b []byte) string { return fmt.Sprintf("%x", md5.Sum(b)) }

// TestBadRequests: a mistake in any field of any call is answered with
// 400, 401 or 404 in the contract's shape, with a message naming the
// field, and the server and the session keep working afterwards.
func TestBadRequests(t *testing.T) {
	c, base := localServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := c.CreateSession(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 800, Height: 600}})
	if err != nil {
		t.Fatal(err)
	}
	sid := "/v1/sessions/" + s.ID
	dir := t.TempDir()
	long := strings.Repeat("a", api.MaxTextLen+1)
	many := `{"actions":[` + strings.TrimSuffix(strings.Repeat(`{"type":"wait"},`, api.MaxActions+1), ",") + `]}`
	for _, tc := range []struct {
		method, path, body string
		status             int
		msg                string
	}{
		// POST /v1/sessions, field by field.
		{"POST", "/v1/sessions", `null`, 400, "body: null, want a JSON object"},
		{"POST", "/v1/sessions", `{"provider":7}`, 400, "provider: want a string"},
		{"POST", "/v1/sessions", `{"provider":"k8s"}`, 400, `provider: unknown provider "k8s"`},
		{"POST", "/v1/sessions", `{"image":["x"]}`, 400, "image: want a string"},
		{"POST", "/v1/sessions", `{"screen":"big"}`, 400, "screen: want an object"},
		{"POST", "/v1/sessions", `{"screen":{"width":"big"}}`, 400, "screen.width: want an integer"},
		{"POST", "/v1/sessions", `{"screen":{"width":10,"height":600}}`, 400, "screen.width: 10 out of range"},
		{"POST", "/v1/sessions", `{"screen":{"width":800,"height":99999}}`, 400, "screen.height: 99999 out of range"},
		{"POST", "/v1/sessions", `{"screen":{"width":800,"height":600,"depth":24}}`, 400, "depth: unknown field"},
		{"POST", "/v1/sessions", `{"dialect":"klingon"}`, 400, `dialect: unknown dialect "klingon"`},
		{"POST", "/v1/sessions", `{"env":{"A=B":"c"}}`, 400, "env: bad variable name"},
		{"POST", "/v1/sessions", `{"env":{"A":1}}`, 400, "env"},
		{"POST", "/v1/sessions", `{"network":"yes"}`, 400, "network: want a boolean"},
		{"POST", "/v1/sessions", `{"sudo":1}`, 400, "sudo: want a boolean"},
		{"POST", "/v1/sessions", `{"provider":"local","sudo":true}`, 400, "sudo: local sandboxes run as the runner's own user"},
		{"POST", "/v1/sessions", `{"labels":["a"]}`, 400, "labels: want an object"},
		{"POST", "/v1/sessions", `{"colour":"red"}`, 400, "colour: unknown field"},
		{"POST", "/v1/sessions", `{"provider":"local"`, 400, "body: truncated JSON"},
		{"POST", "/v1/sessions", `provider=local`, 400, "body: malformed JSON"},

		// Unknown sessions, on every session route.
		{"GET", "/v1/sessions/nope", "", 404, `"nope"`},
		{"DELETE", "/v1/sessions/nope", "", 404, `"nope"`},
		{"GET", "/v1/sessions/nope/screenshot", "", 404, "nope"},
		{"POST", "/v1/sessions/nope/input", `{"actions":[]}`, 404, "nope"},
		{"GET", "/v1/sessions/nope/cursor", "", 404, "nope"},
		{"POST", "/v1/sessions/nope/exec", `{"cmd":["true"]}`, 404, "nope"},
		{"GET", "/v1/sessions/nope/files?path=/tmp", "", 404, "nope"},
		{"PUT", "/v1/sessions/nope/files?path=/tmp/x", "x", 404, "nope"},
		{"GET", "/v1/sessions/nope/windows", "", 404, "nope"},
		{"POST", "/v1/sessions/nope/windows/1/activate", "", 404, "nope"},
		{"POST", "/v1/sessions/nope/windows/1/close", "", 404, "nope"},
		{"POST", "/v1/sessions/nope/tools/computer", `{}`, 404, "nope"},

		// Screenshot query parameters.
		{"GET", sid + "/screenshot?format=gif", "", 400, `format: unknown format "gif"`},
		{"GET", sid + "/screenshot?max_width=0", "", 400, "max_width: want a positive integer"},
		{"GET", sid + "/screenshot?max_width=wide", "", 400, "max_width"},
		{"GET", sid + "/screenshot?format=jpeg&quality=101", "", 400, "quality: want an integer 1..100"},
		{"GET", sid + "/screenshot?region=1,2,3", "", 400, "region: want x0,y0,x1,y1"},
		{"GET", sid + "/screenshot?region=a,0,10,10", "", 400, `region: "a" is not an integer`},
		{"GET", sid + "/screenshot?region=5,5,5,9", "", 400, "region: 5,5,5,9 is empty"},
		{"GET", sid + "/screenshot?region=0,0,99999,5", "", 400, "region: 0,0,99999,5 is not within the screen"},

		// Input: the request, then each field of each action type.
		{"POST", sid + "/input", ``, 400, "body: empty"},
		{"POST", sid + "/input", `{}`, 400, "actions: required"},
		{"POST", sid + "/input", `{"actions":"click"}`, 400, "actions: want an array"},
		{"POST", sid + "/input", many, 400, "actions: 1001 actions, at most 1000"},
		{"POST", sid + "/input", `{"actions":[{}]}`, 400, "actions[0].type: required"},
		{"POST", sid + "/input", `{"actions":[{"type":"fly"}]}`, 400, `actions[0].type: unknown action type "fly"`},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":1,"y":1,"colour":1}]}`, 400, "colour: unknown field"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","y":1}]}`, 400, "actions[0].x: required"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":1}]}`, 400, "actions[0].y: required"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":"1","y":1}]}`, 400, "x: want an integer, got string"},
		{"POST", sid + "/input", `{"actions":[{"type":"wait"},{"type":"move","x":800,"y":0}]}`, 400, "actions[1].x: 800 is off the screen (0..799)"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":0,"y":-1}]}`, 400, "actions[0].y: -1 is off the screen"},
		{"POST", sid + "/input", `{"actions":[{"type":"move","x":1,"y":1,"text":"a"}]}`, 400, `actions[0].text: not a field of "move" actions`},
		{"POST", sid + "/input", `{"actions":[{"type":"button_down","button":"thumb"}]}`, 400, `actions[0].button: unknown button "thumb"`},
		{"POST", sid + "/input", `{"actions":[{"type":"click","x":5}]}`, 400, "actions[0].y: required when the other coordinate is given"},
		{"POST", sid + "/input", `{"actions":[{"type":"click","count":11}]}`, 400, "actions[0].count: 11 out of range"},
		{"POST", sid + "/input", `{"actions":[{"type":"key_down"}]}`, 400, "actions[0].key: required"},
		{"POST", sid + "/input", `{"actions":[{"type":"key_up","key":"NoSuchKey"}]}`, 400, `actions[0].key: unknown key name "NoSuchKey"`},
		{"POST", sid + "/input", `{"actions":[{"type":"key","keys":[]}]}`, 400, "actions[0].keys: required"},
		{"POST", sid + "/input", `{"actions":[{"type":"key","keys":["ctrl","Nope"]}]}`, 400, `actions[0].keys[1]: unknown key name "Nope"`},
		{"POST", sid + "/input", `{"actions":[{"type":"key","keys":["a"],"repeat":1000}]}`, 400, "actions[0].repeat: 1000 out of range"},
		{"POST", sid + "/input", `{"actions":[{"type":"type","text":"` + long + `"}]}`, 400, "actions[0].text: 10001 characters"},
		{"POST", sid + "/input", `{"actions":[{"type":"scroll","dx":1000}]}`, 400, "actions[0].dx: 1000 out of range"},
		{"POST", sid + "/input", `{"actions":[{"type":"scroll","dy":-1000}]}`, 400, "actions[0].dy: -1000 out of range"},
		{"POST", sid + "/input", `{"actions":[{"type":"drag","path":[[1,1]]}]}`, 400, "actions[0].path: want at least 2 points"},
		{"POST", sid + "/input", `{"actions":[{"type":"drag","path":[[1,1],[900,1]]}]}`, 400, "actions[0].path[1].x: 900 is off the screen"},
		{"POST", sid + "/input", `{"actions":[{"type":"drag","path":[[1,1],["2",1]]}]}`, 400, "actions[0].path[1][0]: want an integer, got string"},
		{"POST", sid + "/input", `{"actions":[{"type":"wait","ms":-1}]}`, 400, "actions[0].ms: -1 out of range"},

		// Exec.
		{"POST", sid + "/exec", `{}`, 400, "cmd: required"},
		{"POST", sid + "/exec", `{"cmd":[""]}`, 400, "cmd: required"},
		{"POST", sid + "/exec", `{"cmd":"ls"}`, 400, "cmd: want an array"},
		{"POST", sid + "/exec", `{"cmd":["true"],"timeout_ms":-1}`, 400, "timeout_ms: -1 out of range"},
		{"POST", sid + "/exec", `{"cmd":["true"],"timeout_ms":"1s"}`, 400, "timeout_ms: want an integer"},
		{"POST", sid + "/exec", `{"cmd":["true"],"env":{"A=B":"c"}}`, 400, "env: bad variable name"},
		{"POST", sid + "/exec", `{"cmd":["true"],"dir":"relative"}`, 400, `dir: "relative" is not an absolute path`},
		{"POST", sid + "/exec", `{"cmd":["true"],"stdin":5}`, 400, "stdin: want a string"},
		{"POST", sid + "/exec", `{"cmd":["true"],"shell":true}`, 400, "shell: unknown field"},
		{"POST", sid + "/exec", `{"cmd":["echo","a\u0000b"]}`, 400, "cmd[1]: holds a NUL byte"},
		{"POST", sid + "/exec", `{"cmd":["true"],"dir":"/tmp\u0000x"}`, 400, "dir: holds a NUL byte"},
		{"POST", sid + "/exec", `{"cmd":["true"],"env":{"A":"b\u0000c"}}`, 400, "env.A: holds a NUL byte"},
		{"POST", sid + "/exec", `null`, 400, "body: null, want a JSON object"},

		// Files.
		{"GET", sid + "/files", "", 400, "path: required"},
		{"GET", sid + "/files?path=relative.txt", "", 400, `path: "relative.txt" is not an absolute path`},
		{"GET", sid + "/files?path=" + dir, "", 400, "is a directory"},
		{"GET", sid + "/files?path=" + dir + "/missing", "", 404, "missing"},
		{"PUT", sid + "/files", "x", 400, "path: required"},
		{"GET", sid + "/files?path=/tmp/a%00b", "", 400, "path: holds a NUL byte"},
		{"PUT", sid + "/files?path=/tmp/a%00b", "x", 400, "path: holds a NUL byte"},
		{"PUT", sid + "/files?path=relative.txt", "x", 400, "not an absolute path"},
		{"PUT", sid + "/files?path=" + dir, "x", 400, "is a directory"},

		// Windows.
		{"POST", sid + "/windows/abc/activate", "", 400, `wid: want a window id`},
		{"POST", sid + "/windows/-1/close", "", 400, `wid: want a window id`},
		{"POST", sid + "/windows/99999999999/close", "", 400, `wid: want a window id`},
		{"POST", sid + "/windows/123456/activate", "", 404, "window 123456"},
		{"POST", sid + "/windows/0x1e240/close", "", 404, "window 123456"},

		// Tools and tool calls.
		{"GET", "/v1/tools?dialect=klingon", "", 400, `dialect: unknown dialect "klingon"`},
		{"GET", "/v1/tools/nosuch", "", 404, `"nosuch"`},
		{"GET", "/v1/tools/computer?dialect=klingon", "", 400, "dialect"},
		{"POST", sid + "/tools/computer?dialect=klingon", `{}`, 400, `dialect: unknown dialect "klingon"`},
		{"POST", sid + "/tools/nosuchtool", `{}`, 404, `name: dialect anthropic has no tool "nosuchtool"`},
		{"POST", sid + "/tools/computer", `{bad`, 400, "body: malformed JSON"},
		{"POST", sid + "/tools/computer", `[1,2]`, 400, "body: want a JSON object"},
		{"POST", sid + "/tools/computer", `"screenshot"`, 400, "body: want a JSON object"},
		{"POST", sid + "/tools/computer", `{"action":"screenshot"} {}`, 400, "after the JSON value"},

		// Routes and methods.
		{"GET", "/v2/sessions", "", 404, "no route"},
		{"GET", sid + "/nothing", "", 404, "no route"},
		{"PATCH", sid, "{}", 405, "not allowed"},
		{"GET", sid + "/input", "", 405, "not allowed"},
	} {
		t.Run(tc.method+" "+strings.TrimPrefix(tc.path, sid)+" "+truncate(tc.body, 60), func(t *testing.T) {
			checkError(t, call(t, base, tc.method, tc.path, testToken, tc.body), tc.status, "", tc.msg)
		})
	}
	// Without the token, on each kind of route.
	for _, p := range []string{"/v1/sessions", sid, sid + "/screenshot", "/v1/tools", "/v1/nothing"} {
		checkError(t, call(t, base, "GET", p, "", ""), 401, api.CodeUnauthorized, "bearer token")
		checkError(t, call(t, base, "GET", p, "wrong", ""), 401, api.CodeUnauthorized, "bearer token")
	}

	// The server and the session still work.
	l, err := c.Sessions(ctx)
	if err != nil || len(l) != 1 || l[0].ID != s.ID {
		t.Fatalf("sessions after the bad requests: %+v %v", l, err)
	}
	if _, err := c.Input(ctx, s.ID, []api.Action{{Type: "move", X: api.Int(10), Y: api.Int(20)}}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.Cursor(ctx, s.ID); err != nil || p != (api.Point{X: 10, Y: 20}) {
		t.Errorf("cursor after the bad requests: %v %v", p, err)
	}
	if shot, err := c.Screenshot(ctx, s.ID, api.ScreenshotOptions{}); err != nil || shot.Width != 800 {
		t.Errorf("screenshot after the bad requests: %v", err)
	}
	if r, err := c.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"echo", "still here"}}); err != nil || r.Stdout != "still here\n" {
		t.Errorf("exec after the bad requests: %+v %v", r, err)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
