package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/x11/keysym"
)

// fakeConfig sets up a fakeDesktop; a golden case gives it as env.json.
type fakeConfig struct {
	// Screen is the real screen size; default 1280x800.
	Screen *[2]int `json:"screen"`
	// Cursor is where the pointer starts.
	Cursor [2]int `json:"cursor"`
	// Files and Dirs are the sandbox's file system.
	Files map[string]string `json:"files"`
	Dirs  []string          `json:"dirs"`
	// Exec answers commands the fake does not emulate (and the commands
	// of shells kept without a ShellHost), in order; when used up, a
	// command exits 0 without output.
	Exec []api.ExecResult `json:"exec"`
	// Windows are the top-level windows.
	Windows []api.Window `json:"windows"`
	// Appear are windows that open with the first command run through
	// Exec (a terminal started by open_terminal).
	Appear []api.Window `json:"appear"`
	// Apps are the applications on the accessibility bus; when set, the
	// desktop is an AppLister too.
	Apps []api.App `json:"apps"`
	// Clipboard is the clipboard's text.
	Clipboard string `json:"clipboard"`
	// Shells are the shell sessions agentd keeps.
	Shells map[string]api.Shell `json:"shells"`
	// InputFail makes the desktop refuse an input request: the Call-th
	// request (1-based, counted from the call under test) runs its actions
	// before Index and refuses the one at Index with Message.
	InputFail *struct {
		Call    int    `json:"call"`
		Index   int    `json:"index"`
		Message string `json:"message"`
	} `json:"input_fail"`
	// Without removes optional interfaces: "window_manager", "clipboard",
	// "shell_host".
	Without []string `json:"without"`
}

// fakeDesktop is a scriptable desktop that records every call in trace.
// Input is checked as agentd checks it (api.InputRequest.Validate with
// the X keysym names), so actions agentd would refuse are refused here
// with agentd's message.
type fakeDesktop struct {
	cfg       fakeConfig
	screen    api.Screen
	cursor    api.Point
	files     map[string]string
	dirs      map[string]bool
	exec      []api.ExecResult
	clipboard string
	shells    map[string]api.Shell
	windows   []api.Window
	execs     int
	inputs    int // input requests since the trace was reset
	trace     []string
}

func newFake(cfg fakeConfig) *fakeDesktop {
	f := &fakeDesktop{
		cfg:       cfg,
		screen:    api.Screen{Width: 1280, Height: 800},
		cursor:    api.Point{X: cfg.Cursor[0], Y: cfg.Cursor[1]},
		files:     map[string]string{},
		dirs:      map[string]bool{"/": true},
		exec:      cfg.Exec,
		clipboard: cfg.Clipboard,
		shells:    map[string]api.Shell{},
		windows:   slices.Clone(cfg.Windows),
	}
	if cfg.Screen != nil {
		f.screen = api.Screen{Width: cfg.Screen[0], Height: cfg.Screen[1]}
	}
	for p, c := range cfg.Files {
		f.files[p] = c
	}
	for _, d := range cfg.Dirs {
		f.dirs[d] = true
	}
	for id, s := range cfg.Shells {
		f.shells[id] = s
	}
	return f
}

// windowDesk is the window part of the fake: listing and changing.
type windowDesk interface {
	WindowManager
	WindowControl
}

// desktop returns f with the optional interfaces cfg.Without leaves.
func (f *fakeDesktop) desktop() Desktop {
	without := func(s string) bool { return slices.Contains(f.cfg.Without, s) }
	wm, clip, sh := !without("window_manager"), !without("clipboard"), !without("shell_host")
	switch {
	case f.cfg.Apps != nil && wm && clip && sh:
		return struct {
			Desktop
			WindowManager
			ClipboardAccess
			ShellHost
			AppLister
		}{f, f, f, f, fakeApps{f}}
	case wm && clip && sh:
		return f
	case wm && clip:
		return struct {
			Desktop
			windowDesk
			ClipboardAccess
		}{f, f, f}
	case wm && sh:
		return struct {
			Desktop
			windowDesk
			ShellHost
		}{f, f, f}
	case clip && sh:
		return struct {
			Desktop
			ClipboardAccess
			ShellHost
		}{f, f, f}
	case wm:
		return struct {
			Desktop
			windowDesk
		}{f, f}
	case clip:
		return struct {
			Desktop
			ClipboardAccess
		}{f, f}
	case sh:
		return struct {
			Desktop
			ShellHost
		}{f, f}
	}
	return struct{ Desktop }{f}
}

