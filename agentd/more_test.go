package agentd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
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

// runXvfb starts an Xvfb of its own on display (a free one when empty)
// and returns the display and a function that kills it and waits.
func runXvfb(t *testing.T, display string) (string, func()) {
	t.Helper()
	// -noreset: the server stays up, unchanged, when its last client leaves.
	args := []string{"-screen", "0", "640x480x24", "-nolisten", "tcp", "-noreset"}
	if display != "" {
		args = append([]string{display}, args...)
	} else {
		args = append(args, "-displayfd", "1")
	}
	cmd := exec.Command("Xvfb", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	}
	t.Cleanup(stop)
	if display == "" {
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatalf("Xvfb -displayfd: %v", err)
		}
		display = ":" + strings.TrimSpace(line)
	}
	return display, stop
}

// TestAttachReconnects: attached to an X server it did not start, agentd
// reports it down while it is gone and reaches it again once it is back.
func TestAttachReconnects(t *testing.T) {
	needX(t)
	display, stopX := runXvfb(t, "")
	var s *Server
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err = Start(t.Context(), Config{Addr: "127.0.0.1:0", Display: display, Token: token})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	c := client.NewClient("http://"+s.Addr(), token, nil)
	ctx := t.Context()
	if h, err := c.Health(ctx); err != nil || h.Display != display || h.Screen != (api.Screen{Width: 640, Height: 480}) {
		t.Fatalf("health %+v %v", h, err)
	}
	stopX()
	// Hold the display number while its server is down: Xvfb takes the
	// lock file of a live process as "in use", so another test's Xvfb
	// choosing a free display cannot take it, and agentd reach that one.
	lock := fmt.Sprintf("/tmp/.X%s-lock", strings.TrimPrefix(display, ":"))
	os.Remove(lock) // the killed server's, read-only
	if err := os.WriteFile(lock, fmt.Appendf(nil, "%10d\n", os.Getpid()), 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(lock) })
	// Input on the connection to the server that just died fails as
	// unavailable, not as a refused action, and does not hang.
	if _, err := c.Input(ctx, []api.Action{{Type: "move", X: api.Int(1), Y: api.Int(2)}}); !errdefs.IsUnavailable(err) {
		t.Errorf("input with the X server gone: %v, want unavailable", err)
	}
	waitFor(t, "healthz to go red", func() bool { _, err := c.Health(ctx); return err != nil })
	if _, err := c.Cursor(ctx); !errdefs.IsUnavailable(err) {
		t.Errorf("cursor with the X server gone: %v, want unavailable", err)
	}
	os.Remove(lock)
	runXvfb(t, display)
	waitFor(t, "healthz to go green again", func() bool { _, err := c.Health(ctx); return err == nil })
	if _, err := c.Input(ctx, []api.Action{{Type: "move", X: api.Int(7), Y: api.Int(8)}}); err != nil {
		t.Fatal(err)
	}
	if p, err := c.Cursor(ctx); err != nil || p != (api.Point{X: 7, Y: 8}) {
		t.Errorf("cursor after reconnecting = %v %v, want (7,8)", p, err)
	}
}

// TestPyautoguiInExec: commands run by exec import the embedded pyautogui
// module, which drives this agentd.
func TestPyautoguiInExec(t *testing.T) {
	_, c := start(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is not installed (scripts/install-deps.sh installs it)")
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	r := sh(t, c, `python3 -c '
import pyautogui
pyautogui.PAUSE = 0
pyautogui.click(10, 10)
print(pyautogui.size(), pyautogui.position())
img = pyautogui.screenshot("`+shot+`", region=(5, 6, 30, 20))
print(img.size)
pyautogui.moveTo(100, 200)
'`)
	if want := "Size(width=1280, height=800) Point(x=10, y=10)\n(30, 20)\n"; r.Stdout != want {
		t.Errorf("python printed %q, want %q (stderr %q)", r.Stdout, want, r.Stderr)
	}
	if out := sh(t, c, "xdotool getmouselocation --shell").Stdout; !strings.Contains(out, "X=100\n") || !strings.Contains(out, "Y=200\n") {
		t.Errorf("after pyautogui.moveTo(100, 200) xdotool says %q", out)
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	if w, h, err := imageSize(b); err != nil || w != 30 || h != 20 {
		t.Errorf("saved screenshot %dx%d %v, want 30x20", w, h, err)
	}
	// agentd's errors surface as pyautogui exceptions.
	r, err = c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"python3", "-c", "import pyautogui; pyautogui.keyDown('accept')"}})
	if err != nil || r.ExitCode == 0 || !strings.Contains(r.Stderr, "PyAutoGUIException") || !strings.Contains(r.Stderr, "accept") {
		t.Errorf("unknown key: %+v %v", r, err)
	}
}

