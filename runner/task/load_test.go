package task

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
)

// suiteDir is the shipped task suite.
const suiteDir = "../../tasks"

func TestShippedSuiteLoads(t *testing.T) {
	tasks, err := Load(suiteDir)
	if err != nil {
		t.Fatalf("Load(%s): %v", suiteDir, err)
	}
	if len(tasks) < 25 {
		t.Errorf("got %d tasks, want at least 25", len(tasks))
	}
	domains := map[string]int{}
	formats := map[string]int{}
	for _, tk := range tasks {
		domains[tk.Domain]++
		formats[filepath.Ext(tk.Path)]++
		if len(tk.Solution) == 0 {
			t.Errorf("task %q has no reference solution", tk.ID)
			continue
		}
		last := tk.Solution[len(tk.Solution)-1]
		var args struct{ Action string }
		_ = json.Unmarshal(last.Args, &args)
		wantEnd := "done"
		if tk.Evaluator.Infeasible() {
			wantEnd = "fail"
		}
		if last.Dialect != "osworld" || last.Tool != "desktop_control" || args.Action != wantEnd {
			t.Errorf("task %q: solution ends with %s/%s %s, want osworld/desktop_control %q", tk.ID, last.Dialect, last.Tool, last.Args, wantEnd)
		}
		for i, c := range tk.Solution {
			if !json.Valid(c.Args) {
				t.Errorf("task %q: solution[%d].args is not JSON", tk.ID, i)
			}
		}
	}
	for _, d := range []string{"files", "shell", "terminal", "gui", "infeasible"} {
		if domains[d] == 0 {
			t.Errorf("no task in domain %q", d)
		}
	}
	if formats[".json"] == 0 || formats[".yaml"] == 0 {
		t.Errorf("formats %v, want both JSON and YAML tasks", formats)
	}
	t.Logf("%d tasks: %v, %v", len(tasks), domains, formats)
}

