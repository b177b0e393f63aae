package task

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// parseTask parses a JSON task for tests, with Dir set to dir.
func parseTask(t *testing.T, js, dir string) *Task {
	t.Helper()
	tk, err := Parse([]byte(js), FormatJSON)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	tk.Dir = dir
	return tk
}

func withConfig(steps string) string {
	return `{"id": "t", "instruction": "x", "config": ` + steps + `, "evaluator": {"func": "infeasible"}}`
}

// userCmds returns the commands run, without this package's helpers.
func userCmds(f *fakeSandbox) [][]string {
	var out [][]string
	for _, e := range f.execs {
		if res, ok := defaultExec(&fakeSandbox{files: map[string][]byte{}}, e); ok && res.ExitCode == 0 {
			continue
		}
		if len(e.Cmd) == 3 && e.Cmd[0] == "test" {
			continue
		}
		out = append(out, e.Cmd)
	}
	return out
}

func TestExecuteCommands(t *testing.T) {
	f := newFake()
	f.exec = func(req api.ExecRequest) api.ExecResult {
		return api.ExecResult{Stdout: "out:" + req.Cmd[0], Stderr: "err"}
	}
	cache := t.TempDir()
	tk := parseTask(t, withConfig(`[
		{"type": "execute", "parameters": {"command": "echo {CLIENT_PASSWORD} {SCREEN_WIDTH}x{SCREEN_HEIGHT} {SCREEN_WIDTH_HALF},{SCREEN_HEIGHT_HALF}", "shell": true}},
		{"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; pyautogui.click({SCREEN_WIDTH_HALF}, 1)"]}},
		{"type": "command", "parameters": {"command": "ls -l '~/a b' ~/c", "stdout": "ls.out", "stderr": "ls.err"}},
		{"type": "execute", "parameters": {"command": ["printf '%s' \"$0\"", "arg0"], "shell": "true"}}
	]`), "")
	if err := Setup(t.Context(), f, tk, Options{CacheDir: cache, ClientPassword: "s3cret"}); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"sh", "-c", "echo s3cret 1280x800 640,400"},
		{"python", "-c", "import pyautogui; pyautogui.click(640, 1)"},
		{"ls", "-l", "~/a b", "/home/user/c"}, // quoted ~ is not expanded by shlex, only a leading ~/ argument
		{"sh", "-c", "printf '%s' \"$0\"", "arg0"},
	}
	got := userCmds(f)
	if len(got) != len(want) {
		t.Fatalf("commands %q, want %q", got, want)
	}
	for i := range want {
		if i == 2 {
			// "~/a b" is one argument starting with ~/, so it is expanded too.
			want[2][2] = "/home/user/a b"
		}
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("command %d = %q, want %q", i, got[i], want[i])
		}
	}
	if data, err := os.ReadFile(filepath.Join(cache, "ls.out")); err != nil || string(data) != "out:ls" {
		t.Errorf("stdout file = %q, %v", data, err)
	}
	if data, err := os.ReadFile(filepath.Join(cache, "ls.err")); err != nil || string(data) != "err" {
		t.Errorf("stderr file = %q, %v", data, err)
	}
	for _, e := range f.execs {
		if e.TimeoutMS != 120_000 && e.Cmd[0] != "sh" || e.TimeoutMS == 0 {
			t.Errorf("%q ran with timeout %d ms, want 120000", e.Cmd, e.TimeoutMS)
		}
	}
}

