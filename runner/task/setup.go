package task

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/hostfile"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/vm"
)

// Options are the settings Setup and Evaluate share. The zero value is
// ready to use.
type Options struct {
	// CacheDir is the task's cache folder on the host: files fetched by
	// getters (vm_file dest, cloud_file dest), the stdout/stderr files of
	// execute steps and copies of downloads land there, and cache_file
	// reads from it. Give Setup and Evaluate the same folder when a task
	// relies on that. Empty means a temporary folder, removed when the
	// call returns.
	CacheDir string
	// ClientPassword replaces {CLIENT_PASSWORD}. Empty means "password",
	// OSWorld's default.
	ClientPassword string
	// Fetch reads an http(s) URL for download and cloud_file on the
	// runner host ([NewFetch] makes one). Nil means the run has no
	// network: a URL not in DownloadCache skips the task (a *[Skip]).
	// Local paths and file:// URLs are always read from the host.
	Fetch func(ctx context.Context, url string) ([]byte, error)
	// DownloadCache is a folder of files fetched from URLs, laid out as
	// OSWorld's cache: <task id>/<uuid5(url)>_<file name> for download
	// steps, <task id>/<dest> for cloud_file. A file found there is not
	// fetched again; a fetched one is saved there. Empty means none. A
	// copy of OSWorld's cache folder is a ready mirror.
	DownloadCache string
	// ExecTimeout bounds each command a step or getter runs (default
	// 120s, OSWorld's). A step's own "timeout" (seconds) wins.
	ExecTimeout time.Duration
	// UntilTimeout bounds how long an execute step with "until" keeps
	// retrying (default 60s).
	UntilTimeout time.Duration
	// WindowTimeout bounds how long activate_window and close_window
	// wait for their window to appear (default 10s).
	WindowTimeout time.Duration
	// OpenTimeout bounds how long open waits for the window of the file
	// it opened (default 3 minutes; OSWorld's server waits up to 30
	// minutes): LibreOffice's first start on a loaded host takes tens of
	// seconds.
	OpenTimeout time.Duration
	// HostBytes bounds the bytes the task copies to the runner host
	// (into the cache folder and the download cache), across Setup and
	// Evaluate when both get the same one; a copy that would pass it
	// fails the step or getter. Nil means [DefaultTaskBytes] per call.
	HostBytes *HostBytes
	// Logger receives a debug record per step and warnings for steps
	// OSWorld lets pass (a non-zero exit code, no window to activate).
	// Nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.ClientPassword == "" {
		o.ClientPassword = "password"
	}
	if o.ExecTimeout <= 0 {
		o.ExecTimeout = 120 * time.Second
	}
	if o.UntilTimeout <= 0 {
		o.UntilTimeout = 60 * time.Second
	}
	if o.WindowTimeout <= 0 {
		o.WindowTimeout = 10 * time.Second
	}
	if o.OpenTimeout <= 0 {
		o.OpenTimeout = 3 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HostBytes == nil {
		o.HostBytes = NewHostBytes(DefaultTaskBytes, "a task", nil)
	}
	return o
}

// Setup runs the task's setup steps (its "config") in order against sb.
// It stops at the first step that fails and returns an error naming it,
// e.g. `setup task "t1": config[2] (download): ...`. As in OSWorld, a
// command that exits non-zero does not fail its step (unless the step has
// "until"), and a window that is not found is skipped.
//
// Setup is safe for concurrent use with different sandboxes.
func Setup(ctx context.Context, sb Sandbox, t *Task, opts Options) error {
	r, done, err := newRun(sb, t, opts)
	if err != nil {
		return fmt.Errorf("setup task %q: %w", t.ID, err)
	}
	defer done()
	if err := r.steps(ctx, t.Config, "config"); err != nil {
		return fmt.Errorf("setup task %q: %w", t.ID, err)
	}
	return nil
}

// run is the state of one Setup or Evaluate call.
type run struct {
	sb       Sandbox
	t        *Task
	opts     Options
	log      *slog.Logger
	cacheDir string

	vm   *vm.VM // OSWorld's guest operations on sb
	vars *Vars  // placeholder values, once known
}

