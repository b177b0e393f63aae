package metric

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/py"
)

// Func is a metric: a function of the result getter's value, the
// expected getter's value and the options, as OSWorld's are.
type Func func(ctx context.Context, result, expected any, opts map[string]any) (score float64, detail string, err error)

// Sandbox is what a metric that must run something in the task's
// sandbox uses (run_sqlite3 alone); the task executor gives it.
type Sandbox interface {
	WriteFile(ctx context.Context, path string, data []byte) error
	// Exec runs argv as the desktop user with stdin, bounded by the
	// task's exec timeout.
	Exec(ctx context.Context, argv []string, stdin string) (api.ExecResult, error)
}

// SandboxFunc is a metric that runs something in the sandbox.
type SandboxFunc func(ctx context.Context, sb Sandbox, result, expected any, opts map[string]any) (score float64, detail string, err error)

// Metric is one row of the table: a metric and the checks the loader
// runs on a task using it.
type Metric struct {
	// Fn is the metric; nil when SandboxFn is set.
	Fn Func
	// SandboxFn is set instead of Fn for a metric that runs something in
	// the sandbox.
	SandboxFn SandboxFunc
	// ExpectedOptional says the task may leave the expected getter out
	// (the metric reads the result alone); by default it must give one.
	ExpectedOptional bool
	// CheckOptions checks the options at load time; nil means the metric
	// takes none.
	CheckOptions func(opts map[string]any) error
	// CheckRules checks the rules of a rule getter given as expected; nil
	// means any.
	CheckRules func(rules any) error
}

// Score runs the metric; sb is used only by a metric that runs
// something in the sandbox, and may be nil otherwise.
func (m Metric) Score(ctx context.Context, sb Sandbox, result, expected any, opts map[string]any) (float64, string, error) {
	if m.SandboxFn != nil {
		if sb == nil {
			return 0, "", errors.New("this metric runs in the sandbox, and none was given")
		}
		return m.SandboxFn(ctx, sb, result, expected, opts)
	}
	return m.Fn(ctx, result, expected, opts)
}

// anyOptions accepts any options: OSWorld's function takes **options and
// ignores what it does not know.
func anyOptions(map[string]any) error { return nil }

func needKeys(keys ...string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", py.TypeName(rules))
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				return fmt.Errorf("%s: required", k)
			}
		}
		return nil
	}
}

// rulesMap returns the rules object a metric was given.
func rulesMap(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("rules: want an object, got %s", py.TypeName(v))
	}
	return m, nil
}