func TestSudoUsesAdminChannel(t *testing.T) {
	f := &adminFake{fakeSandbox: newFake()}
	f.exec = func(api.ExecRequest) api.ExecResult { return api.ExecResult{} }
	tk := parseTask(t, withConfig(`[
		{"type": "execute", "parameters": {"command": "echo {CLIENT_PASSWORD} | sudo -S mkdir /opt/x", "shell": true}},
		{"type": "execute", "parameters": {"command": ["touch", "/tmp/pseudo"]}},
		{"type": "execute", "parameters": {"command": ["id"], "admin": true}}
	]`), "")
	if err := Setup(t.Context(), f, tk, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(f.admin) != 2 {
		t.Fatalf("admin commands %v, want 2", f.admin)
	}
	if got := f.admin[0].Cmd[2]; got != "echo password | sudo -S mkdir /opt/x" {
		t.Errorf("admin command %q", got)
	}
	if f.admin[0].Env["HOME"] != "/home/user" {
		t.Errorf("admin HOME = %q, want the user's", f.admin[0].Env["HOME"])
	}
	if got := userCmds(f.fakeSandbox); len(got) != 1 || got[0][1] != "/tmp/pseudo" {
		t.Errorf("user commands %q, want only touch", got)
	}
}

func TestExecuteUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		calls := 0
		f.exec = func(api.ExecRequest) api.ExecResult {
			calls++
			if calls < 4 {
				return api.ExecResult{ExitCode: 1, Stdout: "starting"}
			}
			return api.ExecResult{Stdout: "server ready"}
		}
		tk := parseTask(t, withConfig(`[{"type": "execute", "parameters": {"command": "probe", "until": {"stdout": "ready"}}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if calls != 4 {
			t.Errorf("ran %d times, want 4", calls)
		}
		if d := time.Since(start); d != 1500*time.Millisecond {
			t.Errorf("took %v, want 3 pauses of 500ms", d)
		}

		calls = 0
		f.exec = func(api.ExecRequest) api.ExecResult { calls++; return api.ExecResult{ExitCode: 2} }
		tk = parseTask(t, withConfig(`[{"type": "execute", "parameters": {"command": "probe", "until": {"returncode": 0}}}]`), "")
		err := Setup(t.Context(), f, tk, Options{UntilTimeout: 5 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "not met within 5s") || !errdefs.IsFailedPrecondition(err) {
			t.Errorf("Setup = %v, want until not met", err)
		}
		if calls != 11 {
			t.Errorf("ran %d times, want 11", calls)
		}
	})
}

func TestNonZeroExitDoesNotFailStep(t *testing.T) {
	f := newFake()
	f.exec = func(api.ExecRequest) api.ExecResult {
		return api.ExecResult{ExitCode: 1, Stderr: "pkill: no process"}
	}
	tk := parseTask(t, withConfig(`[{"type": "execute", "parameters": {"command": "pkill chrome", "shell": true}}]`), "")
	if err := Setup(t.Context(), f, tk, Options{}); err != nil {
		t.Errorf("Setup = %v, want nil as in OSWorld", err)
	}
}

func TestLaunch(t *testing.T) {
	f := newFake()
	f.exec = func(req api.ExecRequest) api.ExecResult {
		if slices.Contains(req.Cmd, "nosuchapp") {
			return api.ExecResult{ExitCode: 127, Stderr: "nosuchapp: command not found"}
		}
		return api.ExecResult{}
	}
	tk := parseTask(t, withConfig(`[{"type": "launch", "parameters": {"command": "xterm -T Work ~/x"}}]`), "")
	if err := Setup(t.Context(), f, tk, Options{}); err != nil {
		t.Fatal(err)
	}
	got := userCmds(f)
	if len(got) != 1 || got[0][0] != "sh" || !strings.Contains(got[0][2], "setsid") || !slices.Equal(got[0][4:], []string{"xterm", "-T", "Work", "/home/user/x"}) {
		t.Errorf("launch ran %q", got)
	}
	tk = parseTask(t, withConfig(`[{"type": "launch", "parameters": {"command": ["nosuchapp"]}}]`), "")
	err := Setup(t.Context(), f, tk, Options{})
	if err == nil || !strings.Contains(err.Error(), `config[0] (launch): launch ["nosuchapp"]: nosuchapp: command not found`) {
		t.Errorf("Setup = %v", err)
	}
}

func TestDownloadAndUpload(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "local.txt"), []byte("local"), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "abs.txt")
	if err := os.WriteFile(abs, []byte("absolute"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFake()
	cache := t.TempDir()
	tk := parseTask(t, withConfig(`[
		{"type": "download", "parameters": {"files": [{"url": "local.txt", "path": "~/Desktop/a.txt"}, {"url": "file://`+abs+`", "path": "/tmp/b.txt"}]}},
		{"type": "upload_file", "parameters": {"files": [{"local_path": "local.txt", "path": "/srv/c.txt"}]}}
	]`), dir)
	if err := Setup(t.Context(), f, tk, Options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"/home/user/Desktop/a.txt": "local", "/tmp/b.txt": "absolute", "/srv/c.txt": "local"} {
		if got := string(f.files[p]); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	var mkdirs []string
	for _, e := range f.execs {
		if e.Cmd[0] == "mkdir" {
			mkdirs = append(mkdirs, e.Cmd[3])
		}
	}
	if !slices.Equal(mkdirs, []string{"/home/user/Desktop", "/tmp", "/srv"}) {
		t.Errorf("folders created %q", mkdirs)
	}
	if _, err := os.Stat(filepath.Join(cache, py.UUID5URL("local.txt")+"_a.txt")); err != nil {
		t.Errorf("download not cached: %v", err)
	}

	tk = parseTask(t, withConfig(`[{"type": "download", "parameters": {"files": [{"url": "https://example.com/x.bin", "path": "/tmp/x"}]}}]`), dir)
	err := Setup(t.Context(), f, tk, Options{})
	if sk := SkipOf(err); sk == nil || sk.Field != "config[0] (download)" || !strings.Contains(sk.Reason, "no network") {
		t.Errorf("http download without network = %v, want a skip", err)
	}
	var fetched string
	fetch := func(_ context.Context, url string) ([]byte, error) { fetched = url; return []byte("fetched"), nil }
	if err := Setup(t.Context(), f, tk, Options{Fetch: fetch}); err != nil || fetched != "https://example.com/x.bin" || string(f.files["/tmp/x"]) != "fetched" {
		t.Errorf("Fetch: err %v, fetched %q, file %q", err, fetched, f.files["/tmp/x"])
	}
	tk = parseTask(t, withConfig(`[{"type": "download", "parameters": {"files": [{"url": "missing.txt", "path": "/tmp/x"}]}}]`), dir)
	if err := Setup(t.Context(), f, tk, Options{}); !errdefs.IsNotFound(err) {
		t.Errorf("missing source = %v, want not found", err)
	}
}

func TestWindowSteps(t *testing.T) {
	windows := []api.Window{
		{ID: 1, Title: "Terminal - user@box", Class: "xterm.XTerm"},
		{ID: 2, Title: "Report.txt", Class: "Gedit"},
		{ID: 3, Title: "Terminal", Class: "xterm.XTerm"},
	}
	tests := []struct {
		params string
		want   []uint32
	}{
		{`{"window_name": "terminal"}`, []uint32{1}},
		{`{"window_name": "Terminal", "strict": true}`, []uint32{3}},
		{`{"window_name": "terminal", "strict": true}`, nil},
		{`{"window_name": "gedit", "by_class": true}`, []uint32{2}},
		{`{"window_name": "XTerm", "by_class": true, "strict": true}`, []uint32{1}},
		{`{"window_name": "nothing"}`, nil},
	}
	for _, tt := range tests {
		synctest.Test(t, func(t *testing.T) {
			f := newFake()
			f.windows = windows
			for _, typ := range []string{"activate_window", "close_window"} {
				tk := parseTask(t, withConfig(`[{"type": "`+typ+`", "parameters": `+tt.params+`}]`), "")
				if err := Setup(t.Context(), f, tk, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(f.activated, tt.want) || !slices.Equal(f.closed, tt.want) {
				t.Errorf("%s: activated %v, closed %v, want %v", tt.params, f.activated, f.closed, tt.want)
			}
		})
	}
}

// A window a close step asked to close stays listed for a moment; a
// later window step that picks it meets a window that is gone, and must
// go on with the next match (or skip the step when none is left) rather
// than fail the setup.
func TestWindowGoneBeforeActing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.windows = []api.Window{{ID: 1, Title: "Old", Class: "xterm.XTerm"}, {ID: 2, Title: "Keep", Class: "xterm.XTerm"}}
		f.gone = map[uint32]bool{1: true}
		tk := parseTask(t, withConfig(`[{"type": "activate_window", "parameters": {"window_name": "xterm", "by_class": true}}]`), "")
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatalf("Setup = %v, want the next window activated", err)
		}
		if !slices.Equal(f.activated, []uint32{2}) {
			t.Errorf("activated %v, want [2]", f.activated)
		}
		start := time.Now()
		tk = parseTask(t, withConfig(`[{"type": "close_window", "parameters": {"window_name": "Old", "strict": true}}]`), "")
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatalf("Setup = %v, want the step skipped", err)
		}
		if len(f.closed) != 0 || time.Since(start) != 0 {
			t.Errorf("closed %v after %s, want none, at once", f.closed, time.Since(start))
		}
	})
}

func TestWindowAppearsLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		go func() {
			time.Sleep(time.Second)
			f.mu.Lock()
			f.windows = []api.Window{{ID: 9, Title: "Late"}}
			f.mu.Unlock()
		}()
		tk := parseTask(t, withConfig(`[{"type": "activate_window", "parameters": {"window_name": "Late"}}]`), "")
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.activated, []uint32{9}) {
			t.Errorf("activated %v, want [9]", f.activated)
		}
	})
}

func TestOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.files["/home/user/page.html"] = []byte("<h1>x</h1>")
		f.exec = func(req api.ExecRequest) api.ExecResult {
			f.mu.Lock()
			f.windows = append(f.windows, api.Window{ID: 5, Title: "page.html - Chromium"})
			f.mu.Unlock()
			return api.ExecResult{}
		}
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "~/page.html"}}]`), "")
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		got := userCmds(f)
		if len(got) != 1 || !strings.Contains(got[0][2], "setsid") || !strings.Contains(got[0][6], "gio open") || got[0][8] != "/home/user/page.html" {
			t.Errorf("open ran %q", got)
		}
		tk = parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/nope.txt"}}]`), "")
		if err := Setup(t.Context(), f, tk, Options{}); !errdefs.IsNotFound(err) {
			t.Errorf("open missing file = %v, want not found", err)
		}
	})
}

