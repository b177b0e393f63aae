package agentd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

const token = "test-token"

// needX skips a test of the local X tier in -short mode and fails it when
// a program it needs is missing.
func needX(t testing.TB) {
	t.Helper()
	agentdtest.NeedX(t, "xdotool", "xsetroot", "xterm", "openbox")
}

// start runs an agentd with its own Xvfb in the test process.
func start(t testing.TB) (*Server, *client.Client) {
	t.Helper()
	needX(t)
	s, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, Screen: api.Screen{Width: 1280, Height: 800}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Close(ctx)
	})
	return s, client.NewClient("http://"+s.Addr(), token, nil)
}

func sh(t testing.TB, c *client.Client, script string) api.ExecResult {
	t.Helper()
	r, err := c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 {
		t.Fatalf("%s: exit %d: %s", script, r.ExitCode, r.Stderr)
	}
	return r
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func TestScreenshotPixels(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	sh(t, c, "xsetroot -solid '#123456'")
	shot, err := c.Screenshot(ctx, api.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if shot.Width != 1280 || shot.Height != 800 || shot.Scale != 1 || shot.Screen != (api.Screen{Width: 1280, Height: 800}) {
		t.Errorf("screenshot %dx%d scale %v screen %v", shot.Width, shot.Height, shot.Scale, shot.Screen)
	}
	if r, g, b, _ := img.At(640, 400).RGBA(); r>>8 != 0x12 || g>>8 != 0x34 || b>>8 != 0x56 {
		t.Errorf("pixel = %02x%02x%02x, want 123456", r>>8, g>>8, b>>8)
	}
	small, err := c.Screenshot(ctx, api.ScreenshotOptions{MaxWidth: 640, Format: api.FormatJPEG})
	if err != nil {
		t.Fatal(err)
	}
	if small.Width != 640 || small.Height != 400 || small.Scale != 0.5 || small.Format != "jpeg" {
		t.Errorf("scaled: %dx%d scale %v format %s", small.Width, small.Height, small.Scale, small.Format)
	}
	odd, err := c.Screenshot(ctx, api.ScreenshotOptions{MaxWidth: 333})
	if err != nil {
		t.Fatal(err)
	}
	if odd.Width != 333 || odd.Height != 208 || odd.Format != "png" {
		t.Errorf("max_width 333: %dx%d %s, want 333x208 png", odd.Width, odd.Height, odd.Format)
	}
	if img, _, err := image.Decode(bytes.NewReader(odd.Data)); err != nil {
		t.Error(err)
	} else if r, g, b, _ := img.At(100, 100).RGBA(); r>>8 != 0x12 || g>>8 != 0x34 || b>>8 != 0x56 {
		t.Errorf("scaled pixel = %02x%02x%02x, want 123456", r>>8, g>>8, b>>8)
	}
	reg, err := c.Screenshot(ctx, api.ScreenshotOptions{Region: &api.Rect{X0: 10, Y0: 20, X1: 110, Y1: 70}})
	if err != nil {
		t.Fatal(err)
	}
	if reg.Width != 100 || reg.Height != 50 {
		t.Errorf("region: %dx%d, want 100x50", reg.Width, reg.Height)
	}
	both, err := c.Screenshot(ctx, api.ScreenshotOptions{MaxWidth: 50, Region: &api.Rect{X0: 10, Y0: 20, X1: 110, Y1: 70}})
	if err != nil {
		t.Fatal(err)
	}
	if both.Width != 50 || both.Height != 25 || both.Scale != 0.5 {
		t.Errorf("region at max_width 50: %dx%d scale %v, want 50x25 scale 0.5", both.Width, both.Height, both.Scale)
	}

	// Captures reuse the memory of earlier ones: a new colour shows in
	// the next screenshot, of every size.
	sh(t, c, "xsetroot -solid '#fedcba'")
	for _, o := range []api.ScreenshotOptions{{Region: &api.Rect{X0: 0, Y0: 0, X1: 20, Y1: 20}}, {}} {
		s, err := c.Screenshot(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(s.Data))
		if err != nil {
			t.Fatal(err)
		}
		if r, g, b, _ := img.At(s.Width-1, s.Height-1).RGBA(); r>>8 != 0xfe || g>>8 != 0xdc || b>>8 != 0xba {
			t.Errorf("%dx%d after the colour changed: pixel %02x%02x%02x, want fedcba", s.Width, s.Height, r>>8, g>>8, b>>8)
		}
	}

	// The answer says its length, so a client reads it in one piece.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL()+"/v1/screenshot", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.ContentLength <= 0 || resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
		t.Errorf("screenshot answer: Content-Length %d, %d bytes, transfer encoding %v", resp.ContentLength, len(body), resp.TransferEncoding)
	}
}

func TestInputSeenByXdotool(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	for _, p := range []api.Point{{X: 0, Y: 0}, {X: 321, Y: 123}, {X: 1279, Y: 799}} {
		res, err := c.Input(ctx, []api.Action{{Type: "move", X: api.Int(p.X), Y: api.Int(p.Y)}})
		if err != nil || len(res.Results) != 1 || !res.Results[0].OK {
			t.Fatalf("move: %+v %v", res, err)
		}
		out := sh(t, c, "xdotool getmouselocation --shell").Stdout
		if !strings.Contains(out, fmt.Sprintf("X=%d\n", p.X)) || !strings.Contains(out, fmt.Sprintf("Y=%d\n", p.Y)) {
			t.Errorf("after move to %v xdotool says %q", p, out)
		}
		if got, err := c.Cursor(ctx); err != nil || got != p {
			t.Errorf("cursor = %v %v, want %v", got, err, p)
		}
	}
}

var typed = []string{
	"plain ascii 0123456789",
	`shifted ~!@#$%^&*()_+{}|:"<>?`,
	"Straße café naïve Ångström",
	"Ελληνικά Кириллица",
	"中文输入测试 日本語",
	"€ — “quoted” ‘single’ …",
}

func TestTypeUnicodeIntoTerminal(t *testing.T) {
	s, c := start(t)
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "typed.txt")
	ready := out + ".ready"
	term := exec.Command("xterm", "-geometry", "100x20+0+0", "-fa", "DejaVu Sans Mono", "-u8",
		"-e", "sh", "-c", `stty -echo; touch "$1"; exec cat > "$2"`, "sh", ready, out)
	term.Env = append(os.Environ(), "DISPLAY="+s.Display(), "LC_ALL=C.UTF-8")
	term.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := term.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Process.Kill(); term.Wait() })
	waitFor(t, "the terminal", func() bool { _, err := os.Stat(ready); return err == nil })
	var want strings.Builder
	for range 3 {
		for _, l := range typed {
			if _, err := c.Input(ctx, []api.Action{{Type: "move", X: api.Int(50), Y: api.Int(50)}, {Type: "type", Text: l + "\n"}}); err != nil {
				t.Fatal(err)
			}
			want.WriteString(l + "\n")
		}
	}
	waitFor(t, "every line", func() bool {
		b, _ := os.ReadFile(out)
		return bytes.Count(b, []byte("\n")) >= 3*len(typed)
	})
	if got, _ := os.ReadFile(out); string(got) != want.String() {
		t.Errorf("terminal received\n%s\nwant\n%s", got, want.String())
	}
	ws, err := c.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range ws {
		found = found || w.Class == "XTerm"
	}
	if !found {
		t.Errorf("windows %+v: no XTerm", ws)
	}
}