func score(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

// exactMatch implements OSWorld's exact_match
// (desktop_env/evaluators/metrics/general.py).
func exactMatch(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, ok := rules["expected"]
	if !ok {
		return 0, "", errors.New("rules.expected: required")
	}
	if py.Equal(result, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("got %s, want %s", py.Truncate(py.Repr(result), 200), py.Truncate(py.Repr(want), 200)), nil
}

// matchInList implements OSWorld's match_in_list
// (desktop_env/evaluators/metrics/general.py).
func matchInList(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	found, ok := py.Contains(rules["expected"], result)
	if !ok {
		return 0, fmt.Sprintf("cannot look for %s in %s", py.TypeName(result), py.TypeName(rules["expected"])), nil
	}
	if !found {
		return 0, fmt.Sprintf("%s is not in %s", py.Truncate(py.Repr(result), 200), py.Truncate(py.Repr(rules["expected"]), 200)), nil
	}
	return 1, "", nil
}

// isInList implements OSWorld's is_in_list
// (desktop_env/evaluators/metrics/general.py).
func isInList(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	found, ok := py.Contains(result, rules["expected"])
	if !ok {
		return 0, fmt.Sprintf("cannot look for %s in %s", py.TypeName(rules["expected"]), py.TypeName(result)), nil
	}
	if !found {
		return 0, fmt.Sprintf("%s is not in the result", py.Truncate(py.Repr(rules["expected"]), 200)), nil
	}
	return 1, "", nil
}

func checkIncludeRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	for _, k := range []string{"include", "exclude"} {
		if v, ok := m[k]; ok {
			if _, ok := v.([]any); !ok {
				return fmt.Errorf("%s: want a list, got %s", k, py.TypeName(v))
			}
		}
	}
	return nil
}

// reprTail is v's repr, cut to its last n bytes (at a character's start)
// after "...": where a text such as a terminal's grows, its end is what
// a reader of a detail looks for.
func reprTail(v any, n int) string {
	s := py.Repr(v)
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "..." + s[i:]
}

// checkIncludeExclude implements OSWorld's check_include_exclude
// (desktop_env/evaluators/metrics/general.py).
func checkIncludeExclude(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	include, _ := rules["include"].([]any)
	exclude, _ := rules["exclude"].([]any)
	for _, r := range include {
		found, ok := py.Contains(result, r)
		if !ok || !found {
			return 0, fmt.Sprintf("missing %s in %s", py.Truncate(py.Repr(r), 200), reprTail(result, 300)), nil
		}
	}
	for _, r := range exclude {
		found, ok := py.Contains(result, r)
		if !ok {
			return 0, fmt.Sprintf("cannot look for %s", py.Truncate(py.Repr(r), 200)), nil
		}
		if found {
			return 0, fmt.Sprintf("found excluded %s", py.Truncate(py.Repr(r), 200)), nil
		}
	}
	return 1, "", nil
}

func checkLiteralOptions(opts map[string]any) error {
	if t, ok := opts["type"]; ok {
		if t != "str" && t != "list" {
			return fmt.Errorf("type: want \"str\" or \"list\", got %s", py.Repr(t))
		}
	}
	return nil
}

// literalMatch implements OSWorld's literal_match
// (desktop_env/evaluators/metrics/general.py).
func literalMatch(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	ignoreCase := py.Truthy(opts["ignore_case"])
	norm := func(v any) string {
		s := py.Str(v)
		if ignoreCase {
			s = py.Lower(s)
		}
		return s
	}
	typ, _ := opts["type"].(string)
	switch typ {
	case "", "str":
		if norm(result) == norm(expected) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("got %q, want %q", py.Truncate(py.Str(result), 200), py.Truncate(py.Str(expected), 200)), nil
	case "list":
		r, okR := result.([]any)
		e, okE := expected.([]any)
		if !okR || !okE || len(r) != len(e) {
			return 0, "result and expected are not lists of the same length", nil
		}
		for i := range r {
			if norm(r[i]) != norm(e[i]) {
				return 0, fmt.Sprintf("item %d: got %q, want %q", i, py.Str(r[i]), py.Str(e[i])), nil
			}
		}
		return 1, "", nil
	}
	return 0, "", fmt.Errorf("options.type: %q not supported", typ)
}

// fuzzyMatch implements OSWorld's fuzzy_match
// (desktop_env/evaluators/metrics/general.py).
func fuzzyMatch(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	a, okA := result.(string)
	b, okB := rules["expected"].(string)
	if !okA || !okB {
		return 0, "result or rules.expected is not a string", nil
	}
	r, err := py.FuzzRatioContext(ctx, a, b)
	return r / 100, "", err
}

// readText reads a host file as Python's open(path).read() does in text
// mode: strict UTF-8, universal newlines.
func readText(p any) (string, error) {
	data, err := readFileArg(p)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		// Python raises UnicodeDecodeError, and the metric scores 0
		return "", errors.New("not UTF-8 text (Python's open() raises UnicodeDecodeError)")
	}
	return py.UniversalNewlines(string(data)), nil
}

// readFileArg reads the host file a getter gave as p, a path.
func readFileArg(p any) ([]byte, error) {
	path, ok := p.(string)
	if !ok {
		return nil, fmt.Errorf("want a file path, got %s", py.TypeName(p))
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: file not found", path)
	}
	return data, err
}

