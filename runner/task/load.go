package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/internal/hostfile"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/metric"
)

// Formats of task files.
const (
	FormatJSON = "json" // OSWorld's task JSON
	FormatYAML = "yaml" // the same model in YAML
)

// Load reads the task file at path, or every *.json, *.yaml and *.yml
// file under the directory at path (recursively, in lexical order).
// JSON files that are not tasks (objects with neither "id" nor
// "evaluator", or not objects at all, such as OSWorld's test_all.json
// index) are skipped.
//
// Every task is checked completely: an unknown setup step type, getter
// type or metric name, or a malformed field, fails the load with an
// error of class [errdefs.ErrInvalidArgument] naming the file, the task
// id, the field and the name, e.g.
// `load tasks/a.json: task "abc": evaluator.result[1]: unknown getter type "vm_foo"`.
// Two tasks with the same id in one tree are an error too.
func Load(path string) ([]*Task, error) {
	return LoadContext(context.Background(), path)
}

// LoadContext is [Load] that stops between files when ctx ends, with
// ctx's error.
func LoadContext(ctx context.Context, path string) ([]*Task, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load tasks: %w", err)
	}
	if !info.IsDir() {
		t, err := LoadFile(path)
		if err != nil {
			return nil, err
		}
		return []*Task{t}, nil
	}
	files, err := taskFiles(path)
	if err != nil {
		return nil, err
	}
	var tasks []*Task
	seen := map[string]string{}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("load tasks: %w", err)
		}
		t, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		if t == nil {
			continue
		}
		if prev, dup := seen[t.ID]; dup {
			return nil, errdefs.ErrInvalidArgument.WithMessage(
				fmt.Sprintf("load %s: task %q: id already used by %s", f, t.ID, prev))
		}
		seen[t.ID] = f
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// LoadFile reads one task file; the format follows the extension (.json,
// .yaml, .yml). Errors are as for [Load].
func LoadFile(path string) (*Task, error) {
	t, err := loadFile(path)
	if err == nil && t == nil {
		err = errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load %s: not a task (no id and no evaluator)", path))
	}
	return t, err
}

func loadFile(path string) (*Task, error) {
	format := formatOf(path)
	if format == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage(
			fmt.Sprintf("load %s: unknown file extension (want .json, .yaml or .yml)", path))
	}
	data, err := readTaskFile(path)
	if err != nil {
		return nil, err
	}
	v, err := decode(data, format)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load %s: %s", path, err))
	}
	if !looksLikeTask(v) {
		return nil, nil // LoadFile reports it; Load skips it
	}
	t, err := build(v.(map[string]any), format == FormatYAML)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load %s: %s", path, err))
	}
	t.Path = path
	sum := sha256.Sum256(data)
	t.SHA256 = hex.EncodeToString(sum[:])
	t.Dir = filepath.Dir(path)
	if err := checkHostPaths(t, t.Dir); err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load %s: task %q: %s", path, t.ID, err))
	}
	if t.Domain == "" {
		t.Domain = filepath.Base(t.Dir)
	}
	return t, nil
}

// Parse reads one task from data in the given format (FormatJSON or
// FormatYAML). Relative local paths in the task resolve against the
// task's folder, Dir, which Parse leaves empty: set it on the result, or
// the task reads no files on the runner host.
func Parse(data []byte, format string) (*Task, error) {
	if format != FormatJSON && format != FormatYAML {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("parse task: unknown format %q (want json or yaml)", format))
	}
	v, err := decode(data, format)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage("parse task: " + err.Error())
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errdefs.ErrInvalidArgument.WithMessage("parse task: want an object, got " + py.TypeName(v))
	}
	t, err := build(m, format == FormatYAML)
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	return t, nil
}

func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return FormatJSON
	case ".yaml", ".yml":
		return FormatYAML
	}
	return ""
}

// decode turns JSON or YAML into the JSON data model, numbers as
// json.Number.
func decode(data []byte, format string) (any, error) {
	if format == FormatYAML {
		return py.DecodeYAML(data)
	}
	return py.DecodeJSON(data)
}