func TestExecAndFiles(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "echo $DISPLAY; echo err >&2; cat; exit 3"}, Stdin: "in", Env: map[string]string{"X": "1"}})
	if err != nil || r.ExitCode != 3 || !strings.HasPrefix(r.Stdout, ":") || !strings.HasSuffix(r.Stdout, "in") || r.Stderr != "err\n" {
		t.Errorf("exec: %+v %v", r, err)
	}
	r, err = c.Exec(ctx, api.ExecRequest{Cmd: []string{"sleep", "30"}, TimeoutMS: 200})
	if err != nil || !r.TimedOut || r.ExitCode != 137 {
		t.Errorf("timeout: %+v %v", r, err)
	}
	r, err = c.Exec(ctx, api.ExecRequest{Cmd: []string{"head", "-c", "3000000", "/dev/zero"}})
	if err != nil || !r.Truncated || len(r.Stdout) != MaxOutput {
		t.Errorf("cap: truncated=%v len=%d %v", r.Truncated, len(r.Stdout), err)
	}
	r, err = c.Exec(ctx, api.ExecRequest{Cmd: []string{"/no/such/program"}})
	if err != nil || r.ExitCode != 127 {
		t.Errorf("missing program: %+v %v", r, err)
	}

	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f.txt")
	data := []byte("héllo\x00bytes")
	if err := c.WriteFile(ctx, p, data); err != nil {
		t.Fatal(err)
	}
	if got, err := c.ReadFile(ctx, p); err != nil || !bytes.Equal(got, data) {
		t.Errorf("read back %q %v", got, err)
	}
	if _, err := c.ReadFile(ctx, filepath.Join(dir, "missing")); !errdefs.IsNotFound(err) {
		t.Errorf("missing file: %v, want not found", err)
	}
	if _, err := c.ReadFile(ctx, dir); !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := c.ReadFile(ctx, "relative/path"); !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), "path:") {
		t.Errorf("relative path: %v", err)
	}
	big := make([]byte, MaxFileSize+1)
	if err := c.WriteFile(ctx, filepath.Join(dir, "big"), big); !errdefs.IsOutOfRange(err) {
		t.Errorf("over the limit: %v, want out of range (413)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big")); err == nil {
		t.Error("a refused write left a file")
	}
}