// TestClipboard: the clipboard calls read and own X selections as other
// applications see them: xclip and xsel, run in the sandbox, read what the
// API wrote and write what it reads, text and PNG images, CLIPBOARD and
// PRIMARY.
func TestClipboard(t *testing.T) {
	agentdtest.NeedX(t, "xclip", "xsel")
	s, c := start(t)
	ctx := t.Context()
	text := "héllo\nclipboard € 世界"
	if err := c.SetClipboard(ctx, text); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Clipboard(ctx); err != nil || got != text {
		t.Errorf("clipboard = %q %v, want %q", got, err, text)
	}
	if got := sh(t, c, "xclip -o -selection clipboard").Stdout; got != text {
		t.Errorf("xclip read %q, want %q", got, text)
	}
	if err := c.WriteClipboard(ctx, api.SelectionPrimary, api.ClipboardText, []byte("primary ✓")); err != nil {
		t.Fatal(err)
	}
	if got := sh(t, c, "xsel -o --primary").Stdout; got != "primary ✓" {
		t.Errorf("xsel read the primary selection as %q", got)
	}
	// xsel and xclip stay in the background as the owner after the
	// command ends; they take the selection once forked.
	sh(t, c, "printf 'from xsel: ½ 日本' | xsel -i --clipboard")
	eventually(t, "the text xsel holds", func() (bool, string) {
		got, err := c.Clipboard(ctx)
		return err == nil && got == "from xsel: ½ 日本", fmt.Sprintf("%q %v", got, err)
	})
	if _, err := c.ReadClipboard(ctx, "", api.ClipboardPNG); !errdefs.IsNotFound(err) || !strings.Contains(err.Error(), "image/png") {
		t.Errorf("an image of a text selection: %v, want not found naming image/png", err)
	}

	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	img.Set(3, 4, color.RGBA{255, 0, 0, 255})
	var pngb bytes.Buffer
	png.Encode(&pngb, img)
	if err := c.WriteClipboard(ctx, "", api.ClipboardPNG, pngb.Bytes()); err != nil {
		t.Fatal(err)
	}
	sh(t, c, "xclip -o -selection clipboard -t image/png > /tmp/from-clipboard.png")
	if got, err := c.ReadFile(ctx, "/tmp/from-clipboard.png"); err != nil || !bytes.Equal(got, pngb.Bytes()) {
		t.Errorf("xclip read %d bytes of image/png (%v), want %d", len(got), err, pngb.Len())
	}
	img.Set(5, 6, color.RGBA{0, 255, 0, 255})
	pngb.Reset()
	png.Encode(&pngb, img)
	if err := c.WriteFile(ctx, "/tmp/to-clipboard.png", pngb.Bytes()); err != nil {
		t.Fatal(err)
	}
	sh(t, c, "xclip -i -selection clipboard -t image/png /tmp/to-clipboard.png")
	eventually(t, "the image xclip holds", func() (bool, string) {
		got, err := c.ReadClipboard(ctx, api.SelectionClipboard, api.ClipboardPNG)
		return err == nil && bytes.Equal(got, pngb.Bytes()), fmt.Sprintf("%d bytes (%v), want %d", len(got), err, pngb.Len())
	})

	for _, tc := range []struct{ query, body, ctype, want string }{
		{"", "\xff\xfe", "text/plain", "body: not UTF-8"},
		{"?selection=secondary", "x", "text/plain", "selection:"},
		{"?type=image/gif", "x", "text/plain", "type:"},
		{"", "not a png", "image/png", "body: not a PNG"},
	} {
		req, _ := http.NewRequest(http.MethodPut, "http://"+s.Addr()+"/v1/clipboard"+tc.query, strings.NewReader(tc.body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", tc.ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tc.want) {
			t.Errorf("PUT%s %q: %d %s, want 400 naming %q", tc.query, tc.body, resp.StatusCode, b, tc.want)
		}
	}
}

// eventually polls cond for up to 5 s; cond reports what it saw.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %s", what, saw)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOversizedBodies: bodies over the limits are refused with 413 and a
// message naming the limit, and the server keeps serving.
func TestOversizedBodies(t *testing.T) {
	s, c := start(t)
	big := strings.Repeat("a", MaxBody+1)
	for _, tc := range []struct {
		method, path, body string
		chunked            bool // no Content-Length: the limit is met while reading
	}{
		{"POST", "/v1/input", `{"actions":[{"type":"type","text":"` + big + `"}]}`, false},
		{"POST", "/v1/exec", `{"cmd":["cat"],"stdin":"` + big + `"}`, false},
		{"PUT", "/v1/clipboard", strings.Repeat("a", MaxClipboard+1), false},
		{"PUT", "/v1/clipboard", strings.Repeat("a", MaxClipboard+1), true},
	} {
		var body io.Reader = strings.NewReader(tc.body)
		if tc.chunked {
			body = io.MultiReader(body)
		}
		req, _ := http.NewRequest(tc.method, "http://"+s.Addr()+tc.path, body)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		bufio.NewReader(resp.Body).WriteTo(&b)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(b.String(), "too_large") || !strings.Contains(b.String(), "limit") {
			t.Errorf("%s %s: %d %s, want 413 too_large naming the limit", tc.method, tc.path, resp.StatusCode, b.String())
		}
	}
	if _, err := c.Screen(t.Context()); err != nil {
		t.Errorf("not serving after oversized bodies: %v", err)
	}
}

// TestWindowManagerRestarts: a window manager that dies is started again
// on the same X server, and reported when it keeps dying.
func TestWindowManagerRestarts(t *testing.T) {
	needX(t)
	s, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, WM: "openbox", Screen: api.Screen{Width: 640, Height: 480}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	wmPid := func() int {
		s.desk.mu.RLock()
		defer s.desk.mu.RUnlock()
		if s.desk.wm == nil {
			return 0
		}
		return s.desk.wm.Process.Pid
	}
	conn, err := s.desk.get()
	if err != nil {
		t.Fatal(err)
	}
	first := wmPid()
	if first == 0 || !conn.WMRunning() {
		t.Fatalf("no window manager at start (pid %d)", first)
	}
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a new window manager", func() bool {
		p := wmPid()
		return p != 0 && p != first && conn.WMRunning()
	})
	if c, err := s.desk.get(); err != nil || c != conn {
		t.Errorf("the X connection changed when only the window manager restarted (%v)", err)
	}
}

