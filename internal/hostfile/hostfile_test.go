package hostfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/containerd/errdefs"
)

func TestReadIn(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, "tasks", "files")
	cache := filepath.Join(dir, "cache")
	for _, d := range []string{filepath.Join(task, "data"), cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(task, "data", "people.csv"), "name\nada\n")
	write(filepath.Join(cache, "out.txt"), "cached")
	write(filepath.Join(dir, "secret"), "root:x:0:0")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(dir, "secret"), filepath.Join(task, "data", "leak")))
	must(os.Symlink("people.csv", filepath.Join(task, "data", "alias")))
	must(os.Symlink("/etc", filepath.Join(task, "etc")))
	must(syscall.Mkfifo(filepath.Join(task, "fifo"), 0o644))
	must(os.Symlink("/dev/zero", filepath.Join(task, "zero")))
	roots := []string{task, cache}

	for _, c := range []struct{ name, want string }{
		{"data/people.csv", "name\nada\n"},
		{"data/alias", "name\nada\n"},
		{"./data/../data/people.csv", "name\nada\n"},
		{filepath.Join(task, "data", "people.csv"), "name\nada\n"},
		{filepath.Join(cache, "out.txt"), "cached"},
	} {
		got, err := ReadIn(roots, c.name, 1<<20)
		if err != nil || string(got) != c.want {
			t.Errorf("ReadIn(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ name, want string }{
		{"../secret", "outside the folder"},
		{"../../secret", "outside the folder"},
		{"/etc/passwd", "outside the folder"},
		{"/proc/self/environ", "outside the folder"},
		{"data/leak", "a link leads out"},
		{"etc/passwd", "a link leads out"},
		{"fifo", "not a regular file (a named pipe)"},
		{"zero", "a link leads out"},
		{"data", "not a regular file (a folder)"},
	} {
		_, err := ReadIn(roots, c.name, 1<<20)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errdefs.IsInvalidArgument(err) {
			t.Errorf("ReadIn(%q) = %v, want an invalid-argument error with %q", c.name, err, c.want)
		}
	}
	if _, err := ReadIn(roots, "missing.txt", 1<<20); !errdefs.IsNotFound(err) {
		t.Errorf("missing file: %v, want not found", err)
	}
	if _, err := ReadIn(roots, "data/people.csv", 4); err == nil || !strings.Contains(err.Error(), "over the limit of 4") {
		t.Errorf("4-byte limit: %v", err)
	}
	if _, err := ReadIn(nil, "data/people.csv", 4); !errors.Is(err, errdefs.ErrInvalidArgument) {
		t.Errorf("no folder: %v", err)
	}
	if p, err := CheckIn(roots, "data/alias", 1<<20); err != nil || p != filepath.Join(task, "data", "alias") {
		t.Errorf("CheckIn = %q, %v", p, err)
	}
}

func TestReadRefusesDevicesAndPipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", "/dev/null", t.TempDir()} {
		if _, err := Read(p, 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Read(%s) = %v, want not a regular file", p, err)
		}
	}
}
