package osworld

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task/vm"
)

// Timeouts of the commands the routes run, as OSWorld's server bounds
// them.
const (
	executeTimeout = 120 * time.Second
	scriptTimeout  = 30 * time.Second
	helperTimeout  = 30 * time.Second
)

// handler serves the routes of one session.
type handler struct {
	sess *runner.Session
	vm   *vm.VM // OSWorld's guest operations on sess

	recMu    sync.Mutex
	recPID   string // pid of the ffmpeg recording, empty when none
	recFile  string
	recCount int
}

// Handler returns OSWorld's environment-server routes over sess, at the
// root: what [Start] serves. It is safe for concurrent use.
func Handler(sess *runner.Session) http.Handler {
	h := &handler{sess: sess, vm: vm.New(sess)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /execute", h.execute)
	mux.HandleFunc("POST /setup/execute", h.execute)
	mux.HandleFunc("POST /execute_with_verification", h.executeVerified)
	mux.HandleFunc("POST /setup/execute_with_verification", h.executeVerified)
	mux.HandleFunc("POST /setup/launch", h.launch)
	mux.HandleFunc("GET /screenshot", h.screenshot)
	mux.HandleFunc("GET /terminal", h.terminal)
	mux.HandleFunc("GET /accessibility", h.accessibility)
	mux.HandleFunc("POST /screen_size", h.screenSize)
	mux.HandleFunc("POST /window_size", h.windowSize)
	mux.HandleFunc("POST /desktop_path", h.desktopPath)
	mux.HandleFunc("POST /wallpaper", h.wallpaper)
	mux.HandleFunc("POST /list_directory", h.listDirectory)
	mux.HandleFunc("POST /file", h.file)
	mux.HandleFunc("POST /setup/upload", h.upload)
	mux.HandleFunc("GET /platform", h.platform)
	mux.HandleFunc("GET /cursor_position", h.cursorPosition)
	mux.HandleFunc("POST /setup/change_wallpaper", h.changeWallpaper)
	mux.HandleFunc("POST /setup/download_file", h.downloadFile)
	mux.HandleFunc("POST /setup/open_file", h.openFile)
	mux.HandleFunc("POST /setup/activate_window", h.activateWindow)
	mux.HandleFunc("POST /setup/close_window", h.closeWindow)
	mux.HandleFunc("POST /start_recording", h.startRecording)
	mux.HandleFunc("POST /end_recording", h.endRecording)
	mux.HandleFunc("POST /run_python", h.runPython)
	mux.HandleFunc("POST /run_bash_script", h.runBashScript)
	return mux
}

// Answer shapes.

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// text answers a plain string, as OSWorld's server does for most setup
// routes.
func text(w http.ResponseWriter, status int, s string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, s)
}

// statusError is OSWorld's {"status":"error","message"} answer.
func statusError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"status": "error", "message": msg})
}

// fieldError is OSWorld's {"error": ...} answer.
func fieldError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decode reads a JSON body into v; a body that is not JSON is false
// after answering 400.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		statusError(w, http.StatusBadRequest, "body: want a JSON object: "+err.Error())
		return false
	}
	return true
}

// Sandbox helpers.

func (h *handler) exec(ctx context.Context, cmd []string, timeout time.Duration, dir, stdin string) (api.ExecResult, error) {
	return h.sess.Exec(ctx, api.ExecRequest{Cmd: cmd, TimeoutMS: int(timeout / time.Millisecond), Dir: dir, Stdin: stdin})
}

// homeDir is the desktop user's home in the sandbox.
func (h *handler) homeDir(ctx context.Context) string {
	home, err := h.vm.Home(ctx)
	if err != nil {
		return "/home/user"
	}
	return home
}

// expand resolves p as OSWorld's server does,
// os.path.expandvars(os.path.expanduser(p)); p as it is when the sandbox
// cannot be asked.
func (h *handler) expand(ctx context.Context, p string) string {
	if x, err := h.vm.ExpandPath(ctx, p); err == nil {
		return x
	}
	return p
}

