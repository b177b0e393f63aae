package vm

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
)

// The cases below pin the guest operations to what OSWorld's server
// (desktop_env/server/main.py at the commit docs/osworld.md names) does on
// the same input. The expected values are CPython 3's answers:
// shlex.split, os.path.expandvars(os.path.expanduser(p)) with HOME=/home/user
// and USER=user, str() of a list, the Linux branches of main.py.

// fakeVM is a sandbox whose desktop user is "user" with home /home/user.
type fakeVM struct {
	windows []api.Window
	exec    func(argv []string) api.ExecResult
	acted   []string
	files   map[string]string
}

func (f *fakeVM) Exec(_ context.Context, req api.ExecRequest) (api.ExecResult, error) {
	switch {
	case len(req.Cmd) == 3 && req.Cmd[0] == "sh" && req.Cmd[2] == `printf %s "$HOME"`:
		return api.ExecResult{Stdout: "/home/user"}, nil
	case slices.Equal(req.Cmd, []string{"env", "-0"}):
		return api.ExecResult{Stdout: "HOME=/home/user\x00USER=user\x00LANG=C.UTF-8\x00"}, nil
	case slices.Equal(req.Cmd, []string{"getent", "passwd", "root"}):
		return api.ExecResult{Stdout: "root:x:0:0:root:/root:/bin/bash\n"}, nil
	case len(req.Cmd) == 3 && req.Cmd[0] == "getent":
		return api.ExecResult{ExitCode: 2}, nil
	}
	if f.exec != nil {
		return f.exec(req.Cmd), nil
	}
	return api.ExecResult{}, nil
}

func (f *fakeVM) WriteFile(_ context.Context, path string, data []byte) error {
	if f.files == nil {
		f.files = map[string]string{}
	}
	f.files[path] = string(data)
	return nil
}

func (f *fakeVM) Windows(context.Context) ([]api.Window, error) { return f.windows, nil }

func (f *fakeVM) ActivateWindow(_ context.Context, id uint32) error {
	f.acted = append(f.acted, "activate "+title(f.windows, id))
	return nil
}

func (f *fakeVM) CloseWindow(_ context.Context, id uint32) error {
	f.acted = append(f.acted, "close "+title(f.windows, id))
	return nil
}

func title(ws []api.Window, id uint32) string {
	for _, w := range ws {
		if w.ID == id {
			return w.Title
		}
	}
	return "?"
}

// TestCommand pins execute_command's and launch_app's handling of
// command and shell: shlex.split of a string without shell (Python's
// shlex keeps the backslash of \$ inside double quotes), ~/ expanded in
// every list item, shell with /bin/sh -c.
func TestCommand(t *testing.T) {
	tests := []struct {
		name    string
		command any
		shell   bool
		want    []string
		wantErr bool
	}{
		{"split, ~/ expanded", `ls -l ~/Desktop`, false, []string{"ls", "-l", "/home/user/Desktop"}, false},
		{"backslash dollar in double quotes kept", `echo "a \$HOME"`, false, []string{"echo", `a \$HOME`}, false},
		{"escaped quote in double quotes", `printf '%s' "x\"y"`, false, []string{"printf", "%s", `x"y`}, false},
		{"backslashes in quotes", `echo "a\\b" 'c\d'`, false, []string{"echo", `a\b`, `c\d`}, false},
		{"escaped blank", `a\ b c`, false, []string{"a b", "c"}, false},
		{"# is not a comment", `echo a#b # c`, false, []string{"echo", "a#b", "#", "c"}, false},
		{"~user and $VAR left to the program", `cp ~user/x ~/y $HOME`, false, []string{"cp", "~user/x", "/home/user/y", "$HOME"}, false},
		{"unclosed quote", `echo "abc`, false, nil, true},
		{"list, ~/ expanded", []any{"cat", "~/a.txt", "x~/b"}, false, []string{"cat", "/home/user/a.txt", "x~/b"}, false},
		{"shell string as it is", `echo ~/x $HOME`, true, []string{"sh", "-c", `echo ~/x $HOME`}, false},
		{"shell list: script then $0..., ~/ expanded", []any{"echo $0", "~/x"}, true, []string{"sh", "-c", "echo $0", "/home/user/x"}, false},
		{"empty", "", false, nil, true},
		{"not a command", 3.0, false, nil, true},
	}
	v := New(&fakeVM{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Command(t.Context(), tt.command, tt.shell)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Command(%#v, %v) error %v, want error %v", tt.command, tt.shell, err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Command(%#v, %v) = %q, want %q", tt.command, tt.shell, got, tt.want)
			}
		})
	}
}

