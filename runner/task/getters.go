package task

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/hostfile"
	"github.com/deskrun/deskrun/internal/py"
)

// A getter returns the JSON data model: nil for OSWorld's None (a file
// that is not there, a command that could not run), a string (command
// output, the host path of a fetched file), a list of them (vm_file with
// several gives), or an object (screen and window sizes, directory
// trees, rules). An error means the sandbox could not be asked at all.

// getterSpec checks and runs one getter type.
type getterSpec struct {
	check func(f fields) error
	get   func(r *run, ctx context.Context, p map[string]any) (any, error)
	// unavailable, when set, says why the getter cannot run here.
	unavailable string
}

func (r *run) get(ctx context.Context, g *Getter) (any, error) {
	if g == nil {
		return nil, nil
	}
	spec, ok := getterTable[g.Type]
	if !ok {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("unknown getter type %q", g.Type))
	}
	params, err := r.expand(ctx, g.Params)
	if err != nil {
		return nil, err
	}
	return spec.get(r, ctx, params.(map[string]any))
}

func checkNoParams(f fields) error { return nil }

func checkCommandGetter(f fields) error {
	if err := f.command("command"); err != nil {
		return err
	}
	return nil
}

// commandResult runs a getter's command as OSWorld's /execute does. A
// command that cannot start or times out gives nil.
func (r *run) commandResult(ctx context.Context, p map[string]any) (*api.ExecResult, error) {
	argv, err := r.argv(ctx, p["command"], py.Truthy(p["shell"]))
	if err != nil {
		return nil, err
	}
	res, err := r.exec(ctx, argv, py.Truthy(p["admin"]), 0, "")
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", shortCmd(argv), err)
	}
	if res.TimedOut {
		return nil, nil
	}
	return &res, nil
}

// vmCommandLine implements OSWorld's vm_command_line
// (desktop_env/evaluators/getters/general.py).
func (r *run) vmCommandLine(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.commandResult(ctx, p)
	if res == nil || err != nil {
		return nil, err
	}
	return res.Stdout, nil
}

// vmCommandError implements OSWorld's vm_command_error
// (desktop_env/evaluators/getters/general.py).
func (r *run) vmCommandError(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.commandResult(ctx, p)
	if res == nil || err != nil {
		return nil, err
	}
	return res.Stderr, nil
}

func checkFileGetter(f fields) error {
	multi := py.Truthy(f.m["multi"])
	n := -1
	for _, k := range []string{"path", "dest"} {
		v, ok := f.m[k]
		if !ok || v == nil {
			return fmt.Errorf("%s: required", f.name(k))
		}
		var names []string
		if multi {
			list, err := f.strList(k)
			if err != nil {
				return err
			}
			names = list
		} else {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("%s: want a string (or a list with multi), got %s", f.name(k), py.TypeName(v))
			}
			names = []string{s}
		}
		if k == "dest" {
			for _, d := range names {
				if d == "" {
					return fmt.Errorf("%s: must not be empty", f.name(k))
				}
				if err := checkCacheName(d); err != nil {
					return fmt.Errorf("%s: %w", f.name(k), err)
				}
			}
		} else {
			for _, s := range names {
				if err := checkSource(s); err != nil && strings.Contains(s, "://") {
					return fmt.Errorf("%s: %w", f.name(k), err)
				}
			}
		}
		if n < 0 || len(names) < n {
			n = len(names)
		}
	}
	if g, ok := f.m["gives"]; ok && g != nil {
		list, ok := g.([]any)
		if !ok {
			return fmt.Errorf("%s: want a list of indices, got %s", f.name("gives"), py.TypeName(g))
		}
		for i, e := range list {
			if _, ok := py.AsInt(e); !ok || py.TypeName(e) != "number" {
				return fmt.Errorf("%s[%d]: want an integer, got %s", f.name("gives"), i, py.Repr(e))
			}
		}
	}
	return nil
}

