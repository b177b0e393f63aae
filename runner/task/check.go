package task

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/hostfile"
)

// Statuses of a task file in a [CheckReport].
const (
	CheckLoaded  = "loaded"  // the task runs here
	CheckSkipped = "skipped" // the task loads, and is skipped (see [Skip])
	CheckRefused = "refused" // the task file is refused (the error says why)
)

// OSWorldCommit names the OSWorld tree deskrun's loader, steps, getters
// and metrics follow (docs/osworld.md says the same).
const OSWorldCommit = "ljxpython/OSWorldUse@f6cee71 (xlang-ai/OSWorld as of 2026-04)"

// CheckEntry is the verdict on one task file.
type CheckEntry struct {
	ID     string `json:"id"`
	Domain string `json:"domain"`
	Path   string `json:"path"`
	Status string `json:"status"`
	// SHA256 is the hex SHA-256 of the task file's bytes.
	SHA256 string `json:"sha256"`
	// Field and Reason say why a task is skipped or refused, e.g.
	// "evaluator.func" and `unknown metric "compare_pptx_files"`.
	Field  string `json:"field,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// CheckCount counts the verdicts of one domain, or of all ("all").
type CheckCount struct {
	Domain  string `json:"domain"`
	Loaded  int    `json:"loaded"`
	Skipped int    `json:"skipped"`
	Refused int    `json:"refused"`
}

// CheckReport is the outcome of [Check].
type CheckReport struct {
	// OSWorld is [OSWorldCommit]; TasksSHA256 the SHA-256 of the checked
	// tasks' "domain/id sha256" lines, sorted, so two checks (or runs)
	// prove they read the same task files.
	OSWorld     string       `json:"osworld"`
	TasksSHA256 string       `json:"tasks_sha256"`
	Tasks       []CheckEntry `json:"tasks"`
	Domains     []CheckCount `json:"domains"`
}

// Refused reports how many task files were refused.
func (r CheckReport) Refused() int {
	n := 0
	for _, t := range r.Tasks {
		if t.Status == CheckRefused {
			n++
		}
	}
	return n
}

// Check loads every task file at path (a file or a folder tree, as
// [Load] reads it) without stopping at the first bad one, and says of
// each whether it loads, loads as skipped, or is refused, with the field
// and the reason. It needs no sandbox. With only non-nil, it keeps the
// task files <domain>/<id>.json whose "domain/id" is in only (see
// [ReadIndex]), as OSWorld finds them. Two kept tasks with one id (one
// domain and id with an index) are refused. Tasks needing an
// application apps says the image lacks are skipped ([SkipMissing]).
func Check(path string, only map[string]bool, apps Apps) (CheckReport, error) {
	files, err := taskFiles(path)
	if err != nil {
		return CheckReport{}, err
	}
	var rep CheckReport
	for _, f := range files {
		e := CheckEntry{Path: f, Domain: filepath.Base(filepath.Dir(f))}
		if data, err := hostfile.Read(f, maxTaskFile); err == nil {
			sum := sha256.Sum256(data)
			e.SHA256 = hex.EncodeToString(sum[:])
		}
		t, err := loadFile(f)
		switch {
		case err != nil:
			e.Status = CheckRefused
			e.ID = idOf(f)
			e.Field, e.Reason = splitLoadError(err.Error(), f, e.ID)
		case t == nil:
			continue // not a task (an index such as test_all.json)
		default:
			e.ID, e.Domain = t.ID, t.Domain
			e.Status = CheckLoaded
			SkipMissing([]*Task{t}, apps)
			if t.Skip != nil {
				e.Status, e.Field, e.Reason = CheckSkipped, t.Skip.Field, t.Skip.Reason
			}
		}
		stem := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if only == nil || only[filepath.Base(filepath.Dir(f))+"/"+stem] {
			rep.Tasks = append(rep.Tasks, e)
		}
	}
	seen := map[string]string{}
	for i, e := range rep.Tasks {
		if e.ID == "" {
			continue
		}
		key := e.ID
		if only != nil {
			// An index lists tasks by domain: OSWorld's test_all.json
			// has a few ids under two domains, each its own file.
			key = e.Domain + "/" + e.ID
		}
		if prev, dup := seen[key]; dup {
			rep.Tasks[i].Status, rep.Tasks[i].Field, rep.Tasks[i].Reason = CheckRefused, "id", "already used by "+prev
		}
		seen[key] = e.Path
	}
	rep.Domains = countChecks(rep.Tasks)
	rep.OSWorld = OSWorldCommit
	sums := make([]TaskFile, 0, len(rep.Tasks))
	for _, e := range rep.Tasks {
		sums = append(sums, TaskFile{Domain: e.Domain, ID: e.ID, SHA256: e.SHA256})
	}
	rep.TasksSHA256 = TasksSHA256(sums)
	return rep, nil
}

// TaskFile names one task file by its domain, id and SHA-256.
type TaskFile struct {
	Domain, ID, SHA256 string
}

// TasksSHA256 is the hex SHA-256 of the lines "domain/id sha256\n" of
// files, sorted: one value for a set of task files, which tasks check
// prints and a run's summary gives, so that a check and runs over the
// same files show the same value.
func TasksSHA256(files []TaskFile) string {
	lines := make([]string, 0, len(files))
	for _, f := range files {
		lines = append(lines, f.Domain+"/"+f.ID+" "+f.SHA256+"\n")
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// taskFiles lists the files Load reads at path.
func taskFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if formatOf(p) != "" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	slices.Sort(files)
	return files, nil
}

// idOf reads the id of a task file that failed to load, if it has one.
func idOf(path string) string {
	data, err := hostfile.Read(path, maxTaskFile)
	if err != nil {
		return ""
	}
	v, err := decode(data, formatOf(path))
	if err != nil {
		return ""
	}
	m, _ := v.(map[string]any)
	id, _ := m["id"].(string)
	return id
}

var fieldPrefix = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[\d+\]|\.[A-Za-z_][A-Za-z0-9_]*)*(\s\([a-z_]+\))?: `)