// TestXvfbOnBusyDisplay: asked for a display that is taken, agentd fails
// to start and says why.
func TestXvfbOnBusyDisplay(t *testing.T) {
	needX(t)
	display, _ := runXvfb(t, "")
	_, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, Display: display, Token: token})
	if err == nil || !strings.Contains(err.Error(), "Xvfb exited at start: ") {
		t.Errorf("start on busy %s: %v, want Xvfb's reason", display, err)
	}
}

// TestShellBackgroundAndEdges: a command that leaves a program in the
// background finishes at once (the program keeps running and its output
// shows up later), and commands that exit, redirect their output or
// replace the exit trap still finish with all their output.
func TestShellBackgroundAndEdges(t *testing.T) {
	_, c := start(t)
	ctx := t.Context()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	t0 := time.Now()
	s, err := c.ShellExec(ctx, "bg", api.ShellExecRequest{Command: "sleep 300 & echo $! > " + pidFile + "; (sleep 0.3; echo late) & echo started", WaitMS: 10000})
	if err != nil || s.Running || s.ExitCode == nil || *s.ExitCode != 0 || s.Output != "started\n" {
		t.Fatalf("background command: %+v %v", s, err)
	}
	if d := time.Since(t0); d >= 10*time.Second {
		t.Errorf("the command took %v to count as finished: its wait ran out", d)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("background sleep %d is gone: %v", pid, err)
	}
	waitFor(t, "the background program's output", func() bool {
		s, err := c.ShellView(ctx, "bg")
		return err == nil && s.Output == "started\nlate\n"
	})
	if s, err := c.ShellExec(ctx, "bg", api.ShellExecRequest{Command: "echo next"}); err != nil || s.Output != "next\n" {
		t.Errorf("next command: %+v %v", s, err)
	}
	if _, err := c.ShellKill(ctx, "bg"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the kill to end the background program", func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z ")
	})

	for _, tc := range []struct {
		name, cmd, out string
		code           int
	}{
		{"exit", "cd " + dir + "; echo bye; exit 5", "bye\n", 5},
		{"no newline", "printf abc", "abc", 0},
		{"stdout closed", "echo shown; exec >/dev/null 2>&1; echo hidden", "shown\n", 0},
		{"own exit trap", "trap 'echo trapped' EXIT; echo hi", "hi\ntrapped\n", 0},
		{"nul bytes", `printf 'a\0b\0'`, "a\x00b\x00", 0},
	} {
		s, err := c.ShellExec(ctx, "edge", api.ShellExecRequest{Command: tc.cmd, WaitMS: 10000})
		if err != nil || s.Running || s.ExitCode == nil || *s.ExitCode != tc.code || s.Output != tc.out {
			t.Errorf("%s: %+v %v, want exit %d output %q", tc.name, s, err, tc.code, tc.out)
		}
	}
	if s, _ := c.ShellView(ctx, "edge"); s.Dir != dir {
		t.Errorf("cd before exit: dir %q, want %q", s.Dir, dir)
	}
	s, err = c.ShellExec(ctx, "big", api.ShellExecRequest{Command: "head -c 3000000 /dev/zero | tr '\\0' a; echo", WaitMS: 20000})
	if err != nil || s.Running || len(s.Output) != maxShellOutput || !strings.HasSuffix(s.Output, "a\n") {
		t.Errorf("big output: running %v len %d %v", s.Running, len(s.Output), err)
	}
	if _, err := c.ShellExec(ctx, "edge", api.ShellExecRequest{Command: "pwd", Dir: "relative"}); !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), "dir:") {
		t.Errorf("relative dir: %v", err)
	}
}

