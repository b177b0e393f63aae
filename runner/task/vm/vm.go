// Package vm is OSWorld's guest server (desktop_env/server/main.py) on a
// deskrun sandbox: the operations OSWorld's controllers ask of the VM
// (controllers/setup.py for setup steps, controllers/python.py for
// getters), each implemented once, over the sandbox's exec, file and
// window calls.
//
// Three clients call it, as in OSWorld both controllers call one server:
// the task executor's setup steps and getters (runner/task), and the
// server/osworld routes, which only decode a request, call this package
// and encode the answer the way main.py does. What OSWorld's server does
// to its inputs is done here, the same way: paths go through
// os.path.expandvars(os.path.expanduser(p)) with the sandbox user's
// environment, command strings through shlex.split, arguments starting
// with ~/ through expanduser, windows are picked as wmctrl picks them.
// The table-driven test pins each against main.py's behaviour.
//
// The package sits below runner/task and server/osworld and imports
// neither.
package vm

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/atree"
)

// Sandbox is the part of a sandbox the guest operations use. A runner
// session and agentd's client satisfy it.
type Sandbox interface {
	Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error)
	WriteFile(ctx context.Context, path string, data []byte) error
	Windows(ctx context.Context) ([]api.Window, error)
	ActivateWindow(ctx context.Context, id uint32) error
	CloseWindow(ctx context.Context, id uint32) error
}

// AccessibilityReader is implemented by sandboxes that read the
// desktop's accessibility tree in OSWorld's XML.
type AccessibilityReader interface {
	AccessibilityXML(ctx context.Context, app string) (string, error)
}

// helperTimeout bounds the small commands the operations run.
const helperTimeout = 30 * time.Second

// VM runs OSWorld's guest operations on one sandbox. It remembers the
// desktop user's home and environment once read. It is safe for
// concurrent use.
type VM struct {
	sb Sandbox

	mu   sync.Mutex
	home string
	env  map[string]string
}

// New returns the guest operations over sb.
func New(sb Sandbox) *VM { return &VM{sb: sb} }

func (v *VM) exec(ctx context.Context, argv []string) (api.ExecResult, error) {
	return v.sb.Exec(ctx, api.ExecRequest{Cmd: argv, TimeoutMS: int(helperTimeout / time.Millisecond)})
}

// Home is the desktop user's home folder: Path.home() of OSWorld's
// server, which runs as that user. "/home/user" when the sandbox names
// none.
func (v *VM) Home(ctx context.Context) (string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.home == "" {
		res, err := v.sb.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `printf %s "$HOME"`}, TimeoutMS: 10_000})
		if err != nil {
			return "", fmt.Errorf("read home folder: %w", err)
		}
		v.home = strings.TrimSpace(res.Stdout)
		if !strings.HasPrefix(v.home, "/") {
			v.home = "/home/user"
		}
	}
	return v.home, nil
}

// environ is the desktop user's environment, read once.
func (v *VM) environ(ctx context.Context) (map[string]string, error) {
	home, err := v.Home(ctx)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.env == nil {
		res, err := v.exec(ctx, []string{"env", "-0"})
		if err != nil {
			return nil, fmt.Errorf("read environment: %w", err)
		}
		v.env = map[string]string{}
		for kv := range strings.SplitSeq(res.Stdout, "\x00") {
			if k, val, ok := strings.Cut(kv, "="); ok && k != "" {
				v.env[k] = val
			}
		}
		v.env["HOME"] = home
	}
	return v.env, nil
}

// ExpandUser implements Python's os.path.expanduser as OSWorld's server
// runs it: ~ and ~/... are the desktop user's home, ~name/... that
// user's home (left as it is when there is no such user).
func (v *VM) ExpandUser(ctx context.Context, p string) (string, error) {
	if !strings.HasPrefix(p, "~") {
		return p, nil
	}
	i := strings.IndexByte(p[1:], '/') + 1
	if i == 0 {
		i = len(p)
	}
	var home string
	if i == 1 {
		h, err := v.Home(ctx)
		if err != nil {
			return "", err
		}
		home = h
	} else {
		res, err := v.exec(ctx, []string{"getent", "passwd", p[1:i]})
		if err != nil {
			return "", fmt.Errorf("look up user %s: %w", p[1:i], err)
		}
		fields := strings.Split(strings.TrimSpace(res.Stdout), ":")
		if res.ExitCode != 0 || len(fields) < 6 {
			return p, nil
		}
		home = fields[5]
	}
	out := strings.TrimRight(home, "/") + p[i:]
	if out == "" {
		return "/", nil
	}
	return out, nil
}