// readTexts reads the result and expected files of a text metric; a
// non-empty detail is why the metric scores 0 (a file it cannot read).
func readTexts(result, expected any) (a, b, detail string) {
	a, err := readText(result)
	if err != nil {
		return "", "", "result: " + err.Error()
	}
	b, err = readText(expected)
	if err != nil {
		return "", "", "expected: " + err.Error()
	}
	return a, b, ""
}

// diffTextFile implements OSWorld's diff_text_file
// (desktop_env/evaluators/metrics/general.py).
func diffTextFile(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	r, err := py.SequenceRatioContext(ctx, py.SplitLines(a), py.SplitLines(b))
	return r, "", err
}

var pyWhitespaceRun = regexp.MustCompile(`[\t\n]`)

// collapseSpace is re.sub(r'\s+', ' ', s) with Python's Unicode \s.
func collapseSpace(s string) string {
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if py.IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// compareTextFile implements OSWorld's compare_text_file
// (desktop_env/evaluators/metrics/vscode.py).
func compareTextFile(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	if py.Truthy(opts["ignore_blanks"]) {
		a = collapseSpace(py.Strip(pyWhitespaceRun.ReplaceAllString(a, " ")))
		b = collapseSpace(py.Strip(pyWhitespaceRun.ReplaceAllString(b, " ")))
	}
	if py.Truthy(opts["ignore_case"]) {
		a, b = py.Lower(a), py.Lower(b)
	}
	if a == b {
		return 1, "", nil
	}
	return 0, "texts differ", nil
}

// searchLine is re.search on a line read from a file, which keeps its
// "\n": Python's $ matches before a final newline, Go's does not, so the
// line is tried without it too.
func searchLine(ctx context.Context, re *py.Regexp, line string) (bool, error) {
	if ok, err := re.MatchContext(ctx, line); ok || err != nil {
		return ok, err
	}
	trimmed, had := strings.CutSuffix(line, "\n")
	if !had {
		return false, nil
	}
	return re.MatchContext(ctx, trimmed)
}

func patternList(m map[string]any, key string) ([]*py.Regexp, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of patterns, got %s", key, py.TypeName(v))
	}
	out := make([]*py.Regexp, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", key, i, py.TypeName(e))
		}
		re, err := py.Compile(s, "")
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
		}
		out[i] = re
	}
	return out, nil
}

func checkListRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	for _, k := range []string{"expect", "unexpect"} {
		if _, err := patternList(m, k); err != nil {
			return err
		}
	}
	return nil
}

// checkList implements OSWorld's check_list
// (desktop_env/evaluators/metrics/general.py).
func checkList(ctx context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	expect, err := patternList(rules, "expect")
	if err != nil {
		return 0, "", err
	}
	unexpect, err := patternList(rules, "unexpect")
	if err != nil {
		return 0, "", err
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	seen := make([]bool, len(expect))
	for _, line := range py.TextLines(text) {
		for i, re := range expect {
			if seen[i] {
				continue
			}
			ok, err := searchLine(ctx, re, line)
			if err != nil {
				return 0, "", err
			}
			seen[i] = ok
		}
		for _, re := range unexpect {
			ok, err := searchLine(ctx, re, line)
			if err != nil {
				return 0, "", err
			}
			if ok {
				return 0, fmt.Sprintf("line %q matches unexpected %q", py.Truncate(line, 200), re.String()), nil
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return 0, fmt.Sprintf("no line matches %q", expect[i].String()), nil
		}
	}
	return 1, "", nil
}

func checkCSVRules(rules any) error {
	return checkRuleLists(rules, "records", nil)
}

// checkRuleLists checks rules of the form {"expect": [...], "unexpect":
// [...]} (each list optional, of objects, what they hold named in errors)
// and passes each object to each, when not nil, for its own checks; an
// error of each follows the object's path ("expect[0]"), so it starts
// with ".field: " or ": ".
func checkRuleLists(rules any, what string, each func(r map[string]any) error) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	for _, k := range []string{"expect", "unexpect"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want a list of %s, got %s", k, what, py.TypeName(v))
		}
		for i, e := range list {
			r, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%s[%d]: want an object, got %s", k, i, py.TypeName(e))
			}
			if each == nil {
				continue
			}
			if err := each(r); err != nil {
				return fmt.Errorf("%s[%d]%w", k, i, err)
			}
		}
	}
	return nil
}