func TestMarkerPrefix(t *testing.T) {
	m := []byte("\x00end\x00")
	for _, tt := range []struct {
		data string
		want int
	}{
		{"abc", 0}, {"abc\x00", 1}, {"abc\x00en", 3}, {"\x00end", 4}, {"", 0}, {"end\x00", 1}, {"end", 0},
	} {
		if got := markerPrefix([]byte(tt.data), m); got != tt.want {
			t.Errorf("markerPrefix(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

// TestExecBackgroundKeepsWriting: a program exec leaves in the background
// may go on writing to the output it inherited without being killed for
// it (no SIGPIPE once exec has answered).
func TestExecBackgroundKeepsWriting(t *testing.T) {
	_, c := start(t)
	f := filepath.Join(t.TempDir(), "alive")
	r := sh(t, c, "(sleep 2; echo late; echo late >&2; echo alive > "+f+") & echo done")
	if r.Stdout != "done\n" || r.Stderr != "" {
		t.Errorf("exec answered %+v", r)
	}
	if _, err := os.Stat(f); err == nil {
		t.Error("exec answered after its background program's end: it waited for it")
	}
	waitFor(t, "the background program to write after its output", func() bool {
		b, _ := os.ReadFile(f)
		return string(b) == "alive\n"
	})
}

// TestFilesSpecial: the file calls refuse devices and FIFOs (without
// hanging on them) and write through symbolic links.
func TestFilesSpecial(t *testing.T) {
	_, c := start(t)
	ctx := t.Context()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero"} {
		if _, err := c.ReadFile(ctx, p); !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("read %s: %v, want invalid argument", p, err)
		}
	}
	if err := c.WriteFile(ctx, "/dev/null", []byte("x")); !errdefs.IsInvalidArgument(err) {
		t.Errorf("write /dev/null: %v, want invalid argument", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null was replaced: %v %v", st, err)
	}
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile(ctx, link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("target holds %q after writing through the link", b)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
}

// TestStoppedXvfb: an X server that stops answering turns health red
// within seconds instead of hanging it, and green once it answers again.
func TestStoppedXvfb(t *testing.T) {
	s, c := start(t)
	s.desk.mu.RLock()
	pid := s.desk.xvfb.Process.Pid
	s.desk.mu.RUnlock()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	t0 := time.Now()
	if _, err := c.Health(t.Context()); !errdefs.IsUnavailable(err) {
		t.Errorf("health of a stopped X server: %v, want unavailable", err)
	}
	if d := time.Since(t0); d > pingTimeout+2*time.Second {
		t.Errorf("health took %v", d)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	waitFor(t, "healthz to go green again", func() bool { _, err := c.Health(t.Context()); return err == nil })
}

// TestDisplayClosedToOtherUsers: the Xvfb agentd starts admits the user
// agentd runs as and root, and refuses every other user of the machine
// (local sandboxes share it with them).
func TestDisplayClosedToOtherUsers(t *testing.T) {
	s, _ := start(t)
	if out, err := exec.Command("xdpyinfo", "-display", s.Display()).CombinedOutput(); err != nil {
		t.Fatalf("xdpyinfo as agentd's user: %v\n%s", err, out)
	}
	if os.Getuid() != 0 {
		t.Skip("switching to another user needs root")
	}
	out, err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "xdpyinfo", "-display", s.Display()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unable to open display") {
		t.Errorf("xdpyinfo as nobody: %v\n%s, want refused", err, out)
	}
	// With a stolen cookie file path but no right to read it, still no.
	out, err = exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "DISPLAY="+s.Display(), "XAUTHORITY="+s.desk.xauth.client, "xdotool", "getmouselocation").CombinedOutput()
	if err == nil {
		t.Errorf("xdotool as nobody with the cookie's path: %s, want refused", out)
	}
}

// TestKillCommands: what commands left running, daemons and a fork bomb
// included, is killed on request; the desktop and exec go on.
func TestKillCommands(t *testing.T) {
	s, c := start(t)
	ctx := t.Context()
	// A daemon outside agentd's process group and tree, background
	// sleeps, and a bomb forking a child a second, capped by ulimit.
	script := `setsid sleep 900 </dev/null >/dev/null 2>&1 &
(sleep 901 &) ; (sleep 902 &)
(ulimit -u 200 2>/dev/null; b() { sleep 1; b & b; }; b) </dev/null >/dev/null 2>&1 &
echo started`
	if r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", script}}); err != nil || !strings.Contains(r.Stdout, "started") {
		t.Fatalf("exec: %v %+v", err, r)
	}
	if _, err := c.ShellExec(ctx, "s", api.ShellExecRequest{Command: "sleep 903", WaitMS: 10}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if len(s.marked()) < 5 {
		t.Fatalf("%d marked processes, want the daemon, the sleeps and the bomb", len(s.marked()))
	}
	res, err := c.Kill(ctx)
	if err != nil || res.Killed < 5 {
		t.Fatalf("kill: %+v %v", res, err)
	}
	time.Sleep(300 * time.Millisecond)
	if left := s.marked(); len(left) != 0 {
		t.Errorf("%d processes left after the kill", len(left))
	}
	for _, n := range []string{"900", "901", "902", "903"} {
		if out, _ := exec.Command("pgrep", "-f", "^sleep "+n+"$").Output(); len(out) > 0 {
			t.Errorf("sleep %s survived: %s", n, out)
		}
	}
	if r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"echo", "ok"}}); err != nil || r.Stdout != "ok\n" {
		t.Errorf("exec after kill: %v %+v", err, r)
	}
	if _, err := c.Screenshot(ctx, api.ScreenshotOptions{}); err != nil {
		t.Errorf("screenshot after kill: %v", err)
	}
	if out, err := exec.Command("xdpyinfo", "-display", s.Display()).CombinedOutput(); err != nil {
		t.Errorf("the desktop is gone: %v %s", err, out)
	}
}