// fakeApps lists the fake's accessibility bus.
type fakeApps struct{ f *fakeDesktop }

func (a fakeApps) Apps(context.Context) ([]api.App, error) {
	a.f.log("apps -> %d", len(a.f.cfg.Apps))
	return slices.Clone(a.f.cfg.Apps), nil
}

func (f *fakeDesktop) reset() { f.trace, f.inputs = nil, 0 }

func (f *fakeDesktop) log(format string, args ...any) {
	f.trace = append(f.trace, fmt.Sprintf(format, args...))
}

// compactJSON renders v as one line of JSON, without HTML escaping.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func knownKeysym(name string) bool { _, ok := keysym.ByName(name); return ok }

func (f *fakeDesktop) Input(_ context.Context, actions []api.Action) (api.InputResult, error) {
	f.inputs++
	f.log("input %s", compactJSON(actions))
	if err := (api.InputRequest{Actions: actions}).Validate(f.screen, knownKeysym); err != nil {
		f.log("  -> refused: %v", err)
		return api.InputResult{}, err
	}
	var res api.InputResult
	for i, a := range actions {
		if fail := f.cfg.InputFail; fail != nil && fail.Call == f.inputs && fail.Index == i {
			e := &api.Error{Code: "failed_precondition", Message: fail.Message}
			res.Results = append(res.Results, api.ActionResult{Index: i, Type: a.Type, Error: e})
			res.Error = e
			f.log("  -> action %d failed: %s", i, fail.Message)
			return res, nil
		}
		res.Results = append(res.Results, api.ActionResult{Index: i, Type: a.Type, OK: true})
		switch {
		case a.X != nil && a.Y != nil:
			f.cursor = api.Point{X: *a.X, Y: *a.Y}
		case a.Type == api.ActionDrag:
			last := a.Path[len(a.Path)-1]
			f.cursor = api.Point{X: last[0], Y: last[1]}
		}
	}
	return res, nil
}

func (f *fakeDesktop) Screenshot(_ context.Context, o api.ScreenshotOptions) (api.Screenshot, error) {
	w, h := f.screen.Width, f.screen.Height
	desc := o.Format
	if o.Region != nil {
		desc += " region=" + o.Region.String()
		w, h = o.Region.X1-o.Region.X0, o.Region.Y1-o.Region.Y0
	}
	scale := 1.0
	if o.MaxWidth > 0 {
		desc += fmt.Sprintf(" max_width=%d", o.MaxWidth)
		if o.MaxWidth < w {
			scale = float64(o.MaxWidth) / float64(w)
			w, h = o.MaxWidth, max(1, int(math.Round(float64(h)*scale)))
		}
	}
	f.log("screenshot %s -> %dx%d", desc, w, h)
	return api.Screenshot{Data: []byte("\x89PNG"), Format: api.FormatPNG, Width: w, Height: h, Scale: scale, Screen: f.screen}, nil
}

func (f *fakeDesktop) Cursor(context.Context) (api.Point, error) {
	f.log("cursor -> %d,%d", f.cursor.X, f.cursor.Y)
	return f.cursor, nil
}

func (f *fakeDesktop) Screen(context.Context) (api.Screen, error) {
	f.log("screen -> %dx%d", f.screen.Width, f.screen.Height)
	return f.screen, nil
}

