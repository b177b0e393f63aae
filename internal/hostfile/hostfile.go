// Package hostfile reads files on the runner host that untrusted input
// names: task files, a task's local files, URL maps, caches. A read is
// of a regular file only (a FIFO, a device or a socket is refused
// without blocking on it), bounded in size, and, with [ReadIn] and
// [CheckIn], confined to a folder: the name may not leave it, by "..",
// by an absolute path or by a symbolic link. Confinement is the
// standard library's [os.Root], which resolves every component of the
// name inside the folder with openat, so a link swapped in while the
// file is opened cannot lead out either.
package hostfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/containerd/errdefs"
)

// ErrOutside is the class of a name that leads out of its folder.
var ErrOutside = errors.New("outside the folder")

// Read reads the regular file at path, of at most max bytes. Errors
// name path; a file that is not regular or is too large is of class
// [errdefs.ErrInvalidArgument], one that does not exist
// [errdefs.ErrNotFound].
func Read(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	return readOpen(f, path, max)
}

// Within returns name as a path relative to one of roots when it lies
// inside it by its letters ("..", absolute paths; links are for
// [ReadIn]), and which root. A relative name is taken relative to the
// first root.
func Within(roots []string, name string) (root, rel string, err error) {
	roots = nonEmpty(roots)
	if len(roots) == 0 {
		return "", "", fmt.Errorf("%s: %w: there is no folder to read it from", name, ErrOutside)
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(roots[0], p)
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", "", fmt.Errorf("%s: %w", name, err)
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(abs, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return abs, rel, nil
		}
	}
	return "", "", fmt.Errorf("%s: %w %s", name, ErrOutside, strings.Join(roots, " or "))
}

// ReadIn reads name (relative to roots[0], or absolute) as [Read] does,
// when it lies inside one of roots, links included. A name that leads
// out is an error of class [errdefs.ErrInvalidArgument] wrapping
// [ErrOutside].
func ReadIn(roots []string, name string, max int64) ([]byte, error) {
	root, rel, err := Within(roots, name)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	f, err := openIn(root, rel, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, name, max)
}

// CheckIn reports whether name is a regular file of at most max bytes
// inside one of roots (as for [ReadIn]) and returns its path.
func CheckIn(roots []string, name string, max int64) (string, error) {
	root, rel, err := Within(roots, name)
	if err != nil {
		return "", errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	f, err := openIn(root, rel, name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := check(f, name, max); err != nil {
		return "", err
	}
	return filepath.Join(root, rel), nil
}

func openIn(root, rel, name string) (*os.File, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, openError(root, err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: %s (a link leads out of %s)", name, ErrOutside, root))
		}
		return nil, openError(name, err)
	}
	return f, nil
}

func openError(name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("%s: no such file", name))
	}
	return fmt.Errorf("%s: %w", name, err)
}

func check(f *os.File, name string, max int64) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		kind := "a folder"
		if !st.IsDir() {
			kind = "a " + st.Mode().Type().String() + " file"
			switch {
			case st.Mode()&fs.ModeNamedPipe != 0:
				kind = "a named pipe"
			case st.Mode()&fs.ModeDevice != 0:
				kind = "a device"
			case st.Mode()&fs.ModeSocket != 0:
				kind = "a socket"
			}
		}
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: not a regular file (%s)", name, kind))
	}
	if st.Size() > max {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: %d bytes, over the limit of %d", name, st.Size(), max))
	}
	return st, nil
}

func readOpen(f *os.File, name string, max int64) ([]byte, error) {
	st, err := check(f, name, max)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, st.Size()+1)
	data, err := readAll(io.LimitReader(f, max+1), buf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: over the limit of %d bytes", name, max))
	}
	return data, nil
}

func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

func nonEmpty(l []string) []string {
	var out []string
	for _, s := range l {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