// varRef is posixpath's _varprog: $name or ${name}.
var varRef = regexp.MustCompile(`\$([A-Za-z0-9_]+|\{[^}]*\})`)

// ExpandVars implements Python's os.path.expandvars with the desktop
// user's environment: $name and ${name} of a variable that is set are
// replaced, any other is left as it is.
func (v *VM) ExpandVars(ctx context.Context, p string) (string, error) {
	if !strings.Contains(p, "$") {
		return p, nil
	}
	env, err := v.environ(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	last := 0
	for _, m := range varRef.FindAllStringSubmatchIndex(p, -1) {
		name := p[m[2]:m[3]]
		if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") {
			name = name[1 : len(name)-1]
		}
		val, ok := env[name]
		if !ok {
			continue
		}
		b.WriteString(p[last:m[0]])
		b.WriteString(val)
		last = m[1]
	}
	b.WriteString(p[last:])
	return b.String(), nil
}

// ExpandPath is os.path.expandvars(os.path.expanduser(p)), what
// OSWorld's server does to the paths of /file, /setup/upload,
// /setup/change_wallpaper, /setup/download_file and /setup/open_file.
func (v *VM) ExpandPath(ctx context.Context, p string) (string, error) {
	p, err := v.ExpandUser(ctx, p)
	if err != nil {
		return "", err
	}
	return v.ExpandVars(ctx, p)
}

// Command implements what OSWorld's execute_command, launch_app and
// execute_command_with_verification (desktop_env/server/main.py) do to
// their command before subprocess runs it: command is a string or a list
// of strings (the JSON data model); without shell a string is split as
// shlex.split does; every list item starting with ~/ is expanded as
// os.path.expanduser does (with shell too); with shell, subprocess runs
// /bin/sh -c with the string, or with the list's first item as the
// script and the rest as its $0, $1, ....
func (v *VM) Command(ctx context.Context, command any, shell bool) ([]string, error) {
	var args []string
	switch c := command.(type) {
	case string:
		if shell {
			return []string{"sh", "-c", c}, nil
		}
		words, err := py.ShlexSplit(c)
		if err != nil {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("command %q: %s", c, err))
		}
		args = words
	case []any:
		for _, e := range c {
			s, _ := e.(string)
			args = append(args, s)
		}
	default:
		return nil, errdefs.ErrInvalidArgument.WithMessage("command: want a string or a list of strings")
	}
	if len(args) == 0 {
		return nil, errdefs.ErrInvalidArgument.WithMessage("command: empty")
	}
	for i, a := range args {
		if strings.HasPrefix(a, "~/") {
			home, err := v.Home(ctx)
			if err != nil {
				return nil, err
			}
			args[i] = strings.TrimRight(home, "/") + a[1:]
		}
	}
	if shell {
		return append([]string{"sh", "-c"}, args...), nil
	}
	return args, nil
}

// Exists reports whether p exists in the sandbox (a folder, with dir),
// as os.path.exists and os.path.isdir do.
func (v *VM) Exists(ctx context.Context, p string, dir bool) (bool, error) {
	flag := "-e"
	if dir {
		flag = "-d"
	}
	res, err := v.exec(ctx, []string{"test", flag, p})
	if err != nil {
		return false, err
	}
	return res.ExitCode == 0, nil
}

// detach starts "$@" in a new session with its output discarded and
// returns at once; it exits 127 when the program does not exist.
const detach = `p=$1
case "$p" in
*/*) [ -x "$p" ] || { echo "$p: not found" >&2; exit 127; } ;;
*) command -v -- "$p" >/dev/null 2>&1 || { echo "$p: command not found" >&2; exit 127; } ;;
esac
if command -v setsid >/dev/null 2>&1; then
  setsid "$@" >/dev/null 2>&1 </dev/null &
else
  "$@" >/dev/null 2>&1 </dev/null &
fi`

// Launch implements launch_app's subprocess.Popen (main.py): it starts
// argv (from [VM.Command]) in its own session without waiting for it.
// The result's exit code is 127, with a message on stderr, when the
// program does not exist (where Popen raises), 0 once it started.
func (v *VM) Launch(ctx context.Context, argv []string, timeout time.Duration) (api.ExecResult, error) {
	return v.sb.Exec(ctx, api.ExecRequest{Cmd: append([]string{"sh", "-c", detach, "sh"}, argv...), TimeoutMS: int(timeout / time.Millisecond)})
}

