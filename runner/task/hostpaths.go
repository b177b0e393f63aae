package task

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/hostfile"
	"github.com/deskrun/deskrun/internal/py"
)

// Task files are untrusted input: a task may read files on the runner
// host only inside its own folder (where the task file lies) and the
// run's cache folder, regular files only, of at most maxHostFile bytes.
// A path that leads out by its letters is refused when the task loads
// (checkHostPaths); one that leads out by a link, or is not a regular
// file, when setup or grading reads it.

// maxHostFile bounds one file a task reads on the runner host (an
// upload's local_path, a cloud_file, a cache_file); OSWorld's largest
// task files are a few hundred megabytes.
const maxHostFile = 2 << 30

// hostSource returns the local path of a download or upload source read
// on the host ("" for an http(s) URL): the path itself, or a file://
// URL's path.
func hostSource(src string) string {
	if !strings.Contains(src, "://") {
		return src
	}
	if u, err := url.Parse(src); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return ""
}

// checkHostPaths refuses, at load, the host paths of t that lie outside
// its folder by their letters: upload_file local_path and download url
// (file://) in config and postconfig, cloud_file and cache_file paths in
// the getters (cache_file's path is checked with the getter's other
// fields). dir is the task's folder.
func checkHostPaths(t *Task, dir string) error {
	roots := []string{dir}
	check := func(field, p string) error {
		if p == "" {
			return nil
		}
		if _, _, err := hostfile.Within(roots, p); err != nil {
			return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: %s: a task reads host files only inside its own folder", field, err))
		}
		return nil
	}
	for _, l := range []struct {
		name  string
		steps []Step
	}{{"config", t.Config}, {"evaluator.postconfig", t.Evaluator.Postconfig}} {
		for i, s := range l.steps {
			key := map[string]string{"upload_file": "local_path", "download": "url"}[s.Type]
			if key == "" {
				continue
			}
			files, _ := s.Parameters["files"].([]any)
			for j, f := range files {
				m, _ := f.(map[string]any)
				src, _ := m[key].(string)
				if err := check(fmt.Sprintf("%s[%d].parameters.files[%d].%s", l.name, i, j, key), hostSource(src)); err != nil {
					return err
				}
			}
		}
	}
	for _, l := range []struct {
		name    string
		getters []*Getter
	}{{"evaluator.result", t.Evaluator.Result}, {"evaluator.expected", t.Evaluator.Expected}} {
		for i, g := range l.getters {
			if g == nil || g.Type != "cloud_file" {
				continue
			}
			var paths []string
			switch p := g.Params["path"].(type) {
			case string:
				paths = []string{p}
			case []any:
				paths = py.Strings(p)
			}
			for j, p := range paths {
				field := l.name
				if t.Evaluator.List {
					field += fmt.Sprintf("[%d]", i)
				}
				field += ".path"
				if _, multi := g.Params["path"].([]any); multi {
					field += fmt.Sprintf("[%d]", j)
				}
				if err := check(field, hostSource(p)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// hostRoots are the folders the task may read on the host: its own
// folder first (relative paths are taken from there), then the cache.
// A task without a folder ([Parse]) reads none.
func (r *run) hostRoots() []string {
	if r.t.Dir == "" {
		return nil
	}
	return []string{r.t.Dir, r.cacheDir}
}

// readHost reads a local path or file:// URL's path of the task on the
// host, confined to hostRoots.
func (r *run) readHost(local string) ([]byte, error) {
	if r.t.Dir == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("%s: the task has no folder, so it reads no files on the runner host", local))
	}
	data, err := hostfile.ReadIn(r.hostRoots(), local, maxHostFile)
	if errdefs.IsNotFound(err) {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("source %s: file not found on the runner host", local))
	}
	if err != nil {
		return nil, fmt.Errorf("source %w", err)
	}
	return data, nil
}

// inCache returns the host path of name in the cache folder when a
// regular file is there.
func (r *run) inCache(name string) (string, bool) {
	if checkCacheName(name) != nil {
		return "", false
	}
	p, err := hostfile.CheckIn([]string{r.cacheDir}, filepath.FromSlash(name), maxHostFile)
	return p, err == nil
}
