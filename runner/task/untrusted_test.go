package task

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
)

// TestUntrustedTasks loads the task files of testdata/untrusted, each
// an attempt to read the runner host or to crash or hang the loader:
// every one is refused with an error naming the file, the task, the
// field and why, and none of them takes long.
func TestUntrustedTasks(t *testing.T) {
	dir := filepath.Join("testdata", "untrusted")
	want := map[string]string{
		"upload-etc-shadow.json":  `task "upload-etc-shadow": config[0].parameters.files[0].local_path: /etc/shadow: outside the folder`,
		"upload-dotdot.yaml":      `task "upload-dotdot": config[0].parameters.files[0].local_path: ../../../../../../etc/passwd: outside the folder`,
		"download-file-url.json":  `task "download-file-url": config[0].parameters.files[0].url: /proc/self/environ: outside the folder`,
		"cloud-file-environ.json": `task "cloud-file-environ": evaluator.result.path: /proc/self/environ: outside the folder`,
		"cloud-file-multi.json":   `task "cloud-file-multi": evaluator.result.path[1]: ../../../../../etc/shadow: outside the folder`,
		"cache-file-escape.json":  `task "cache-file-escape": evaluator.result.path: "../../../../../../etc/passwd": must not leave the cache folder`,
		"yaml-alias-cycle.yaml":   `decode yaml: line 1: alias *a refers to a value that holds it`,
		"yaml-alias-bomb.yaml":    `decode yaml: line 3: the document expands to more than 1048576 values`,
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := LoadFile(filepath.Join(dir, name))
			if err == nil || !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), w) {
				t.Errorf("LoadFile = %v\nwant an invalid-argument error with %s", err, w)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok && formatOf(e.Name()) != "" {
			t.Errorf("%s is not tested", e.Name())
		}
	}
}

// TestHostReadsConfined: what the letters of a path cannot show at load
// (a link in the task's folder that leads out, a named pipe, a device)
// is refused when setup or grading reads it, as the task's error, and
// the content of the file outside never reaches the result.
func TestHostReadsConfined(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(root, "secret")
	if err := os.WriteFile(secret, []byte("DESKRUN_TOKEN=hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "tasks", "files")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"leak.txt": secret, "zero": "/dev/zero", "env": "/proc/self/environ"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gold.txt"), []byte("gold"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, want string }{
		{"leak.txt", "a link leads out"},
		{"zero", "a link leads out"},
		{"env", "a link leads out"},
		{"fifo", "not a regular file (a named pipe)"},
		{"file://" + filepath.Join(dir, "leak.txt"), "a link leads out"},
	} {
		start := time.Now()
		tk := parseTask(t, withConfig(`[{"type": "upload_file", "parameters": {"files": [{"local_path": "`+c.src+`", "path": "/tmp/x"}]}}]`), dir)
		err := Setup(t.Context(), newFake(), tk, Options{CacheDir: t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "config[0] (upload_file)") {
			t.Errorf("upload %s: %v, want %q", c.src, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("upload %s: the secret reached the error: %v", c.src, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("upload %s took %s", c.src, d)
		}
	}

	tk := parseTask(t, `{"id": "t", "instruction": "x", "evaluator": {"func": "compare_text_file",
		"result": {"type": "cloud_file", "path": "leak.txt", "dest": "leak"},
		"expected": {"type": "cloud_file", "path": "gold.txt", "dest": "gold"}}}`, dir)
	res, err := Evaluate(t.Context(), newFake(), tk, EvalOptions{Options: Options{CacheDir: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "a link leads out") || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("cloud_file through a link: %+v, %v", res, err)
	}

	// A task without a folder reads nothing on the host.
	tk = parseTask(t, withConfig(`[{"type": "upload_file", "parameters": {"files": [{"local_path": "`+secret+`", "path": "/tmp/x"}]}}]`), "")
	if err := Setup(t.Context(), newFake(), tk, Options{}); err == nil || !strings.Contains(err.Error(), "the task has no folder") {
		t.Errorf("no folder: %v", err)
	}
}

// TestGradingUnderDeadline: grading shares the task's deadline. A
// backtracking rule in check_list and diff_text_file on two files of
// 195 kB that take seconds each end soon after the deadline with an
// error that names the metric and says the time ran out (the farm's
// "timeout"), not a score.
func TestGradingUnderDeadline(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	text := func() []byte {
		var b strings.Builder
		for b.Len() < 195_000 {
			fmt.Fprintf(&b, "line %d\n", r.Intn(150))
		}
		return []byte(b.String())
	}
	f := newFake()
	f.files["/home/user/a.txt"], f.files["/home/user/b.txt"] = text(), text()
	f.files["/home/user/log.txt"] = []byte(strings.Repeat(strings.Repeat("a", 40)+"!\n", 200))
	for _, c := range []struct{ metric, ev string }{
		{"check_list", `{"func": "check_list", "result": {"type": "vm_file", "path": "/home/user/log.txt", "dest": "log.txt"},
			"expected": {"type": "rule", "rules": {"expect": ["(?=a)(a|aa)+$"], "unexpect": []}}}`},
		{"diff_text_file", `{"func": "diff_text_file", "result": {"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt"},
			"expected": {"type": "vm_file", "path": "/home/user/b.txt", "dest": "b.txt"}}`},
	} {
		tk := parseTask(t, withEvaluator(c.ev), t.TempDir())
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		start := time.Now()
		res, err := Evaluate(ctx, f, tk, EvalOptions{Options: Options{CacheDir: t.TempDir()}})
		took := time.Since(start)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.metric+": the task's time ran out") || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %+v, %v; want the time ran out", c.metric, res, err)
		}
		if took > 2*time.Second {
			t.Errorf("%s: ended %s after the start, deadline 300ms", c.metric, took)
		}
	}
}

// TestHostBytesBounded: vm_file with multi copying one file ten times
// stops at the task's bound, and two tasks under one run's bound stop at
// the run's, each with an error naming the bound; nothing past it is
// written.
func TestHostBytesBounded(t *testing.T) {
	f := newFake()
	f.files["/home/user/big.bin"] = make([]byte, 1<<20)
	ev := `{"func": "compare_text_file", "result": {"type": "vm_file", "multi": true,
		"path": ["/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin",
			"/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin", "/home/user/big.bin"],
		"dest": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]}, "expected": {"type": "rule", "rules": {}}}`
	tk := parseTask(t, withEvaluator(ev), t.TempDir())
	cache := t.TempDir()
	task := NewHostBytes(3<<20, "a task", nil)
	_, err := Evaluate(t.Context(), f, tk, EvalOptions{Options: Options{CacheDir: cache, HostBytes: task}})
	if !errdefs.IsResourceExhausted(err) || !strings.Contains(err.Error(), "would pass the limit of 3145728 bytes a task may copy") {
		t.Errorf("task bound: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 3 || task.Used() != 3<<20 {
		t.Errorf("%d files written, %d bytes counted; want 3 and 3 MiB", len(entries), task.Used())
	}

	run := NewHostBytes(5<<20, "the run", nil)
	var errs []string
	for range 2 {
		_, err := Evaluate(t.Context(), f, tk, EvalOptions{Options: Options{CacheDir: t.TempDir(), HostBytes: NewHostBytes(4<<20, "a task", run)}})
		errs = append(errs, fmt.Sprint(err))
	}
	if !strings.Contains(errs[0], "bytes a task may copy") || !strings.Contains(errs[1], "bytes the run may copy") || run.Used() != 5<<20 {
		t.Errorf("run bound: %q, used %d", errs, run.Used())
	}
}