// opener opens $1 as OSWorld's xdg-open does on its Ubuntu GNOME VM,
// where xdg-open hands the file to "gio open": the application
// registered for the file's content type. gio comes first because a
// sandbox without a desktop environment that xdg-open recognizes runs
// its generic branch, which needs file(1) to tell the type and, when
// that is missing, opens everything in the web browser (a spreadsheet
// in Chromium, not LibreOffice Calc). Then xdg-open when the sandbox
// has it (gio knowing no application for the type), else the app that
// fits: Chromium for web pages, PDFs and images, a terminal in the
// folder for a folder, and an editor (or pager) in a terminal for
// anything else.
const opener = `f=$1
name=$(basename "$f")
if command -v gio >/dev/null 2>&1 && gio open "$f" 2>/dev/null; then exit 0; fi
if command -v xdg-open >/dev/null 2>&1; then exec xdg-open "$f"; fi
if [ -d "$f" ]; then cd "$f" && exec xterm -T "$name"; fi
case "$f" in
*.html|*.htm|*.pdf|*.svg|*.png|*.jpg|*.jpeg|*.gif|*.webp)
  for b in chromium chromium-browser google-chrome; do
    command -v "$b" >/dev/null 2>&1 && exec "$b" "$f"
  done ;;
esac
for e in "$EDITOR" vi nano less more; do
  [ -n "$e" ] && command -v "$e" >/dev/null 2>&1 && exec xterm -T "$name" -e "$e" "$f"
done
exec xterm -T "$name" -e cat "$f"`

// OpenFile implements the opening of open_file (main.py), which hands an
// existing file to xdg-open: p (expanded as [VM.ExpandPath] does) is
// started detached with the app registered for it, as [VM.Launch]
// starts a program. Waiting for its window is the caller's.
func (v *VM) OpenFile(ctx context.Context, p string) (api.ExecResult, error) {
	return v.Launch(ctx, []string{"sh", "-c", opener, "sh", p}, 0)
}

// Upload implements upload_file (main.py): data saved at p, expanded as
// [VM.ExpandPath] does, a relative path in the home folder (the server's
// working folder), its folder made first.
func (v *VM) Upload(ctx context.Context, p string, data []byte) error {
	p, err := v.ExpandPath(ctx, p)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(p, "/") {
		home, err := v.Home(ctx)
		if err != nil {
			return err
		}
		p = path.Join(home, p)
	}
	if dir := path.Dir(p); dir != "/" {
		res, err := v.exec(ctx, []string{"mkdir", "-p", "--", dir})
		if err != nil {
			return fmt.Errorf("create folder %s: %w", dir, err)
		}
		if res.ExitCode != 0 {
			return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("create folder %s: %s", dir, strings.TrimSpace(res.Stderr)))
		}
	}
	if err := v.sb.WriteFile(ctx, p, data); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// LaunchMessage is launch_app's answer (main.py): "{command if shell
// else ' '.join(command)} launched successfully", command as the request
// gave it (a list prints as Python prints it).
func LaunchMessage(command any, argv []string, shell bool) string {
	if shell {
		if s, ok := command.(string); ok {
			return s + " launched successfully"
		}
		return py.Repr(command) + " launched successfully"
	}
	return strings.Join(argv, " ") + " launched successfully"
}

// classParts splits a WM_CLASS as agentd reports it ("xterm.XTerm",
// "xterm XTerm" or just "XTerm") into instance and class.
func classParts(class string) []string {
	return strings.FieldsFunc(class, func(r rune) bool { return r == '.' || r == ' ' || r == 0 })
}

// wmClassValue is a quoted string of xprop's WM_CLASS line:
// WM_CLASS(STRING) = "gnome-terminal-server", "Gnome-terminal".
var wmClassValue = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// wmClass is window id's WM_CLASS, instance and class, as xprop reads
// it; none when it cannot be read (no xprop, a window that is gone).
func (v *VM) wmClass(ctx context.Context, id uint32) ([]string, error) {
	res, err := v.exec(ctx, []string{"xprop", "-id", strconv.FormatUint(uint64(id), 10), "WM_CLASS"})
	if err != nil {
		return nil, fmt.Errorf("read window class: %w", err)
	}
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "WM_CLASS(") {
		return nil, nil
	}
	var names []string
	for _, m := range wmClassValue.FindAllStringSubmatch(res.Stdout, -1) {
		names = append(names, m[1])
	}
	return names, nil
}

// geometryLine is a Width: or Height: line of xwininfo.
var geometryLine = regexp.MustCompile(`(?m)^\s*(Width|Height):\s*(\d+)`)

