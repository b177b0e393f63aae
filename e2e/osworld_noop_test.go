//go:build e2e

package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// noopTasks are OSWorld-format tasks written after OSWorld's own (their
// ids in the names), whose setups need nothing from the network: the
// initial state of OSWorld's VM decides them, and an agent that does
// nothing must score 0 on each, as it does on the VM.
var noopTasks = map[string]string{
	"os-28cc3b7e-volume-max": `{"id": "os-28cc3b7e-volume-max", "instruction": "The volume is too low: turn it up to the maximum.",
	  "config": [{"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}); time.sleep(0.5);"]}}],
	  "evaluator": {"func": "exact_match",
	    "result": {"type": "vm_command_line", "command": "pulseaudio --start\npactl list sinks | grep '^[[:space:]]Volume:' | head -n 1 | awk '{print $5}' | sed 's/%//g'", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": "100\n"}}}}`,
	"os-a4d98375-auto-lock": `{"id": "os-a4d98375-auto-lock", "instruction": "Lock the screen automatically when I am away.",
	  "config": [],
	  "evaluator": {"func": "exact_match",
	    "result": {"type": "vm_command_line", "command": "gsettings get org.gnome.desktop.screensaver lock-enabled", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": "true\n"}}}}`,
	"os-f9be0997-do-not-disturb": `{"id": "os-f9be0997-do-not-disturb", "instruction": "Switch notifications to Do Not Disturb.",
	  "config": [],
	  "evaluator": {"func": "exact_match",
	    "result": {"type": "vm_command_line", "command": "gsettings get org.gnome.desktop.notifications show-banners", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": "false\n"}}}}`,
	"os-bedcedc4-dim-off": `{"id": "os-bedcedc4-dim-off", "instruction": "Turn 'Dim screen when inactive' off.",
	  "config": [{"type": "execute", "parameters": {"command": ["gsettings", "set", "org.gnome.desktop.session", "idle-delay", "300"]}}],
	  "evaluator": {"func": ["exact_match", "exact_match"], "conj": "or",
	    "result": [{"type": "vm_command_line", "command": ["gsettings", "get", "org.gnome.desktop.session", "idle-delay"]},
	               {"type": "vm_command_line", "command": ["gsettings", "get", "org.gnome.settings-daemon.plugins.power", "idle-dim"]}],
	    "expected": [{"type": "rule", "rules": {"expected": "uint32 0\n"}}, {"type": "rule", "rules": {"expected": "false\n"}}]}}`,
	"os-3ce045a0-text-larger": `{"id": "os-3ce045a0-text-larger", "instruction": "Make the text on the screen larger.",
	  "config": [],
	  "evaluator": {"func": "exact_match",
	    "result": {"type": "vm_command_line", "command": "S=$(gsettings get org.gnome.desktop.interface text-scaling-factor); echo \"$S >= 1.2\" | bc -l", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": "1\n"}}}}`,
	"os-ec4e3f68-favourites": `{"id": "os-ec4e3f68-favourites", "instruction": "Remove vim from the favourites.",
	  "config": [{"type": "execute", "parameters": {"command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings set org.gnome.shell favorite-apps \"['thunderbird.desktop', 'vim.desktop', 'google-chrome.desktop']\"", "shell": true}}],
	  "evaluator": {"func": "check_gnome_favorite_apps",
	    "result": {"type": "vm_command_line", "command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings get org.gnome.shell favorite-apps", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": ["thunderbird.desktop", "google-chrome.desktop"]}}}}`,
	"multi-f8369178-theme": `{"id": "multi-f8369178-theme", "instruction": "Install the Orchis theme and switch GNOME to it.",
	  "config": [],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "gsettings get org.gnome.desktop.interface gtk-theme", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": ["Orchis"], "exclude": []}}}}`,
	"os-b6781586-utc": `{"id": "os-b6781586-utc", "instruction": "Set the time zone to UTC+0.",
	  "config": [],
	  "evaluator": {"func": "is_utc_0", "result": {"type": "vm_command_line", "command": "timedatectl status", "shell": true}}}`,
	"os-13584542-terminal-size": `{"id": "os-13584542-terminal-size", "instruction": "Make new terminals 132x43 for good.",
	  "config": [{"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; pyautogui.click({SCREEN_WIDTH_HALF}, {SCREEN_HEIGHT_HALF}); time.sleep(0.5);"]}}],
	  "evaluator": {"postconfig": [{"type": "sleep", "parameters": {"seconds": 1}},
	      {"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(0.5); pyautogui.write('stty size'); time.sleep(0.5); pyautogui.press('enter')"]}}],
	    "func": "check_include_exclude", "result": {"type": "vm_terminal_output"},
	    "expected": {"type": "rule", "rules": {"include": ["43 132"], "exclude": []}}}}`,
}