// readCSVRecords reads a CSV file as csv.DictReader does: the first row
// names the fields, each later non-empty row is a record; extra values go
// under no name and missing ones are None.
func readCSVRecords(text string) ([]map[string]any, error) {
	rd := csv.NewReader(strings.NewReader(text))
	rd.FieldsPerRecord = -1
	rd.LazyQuotes = true
	header, err := rd.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for {
		row, err := rd.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		rec := map[string]any{}
		for i, name := range header {
			if i < len(row) {
				rec[name] = row[i]
			} else {
				rec[name] = nil
			}
		}
		out = append(out, rec)
	}
}

// matchRecord is OSWorld's _match_record: every key of pattern is in item
// with an equal value.
func matchRecord(pattern, item map[string]any) bool {
	for k, v := range pattern {
		got, ok := item[k]
		if !ok || !py.Equal(got, v) {
			return false
		}
	}
	return true
}

// checkCSV implements OSWorld's check_csv
// (desktop_env/evaluators/metrics/general.py).
func checkCSV(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	records, err := readCSVRecords(text)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	expect, _ := rules["expect"].([]any)
	unexpect, _ := rules["unexpect"].([]any)
	for _, p := range expect {
		pm, _ := p.(map[string]any)
		found := false
		for _, rec := range records {
			if matchRecord(pm, rec) {
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Sprintf("no record matches %s", py.Repr(p)), nil
		}
	}
	for _, p := range unexpect {
		pm, _ := p.(map[string]any)
		for _, rec := range records {
			if matchRecord(pm, rec) {
				return 0, fmt.Sprintf("a record matches unexpected %s", py.Repr(p)), nil
			}
		}
	}
	return 1, "", nil
}

func checkJSONOptions(opts map[string]any) error {
	if v, ok := opts["is_yaml"]; ok {
		if _, isBool := v.(bool); !isBool {
			return fmt.Errorf("is_yaml: want a bool, got %s", py.TypeName(v))
		}
	}
	for k := range opts {
		if k != "is_yaml" {
			return fmt.Errorf("%s: unknown option of check_json", k)
		}
	}
	return nil
}

func checkJSONRules(rules any) error {
	return checkRuleLists(rules, "rules", func(r map[string]any) error {
		if _, ok := r["key"].([]any); !ok {
			return fmt.Errorf(".key: want a list, got %s", py.TypeName(r["key"]))
		}
		if err := checkValueRule(r); err != nil {
			return fmt.Errorf(": %w", err)
		}
		return nil
	})
}

// checkValueRule checks a {"method", "ref"} rule of _match_value_to_rule.
func checkValueRule(r map[string]any) error {
	method, ok := r["method"].(string)
	if !ok {
		return fmt.Errorf("method: want a string, got %s", py.TypeName(r["method"]))
	}
	if _, ok := r["ref"]; !ok {
		return errors.New("ref: required")
	}
	switch {
	case strings.HasPrefix(method, "re"):
		flags, err := reFlags(method)
		if err != nil {
			return err
		}
		ref, ok := r["ref"].(string)
		if !ok {
			return fmt.Errorf("ref: want a pattern, got %s", py.TypeName(r["ref"]))
		}
		_, err = py.CompileRE2(ref, flags)
		return err
	case method == "eq" || method == "ne" || method == "le" || method == "lt" || method == "ge" || method == "gt":
		return nil
	case strings.HasPrefix(method, "approx"):
		_, t, ok := strings.Cut(method, ":")
		if _, err := strconv.ParseFloat(t, 64); !ok || err != nil {
			return fmt.Errorf("method %q: want approx:<threshold>", method)
		}
		if _, ok := r["ref"].(json.Number); !ok {
			return fmt.Errorf("ref: want a number for %s", method)
		}
		return nil
	case strings.HasPrefix(method, "range."):
		if len(method) != 8 || !strings.ContainsRune("te", rune(method[6])) || !strings.ContainsRune("te", rune(method[7])) {
			return fmt.Errorf("method %q: want range.XY with X and Y each t or e", method)
		}
		if l, ok := r["ref"].([]any); !ok || len(l) != 2 {
			return fmt.Errorf("ref: want [low, high] for %s", method)
		}
		return nil
	case method == "str_list_eq" || method == "str_set_eq":
		if _, ok := r["ref"].([]any); !ok {
			return fmt.Errorf("ref: want a list for %s", method)
		}
		return nil
	}
	return fmt.Errorf("method %q: not supported (want re[.FLAGS], eq, ne, le, lt, ge, gt, approx:T, range.XY, str_list_eq, str_set_eq)", method)
}

// reFlags maps "re.I.M" style methods to RE2 flags.
func reFlags(method string) (string, error) {
	parts := strings.Split(method, ".")
	if parts[0] != "re" {
		return "", fmt.Errorf("method %q: not supported", method)
	}
	var flags strings.Builder
	for _, f := range parts[1:] {
		switch f {
		case "I", "IGNORECASE":
			flags.WriteByte('i')
		case "M", "MULTILINE":
			flags.WriteByte('m')
		case "S", "DOTALL":
			flags.WriteByte('s')
		case "A", "ASCII", "U", "UNICODE":
		default:
			return "", fmt.Errorf("method %q: flag %s not supported", method, f)
		}
	}
	return flags.String(), nil
}

// matchValueRule is OSWorld's _match_value_to_rule.
func matchValueRule(value any, r map[string]any) bool {
	method, _ := r["method"].(string)
	ref := r["ref"]
	switch {
	case strings.HasPrefix(method, "re"):
		flags, err := reFlags(method)
		s, isStr := value.(string)
		p, isPat := ref.(string)
		if err != nil || !isStr || !isPat {
			return false
		}
		re, err := py.CompileRE2(p, flags)
		return err == nil && re.MatchString(s)
	case method == "eq":
		return py.Equal(value, ref)
	case method == "ne":
		return !py.Equal(value, ref)
	case method == "le", method == "lt", method == "ge", method == "gt":
		return compareOp(method, value, ref)
	case strings.HasPrefix(method, "approx"):
		_, t, _ := strings.Cut(method, ":")
		threshold, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return false
		}
		var v float64
		switch x := value.(type) {
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return false
			}
			v = f
		default:
			f, ok := py.Number(x)
			if !ok {
				return false
			}
			v = f
		}
		rf, ok := py.Number(ref)
		return ok && math.Abs(v-rf) <= threshold
	case strings.HasPrefix(method, "range.") && len(method) == 8:
		bounds, ok := ref.([]any)
		if !ok || len(bounds) != 2 {
			return false
		}
		return compareOp("l"+method[6:7], bounds[0], value) && compareOp("l"+method[7:8], value, bounds[1])
	case method == "str_list_eq" || method == "str_set_eq":
		s, ok := value.(string)
		refs, okRef := ref.([]any)
		if !ok || !okRef {
			return false
		}
		got := strings.Split(strings.Trim(s, `"'`), ",")
		if method == "str_list_eq" {
			if len(got) != len(refs) {
				return false
			}
			for i := range got {
				if !py.Equal(got[i], refs[i]) {
					return false
				}
			}
			return true
		}
		return sameStringSet(got, refs)
	}
	return false
}