func newRun(sb Sandbox, t *Task, opts Options) (*run, func(), error) {
	opts = opts.withDefaults()
	r := &run{sb: sb, t: t, opts: opts, log: opts.Logger.With("task", t.ID), cacheDir: opts.CacheDir}
	r.vm = vm.New(vmSandbox{r: r})
	done := func() {}
	if r.cacheDir == "" {
		dir, err := os.MkdirTemp("", "deskrun-task-cache-")
		if err != nil {
			return nil, nil, fmt.Errorf("create cache dir: %w", err)
		}
		r.cacheDir = dir
		done = func() { _ = os.RemoveAll(dir) }
	} else if err := os.MkdirAll(r.cacheDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("create cache dir: %w", err)
	}
	return r, done, nil
}

func (r *run) steps(ctx context.Context, steps []Step, where string) error {
	for i, s := range steps {
		spec, ok := stepTable[s.Type]
		if !ok { // Load refuses these; a hand-built Task may still hold one
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s[%d]: unknown setup step type %q", where, i, s.Type))
		}
		params, err := r.expand(ctx, s.Parameters)
		if err != nil {
			return fmt.Errorf("%s[%d] (%s): %w", where, i, s.Type, err)
		}
		start := time.Now()
		if err := spec.run(r, ctx, params.(map[string]any)); err != nil {
			if sk := SkipOf(err); sk != nil && sk.Field == "" {
				sk.Field = fmt.Sprintf("%s[%d] (%s)", where, i, s.Type)
			}
			return fmt.Errorf("%s[%d] (%s): %w", where, i, s.Type, err)
		}
		r.log.DebugContext(ctx, "setup step", "step", fmt.Sprintf("%s[%d]", where, i), "type", s.Type,
			"duration", time.Since(start))
	}
	return nil
}

// expand replaces placeholders in a step's or getter's parameters, asking
// the sandbox for its screen size the first time it is needed.
func (r *run) expand(ctx context.Context, params map[string]any) (any, error) {
	if !hasPlaceholder(params) {
		return params, nil
	}
	v, err := r.placeholders(ctx)
	if err != nil {
		return nil, err
	}
	return v.expandValue(params), nil
}

func (r *run) placeholders(ctx context.Context) (Vars, error) {
	if r.vars == nil {
		h, err := r.sb.Health(ctx)
		if err != nil {
			return Vars{}, fmt.Errorf("read screen size: %w", err)
		}
		r.vars = &Vars{ScreenWidth: h.Screen.Width, ScreenHeight: h.Screen.Height, ClientPassword: r.opts.ClientPassword}
	}
	return *r.vars, nil
}

// userHome returns the desktop user's home folder in the sandbox.
func (r *run) userHome(ctx context.Context) (string, error) { return r.vm.Home(ctx) }

// expandUser does what OSWorld's server does to paths:
// os.path.expandvars(os.path.expanduser(p)).
func (r *run) expandUser(ctx context.Context, p string) (string, error) {
	return r.vm.ExpandPath(ctx, p)
}

// argv turns OSWorld's command/shell pair into an argument vector, as
// OSWorld's server does ([vm.VM.Command]).
func (r *run) argv(ctx context.Context, command any, shell bool) ([]string, error) {
	return r.vm.Command(ctx, command, shell)
}

// vmSandbox gives the guest operations the run's sandbox, its commands
// run as [run.exec] runs them (over the admin channel when they call
// sudo, or all of them with admin).
type vmSandbox struct {
	r     *run
	admin bool
}

func (s vmSandbox) Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error) {
	return s.r.exec(ctx, req.Cmd, s.admin, time.Duration(req.TimeoutMS)*time.Millisecond, req.Stdin)
}

func (s vmSandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	return s.r.sb.WriteFile(ctx, path, data)
}

func (s vmSandbox) Windows(ctx context.Context) ([]api.Window, error) { return s.r.sb.Windows(ctx) }

func (s vmSandbox) ActivateWindow(ctx context.Context, id uint32) error {
	return s.r.sb.ActivateWindow(ctx, id)
}

func (s vmSandbox) CloseWindow(ctx context.Context, id uint32) error {
	return s.r.sb.CloseWindow(ctx, id)
}

func (s vmSandbox) AccessibilityXML(ctx context.Context, app string) (string, error) {
	ar, ok := s.r.sb.(AccessibilityReader)
	if !ok {
		return "", fmt.Errorf("this sandbox does not read accessibility trees")
	}
	return ar.AccessibilityXML(ctx, app)
}