// exists reports whether p exists in the sandbox (as a directory when
// dir).
func (h *handler) exists(ctx context.Context, p string, dir bool) bool {
	ok, err := h.vm.Exists(ctx, p, dir)
	return err == nil && ok
}

// detach starts argv in the sandbox in its own session, without waiting
// for it; a program that cannot be found is an error.
func (h *handler) detach(ctx context.Context, argv []string) error {
	res, err := h.vm.Launch(ctx, argv, helperTimeout)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return errors.New(strings.TrimSpace(res.Stderr))
	}
	return nil
}

// commandRequest is the body of /execute, /setup/execute and
// /setup/launch: command is a list of arguments or, with shell or as a
// string, a command line.
type commandRequest struct {
	Command json.RawMessage `json:"command"`
	Shell   bool            `json:"shell"`
}

// argv turns a command request into the program and arguments to run,
// as OSWorld's server does ([vm.VM.Command]), and the command as its
// answers show it.
func (h *handler) argv(ctx context.Context, req commandRequest) ([]string, string, error) {
	var command any = ""
	if len(req.Command) > 0 && string(req.Command) != "null" {
		v, err := py.DecodeJSON(req.Command)
		if err != nil {
			return nil, "", errors.New("command: want a string or a list of strings")
		}
		command = v
	}
	argv, err := h.vm.Command(ctx, command, req.Shell)
	if err != nil {
		return nil, "", err
	}
	return argv, strings.TrimSuffix(vm.LaunchMessage(command, argv, req.Shell), " launched successfully"), nil
}

func (h *handler) execute(w http.ResponseWriter, r *http.Request) {
	var req commandRequest
	if !decode(w, r, &req) {
		return
	}
	res, ok := h.run(w, r, req)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "output": res.Stdout, "error": res.Stderr, "returncode": res.ExitCode})
}

// run executes a command request; on failure it has answered 500 as
// OSWorld's server does when subprocess raises.
func (h *handler) run(w http.ResponseWriter, r *http.Request, req commandRequest) (api.ExecResult, bool) {
	argv, shown, err := h.argv(r.Context(), req)
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return api.ExecResult{}, false
	}
	res, err := h.exec(r.Context(), argv, executeTimeout, "", "")
	switch {
	case err != nil:
		statusError(w, http.StatusInternalServerError, err.Error())
		return res, false
	case notStarted(res):
		statusError(w, http.StatusInternalServerError, res.Stderr)
		return res, false
	case res.TimedOut:
		statusError(w, http.StatusInternalServerError, fmt.Sprintf("command %q timed out after %s", shown, executeTimeout))
		return res, false
	}
	return res, true
}

// notStarted reports agentd's answer for a program that could not start
// (exit 127 with Go's exec error), where Python's subprocess raises.
func notStarted(res api.ExecResult) bool {
	return res.ExitCode == 127 && res.Stdout == "" &&
		(strings.HasPrefix(res.Stderr, "fork/exec ") || strings.HasPrefix(res.Stderr, "exec: "))
}

// verifyRequest is the body of the execute_with_verification routes: a
// command, then a condition polled until it holds or max_wait_time
// seconds pass.
type verifyRequest struct {
	commandRequest
	Verification struct {
		WindowExists   string `json:"window_exists"`
		CommandSuccess string `json:"command_success"`
	} `json:"verification"`
	MaxWaitTime   *float64 `json:"max_wait_time"`
	CheckInterval *float64 `json:"check_interval"`
}