func looksLikeTask(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, id := m["id"]
	_, ev := m["evaluator"]
	return id || ev
}

// build makes a Task from a decoded object and checks it. strict refuses
// unknown top-level fields (the YAML form); OSWorld JSON files may carry
// extra fields, which are ignored.
func build(m map[string]any, strict bool) (*Task, error) {
	t := &Task{}
	id, _ := m["id"].(string)
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("task %q: %w", id, err)
	}
	f := fields{m: m}
	var err error
	if t.ID, err = f.str("id", true); err != nil {
		return nil, wrap(err)
	}
	if t.ID == "" {
		return nil, wrap(errors.New("id: must not be empty"))
	}
	if t.Instruction, err = f.str("instruction", true); err != nil {
		return nil, wrap(err)
	}
	if src, ok := m["source"].([]any); ok {
		// A few OSWorld tasks name several sources.
		parts := make([]string, len(src))
		for i, e := range src {
			s, ok := e.(string)
			if !ok {
				return nil, wrap(fmt.Errorf("source[%d]: want a string, got %s", i, py.TypeName(e)))
			}
			parts[i] = s
		}
		t.Source = strings.Join(parts, ", ")
		f = fields{m: maps.Clone(m)}
		delete(f.m, "source")
	}
	for _, s := range []struct {
		key string
		dst *string
	}{
		{"snapshot", &t.Snapshot}, {"source", &t.Source}, {"trajectory", &t.Trajectory},
		{"domain", &t.Domain},
	} {
		if !f.has(s.key) {
			continue
		}
		if *s.dst, err = f.str(s.key, false); err != nil {
			return nil, wrap(err)
		}
	}
	if v, ok := m["possibility_of_env_change"]; ok && v != nil {
		t.PossibilityOfEnvChange = py.Str(v)
	}
	t.Proxy = py.Truthy(m["proxy"])
	t.FixedIP = py.Truthy(m["fixed_ip"])
	if t.RelatedApps, err = f.strList("related_apps"); err != nil {
		return nil, wrap(err)
	}
	if t.Config, err = buildSteps(m["config"], "config"); err != nil {
		return nil, wrap(err)
	}
	ev, ok := m["evaluator"]
	if !ok || ev == nil {
		return nil, wrap(errors.New("evaluator: required"))
	}
	if t.Evaluator, err = buildEvaluator(ev, strict); err != nil {
		return nil, wrap(err)
	}
	if t.Solution, err = buildSolution(m["solution"]); err != nil {
		return nil, wrap(err)
	}
	if strict {
		for k := range m {
			if !topLevelKeys[k] {
				return nil, wrap(fmt.Errorf("%s: unknown field", k))
			}
		}
	}
	t.Skip = skipOf(t)
	return t, nil
}

var topLevelKeys = map[string]bool{
	"id": true, "snapshot": true, "instruction": true, "source": true, "config": true,
	"trajectory": true, "related_apps": true, "evaluator": true, "proxy": true,
	"fixed_ip": true, "possibility_of_env_change": true, "domain": true, "solution": true,
}

func buildSteps(v any, path string) ([]Step, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of steps, got %s", path, py.TypeName(v))
	}
	steps := make([]Step, 0, len(list))
	for i, e := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want an object, got %s", p, py.TypeName(e))
		}
		typ, ok := m["type"].(string)
		if !ok {
			return nil, fmt.Errorf("%s.type: want a string, got %s", p, py.TypeName(m["type"]))
		}
		for k := range m {
			if k != "type" && k != "parameters" {
				return nil, fmt.Errorf("%s.%s: unknown field", p, k)
			}
		}
		params := map[string]any{}
		if pv, ok := m["parameters"]; ok && pv != nil {
			if params, ok = pv.(map[string]any); !ok {
				return nil, fmt.Errorf("%s.parameters: want an object, got %s", p, py.TypeName(pv))
			}
		}
		spec, ok := stepTable[typ]
		if !ok {
			return nil, fmt.Errorf("%s: unknown setup step type %q", p, typ)
		}
		if err := spec.check(fields{path: p + ".parameters", m: params}); err != nil {
			return nil, err
		}
		steps = append(steps, Step{Type: typ, Parameters: params})
	}
	return steps, nil
}

