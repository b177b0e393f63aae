// Package sandboxfs holds what agentd's two file fronts share: its own
// /v1/files routes and envd's filesystem service and /files
// (agentd/envd). It refuses agentd's own /proc entries and what is not a
// regular file, classifies file errors by errdefs class (the class
// decides the answer's status on both fronts), and replaces a file by a
// stream written beside it and renamed over it. It depends on
// containerd/errdefs for those classes.
package sandboxfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/containerd/errdefs"
)

// OwnProc reports whether p is, or leads through links to, the /proc
// entries of agentd's own process or one of its threads: /proc/self,
// /proc/thread-self, /proc/<agentd's pid or a thread id>, and links to
// them such as /dev/fd or /proc/<pid>/root/proc/self. agentd answers the
// file routes with its own rights, which reach its environment, memory
// and descriptors; its commands run as the user cannot reach them (agentd
// is not dumpable).
func OwnProc(p string) bool {
	if ownProcPath(p) {
		return true
	}
	// Resolve each leading part in turn: a link may lead through agentd's
	// /proc entry to a file elsewhere (/dev/fd/0 to /proc/self/fd/0 to
	// /dev/null), and a part that does not resolve (a link to a socket)
	// ends the walk with the rest appended as written.
	prefix := "/"
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, part := range parts {
		prefix = filepath.Join(prefix, part)
		r, err := filepath.EvalSymlinks(prefix)
		if err != nil {
			return ownProcPath(filepath.Join(append([]string{prefix}, parts[i+1:]...)...))
		}
		if ownProcPath(r) {
			return true
		}
	}
	return false
}

func ownProcPath(p string) bool {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "self", "thread-self":
		return true
	}
	id, err := strconv.Atoi(first)
	if err != nil {
		return false
	}
	pid := os.Getpid()
	if id == pid {
		return true
	}
	// A thread of agentd has a /proc entry of its own (not listed).
	b, err := os.ReadFile("/proc/" + first + "/status")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			return strings.TrimSpace(v) == strconv.Itoa(pid)
		}
	}
	return false
}

// Guard refuses p, a clean absolute path, when it is agentd's own
// process information ([OwnProc]), with an error of class
// [errdefs.ErrPermissionDenied].
func Guard(p string) error {
	if OwnProc(p) {
		return errdefs.ErrPermissionDenied.WithMessage(fmt.Sprintf("path: %s is agentd's own process information (its environment and memory hold its token)", p))
	}
	return nil
}

// Regular refuses what the file calls do not read or replace:
// directories, devices, FIFOs and sockets ([errdefs.ErrInvalidArgument]).
func Regular(p string, st os.FileInfo) error {
	switch {
	case st.IsDir():
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s is a directory", p))
	case !st.Mode().IsRegular():
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s is not a regular file (%s)", p, st.Mode().Type()))
	}
	return nil
}

// Classify gives a file system error at p its errdefs class: not found,
// permission denied, invalid argument (a parent that is no folder);
// other errors are returned as they are.
func Classify(p string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("path: %s does not exist", p))
	case errors.Is(err, os.ErrPermission):
		return errdefs.ErrPermissionDenied.WithMessage(fmt.Sprintf("path: %s: permission denied", p))
	case errors.Is(err, syscall.ENOTDIR):
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s: a parent is not a directory", p))
	case errors.Is(err, os.ErrExist): // MkdirAll met a parent it cannot read or that is no folder
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s: a parent cannot be made a directory", p))
	}
	return err
}

// ReadError is a failure to read the stream [Replace] writes: the
// caller's, not the file system's.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "read the content: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// readRecorder marks the errors of the stream it reads as [ReadError].
type readRecorder struct{ r io.Reader }

func (r readRecorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = &ReadError{Err: err}
	}
	return n, err
}

// Replace writes what r holds to p, a clean absolute path, as it comes
// (never held whole), and returns the bytes written. It writes a
// temporary file beside p and renames it over p, so a reader of p sees
// the old content or the new, never part of it; a mount point (a
// container's /etc/hosts), which cannot be replaced, is written in place.
// The file keeps p's mode (0644 when new); a symbolic link at p is
// written through, not replaced; missing parent folders are made (0755).
// Errors of r come back as [ReadError], file system errors classified
// ([Classify]).
func Replace(p string, r io.Reader) (int64, error) {
	if st, err := os.Stat(p); err == nil {
		if err := Regular(p, st); err != nil {
			return 0, err
		}
		// Write through a symbolic link, not over it.
		if target, err := filepath.EvalSymlinks(p); err == nil {
			p = target
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, Classify(p, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".agentd-*")
	if err != nil {
		return 0, Classify(p, err)
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(tmp, readRecorder{r})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if re := (*ReadError)(nil); errors.As(err, &re) {
			return n, err
		}
		return n, Classify(p, err)
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return n, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("path: %s is a directory", p))
		}
		mode = st.Mode().Perm()
	}
	_ = os.Chmod(tmp.Name(), mode)
	err = os.Rename(tmp.Name(), p)
	if errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV) {
		err = copyFile(p, tmp.Name())
	}
	if err != nil {
		return n, Classify(p, err)
	}
	return n, nil
}

// copyFile overwrites dst with the contents of src.
func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
