package farm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
)

// writeFile writes body to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A run's cache, url_map and offline are checked before it starts: a bad
// one is refused naming the field, and with a task root they, and the
// files the map names, must be within it.
func TestRunsRefuseBadDownloadOptions(t *testing.T) {
	root := writeTasks(t, 1)
	outside := t.TempDir()
	inside := filepath.Join(root, "mirror")
	if err := os.Mkdir(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, inside, "a.txt", "a")
	writeFile(t, inside, "map.json", `{"https://example.org/a.txt": "a.txt"}`)
	writeFile(t, inside, "notjson.json", `["https://example.org/a.txt"]`)
	writeFile(t, inside, "ftp.json", `{"ftp://example.org/a.txt": "a.txt"}`)
	writeFile(t, inside, "escape.json", `{"https://example.org/a.txt": "`+filepath.Join(outside, "x")+`"}`)
	writeFile(t, outside, "map.json", `{}`)

	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": gateProvider(make(chan struct{}))}})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := NewRuns(RunsConfig{Manager: m, Dir: t.TempDir(), TasksRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close(context.Background())
	for _, tt := range []struct {
		req  api.CreateRunRequest
		want string
	}{
		{api.CreateRunRequest{Tasks: ".", Cache: "missing"}, "cache: stat " + filepath.Join(root, "missing") + ": no such file"},
		{api.CreateRunRequest{Tasks: ".", Cache: file}, "cache: " + file + " is not a folder"},
		{api.CreateRunRequest{Tasks: ".", Cache: outside}, "cache: " + outside + " is outside the server's task root"},
		{api.CreateRunRequest{Tasks: ".", URLMap: "mirror/missing.json"}, "url_map: read URL map: /"},
		{api.CreateRunRequest{Tasks: ".", URLMap: "mirror/notjson.json"}, "url_map: read URL map " + filepath.Join(inside, "notjson.json") + ": want an object of URL to file path"},
		{api.CreateRunRequest{Tasks: ".", URLMap: "mirror/ftp.json"}, `url_map: read URL map ` + filepath.Join(inside, "ftp.json") + `: "ftp://example.org/a.txt": want an http(s) URL`},
		{api.CreateRunRequest{Tasks: ".", URLMap: filepath.Join(outside, "map.json")}, "url_map: " + filepath.Join(outside, "map.json") + " is outside"},
		{api.CreateRunRequest{Tasks: ".", URLMap: "mirror/escape.json"}, "url_map: https://example.org/a.txt: " + filepath.Join(outside, "x") + " is outside"},
	} {
		_, err := rs.Start(tt.req)
		if !errdefs.IsInvalidArgument(err) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Start(cache %q, url_map %q) = %v, want invalid argument %q", tt.req.Cache, tt.req.URLMap, err, tt.want)
		}
	}
	if l := rs.List(); len(l) != 0 {
		t.Errorf("refused requests made runs: %+v", l)
	}
	// Good ones start a run, the paths taken from the root.
	r, err := rs.Start(api.CreateRunRequest{Tasks: ".", Cache: "mirror", URLMap: "mirror/map.json", Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Request.Cache != inside || r.Request.URLMap != filepath.Join(inside, "map.json") || !r.Request.Offline {
		t.Errorf("run request %+v", r.Request)
	}
	if _, err := rs.Cancel(context.Background(), r.ID); err != nil {
		t.Error(err)
	}
}

// A run with a URL map and offline sets its tasks up from the mirror,
// fills the cache in OSWorld's layout, and skips a task whose file is
// neither mapped nor cached; a task needing VS Code is skipped when the
// image has none, and the image's Apps error refuses the run naming the
// image. Real local sandboxes.
func TestRunsDownloadOptions(t *testing.T) {
	p := newTestProvider(t)
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	tasks, mirror, cache := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, mirror, "in.txt", "mirrored bytes")
	urlMap := writeFile(t, mirror, "map.json", `{"http://files.invalid/in.txt": "in.txt"}`)
	writeFile(t, tasks, "mirrored.json", `{"id": "mirrored", "instruction": "nothing",
	  "config": [{"type": "download", "parameters": {"files": [{"url": "http://files.invalid/in.txt", "path": "in.txt"}]}}],
	  "evaluator": {"func": "exact_match", "result": {"type": "vm_command_line", "command": "cat ~/in.txt", "shell": true},
	    "expected": {"type": "rule", "rules": {"expected": "mirrored bytes"}}},
	  "solution": [{"dialect": "osworld", "tool": "desktop_control", "args": {"action": "done"}}]}`)
	writeFile(t, tasks, "unmapped.json", `{"id": "unmapped", "instruction": "nothing",
	  "config": [{"type": "download", "parameters": {"files": [{"url": "http://files.invalid/other.txt", "path": "other.txt"}]}}],
	  "evaluator": {"func": "infeasible"}}`)
	writeFile(t, tasks, "editor.json", `{"id": "editor", "instruction": "nothing",
	  "config": [{"type": "launch", "parameters": {"command": ["code", "/tmp"]}}],
	  "evaluator": {"func": "infeasible"}}`)

	var asked []string
	rs, err := NewRuns(RunsConfig{Manager: m, Dir: t.TempDir(), Apps: func(provider, image string) (task.Apps, error) {
		asked = append(asked, provider+"|"+image)
		if image == "deskrun/none" {
			return task.Apps{}, errdefs.ErrNotFound.WithMessage("image deskrun/none: no such image")
		}
		return task.Apps{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close(context.Background())
	if _, err := rs.Start(api.CreateRunRequest{Tasks: tasks, Image: "deskrun/none"}); !errdefs.IsInvalidArgument(err) ||
		err.Error() != "image: image deskrun/none: no such image" {
		t.Errorf("a run on an image Apps cannot read: %v", err)
	}
	r, err := rs.Start(api.CreateRunRequest{Tasks: tasks, Cache: cache, URLMap: urlMap, Offline: true, Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	r = waitRun(t, rs, r.ID)
	if r.Status != api.RunFinished || r.Passed != 1 || r.Skipped != 2 || r.Errors != 0 {
		t.Errorf("run %+v, want finished with 1 passed and 2 skipped", r)
	}
	results, err := ReadResults(filepath.Join(r.Out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range results {
		switch res.ID {
		case "mirrored":
			if res.Status != StatusPassed {
				t.Errorf("mirrored: %+v", res)
			}
		case "unmapped":
			if res.Status != StatusSkipped || !strings.Contains(res.Error, "http://files.invalid/other.txt, which is neither in the cache nor in the URL map") {
				t.Errorf("unmapped: %+v", res)
			}
		case "editor":
			if res.Status != StatusSkipped || res.Attempts != 0 || !strings.Contains(res.Error, "config[0] (launch): needs VS Code") {
				t.Errorf("editor: %+v, want skipped at load for want of VS Code", res)
			}
		}
	}
	cached, _ := filepath.Glob(filepath.Join(cache, "mirrored", "*_in.txt"))
	if len(cached) != 1 {
		t.Errorf("cache holds %q, want mirrored/<uuid5>_in.txt", cached)
	} else if b, _ := os.ReadFile(cached[0]); string(b) != "mirrored bytes" {
		t.Errorf("%s = %q", cached[0], b)
	}
	if want := []string{"|deskrun/none", "|"}; strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("Apps asked for %q, want %q", asked, want)
	}
}