// buildEvaluator reads the evaluator. OSWorld reads its fields by name
// and ignores others (notes such as "_config_note"); strict (the YAML
// form) refuses them.
func buildEvaluator(v any, strict bool) (Evaluator, error) {
	var e Evaluator
	m, ok := v.(map[string]any)
	if !ok {
		return e, fmt.Errorf("evaluator: want an object, got %s", py.TypeName(v))
	}
	for k := range m {
		switch k {
		case "func", "result", "expected", "options", "conj", "postconfig":
		default:
			if strict {
				return e, fmt.Errorf("evaluator.%s: unknown field", k)
			}
		}
	}
	switch fv := m["func"].(type) {
	case string:
		e.Func = []string{fv}
	case []any:
		e.List = true
		for i, x := range fv {
			s, ok := x.(string)
			if !ok {
				return e, fmt.Errorf("evaluator.func[%d]: want a string, got %s", i, py.TypeName(x))
			}
			e.Func = append(e.Func, s)
		}
		if len(e.Func) == 0 {
			return e, errors.New("evaluator.func: empty list")
		}
	default:
		return e, fmt.Errorf("evaluator.func: want a string or a list of strings, got %s", py.TypeName(m["func"]))
	}
	n := len(e.Func)
	for i, name := range e.Func {
		p := "evaluator.func"
		if e.List {
			p = fmt.Sprintf("evaluator.func[%d]", i)
		}
		if name == "" {
			if !e.List && len(m) > 0 && isEmptyGetter(m["result"]) && isEmptyGetter(m["expected"]) {
				// A few OSWorld drafts have {"func": "", "result": {},
				// "expected": {}}: no grading at all, in OSWorld either.
				e.Unfinished = true
				return e, nil
			}
			return e, fmt.Errorf("%s: must not be empty", p)
		}
		if name == "infeasible" && e.List {
			return e, fmt.Errorf("%s: infeasible must be the only metric (func: \"infeasible\")", p)
		}
		if _, ok := metric.Lookup(name); !ok && name != "infeasible" {
			return e, fmt.Errorf("%s: unknown metric %q (not implemented)", p, name)
		}
	}
	conj := "and"
	if c, ok := m["conj"]; ok && c != nil {
		s, ok := c.(string)
		if !ok || (s != "and" && s != "or") {
			return e, fmt.Errorf("evaluator.conj: want \"and\" or \"or\", got %s", py.Repr(c))
		}
		conj = s
	}
	e.Conj = conj
	var err error
	if e.Postconfig, err = buildSteps(m["postconfig"], "evaluator.postconfig"); err != nil {
		return e, err
	}
	if e.Infeasible() {
		return e, nil
	}
	if e.Result, err = buildGetters(m["result"], "evaluator.result", e.List, n, false); err != nil {
		return e, err
	}
	if e.Expected, err = buildGetters(m["expected"], "evaluator.expected", e.List, n, true); err != nil {
		return e, err
	}
	if e.Options, err = buildOptions(m["options"], e.List, n); err != nil {
		return e, err
	}
	for i, name := range e.Func {
		spec, _ := metric.Lookup(name)
		idx := ""
		if e.List {
			idx = fmt.Sprintf("[%d]", i)
		}
		if !spec.ExpectedOptional && e.Expected[i] == nil {
			return e, fmt.Errorf("evaluator.expected%s: required by metric %q", idx, name)
		}
		if spec.CheckOptions != nil {
			if err := spec.CheckOptions(e.Options[i]); err != nil {
				return e, fmt.Errorf("evaluator.options%s: %w", idx, err)
			}
		} else if len(e.Options[i]) > 0 {
			return e, fmt.Errorf("evaluator.options%s: metric %q takes no options", idx, name)
		}
		if g := e.Expected[i]; g != nil && g.Type == "rule" && spec.CheckRules != nil {
			if err := spec.CheckRules(g.Params["rules"]); err != nil {
				return e, fmt.Errorf("evaluator.expected%s.rules: %w", idx, err)
			}
		}
	}
	return e, nil
}

