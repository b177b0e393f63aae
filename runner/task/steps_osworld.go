package task

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/py"
)

// OSWorld's other setup step types: those that run here, and those known
// but unavailable (a task using one loads and is skipped).
func checkWallpaper(f fields) error {
	if err := f.only("path"); err != nil {
		return err
	}
	p, err := f.str("path", true)
	if err == nil && p == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("path"))
	}
	return err
}

// changeWallpaper implements OSWorld's _change_wallpaper_setup
// (desktop_env/controllers/setup.py) over its server's change_wallpaper:
// the desktop background's picture-uri set through gsettings. As the
// controller, a failure (no such file) is logged, not an error.
func (r *run) changeWallpaper(ctx context.Context, p map[string]any) error {
	target, err := r.vm.ChangeWallpaper(ctx, p["path"].(string))
	if errdefs.IsNotFound(err) {
		r.log.WarnContext(ctx, "change wallpaper failed", "path", target, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("change wallpaper: %w", err)
	}
	return nil
}

func checkVerifiedExecute(f fields) error {
	if err := f.only("command", "shell", "verification", "max_wait_time", "check_interval"); err != nil {
		return err
	}
	if err := f.command("command"); err != nil {
		return err
	}
	for _, k := range []string{"max_wait_time", "check_interval"} {
		if err := f.num(k, false); err != nil {
			return err
		}
	}
	if v, ok := f.m["verification"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", f.name("verification"), py.TypeName(v))
		}
		vf := fields{path: f.name("verification"), m: m}
		if err := vf.only("window_exists", "command_success"); err != nil {
			return err
		}
		if _, err := vf.str("window_exists", false); err != nil {
			return err
		}
		if vf.has("command_success") {
			if err := vf.command("command_success"); err != nil {
				return err
			}
		}
	}
	return nil
}

// executeWithVerification implements OSWorld's execute_with_verification
// (desktop_env/controllers/setup.py).
//
// executeWithVerification runs a command, then waits until its
// verification holds (a window whose title contains window_exists, a
// command_success that exits 0), checking every check_interval seconds
// (default 1) for at most max_wait_time seconds (default 10). A
// verification still not met is an error, as on OSWorld's server.
func (r *run) executeWithVerification(ctx context.Context, p map[string]any) error {
	shell := py.Truthy(p["shell"])
	argv, err := r.argv(ctx, p["command"], shell)
	if err != nil {
		return err
	}
	res, err := r.exec(ctx, argv, false, 0, "")
	if err != nil {
		return fmt.Errorf("exec %s: %w", shortCmd(argv), err)
	}
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "setup command failed", "cmd", shortCmd(argv), "exit_code", res.ExitCode)
	}
	ver, _ := p["verification"].(map[string]any)
	if len(ver) == 0 {
		return nil
	}
	wait, interval := 10*time.Second, time.Second
	if n, ok := py.Number(p["max_wait_time"]); ok && n >= 0 {
		wait = time.Duration(n * float64(time.Second))
	}
	if n, ok := py.Number(p["check_interval"]); ok && n > 0 {
		interval = time.Duration(n * float64(time.Second))
	}
	deadline := time.Now().Add(wait)
	for {
		ok, err := r.verified(ctx, ver, shell)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if !time.Now().Before(deadline) {
			return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("exec %s: verification %s not met within %s",
				shortCmd(argv), py.Repr(ver), wait))
		}
		if err := sleepCtx(ctx, interval); err != nil {
			return err
		}
	}
}

func (r *run) verified(ctx context.Context, ver map[string]any, shell bool) (bool, error) {
	if name, _ := ver["window_exists"].(string); name != "" {
		ws, err := r.sb.Windows(ctx)
		if err != nil {
			return false, fmt.Errorf("list windows: %w", err)
		}
		found := false
		for _, w := range ws {
			found = found || strings.Contains(strings.ToLower(w.Title), strings.ToLower(name))
		}
		if !found {
			return false, nil
		}
	}
	if c, ok := ver["command_success"]; ok && c != nil {
		argv, err := r.argv(ctx, c, shell || isString(c))
		if err != nil {
			return false, err
		}
		res, err := r.exec(ctx, argv, false, 0, "")
		if err != nil {
			return false, fmt.Errorf("exec %s: %w", shortCmd(argv), err)
		}
		return res.ExitCode == 0, nil
	}
	return true, nil
}

func isString(v any) bool { _, ok := v.(string); return ok }

const timeSecond = time.Second