// filePairs returns a file getter's (path, dest) pairs and the indices
// it gives back; zip stops at the shorter list, as in OSWorld.
func filePairs(p map[string]any) (paths, dests []string, gives map[int]bool) {
	if py.Truthy(p["multi"]) {
		for _, v := range p["path"].([]any) {
			paths = append(paths, v.(string))
		}
		for _, v := range p["dest"].([]any) {
			dests = append(dests, v.(string))
		}
	} else {
		paths, dests = []string{p["path"].(string)}, []string{p["dest"].(string)}
		if py.Truthy(p["time_suffix"]) {
			// OSWorld's get_vm_file names the cache copy
			// {stem}_{now}{ext}; the path in the VM is left as it is.
			format, _ := p["time_format"].(string)
			if format == "" {
				format = "%Y%m%d_%H%M%S"
			}
			stem, ext := splitExt(dests[0])
			dests[0] = stem + "_" + strftime(format, time.Now()) + ext
		}
	}
	if n := min(len(paths), len(dests)); n < len(paths) || n < len(dests) {
		paths, dests = paths[:n], dests[:n]
	}
	gives = map[int]bool{0: true}
	if g, ok := p["gives"].([]any); ok {
		gives = map[int]bool{}
		for _, e := range g {
			i, _ := py.AsInt(e)
			gives[i] = true
		}
	}
	return paths, dests, gives
}

// splitExt splits name as Python's os.path.splitext does: the extension
// is from the last dot of the last element on, unless that element
// holds nothing but dots before it (".bashrc" has none).
func splitExt(name string) (stem, ext string) {
	base := name[strings.LastIndex(name, "/")+1:]
	i := strings.LastIndex(base, ".")
	if i <= 0 || strings.Trim(base[:i], ".") == "" {
		return name, ""
	}
	cut := len(name) - len(base) + i
	return name[:cut], name[cut:]
}

// fileResult shapes the gathered cache paths as OSWorld does: one path
// alone, else the list.
func fileResult(out []any) any {
	if len(out) == 1 {
		return out[0]
	}
	return out
}

// vmFile implements OSWorld's vm_file
// (desktop_env/evaluators/getters/file.py).
func (r *run) vmFile(ctx context.Context, p map[string]any) (any, error) {
	paths, dests, gives := filePairs(p)
	var out []any
	for i := range paths {
		src, err := r.expandUser(ctx, paths[i])
		if err != nil {
			return nil, err
		}
		data, err := r.sb.ReadFile(ctx, src)
		if errdefs.IsNotFound(err) {
			if gives[i] {
				out = append(out, nil)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", src, err)
		}
		if err := r.writeCache(dests[i], data); err != nil {
			return nil, err
		}
		if gives[i] {
			out = append(out, filepath.Join(r.cacheDir, filepath.FromSlash(dests[i])))
		}
	}
	return fileResult(out), nil
}

// cloudFile implements OSWorld's cloud_file
// (desktop_env/evaluators/getters/file.py).
//
// cloudFile is OSWorld's cloud_file with the cloud replaced by the runner
// host: local paths (relative to the task's folder) and file:// URLs,
// or http(s) through Options.Fetch.
func (r *run) cloudFile(ctx context.Context, p map[string]any) (any, error) {
	paths, dests, gives := filePairs(p)
	var out []any
	for i := range paths {
		if err := checkCacheName(dests[i]); err != nil {
			return nil, errdefs.ErrInvalidArgument.WithMessage("dest " + err.Error())
		}
		if dst, ok := r.inCache(dests[i]); ok {
			// Already there, as OSWorld's cloud_file reuses its cache.
			if gives[i] {
				out = append(out, dst)
			}
			continue
		}
		data, err := r.readSource(ctx, paths[i], dests[i])
		if err != nil {
			return nil, err
		}
		if err := r.writeCache(dests[i], data); err != nil {
			return nil, err
		}
		if gives[i] {
			out = append(out, filepath.Join(r.cacheDir, filepath.FromSlash(dests[i])))
		}
	}
	return fileResult(out), nil
}

func checkPathGetter(f fields) error {
	p, err := f.str("path", true)
	if err == nil && p == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("path"))
	}
	return err
}

