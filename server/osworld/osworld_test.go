package osworld_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"image/png"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/server/osworld"
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(agentdtest.Main(m))
}

// env is a live local session served as OSWorld's VM.
type env struct {
	t    *testing.T
	sess *runner.Session
	srv  *osworld.Server
	base string
	home string
}

func newEnv(t *testing.T, cfg osworld.Config) *env {
	t.Helper()
	agentdtest.NeedX(t, "openbox", "xterm", "xwininfo")
	p, err := local.New(agentdtest.Agentd(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close manager: %v", err)
		}
		p.Close(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "local", Screen: api.Screen{Width: 1024, Height: 768}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := osworld.Start(sess, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	res, err := sess.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `printf %s "$HOME"`}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, sess: sess, srv: srv, base: "http://" + srv.Addrs().Server, home: res.Stdout}
}

type answer struct {
	status int
	ctype  string
	body   []byte
}

func (a answer) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decode %q: %v", a.body, err)
	}
}

func (e *env) do(method, route, ctype string, body io.Reader) answer {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+route, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, route, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), b}
}

// postJSON posts v as OSWorld's controllers do (json.dumps with a JSON
// content type).
func (e *env) postJSON(route string, v any) answer {
	e.t.Helper()
	b, _ := json.Marshal(v)
	return e.do("POST", route, "application/json", bytes.NewReader(b))
}

// postForm posts form fields as requests' data= does.
func (e *env) postForm(route string, form url.Values) answer {
	e.t.Helper()
	return e.do("POST", route, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
}

func want(t *testing.T, a answer, status int, route string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: status %d, want %d (body %.300q)", route, a.status, status, a.body)
	}
}

// execAnswer is the answer of /execute.
type execAnswer struct {
	Status     string `json:"status"`
	Output     string `json:"output"`
	Error      string `json:"error"`
	ReturnCode int    `json:"returncode"`
	Message    string `json:"message"`
}

