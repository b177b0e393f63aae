package task

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/vm"
)

// OSWorld's getters of apps' state that need only the sandbox: VLC's
// HTTP interface and configuration, GIMP's configuration, the default
// video player, the wallpaper, the desktop's shortcuts and VS Code's
// settings. Those not implemented yet are known and skip their task.
func checkDestGetter(f fields) error {
	d, err := f.str("dest", true)
	if err != nil {
		return err
	}
	if d == "" {
		return fmt.Errorf("%s: must not be empty", f.name("dest"))
	}
	if err := checkCacheName(d); err != nil {
		return fmt.Errorf("%s: %w", f.name("dest"), err)
	}
	return nil
}

func checkGimpGetter(f fields) error {
	if err := checkDestGetter(f); err != nil {
		return err
	}
	n, err := f.str("file_name", true)
	if err == nil && (n == "" || strings.Contains(n, "..")) {
		err = fmt.Errorf("%s: want a file name under ~/.config/GIMP/2.10, got %q", f.name("file_name"), n)
	}
	return err
}

func checkVSCodeGetter(f fields) error {
	if err := checkDestGetter(f); err != nil {
		return err
	}
	if _, err := f.str("path", true); err != nil {
		return err
	}
	_, err := f.str("vscode_extension_command", true)
	return err
}

// fetchToCache copies the sandbox file src into the cache as dest and
// returns its host path; nil when the file is not there.
func (r *run) fetchToCache(ctx context.Context, src, dest string) (any, error) {
	src, err := r.expandUser(ctx, src)
	if err != nil {
		return nil, err
	}
	data, err := r.sb.ReadFile(ctx, src)
	if errdefs.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	if err := r.writeCache(dest, data); err != nil {
		return nil, err
	}
	return filepath.Join(r.cacheDir, filepath.FromSlash(dest)), nil
}

// vlcStatus reads VLC's status.xml from its HTTP interface inside the
// sandbox (port 8080, password "password", as OSWorld's VM is set up),
// with curl, or Python where there is no curl.
const vlcStatus = `u=http://localhost:8080/requests/status.xml
if command -v curl >/dev/null 2>&1; then exec curl -sf -u :password "$u"; fi
exec python3 -c '
import base64, sys, urllib.request
q = urllib.request.Request(sys.argv[1], headers={"Authorization": "Basic " + base64.b64encode(b":password").decode()})
sys.stdout.buffer.write(urllib.request.urlopen(q, timeout=10).read())' "$u"`

// vlcPlayingInfo implements OSWorld's vlc_playing_info
// (desktop_env/evaluators/getters/vlc.py).
//
// vlcPlayingInfo saves VLC's status.xml as dest; nil when VLC does not
// answer.
func (r *run) vlcPlayingInfo(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.exec(ctx, []string{"sh", "-c", vlcStatus}, false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("read VLC status: %w", err)
	}
	if res.ExitCode != 0 || res.TimedOut {
		r.log.WarnContext(ctx, "VLC's HTTP interface did not answer", "exit_code", res.ExitCode, "stderr", py.Truncate(res.Stderr, 300))
		return nil, nil
	}
	dest := p["dest"].(string)
	if err := r.writeCache(dest, []byte(res.Stdout)); err != nil {
		return nil, err
	}
	return filepath.Join(r.cacheDir, filepath.FromSlash(dest)), nil
}

// vlcConfig implements OSWorld's vlc_config
// (desktop_env/evaluators/getters/vlc.py).
func (r *run) vlcConfig(ctx context.Context, p map[string]any) (any, error) {
	return r.fetchToCache(ctx, "~/.config/vlc/vlcrc", p["dest"].(string))
}

// gimpConfigFile implements OSWorld's gimp_config_file
// (desktop_env/evaluators/getters/gimp.py).
func (r *run) gimpConfigFile(ctx context.Context, p map[string]any) (any, error) {
	return r.fetchToCache(ctx, "~/.config/GIMP/2.10/"+p["file_name"].(string), p["dest"].(string))
}