// TestOSWorldNoOpScoresZero runs noopTasks with an agent that answers
// DONE at once (the replay agent playing a solution of that one call): every
// task ends with score 0, for its own reason, not for a setup that
// failed.
func TestOSWorldNoOpScoresZero(t *testing.T) {
	engine(t, osworldImage)
	// Two at once: the terminal-size task's grading opens a terminal by
	// keyboard, which at four GNOME Shells on a 2-core host can still
	// come after the grader's read ("no result", seen 1 run in 2 here;
	// images/README.md, the keyboard postconfig under load).
	rs, out := evalOSWorld(t, noopTasks, 2)
	// Without --screen, eval ran the image at the size it is made for:
	// OSWorld's, as the screenshots of the run show.
	shots, _ := filepath.Glob(filepath.Join(out, "*", "*.png"))
	if len(shots) == 0 {
		t.Errorf("no screenshots in %s", out)
	}
	for _, f := range shots {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(r)
		r.Close()
		if err != nil || cfg.Width != 1920 || cfg.Height != 1080 {
			t.Errorf("%s: %dx%d %v, want 1920x1080", f, cfg.Width, cfg.Height, err)
		}
	}
	if len(rs) != len(noopTasks) {
		t.Errorf("%d results, want %d", len(rs), len(noopTasks))
	}
	for _, r := range rs {
		t.Logf("%s: %s, score %v: %s", r.ID, r.Status, r.Score, r.Detail)
		// A getter that found nothing to grade ("no result") would be
		// the setup's or the image's failure, not the task's.
		if r.Status != "failed" || r.Score != 0 || r.Error != "" || strings.Contains(r.Detail, "no result") {
			t.Errorf("%s: %s, score %v, error %q, detail %q; want failed with score 0 for the task's reason", r.ID, r.Status, r.Score, r.Error, r.Detail)
		}
	}
}

// TestOSWorldKeyboardPostconfigUnderLoad: OSWorld-format tasks whose
// grading types into a terminal it opens by keyboard, with OSWorld's own
// fixed waits (Ctrl+Alt+T, 0.5 s, type, 0.5 s, Enter), score the same at
// --parallel 8 on this host as at --parallel 1: all 1, the grading's own
// keystrokes doing the work.
func TestOSWorldKeyboardPostconfigUnderLoad(t *testing.T) {
	engine(t, osworldImage)
	tasks := map[string]string{}
	for i := range 8 {
		id := fmt.Sprintf("terminal-typed-%d", i)
		tasks[id] = fmt.Sprintf(`{"id": %q, "instruction": "Nothing to do.", "config": [],
		  "evaluator": {"postconfig": [{"type": "sleep", "parameters": {"seconds": 1}},
		      {"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't'); time.sleep(0.5); pyautogui.write('echo typed-$((%d*7))'); time.sleep(0.5); pyautogui.press('enter')"]}}],
		    "func": "check_include_exclude", "result": {"type": "vm_terminal_output"},
		    "expected": {"type": "rule", "rules": {"include": ["typed-%d"], "exclude": []}}}}`, id, i, i*7)
	}
	allScoreAt(t, tasks, 1, 8)
}

// allScoreAt runs tasks with deskrun eval at each parallelism (a subtest
// each) and requires a score of 1 from every task. At 8, eight GNOME
// Shells start at once on a 2-core host (images/README.md has the runs).
func allScoreAt(t *testing.T, tasks map[string]string, parallels ...int) {
	for _, parallel := range parallels {
		t.Run(fmt.Sprintf("parallel %d", parallel), func(t *testing.T) {
			rs, _ := evalOSWorld(t, tasks, parallel)
			if len(rs) != len(tasks) {
				t.Errorf("%d results, want %d", len(rs), len(tasks))
			}
			for _, r := range rs {
				if r.Score != 1 {
					t.Errorf("%s: %s, score %v: %s%s", r.ID, r.Status, r.Score, r.Detail, r.Error)
				}
			}
		})
	}
}