// Exec emulates the few commands the dialects run (probing a path,
// mkdir -p, listing a directory, a command of a shell kept without a
// ShellHost) and answers others from cfg.Exec.
func (f *fakeDesktop) Exec(_ context.Context, r api.ExecRequest) (api.ExecResult, error) {
	c := r.Cmd
	if f.execs++; f.execs == 1 {
		f.windows = append(f.windows, f.cfg.Appear...)
	}
	switch {
	case len(c) == 5 && c[0] == "sh" && strings.Contains(c[2], `[ -d "$1" ]`):
		kind := "none"
		if f.dirs[c[4]] {
			kind = "dir"
		} else if _, ok := f.files[c[4]]; ok {
			kind = "file"
		}
		f.log("exec probe %s -> %s", c[4], kind)
		return api.ExecResult{Stdout: kind + "\n"}, nil
	case len(c) == 3 && c[0] == "mkdir" && c[1] == "-p":
		f.log("exec mkdir -p %s", c[2])
		f.dirs[c[2]] = true
		return api.ExecResult{}, nil
	case len(c) > 2 && c[0] == "find":
		var out []string
		for p := range f.dirs {
			if strings.HasPrefix(p, c[1]) {
				out = append(out, p)
			}
		}
		for p := range f.files {
			if strings.HasPrefix(p, c[1]+"/") {
				out = append(out, p)
			}
		}
		sort.Strings(out)
		f.log("exec find %s", c[1])
		return api.ExecResult{Stdout: strings.Join(out, "\n") + "\n"}, nil
	case len(c) == 6 && c[0] == "bash" && c[2] == fallbackScript:
		// The script runs the command in directory c[4] and prints the
		// directory it ends in; "cd DIR" is the one command emulated.
		dir := c[4]
		if dir == "" {
			dir = "/home/user"
		}
		var res api.ExecResult
		if to, ok := strings.CutPrefix(c[5], "cd "); ok {
			dir = strings.TrimSpace(to)
		} else {
			res = f.nextExec()
		}
		f.log("exec bash-session dir=%q command=%q -> exit %d", c[4], c[5], res.ExitCode)
		res.Stdout += "\n" + pwdMarker + dir + "\n"
		return res, nil
	}
	res := f.nextExec()
	f.log("exec %s -> exit %d", compactJSON(c), res.ExitCode)
	return res, nil
}

func (f *fakeDesktop) nextExec() api.ExecResult {
	if len(f.exec) == 0 {
		return api.ExecResult{}
	}
	res := f.exec[0]
	f.exec = f.exec[1:]
	return res
}

func (f *fakeDesktop) ReadFile(_ context.Context, p string) ([]byte, error) {
	c, ok := f.files[p]
	if !ok {
		f.log("read_file %s -> not found", p)
		return nil, errdefs.ErrNotFound.WithMessage("no file " + p)
	}
	f.log("read_file %s -> %d bytes", p, len(c))
	return []byte(c), nil
}

func (f *fakeDesktop) WriteFile(_ context.Context, p string, data []byte) error {
	f.log("write_file %s %q", p, data)
	f.files[p] = string(data)
	return nil
}

func (f *fakeDesktop) Windows(context.Context) ([]api.Window, error) {
	f.log("windows -> %d", len(f.windows))
	out := slices.Clone(f.windows)
	for i := range out {
		out[i].Bounds, out[i].Minimized, out[i].Maximized = nil, false, false
	}
	return out, nil
}

func (f *fakeDesktop) ActivateWindow(_ context.Context, id uint32) error {
	f.log("activate_window %d", id)
	return nil
}

func (f *fakeDesktop) findWindow(id uint32) (int, error) {
	i := slices.IndexFunc(f.windows, func(w api.Window) bool { return w.ID == id })
	if i < 0 {
		return -1, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("window %d: x11: no window %#x", id, id))
	}
	return i, nil
}

// Window answers a window of cfg.Windows; one without bounds is at 0,0,
// 640x480.
func (f *fakeDesktop) Window(_ context.Context, id uint32) (api.Window, error) {
	i, err := f.findWindow(id)
	if err != nil {
		f.log("window %#x -> not found", id)
		return api.Window{}, err
	}
	w := f.windows[i]
	if w.Bounds == nil {
		w.Bounds = &api.Box{W: 640, H: 480}
	}
	f.log("window %#x -> %d,%d %dx%d active=%v minimized=%v maximized=%v", id, w.Bounds.X, w.Bounds.Y, w.Bounds.W, w.Bounds.H, w.Active, w.Minimized, w.Maximized)
	return w, nil
}