// TestOpenWaitsForDocumentWindow: LibreOffice shows a splash screen and
// an empty frame before the document's window; the open step ends when
// the window naming the file is there. An app whose window does not
// name the file ends the step once its new windows stop changing.
func TestOpenWaitsForDocumentWindow(t *testing.T) {
	// show adds the windows to f at the given delays after the open
	// command runs.
	show := func(f *fakeSandbox, at []time.Duration, ws []api.Window) {
		f.exec = func(req api.ExecRequest) api.ExecResult {
			if !slices.ContainsFunc(req.Cmd, func(s string) bool { return strings.Contains(s, "gio open") }) {
				return api.ExecResult{}
			}
			go func() {
				start := time.Now()
				for i, w := range ws {
					time.Sleep(at[i] - time.Since(start))
					f.mu.Lock()
					f.windows = append(f.windows, w)
					f.mu.Unlock()
				}
			}()
			return api.ExecResult{}
		}
	}
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.files["/home/user/table.xlsx"] = []byte("PK")
		f.windows = []api.Window{{ID: 1, Title: "notes", Class: "xterm.XTerm"}}
		// A cold start: the splash screen stays 4 s.
		show(f, []time.Duration{200 * time.Millisecond, 4200 * time.Millisecond, 5500 * time.Millisecond}, []api.Window{
			{ID: 7, Title: "LibreOffice"},
			{ID: 8, Title: "LibreOffice 7.4", Class: "soffice.Soffice"},
			{ID: 9, Title: "table.xlsx - LibreOffice Calc", Class: "libreoffice-calc.libreoffice-calc"}})
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/home/user/table.xlsx"}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 5500*time.Millisecond || took > 6*time.Second {
			t.Errorf("open took %v, want it to end when the document's window shows (5.5s)", took)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		// GIMP names the image without its extension.
		f := newFake()
		f.files["/home/user/photo.png"] = []byte("x")
		show(f, []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond}, []api.Window{
			{ID: 7, Title: "GNU Image Manipulation Program", Class: "gimp.Gimp"},
			{ID: 8, Title: "[photo] (imported)-1.0 (RGB color 8-bit gamma integer, GIMP built-in sRGB, 1 layer) 64x64 – GIMP", Class: "gimp.Gimp"}})
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/home/user/photo.png"}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 1500*time.Millisecond || took > 2*time.Second {
			t.Errorf("open took %v, want it to end when the image's window shows (1.5s)", took)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.files["/home/user/clip.mp4"] = []byte("x")
		show(f, []time.Duration{time.Second}, []api.Window{{ID: 7, Title: "VLC media player", Class: "vlc.vlc"}})
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/home/user/clip.mp4"}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), f, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < time.Second+openSettle || took > time.Second+openSettle+time.Second {
			t.Errorf("open took %v, want the new window plus %v unchanged", took, openSettle)
		}
	})
}