// listDirectory implements OSWorld's get_vm_directory_tree
// (desktop_env/evaluators/getters/file.py, through /list_directory): the
// tree {"type":"directory","name":...,"children":[...]} with files as
// {"type":"file","name":...}; nil when path is not a folder. Unlike
// OSWorld's server, ~ and $VAR in path are expanded.
func (r *run) listDirectory(ctx context.Context, p map[string]any) (any, error) {
	dir, err := r.expandUser(ctx, p["path"].(string))
	if err != nil {
		return nil, err
	}
	tree, ok, err := r.vm.ListDirectory(ctx, dir, 0)
	if err != nil || !ok {
		return nil, err
	}
	return tree.Value(), nil
}

// vmScreenSize implements OSWorld's vm_screen_size
// (desktop_env/evaluators/getters/info.py).
func (r *run) vmScreenSize(ctx context.Context, p map[string]any) (any, error) {
	h, err := r.sb.Health(ctx)
	if err != nil {
		return nil, fmt.Errorf("read screen size: %w", err)
	}
	return map[string]any{"width": py.IntNumber(h.Screen.Width), "height": py.IntNumber(h.Screen.Height)}, nil
}

func checkWindowSizeGetter(f fields) error {
	name, err := f.str("app_class_name", true)
	if err == nil && name == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("app_class_name"))
	}
	return err
}

// vmWindowSize implements OSWorld's get_vm_window_size
// (desktop_env/evaluators/getters/general.py, through /window_size):
// {"width","height"} of the first window whose WM_CLASS instance or
// class equals app_class_name, ignoring case; nil when there is none.
func (r *run) vmWindowSize(ctx context.Context, p map[string]any) (any, error) {
	w, h, ok, err := r.vm.WindowSize(ctx, p["app_class_name"].(string))
	if err != nil || !ok {
		return nil, err
	}
	return map[string]any{"width": py.IntNumber(w), "height": py.IntNumber(h)}, nil
}

func checkRuleGetter(f fields) error {
	if _, ok := f.m["rules"]; !ok {
		return fmt.Errorf("%s: required", f.name("rules"))
	}
	return nil
}

// rule implements OSWorld's rule
// (desktop_env/evaluators/getters/misc.py).
func (r *run) rule(ctx context.Context, p map[string]any) (any, error) {
	return p["rules"], nil
}

func checkCacheFileGetter(f fields) error {
	p, err := f.str("path", true)
	if err != nil {
		return err
	}
	if p == "" {
		return fmt.Errorf("%s: must not be empty", f.name("path"))
	}
	if err := checkCacheName(p); err != nil {
		return fmt.Errorf("%s: %w", f.name("path"), err)
	}
	return nil
}

// cacheFile implements OSWorld's cache_file
// (desktop_env/evaluators/getters/file.py).
//
// cacheFile returns the host path of a file in the cache folder, or, when
// it is not there, in the task's folder (where deskrun tasks keep their
// expected files).
func (r *run) cacheFile(ctx context.Context, p map[string]any) (any, error) {
	name := p["path"].(string)
	if err := checkCacheName(name); err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage("cache_file " + err.Error())
	}
	for _, root := range []string{r.cacheDir, r.t.Dir} {
		if root == "" {
			continue
		}
		if c, err := hostfile.CheckIn([]string{root}, filepath.FromSlash(name), maxHostFile); err == nil {
			return c, nil
		} else if !errdefs.IsNotFound(err) {
			return nil, fmt.Errorf("cache_file %w", err)
		}
	}
	return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("cache_file %q: not in the cache folder nor the task's folder", p["path"]))
}

// strftime formats t with the directives of Python's strftime that task
// files use (%Y %m %d %H %M %S %y %%).
func strftime(format string, t time.Time) string {
	return strings.NewReplacer("%Y", t.Format("2006"), "%m", t.Format("01"), "%d", t.Format("02"),
		"%H", t.Format("15"), "%M", t.Format("04"), "%S", t.Format("05"), "%y", t.Format("06"), "%%", "%").Replace(format)
}
