package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ownerFile, in each sandbox's home, names the runner that started the
// sandbox (its pid and start time, so a reused pid is not mistaken for
// it) and the sandbox's marker: what [Provider.Reap] needs to find the
// sandboxes of a runner that died without stopping them.
const ownerFile = ".deskrun-sandbox"

// writeOwner records this process as the owner of the sandbox at home.
func writeOwner(home, marker, tmp string) error {
	start, err := procStart(os.Getpid())
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(home, ownerFile), fmt.Appendf(nil, "%d %s %s %s\n", os.Getpid(), start, marker, tmp), 0o600)
}

// procStart is a process's start time in clock ticks since boot (field 22
// of /proc/<pid>/stat), which with its pid names it uniquely.
func procStart(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces: fields count from the
	// last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", fmt.Errorf("/proc/%d/stat: unexpected form", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: unexpected form", pid)
	}
	return f[19], nil
}

// Reap removes what local sandboxes of runners that are gone left, under
// the provider's TempDir (see the function [Reap]).
func (p *Provider) Reap(ctx context.Context) ([]string, error) { return Reap(ctx, p.cfg.TempDir) }

// Reap removes what local sandboxes of runners that are gone (killed
// before they could stop their sandboxes) left: their processes (found by
// their marker, wherever they went) and their home folders under dir
// (empty: os.TempDir()), and their temporary folders (TMPDIR).
// Sandboxes of a runner that still runs, this one included, are left
// alone. It returns the homes removed.
func Reap(ctx context.Context, dir string) ([]string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	homes, err := filepath.Glob(filepath.Join(dir, "deskrun-sandbox-*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, home := range homes {
		if ctx.Err() != nil {
			break
		}
		b, err := os.ReadFile(filepath.Join(home, ownerFile))
		if err != nil {
			continue // not ours to judge (or still being made)
		}
		var pid int
		var start, marker, tmp string
		if _, err := fmt.Sscanf(string(b), "%d %s %s %s", &pid, &start, &marker, &tmp); err != nil || marker == "" {
			continue
		}
		if now, err := procStart(pid); err == nil && now == start {
			continue // its runner lives
		}
		if left := sweep(marker, nil, 5*time.Second); len(left) > 0 {
			errs = append(errs, fmt.Errorf("reap %s: processes %v still run", home, left))
			continue
		}
		if err := os.RemoveAll(home); err != nil {
			errs = append(errs, fmt.Errorf("reap %s: %w", home, err))
			continue
		}
		if strings.HasPrefix(filepath.Base(tmp), "dr-") {
			os.RemoveAll(tmp)
		}
		removed = append(removed, home)
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("%v", errs)
	}
	return removed, nil
}
