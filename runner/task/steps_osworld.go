package task

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/containerd/errdefs"
)

// OSWorld's other setup step types: those that run here, and those known
// but unavailable (a task using one loads and is skipped).
func init() {
	addSteps(map[string]stepSpec{
		"change_wallpaper":          {check: checkWallpaper, run: (*run).changeWallpaper},
		"execute_with_verification": {check: checkVerifiedExecute, run: (*run).executeWithVerification},
	})
	addUnavailable(map[string]string{
		"googledrive":  "needs Google Drive credentials (OSWorld's settings/googledrive), which a sandbox run cannot hold",
		"login":        "needs an account login on a live web service (OSWorld's settings/google), which a sandbox run cannot hold",
		"proxy":        "needs OSWorld's proxy service, which a sandbox run does not have",
		"tidy_desktop": "OSWorld does not implement this step either",
		"act":          "OSWorld does not implement this step either",
		"replay":       "OSWorld does not implement this step either",
	}, nil)
}

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

// changeWallpaper sets the desktop background as OSWorld's server does on
// GNOME: the picture-uri (and its dark variant) of
// org.gnome.desktop.background, through gsettings.
func (r *run) changeWallpaper(ctx context.Context, p map[string]any) error {
	target, err := r.expandUser(ctx, p["path"].(string))
	if err != nil {
		return err
	}
	script := `uri="file://$1"
gsettings set org.gnome.desktop.background picture-uri "$uri" &&
gsettings set org.gnome.desktop.background picture-uri-dark "$uri" 2>/dev/null
exit 0`
	res, err := r.exec(ctx, []string{"sh", "-c", script, "sh", target}, false, 0, "")
	if err != nil {
		return fmt.Errorf("change wallpaper: %w", err)
	}
	if res.ExitCode != 0 {
		r.log.WarnContext(ctx, "change wallpaper failed", "stderr", truncate(res.Stderr, 500))
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
			return fmt.Errorf("%s: want an object, got %s", f.name("verification"), typeName(v))
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

// executeWithVerification runs a command, then waits until its
// verification holds (a window whose title contains window_exists, a
// command_success that exits 0), checking every check_interval seconds
// (default 1) for at most max_wait_time seconds (default 10). A
// verification still not met is an error, as on OSWorld's server.
func (r *run) executeWithVerification(ctx context.Context, p map[string]any) error {
	shell := pyTruthy(p["shell"])
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
	if n, ok := number(p["max_wait_time"]); ok && n >= 0 {
		wait = time.Duration(n * float64(time.Second))
	}
	if n, ok := number(p["check_interval"]); ok && n > 0 {
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
				shortCmd(argv), pyRepr(ver), wait))
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