// TestWindowManagerReady: with WMReady, Start returns only once the
// window manager has made that file (a leftover of an earlier start is
// removed first), not as soon as it manages windows.
func TestWindowManagerReady(t *testing.T) {
	needX(t)
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	if err := os.WriteFile(ready, nil, 0o644); err != nil { // a previous start's
		t.Fatal(err)
	}
	// openbox, then the file 1.5 s later, as a shell says it is ready
	// after it took the screen.
	wm := filepath.Join(dir, "wm")
	script := "#!/bin/sh\n(sleep 1.5; touch " + ready + ") &\nexec openbox\n"
	if err := os.WriteFile(wm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	s, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, WM: wm, WMReady: ready, Screen: api.Screen{Width: 640, Height: 480}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	if took := time.Since(t0); took < 1500*time.Millisecond {
		t.Errorf("Start returned after %v, before the window manager was ready", took)
	}
	if _, err := os.Stat(ready); err != nil {
		t.Errorf("ready file: %v", err)
	}
}

// TestFileRouteHidesOwnProcess: the file routes refuse agentd's own /proc
// entries, whatever the way there, so its token (in its environment and
// memory) cannot be read through them; other processes' entries and
// ordinary files still read.
func TestFileRouteHidesOwnProcess(t *testing.T) {
	d := agentdtest.StartAgentd(t)
	c := client.NewClient(d.URL, d.Token, nil)
	ctx := t.Context()
	pidOut, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "echo $PPID $(pgrep -P $PPID -x Xvfb)"}})
	if err != nil {
		t.Fatal(err)
	}
	pid, xvfb, _ := strings.Cut(strings.TrimSpace(pidOut.Stdout), " ")
	for _, p := range []string{
		"/proc/self/environ", "/proc/thread-self/environ", "/proc/" + pid + "/environ",
		"/proc/self/cmdline", "/proc/self/mem", "/proc/self/task/" + pid + "/environ",
		"/dev/fd/0", "/proc/" + xvfb + "/root/proc/self/environ", "/proc/self/fd/0",
	} {
		b, err := c.ReadFile(ctx, p)
		if strings.Contains(string(b), d.Token) {
			t.Errorf("%s: read the token", p)
		}
		if !errdefs.IsPermissionDenied(err) || !strings.Contains(err.Error(), "path:") {
			t.Errorf("%s: %v, want permission denied naming the path", p, err)
		}
		if err := c.WriteFile(ctx, p, []byte("x")); !errdefs.IsPermissionDenied(err) {
			t.Errorf("write %s: %v, want permission denied", p, err)
		}
	}
	if b, err := c.ReadFile(ctx, "/proc/"+xvfb+"/cmdline"); err != nil || !strings.HasPrefix(string(b), "Xvfb") {
		t.Errorf("another process's /proc entry: %q %v", b, err)
	}
	if b, err := c.ReadFile(ctx, "/proc/version"); err != nil || len(b) == 0 {
		t.Errorf("/proc/version: %q %v", b, err)
	}
}