var sudoWord = regexp.MustCompile(`(^|[^A-Za-z0-9_-])sudo([^A-Za-z0-9_-]|$)`)

// exec runs argv in the sandbox, over the admin channel when asked for or
// when the command calls sudo and the sandbox has one.
func (r *run) exec(ctx context.Context, argv []string, admin bool, timeout time.Duration, stdin string) (api.ExecResult, error) {
	if timeout <= 0 {
		timeout = r.opts.ExecTimeout
	}
	req := api.ExecRequest{Cmd: argv, TimeoutMS: int(timeout / time.Millisecond), Stdin: stdin}
	if !admin {
		for _, a := range argv {
			if sudoWord.MatchString(a) {
				admin = true
				break
			}
		}
	}
	if a, ok := r.sb.(AdminExecer); ok && admin {
		home, err := r.userHome(ctx)
		if err != nil {
			return api.ExecResult{}, err
		}
		areq := req
		areq.Env = map[string]string{"HOME": home}
		res, err := a.AdminExec(ctx, areq)
		if !errdefs.IsNotImplemented(err) {
			return res, err
		}
		// This sandbox has no admin channel after all: run it as the
		// desktop user, as on sandboxes without one.
	}
	return r.sb.Exec(ctx, req)
}

// stepSpec checks and runs one setup step type.
type stepSpec struct {
	check func(f fields) error
	run   func(r *run, ctx context.Context, p map[string]any) error
	// unavailable, when set, says why the step cannot run here.
	unavailable string
}