// osworldResult is one line of deskrun eval's results.jsonl.
type osworldResult struct {
	ID, Status, Detail, Error string
	Score                     float64
}

// evalOSWorld runs deskrun eval of tasks (OSWorld JSON by id) on the
// osworld image with the replay agent, parallel at once, and returns the
// results and the run's folder.
func evalOSWorld(t *testing.T, tasks map[string]string, parallel int) ([]osworldResult, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tasks", "os")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for id, body := range tasks {
		// The agent's whole episode: OSWorld's DONE at the first step.
		var tk map[string]any
		if err := json.Unmarshal([]byte(body), &tk); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		tk["solution"] = []any{map[string]any{"dialect": "osworld", "tool": "desktop_control", "args": map[string]any{"action": "done"}}}
		b, err := json.Marshal(tk)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.CommandContext(t.Context(), buildDeskrun(t), "eval", "--provider", "docker", "--image", osworldImage,
		"--tasks", filepath.Dir(dir), "--agent", "replay", "--parallel", fmt.Sprint(parallel), "--retries", "0", "--out", out)
	cmd.Env = append(os.Environ(), "TESTCONTAINERS_RYUK_DISABLED=true")
	b, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(b), "have results") {
		t.Fatalf("deskrun eval: %v\n%s", err, b)
	}
	t.Logf("deskrun eval --parallel %d:\n%s", parallel, b)
	data, err := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var rs []osworldResult
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r osworldResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("results.jsonl: %v", err)
		}
		rs = append(rs, r)
	}
	return rs, out
}

// minimalODT is a text document of one paragraph, as LibreOffice reads it:
// the stored mimetype first, the manifest, the content.
func minimalODT(t *testing.T, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{
		{"mimetype", "application/vnd.oasis.opendocument.text"},
		{"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
			`<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>` +
			`<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`},
		{"content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
			`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:text><text:p>` + text + `</text:p></office:text></office:body></office:document-content>`},
	} {
		method := zip.Deflate
		if f.name == "mimetype" {
			method = zip.Store
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: f.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOSWorldSavePostconfigUnderLoad: OSWorld-format tasks that open a
// document in LibreOffice Writer at setup and whose grading saves it by
// keyboard with OSWorld's own steps and fixed waits (activate_window by
// its title, 0.5 s, then pyautogui: type, Ctrl+S, 0.5 s), graded on the
// saved file, score the same at --parallel 8 on this host as at
// --parallel 1: all 1.
func TestOSWorldSavePostconfigUnderLoad(t *testing.T) {
	engine(t, osworldImage)
	odt := base64.StdEncoding.EncodeToString(minimalODT(t, "start"))
	tasks := map[string]string{}
	for i := range 8 {
		id := fmt.Sprintf("writer-saved-%d", i)
		tasks[id] = fmt.Sprintf(`{"id": %q, "instruction": "Nothing to do.",
		  "config": [{"type": "execute", "parameters": {"command": ["python", "-c", "import base64; open('/home/user/notes.odt', 'wb').write(base64.b64decode('%s'))"]}},
		      {"type": "open", "parameters": {"path": "/home/user/notes.odt"}}],
		  "evaluator": {"postconfig": [{"type": "activate_window", "parameters": {"window_name": "notes.odt - LibreOffice Writer", "strict": true}},
		      {"type": "sleep", "parameters": {"seconds": 0.5}},
		      {"type": "execute", "parameters": {"command": ["python", "-c", "import pyautogui; import time; pyautogui.write(' saved-%d'); pyautogui.hotkey('ctrl', 's'); time.sleep(0.5);"]}}],
		    "func": "check_include_exclude", "result": {"type": "vm_command_line", "command": "unzip -p /home/user/notes.odt content.xml", "shell": true},
		    "expected": {"type": "rule", "rules": {"include": ["saved-%d"], "exclude": []}}}}`, id, odt, i*7, i*7)
	}
	allScoreAt(t, tasks, 1, 8)
}
