package task

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// The app getters on real processes: files in a real home, real curl
// against a VLC-like HTTP interface on port 8080.
func TestAppGettersOnHost(t *testing.T) {
	home := t.TempDir()
	sb := &hostSandbox{home: home}
	write := func(rel, content string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".config/GIMP/2.10/gimprc", "(default-image-width 640)\n")
	write(".config/vlc/vlcrc", "[qt]\nqt-max-volume=200\n")
	write("Desktop/notes.desktop", "[Desktop Entry]\nName=Notes\n")
	write("Desktop/readme.txt", "not a shortcut")

	tk := &Task{ID: "apps"}
	cache := t.TempDir()
	r, done, err := newRun(sb, tk, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	get := func(js string) any {
		t.Helper()
		g, err := buildGetter(jv(t, js), "result")
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return v
	}
	readCached := func(v any) string {
		t.Helper()
		p, ok := v.(string)
		if !ok {
			t.Fatalf("got %#v, want a cache path", v)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	if got := readCached(get(`{"type": "gimp_config_file", "file_name": "gimprc", "dest": "gimprc"}`)); !strings.Contains(got, "640") {
		t.Errorf("gimp_config_file = %q", got)
	}
	if got := get(`{"type": "gimp_config_file", "file_name": "sessionrc", "dest": "sessionrc"}`); got != nil {
		t.Errorf("missing GIMP file = %v, want nil", got)
	}
	if got := readCached(get(`{"type": "vlc_config", "dest": "vlcrc"}`)); !strings.Contains(got, "qt-max-volume=200") {
		t.Errorf("vlc_config = %q", got)
	}
	sc, ok := get(`{"type": "shortcuts_on_desktop"}`).(map[string]any)
	if !ok || len(sc) != 1 || !strings.Contains(sc["notes.desktop"].(string), "Name=Notes") {
		t.Errorf("shortcuts_on_desktop = %#v", sc)
	}

	// VLC's HTTP interface: basic auth with an empty user and the
	// password "password", as OSWorld's VM has it.
	ln, err := net.Listen("tcp", "127.0.0.1:8080")
	if err != nil {
		t.Logf("port 8080 busy, VLC status not tested: %v", err)
	} else {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "" || p != "password" || r.URL.Path != "/requests/status.xml" {
				http.Error(w, "no", http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte("<root><state>playing</state></root>"))
		}), ReadHeaderTimeout: time.Second}
		go func() { _ = srv.Serve(ln) }()
		if got := readCached(get(`{"type": "vlc_playing_info", "dest": "status.xml"}`)); !strings.Contains(got, "<state>playing</state>") {
			t.Errorf("vlc_playing_info = %q", got)
		}
		srv.Close()
		if got := get(`{"type": "vlc_playing_info", "dest": "status2.xml"}`); got != nil {
			t.Errorf("vlc_playing_info with VLC gone = %v, want nil", got)
		}
	}
}

// TestVMWallpaper: the picture gsettings names, copied to dest; an empty
// file at dest when it names none or the picture is not there, as
// OSWorld's getter writes one when its server answers 404.
func TestVMWallpaper(t *testing.T) {
	f := newFake()
	f.files["/home/user/bg.png"] = []byte("PNG")
	uri := "'file:///home/user/bg.png'\n"
	f.exec = func(req api.ExecRequest) api.ExecResult {
		if req.Cmd[0] == "gsettings" && slices.Equal(req.Cmd[1:], []string{"get", "org.gnome.desktop.background", "picture-uri"}) {
			if uri == "" {
				return api.ExecResult{ExitCode: 1, Stderr: "No such schema"}
			}
			return api.ExecResult{Stdout: uri}
		}
		return api.ExecResult{ExitCode: 127}
	}
	cache := t.TempDir()
	r, done, err := newRun(f, &Task{ID: "wallpaper"}, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	for _, tt := range []struct{ uri, dest, want string }{
		{"'file:///home/user/bg.png'\n", "bg.png", "PNG"},
		{"'file:///home/user/gone.png'\n", "gone.png", ""},
		{"", "none.png", ""},
	} {
		uri = tt.uri
		v, err := r.get(t.Context(), &Getter{Type: "vm_wallpaper", Params: map[string]any{"dest": tt.dest}})
		if want := filepath.Join(cache, tt.dest); err != nil || v != want {
			t.Errorf("picture-uri %q: %v, %v; want %s", tt.uri, v, err, want)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(cache, tt.dest)); err != nil || string(b) != tt.want {
			t.Errorf("picture-uri %q: the file holds %q, %v; want %q", tt.uri, b, err, tt.want)
		}
	}
}