func TestShellSessions(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := c.ShellExec(ctx, "one", api.ShellExecRequest{Command: "cd " + dir + " && export GREETING=hi"}); err != nil {
		t.Fatal(err)
	}
	s, err := c.ShellExec(ctx, "one", api.ShellExecRequest{Command: "pwd; echo $GREETING"})
	if err != nil || s.Output != dir+"\nhi\n" || s.Dir != dir || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Fatalf("state did not carry over: %+v %v", s, err)
	}
	if s, _ := c.ShellExec(ctx, "two", api.ShellExecRequest{Command: "echo ${GREETING:-none}"}); s.Output != "none\n" {
		t.Errorf("sessions share state: %+v", s)
	}
	s, err = c.ShellExec(ctx, "one", api.ShellExecRequest{Command: "read x; echo got $x", WaitMS: 100})
	if err != nil || !s.Running {
		t.Fatalf("interactive command: %+v %v", s, err)
	}
	if _, err := c.ShellExec(ctx, "one", api.ShellExecRequest{Command: "true"}); !errdefs.IsConflict(err) {
		t.Errorf("exec while running: %v, want conflict", err)
	}
	if _, err := c.ShellWrite(ctx, "one", api.ShellWriteRequest{Input: "yes", PressEnter: true}); err != nil {
		t.Fatal(err)
	}
	s, err = c.ShellWait(ctx, "one", api.ShellWaitRequest{WaitMS: 5000})
	if err != nil || s.Running || !strings.Contains(s.Output, "got yes") {
		t.Errorf("after write: %+v %v", s, err)
	}
	if _, err := c.ShellExec(ctx, "one", api.ShellExecRequest{Command: "sleep 30", WaitMS: 50}); err != nil {
		t.Fatal(err)
	}
	if s, err := c.ShellKill(ctx, "one"); err != nil || s.Running || s.ExitCode == nil || *s.ExitCode != 137 {
		t.Errorf("kill: %+v %v", s, err)
	}
	if _, err := c.ShellView(ctx, "nope"); !errdefs.IsNotFound(err) {
		t.Errorf("unknown shell: %v", err)
	}
}