func checkExecute(f fields) error {
	if err := f.only("command", "shell", "stdout", "stderr", "until", "timeout", "quiet", "admin"); err != nil {
		return err
	}
	if err := f.command("command"); err != nil {
		return err
	}
	for _, k := range []string{"stdout", "stderr"} {
		name, err := f.str(k, false)
		if err != nil {
			return err
		}
		if err := checkCacheName(name); err != nil {
			return fmt.Errorf("%s: %w", f.name(k), err)
		}
	}
	if err := f.num("timeout", false); err != nil {
		return err
	}
	if u, ok := f.m["until"]; ok && u != nil {
		m, ok := u.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", f.name("until"), py.TypeName(u))
		}
		uf := fields{path: f.name("until"), m: m}
		if err := uf.only("returncode", "stdout", "stderr"); err != nil {
			return err
		}
		if err := uf.num("returncode", false); err != nil {
			return err
		}
		for _, k := range []string{"stdout", "stderr"} {
			if _, err := uf.str(k, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCacheName refuses file names that would leave the cache folder.
func checkCacheName(name string) error {
	if name == "" {
		return nil
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") {
		return fmt.Errorf("%q: want a name inside the cache folder, not an absolute path", name)
	}
	for _, part := range strings.Split(filepath.ToSlash(name), "/") {
		if part == ".." {
			return fmt.Errorf("%q: must not leave the cache folder", name)
		}
	}
	return nil
}

// execute implements OSWorld's execute and command
// (desktop_env/controllers/setup.py).
func (r *run) execute(ctx context.Context, p map[string]any) error {
	argv, err := r.argv(ctx, p["command"], py.Truthy(p["shell"]))
	if err != nil {
		return err
	}
	var timeout time.Duration
	if n, ok := py.Number(p["timeout"]); ok && n > 0 {
		timeout = time.Duration(n * float64(time.Second))
	}
	until, _ := p["until"].(map[string]any)
	deadline := time.Now().Add(r.opts.UntilTimeout)
	for {
		res, err := r.exec(ctx, argv, py.Truthy(p["admin"]), timeout, "")
		if err != nil {
			return fmt.Errorf("exec %s: %w", shortCmd(argv), err)
		}
		for k, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
			if name, _ := p[k].(string); name != "" {
				if err := r.writeCache(name, []byte(out)); err != nil {
					return err
				}
			}
		}
		if res.ExitCode == 127 && needsVSCode(argv) {
			return &Skip{Reason: vsCodeMissing}
		}
		if len(until) == 0 {
			if res.ExitCode != 0 || res.TimedOut {
				r.log.WarnContext(ctx, "setup command failed", "cmd", shortCmd(argv), "exit_code", res.ExitCode,
					"timed_out", res.TimedOut, "stderr", py.Truncate(res.Stderr, 500))
			}
			return nil
		}
		if untilHolds(until, res) {
			return nil
		}
		if !time.Now().Before(deadline) {
			return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("exec %s: until %s not met within %s (last exit code %d)",
				shortCmd(argv), py.Repr(until), r.opts.UntilTimeout, res.ExitCode))
		}
		if err := sleepCtx(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

// untilHolds is OSWorld's test: the return code matches, or stdout or
// stderr contains the given text.
func untilHolds(until map[string]any, res api.ExecResult) bool {
	if rc, ok := until["returncode"]; ok && py.Equal(py.IntNumber(res.ExitCode), rc) {
		return true
	}
	if s, ok := until["stdout"].(string); ok && strings.Contains(res.Stdout, s) {
		return true
	}
	if s, ok := until["stderr"].(string); ok && strings.Contains(res.Stderr, s) {
		return true
	}
	return false
}

func checkLaunch(f fields) error {
	if err := f.only("command", "shell", "timeout", "admin"); err != nil {
		return err
	}
	if err := f.num("timeout", false); err != nil {
		return err
	}
	return f.command("command")
}

// launch implements OSWorld's launch (desktop_env/controllers/setup.py).
func (r *run) launch(ctx context.Context, p map[string]any) error {
	command := p["command"]
	shell := py.Truthy(p["shell"])
	if s, ok := command.(string); ok && !shell && len(strings.Fields(s)) > 1 {
		// OSWorld splits a string command at spaces here, not with shlex.
		parts := make([]any, 0, 4)
		for _, w := range strings.Fields(s) {
			parts = append(parts, w)
		}
		command = parts
	}
	argv, err := r.argv(ctx, command, shell)
	if err != nil {
		return err
	}
	return r.startDetached(ctx, argv, py.Truthy(p["admin"]))
}

func (r *run) startDetached(ctx context.Context, argv []string, admin bool) error {
	res, err := vm.New(vmSandbox{r: r, admin: admin}).Launch(ctx, argv, 0)
	if err != nil {
		return fmt.Errorf("launch %s: %w", shortCmd(argv), err)
	}
	if res.ExitCode == 127 && needsVSCode(argv) {
		return &Skip{Reason: vsCodeMissing}
	}
	if res.ExitCode != 0 {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("launch %s: %s", shortCmd(argv), strings.TrimSpace(res.Stderr)))
	}
	return nil
}

func checkOpen(f fields) error {
	if err := f.only("path"); err != nil {
		return err
	}
	p, err := f.str("path", true)
	if err == nil && p == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("path"))
	}
	return err
}

// open implements OSWorld's open (desktop_env/controllers/setup.py).
func (r *run) open(ctx context.Context, p map[string]any) error {
	target, err := r.expandUser(ctx, p["path"].(string))
	if err != nil {
		return err
	}
	res, err := r.exec(ctx, []string{"test", "-e", target}, false, 0, "")
	if err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	if res.ExitCode != 0 {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("open %s: file not found", target))
	}
	before, err := r.sb.Windows(ctx)
	if err != nil {
		return fmt.Errorf("open %s: list windows: %w", target, err)
	}
	res, err = r.vm.OpenFile(ctx, target)
	if err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	if res.ExitCode != 0 {
		return errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf("open %s: %s", target, strings.TrimSpace(res.Stderr)))
	}
	w, named, found, err := r.waitOpened(ctx, path.Base(target), before)
	if err != nil {
		return fmt.Errorf("open %s: %w", target, err)
	}
	if !found {
		r.log.WarnContext(ctx, "no window appeared for opened file", "path", target)
		return nil
	}
	r.log.DebugContext(ctx, "opened file's window", "path", target, "window", w.ID, "title", w.Title, "class", w.Class)
	if named {
		// As OSWorld's server does (wmctrl -i -a): the window that names
		// the file gets the focus, which a window manager preventing
		// focus stealing may have kept from it.
		if err := r.sb.ActivateWindow(ctx, w.ID); err != nil && !errdefs.IsNotFound(err) {
			return fmt.Errorf("open %s: activate window %d %q: %w", target, w.ID, w.Title, err)
		}
	}
	return nil
}

// openPatience is how long open waits for a first new window before it
// takes the desktop's quiet programs for an app that will show none:
// OSWorld's pause after a reset (60 s). On a loaded host LibreOffice can
// show nothing, not even its splash screen, for over 15 s, its programs
// waiting on the disk rather than running (seen at --parallel 8 on 2
// cores, one task in 40).
const openPatience = 60 * time.Second

