package main

import (
	"bytes"
	"strings"
	"testing"
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
