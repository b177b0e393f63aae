package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/runner/task"
)

// tasks check skips the tasks needing VS Code unless told the sandboxes
// have it.
func TestTasksCheckVSCode(t *testing.T) {
	const dir = "../../runner/task/testdata/vscode"
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"tasks", "check", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "vs_code/launch: config[1] (launch): needs VS Code") ||
		!strings.Contains(out.String(), "vs_code       1        5        0") {
		t.Errorf("without VS Code:\n%s", out.String())
	}
	out.Reset()
	if code := run(t.Context(), []string{"tasks", "check", dir, "--vscode"}, &out, &errOut); code != 0 {
		t.Fatalf("--vscode: exit %d: %s", code, errOut.String())
	}
	if strings.Contains(out.String(), "skipped:") || !strings.Contains(out.String(), "vs_code       6        0        0") {
		t.Errorf("with --vscode:\n%s", out.String())
	}
	errOut.Reset()
	if code := run(t.Context(), []string{"tasks", "check", dir, "--vscode", "--image", "deskrun/osworld"}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), "--image and --vscode") {
		t.Errorf("--image with --vscode: exit %d: %s", code, errOut.String())
	}
}

func TestTasksNames(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"tasks", "names"}, &out, &errOut); code != 0 {
		t.Fatalf("tasks names: %d %s", code, errOut.String())
	}
	for _, want := range []string{"step    execute", "getter  vm_file", "metric  compare_table", "googledrive", "no: needs Google Drive credentials"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("tasks names lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(t.Context(), []string{"tasks", "names", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("tasks names --json: %d %s", code, errOut.String())
	}
	var names []task.Name
	if err := json.Unmarshal(out.Bytes(), &names); err != nil || len(names) < 150 {
		t.Fatalf("tasks names --json: %d names, %v", len(names), err)
	}
}

func TestTasksGrade(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("X,Y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare_csv", "--result", a, "--expected", b}, 0, "compare_csv: 0\nline 1:"},
		{[]string{"compare_csv", "--result", a, "--expected", b, "--options", `{"ignore_case": true}`}, 0, "compare_csv: 1\n"},
		{[]string{"exact_match", "--result", `"Thomas"`, "--expected", `{"expected": "Thomas"}`, "--json"}, 0, `{"detail":"","metric":"exact_match","score":1}`},
		{[]string{"check_include_exclude", "--result", "all fine", "--expected", `{"include": ["fine"]}`}, 0, "check_include_exclude: 1\n"},
		{[]string{"nope", "--result", "x"}, 1, ""},
		{[]string{"compare_images", "--result", a, "--expected", b, "--options", `{"bad": 1}`}, 1, ""},
		{[]string{"compare_csv", "--expected", b}, 2, ""},
	} {
		var out, errOut bytes.Buffer
		code := run(t.Context(), append([]string{"tasks", "grade"}, tt.args...), &out, &errOut)
		if code != tt.code || !strings.HasPrefix(out.String(), tt.want) {
			t.Errorf("tasks grade %q: exit %d, output %q (stderr %q), want exit %d and output starting %q", tt.args, code, out.String(), errOut.String(), tt.code, tt.want)
		}
	}
}