// TestBadRequests sends what clients get wrong; each answer is a 4xx in the
// contract's shape naming the field, and the server keeps serving.
func TestBadRequests(t *testing.T) {
	s, _ := start(t)
	base := "http://" + s.Addr()
	for _, tc := range []struct {
		method, path, body string
		auth               bool
		status             int
		msg                string
	}{
		{"POST", "/v1/input", `{"actions":[{"type":"move","x":1}]}`, true, 400, "actions[0].y: required"},
		{"POST", "/v1/input", `{"actions":[{"type":"fly"}]}`, true, 400, `actions[0].type: unknown action type "fly"`},
		{"POST", "/v1/input", `{"actions":[{"type":"move","x":"1","y":2}]}`, true, 400, "x"},
		{"POST", "/v1/input", `{"actions":[{"type":"move","x":1280,"y":2}]}`, true, 400, "actions[0].x: 1280 is off the screen (0..1279)"},
		{"POST", "/v1/input", `{"actions":[{"type":"key","keys":["ctrl","nokey"]}]}`, true, 400, `actions[0].keys[1]: unknown key name "nokey"`},
		{"POST", "/v1/input", `{"actions":[`, true, 400, ""},
		{"POST", "/v1/input", `{"actions":[],"extra":1}`, true, 400, "extra"},
		{"POST", "/v1/input", `{}`, true, 400, "actions: required"},
		{"GET", "/v1/screenshot?region=5,5,1,1", "", true, 400, "region"},
		{"GET", "/v1/screenshot?format=gif", "", true, 400, "format"},
		{"GET", "/v1/screenshot?max_width=-3", "", true, 400, "max_width"},
		{"POST", "/v1/exec", `{"cmd":[]}`, true, 400, "cmd: required"},
		{"POST", "/v1/exec", `{"cmd":["true"],"timeout_ms":-1}`, true, 400, "timeout_ms"},
		{"GET", "/v1/files", "", true, 400, "path: required"},
		{"POST", "/v1/windows/abc/activate", "", true, 400, "id"},
		{"POST", "/v1/windows/99999999/activate", "", true, 404, "window"},
		{"POST", "/v1/shells/bad id!/exec", `{"command":"true"}`, true, 400, "id"},
		{"GET", "/v1/screen", "", false, 401, "token"},
		{"GET", "/v1/nothing", "", true, 404, ""},
	} {
		req, _ := http.NewRequest(tc.method, base+strings.ReplaceAll(tc.path, " ", "%20"), strings.NewReader(tc.body))
		if tc.auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body api.ErrorBody
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || err != nil || body.Error.Code == "" || !strings.Contains(body.Error.Message, tc.msg) {
			t.Errorf("%s %s %s: %d %+v (%v), want %d with %q", tc.method, tc.path, tc.body, resp.StatusCode, body, err, tc.status, tc.msg)
		}
	}
	if _, err := client.NewClient(base, token, nil).Health(context.Background()); err != nil {
		t.Errorf("not serving after bad requests: %v", err)
	}
}

func TestXvfbRestarts(t *testing.T) {
	s, c := start(t)
	ctx := context.Background()
	s.desk.mu.RLock()
	pid := s.desk.xvfb.Process.Pid
	s.desk.mu.RUnlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "healthz to go red", func() bool { _, err := c.Health(ctx); return err != nil })
	waitFor(t, "healthz to go green again", func() bool { _, err := c.Health(ctx); return err == nil })
	if _, err := c.Screenshot(ctx, api.ScreenshotOptions{}); err != nil {
		t.Errorf("screenshot after restart: %v", err)
	}
	s.desk.mu.RLock()
	if s.desk.xvfb.Process.Pid == pid {
		t.Error("same Xvfb pid after restart")
	}
	s.desk.mu.RUnlock()
}

// xvfbChild finds the Xvfb process whose parent is ppid (0 if none).
func xvfbChild(ppid int) int { return childNamed(ppid, "Xvfb") }

// childNamed finds the live process named comm whose parent is ppid (0 if
// none).
func childNamed(ppid int, comm string) int {
	ents, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range ents {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		st := string(b)
		open, close := strings.IndexByte(st, '('), strings.LastIndexByte(st, ')')
		if open < 0 || close < 0 || st[open+1:close] != comm {
			continue
		}
		var state string
		var pid, parent int
		fmt.Sscanf(st[:open], "%d", &pid)
		fmt.Sscanf(st[close+2:], "%s %d", &state, &parent)
		if parent == ppid && state != "Z" {
			return pid
		}
	}
	return 0
}