// splitLoadError takes `load PATH: task "ID": FIELD: REASON` apart.
func splitLoadError(msg, path, id string) (field, reason string) {
	msg = strings.TrimPrefix(msg, "load "+path+": ")
	msg = strings.TrimPrefix(msg, fmt.Sprintf("task %q: ", id))
	if loc := fieldPrefix.FindStringIndex(msg); loc != nil {
		return msg[:loc[1]-2], msg[loc[1]:]
	}
	return "", msg
}

// ReadIndex reads an index of task ids such as OSWorld's test_all.json,
// an object mapping each domain to a list of ids, as a set of
// "domain/id".
func ReadIndex(path string) (map[string]bool, error) {
	data, err := hostfile.Read(path, maxTaskFile)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	var idx map[string][]string
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("read index %s: want an object of domains to lists of task ids: %s", path, err))
	}
	ids := map[string]bool{}
	for domain, list := range idx {
		for _, id := range list {
			ids[domain+"/"+id] = true
		}
	}
	return ids, nil
}

// countChecks counts entries per domain, domains sorted, "all" last.
func countChecks(entries []CheckEntry) []CheckCount {
	by := map[string]*CheckCount{}
	all := CheckCount{Domain: "all"}
	for _, e := range entries {
		c := by[e.Domain]
		if c == nil {
			c = &CheckCount{Domain: e.Domain}
			by[e.Domain] = c
		}
		for _, x := range []*CheckCount{c, &all} {
			switch e.Status {
			case CheckLoaded:
				x.Loaded++
			case CheckSkipped:
				x.Skipped++
			default:
				x.Refused++
			}
		}
	}
	out := make([]CheckCount, 0, len(by)+1)
	for _, c := range by {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Domain < out[j].Domain })
	if len(entries) > 0 {
		out = append(out, all)
	}
	return out
}