// WindowSize implements get_window_size (main.py): the geometry of the
// first window, in the window manager's client list, whose WM_CLASS
// instance or class equals class, ignoring case; ok is false when there
// is none (main.py then answers no JSON at all). A window whose geometry
// cannot be read is passed over, as main.py passes over an XError.
//
// The window list may carry WM_CLASS's class alone (agentd's does:
// "Gnome-terminal" for gnome-terminal-server's windows); a window whose
// listed class does not match has its WM_CLASS read with xprop, so that
// its instance is matched too.
func (v *VM) WindowSize(ctx context.Context, class string) (width, height int, ok bool, err error) {
	ws, err := v.sb.Windows(ctx)
	if err != nil {
		return 0, 0, false, fmt.Errorf("list windows: %w", err)
	}
	matches := func(names []string) bool {
		for _, n := range names {
			if strings.EqualFold(n, class) {
				return true
			}
		}
		return false
	}
	for _, w := range ws {
		if w.Instance != "" {
			if !matches([]string{w.Instance, w.Class}) {
				continue
			}
		} else if !matches(classParts(w.Class)) {
			// a sandbox that lists the class alone: the instance from
			// xprop
			names, err := v.wmClass(ctx, w.ID)
			if err != nil {
				return 0, 0, false, err
			}
			if !matches(names) {
				continue
			}
		}
		res, err := v.exec(ctx, []string{"xwininfo", "-id", strconv.FormatUint(uint64(w.ID), 10)})
		if err != nil {
			return 0, 0, false, fmt.Errorf("read window geometry: %w", err)
		}
		if res.ExitCode != 0 {
			continue
		}
		size := map[string]int{}
		for _, m := range geometryLine.FindAllStringSubmatch(res.Stdout, -1) {
			n, _ := strconv.Atoi(m[2])
			size[m[1]] = n
		}
		if len(size) != 2 {
			continue
		}
		return size["Width"], size["Height"], true, nil
	}
	return 0, 0, false, nil
}

// WallpaperPath implements get_wallpaper_linux (main.py): gsettings'
// org.gnome.desktop.background picture-uri, stripped, with every
// "file://" and "'" removed; "" when gsettings fails.
func (v *VM) WallpaperPath(ctx context.Context) (string, error) {
	res, err := v.exec(ctx, []string{"gsettings", "get", "org.gnome.desktop.background", "picture-uri"})
	if err != nil {
		return "", fmt.Errorf("read wallpaper: %w", err)
	}
	if res.ExitCode != 0 {
		return "", nil
	}
	p := strings.TrimSpace(res.Stdout)
	return strings.ReplaceAll(strings.ReplaceAll(p, "file://", ""), "'", ""), nil
}

// ChangeWallpaper implements change_wallpaper (main.py, Linux): the path
// expanded as [VM.ExpandPath], an error for which errdefs.IsNotFound
// holds when nothing is there, else gsettings sets picture-uri to
// file://path, its result unchecked. It returns the expanded path.
func (v *VM) ChangeWallpaper(ctx context.Context, p string) (string, error) {
	p, err := v.ExpandPath(ctx, p)
	if err != nil {
		return "", err
	}
	ok, err := v.Exists(ctx, p, false)
	if err != nil {
		return p, err
	}
	if !ok {
		return p, errdefs.ErrNotFound.WithMessage("File not found: " + p)
	}
	_, err = v.exec(ctx, []string{"gsettings", "set", "org.gnome.desktop.background", "picture-uri", "file://" + p})
	return p, err
}

// Dir is a node of get_directory_tree's tree: a file, or a folder with
// its children.
type Dir struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Children []*Dir `json:"children,omitempty"`
}

// Value is the node in the JSON data model, as a getter returns it
// (folders always with a children list).
func (d *Dir) Value() map[string]any {
	if d.Type != "directory" {
		return map[string]any{"type": d.Type, "name": d.Name}
	}
	kids := make([]any, 0, len(d.Children))
	for _, c := range d.Children {
		kids = append(kids, c.Value())
	}
	return map[string]any{"type": "directory", "name": d.Name, "children": kids}
}

// listTree prints one entry per line of everything under $1: the type
// (d for a folder, anything else a file) and the path relative to $1,
// NUL-terminated. It follows symbolic links as os.listdir and
// os.path.isdir do, and keeps the folder's own order as os.listdir does.
const listTree = `[ -d "$1" ] || exit 3
find -L "$1" -mindepth 1 -printf '%y %P\0' 2>/dev/null
exit 0`

