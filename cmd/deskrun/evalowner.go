package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/deskrun/deskrun/sandbox"
)

// ownerFile, in an eval's run directory, names the owner label
// (sandbox.LabelOwner) of the run's sandboxes; eval holds a lock on it
// while it runs.
const ownerFile = "sandbox-owner"

// claimRun takes the run directory out for this eval: it locks out's
// owner file (a second eval on the same directory is refused while the
// first runs) and returns the owner label of the run's sandboxes, kept
// from an earlier eval of the directory or made anew. leftover is true
// when an earlier eval of the directory wrote the file: since the lock
// was free, that eval has ended, and whatever still carries the label is
// what it left (a killed eval cannot delete its sandboxes). The lock goes
// with release or the process.
func claimRun(out string) (owner string, leftover bool, release func(), err error) {
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", false, nil, fmt.Errorf("--out: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(out, ownerFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", false, nil, fmt.Errorf("--out: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return "", false, nil, usagef("--out: another deskrun eval is running the run in %s", out)
		}
		return "", false, nil, fmt.Errorf("--out: lock %s: %w", ownerFile, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		f.Close()
		return "", false, nil, fmt.Errorf("--out: read %s: %w", ownerFile, err)
	}
	owner = strings.TrimSpace(string(b))
	if owner != "" && validOwner(owner) {
		return owner, true, func() { f.Close() }, nil
	}
	owner = "deskrun-eval-" + sandbox.RandomHex(6)
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(owner+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return "", false, nil, fmt.Errorf("--out: write %s: %w", ownerFile, err)
	}
	return owner, false, func() { f.Close() }, nil
}

// validOwner reports whether s is an owner label claimRun made.
func validOwner(s string) bool {
	hex, ok := strings.CutPrefix(s, "deskrun-eval-")
	if !ok || len(hex) != 12 {
		return false
	}
	for _, c := range hex {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