func (h *handler) executeVerified(w http.ResponseWriter, r *http.Request) {
	var req verifyRequest
	if !decode(w, r, &req) {
		return
	}
	res, ok := h.run(w, r, req.commandRequest)
	if !ok {
		return
	}
	out := map[string]any{"status": "success", "output": res.Stdout, "error": res.Stderr, "returncode": res.ExitCode}
	v := req.Verification
	if v.WindowExists == "" && v.CommandSuccess == "" {
		writeJSON(w, http.StatusOK, out)
		return
	}
	maxWait, every := 10*time.Second, time.Second
	if req.MaxWaitTime != nil && *req.MaxWaitTime >= 0 {
		maxWait = time.Duration(*req.MaxWaitTime * float64(time.Second))
	}
	if req.CheckInterval != nil && *req.CheckInterval > 0 {
		every = time.Duration(*req.CheckInterval * float64(time.Second))
	}
	start := time.Now()
	for {
		if h.verified(r.Context(), v.WindowExists, v.CommandSuccess) {
			out["verification"] = "passed"
			out["wait_time"] = time.Since(start).Seconds()
			writeJSON(w, http.StatusOK, out)
			return
		}
		if time.Since(start)+every > maxWait {
			break
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(every):
		}
	}
	out["status"] = "verification_failed"
	out["verification"] = "failed"
	out["message"] = fmt.Sprintf("verification did not pass within %s", maxWait)
	writeJSON(w, http.StatusInternalServerError, out)
}

func (h *handler) verified(ctx context.Context, window, command string) bool {
	if window != "" {
		wins, err := h.sess.Windows(ctx)
		if err != nil || len(vm.MatchWindows(wins, window, false, false)) == 0 {
			return false
		}
	}
	if command != "" {
		res, err := h.exec(ctx, []string{"sh", "-c", command}, helperTimeout, "", "")
		if err != nil || res.ExitCode != 0 {
			return false
		}
	}
	return true
}

func (h *handler) launch(w http.ResponseWriter, r *http.Request) {
	var req commandRequest
	if !decode(w, r, &req) {
		return
	}
	argv, shown, err := h.argv(r.Context(), req)
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if err := h.detach(r.Context(), argv); err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	text(w, http.StatusOK, shown+" launched successfully")
}

func (h *handler) screenshot(w http.ResponseWriter, r *http.Request) {
	shot, err := h.sess.Screenshot(r.Context(), api.ScreenshotOptions{Format: api.FormatPNG})
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Content-Length", strconv.Itoa(len(shot.Data)))
	_, _ = w.Write(shot.Data)
}

// terminal answers the text of the focused terminal of the active window
// in the accessibility tree, or a null output when there is none.
func (h *handler) terminal(w http.ResponseWriter, r *http.Request) {
	var out *string
	if x, err := h.sess.AccessibilityXML(r.Context(), ""); err == nil {
		out, _ = vm.TerminalOutput(x)
	}
	writeJSON(w, http.StatusOK, map[string]any{"output": out, "status": "success"})
}

// accessibility answers the desktop's accessibility tree in OSWorld's
// XML (agentd reads it over AT-SPI), or an empty desktop-frame, the tree
// of a desktop whose applications expose nothing, when it cannot be read.
func (h *handler) accessibility(w http.ResponseWriter, r *http.Request) {
	if x, err := h.sess.AccessibilityXML(r.Context(), ""); err == nil && x != "" {
		writeJSON(w, http.StatusOK, map[string]string{"AT": x})
		return
	}
	var b strings.Builder
	b.WriteString("<desktop-frame")
	for _, ns := range api.A11yNamespaces {
		fmt.Fprintf(&b, ` xmlns:%s="%s"`, ns.Prefix, ns.URI)
	}
	b.WriteString("/>")
	writeJSON(w, http.StatusOK, map[string]string{"AT": b.String()})
}

func (h *handler) screenSize(w http.ResponseWriter, r *http.Request) {
	scr, err := h.sess.Screen(r.Context())
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"width": scr.Width, "height": scr.Height})
}

func (h *handler) windowSize(w http.ResponseWriter, r *http.Request) {
	class := r.FormValue("app_class_name")
	if _, ok := r.Form["app_class_name"]; !ok {
		fieldError(w, http.StatusBadRequest, "app_class_name is required")
		return
	}
	width, height, ok, err := h.vm.WindowSize(r.Context(), class)
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if ok {
		writeJSON(w, http.StatusOK, map[string]int{"width": width, "height": height})
		return
	}
	// OSWorld's server fails (500) when no window has the class.
	text(w, http.StatusInternalServerError, fmt.Sprintf("no window of class %q", class))
}

