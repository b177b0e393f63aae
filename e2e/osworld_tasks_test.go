//go:build e2e

package e2e

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// osworldTasks are OSWorld-format tasks of our own for the osworld
// image, each with the script that solves it (run as the desktop user,
// as an agent's terminal would). INPUT is the folder of the input files
// on the runner host.
var osworldTasks = []struct{ name, body, solve string }{
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
		`cp /tmp/gold/report.docx ~/Desktop/report.docx`},
	{"gsettings read and written", `{"id": "gsettings", "instruction": "Make the text larger.",
	  "config": [{"type": "execute", "parameters": {"command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\ngsettings set org.gnome.desktop.interface text-scaling-factor 1.0", "shell": true}}],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'; gsettings get org.gnome.desktop.interface text-scaling-factor", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": ["1.5"], "exclude": []}}}}`,
		`gsettings set org.gnome.desktop.interface text-scaling-factor 1.5`},
	{"volume through pactl", `{"id": "volume", "instruction": "Set the volume to half.",
	  "config": [{"type": "execute", "parameters": {"command": ["pactl", "set-sink-volume", "@DEFAULT_SINK@", "100%"]}}],
	  "evaluator": {"func": "check_include_exclude",
	    "result": {"type": "vm_command_line", "command": "pactl get-sink-volume @DEFAULT_SINK@", "shell": true},
	    "expected": {"type": "rule", "rules": {"include": [" 50%"], "exclude": []}}}}`,
		`pactl set-sink-volume @DEFAULT_SINK@ 50%`},
	{"GIMP config file", `{"id": "gimp-theme", "instruction": "Use GIMP's dark theme.",
	  "config": [{"type": "execute", "parameters": {"command": ["sh", "-c", "mkdir -p ~/.config/GIMP/2.10 && printf '(theme \"Light\")\\n(undo-levels 5)\\n' > ~/.config/GIMP/2.10/gimprc"]}}],
	  "evaluator": {"func": "check_config_status",
	    "result": {"type": "gimp_config_file", "file_name": "gimprc", "dest": "gimprc"},
	    "expected": {"type": "rule", "rules": {"key": "theme", "value": "\"Dark\""}}}}`,
		`sed -i 's/(theme "Light")/(theme "Dark")/' ~/.config/GIMP/2.10/gimprc`},
	{"Thunderbird config file", `{"id": "thunderbird-quote", "instruction": "Stop quoting the original message.",
	  "config": [{"type": "execute", "parameters": {"command": ["sh", "-c", "mkdir -p ~/.thunderbird/t5q2a5hp.default-release && echo 'user_pref(\"mail.identity.id1.auto_quote\", true);' > ~/.thunderbird/t5q2a5hp.default-release/prefs.js"]}}],
	  "evaluator": {"func": "check_thunderbird_prefs",
	    "result": {"type": "vm_file", "path": "/home/user/.thunderbird/t5q2a5hp.default-release/prefs.js", "dest": "prefs.js"},
	    "expected": {"type": "rule", "rules": {"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": false}}}}}}`,
		`sed -i 's/auto_quote", true/auto_quote", false/' ~/.thunderbird/t5q2a5hp.default-release/prefs.js`},
}

// TestOSWorldTasks runs OSWorld-format tasks of our own on the osworld
// image (docker sessions, as deskrun eval runs them): each is set up,
// graded unsolved (score 0), solved by its script, and graded again
// (score 1).
func TestOSWorldTasks(t *testing.T) {
	cli := engine(t, osworldImage)
	p, _ := newProvider(t, cli, docker.Config{})
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"docker": p}, DefaultImage: osworldImage, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		m.Close(ctx)
	})
	input := t.TempDir()
	for _, name := range []string{"doc_text.docx", "doc_base.docx"} {
		b, err := os.ReadFile(filepath.Join("../runner/task/testdata/metrics", name))
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
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "docker", Image: osworldImage})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Delete(context.WithoutCancel(ctx), sess.ID())
			opts := task.Options{CacheDir: t.TempDir()}
			if err := task.Setup(ctx, sess, tk, opts); err != nil {
				t.Fatal(err)
			}
			if res, err := task.Evaluate(ctx, sess, tk, task.EvalOptions{Options: opts, LastAction: task.ActionDone}); err != nil || res.Score != 0 {
				t.Errorf("unsolved: %+v, %v; want score 0", res, err)
			}
			out, err := sess.Exec(ctx, api.ExecRequest{Cmd: []string{"bash", "-c", "export DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n" + tt.solve}})
			if err != nil || out.ExitCode != 0 {
				t.Fatalf("solve: %+v, %v", out, err)
			}
			if res, err := task.Evaluate(ctx, sess, tk, task.EvalOptions{Options: opts, LastAction: task.ActionDone}); err != nil || res.Score != 1 {
				t.Errorf("solved: %+v, %v; want score 1", res, err)
			}
		})
	}
}