// TestBinaryLifecycle runs cmd/agentd as a sandbox would, and checks that
// SIGTERM ends it cleanly with no Xvfb left behind.
func TestBinaryLifecycle(t *testing.T) {
	needX(t)
	bin := agentdtest.Build(t, agentdtest.AgentdPkg)
	if out, err := exec.Command(bin).CombinedOutput(); err == nil || !strings.Contains(string(out), "AGENTD_TOKEN") {
		t.Errorf("without a token: %v %s", err, out)
	}
	cmd := exec.Command(bin, "--addr", "127.0.0.1:0", "--xvfb", "--screen", "800x600x24", "--wm", "openbox")
	cmd.Env = append(os.Environ(), "AGENTD_TOKEN=x")
	out, _ := cmd.StdoutPipe()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ready struct{ Addr, Display string }
	line, _ := bufio.NewReader(out).ReadString('\n')
	if err := json.Unmarshal([]byte(line), &ready); err != nil || ready.Addr == "" {
		cmd.Process.Kill()
		t.Fatalf("ready line %q: %v", line, err)
	}
	c := client.NewClient("http://"+ready.Addr, "x", nil)
	h, err := c.Health(context.Background())
	if err != nil || h.Screen != (api.Screen{Width: 800, Height: 600}) {
		t.Errorf("health %+v %v", h, err)
	}
	pid := xvfbChild(cmd.Process.Pid)
	if pid == 0 {
		t.Fatal("no Xvfb found for", ready.Display)
	}
	wm := childNamed(cmd.Process.Pid, "openbox")
	if wm == 0 {
		t.Fatal("no openbox found")
	}
	// Commands see no token, and drive the desktop through the local
	// socket without one.
	r, err := c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", `env; python3 -c "import pyautogui; pyautogui.moveTo(7, 9); print('at', tuple(pyautogui.position()))"`}})
	if err != nil || strings.Contains(r.Stdout, "AGENTD_TOKEN") || !strings.Contains(r.Stdout, "AGENTD_URL=unix:/") || !strings.Contains(r.Stdout, "at (7, 9)") {
		t.Errorf("exec env and pyautogui: %v\n%s\n%s", err, r.Stdout, r.Stderr)
	}
	r, err = c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $!"}})
	if err != nil {
		t.Fatal(err)
	}
	var bg int
	fmt.Sscan(r.Stdout, &bg)
	if _, err := c.ShellExec(context.Background(), "s", api.ShellExecRequest{Command: "sleep 301", WaitMS: 50}); err != nil {
		t.Fatal(err)
	}
	shellSleep := 0
	waitFor(t, "the shell's sleep", func() bool {
		out, _ := exec.Command("pgrep", "-f", "^sleep 301$").Output()
		fmt.Sscan(string(out), &shellSleep)
		return shellSleep != 0
	})
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	for _, p := range []struct {
		what string
		pid  int
	}{{"Xvfb", pid}, {"openbox", wm}, {"exec's background sleep", bg}, {"the shell session's sleep", shellSleep}} {
		waitFor(t, p.what+" to end", func() bool {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
			return errors.Is(err, os.ErrNotExist) || bytes.Contains(b, []byte("zombie"))
		})
	}
}

// FuzzInput sends arbitrary bodies to /v1/input: never a panic, never a
// 500, and every refusal in the contract's error shape. With -fuzz each
// worker process starts its own agentd and Xvfb.
func FuzzInput(f *testing.F) {
	for _, s := range []string{
		`{"actions":[{"type":"move","x":1,"y":2}]}`,
		`{"actions":[{"type":"type","text":"a"}]}`,
		`{"actions":[{"type":"key","keys":["ctrl","c"],"repeat":2}]}`,
		`{"actions":[{"type":"drag","path":[[1,1],[2,2]]}]}`,
		`{"actions":[{"type":"scroll","dy":-3}]}`,
		`{"actions":[{"type":"click","x":1279,"y":799,"button":"right","count":2}]}`,
		`{"actions":[{"type":"key_down","key":"Shift_L"},{"type":"key_up","key":"Shift_L"}]}`,
		`{"actions":[{"type":"wait","ms":50000}]}`,
		`{"actions":null}`, `[]`, `{"actions":[{}]}`, "", `{"actions":[{"type":"move","x":1e99,"y":-0}]}`,
	} {
		f.Add(s)
	}
	srv, _ := start(f)
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		// Bound waits and drags: the handler must stop at the request's
		// deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, "POST", "/v1/input", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && !(rec.Code == http.StatusGatewayTimeout && ctx.Err() != nil) {
			t.Fatalf("body %q: status %d: %s", body, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusOK {
			var eb struct {
				Error *api.Error `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == nil || eb.Error.Code == "" || eb.Error.Message == "" {
				t.Fatalf("body %q: status %d with %s, not the error shape", body, rec.Code, rec.Body)
			}
		}
	})
}

// TestBackgroundProgramsOutliveExecNotAgentd: `xterm &` style commands
// return at once and keep running, until agentd stops.
func TestBackgroundProgramsOutliveExecNotAgentd(t *testing.T) {
	s, c := start(t)
	r, err := c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", "sleep 300 & echo $!"}, TimeoutMS: 20000})
	if err != nil || r.TimedOut || r.ExitCode != 0 {
		t.Fatalf("exec: %+v %v", r, err)
	}
	var pid int
	fmt.Sscan(r.Stdout, &pid)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("background sleep %d is gone after exec returned: %v", pid, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Close(ctx)
	waitFor(t, "the background program to end with agentd", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z ")
	})
}