// busySandbox is a fake whose desktop's programs are at work until
// busyUntil: wait_idle with processes returns then (or at its timeout).
type busySandbox struct {
	*fakeSandbox
	busyUntil time.Time
	waits     int
}

func (b *busySandbox) Input(ctx context.Context, actions []api.Action) (api.InputResult, error) {
	for _, a := range actions {
		if a.Type == api.ActionWaitIdle && a.Processes {
			b.waits++
			d := min(time.Until(b.busyUntil), time.Duration(a.TimeoutMS)*time.Millisecond)
			if err := sleepCtx(ctx, d); err != nil {
				return api.InputResult{}, err
			}
		}
	}
	return api.InputResult{}, nil
}

// TestOpenOnLoadedHost: on a loaded host LibreOffice's empty frame stays
// unchanged for seconds while it reads the file; the open step does not
// take that frame for the app's window while LibreOffice is at work, and
// ends at the document's window, past the 10 s activate_window waits,
// which it activates as OSWorld's server does.
func TestOpenOnLoadedHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.files["/home/user/notes.odt"] = []byte("PK")
		b := &busySandbox{fakeSandbox: f}
		f.exec = func(req api.ExecRequest) api.ExecResult {
			if !slices.ContainsFunc(req.Cmd, func(s string) bool { return strings.Contains(s, "gio open") }) {
				return api.ExecResult{}
			}
			b.busyUntil = time.Now().Add(15 * time.Second)
			go func() {
				time.Sleep(2 * time.Second)
				f.mu.Lock()
				f.windows = append(f.windows, api.Window{ID: 8, Title: "LibreOffice 7.4", Class: "soffice.Soffice"})
				f.mu.Unlock()
				time.Sleep(12 * time.Second)
				f.mu.Lock()
				f.windows = append(f.windows, api.Window{ID: 9, Title: "notes.odt - LibreOffice Writer", Class: "libreoffice-writer.libreoffice-writer"})
				f.mu.Unlock()
			}()
			return api.ExecResult{}
		}
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/home/user/notes.odt"}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), b, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 14*time.Second || took > 16*time.Second {
			t.Errorf("open took %v, want it to end at the document's window (14 s) once LibreOffice is quiet (15 s)", took)
		}
		if b.waits == 0 {
			t.Error("open never waited for the desktop's programs")
		}
		if !slices.Equal(f.activated, []uint32{9}) {
			t.Errorf("activated %v, want the document's window 9", f.activated)
		}
	})
	// A file whose app shows no window: open waits openPatience for a
	// first window, and past it while the programs work (70 s), not for
	// OpenTimeout.
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.files["/home/user/page.html"] = []byte("<h1>x</h1>")
		b := &busySandbox{fakeSandbox: f}
		f.exec = func(req api.ExecRequest) api.ExecResult {
			b.busyUntil = time.Now().Add(70 * time.Second)
			return api.ExecResult{}
		}
		tk := parseTask(t, withConfig(`[{"type": "open", "parameters": {"path": "/home/user/page.html"}}]`), "")
		start := time.Now()
		if err := Setup(t.Context(), b, tk, Options{}); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < 70*time.Second || took > 71*time.Second {
			t.Errorf("open took %v, want it to give up once the programs are quiet (70 s)", took)
		}
	})
}

func TestSleepHonoursContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		tk := parseTask(t, withConfig(`[{"type": "sleep", "parameters": {"seconds": 30}}]`), "")
		err := Setup(ctx, newFake(), tk, Options{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Setup = %v, want deadline exceeded", err)
		}
	})
}
