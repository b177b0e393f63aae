package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

func withEvaluator(ev string) string {
	return `{"id": "t", "instruction": "x", "evaluator": ` + ev + `}`
}

func TestGetters(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gold.txt"), []byte("gold"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	f := newFake()
	f.files["/home/user/a.txt"] = []byte("A")
	f.files["/home/user/b.txt"] = []byte("B")
	f.windows = []api.Window{{ID: 7, Title: "vlc media", Class: "vlc.Vlc"}, {ID: 0x1a00007, Title: "Terminal", Class: "xterm.XTerm"}}
	f.exec = func(req api.ExecRequest) api.ExecResult {
		switch req.Cmd[0] {
		case "xwininfo":
			if req.Cmd[2] != "27262983" {
				return api.ExecResult{ExitCode: 1, Stderr: "bad window"}
			}
			return api.ExecResult{Stdout: "xwininfo: Window id: 0x1a00007 \"Terminal\"\n  Width: 484\n  Height: 316\n  Depth: 24\n"}
		case "sh":
			if strings.Contains(req.Cmd[2], "find -L") {
				if req.Cmd[4] != "/home/user/photos" {
					return api.ExecResult{ExitCode: 3}
				}
				return api.ExecResult{Stdout: "d hk\x00f hk/a.jpg\x00f top.jpg\x00d hk/empty\x00"}
			}
			return api.ExecResult{Stdout: "out\n", Stderr: "err\n"}
		}
		return api.ExecResult{}
	}
	tk := parseTask(t, withEvaluator(`{"func": "infeasible"}`), dir)
	r, done, err := newRun(f, tk, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	tests := []struct {
		getter string
		want   string // py.Repr of the value
	}{
		{`{"type": "vm_command_line", "command": "echo out", "shell": true}`, `'out\n'`},
		{`{"type": "vm_command_error", "command": "echo err >&2", "shell": true}`, `'err\n'`},
		{`{"type": "vm_file", "path": "~/a.txt", "dest": "a.txt"}`, repr(filepath.Join(cache, "a.txt"))},
		{`{"type": "vm_file", "path": "/nope", "dest": "n.txt"}`, `None`},
		{`{"type": "vm_file", "path": ["/home/user/a.txt", "/nope", "/home/user/b.txt"], "dest": ["1", "2", "3"], "multi": true, "gives": [0, 1, 2]}`,
			"[" + repr(filepath.Join(cache, "1")) + ", None, " + repr(filepath.Join(cache, "3")) + "]"},
		{`{"type": "vm_file", "path": ["/home/user/a.txt", "/home/user/b.txt"], "dest": ["x", "y"], "multi": true, "gives": [1]}`, repr(filepath.Join(cache, "y"))},
		{`{"type": "vm_file", "path": ["/home/user/a.txt", "/home/user/b.txt"], "dest": ["x", "y"], "multi": true}`, repr(filepath.Join(cache, "x"))},
		{`{"type": "cloud_file", "path": "gold.txt", "dest": "gold.copy"}`, repr(filepath.Join(cache, "gold.copy"))},
		{`{"type": "list_directory", "path": "~/photos"}`,
			`{'children': [{'children': [{'name': 'a.jpg', 'type': 'file'}, {'children': [], 'name': 'empty', 'type': 'directory'}], 'name': 'hk', 'type': 'directory'}, {'name': 'top.jpg', 'type': 'file'}], 'name': 'photos', 'type': 'directory'}`},
		{`{"type": "list_directory", "path": "/not/a/dir"}`, `None`},
		{`{"type": "vm_screen_size"}`, `{'height': 800, 'width': 1280}`},
		{`{"type": "vm_window_size", "app_class_name": "XTERM"}`, `{'height': 316, 'width': 484}`},
		{`{"type": "vm_window_size", "app_class_name": "chromium"}`, `None`},
		{`{"type": "rule", "rules": {"expected": ["{SCREEN_WIDTH}"]}}`, `{'expected': ['1280']}`},
		{`{"type": "cache_file", "path": "gold.txt"}`, repr(filepath.Join(dir, "gold.txt"))},
	}
	for _, tt := range tests {
		g, err := buildGetter(jv(t, tt.getter), "g")
		if err != nil {
			t.Fatalf("%s: %v", tt.getter, err)
		}
		v, err := r.get(t.Context(), g)
		if err != nil {
			t.Errorf("%s: %v", tt.getter, err)
			continue
		}
		if got := py.Repr(v); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.getter, got, tt.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(cache, "3")); string(data) != "B" {
		t.Errorf("cached file 3 = %q, want B", data)
	}
	g, _ := buildGetter(jv(t, `{"type": "cache_file", "path": "missing.txt"}`), "g")
	if _, err := r.get(t.Context(), g); err == nil {
		t.Error("cache_file of a missing file: no error")
	}
}

func repr(s string) string { return py.Repr(s) }

// scoringSandbox answers vm_command_line commands "echo N" with N.
func scoringSandbox() *fakeSandbox {
	f := newFake()
	f.exec = func(req api.ExecRequest) api.ExecResult {
		if req.Cmd[0] == "sh" {
			return api.ExecResult{Stdout: strings.TrimPrefix(req.Cmd[2], "echo ")}
		}
		return api.ExecResult{}
	}
	return f
}

func TestEvaluateConj(t *testing.T) {
	fuzzy := func(out, want string) (string, string) {
		return `{"type": "vm_command_line", "command": "echo ` + out + `", "shell": true}`,
			`{"type": "rule", "rules": {"expected": "` + want + `"}}`
	}
	list := func(conj string, pairs ...[2]string) string {
		var funcs, results, expected []string
		for _, p := range pairs {
			r, e := fuzzy(p[0], p[1])
			funcs = append(funcs, `"fuzzy_match"`)
			results = append(results, r)
			expected = append(expected, e)
		}
		return `{"func": [` + strings.Join(funcs, ",") + `], "conj": "` + conj + `", "result": [` + strings.Join(results, ",") +
			`], "expected": [` + strings.Join(expected, ",") + `]}`
	}
	tests := []struct {
		name    string
		ev      string
		want    float64
		skipped int
	}{
		{"single fractional", `{"func": "fuzzy_match", "result": {"type": "vm_command_line", "command": "echo 13245", "shell": true}, "expected": {"type": "rule", "rules": {"expected": "12345"}}}`, 0.8, 0},
		{"and averages", list("and", [2]string{"13245", "12345"}, [2]string{"a", "a"}), 0.9, 0},
		{"and stops at 0", list("and", [2]string{"x", "y"}, [2]string{"a", "a"}), 0, 1},
		{"or takes the max", list("or", [2]string{"13245", "12345"}, [2]string{"x", "y"}), 0.8, 0},
		{"or stops at 1", list("or", [2]string{"a", "a"}, [2]string{"x", "y"}), 1, 1},
		{"list of one uses conj", list("and", [2]string{"13245", "12345"}), 0.8, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tk := parseTask(t, withEvaluator(tt.ev), "")
			res, err := Evaluate(t.Context(), scoringSandbox(), tk, EvalOptions{LastAction: ActionDone})
			if err != nil {
				t.Fatal(err)
			}
			if d := res.Score - tt.want; d > 1e-9 || d < -1e-9 {
				t.Errorf("score = %v, want %v (%+v)", res.Score, tt.want, res.Metrics)
			}
			skipped := 0
			for _, m := range res.Metrics {
				if m.Skipped {
					skipped++
				}
			}
			if skipped != tt.skipped {
				t.Errorf("%d metrics skipped, want %d", skipped, tt.skipped)
			}
		})
	}
}