// openSettle is how long the new windows of an opened file must stay as
// they are, none naming the file, before open takes them for the app's.
const openSettle = 3 * time.Second

// waitOpened waits, like OSWorld's server and for at most OpenTimeout,
// for the window of a file just opened: one whose title names the file
// (base, or base without its extension, as OSWorld's server looks for
// it: GIMP shows "[table] (imported)-1.0 ..."), or else new windows (not
// among before) with a WM_CLASS that have not changed for openSettle
// while the desktop's programs went quiet; with no new window after
// openPatience, it gives up once the programs are quiet. An app first shows windows
// that are not the document's: LibreOffice a splash screen
// ("LibreOffice", no WM_CLASS, which can stay for seconds on a cold
// start) and then an empty frame ("LibreOffice 7.4") before
// "table.xlsx - LibreOffice Calc", the frame unchanged for seconds on a
// loaded host while LibreOffice reads the file; the step ends at the
// document's window, or at the windows of an app that does not name its
// file once nothing on the desktop is at work any more.
func (r *run) waitOpened(ctx context.Context, base string, before []api.Window) (w api.Window, named, found bool, err error) {
	known := map[uint32]bool{}
	for _, w := range before {
		known[w.ID] = true
	}
	stem := strings.TrimSuffix(base, path.Ext(base))
	names := func(title string) bool {
		return strings.Contains(title, base) || (stem != "" && strings.Contains(title, stem))
	}
	deadline := time.Now().Add(r.opts.OpenTimeout)
	patience := time.Now().Add(openPatience)
	var seen string // the new windows at the last poll
	var since time.Time
	quieted := "\x00" // the new windows when the programs were last waited for
	for {
		ws, err := r.sb.Windows(ctx)
		if err != nil {
			return api.Window{}, false, false, fmt.Errorf("list windows: %w", err)
		}
		var fresh []api.Window
		var sig strings.Builder
		for _, w := range ws {
			if names(w.Title) {
				return w, true, true, nil
			}
			if !known[w.ID] && w.Class != "" {
				fresh = append(fresh, w)
				fmt.Fprintf(&sig, "%d %q %q\n", w.ID, w.Title, w.Class)
			}
		}
		now := time.Now()
		if sig.String() != seen {
			seen, since = sig.String(), now
		}
		last := func() (api.Window, bool, bool, error) {
			if len(fresh) == 0 {
				return api.Window{}, false, false, nil
			}
			return fresh[len(fresh)-1], false, true, nil
		}
		if !now.Before(deadline) {
			return last()
		}
		// New windows unchanged for openSettle, none naming the file (an
		// app that does not name it, or one still at work on it), or no
		// new window after openPatience (an app still starting, or none
		// coming): once the desktop's programs are quiet with the windows
		// as they are, this is what the file opened.
		if (len(fresh) > 0 && now.Sub(since) >= openSettle) || (len(fresh) == 0 && !now.Before(patience)) {
			if quieted == seen {
				return last()
			}
			quieted = seen
			if err := r.quiet(ctx, deadline.Sub(now)); err != nil {
				return api.Window{}, false, false, err
			}
			continue
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return api.Window{}, false, false, err
		}
	}
}

// quiet waits, where the sandbox can, at most d for the desktop's
// programs to be quiet (wait_idle with processes); an error only when ctx
// ended.
func (r *run) quiet(ctx context.Context, d time.Duration) error {
	return waitIdle(ctx, r.sb, api.Action{Type: api.ActionWaitIdle, MS: 500, TimeoutMS: max(1, int(d.Milliseconds())), Processes: true})
}

func checkSleep(f fields) error {
	if err := f.only("seconds"); err != nil {
		return err
	}
	return f.num("seconds", true)
}

// sleep implements OSWorld's sleep (desktop_env/controllers/setup.py).
func (r *run) sleep(ctx context.Context, p map[string]any) error {
	s, _ := py.Number(p["seconds"])
	return sleepCtx(ctx, time.Duration(s*float64(time.Second)))
}

func checkDownload(f fields) error {
	if err := f.only("files"); err != nil {
		return err
	}
	return checkFiles(f, "url")
}