// sameStringSet reports whether got and want, whose values must all be
// strings, hold the same set of strings (order and repeats aside).
func sameStringSet(got []string, want []any) bool {
	w := make([]string, 0, len(want))
	for _, v := range want {
		s, ok := v.(string)
		if !ok {
			return false
		}
		w = append(w, s)
	}
	return py.SameSet(got, w)
}

func compareOp(op string, a, b any) bool {
	c, ok := py.Compare(a, b)
	if !ok {
		return false
	}
	switch op {
	case "lt":
		return c < 0
	case "le":
		return c <= 0
	case "gt":
		return c > 0
	case "ge":
		return c >= 0
	}
	return false
}

// index is Python's value[k] on JSON values.
func index(value, k any) (any, bool) {
	switch v := value.(type) {
	case map[string]any:
		s, ok := k.(string)
		if !ok {
			return nil, false
		}
		x, ok := v[s]
		return x, ok
	case []any:
		i, ok := py.AsInt(k)
		if !ok || py.TypeName(k) != "number" {
			return nil, false
		}
		if i < 0 {
			i += len(v)
		}
		if i < 0 || i >= len(v) {
			return nil, false
		}
		return v[i], true
	case string:
		i, ok := py.AsInt(k)
		r := []rune(v)
		if !ok || py.TypeName(k) != "number" {
			return nil, false
		}
		if i < 0 {
			i += len(r)
		}
		if i < 0 || i >= len(r) {
			return nil, false
		}
		return string(r[i]), true
	}
	return nil, false
}