// waitWindow waits until a window titled title is present (or gone).
func (e *env) waitWindow(title string, present bool) api.Window {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		wins, err := e.sess.Windows(context.Background())
		if err != nil {
			e.t.Fatal(err)
		}
		i := slices.IndexFunc(wins, func(w api.Window) bool { return w.Title == title })
		if (i >= 0) == present {
			if i >= 0 {
				return wins[i]
			}
			return api.Window{}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("window %q present=%v not reached; windows %+v", title, present, wins)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestRoutes(t *testing.T) {
	e := newEnv(t, osworld.Config{})

	t.Run("screenshot", func(t *testing.T) {
		a := e.do("GET", "/screenshot", "", nil)
		want(t, a, 200, "/screenshot")
		img, err := png.Decode(bytes.NewReader(a.body))
		if err != nil {
			t.Fatalf("not a PNG (%s): %v", a.ctype, err)
		}
		if b := img.Bounds(); b.Dx() != 1024 || b.Dy() != 768 {
			t.Errorf("screenshot %v, want 1024x768", b)
		}
	})

	t.Run("execute", func(t *testing.T) {
		for _, route := range []string{"/execute", "/setup/execute"} {
			var r execAnswer
			a := e.postJSON(route, map[string]any{"command": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, "shell": false})
			want(t, a, 200, route)
			a.json(t, &r)
			if r != (execAnswer{Status: "success", Output: "out\n", Error: "err\n", ReturnCode: 3}) {
				t.Errorf("%s: %+v", route, r)
			}
		}
		// A string without shell is split as shlex does; ~/ is the home.
		var r execAnswer
		e.postJSON("/execute", map[string]any{"command": `printf "%s|%s" 'a b' ~/x`}).json(t, &r)
		if r.Output != "a b|"+e.home+"/x" {
			t.Errorf("split command: %+v", r)
		}
		e.postJSON("/execute", map[string]any{"command": "echo $((6*7)) | tr 4 X", "shell": true}).json(t, &r)
		if r.Output != "X2\n" || r.ReturnCode != 0 {
			t.Errorf("shell command: %+v", r)
		}
		// A program that does not exist is OSWorld's 500 {"status":"error"}.
		a := e.postJSON("/execute", map[string]any{"command": []string{"/no/such/program"}})
		want(t, a, 500, "/execute missing program")
		a.json(t, &r)
		if r.Status != "error" || r.Message == "" {
			t.Errorf("missing program: %+v", r)
		}
	})

	t.Run("pyautogui through execute", func(t *testing.T) {
		// What PythonController.execute_python_command sends.
		cmd := []string{"python", "-c", "import pyautogui; import time; pyautogui.FAILSAFE = False; pyautogui.moveTo(200, 150)"}
		var r execAnswer
		a := e.postJSON("/execute", map[string]any{"command": cmd, "shell": false})
		want(t, a, 200, "/execute pyautogui")
		a.json(t, &r)
		if r.ReturnCode != 0 {
			t.Fatalf("pyautogui: %+v", r)
		}
		var pos []int
		a = e.do("GET", "/cursor_position", "", nil)
		want(t, a, 200, "/cursor_position")
		a.json(t, &pos)
		if !slices.Equal(pos, []int{200, 150}) {
			t.Errorf("cursor %v, want [200 150]", pos)
		}
	})

	t.Run("execute_with_verification", func(t *testing.T) {
		for _, route := range []string{"/execute_with_verification", "/setup/execute_with_verification"} {
			var r map[string]any
			a := e.postJSON(route, map[string]any{"command": "touch /tmp/none-yet; true", "shell": true,
				"verification": map[string]any{"command_success": "true"}, "max_wait_time": 2, "check_interval": 0.2})
			want(t, a, 200, route)
			a.json(t, &r)
			if r["status"] != "success" || r["verification"] != "passed" {
				t.Errorf("%s: %v", route, r)
			}
		}
		a := e.postJSON("/execute_with_verification", map[string]any{"command": []string{"true"},
			"verification": map[string]any{"window_exists": "no window has this title"}, "max_wait_time": 0.5, "check_interval": 0.2})
		want(t, a, 500, "/execute_with_verification failing")
	})

	t.Run("launch, windows", func(t *testing.T) {
		a := e.postJSON("/setup/launch", map[string]any{"command": []string{"xterm", "-T", "osworld-launched", "-geometry", "80x20"}})
		want(t, a, 200, "/setup/launch")
		if string(a.body) != "xterm -T osworld-launched -geometry 80x20 launched successfully" {
			t.Errorf("launch answer %q", a.body)
		}
		e.waitWindow("osworld-launched", true)

		a = e.postJSON("/setup/launch", map[string]any{"command": "xterm -T 'osworld shell launched'", "shell": true})
		want(t, a, 200, "/setup/launch shell")
		e.waitWindow("osworld shell launched", true)

		a = e.postJSON("/setup/launch", map[string]any{"command": []string{"no-such-program-here"}})
		want(t, a, 500, "/setup/launch missing")

		a = e.postForm("/window_size", url.Values{"app_class_name": {"xterm"}})
		want(t, a, 200, "/window_size")
		var size map[string]int
		a.json(t, &size)
		if size["width"] < 100 || size["height"] < 100 {
			t.Errorf("window size %v", size)
		}
		want(t, e.postForm("/window_size", url.Values{}), 400, "/window_size without class")
		want(t, e.postForm("/window_size", url.Values{"app_class_name": {"NoSuchClass"}}), 500, "/window_size unknown class")

		a = e.postJSON("/setup/activate_window", map[string]any{"window_name": "OSWORLD-LAUNCHED"})
		want(t, a, 200, "/setup/activate_window")
		deadline := time.Now().Add(5 * time.Second)
		for e.waitWindow("osworld-launched", true).Active == false {
			if time.Now().After(deadline) {
				t.Fatal("osworld-launched was not activated")
			}
			time.Sleep(100 * time.Millisecond)
		}
		want(t, e.postJSON("/setup/activate_window", map[string]any{}), 400, "/setup/activate_window without name")
		// Strict compares the whole title, case included: no match, no change, still 200.
		want(t, e.postJSON("/setup/close_window", map[string]any{"window_name": "OSWORLD-LAUNCHED", "strict": true}), 200, "/setup/close_window strict miss")
		e.waitWindow("osworld-launched", true)
		want(t, e.postJSON("/setup/close_window", map[string]any{"window_name": "osworld-launched", "strict": true}), 200, "/setup/close_window")
		e.waitWindow("osworld-launched", false)
		want(t, e.postJSON("/setup/close_window", map[string]any{"window_name": "shell launched"}), 200, "/setup/close_window substring")
		e.waitWindow("osworld shell launched", false)
		want(t, e.postJSON("/setup/close_window", map[string]any{}), 400, "/setup/close_window without name")
	})

	t.Run("terminal, accessibility", func(t *testing.T) {
		var term map[string]any
		a := e.do("GET", "/terminal", "", nil)
		want(t, a, 200, "/terminal")
		a.json(t, &term)
		if v, ok := term["output"]; !ok || v != nil || term["status"] != "success" {
			t.Errorf("terminal %v", term)
		}
		var at map[string]string
		a = e.do("GET", "/accessibility", "", nil)
		want(t, a, 200, "/accessibility")
		a.json(t, &at)
		if !strings.HasPrefix(at["AT"], "<desktop-frame") || !strings.Contains(at["AT"], `xmlns:st="https://accessibility.ubuntu.example.org/ns/state"`) {
			t.Errorf("accessibility %q", at["AT"])
		}
		// A GTK window shows in the tree OSWorld's server answers.
		// Debian's python3 has the GTK bindings (python3-gi).
		if exec.Command("/usr/bin/python3", "-c", "import gi").Run() == nil {
			src, _ := filepath.Abs("../../agentd/atspi/testdata/gtkapp.py")
			e.postJSON("/setup/launch", map[string]any{"command": []string{"/usr/bin/python3", src, "osworld tree"}})
			deadline := time.Now().Add(20 * time.Second)
			for {
				a = e.do("GET", "/accessibility", "", nil)
				at = nil
				a.json(t, &at)
				if strings.Contains(at["AT"], "<push-button") || time.Now().After(deadline) {
					break
				}
				time.Sleep(300 * time.Millisecond)
			}
			if !strings.Contains(at["AT"], "<push-button") {
				t.Errorf("the GTK window's button is not in /accessibility: %.600s", at["AT"])
			}
		}
	})

	t.Run("screen, platform, desktop", func(t *testing.T) {
		var scr map[string]int
		a := e.postJSON("/screen_size", nil)
		want(t, a, 200, "/screen_size")
		a.json(t, &scr)
		if scr["width"] != 1024 || scr["height"] != 768 {
			t.Errorf("screen size %v", scr)
		}
		a = e.do("GET", "/platform", "", nil)
		if a.status != 200 || string(a.body) != "Linux" {
			t.Errorf("platform %d %q", a.status, a.body)
		}
		os.RemoveAll(filepath.Join(e.home, "Desktop"))
		want(t, e.postJSON("/desktop_path", nil), 404, "/desktop_path without Desktop")
		if err := os.MkdirAll(filepath.Join(e.home, "Desktop"), 0o755); err != nil {
			t.Fatal(err)
		}
		var d map[string]string
		a = e.postJSON("/desktop_path", nil)
		want(t, a, 200, "/desktop_path")
		a.json(t, &d)
		if d["desktop_path"] != e.home+"/Desktop" {
			t.Errorf("desktop path %v", d)
		}
	})

	t.Run("files", func(t *testing.T) {
		// /setup/upload: multipart, as SetupController's upload does.
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("file_path", "~/docs/up.bin")
		fw, _ := mw.CreateFormFile("file_data", "up.bin")
		payload := []byte("\x00\x01binary\xffpayload")
		fw.Write(payload)
		mw.Close()
		os.MkdirAll(filepath.Join(e.home, "docs", "sub"), 0o755)
		os.WriteFile(filepath.Join(e.home, "docs", "sub", "deep.txt"), []byte("x"), 0o644)
		a := e.do("POST", "/setup/upload", mw.FormDataContentType(), &buf)
		want(t, a, 200, "/setup/upload")
		if string(a.body) != "File Uploaded" {
			t.Errorf("upload answer %q", a.body)
		}
		got, err := os.ReadFile(filepath.Join(e.home, "docs", "up.bin"))
		if err != nil || !bytes.Equal(got, payload) {
			t.Fatalf("uploaded file %q, %v", got, err)
		}
		want(t, e.postForm("/setup/upload", url.Values{"file_path": {"/tmp/x"}}), 400, "/setup/upload without file")

		// /file: form file_path, the raw bytes back.
		a = e.postForm("/file", url.Values{"file_path": {"$HOME/docs/up.bin"}})
		want(t, a, 200, "/file")
		if !bytes.Equal(a.body, payload) {
			t.Errorf("file bytes %q", a.body)
		}
		want(t, e.postForm("/file", url.Values{"file_path": {"~/docs/missing"}}), 404, "/file missing")
		want(t, e.postForm("/file", url.Values{}), 400, "/file without path")

		// /list_directory: the tree.
		var tree struct {
			Tree struct {
				Type, Name string
				Children   []struct {
					Type, Name string
					Children   []struct{ Type, Name string }
				}
			} `json:"directory_tree"`
		}
		a = e.postJSON("/list_directory", map[string]string{"path": e.home + "/docs"})
		want(t, a, 200, "/list_directory")
		a.json(t, &tree)
		if tree.Tree.Type != "directory" || tree.Tree.Name != "docs" || len(tree.Tree.Children) != 2 {
			t.Fatalf("tree %+v", tree.Tree)
		}
		names := map[string]string{}
		for _, c := range tree.Tree.Children {
			names[c.Name] = c.Type
			if c.Name == "sub" && (len(c.Children) != 1 || c.Children[0].Name != "deep.txt" || c.Children[0].Type != "file") {
				t.Errorf("sub %+v", c)
			}
		}
		if names["up.bin"] != "file" || names["sub"] != "directory" {
			t.Errorf("children %v", names)
		}
		want(t, e.postJSON("/list_directory", map[string]string{}), 400, "/list_directory without path")
		want(t, e.postJSON("/list_directory", map[string]string{"path": e.home + "/docs/up.bin"}), 400, "/list_directory of a file")

		// /setup/open_file: 404 for a missing file, 400 without a path.
		want(t, e.postJSON("/setup/open_file", map[string]string{"path": "~/nope.txt"}), 404, "/setup/open_file missing")
		want(t, e.postJSON("/setup/open_file", map[string]string{}), 400, "/setup/open_file without path")
		// /setup/download_file: a file served on the host's loopback.
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "downloaded bytes") })}
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		go srv.Serve(ln)
		defer srv.Close()
		a = e.postJSON("/setup/download_file", map[string]string{"url": "http://" + ln.Addr().String() + "/f", "path": "~/dl/new/f.txt"})
		want(t, a, 200, "/setup/download_file")
		if got, _ := os.ReadFile(filepath.Join(e.home, "dl", "new", "f.txt")); string(got) != "downloaded bytes" {
			t.Errorf("downloaded %q", got)
		}
		want(t, e.postJSON("/setup/download_file", map[string]string{"path": "~/x"}), 400, "/setup/download_file without url")
		// The wallpaper routes.
		want(t, e.postJSON("/setup/change_wallpaper", map[string]string{"path": "~/no-such.png"}), 404, "/setup/change_wallpaper missing")
		want(t, e.postJSON("/setup/change_wallpaper", map[string]string{}), 400, "/setup/change_wallpaper without path")
		a = e.postJSON("/setup/change_wallpaper", map[string]string{"path": "~/docs/up.bin"})
		want(t, a, 200, "/setup/change_wallpaper")
		if a = e.postJSON("/wallpaper", nil); a.status != 404 && !(a.status == 200 && bytes.Equal(a.body, payload)) {
			t.Errorf("wallpaper %d %q", a.status, a.body)
		}
	})

	t.Run("run_python, run_bash_script", func(t *testing.T) {
		var r execAnswer
		a := e.postJSON("/run_python", map[string]string{"code": "import sys\nprint(6*7)\nprint('e', file=sys.stderr)"})
		want(t, a, 200, "/run_python")
		a.json(t, &r)
		if r != (execAnswer{Status: "success", Output: "42\n", Error: "e\n"}) {
			t.Errorf("run_python %+v", r)
		}
		e.postJSON("/run_python", map[string]string{"code": "raise SystemExit(4)"}).json(t, &r)
		if r.Status != "error" || r.ReturnCode != 4 {
			t.Errorf("run_python failing %+v", r)
		}
		want(t, e.postJSON("/run_python", map[string]string{}), 400, "/run_python without code")
		a = e.postJSON("/run_bash_script", map[string]any{"script": "pwd; echo $((1+1))", "working_dir": "/tmp"})
		want(t, a, 200, "/run_bash_script")
		a.json(t, &r)
		if r.Status != "success" || r.Output != "/tmp\n2\n" {
			t.Errorf("run_bash_script %+v", r)
		}
		want(t, e.postJSON("/run_bash_script", map[string]any{"script": "sleep 5", "timeout": 0.5}), 500, "/run_bash_script timeout")
	})

	t.Run("recording", func(t *testing.T) {
		if _, err := exec.LookPath("ffmpeg"); err != nil {
			a := e.postJSON("/start_recording", nil)
			want(t, a, 500, "/start_recording without ffmpeg")
			return
		}
		want(t, e.postJSON("/end_recording", nil), 400, "/end_recording before start")
		want(t, e.postJSON("/start_recording", nil), 200, "/start_recording")
		want(t, e.postJSON("/start_recording", nil), 400, "/start_recording twice")
		time.Sleep(1500 * time.Millisecond)
		a := e.postJSON("/end_recording", nil)
		want(t, a, 200, "/end_recording")
		if len(a.body) < 12 || string(a.body[4:8]) != "ftyp" {
			t.Errorf("recording is not an MP4: %d bytes", len(a.body))
		}
	})
}

// TestForwards checks the chromium and vlc addresses reach the sandbox's
// ports, and that Close ends the listeners.
func TestForwards(t *testing.T) {
	backend := func() (int, net.Listener) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { defer c.Close(); io.Copy(c, io.TeeReader(c, io.Discard)) }()
			}
		}()
		t.Cleanup(func() { ln.Close() })
		return ln.Addr().(*net.TCPAddr).Port, ln
	}
	cp, _ := backend()
	vp, _ := backend()
	e := newEnv(t, osworld.Config{ChromiumPort: cp, VLCPort: vp})
	for _, addr := range []string{e.srv.Addrs().Chromium, e.srv.Addrs().VLC} {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("address %q is not on 127.0.0.1", addr)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		msg := []byte("hello through the tunnel " + addr)
		c.Write(msg)
		got := make([]byte, len(msg))
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
			t.Errorf("echo through %s: %q, %v", addr, got, err)
		}
		c.Close()
	}
	e.srv.Close()
	for _, addr := range []string{e.srv.Addrs().Server, e.srv.Addrs().Chromium, e.srv.Addrs().VLC} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still accepts after Close", addr)
		}
	}
}