func checkUpload(f fields) error {
	if err := f.only("files"); err != nil {
		return err
	}
	return checkFiles(f, "local_path")
}

// checkFiles checks a files list of {src, "path"} objects.
func checkFiles(f fields, src string) error {
	v, ok := f.m["files"]
	if !ok || v == nil {
		return fmt.Errorf("%s: required", f.name("files"))
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: want a list, got %s", f.name("files"), py.TypeName(v))
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d]: want an object, got %s", f.name("files"), i, py.TypeName(e))
		}
		ff := fields{path: fmt.Sprintf("%s[%d]", f.name("files"), i), m: m}
		if err := ff.only(src, "path"); err != nil {
			return err
		}
		for _, k := range []string{src, "path"} {
			s, err := ff.str(k, true)
			if err != nil {
				return err
			}
			if s == "" {
				return fmt.Errorf("%s: must not be empty", ff.name(k))
			}
		}
		if err := checkSource(m[src].(string)); err != nil {
			return fmt.Errorf("%s: %w", ff.name(src), err)
		}
	}
	return nil
}

// checkSource accepts local paths, file:// URLs and http(s) URLs.
func checkSource(src string) error {
	if !strings.Contains(src, "://") {
		return nil
	}
	u, err := url.Parse(src)
	if err != nil {
		return fmt.Errorf("%q: %w", src, err)
	}
	switch u.Scheme {
	case "file", "http", "https":
		return nil
	}
	return fmt.Errorf("%q: unsupported URL scheme %q (want file, http or https)", src, u.Scheme)
}

// download implements OSWorld's download
// (desktop_env/controllers/setup.py).
func (r *run) download(ctx context.Context, p map[string]any) error {
	return r.putFiles(ctx, p["files"].([]any), "url", true)
}

// upload implements OSWorld's upload_file
// (desktop_env/controllers/setup.py).
func (r *run) upload(ctx context.Context, p map[string]any) error {
	return r.putFiles(ctx, p["files"].([]any), "local_path", false)
}

// putFiles reads each file's source on the host and writes it into the
// sandbox, creating the folder it goes in.
func (r *run) putFiles(ctx context.Context, files []any, src string, cache bool) error {
	for i, e := range files {
		m := e.(map[string]any)
		source, dst := m[src].(string), m["path"].(string)
		// OSWorld keeps downloads in the cache as <uuid5(url)>_<name>.
		name := py.UUID5URL(source) + "_" + path.Base(dst)
		data, err := r.readSource(ctx, source, name)
		if err != nil {
			return fmt.Errorf("files[%d]: %w", i, err)
		}
		if cache {
			if err := r.writeCache(name, data); err != nil {
				return fmt.Errorf("files[%d]: %w", i, err)
			}
		}
		if err := r.vm.Upload(ctx, dst, data); err != nil {
			return fmt.Errorf("files[%d]: %w", i, err)
		}
	}
	return nil
}

// readSource reads a download source on the host: a file:// URL or a
// local path (relative to the task's folder, and confined to it and the
// cache: see readHost), or an http(s) URL from
// Options.DownloadCache (as cacheName in the task's folder there) or
// through Options.Fetch.
func (r *run) readSource(ctx context.Context, src, cacheName string) ([]byte, error) {
	local := src
	if strings.Contains(src, "://") {
		u, err := url.Parse(src)
		if err != nil {
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("source %q: %s", src, err))
		}
		switch u.Scheme {
		case "file":
			local = u.Path
		case "http", "https":
			return r.fetchURL(ctx, src, cacheName)
		default:
			return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("source %q: unsupported URL scheme", src))
		}
	}
	return r.readHost(local)
}

func (r *run) writeCache(name string, data []byte) error {
	if err := checkCacheName(name); err != nil {
		return errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	if err := r.opts.HostBytes.take(int64(len(data)), name); err != nil {
		return err
	}
	p := filepath.Join(r.cacheDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return fmt.Errorf("write cache file: %w", err)
	}
	return nil
}

func checkWindow(f fields) error {
	if err := f.only("window_name", "strict", "by_class"); err != nil {
		return err
	}
	name, err := f.str("window_name", true)
	if err == nil && name == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("window_name"))
	}
	return err
}