func (h *handler) desktopPath(w http.ResponseWriter, r *http.Request) {
	p := h.homeDir(r.Context()) + "/Desktop"
	if !h.exists(r.Context(), p, true) {
		fieldError(w, http.StatusNotFound, "desktop path not found: "+p)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"desktop_path": p})
}

func (h *handler) wallpaper(w http.ResponseWriter, r *http.Request) {
	p, err := h.vm.WallpaperPath(r.Context())
	if err != nil || p == "" {
		text(w, http.StatusNotFound, "wallpaper file not found")
		return
	}
	b, err := h.sess.ReadFile(r.Context(), p)
	if err != nil {
		text(w, http.StatusInternalServerError, "cannot serve the wallpaper file: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(b)
}

func (h *handler) listDirectory(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if !decode(w, r, &req) {
		return
	}
	raw, ok := req["path"]
	if !ok {
		fieldError(w, http.StatusBadRequest, "missing 'path' parameter")
		return
	}
	start, _ := raw.(string)
	tree, ok, err := h.vm.ListDirectory(r.Context(), start, executeTimeout)
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if start == "" || !ok {
		fieldError(w, http.StatusBadRequest, "path: not a directory")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"directory_tree": tree.Value()})
}

func (h *handler) file(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseMultipartForm(1 << 20)
	if _, ok := r.Form["file_path"]; !ok {
		fieldError(w, http.StatusBadRequest, "file_path is required")
		return
	}
	p := h.expand(r.Context(), r.FormValue("file_path"))
	b, err := h.sess.ReadFile(r.Context(), p)
	switch {
	case errdefs.IsNotFound(err):
		fieldError(w, http.StatusNotFound, "File not found")
		return
	case err != nil:
		fieldError(w, http.StatusInternalServerError, err.Error())
		return
	}
	ctype := mime.TypeByExtension(path.Ext(p))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(p)}))
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func (h *handler) upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, api.MaxFileSize+1<<20)
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		fieldError(w, http.StatusBadRequest, "file_path and file_data are required: "+err.Error())
		return
	}
	f, _, err := r.FormFile("file_data")
	if _, ok := r.MultipartForm.Value["file_path"]; !ok || err != nil {
		fieldError(w, http.StatusBadRequest, "file_path and file_data are required")
		return
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		fieldError(w, http.StatusBadRequest, "file_data: "+err.Error())
		return
	}
	if err := h.vm.Upload(r.Context(), r.FormValue("file_path"), b); err != nil {
		text(w, http.StatusInternalServerError, "upload failed: "+err.Error())
		return
	}
	text(w, http.StatusOK, "File Uploaded")
}

func (h *handler) platform(w http.ResponseWriter, r *http.Request) {
	text(w, http.StatusOK, "Linux")
}

// cursorPosition answers [x, y]. (OSWorld's own route returns a Python
// tuple, which its framework cannot serialise; JSON is what a client can
// read.)
func (h *handler) cursorPosition(w http.ResponseWriter, r *http.Request) {
	p, err := h.sess.Cursor(r.Context())
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, []int{p.X, p.Y})
}

// pathRequest is the body of the setup routes naming a path.
type pathRequest struct {
	Path string `json:"path"`
	URL  string `json:"url"`
}

func (h *handler) changeWallpaper(w http.ResponseWriter, r *http.Request) {
	var req pathRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Path == "" {
		text(w, http.StatusBadRequest, "path: not supplied")
		return
	}
	p, err := h.vm.ChangeWallpaper(r.Context(), req.Path)
	switch {
	case errdefs.IsNotFound(err):
		text(w, http.StatusNotFound, "File not found: "+p)
		return
	case err != nil:
		text(w, http.StatusInternalServerError, "Failed to change wallpaper. Error: "+err.Error())
		return
	}
	text(w, http.StatusOK, "Wallpaper changed successfully")
}