// videoTypes are the video/* MIME subtypes OSWorld asks xdg-mime about.
var videoTypes = strings.Fields(`3gp 3gpp 3gpp2 avi divx dv fli flv mp2t mp4 mp4v-es mpeg mpeg-system
msvideo ogg quicktime vnd.divx vnd.mpegurl vnd.rn-realvideo webm x-anim x-avi x-flc x-fli x-flv x-m4v
x-matroska x-mpeg x-mpeg-system x-mpeg2 x-ms-asf x-ms-asf-plugin x-ms-asx x-ms-wm x-ms-wmv x-ms-wmx
x-ms-wvx x-msvideo x-nsv x-ogm x-ogm+ogg x-theora x-theora+ogg`)

// defaultVideoPlayer implements OSWorld's default_video_player
// (desktop_env/evaluators/getters/vlc.py).
//
// defaultVideoPlayer is the desktop file most video types open with
// (xdg-mime query default), with its newline as OSWorld keeps it, or
// "unknown".
func (r *run) defaultVideoPlayer(ctx context.Context, _ map[string]any) (any, error) {
	script := `for t in "$@"; do printf '%s\037' "$(xdg-mime query default "video/$t" 2>/dev/null)"; done`
	res, err := r.exec(ctx, append([]string{"sh", "-c", script, "sh"}, videoTypes...), false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("query default video player: %w", err)
	}
	count := map[string]int{}
	var order []string
	for _, app := range strings.Split(res.Stdout, "\x1f") {
		if app == "" {
			continue
		}
		app += "\n" // $(...) dropped it; OSWorld's value keeps it
		if count[app] == 0 {
			order = append(order, app)
		}
		count[app]++
	}
	if len(order) == 0 {
		return "unknown", nil
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	return order[0], nil
}

// vmWallpaper implements OSWorld's get_vm_wallpaper
// (desktop_env/evaluators/getters/info.py, through /wallpaper): the
// desktop background's picture saved as dest. When gsettings names no
// picture, or none is there, dest is an empty file, as OSWorld's getter
// writes one when the server answers 404 (so a metric reading it finds
// a file that is no image, not None).
func (r *run) vmWallpaper(ctx context.Context, p map[string]any) (any, error) {
	dest := p["dest"].(string)
	src, err := r.vm.WallpaperPath(ctx)
	if err != nil {
		return nil, err
	}
	if src != "" {
		if v, err := r.fetchToCache(ctx, src, dest); v != nil || err != nil {
			return v, err
		}
	}
	if err := r.writeCache(dest, nil); err != nil {
		return nil, err
	}
	return filepath.Join(r.cacheDir, filepath.FromSlash(dest)), nil
}

// shortcutsOnDesktop implements OSWorld's shortcuts_on_desktop
// (desktop_env/evaluators/getters/chrome.py).
//
// shortcutsOnDesktop maps each *.desktop file of ~/Desktop to its text.
func (r *run) shortcutsOnDesktop(ctx context.Context, _ map[string]any) (any, error) {
	home, err := r.userHome(ctx)
	if err != nil {
		return nil, err
	}
	dir := path.Join(home, "Desktop")
	tree, _, err := r.vm.ListDirectory(ctx, dir, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	var entries []*vm.Dir
	if tree != nil {
		entries = tree.Children
	}
	for _, e := range entries {
		rel := e.Name
		if e.Type == "directory" || !strings.HasSuffix(rel, ".desktop") {
			continue
		}
		data, err := r.sb.ReadFile(ctx, path.Join(dir, rel))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		out[rel] = string(data)
	}
	return out, nil
}

// pyautoguiCommand runs VS Code's command palette command through the
// sandbox's pyautogui, as OSWorld replays it.
const pyautoguiCommand = `import sys, time, pyautogui
pyautogui.hotkey("ctrl", "shift", "p")
time.sleep(0.5)
pyautogui.typewrite(sys.argv[1])
pyautogui.press("enter")`

// vscodeConfig implements OSWorld's vscode_config
// (desktop_env/evaluators/getters/vscode.py).
//
// vscodeConfig runs a command of VS Code's palette, waits a second and
// returns path fetched as dest (vm_file).
func (r *run) vscodeConfig(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.exec(ctx, []string{"python3", "-c", pyautoguiCommand, p["vscode_extension_command"].(string)}, false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("run VS Code command: %w", err)
	}
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "VS Code command failed", "stderr", py.Truncate(res.Stderr, 300))
	}
	if err := sleepCtx(ctx, timeSecond); err != nil {
		return nil, err
	}
	return r.fetchToCache(ctx, p["path"].(string), p["dest"].(string))
}