// windowMatcher matches windows as OSWorld's server picks them for
// activate_window and close_window ([vm.MatchWindows]).
func windowMatcher(p map[string]any) func(api.Window) bool {
	name := p["window_name"].(string)
	strict, byClass := py.Truthy(p["strict"]), py.Truthy(p["by_class"])
	return func(w api.Window) bool {
		return len(vm.MatchWindows([]api.Window{w}, name, strict, byClass)) > 0
	}
}

// activateWindow implements OSWorld's activate_window
// (desktop_env/controllers/setup.py).
func (r *run) activateWindow(ctx context.Context, p map[string]any) error {
	return r.onWindow(ctx, p, "activate", r.sb.ActivateWindow)
}

// closeWindow implements OSWorld's close_window
// (desktop_env/controllers/setup.py).
func (r *run) closeWindow(ctx context.Context, p map[string]any) error {
	return r.onWindow(ctx, p, "close", r.sb.CloseWindow)
}

// onWindow waits for a window p matches and acts on it. A window that is
// gone by the time it is acted on (one a close step asked to close is
// still listed for a moment) is passed over for the next match among the
// windows listed then; with none left, the step is skipped as wmctrl
// skips it for OSWorld.
func (r *run) onWindow(ctx context.Context, p map[string]any, verb string, act func(context.Context, uint32) error) error {
	match := windowMatcher(p)
	gone := map[uint32]bool{}
	deadline := time.Now().Add(r.opts.WindowTimeout)
	for {
		w, found, err := r.waitWindow(ctx, deadline, func(w api.Window) bool { return !gone[w.ID] && match(w) })
		if err != nil {
			return err
		}
		if !found {
			r.log.WarnContext(ctx, "no window to "+verb, "window_name", p["window_name"])
			return nil
		}
		err = act(ctx, w.ID)
		if err == nil {
			return nil
		}
		if !errdefs.IsNotFound(err) {
			return fmt.Errorf("%s window %d %q: %w", verb, w.ID, w.Title, err)
		}
		gone[w.ID] = true
		deadline = time.Now() // the windows there are now, no waiting for others
	}
}

// waitWindow polls the window list until match finds one or the
// deadline passes.
func (r *run) waitWindow(ctx context.Context, deadline time.Time, match func(api.Window) bool) (api.Window, bool, error) {
	for {
		ws, err := r.sb.Windows(ctx)
		if err != nil {
			return api.Window{}, false, fmt.Errorf("list windows: %w", err)
		}
		for _, w := range ws {
			if match(w) {
				return w, true, nil
			}
		}
		if !time.Now().Before(deadline) {
			return api.Window{}, false, nil
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return api.Window{}, false, err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func shortCmd(argv []string) string {
	b, _ := json.Marshal(argv)
	return py.Truncate(string(b), 200)
}

// needsVSCode reports whether argv starts VS Code.
func needsVSCode(argv []string) bool {
	return len(argv) > 0 && path.Base(argv[0]) == "code"
}

// fetchURL reads an http(s) URL from the download cache, else through
// Options.Fetch, saving what it fetched in the cache.
func (r *run) fetchURL(ctx context.Context, src, cacheName string) ([]byte, error) {
	var cached string
	if r.opts.DownloadCache != "" && cacheName != "" && checkCacheName(cacheName) == nil {
		cached = filepath.Join(r.opts.DownloadCache, DirNameOf(r.t.ID), filepath.FromSlash(cacheName))
		if data, err := hostfile.Read(cached, maxHostFile); err == nil {
			return data, nil
		}
	}
	if r.opts.Fetch == nil {
		return nil, &Skip{Reason: fmt.Sprintf("needs %s, which is not in the download cache, and the run has no network", src)}
	}
	data, err := r.opts.Fetch(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", src, err)
	}
	if cached != "" && r.opts.HostBytes.take(int64(len(data)), cacheName) == nil {
		if err := os.MkdirAll(filepath.Dir(cached), 0o755); err == nil {
			tmp := cached + ".part"
			if os.WriteFile(tmp, data, 0o644) == nil {
				_ = os.Rename(tmp, cached)
			}
		}
	}
	return data, nil
}

// DirNameOf is the folder name of a task id in a download cache: the id
// itself when it is a plain name (OSWorld's ids are UUIDs), else with
// path separators replaced.
func DirNameOf(id string) string {
	if id == "" || id == "." || id == ".." {
		return "_"
	}
	return strings.NewReplacer("/", "_", "\\", "_").Replace(id)
}