// ListDirectory implements get_directory_tree (main.py): the tree under
// dir, each folder named by os.path.basename of its path (so "a/b/" has
// ""); ok is false when dir is not a folder. The path is taken as given,
// as main.py takes it.
func (v *VM) ListDirectory(ctx context.Context, dir string, timeout time.Duration) (tree *Dir, ok bool, err error) {
	res, err := v.sb.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", listTree, "sh", dir}, TimeoutMS: int(timeout / time.Millisecond)})
	if err != nil {
		return nil, false, fmt.Errorf("list %s: %w", dir, err)
	}
	if res.ExitCode != 0 {
		return nil, false, nil
	}
	return buildTree(dir, res.Stdout), true, nil
}

func buildTree(dir, listing string) *Dir {
	root := &Dir{Type: "directory", Name: dir[strings.LastIndex(dir, "/")+1:], Children: []*Dir{}}
	dirs := map[string]*Dir{"": root}
	for entry := range strings.SplitSeq(listing, "\x00") {
		kind, rel, ok := strings.Cut(entry, " ")
		if !ok || rel == "" {
			continue
		}
		parent := dirs[path.Dir(rel)]
		if path.Dir(rel) == "." {
			parent = root
		}
		if parent == nil {
			continue
		}
		node := &Dir{Type: "file", Name: path.Base(rel)}
		if kind == "d" {
			node.Type, node.Children = "directory", []*Dir{}
			dirs[rel] = node
		}
		parent.Children = append(parent.Children, node)
	}
	return root
}

// MatchWindows implements the window selection of activate_window and
// close_window (main.py runs wmctrl -a / -c, with -x for by_class and -F
// for strict): the windows whose title (by_class: WM_CLASS, whole or
// instance or class) holds name ignoring case, or with strict equals
// it, in the window manager's order.
func MatchWindows(wins []api.Window, name string, strict, byClass bool) []api.Window {
	var out []api.Window
	for _, w := range wins {
		candidates := []string{w.Title}
		switch {
		case byClass && w.Instance != "":
			// what wmctrl -x matches: WM_CLASS as "instance.class"
			// ("Mail.thunderbird")
			candidates = []string{w.Instance + "." + w.Class}
		case byClass:
			// a sandbox that lists the class alone
			candidates = append([]string{w.Class}, classParts(w.Class)...)
		}
		for _, c := range candidates {
			if strict && c == name || !strict && strings.Contains(strings.ToLower(c), strings.ToLower(name)) {
				out = append(out, w)
				break
			}
		}
	}
	return out
}

// ActivateWindow implements activate_window (main.py): wmctrl -a
// activates the first window [MatchWindows] picks; none is no error.
func (v *VM) ActivateWindow(ctx context.Context, name string, strict, byClass bool) error {
	return v.onWindow(ctx, name, strict, byClass, v.sb.ActivateWindow)
}

// CloseWindow implements close_window (main.py): wmctrl -c closes the
// first window [MatchWindows] picks; none is no error.
func (v *VM) CloseWindow(ctx context.Context, name string, strict, byClass bool) error {
	return v.onWindow(ctx, name, strict, byClass, v.sb.CloseWindow)
}

func (v *VM) onWindow(ctx context.Context, name string, strict, byClass bool, act func(context.Context, uint32) error) error {
	wins, err := v.sb.Windows(ctx)
	if err != nil {
		return err
	}
	if m := MatchWindows(wins, name, strict, byClass); len(m) > 0 {
		// As wmctrl's, the outcome is not checked.
		_ = act(ctx, m[0].ID)
	}
	return nil
}

// TerminalOutput implements get_terminal_output (main.py): the text of
// the focused terminal in the active window of the accessibility tree,
// right-trimmed; nil unless exactly one such terminal exists.
func (v *VM) TerminalOutput(ctx context.Context) (*string, error) {
	ar, ok := v.sb.(AccessibilityReader)
	if !ok {
		return nil, errors.New("this sandbox does not read accessibility trees")
	}
	x, err := ar.AccessibilityXML(ctx, "")
	if err != nil {
		return nil, err
	}
	return TerminalOutput(x)
}

// TerminalOutput is [VM.TerminalOutput] on an accessibility tree in
// OSWorld's XML.
func TerminalOutput(treeXML string) (*string, error) {
	els, err := atree.XPath(treeXML, `//application/frame[@st:active="true"]//terminal[@st:focused="true"]`)
	if err != nil {
		return nil, err
	}
	if len(els) != 1 {
		return nil, nil
	}
	out := strings.TrimRight(els[0].InnerText(), " \t\n\r\v\f")
	return &out, nil
}