// checkJSON implements OSWorld's check_json
// (desktop_env/evaluators/metrics/general.py).
func checkJSON(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	decode := py.DecodeJSON
	if py.Truthy(opts["is_yaml"]) {
		decode = py.DecodeYAML
	}
	doc, err := decode([]byte(text))
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	expect, _ := rules["expect"].([]any)
	for _, e := range expect {
		r, _ := e.(map[string]any)
		keys, _ := r["key"].([]any)
		value := doc
		for _, k := range keys {
			v, ok := index(value, k)
			if !ok {
				return 0, fmt.Sprintf("no key %s", py.Repr(keys)), nil
			}
			value = v
		}
		if !matchValueRule(value, r) {
			return 0, fmt.Sprintf("%s: %s does not match %s %s", py.Repr(keys), py.Truncate(py.Repr(value), 200), r["method"], py.Truncate(py.Repr(r["ref"]), 200)), nil
		}
	}
	unexpect, _ := rules["unexpect"].([]any)
	for _, e := range unexpect {
		r, _ := e.(map[string]any)
		keys, _ := r["key"].([]any)
		value := doc
		for _, k := range keys {
			v, ok := index(value, k)
			if !ok {
				value = nil
				break
			}
			value = v
		}
		if matchValueRule(value, r) {
			return 0, fmt.Sprintf("%s: %s matches unexpected %s %s", py.Repr(keys), py.Truncate(py.Repr(value), 200), r["method"], py.Truncate(py.Repr(r["ref"]), 200)), nil
		}
	}
	return 1, "", nil
}

func checkDirectRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if _, ok := m["expected"].(map[string]any); !ok {
		return fmt.Errorf("expected: want an object, got %s", py.TypeName(m["expected"]))
	}
	return nil
}