// TestExpandPath pins os.path.expandvars(os.path.expanduser(p)), what
// main.py does to the paths of /file, /setup/upload,
// /setup/change_wallpaper, /setup/download_file and /setup/open_file.
func TestExpandPath(t *testing.T) {
	for p, want := range map[string]string{
		"~/a":        "/home/user/a",
		"~":          "/home/user",
		"~/":         "/home/user/",
		"$HOME/a":    "/home/user/a",
		"${HOME}/a":  "/home/user/a",
		"$NOPE/a":    "$NOPE/a",
		"${NOPE}/a":  "${NOPE}/a",
		"$HOMEX/a":   "$HOMEX/a",
		"$USER-x":    "user-x",
		"$HOME$USER": "/home/useruser",
		"a$":         "a$",
		"${}":        "${}",
		"~/$USER":    "/home/user/user",
		"~root/x":    "/root/x",
		"~nouser/x":  "~nouser/x",
		"/abs/path":  "/abs/path",
		"a~/b":       "a~/b",
	} {
		got, err := New(&fakeVM{}).ExpandPath(t.Context(), p)
		if err != nil || got != want {
			t.Errorf("ExpandPath(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
}

// xwininfo answers the geometry of window 1; window 2's cannot be read.
func xwininfo(argv []string) api.ExecResult {
	if argv[0] != "xwininfo" {
		return api.ExecResult{}
	}
	if argv[2] == "1" {
		return api.ExecResult{Stdout: "xwininfo: Window id: 0x1 \"Terminal\"\n  Absolute upper-left X:  10\n  Width: 484\n  Height: 316\n  Depth: 24\n"}
	}
	return api.ExecResult{ExitCode: 1, Stderr: "X Error: BadWindow"}
}

// TestWindowSize pins get_window_size: the first window whose WM_CLASS
// instance or class equals app_class_name ignoring case; a window whose
// geometry raises is passed over; none is no answer. A window listed
// with its class alone has its instance read with xprop; one listed
// with its instance is matched on both without it.
func TestWindowSize(t *testing.T) {
	f := &fakeVM{
		windows: []api.Window{{ID: 2, Title: "GNU Image Manipulation Program", Class: "gimp.Gimp"}, {ID: 1, Title: "Terminal", Class: "xterm.XTerm"}, {ID: 3, Title: "x", Class: "XTerm"},
			{ID: 5, Title: "user@host: ~", Class: "Gnome-terminal"}, {ID: 6, Title: "VLC media player", Class: "vlc", Instance: "vlc-main"}},
		exec: func(argv []string) api.ExecResult {
			if argv[0] == "xprop" {
				if argv[2] == "5" {
					return api.ExecResult{Stdout: `WM_CLASS(STRING) = "gnome-terminal-server", "Gnome-terminal"` + "\n"}
				}
				return api.ExecResult{ExitCode: 1, Stderr: "xprop: error: Invalid window id format"}
			}
			if argv[0] == "xprop" && argv[2] == "6" {
				panic("xprop asked of a window listed with its instance")
			}
			if argv[0] == "xwininfo" && argv[2] == "5" {
				return api.ExecResult{Stdout: "  Width: 788\n  Height: 533\n"}
			}
			if argv[0] == "xwininfo" && argv[2] == "6" {
				return api.ExecResult{Stdout: "  Width: 640\n  Height: 480\n"}
			}
			return xwininfo(argv)
		},
	}
	tests := []struct {
		class string
		w, h  int
		ok    bool
	}{
		{"xterm", 484, 316, true},
		{"XTERM", 484, 316, true},
		{"xterm.XTerm", 0, 0, false}, // neither instance nor class
		{"term", 0, 0, false},
		{"gimp", 0, 0, false}, // its geometry cannot be read
		{"NoSuchClass", 0, 0, false},
		{"gnome-terminal-server", 788, 533, true}, // the instance, from xprop
		{"Gnome-Terminal", 788, 533, true},
		{"vlc-main", 640, 480, true}, // the instance, listed
		{"VLC", 640, 480, true},
	}
	for _, tt := range tests {
		w, h, ok, err := New(f).WindowSize(t.Context(), tt.class)
		if err != nil || w != tt.w || h != tt.h || ok != tt.ok {
			t.Errorf("WindowSize(%q) = %d, %d, %v, %v; want %d, %d, %v", tt.class, w, h, ok, err, tt.w, tt.h, tt.ok)
		}
	}
}

// TestWallpaperPath pins get_wallpaper_linux: gsettings' answer
// stripped, every file:// and ' removed; nothing when gsettings fails.
func TestWallpaperPath(t *testing.T) {
	tests := []struct {
		out  string
		code int
		want string
	}{
		{"'file:///usr/share/backgrounds/warty.png'\n", 0, "/usr/share/backgrounds/warty.png"},
		{"'/home/user/it''s.png'\n", 0, "/home/user/its.png"},
		{"'file:///a/file://b.png'", 0, "/a/b.png"},
		{"", 1, ""},
	}
	for _, tt := range tests {
		f := &fakeVM{exec: func(argv []string) api.ExecResult {
			if argv[0] != "gsettings" || argv[1] != "get" {
				t.Fatalf("ran %q", argv)
			}
			return api.ExecResult{Stdout: tt.out, ExitCode: tt.code}
		}}
		got, err := New(f).WallpaperPath(t.Context())
		if err != nil || got != tt.want {
			t.Errorf("WallpaperPath with %q = %q, %v; want %q", tt.out, got, err, tt.want)
		}
	}
}

// TestChangeWallpaper pins change_wallpaper: the path expanded, 404 when
// nothing is there, else gsettings set picture-uri file://path (the dark
// variant untouched).
func TestChangeWallpaper(t *testing.T) {
	var ran [][]string
	f := &fakeVM{exec: func(argv []string) api.ExecResult {
		ran = append(ran, argv)
		if argv[0] == "test" && argv[2] != "/home/user/bg.png" {
			return api.ExecResult{ExitCode: 1}
		}
		return api.ExecResult{}
	}}
	v := New(f)
	if p, err := v.ChangeWallpaper(t.Context(), "~/none.png"); err == nil || p != "/home/user/none.png" {
		t.Errorf("missing file: %q, %v; want not found", p, err)
	}
	ran = nil
	if _, err := v.ChangeWallpaper(t.Context(), "$HOME/bg.png"); err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"test", "-e", "/home/user/bg.png"}, {"gsettings", "set", "org.gnome.desktop.background", "picture-uri", "file:///home/user/bg.png"}}
	if !slices.EqualFunc(ran, want, slices.Equal) {
		t.Errorf("ran %q, want %q", ran, want)
	}
}

// TestLaunch pins launch_app: the program started detached in its own
// session, and the answer's text.
func TestLaunch(t *testing.T) {
	var ran []string
	f := &fakeVM{exec: func(argv []string) api.ExecResult { ran = argv; return api.ExecResult{} }}
	v := New(f)
	argv, err := v.Command(t.Context(), []any{"xterm", "-T", "~/x"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Launch(t.Context(), argv, 0); err != nil {
		t.Fatal(err)
	}
	if len(ran) < 4 || ran[0] != "sh" || !strings.Contains(ran[2], "setsid") || !slices.Equal(ran[4:], []string{"xterm", "-T", "/home/user/x"}) {
		t.Errorf("launch ran %q", ran)
	}
	for _, tt := range []struct {
		command any
		shell   bool
		want    string
	}{
		{[]any{"xterm", "-T", "~/x"}, false, "xterm -T /home/user/x launched successfully"},
		{"xterm -T 'a b'", false, "xterm -T a b launched successfully"},
		{"xterm -T 'a b' &", true, "xterm -T 'a b' & launched successfully"},
		{[]any{"echo hi", "x"}, true, "['echo hi', 'x'] launched successfully"},
	} {
		argv, err := v.Command(t.Context(), tt.command, tt.shell)
		if err != nil {
			t.Fatal(err)
		}
		if got := LaunchMessage(tt.command, argv, tt.shell); got != tt.want {
			t.Errorf("LaunchMessage(%#v, %v) = %q, want %q", tt.command, tt.shell, got, tt.want)
		}
	}
}

// TestWindows pins activate_window and close_window on Linux: wmctrl
// -a/-c (with -x for by_class, -F for strict) acts on the first window
// whose title (or WM_CLASS) holds the name ignoring case, or equals it
// with strict; none is no error.
func TestWindows(t *testing.T) {
	wins := []api.Window{{ID: 1, Title: "notes.txt - gedit", Class: "gedit.Gedit"}, {ID: 2, Title: "Notes", Class: "xterm.XTerm"}}
	tests := []struct {
		name            string
		strict, byClass bool
		close           bool
		want            []string
	}{
		{"notes", false, false, false, []string{"activate notes.txt - gedit"}},
		{"Notes", true, false, false, []string{"activate Notes"}},
		{"notes", true, false, true, nil},
		{"XTERM", false, true, true, []string{"close Notes"}},
		{"xterm", true, true, false, []string{"activate Notes"}},
		{"Firefox", false, false, false, nil},
	}
	// where the sandbox lists WM_CLASS's instance beside its class, the
	// two are matched as wmctrl -x matches them: "instance.class"
	// (OSWorld's Thunderbird tasks: "Mail.thunderbird", strict)
	withInstance := []api.Window{{ID: 1, Title: "Inbox - Mozilla Thunderbird", Class: "thunderbird", Instance: "Mail"},
		{ID: 2, Title: "Write: (no subject)", Class: "thunderbird", Instance: "Msgcompose"}}
	for _, tt := range []struct {
		name   string
		strict bool
		want   []string
	}{
		{"Mail.thunderbird", true, []string{"activate Inbox - Mozilla Thunderbird"}},
		{"mail.THUNDERBIRD", false, []string{"activate Inbox - Mozilla Thunderbird"}},
		{"msgcompose", false, []string{"activate Write: (no subject)"}},
		{"thunderbird", true, nil},
	} {
		f := &fakeVM{windows: withInstance}
		if err := New(f).ActivateWindow(t.Context(), tt.name, tt.strict, true); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.acted, tt.want) {
			t.Errorf("%q strict=%v by_class: acted %q, want %q", tt.name, tt.strict, f.acted, tt.want)
		}
	}
	for _, tt := range tests {
		f := &fakeVM{windows: wins}
		v := New(f)
		act := v.ActivateWindow
		if tt.close {
			act = v.CloseWindow
		}
		if err := act(t.Context(), tt.name, tt.strict, tt.byClass); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(f.acted, tt.want) {
			t.Errorf("%q strict=%v by_class=%v close=%v acted %q, want %q", tt.name, tt.strict, tt.byClass, tt.close, f.acted, tt.want)
		}
	}
}

// TestListDirectory pins get_directory_tree: folders with a children
// list (empty ones too), files without, the root named by
// os.path.basename of the path as given, links followed.
func TestListDirectory(t *testing.T) {
	f := &fakeVM{exec: func(argv []string) api.ExecResult {
		if !strings.Contains(argv[2], "find -L") {
			t.Fatalf("ran %q", argv)
		}
		if argv[4] == "/missing" {
			return api.ExecResult{ExitCode: 3}
		}
		return api.ExecResult{Stdout: "d hk\x00f hk/a.jpg\x00f top.jpg\x00d hk/empty\x00"}
	}}
	v := New(f)
	if _, ok, err := v.ListDirectory(t.Context(), "/missing", 0); ok || err != nil {
		t.Errorf("missing folder: ok %v, %v", ok, err)
	}
	tree, ok, err := v.ListDirectory(t.Context(), "/home/user/photos/", 0)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	got := dictRepr(tree.Value())
	want := `{'type': 'directory', 'name': '', 'children': [{'type': 'directory', 'name': 'hk', 'children': [{'type': 'file', 'name': 'a.jpg'}, {'type': 'directory', 'name': 'empty', 'children': []}]}, {'type': 'file', 'name': 'top.jpg'}]}`
	if got != want {
		t.Errorf("tree\n%s\nwant\n%s", got, want)
	}
}

// dictRepr prints a tree as Python prints the dict main.py builds.
func dictRepr(v any) string {
	switch x := v.(type) {
	case map[string]any:
		parts := []string{"'type': " + dictRepr(x["type"]), "'name': " + dictRepr(x["name"])}
		if c, ok := x["children"]; ok {
			parts = append(parts, "'children': "+dictRepr(c))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, dictRepr(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return "'" + x + "'"
	}
	return "?"
}

// TestUpload pins upload_file: the path expanded, a relative one in the
// server's working folder (the home), its folder made.
func TestUpload(t *testing.T) {
	for p, want := range map[string]string{"~/a/b.txt": "/home/user/a/b.txt", "$HOME/c.sh": "/home/user/c.sh", "setup.sh": "/home/user/setup.sh", "/tmp/x": "/tmp/x"} {
		var ran [][]string
		f := &fakeVM{exec: func(argv []string) api.ExecResult { ran = append(ran, argv); return api.ExecResult{} }}
		if err := New(f).Upload(t.Context(), p, []byte("x")); err != nil {
			t.Fatal(err)
		}
		if f.files[want] != "x" || len(ran) != 1 || !slices.Equal(ran[0], []string{"mkdir", "-p", "--", want[:strings.LastIndex(want, "/")]}) {
			t.Errorf("Upload(%q): files %v, ran %q; want %s", p, f.files, ran, want)
		}
	}
}
