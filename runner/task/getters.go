package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
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
}

// getterSpecs lists the getter types deskrun implements.
var getterSpecs = map[string]getterSpec{
	"vm_command_line":  {checkCommandGetter, (*run).vmCommandLine},
	"vm_command_error": {checkCommandGetter, (*run).vmCommandError},
	"vm_file":          {checkFileGetter, (*run).vmFile},
	"cloud_file":       {checkFileGetter, (*run).cloudFile},
	"list_directory":   {checkPathGetter, (*run).listDirectory},
	"vm_screen_size":   {checkNoParams, (*run).vmScreenSize},
	"vm_window_size":   {checkWindowSizeGetter, (*run).vmWindowSize},
	"rule":             {checkRuleGetter, (*run).rule},
	"cache_file":       {checkCacheFileGetter, (*run).cacheFile},
}

// addGetters registers the getters of one family (each family in its own file,
// from an init function); a name registered twice is a bug.
func addGetters(m map[string]getterSpec) {
	for name, sp := range m {
		if _, dup := getterSpecs[name]; dup {
			panic("task: getter " + name + " registered twice")
		}
		getterSpecs[name] = sp
	}
}

func (r *run) get(ctx context.Context, g *Getter) (any, error) {
	if g == nil {
		return nil, nil
	}
	spec, ok := getterSpecs[g.Type]
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
	argv, err := r.argv(ctx, p["command"], pyTruthy(p["shell"]))
	if err != nil {
		return nil, err
	}
	res, err := r.exec(ctx, argv, pyTruthy(p["admin"]), 0, "")
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", shortCmd(argv), err)
	}
	if res.TimedOut {
		return nil, nil
	}
	return &res, nil
}

func (r *run) vmCommandLine(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.commandResult(ctx, p)
	if res == nil || err != nil {
		return nil, err
	}
	return res.Stdout, nil
}

func (r *run) vmCommandError(ctx context.Context, p map[string]any) (any, error) {
	res, err := r.commandResult(ctx, p)
	if res == nil || err != nil {
		return nil, err
	}
	return res.Stderr, nil
}

func checkFileGetter(f fields) error {
	multi := pyTruthy(f.m["multi"])
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
				return fmt.Errorf("%s: want a string (or a list with multi), got %s", f.name(k), typeName(v))
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
			return fmt.Errorf("%s: want a list of indices, got %s", f.name("gives"), typeName(g))
		}
		for i, e := range list {
			if _, ok := asInt(e); !ok || typeName(e) != "number" {
				return fmt.Errorf("%s[%d]: want an integer, got %s", f.name("gives"), i, pyRepr(e))
			}
		}
	}
	return nil
}

// filePairs returns a file getter's (path, dest) pairs and the indices
// it gives back; zip stops at the shorter list, as in OSWorld.
func filePairs(p map[string]any) (paths, dests []string, gives map[int]bool) {
	if pyTruthy(p["multi"]) {
		for _, v := range p["path"].([]any) {
			paths = append(paths, v.(string))
		}
		for _, v := range p["dest"].([]any) {
			dests = append(dests, v.(string))
		}
	} else {
		paths, dests = []string{p["path"].(string)}, []string{p["dest"].(string)}
		if pyTruthy(p["time_suffix"]) {
			// OSWorld inserts today's date before the first dot.
			format, _ := p["time_format"].(string)
			if format == "" {
				format = "%Y_%m_%d"
			}
			suffix := strftime(format, time.Now())
			for _, list := range [][]string{paths, dests} {
				for i, s := range list {
					if parts := strings.Split(s, "."); len(parts) > 1 {
						list[i] = parts[0] + suffix + "." + parts[1]
					}
				}
			}
		}
	}
	if n := min(len(paths), len(dests)); n < len(paths) || n < len(dests) {
		paths, dests = paths[:n], dests[:n]
	}
	gives = map[int]bool{0: true}
	if g, ok := p["gives"].([]any); ok {
		gives = map[int]bool{}
		for _, e := range g {
			i, _ := asInt(e)
			gives[i] = true
		}
	}
	return paths, dests, gives
}

// fileResult shapes the gathered cache paths as OSWorld does: one path
// alone, else the list.
func fileResult(out []any) any {
	if len(out) == 1 {
		return out[0]
	}
	return out
}

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