// checkDirectJSONObject implements OSWorld's check_direct_json_object
// (desktop_env/evaluators/metrics/general.py).
func checkDirectJSONObject(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if s, ok := result.(string); ok {
		// OSWorld strips the text and turns every ' into " before parsing.
		v, err := py.DecodeJSON([]byte(strings.ReplaceAll(py.Strip(s), "'", `"`)))
		if err != nil {
			return 0, "result is not JSON: " + err.Error(), nil
		}
		result = v
	}
	if result == nil {
		return 0, "no result", nil
	}
	obj, ok := result.(map[string]any)
	if !ok {
		return 0, "result is not a JSON object", nil
	}
	want, ok := rules["expected"].(map[string]any)
	if !ok {
		return 0, "", errors.New("rules.expected: want an object")
	}
	// OSWorld scores 0 when an expected value is its getter's failure
	// marker.
	for k, v := range want {
		if s, ok := v.(string); ok && s == "__EVALUATION_FAILED__" {
			return 0, k + ": the expected getter failed (__EVALUATION_FAILED__)", nil
		}
	}
	if !py.Truthy(rules["expect_in_result"]) {
		// An "ignore_list_order" key inside expected makes OSWorld sort
		// every expected value, itself included: sorted(True) raises, and
		// its except clause scores 0. (At the rules' top level OSWorld does
		// not read it.)
		if py.Truthy(want["ignore_list_order"]) {
			return 0, "expected.ignore_list_order: OSWorld sorts every expected value, and sorting a bool raises", nil
		}
		for k, v := range want {
			if !py.Equal(v, obj[k]) {
				return 0, fmt.Sprintf("%s: got %s, want %s", k, py.Truncate(py.Repr(obj[k]), 200), py.Truncate(py.Repr(v), 200)), nil
			}
		}
		return 1, "", nil
	}
	for k, v := range want {
		got := obj[k]
		switch e := v.(type) {
		case []any:
			// OSWorld: an expected item found in a list result, or equal to
			// a string result.
			gotList, isList := got.([]any)
			gotStr, isStr := got.(string)
			found := false
			for _, each := range e {
				if isList {
					if f, _ := py.Contains(gotList, each); f {
						found = true
						break
					}
				} else if isStr && py.Equal(each, gotStr) {
					found = true
					break
				}
			}
			if !found {
				return 0, fmt.Sprintf("%s: none of %s in %s", k, py.Truncate(py.Repr(e), 200), py.Truncate(py.Repr(got), 200)), nil
			}
		case string:
			found, ok := py.Contains(got, e)
			if !ok || !found {
				return 0, fmt.Sprintf("%s: %q not in %s", k, e, py.Truncate(py.Repr(got), 200)), nil
			}
		default:
			return 0, fmt.Sprintf("%s: expected value type %s not supported", k, py.TypeName(v)), nil
		}
	}
	return 1, "", nil
}

func checkFileContainsRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if _, ok := m["expected"].([]any); !ok {
		return fmt.Errorf("expected: want a list of strings, got %s", py.TypeName(m["expected"]))
	}
	return nil
}

// fileContains implements OSWorld's file_contains
// (desktop_env/evaluators/metrics/general.py).
func fileContains(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want, _ := rules["expected"].([]any)
	for _, w := range want {
		found, ok := py.Contains(text, w)
		if !ok || !found {
			return 0, fmt.Sprintf("%s not found", py.Truncate(py.Repr(w), 200)), nil
		}
	}
	return 1, "", nil
}

var timeOfDay = regexp.MustCompile(`([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)`)

// checkLineNumber implements OSWorld's check_line_number
// (desktop_env/evaluators/metrics/general.py).
func checkLineNumber(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	p, ok := result.(string)
	if !ok {
		return 0, "no result file", nil
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	text, err := readText(p)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	n := 0
	for _, line := range py.TextLines(text) {
		if timeOfDay.MatchString(line) {
			n++
		}
	}
	want, ok := py.AsInt(rules["expected"])
	if !ok {
		return 0, fmt.Sprintf("rules.expected %s is not an integer", py.Repr(rules["expected"])), nil
	}
	if n != want {
		return 0, fmt.Sprintf("%d lines with a time, want %d", n, want), nil
	}
	return 1, "", nil
}

func checkSQLRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if s, ok := m["sql"].(string); !ok || s == "" {
		return fmt.Errorf("sql: want a statement, got %s", py.TypeName(m["sql"]))
	}
	return nil
}

// sqliteScript runs the statement on stdin against the database at $1
// and prints float(first column of the first row or 0), as OSWorld's
// run_sqlite3 does with Python's sqlite3 module.
const sqliteScript = `import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute(sys.stdin.read()).fetchone()
if row is None:
    sys.exit("query returned no row")
print(repr(float(row[0] or 0)))`