// TestYAMLMatchesJSON checks that both forms describe the same model.
func TestYAMLMatchesJSON(t *testing.T) {
	js := `{
  "id": "t1", "snapshot": "os", "instruction": "do {SCREEN_WIDTH}",
  "config": [{"type": "execute", "parameters": {"command": ["python", "-c", "x"], "shell": false}},
             {"type": "sleep", "parameters": {"seconds": 0.5}}],
  "related_apps": ["os"],
  "evaluator": {"func": ["exact_match", "check_json"], "conj": "or",
    "result": [{"type": "vm_command_line", "command": "echo 1", "shell": true},
               {"type": "vm_file", "path": "/tmp/a.json", "dest": "a.json"}],
    "expected": [{"type": "rule", "rules": {"expected": "1\n"}},
                 {"type": "rule", "rules": {"expect": [{"key": ["a"], "method": "eq", "ref": 1.0}]}}],
    "options": [{}, {"is_yaml": false}]},
  "proxy": false, "fixed_ip": true, "possibility_of_env_change": "low",
  "solution": [{"dialect": "anthropic", "tool": "bash", "args": {"command": "echo 1"}}]
}`
	yml := `
id: t1
snapshot: os
instruction: do {SCREEN_WIDTH}
config:
  - type: execute
    parameters: {command: [python, -c, x], shell: false}
  - {type: sleep, parameters: {seconds: 0.5}}
related_apps: [os]
evaluator:
  func: [exact_match, check_json]
  conj: or
  result:
    - {type: vm_command_line, command: echo 1, shell: true}
    - {type: vm_file, path: /tmp/a.json, dest: a.json}
  expected:
    - {type: rule, rules: {expected: "1\n"}}
    - {type: rule, rules: {expect: [{key: [a], method: eq, ref: 1.0}]}}
  options: [{}, {is_yaml: false}]
proxy: false
fixed_ip: true
possibility_of_env_change: low
solution:
  - {dialect: anthropic, tool: bash, args: {command: echo 1}}
`
	a, err := Parse([]byte(js), FormatJSON)
	if err != nil {
		t.Fatalf("Parse json: %v", err)
	}
	b, err := Parse([]byte(yml), FormatYAML)
	if err != nil {
		t.Fatalf("Parse yaml: %v", err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("JSON and YAML differ:\n json: %s\n yaml: %s", ja, jb)
	}
	if !a.FixedIP || a.Proxy || a.Evaluator.Conj != "or" || !a.Evaluator.List || len(a.Config) != 2 {
		t.Errorf("fields not read: %+v", a)
	}
	// 1.0 stays a float, as Python's json keeps it.
	ref := a.Evaluator.Expected[1].Params["rules"].(map[string]any)["expect"].([]any)[0].(map[string]any)["ref"]
	if ref != json.Number("1.0") {
		t.Errorf("ref = %#v, want json.Number(\"1.0\")", ref)
	}
	if b.Evaluator.Expected[1].Params["rules"].(map[string]any)["expect"].([]any)[0].(map[string]any)["ref"] != json.Number("1.0") {
		t.Errorf("yaml ref not kept as float 1.0")
	}
}

func TestLoadErrors(t *testing.T) {
	base := func(evaluator string) string {
		return `{"id": "abc", "instruction": "x", "evaluator": ` + evaluator + `}`
	}
	tests := []struct {
		name string
		json string
		want string
	}{
		{"unknown getter", base(`{"func": ["exact_match", "exact_match"],
			"result": [{"type": "vm_command_line", "command": "x"}, {"type": "vm_foo"}],
			"expected": [{"type": "rule", "rules": {"expected": 1}}, {"type": "rule", "rules": {"expected": 1}}]}`),
			`task "abc": evaluator.result[1]: unknown getter type "vm_foo"`},
		{"unknown metric", base(`{"func": "not_a_metric", "result": {"type": "vm_file", "path": "a", "dest": "a"}}`),
			`task "abc": evaluator.func: unknown metric "not_a_metric"`},
		{"unknown step", `{"id": "abc", "instruction": "x", "config": [{"type": "sleep", "parameters": {"seconds": 1}}, {"type": "vm_teleport", "parameters": {}}], "evaluator": {"func": "infeasible"}}`,
			`task "abc": config[1]: unknown setup step type "vm_teleport"`},
		{"unknown postconfig step", base(`{"func": "infeasible", "postconfig": [{"type": "fly", "parameters": {}}]}`),
			`task "abc": evaluator.postconfig[0]: unknown setup step type "fly"`},
		{"unknown step parameter", `{"id": "abc", "instruction": "x", "config": [{"type": "open", "parameters": {"path": "/a", "app": "x"}}], "evaluator": {"func": "infeasible"}}`,
			`task "abc": config[0].parameters.app: unknown parameter`},
		{"missing command", `{"id": "abc", "instruction": "x", "config": [{"type": "execute", "parameters": {"shell": true}}], "evaluator": {"func": "infeasible"}}`,
			`task "abc": config[0].parameters.command: required`},
		{"bad sleep", `{"id": "abc", "instruction": "x", "config": [{"type": "sleep", "parameters": {"seconds": "2"}}], "evaluator": {"func": "infeasible"}}`,
			`task "abc": config[0].parameters.seconds: want a number, got string`},
		{"ftp download", `{"id": "abc", "instruction": "x", "config": [{"type": "download", "parameters": {"files": [{"url": "ftp://h/a", "path": "/a"}]}}], "evaluator": {"func": "infeasible"}}`,
			`unsupported URL scheme "ftp"`},
		{"no expected", base(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": "x"}}`),
			`task "abc": evaluator.expected: required by metric "exact_match"`},
		{"list lengths", base(`{"func": ["exact_match", "exact_match"], "result": [{"type": "rule", "rules": 1}], "expected": []}`),
			`task "abc": evaluator.result: 1 entries for 2 metrics`},
		{"bad conj", base(`{"func": "infeasible", "conj": "xor"}`),
			`task "abc": evaluator.conj: want "and" or "or", got 'xor'`},
		{"infeasible in a list", base(`{"func": ["infeasible", "exact_match"]}`),
			`task "abc": evaluator.func[0]: infeasible must be the only metric`},
		{"bad literal type", base(`{"func": "literal_match", "result": {"type": "rule", "rules": 1}, "expected": {"type": "rule", "rules": 1}, "options": {"type": "set"}}`),
			`task "abc": evaluator.options: type: want "str" or "list", got 'set'`},
		{"options on a metric without", base(`{"func": "exact_match", "result": {"type": "rule", "rules": 1}, "expected": {"type": "rule", "rules": {"expected": 1}}, "options": {"x": 1}}`),
			`task "abc": evaluator.options: metric "exact_match" takes no options`},
		{"rule missing expected", base(`{"func": "exact_match", "result": {"type": "rule", "rules": 1}, "expected": {"type": "rule", "rules": {"expect": 1}}}`),
			`task "abc": evaluator.expected.rules: expected: required`},
		{"bad regex in rules", base(`{"func": "check_list", "result": {"type": "vm_file", "path": "a", "dest": "a"}, "expected": {"type": "rule", "rules": {"expect": ["(x"]}}}`),
			`task "abc": evaluator.expected.rules: expect[0]: pattern "(x"`},
		{"dest leaves cache", base(`{"func": "compare_text_file", "result": {"type": "vm_file", "path": "a", "dest": "../x"}, "expected": {"type": "cache_file", "path": "b"}}`),
			`task "abc": evaluator.result.dest: "../x": must not leave the cache folder`},
		{"browse history without title", `{"id": "abc", "instruction": "x", "config": [{"type": "update_browse_history", "parameters": {"history": [{"url": "https://a", "visit_time_from_now_in_seconds": 1}]}}], "evaluator": {"func": "infeasible"}}`,
			`task "abc": config[0].parameters.history[0].title: required`},
		{"dash part return type", base(`{"func": "exact_match", "result": {"type": "url_dashPart", "partIndex": -1, "returnType": "list"}, "expected": {"type": "rule", "rules": {"expected": 1}}}`),
			`task "abc": evaluator.result.returnType: "list" is not one of string, json`},
		{"website action", base(`{"func": "exact_match", "result": {"type": "info_from_website", "url": "https://a", "infos": [{"action": "hover", "selector": "a"}]}, "expected": {"type": "rule", "rules": {"expected": 1}}}`),
			`task "abc": evaluator.result.infos[0].action: "hover" is not one of`},
		{"history dest", base(`{"func": "check_history_deleted", "result": {"type": "history", "dest": "../h"}, "expected": {"type": "rule", "rules": {"type": "keywords", "keywords": ["a"]}}}`),
			`task "abc": evaluator.result.dest: "../h": must not leave the cache folder`},
		{"font size rule", base(`{"func": "check_font_size", "result": {"type": "chrome_font_size"}, "expected": {"type": "rule", "rules": {"type": "largest"}}}`),
			`task "abc": evaluator.expected.rules: type: 'largest' is not supported`},
		{"absolute dest", base(`{"func": "compare_text_file", "result": {"type": "vm_file", "path": "a", "dest": "/etc/x"}, "expected": {"type": "cache_file", "path": "b"}}`),
			`not an absolute path`},
		{"empty func", base(`{"func": "", "result": {"type": "rule", "rules": 1}}`),
			`task "abc": evaluator.func: must not be empty`},
		{"no id", `{"instruction": "x", "evaluator": {"func": "infeasible"}}`, `task "": id: required`},
		{"bad solution", `{"id": "abc", "instruction": "x", "evaluator": {"func": "infeasible"}, "solution": [{"dialect": "osworld"}]}`,
			`task "abc": solution[0].tool: required`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json), FormatJSON)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !errdefs.IsInvalidArgument(err) {
				t.Errorf("error %v is not invalid argument", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadTree(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("os/a.json", `{"id": "a", "instruction": "x", "evaluator": {"func": "infeasible"}}`)
	write("os/sub/b.yml", "id: b\ninstruction: y\ndomain: custom\nevaluator: {func: infeasible}\n")
	write("test_all.json", `{"os": ["a"]}`)
	write("os/data/notes.txt", "not a task")
	tasks, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2 || tasks[0].ID != "a" || tasks[1].ID != "b" {
		t.Fatalf("got %d tasks, want a and b", len(tasks))
	}
	if tasks[0].Domain != "os" || tasks[1].Domain != "custom" {
		t.Errorf("domains %q, %q, want os, custom", tasks[0].Domain, tasks[1].Domain)
	}
	if tasks[0].Dir != filepath.Join(dir, "os") {
		t.Errorf("Dir = %q", tasks[0].Dir)
	}

	write("os/c.yaml", "id: c\ninstruction: y\nevaluator:\n  func: exact_match\n  result: {type: vm_foo}\n  expected: {type: rule, rules: {expected: 1}}\n")
	_, err = Load(dir)
	want := `load ` + filepath.Join(dir, "os/c.yaml") + `: task "c": evaluator.result: unknown getter type "vm_foo"`
	if err == nil || err.Error() != want || !errdefs.IsInvalidArgument(err) {
		t.Errorf("Load = %v, want %q", err, want)
	}
	if err := os.Remove(filepath.Join(dir, "os/c.yaml")); err != nil {
		t.Fatal(err)
	}

	write("os/dup.json", `{"id": "a", "instruction": "x", "evaluator": {"func": "infeasible"}}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `task "a": id already used by`) {
		t.Errorf("duplicate id: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "os/dup.json")); err != nil {
		t.Fatal(err)
	}

	write("os/strict.yaml", "id: s\ninstruction: y\nevaluator: {func: infeasible}\ninstructions: typo\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `task "s": instructions: unknown field`) {
		t.Errorf("unknown yaml field: %v", err)
	}
}

func TestLoadSolution(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sol.yaml")
	content := "- {dialect: osworld, tool: desktop_type, args: {text: \"hi\\n\"}}\n- {dialect: osworld, tool: desktop_control, args: {action: done}}\n"
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	calls, err := LoadSolution(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0].Tool != "desktop_type" || string(calls[0].Args) != `{"text":"hi\n"}` {
		t.Errorf("calls = %+v", calls)
	}
}

// TestLoadRefusesFIFO: a FIFO named like a task file (in a folder or
// named directly) is refused at once instead of hanging the load.
func TestLoadRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "task.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 2)
	go func() { _, err := Load(dir); done <- err }()
	go func() { _, err := Load(fifo); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %v, want a refusal naming the FIFO", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("loading a FIFO hangs")
		}
	}
}
