//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/task"
)

// osworldTasks are OSWorld-format tasks of our own for the osworld
// image, each with what solves it: a script run as the desktop user (as
// an agent's terminal would), or a key chord pressed through the
// session's input (as an agent's action). unsolved, when set, is a text
// the metric's detail must hold before the task is solved (the score 0
// is for the task's reason, not for a missing app). INPUT is the folder
// of the input files on the runner host.
var osworldTasks = []struct {
	name, body, solve string
	keys              []string
	unsolved          string
}{
	{"writer document opened by a setup step, fetched with vm_file", `{"id": "writer-doc", "instruction": "Restore the report.",
	  "config": [
	    {"type": "download", "parameters": {"files": [
	      {"url": "file://INPUT/doc_text.docx", "path": "/home/user/Desktop/report.docx"},
	      {"url": "file://INPUT/doc_base.docx", "path": "/tmp/gold/report.docx"}]}},
	    {"type": "open", "parameters": {"path": "/home/user/Desktop/report.docx"}},
	    {"type": "activate_window", "parameters": {"window_name": "report.docx - LibreOffice Writer", "strict": true}}],
	  "evaluator": {"func": "compare_docx_files",
	    "result": {"type": "vm_file", "path": "/home/user/Desktop/report.docx", "dest": "report.docx"},
	    "expected": {"type": "cloud_file", "path": "file://INPUT/doc_base.docx", "dest": "gold.docx"}}}`,
		`cp /tmp/gold/report.docx ~/Desktop/report.docx`, nil, ""},
	{"gsettings read and written", `{"id": "gsettings", "instruction": "Make the text larger.",
	  "config": [{"type": "execute", "parameters": {"command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings set org.gnome.desktop.interface text-scaling-factor 1.0", "shell": true}}],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'; gsettings get org.gnome.desktop.interface text-scaling-factor", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": ["1.5"], "exclude": []}}}}`,
		`gsettings set org.gnome.desktop.interface text-scaling-factor 1.5`, nil, ""},
	{"volume through pactl", `{"id": "volume", "instruction": "Set the volume to half.",
	  "config": [{"type": "execute", "parameters": {"command": ["pactl", "set-sink-volume", "@DEFAULT_SINK@", "100%"]}}],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "pactl get-sink-volume @DEFAULT_SINK@", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": [" 50%"], "exclude": []}}}}`,
		`pactl set-sink-volume @DEFAULT_SINK@ 50%`, nil, ""},
	{"GIMP config file", `{"id": "gimp-theme", "instruction": "Use GIMP's dark theme.",
	  "config": [{"type": "execute", "parameters": {"command": ["sh", "-c", "mkdir -p ~/.config/GIMP/2.10 && printf '(theme \"Light\")\\n(undo-levels 5)\\n' > ~/.config/GIMP/2.10/gimprc"]}}],
	  "evaluator": {"func": "check_config_status",
	    "result": {"type": "gimp_config_file", "file_name": "gimprc", "dest": "gimprc"},
	    "expected": {"type": "rule", "rules": {"key": "theme", "value": "\"Dark\""}}}}`,
		`sed -i 's/(theme "Light")/(theme "Dark")/' ~/.config/GIMP/2.10/gimprc`, nil, ""},
	{"Thunderbird config file", `{"id": "thunderbird-quote", "instruction": "Stop quoting the original message.",
	  "config": [{"type": "execute", "parameters": {"command": ["sh", "-c", "mkdir -p ~/.thunderbird/t5q2a5hp.default-release && echo 'user_pref(\"mail.identity.id1.auto_quote\", true);' > ~/.thunderbird/t5q2a5hp.default-release/prefs.js"]}}],
	  "evaluator": {"func": "check_thunderbird_prefs",
	    "result": {"type": "vm_file", "path": "/home/user/.thunderbird/t5q2a5hp.default-release/prefs.js", "dest": "prefs.js"},
	    "expected": {"type": "rule", "rules": {"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": false}}}}}}`,
		`sed -i 's/auto_quote", true/auto_quote", false/' ~/.thunderbird/t5q2a5hp.default-release/prefs.js`, nil, ""},
	{"VLC playing another file", `{"id": "vlc-other", "instruction": "Play song.wav in VLC.",
	  "config": [` + vlcMedia + `,
	    {"type": "launch", "parameters": {"command": ["vlc", "--loop", "/home/user/Music/other.wav"]}},
	    ` + vlcWait("playing", "other.wav") + `],
	  "evaluator": {"func": "is_vlc_playing",
	    "result": {"type": "vlc_playing_info", "dest": "status.xml"},
	    "expected": {"type": "rule", "rules": {"type": "file_name", "file_name": "song.wav"}}}}`,
		vlcRequest + `'command=in_play&input=file:///home/user/Music/song.wav'`, nil, `playing "other.wav"`},
	{"VLC paused on the file", `{"id": "vlc-paused", "instruction": "Play song.wav in VLC.",
	  "config": [` + vlcMedia + `,
	    {"type": "launch", "parameters": {"command": ["vlc", "--loop", "--start-paused", "/home/user/Music/song.wav"]}},
	    ` + vlcWait("paused", "song.wav") + `],
	  "evaluator": {"func": "is_vlc_playing",
	    "result": {"type": "vlc_playing_info", "dest": "status.xml"},
	    "expected": {"type": "rule", "rules": {"type": "file_name", "file_name": "song.wav"}}}}`,
		vlcRequest + `command=pl_forceresume`, nil, `"paused"`},
	{"Ctrl+Alt+T opens a terminal", `{"id": "ctrl-alt-t", "instruction": "Open a terminal.",
	  "config": [],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "wmctrl -lx", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": ["gnome-terminal-server.Gnome-terminal"], "exclude": []}}}}`,
		"", []string{"ctrl", "alt", "t"}, "missing 'gnome-terminal-server.Gnome-terminal'"},
}