// buildGetters reads result or expected: an object for a single metric,
// a list of n objects for a list of metrics. optional allows it to be
// absent (and, in a list, entries to be null).
func buildGetters(v any, path string, list bool, n int, optional bool) ([]*Getter, error) {
	out := make([]*Getter, n)
	if v == nil {
		if optional {
			return out, nil
		}
		return nil, fmt.Errorf("%s: required", path)
	}
	if !list {
		g, err := buildGetter(v, path)
		if err != nil {
			return nil, err
		}
		if g == nil && !optional {
			return nil, fmt.Errorf("%s: required", path)
		}
		out[0] = g
		return out, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list (func is a list), got %s", path, py.TypeName(v))
	}
	if len(items) == 0 && optional {
		return out, nil
	}
	if len(items) != n {
		return nil, fmt.Errorf("%s: %d entries for %d metrics", path, len(items), n)
	}
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		g, err := buildGetter(item, p)
		if err != nil {
			return nil, err
		}
		if g == nil && !optional {
			return nil, fmt.Errorf("%s: required", p)
		}
		out[i] = g
	}
	return out, nil
}

func buildGetter(v any, path string) (*Getter, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %s", path, py.TypeName(v))
	}
	if len(m) == 0 {
		return nil, nil // OSWorld treats {} as no getter
	}
	typ, ok := m["type"].(string)
	if !ok {
		return nil, fmt.Errorf("%s.type: want a string, got %s", path, py.TypeName(m["type"]))
	}
	spec, ok := getterTable[typ]
	if !ok {
		return nil, fmt.Errorf("%s: unknown getter type %q", path, typ)
	}
	params := make(map[string]any, len(m)-1)
	for k, v := range m {
		if k != "type" {
			params[k] = v
		}
	}
	if err := spec.check(fields{path: path, m: params}); err != nil {
		return nil, err
	}
	return &Getter{Type: typ, Params: params}, nil
}

func buildOptions(v any, list bool, n int) ([]map[string]any, error) {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{}
	}
	switch o := v.(type) {
	case nil:
		return out, nil
	case map[string]any:
		// For a list of metrics OSWorld wants a list; one object for all
		// of them is accepted here and applies to each.
		for i := range out {
			out[i] = o
		}
		return out, nil
	case []any:
		if !list {
			return nil, errors.New("evaluator.options: want an object (func is a single metric), got a list")
		}
		if len(o) != n {
			return nil, fmt.Errorf("evaluator.options: %d entries for %d metrics", len(o), n)
		}
		for i, e := range o {
			if e == nil {
				continue
			}
			m, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("evaluator.options[%d]: want an object, got %s", i, py.TypeName(e))
			}
			out[i] = m
		}
		return out, nil
	}
	return nil, fmt.Errorf("evaluator.options: want an object or a list, got %s", py.TypeName(v))
}