// runSQLite3 implements OSWorld's run_sqlite3
// (desktop_env/evaluators/metrics/general.py).
//
// runSQLite3 runs the query with python3's sqlite3 module inside the
// sandbox (deskrun has no SQLite of its own): the database, fetched to
// the host by the result getter, is copied to a temporary file there.
func runSQLite3(ctx context.Context, sb Sandbox, result, expected any, _ map[string]any) (float64, string, error) {
	p, ok := result.(string)
	if !ok {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	sql, _ := rules["sql"].(string)
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, "result: file not found", nil
	}
	tmp := "/tmp/deskrun-sqlite-" + py.UUID5URL(p + strconv.FormatInt(int64(len(data)), 10))[:8] + ".db"
	if err := sb.WriteFile(ctx, tmp, data); err != nil {
		return 0, "", fmt.Errorf("copy database into the sandbox: %w", err)
	}
	res, err := sb.Exec(ctx, []string{"python3", "-c", sqliteScript, tmp}, sql)
	_, _ = sb.Exec(ctx, []string{"rm", "-f", "--", tmp}, "")
	if err != nil {
		return 0, "", fmt.Errorf("run sqlite3: %w", err)
	}
	if res.ExitCode != 0 {
		return 0, "query failed: " + py.Truncate(strings.TrimSpace(res.Stderr), 300), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(res.Stdout), 64)
	if err != nil {
		return 0, "query result is not a number: " + py.Truncate(res.Stdout, 100), nil
	}
	return f, "", nil
}

// compareCSV implements OSWorld's compare_csv
// (desktop_env/evaluators/metrics/table.py).
func compareCSV(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, err := readTextChain(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	// OSWorld takes one expected file or a list of them, and scores 1 on
	// the first that matches; one it cannot read is passed over.
	var wants []any
	switch e := expected.(type) {
	case string:
		wants = []any{e}
	case []any:
		wants = e
	default:
		return 0, "", fmt.Errorf("expected: want a file path or a list of them, got %s", py.TypeName(expected))
	}
	strict := true
	if v, ok := opts["strict"]; ok {
		strict = py.Truthy(v)
	}
	ignoreCase := py.Truthy(opts["ignore_case"])
	norm := func(lines []string) {
		for i, l := range lines {
			if !strict {
				l = py.Strip(l)
			}
			if ignoreCase {
				l = py.Lower(l)
			}
			lines[i] = l
		}
	}
	la := py.SplitLines(a)
	norm(la)
	detail := "no expected file"
	for _, w := range wants {
		b, err := readTextChain(w)
		if err != nil {
			detail = "expected: " + err.Error()
			continue
		}
		lb := py.SplitLines(b)
		norm(lb)
		if d := sameLines(la, lb); d != "" {
			detail = d
			continue
		}
		return 1, "", nil
	}
	return 0, detail, nil
}

func sameLines(la, lb []string) string {
	if len(la) != len(lb) {
		return fmt.Sprintf("%d lines, want %d", len(la), len(lb))
	}
	for i := range la {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, py.Truncate(la[i], 200), py.Truncate(lb[i], 200))
		}
	}
	return ""
}

// readTextChain reads a text file as OSWorld's table metrics do
// (_safe_read_file): UTF-8 where the bytes are UTF-8, else Latin-1, which
// decodes any byte (the encodings OSWorld lists after it are never
// reached); newlines universal, as Python's text mode reads them.
func readTextChain(p any) (string, error) {
	data, err := readFileArg(p)
	if err != nil {
		return "", err
	}
	if utf8.Valid(data) {
		return py.UniversalNewlines(string(data)), nil
	}
	return py.UniversalNewlines(latin1(data)), nil
}

// latin1 decodes data as Latin-1, which decodes any byte.
func latin1(data []byte) string {
	r := make([]rune, len(data))
	for i, c := range data {
		r[i] = rune(c)
	}
	return string(r)
}