// downloadScript fetches argv[1] to argv[2] inside the sandbox, with
// three tries, so that the sandbox's own network decides.
const downloadScript = `import sys, urllib.request, shutil
err = None
for _ in range(3):
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=60) as r, open(sys.argv[2], "wb") as f:
            shutil.copyfileobj(r, f)
        sys.exit(0)
    except Exception as e:
        err = e
print(err, file=sys.stderr)
sys.exit(1)
`

func (h *handler) downloadFile(w http.ResponseWriter, r *http.Request) {
	var req pathRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Path == "" || req.URL == "" {
		text(w, http.StatusBadRequest, "path or url: not supplied")
		return
	}
	p := h.expand(r.Context(), req.Path)
	_, _ = h.exec(r.Context(), []string{"mkdir", "-p", path.Dir(p)}, helperTimeout, "", "")
	res, err := h.exec(r.Context(), []string{"python3", "-c", downloadScript, req.URL, p}, 4*time.Minute, "", "")
	if err != nil || res.ExitCode != 0 {
		why := res.Stderr
		if err != nil {
			why = err.Error()
		}
		text(w, http.StatusInternalServerError, fmt.Sprintf("download of %s failed after 3 tries: %s", req.URL, strings.TrimSpace(why)))
		return
	}
	text(w, http.StatusOK, "File downloaded successfully")
}

func (h *handler) openFile(w http.ResponseWriter, r *http.Request) {
	var req pathRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Path == "" {
		text(w, http.StatusBadRequest, "path: not supplied")
		return
	}
	p := h.expand(r.Context(), req.Path)
	if !h.exists(r.Context(), p, false) {
		text(w, http.StatusNotFound, "File not found: "+p)
		return
	}
	res, err := h.vm.OpenFile(r.Context(), p)
	if err == nil && res.ExitCode != 0 {
		err = errors.New(strings.TrimSpace(res.Stderr))
	}
	if err != nil {
		text(w, http.StatusInternalServerError, fmt.Sprintf("cannot open %s: %v", p, err))
		return
	}
	text(w, http.StatusOK, "File opened successfully")
}

// windowRequest is the body of /setup/activate_window and
// /setup/close_window.
type windowRequest struct {
	WindowName *string `json:"window_name"`
	Strict     bool    `json:"strict"`
	ByClass    bool    `json:"by_class"`
}

func (h *handler) windowAction(w http.ResponseWriter, r *http.Request, close bool) {
	var req windowRequest
	if !decode(w, r, &req) {
		return
	}
	if req.WindowName == nil || (*req.WindowName == "" && !close) {
		text(w, http.StatusBadRequest, "window_name required")
		return
	}
	act := h.vm.ActivateWindow
	if close {
		act = h.vm.CloseWindow
	}
	if err := act(r.Context(), *req.WindowName, req.Strict, req.ByClass); err != nil {
		text(w, http.StatusInternalServerError, err.Error())
		return
	}
	if close {
		text(w, http.StatusOK, "Window closed successfully.")
		return
	}
	text(w, http.StatusOK, "Window activated successfully")
}

func (h *handler) activateWindow(w http.ResponseWriter, r *http.Request) { h.windowAction(w, r, false) }
func (h *handler) closeWindow(w http.ResponseWriter, r *http.Request)    { h.windowAction(w, r, true) }