func TestEvaluateInfeasibleAndFail(t *testing.T) {
	infeasible := parseTask(t, withEvaluator(`{"func": "infeasible"}`), "")
	feasible := parseTask(t, withEvaluator(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": "echo ok", "shell": true}, "expected": {"type": "rule", "rules": {"expected": "ok"}}}`), "")
	tests := []struct {
		task *Task
		last string
		want float64
	}{
		{infeasible, ActionFail, 1},
		{infeasible, ActionDone, 0},
		{infeasible, "", 0},
		{feasible, ActionDone, 1},
		{feasible, "", 1},
		{feasible, ActionFail, 0},
	}
	for _, tt := range tests {
		f := scoringSandbox()
		res, err := Evaluate(t.Context(), f, tt.task, EvalOptions{LastAction: tt.last})
		if err != nil {
			t.Fatal(err)
		}
		if res.Score != tt.want {
			t.Errorf("%s with last action %q: score %v, want %v", tt.task.Evaluator.Func, tt.last, res.Score, tt.want)
		}
		if tt.last == ActionFail && !tt.task.Evaluator.Infeasible() && len(f.execs) != 0 {
			t.Errorf("getters ran after FAIL: %v", f.execs)
		}
	}
}

func TestEvaluatePostconfigRunsFirst(t *testing.T) {
	f := newFake()
	f.exec = func(req api.ExecRequest) api.ExecResult {
		if req.Cmd[0] == "save" {
			f.files["/home/user/doc.txt"] = []byte("saved")
		}
		return api.ExecResult{}
	}
	tk := parseTask(t, withEvaluator(`{
		"postconfig": [{"type": "execute", "parameters": {"command": ["save"]}}],
		"func": "file_contains",
		"result": {"type": "vm_file", "path": "~/doc.txt", "dest": "doc.txt"},
		"expected": {"type": "rule", "rules": {"expected": ["saved"]}}}`), "")
	res, err := Evaluate(t.Context(), f, tk, EvalOptions{})
	if err != nil || res.Score != 1 {
		t.Errorf("Evaluate = %+v, %v, want 1", res, err)
	}
}

// TestGet runs single getters of a task's evaluator and returns their
// values, as Evaluate would give them to the metric: a fetched file's
// cache path, a command's output, nil for a file that is not there.
func TestGet(t *testing.T) {
	f := newFake()
	f.files["/home/user/a.txt"] = []byte("A")
	f.exec = func(req api.ExecRequest) api.ExecResult { return api.ExecResult{Stdout: "out\n", Stderr: "err\n"} }
	tk, err := Parse([]byte(withEvaluator(`{"func": ["exact_match", "exact_match"],
	  "result": [{"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt"}, {"type": "vm_command_line", "command": "echo out"}],
	  "expected": [{"type": "vm_file", "path": "/home/user/none.txt", "dest": "none.txt"}, {"type": "rule", "rules": {"expected": "{SCREEN_WIDTH}"}}]}`)), FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	opts := Options{CacheDir: cache}
	ev := tk.Evaluator
	got, err := Get(t.Context(), f, tk, ev.Result[0], opts)
	if want := filepath.Join(cache, "a.txt"); err != nil || got != want {
		t.Errorf("vm_file: %v, %v; want %q", got, err, want)
	} else if b, err := os.ReadFile(want); err != nil || string(b) != "A" {
		t.Errorf("vm_file's copy: %q, %v", b, err)
	}
	if got, err := Get(t.Context(), f, tk, ev.Expected[0], opts); err != nil || got != nil {
		t.Errorf("vm_file of a missing file: %v, %v; want nil", got, err)
	}
	if got, err := Get(t.Context(), f, tk, ev.Result[1], opts); err != nil || got != "out\n" {
		t.Errorf("vm_command_line: %q, %v", got, err)
	}
	if got, err := Get(t.Context(), f, tk, ev.Expected[1], opts); err != nil || py.Repr(got) != py.Repr(map[string]any{"expected": "1280"}) {
		t.Errorf("rule with a placeholder: %v, %v", got, err)
	}
	if _, err := Get(t.Context(), f, tk, &Getter{Type: "nonesuch"}, opts); err == nil || !strings.Contains(err.Error(), "nonesuch") {
		t.Errorf("unknown getter: %v", err)
	}
}
