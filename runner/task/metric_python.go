package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Python test-suite metric. check_python_file_by_test_suite runs a task's
// test suite (a Python file fetched as expected, beside the result files
// it imports) in a python3 child process on the host with a deadline,
// calls its test function (option test_function_name, default "test")
// and scores 1 when it returns a true value; an exception, a false value,
// an exit or the deadline score 0. Like OSWorld's evaluator, this runs
// the task's code (and through it the files the agent wrote) on the
// grading host.

func init() {
	addMetrics(map[string]metricSpec{
		"check_python_file_by_test_suite": {fn: checkPythonTestSuite, needsExpected: true, checkOptions: checkTestSuiteOptions},
	})
}

const pythonTestSuiteTimeout = 120 * time.Second

// pythonTestDriver loads argv[1] as a module and calls argv[2]; exit
// status 0 means a true result, 3 a false one, and anything else a
// failure with its traceback on stderr.
const pythonTestDriver = `import importlib.util, sys
path, name = sys.argv[1], sys.argv[2]
sys.argv = [path]
spec = importlib.util.spec_from_file_location("dynamic_module", path)
mod = importlib.util.module_from_spec(spec)
sys.modules["dynamic_module"] = mod
spec.loader.exec_module(mod)
ok = getattr(mod, name)()
sys.stdout.flush()
import os
os._exit(0 if ok else 3)
`

func checkTestSuiteOptions(opts map[string]any) error {
	for k, v := range opts {
		if k != "test_function_name" {
			continue
		}
		if s, ok := v.(string); !ok || s == "" {
			return fmt.Errorf("test_function_name: want a name, got %s", typeName(v))
		}
	}
	return nil
}

func checkPythonTestSuite(env metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result files", nil
	}
	if l, ok := result.([]any); ok {
		for i, f := range l {
			if f == nil {
				return 0, fmt.Sprintf("result file %d missing", i), nil
			}
		}
	}
	suite, ok := expected.(string)
	if !ok {
		return 0, fmt.Sprintf("expected: want the test suite's path, got %s", typeName(expected)), nil
	}
	if _, err := os.Stat(suite); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, "expected: " + suite + ": file not found", nil
		}
		return 0, "", err
	}
	fn := "test"
	if s, ok := opts["test_function_name"].(string); ok && s != "" {
		fn = s
	}
	parent := env.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, pythonTestSuiteTimeout)
	defer cancel()
	abs, err := filepath.Abs(suite)
	if err != nil {
		return 0, "", err
	}
	cmd := exec.CommandContext(ctx, "python3", "-c", pythonTestDriver, abs, fn)
	cmd.Dir = filepath.Dir(abs)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH="+cmd.Dir)
	cmd.WaitDelay = 2 * time.Second
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil && parent.Err() == nil {
		return 0, fmt.Sprintf("the test suite ran past %s", pythonTestSuiteTimeout), nil
	}
	if err == nil {
		return 1, "", nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, "", fmt.Errorf("python3: %w", err)
	}
	if ee.ExitCode() == 3 {
		return 0, fmt.Sprintf("%s() returned a false value", fn), nil
	}
	return 0, "the test suite failed: " + truncate(lastLines(out.String(), 5), 500), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