func (h *handler) startRecording(w http.ResponseWriter, r *http.Request) {
	h.recMu.Lock()
	defer h.recMu.Unlock()
	if h.recPID != "" {
		statusError(w, http.StatusBadRequest, "a recording is already in progress")
		return
	}
	scr, err := h.sess.Screen(r.Context())
	if err != nil {
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h.recCount++
	file := fmt.Sprintf("/tmp/deskrun-osworld-recording-%d.mp4", h.recCount)
	script := `command -v ffmpeg >/dev/null 2>&1 || { echo "ffmpeg is not installed in the sandbox: recording is unavailable" >&2; exit 127; }
setsid ffmpeg -nostdin -y -f x11grab -draw_mouse 1 -video_size "$1" -i "$DISPLAY" -c:v libx264 -pix_fmt yuv420p -r 30 "$2" </dev/null >/dev/null 2>&1 &
echo $!`
	res, err := h.exec(r.Context(), []string{"sh", "-c", script, "sh", fmt.Sprintf("%dx%d", scr.Width, scr.Height), file}, helperTimeout, "", "")
	switch {
	case err != nil:
		statusError(w, http.StatusInternalServerError, err.Error())
		return
	case res.ExitCode != 0:
		statusError(w, http.StatusInternalServerError, strings.TrimSpace(res.Stderr))
		return
	}
	h.recPID, h.recFile = strings.TrimSpace(res.Stdout), file
	writeJSON(w, http.StatusOK, map[string]string{"status": "success", "message": "Started recording."})
}

func (h *handler) endRecording(w http.ResponseWriter, r *http.Request) {
	h.recMu.Lock()
	defer h.recMu.Unlock()
	if h.recPID == "" {
		statusError(w, http.StatusBadRequest, "no recording in progress to stop")
		return
	}
	pid, file := h.recPID, h.recFile
	h.recPID, h.recFile = "", ""
	// SIGINT lets ffmpeg finish the file; wait up to 15 s for it to exit.
	script := `kill -INT "$1" 2>/dev/null || exit 0
for i in $(seq 150); do kill -0 "$1" 2>/dev/null || exit 0; sleep 0.1; done
kill -KILL "$1" 2>/dev/null; exit 0`
	_, _ = h.exec(r.Context(), []string{"sh", "-c", script, "sh", pid}, helperTimeout, "", "")
	b, err := h.sess.ReadFile(r.Context(), file)
	if err != nil || len(b) == 0 {
		text(w, http.StatusNotFound, "recording failed")
		return
	}
	_, _ = h.exec(r.Context(), []string{"rm", "-f", file}, helperTimeout, "", "")
	w.Header().Set("Content-Type", "video/mp4")
	w.Header().Set("Content-Disposition", `attachment; filename=recording.mp4`)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func (h *handler) runPython(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code *string `json:"code"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Code == nil || *req.Code == "" {
		statusError(w, http.StatusBadRequest, "code: required")
		return
	}
	res, err := h.exec(r.Context(), []string{"python3", "-"}, scriptTimeout, "", *req.Code)
	h.scriptAnswer(w, res, err)
}

func (h *handler) runBashScript(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Script     *string  `json:"script"`
		Timeout    *float64 `json:"timeout"`
		WorkingDir string   `json:"working_dir"`
	}
	if !decode(w, r, &req) {
		return
	}
	if req.Script == nil || *req.Script == "" {
		statusError(w, http.StatusBadRequest, "script: required")
		return
	}
	timeout := scriptTimeout
	if req.Timeout != nil && *req.Timeout > 0 {
		timeout = min(time.Duration(*req.Timeout*float64(time.Second)), api.MaxExecMS*time.Millisecond)
	}
	dir := ""
	if req.WorkingDir != "" {
		// main.py expands ~ here, not variables.
		dir = req.WorkingDir
		if x, err := h.vm.ExpandUser(r.Context(), dir); err == nil {
			dir = x
		}
	}
	res, err := h.exec(r.Context(), []string{"bash", "-c", *req.Script}, timeout, dir, "")
	h.scriptAnswer(w, res, err)
}

// scriptAnswer is the answer of /run_python and /run_bash_script:
// status "success" when the script exited 0, else "error", with its
// output, error output and exit code.
func (h *handler) scriptAnswer(w http.ResponseWriter, res api.ExecResult, err error) {
	switch {
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": "error", "output": "", "error": err.Error(), "returncode": -1})
		return
	case res.TimedOut:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": "error", "output": res.Stdout, "error": "the script timed out", "returncode": -1})
		return
	}
	status := "success"
	if res.ExitCode != 0 {
		status = "error"
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": status, "output": res.Stdout, "error": res.Stderr, "returncode": res.ExitCode})
}
