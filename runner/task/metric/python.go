package metric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/deskrun/deskrun/internal/py"
)

// Python test-suite metric. check_python_file_by_test_suite runs a task's
// test suite (a Python file fetched as expected, beside the result files
// it imports) in a python3 child process on the host with a deadline and
// calls its test function (option test_function_name, default "test"),
// scoring as OSWorld does: a bool 1 or 0, a number clamped to [0, 1],
// anything else by its truth; an exception (SystemExit too), a missing
// or uncallable function, or the deadline score 0. The result files are
// not read: OSWorld only runs the suite in their folder. Like OSWorld's
// evaluator, this runs the task's code (and through it the files the
// agent wrote) on the grading host.

const pythonTestSuiteTimeout = 120 * time.Second

// pythonTestDriver loads argv[1] as a module, calls argv[2] and writes
// the score to the file argv[3]; nothing is written when the suite fails,
// and its traceback is on stderr.
const pythonTestDriver = `import importlib.util, os, sys, traceback
path, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
sys.argv = [path]
try:
    spec = importlib.util.spec_from_file_location("dynamic_test_module", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["dynamic_test_module"] = mod
    spec.loader.exec_module(mod)
    fn = getattr(mod, name)
    if not callable(fn):
        raise TypeError("%s is not callable" % name)
    r = fn()
    if isinstance(r, bool):
        score = 1.0 if r else 0.0
    elif isinstance(r, (int, float)):
        score = max(0.0, min(1.0, float(r)))
    else:
        score = 1.0 if bool(r) else 0.0
except BaseException:
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(1)
sys.stdout.flush()
with open(out, "w") as f:
    f.write(repr(score))
os._exit(0)
`

func checkTestSuiteOptions(opts map[string]any) error {
	for k, v := range opts {
		if k != "test_function_name" {
			continue
		}
		if s, ok := v.(string); !ok || s == "" {
			return fmt.Errorf("test_function_name: want a name, got %s", py.TypeName(v))
		}
	}
	return nil
}

// checkPythonTestSuite implements OSWorld's
// check_python_file_by_test_suite
// (desktop_env/evaluators/metrics/vscode.py).
func checkPythonTestSuite(ctx context.Context, _, expected any, opts map[string]any) (float64, string, error) {
	suite, ok := expected.(string)
	if !ok {
		return 0, fmt.Sprintf("expected: want the test suite's path, got %s", py.TypeName(expected)), nil
	}
	if fi, err := os.Stat(suite); err != nil || !fi.Mode().IsRegular() {
		return 0, "expected: " + suite + ": no such file", nil
	}
	fn := "test"
	if s, ok := opts["test_function_name"].(string); ok && s != "" {
		fn = s
	}
	parent := ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, pythonTestSuiteTimeout)
	defer cancel()
	abs, err := filepath.Abs(suite)
	if err != nil {
		return 0, "", err
	}
	scoreFile, err := os.CreateTemp("", "deskrun-suite-*")
	if err != nil {
		return 0, "", err
	}
	scoreFile.Close()
	defer os.Remove(scoreFile.Name())
	cmd := exec.CommandContext(ctx, "python3", "-c", pythonTestDriver, abs, fn, scoreFile.Name())
	cmd.Dir = filepath.Dir(abs)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+cmd.Dir)
	cmd.WaitDelay = 2 * time.Second
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil && parent.Err() == nil {
		return 0, fmt.Sprintf("the test suite ran past %s", pythonTestSuiteTimeout), nil
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, "", fmt.Errorf("python3: %w", err)
	}
	b, _ := os.ReadFile(scoreFile.Name())
	score, perr := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || perr != nil {
		return 0, "the test suite failed: " + py.Truncate(lastLines(out.String(), 5), 500), nil
	}
	if score < 1 {
		return score, fmt.Sprintf("%s() scored %s", fn, strings.TrimSpace(string(b))), nil
	}
	return score, "", nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