// cloudFile is OSWorld's cloud_file with the cloud replaced by the runner
// host: local paths (relative to the task's folder) and file:// URLs,
// or http(s) through Options.Fetch.
func (r *run) cloudFile(ctx context.Context, p map[string]any) (any, error) {
	paths, dests, gives := filePairs(p)
	var out []any
	for i := range paths {
		dst := filepath.Join(r.cacheDir, filepath.FromSlash(dests[i]))
		if _, err := os.Stat(dst); err == nil {
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

// listTree prints one entry per line of everything under $1: the type
// (d for a folder, anything else a file) and the path relative to $1,
// NUL-terminated. It follows symbolic links as os.listdir and
// os.path.isdir do, and keeps the folder's own order as os.listdir does.
const listTree = `[ -d "$1" ] || exit 3
find -L "$1" -mindepth 1 -printf '%y %P\0' 2>/dev/null
exit 0`

// listDirectory returns the tree OSWorld's /list_directory returns:
// {"type":"directory","name":...,"children":[...]} with files as
// {"type":"file","name":...}; nil when path is not a folder.
func (r *run) listDirectory(ctx context.Context, p map[string]any) (any, error) {
	dir, err := r.expandUser(ctx, p["path"].(string))
	if err != nil {
		return nil, err
	}
	res, err := r.exec(ctx, []string{"sh", "-c", listTree, "sh", dir}, false, 0, "")
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	if res.ExitCode != 0 {
		return nil, nil
	}
	return buildTree(dir, res.Stdout), nil
}

func buildTree(dir, listing string) map[string]any {
	newDir := func(name string) map[string]any {
		return map[string]any{"type": "directory", "name": name, "children": []any{}}
	}
	// os.path.basename: the part after the last slash, so "a/b/" has "".
	root := newDir(dir[strings.LastIndex(dir, "/")+1:])
	dirs := map[string]map[string]any{"": root}
	for _, entry := range strings.Split(listing, "\x00") {
		kind, rel, ok := strings.Cut(entry, " ")
		if !ok || rel == "" {
			continue
		}
		parent := dirs[path.Dir(rel)]
		if path.Dir(rel) == "." {
			parent = root
		}
		if parent == nil {
			continue
		}
		var node map[string]any
		if kind == "d" {
			node = newDir(path.Base(rel))
			dirs[rel] = node
		} else {
			node = map[string]any{"type": "file", "name": path.Base(rel)}
		}
		parent["children"] = append(parent["children"].([]any), node)
	}
	return root
}

func (r *run) vmScreenSize(ctx context.Context, p map[string]any) (any, error) {
	h, err := r.sb.Health(ctx)
	if err != nil {
		return nil, fmt.Errorf("read screen size: %w", err)
	}
	return map[string]any{"width": intNumber(h.Screen.Width), "height": intNumber(h.Screen.Height)}, nil
}

func checkWindowSizeGetter(f fields) error {
	name, err := f.str("app_class_name", true)
	if err == nil && name == "" {
		err = fmt.Errorf("%s: must not be empty", f.name("app_class_name"))
	}
	return err
}

var geometryLine = regexp.MustCompile(`(?m)^\s*(Width|Height):\s*(\d+)`)

// vmWindowSize returns {"width","height"} of the first window whose
// WM_CLASS instance or class equals app_class_name (ignoring case), as
// OSWorld's /window_size does; nil when there is none. The size is read
// with xwininfo in the sandbox.
func (r *run) vmWindowSize(ctx context.Context, p map[string]any) (any, error) {
	name := strings.ToLower(p["app_class_name"].(string))
	ws, err := r.sb.Windows(ctx)
	if err != nil {
		return nil, fmt.Errorf("list windows: %w", err)
	}
	for _, w := range ws {
		match := strings.ToLower(w.Class) == name
		for _, part := range classParts(w.Class) {
			match = match || strings.ToLower(part) == name
		}
		if !match {
			continue
		}
		res, err := r.exec(ctx, []string{"xwininfo", "-id", strconv.FormatUint(uint64(w.ID), 10)}, false, 0, "")
		if err != nil {
			return nil, fmt.Errorf("read window geometry: %w", err)
		}
		if res.ExitCode != 0 {
			return nil, errdefs.ErrFailedPrecondition.WithMessage(fmt.Sprintf(
				"read window geometry: xwininfo: exit code %d: %s", res.ExitCode, strings.TrimSpace(res.Stderr)))
		}
		size := map[string]any{}
		for _, m := range geometryLine.FindAllStringSubmatch(res.Stdout, -1) {
			n, _ := strconv.Atoi(m[2])
			size[strings.ToLower(m[1])] = intNumber(n)
		}
		if len(size) != 2 {
			return nil, errors.New("read window geometry: no width and height in xwininfo's output")
		}
		return size, nil
	}
	return nil, nil
}

func checkRuleGetter(f fields) error {
	if _, ok := f.m["rules"]; !ok {
		return fmt.Errorf("%s: required", f.name("rules"))
	}
	return nil
}

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

// cacheFile returns the host path of a file in the cache folder, or, when
// it is not there, in the task's folder (where deskrun tasks keep their
// expected files).
func (r *run) cacheFile(ctx context.Context, p map[string]any) (any, error) {
	name := filepath.FromSlash(p["path"].(string))
	candidates := []string{filepath.Join(r.cacheDir, name)}
	if r.t.Dir != "" {
		candidates = append(candidates, filepath.Join(r.t.Dir, name))
	} else {
		candidates = append(candidates, name)
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
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