func buildSolution(v any) ([]Call, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("solution: want a list of calls, got %s", py.TypeName(v))
	}
	calls := make([]Call, 0, len(list))
	for i, e := range list {
		p := fmt.Sprintf("solution[%d]", i)
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want an object, got %s", p, py.TypeName(e))
		}
		f := fields{path: p, m: m}
		if err := f.only("dialect", "tool", "args"); err != nil {
			return nil, err
		}
		var c Call
		var err error
		if c.Dialect, err = f.str("dialect", true); err != nil {
			return nil, err
		}
		if c.Tool, err = f.str("tool", true); err != nil {
			return nil, err
		}
		if c.Dialect == "" || c.Tool == "" {
			return nil, fmt.Errorf("%s: dialect and tool must not be empty", p)
		}
		args := m["args"]
		if args == nil {
			args = map[string]any{}
		}
		if _, ok := args.(map[string]any); !ok {
			return nil, fmt.Errorf("%s.args: want an object, got %s", p, py.TypeName(args))
		}
		if c.Args, err = json.Marshal(args); err != nil {
			return nil, fmt.Errorf("%s.args: %w", p, err)
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// LoadSolution reads a reference solution kept in a file of its own: a
// JSON or YAML list of {"dialect", "tool", "args"} objects.
func LoadSolution(path string) ([]Call, error) {
	format := formatOf(path)
	if format == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load solution %s: unknown file extension", path))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load solution %s: %w", path, err)
	}
	v, err := decode(data, format)
	if err == nil {
		var calls []Call
		if calls, err = buildSolution(v); err == nil {
			return calls, nil
		}
	}
	return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("load solution %s: %s", path, err))
}

// fields reads typed values out of a decoded object, naming the field in
// errors.
type fields struct {
	path string
	m    map[string]any
}

func (f fields) name(key string) string {
	if f.path == "" {
		return key
	}
	return f.path + "." + key
}

func (f fields) has(key string) bool {
	v, ok := f.m[key]
	return ok && v != nil
}

func (f fields) str(key string, required bool) (string, error) {
	v, ok := f.m[key]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("%s: required", f.name(key))
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", f.name(key), py.TypeName(v))
	}
	return s, nil
}

func (f fields) strList(key string) ([]string, error) {
	v, ok := f.m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of strings, got %s", f.name(key), py.TypeName(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", f.name(key), i, py.TypeName(e))
		}
		out[i] = s
	}
	return out, nil
}

// command checks a command: a non-empty string or list of strings.
func (f fields) command(key string) error {
	v, ok := f.m[key]
	if !ok || v == nil {
		return fmt.Errorf("%s: required", f.name(key))
	}
	switch c := v.(type) {
	case string:
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("%s: must not be empty", f.name(key))
		}
		return nil
	case []any:
		if len(c) == 0 {
			return fmt.Errorf("%s: must not be empty", f.name(key))
		}
		for i, e := range c {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("%s[%d]: want a string, got %s", f.name(key), i, py.TypeName(e))
			}
		}
		return nil
	}
	return fmt.Errorf("%s: want a string or a list of strings, got %s", f.name(key), py.TypeName(v))
}

func (f fields) num(key string, required bool) error {
	v, ok := f.m[key]
	if !ok || v == nil {
		if required {
			return fmt.Errorf("%s: required", f.name(key))
		}
		return nil
	}
	if _, ok := v.(json.Number); !ok {
		return fmt.Errorf("%s: want a number, got %s", f.name(key), py.TypeName(v))
	}
	return nil
}

// only refuses keys other than those listed (OSWorld's setup functions
// take fixed keyword parameters and fail on others).
func (f fields) only(keys ...string) error {
	for k := range f.m {
		found := false
		for _, want := range keys {
			if k == want {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s: unknown parameter", f.name(k))
		}
	}
	return nil
}

// maxTaskFile bounds a task file; OSWorld's largest are a few kilobytes.
const maxTaskFile = 4 << 20

// readTaskFile reads a task file that is a regular file of at most
// maxTaskFile bytes; a FIFO or a device named like a task file is
// refused instead of hanging the load.
func readTaskFile(path string) ([]byte, error) {
	data, err := hostfile.Read(path, maxTaskFile)
	if err != nil {
		if errdefs.IsInvalidArgument(err) {
			return nil, errdefs.ErrInvalidArgument.WithMessage("load " + err.Error())
		}
		return nil, fmt.Errorf("load %w", err)
	}
	return data, nil
}

// isEmptyGetter reports whether a getter field is absent or {}.
func isEmptyGetter(v any) bool {
	m, ok := v.(map[string]any)
	return v == nil || ok && len(m) == 0
}