// vlcMedia is a setup step writing two minute-long tones, song.wav and
// other.wav, into ~/Music (with Python's wave module: the image needs no
// encoder for them).
const vlcMedia = `{"type": "execute", "parameters": {"command": ["python3", "-c", "import math, os, wave\nos.makedirs('/home/user/Music', exist_ok=True)\nfor name, hz in (('song', 440), ('other', 660)):\n    w = wave.open('/home/user/Music/%s.wav' % name, 'wb')\n    w.setnchannels(1)\n    w.setsampwidth(1)\n    w.setframerate(8000)\n    w.writeframes(bytes(int(128 + 60 * math.sin(2 * math.pi * hz * i / 8000)) for i in range(8000 * 60)))\n    w.close()"]}}`

// vlcWait is a setup step that waits, through VLC's HTTP interface (port
// 8080, password "password"), until VLC is in state with file loaded.
func vlcWait(state, file string) string {
	return `{"type": "execute", "parameters": {"command": ["python3", "-c", "import urllib.request as u\ns = u.urlopen(u.Request('http://localhost:8080/requests/status.xml', headers={'Authorization': 'Basic OnBhc3N3b3Jk'}), timeout=5).read().decode()\nprint('ready' if '<state>` + state + `</state>' in s and '` + file + `' in s else 'not yet')"],
	      "timeout": 10, "until": {"stdout": "ready"}}}`
}

// vlcRequest sends the command given as its argument (a query string) to
// VLC's HTTP interface, as a script would.
const vlcRequest = `python3 -c 'import sys, urllib.request as u; u.urlopen(u.Request("http://localhost:8080/requests/status.xml?" + sys.argv[1], headers={"Authorization": "Basic OnBhc3N3b3Jk"}), timeout=10)' `

// TestOSWorldTasks runs OSWorld-format tasks of our own on the osworld
// image (docker sessions, as deskrun eval runs them): each is set up,
// graded unsolved (score 0), solved by its script or key chord, and
// graded again (score 1).
func TestOSWorldTasks(t *testing.T) {
	m := osworldManager(t)
	input := t.TempDir()
	for _, name := range []string{"doc_text.docx", "doc_base.docx"} {
		b, err := os.ReadFile(filepath.Join("../runner/task/metric/testdata/metrics", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(input, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range osworldTasks {
		t.Run(tt.name, func(t *testing.T) {
			tk, err := task.Parse([]byte(strings.ReplaceAll(tt.body, "INPUT", input)), task.FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			tk.Dir = input // as a task file in that folder: its files are read from there only
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "docker", Image: osworldImage})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Delete(context.WithoutCancel(ctx), sess.ID())
			// Apps started by the setup come up under load in their
			// own time: waiting steps ("until") get two minutes.
			opts := task.Options{CacheDir: t.TempDir(), UntilTimeout: 2 * time.Minute}
			if err := task.Setup(ctx, sess, tk, opts); err != nil {
				t.Fatal(err)
			}
			eval := task.EvalOptions{Options: opts, LastAction: task.ActionDone}
			res, err := task.Evaluate(ctx, sess, tk, eval)
			if err != nil || res.Score != 0 {
				t.Errorf("unsolved: %+v, %v; want score 0", res, err)
			} else if tt.unsolved != "" && (len(res.Metrics) != 1 || !strings.Contains(res.Metrics[0].Detail, tt.unsolved)) {
				t.Errorf("unsolved: %+v; want a detail with %q", res, tt.unsolved)
			}
			if tt.keys != nil {
				if _, err := sess.Input(ctx, []api.Action{{Type: api.ActionKey, Keys: tt.keys}}); err != nil {
					t.Fatalf("solve: %v", err)
				}
			} else {
				out, err := sess.Exec(ctx, api.ExecRequest{Cmd: []string{"bash", "-c", "export DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n" + tt.solve}})
				if err != nil || out.ExitCode != 0 {
					t.Fatalf("solve: %+v, %v", out, err)
				}
			}
			// What the solution starts (a window, playback) shows in its
			// own time: graded again until it scores 1, as an agent
			// looks at the screen before it says it is done.
			deadline := time.Now().Add(90 * time.Second)
			for {
				res, err = task.Evaluate(ctx, sess, tk, eval)
				if err == nil && res.Score == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("solved: %+v, %v; want score 1", res, err)
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
		})
	}
}