// ChangeWindow does what a window manager would, at once.
func (f *fakeDesktop) ChangeWindow(_ context.Context, id uint32, action string, place api.WindowPlacement) error {
	if action == api.WindowMoveResize {
		f.log("change_window %#x %s %s", id, action, compactJSON(place))
	} else {
		f.log("change_window %#x %s", id, action)
	}
	i, err := f.findWindow(id)
	if err != nil {
		return err
	}
	w := &f.windows[i]
	if w.Bounds == nil {
		w.Bounds = &api.Box{W: 640, H: 480}
	}
	b := *w.Bounds
	switch action {
	case api.WindowActivate:
		for j := range f.windows {
			f.windows[j].Active = j == i
		}
		w.Minimized = false
	case api.WindowClose:
		f.windows = slices.Delete(f.windows, i, i+1)
		return nil
	case api.WindowMinimize:
		w.Minimized, w.Active = true, false
	case api.WindowMaximize:
		w.Maximized, b = true, api.Box{W: f.screen.Width, H: f.screen.Height}
	case api.WindowRestore:
		w.Minimized, w.Maximized = false, false
	case api.WindowMoveResize:
		if err := place.Validate(); err != nil {
			return err
		}
		for _, v := range []struct{ dst, src *int }{{&b.X, place.X}, {&b.Y, place.Y}, {&b.W, place.Width}, {&b.H, place.Height}} {
			if v.src != nil {
				*v.dst = *v.src
			}
		}
	}
	w.Bounds = &b
	return nil
}

func (f *fakeDesktop) Clipboard(context.Context) (string, error) {
	f.log("clipboard -> %q", f.clipboard)
	return f.clipboard, nil
}

func (f *fakeDesktop) SetClipboard(_ context.Context, text string) error {
	f.log("set_clipboard %q", text)
	f.clipboard = text
	return nil
}

func (f *fakeDesktop) ShellExec(_ context.Context, id string, r api.ShellExecRequest) (api.Shell, error) {
	f.log("shell_exec %s %s", id, compactJSON(r))
	s, ok := f.shells[id]
	if !ok {
		s = api.Shell{ID: id, ExitCode: new(0)}
	}
	s.ID, s.Command = id, r.Command
	if r.Dir != "" {
		s.Dir = r.Dir
	}
	f.shells[id] = s
	return s, nil
}

func (f *fakeDesktop) shell(op, id string) (api.Shell, error) {
	s, ok := f.shells[id]
	if !ok {
		f.log("%s %s -> not found", op, id)
		return api.Shell{}, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("no shell session %q", id))
	}
	return s, nil
}

func (f *fakeDesktop) ShellView(_ context.Context, id string) (api.Shell, error) {
	s, err := f.shell("shell_view", id)
	if err == nil {
		f.log("shell_view %s", id)
	}
	return s, err
}

func (f *fakeDesktop) ShellWait(_ context.Context, id string, r api.ShellWaitRequest) (api.Shell, error) {
	s, err := f.shell("shell_wait", id)
	if err == nil {
		f.log("shell_wait %s %s", id, compactJSON(r))
	}
	return s, err
}

func (f *fakeDesktop) ShellWrite(_ context.Context, id string, r api.ShellWriteRequest) (api.Shell, error) {
	s, err := f.shell("shell_write", id)
	if err != nil {
		return s, err
	}
	f.log("shell_write %s %s", id, compactJSON(r))
	if !s.Running {
		return api.Shell{}, errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("no process is running in shell session %q", id))
	}
	s.Output += r.Input
	if r.PressEnter {
		s.Output += "\n"
	}
	f.shells[id] = s
	return s, nil
}

func (f *fakeDesktop) ShellKill(_ context.Context, id string) (api.Shell, error) {
	s, err := f.shell("shell_kill", id)
	if err != nil {
		return s, err
	}
	f.log("shell_kill %s", id)
	if s.Running {
		s.Running, s.ExitCode = false, new(137)
	}
	f.shells[id] = s
	return s, nil
}
