package task

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
)

// Metrics follow OSWorld's functions of the same name: same arguments
// (the result getter's value, the expected getter's value, the options),
// same normalisations, same score. Where OSWorld's Python would raise (a
// missing file, a value of the wrong type), the metric scores 0 and says
// why in its detail; an error is returned only for a task that cannot be
// graded at all (a malformed rule, which Load catches for rule getters).

// metricEnv is what a metric may use besides its arguments.
type metricEnv struct {
	ctx context.Context
	r   *run
}

type metricFunc func(env metricEnv, result, expected any, opts map[string]any) (score float64, detail string, err error)

// metricSpec describes one metric.
type metricSpec struct {
	fn            metricFunc
	needsExpected bool
	// checkOptions checks the options at load time; nil means the metric
	// takes none.
	checkOptions func(opts map[string]any) error
	// checkRules checks the rules of a rule getter given as expected.
	checkRules func(rules any) error
}

// metricSpecs lists the metrics deskrun implements (infeasible is handled
// by Evaluate).
var metricSpecs = map[string]metricSpec{
	"exact_match":              {fn: exactMatch, needsExpected: true, checkRules: needKeys("expected")},
	"check_include_exclude":    {fn: checkIncludeExclude, needsExpected: true, checkRules: checkIncludeRules},
	"match_in_list":            {fn: matchInList, needsExpected: true, checkRules: needKeys("expected")},
	"is_in_list":               {fn: isInList, needsExpected: true, checkRules: needKeys("expected")},
	"literal_match":            {fn: literalMatch, needsExpected: true, checkOptions: checkLiteralOptions},
	"fuzzy_match":              {fn: fuzzyMatch, needsExpected: true, checkRules: needKeys("expected")},
	"diff_text_file":           {fn: diffTextFile, needsExpected: true},
	"compare_text_file":        {fn: compareTextFile, needsExpected: true, checkOptions: anyOptions},
	"check_list":               {fn: checkList, needsExpected: true, checkRules: checkListRules},
	"check_csv":                {fn: checkCSV, needsExpected: true, checkRules: checkCSVRules},
	"check_json":               {fn: checkJSON, needsExpected: true, checkOptions: checkJSONOptions, checkRules: checkJSONRules},
	"check_direct_json_object": {fn: checkDirectJSONObject, needsExpected: true, checkRules: checkDirectRules},
	"file_contains":            {fn: fileContains, needsExpected: true, checkRules: checkFileContainsRules},
	"check_line_number":        {fn: checkLineNumber, needsExpected: true, checkRules: needKeys("expected")},
	"run_sqlite3":              {fn: runSQLite3, needsExpected: true, checkRules: checkSQLRules},
	"compare_csv":              {fn: compareCSV, needsExpected: true, checkOptions: anyOptions},
}

// addMetrics registers the metrics of one family (each family in its own file,
// from an init function); a name registered twice is a bug.
func addMetrics(m map[string]metricSpec) {
	for name, sp := range m {
		if _, dup := metricSpecs[name]; dup {
			panic("task: metric " + name + " registered twice")
		}
		metricSpecs[name] = sp
	}
}

// Metrics returns the names of the metrics deskrun implements, including
// infeasible.
func Metrics() []string {
	names := []string{"infeasible"}
	for n := range metricSpecs {
		names = append(names, n)
	}
	return names
}

// anyOptions accepts any options: OSWorld's function takes **options and
// ignores what it does not know.
func anyOptions(map[string]any) error { return nil }

func needKeys(keys ...string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", typeName(rules))
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
		return nil, fmt.Errorf("rules: want an object, got %s", typeName(v))
	}
	return m, nil
}

func score(ok bool) float64 {
	if ok {
		return 1
	}
	return 0
}

func exactMatch(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, ok := rules["expected"]
	if !ok {
		return 0, "", errors.New("rules.expected: required")
	}
	if pyEqual(result, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("got %s, want %s", truncate(pyRepr(result), 200), truncate(pyRepr(want), 200)), nil
}

func matchInList(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	found, ok := pyContains(rules["expected"], result)
	if !ok {
		return 0, fmt.Sprintf("cannot look for %s in %s", typeName(result), typeName(rules["expected"])), nil
	}
	if !found {
		return 0, fmt.Sprintf("%s is not in %s", truncate(pyRepr(result), 200), truncate(pyRepr(rules["expected"]), 200)), nil
	}
	return 1, "", nil
}

func isInList(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	found, ok := pyContains(result, rules["expected"])
	if !ok {
		return 0, fmt.Sprintf("cannot look for %s in %s", typeName(rules["expected"]), typeName(result)), nil
	}
	if !found {
		return 0, fmt.Sprintf("%s is not in the result", truncate(pyRepr(rules["expected"]), 200)), nil
	}
	return 1, "", nil
}

func checkIncludeRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	for _, k := range []string{"include", "exclude"} {
		if v, ok := m[k]; ok {
			if _, ok := v.([]any); !ok {
				return fmt.Errorf("%s: want a list, got %s", k, typeName(v))
			}
		}
	}
	return nil
}

func checkIncludeExclude(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		found, ok := pyContains(result, r)
		if !ok || !found {
			return 0, fmt.Sprintf("missing %s", truncate(pyRepr(r), 200)), nil
		}
	}
	for _, r := range exclude {
		found, ok := pyContains(result, r)
		if !ok {
			return 0, fmt.Sprintf("cannot look for %s", truncate(pyRepr(r), 200)), nil
		}
		if found {
			return 0, fmt.Sprintf("found excluded %s", truncate(pyRepr(r), 200)), nil
		}
	}
	return 1, "", nil
}

func checkLiteralOptions(opts map[string]any) error {
	if t, ok := opts["type"]; ok {
		if t != "str" && t != "list" {
			return fmt.Errorf("type: want \"str\" or \"list\", got %s", pyRepr(t))
		}
	}
	return nil
}

func literalMatch(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	ignoreCase := pyTruthy(opts["ignore_case"])
	norm := func(v any) string {
		s := pyStr(v)
		if ignoreCase {
			s = pyLower(s)
		}
		return s
	}
	typ, _ := opts["type"].(string)
	switch typ {
	case "", "str":
		if norm(result) == norm(expected) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("got %q, want %q", truncate(pyStr(result), 200), truncate(pyStr(expected), 200)), nil
	case "list":
		r, okR := result.([]any)
		e, okE := expected.([]any)
		if !okR || !okE || len(r) != len(e) {
			return 0, "result and expected are not lists of the same length", nil
		}
		for i := range r {
			if norm(r[i]) != norm(e[i]) {
				return 0, fmt.Sprintf("item %d: got %q, want %q", i, pyStr(r[i]), pyStr(e[i])), nil
			}
		}
		return 1, "", nil
	}
	return 0, "", fmt.Errorf("options.type: %q not supported", typ)
}

func fuzzyMatch(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	a, okA := result.(string)
	b, okB := rules["expected"].(string)
	if !okA || !okB {
		return 0, "result or rules.expected is not a string", nil
	}
	return fuzzRatio(a, b) / 100, "", nil
}

// fuzzRatio is rapidfuzz's fuzz.ratio: 100 * (1 - indel distance /
// total length), which is 200 * LCS / total length, over code points; two
// empty strings score 100.
func fuzzRatio(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	total := len(ra) + len(rb)
	if total == 0 {
		return 100
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			switch {
			case ra[i-1] == rb[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return 100 * float64(2*prev[len(rb)]) / float64(total)
}

// readText reads a host file as Python's open(path).read() does in text
// mode: universal newlines.
func readText(p any) (string, error) {
	path, ok := p.(string)
	if !ok {
		return "", fmt.Errorf("want a file path, got %s", typeName(p))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: file not found", path)
		}
		return "", err
	}
	return universalNewlines(string(data)), nil
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

func diffTextFile(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	return sequenceRatio(pySplitLines(a), pySplitLines(b)), "", nil
}

var pyWhitespaceRun = regexp.MustCompile(`[\t\n]`)

// collapseSpace is re.sub(r'\s+', ' ', s) with Python's Unicode \s.
func collapseSpace(s string) string {
	var b strings.Builder
	inSpace := false
	for _, r := range s {
		if isPySpace(r) {
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

func compareTextFile(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	if pyTruthy(opts["ignore_blanks"]) {
		a = collapseSpace(pyStrip(pyWhitespaceRun.ReplaceAllString(a, " ")))
		b = collapseSpace(pyStrip(pyWhitespaceRun.ReplaceAllString(b, " ")))
	}
	if pyTruthy(opts["ignore_case"]) {
		a, b = pyLower(a), pyLower(b)
	}
	if a == b {
		return 1, "", nil
	}
	return 0, "texts differ", nil
}

// pyRegexp compiles a Python regular expression with Go's RE2, mapping
// the syntax that differs (\Z) and the flags (re.I, re.M, re.S). Python
// features RE2 lacks (lookarounds, backreferences) fail to compile.
func pyRegexp(pattern, flags string) (*regexp.Regexp, error) {
	p := strings.ReplaceAll(pattern, `\Z`, `\z`)
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	return re, nil
}

// searchLine is re.search on a line read from a file, which keeps its
// "\n": Python's $ matches before a final newline, Go's does not, so the
// line is tried without it too.
func searchLine(re interface{ MatchString(string) bool }, line string) bool {
	if re.MatchString(line) {
		return true
	}
	trimmed, had := strings.CutSuffix(line, "\n")
	return had && re.MatchString(trimmed)
}

func patternList(m map[string]any, key string) ([]*pyRe, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of patterns, got %s", key, typeName(v))
	}
	out := make([]*pyRe, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", key, i, typeName(e))
		}
		re, err := compilePyRe(s, "")
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
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	for _, k := range []string{"expect", "unexpect"} {
		if _, err := patternList(m, k); err != nil {
			return err
		}
	}
	return nil
}

func checkList(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	for _, line := range textLines(text) {
		for i, re := range expect {
			seen[i] = seen[i] || searchLine(re, line)
		}
		for _, re := range unexpect {
			if searchLine(re, line) {
				return 0, fmt.Sprintf("line %q matches unexpected %q", truncate(line, 200), re.String()), nil
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
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	for _, k := range []string{"expect", "unexpect"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want a list of %s, got %s", k, what, typeName(v))
		}
		for i, e := range list {
			r, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("%s[%d]: want an object, got %s", k, i, typeName(e))
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
		if !ok || !pyEqual(got, v) {
			return false
		}
	}
	return true
}

func checkCSV(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
			return 0, fmt.Sprintf("no record matches %s", pyRepr(p)), nil
		}
	}
	for _, p := range unexpect {
		pm, _ := p.(map[string]any)
		for _, rec := range records {
			if matchRecord(pm, rec) {
				return 0, fmt.Sprintf("a record matches unexpected %s", pyRepr(p)), nil
			}
		}
	}
	return 1, "", nil
}

func checkJSONOptions(opts map[string]any) error {
	if v, ok := opts["is_yaml"]; ok {
		if _, isBool := v.(bool); !isBool {
			return fmt.Errorf("is_yaml: want a bool, got %s", typeName(v))
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
			return fmt.Errorf(".key: want a list, got %s", typeName(r["key"]))
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
		return fmt.Errorf("method: want a string, got %s", typeName(r["method"]))
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
			return fmt.Errorf("ref: want a pattern, got %s", typeName(r["ref"]))
		}
		_, err = pyRegexp(ref, flags)
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
		re, err := pyRegexp(p, flags)
		return err == nil && re.MatchString(s)
	case method == "eq":
		return pyEqual(value, ref)
	case method == "ne":
		return !pyEqual(value, ref)
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
			f, ok := number(x)
			if !ok {
				return false
			}
			v = f
		}
		rf, ok := number(ref)
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
				if !pyEqual(got[i], refs[i]) {
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
	return sameSet(got, w)
}

func compareOp(op string, a, b any) bool {
	c, ok := pyCompare(a, b)
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
		i, ok := asInt(k)
		if !ok || typeName(k) != "number" {
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
		i, ok := asInt(k)
		r := []rune(v)
		if !ok || typeName(k) != "number" {
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

func checkJSON(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
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
	format := FormatJSON
	if pyTruthy(opts["is_yaml"]) {
		format = FormatYAML
	}
	doc, err := decode([]byte(text), format)
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
				return 0, fmt.Sprintf("no key %s", pyRepr(keys)), nil
			}
			value = v
		}
		if !matchValueRule(value, r) {
			return 0, fmt.Sprintf("%s: %s does not match %s %s", pyRepr(keys), truncate(pyRepr(value), 200), r["method"], truncate(pyRepr(r["ref"]), 200)), nil
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
			return 0, fmt.Sprintf("%s: %s matches unexpected %s %s", pyRepr(keys), truncate(pyRepr(value), 200), r["method"], truncate(pyRepr(r["ref"]), 200)), nil
		}
	}
	return 1, "", nil
}

func checkDirectRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if _, ok := m["expected"].(map[string]any); !ok {
		return fmt.Errorf("expected: want an object, got %s", typeName(m["expected"]))
	}
	return nil
}

func checkDirectJSONObject(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if s, ok := result.(string); ok {
		// OSWorld strips the text and turns every ' into " before parsing.
		v, err := decode([]byte(strings.ReplaceAll(pyStrip(s), "'", `"`)), FormatJSON)
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
	if !pyTruthy(rules["expect_in_result"]) {
		for k, v := range want {
			if !pyEqual(v, obj[k]) {
				return 0, fmt.Sprintf("%s: got %s, want %s", k, truncate(pyRepr(obj[k]), 200), truncate(pyRepr(v), 200)), nil
			}
		}
		return 1, "", nil
	}
	for k, v := range want {
		got := obj[k]
		switch e := v.(type) {
		case []any:
			gotList, isList := got.([]any)
			found := false
			for _, each := range e {
				if isList {
					if f, _ := pyContains(gotList, each); f {
						found = true
						break
					}
				}
			}
			if !found {
				return 0, fmt.Sprintf("%s: none of %s in %s", k, truncate(pyRepr(e), 200), truncate(pyRepr(got), 200)), nil
			}
		case string:
			found, ok := pyContains(got, e)
			if !ok || !found {
				return 0, fmt.Sprintf("%s: %q not in %s", k, e, truncate(pyRepr(got), 200)), nil
			}
		default:
			return 0, fmt.Sprintf("%s: expected value type %s not supported", k, typeName(v)), nil
		}
	}
	return 1, "", nil
}

func checkFileContainsRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if _, ok := m["expected"].([]any); !ok {
		return fmt.Errorf("expected: want a list of strings, got %s", typeName(m["expected"]))
	}
	return nil
}

func fileContains(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	if !pyTruthy(result) {
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
		found, ok := pyContains(text, w)
		if !ok || !found {
			return 0, fmt.Sprintf("%s not found", truncate(pyRepr(w), 200)), nil
		}
	}
	return 1, "", nil
}

var timeOfDay = regexp.MustCompile(`([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)`)

func checkLineNumber(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	for _, line := range textLines(text) {
		if timeOfDay.MatchString(line) {
			n++
		}
	}
	want, ok := asInt(rules["expected"])
	if !ok {
		return 0, fmt.Sprintf("rules.expected %s is not an integer", pyRepr(rules["expected"])), nil
	}
	if n != want {
		return 0, fmt.Sprintf("%d lines with a time, want %d", n, want), nil
	}
	return 1, "", nil
}

func checkSQLRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if s, ok := m["sql"].(string); !ok || s == "" {
		return fmt.Errorf("sql: want a statement, got %s", typeName(m["sql"]))
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

// runSQLite3 runs the query with python3's sqlite3 module inside the
// sandbox (deskrun has no SQLite of its own): the database, fetched to
// the host by the result getter, is copied to a temporary file there.
func runSQLite3(env metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	r := env.r
	tmp := "/tmp/deskrun-sqlite-" + uuid5URL(p + strconv.FormatInt(int64(len(data)), 10))[:8] + ".db"
	if err := r.sb.WriteFile(env.ctx, tmp, data); err != nil {
		return 0, "", fmt.Errorf("copy database into the sandbox: %w", err)
	}
	res, err := r.exec(env.ctx, []string{"python3", "-c", sqliteScript, tmp}, false, 0, sql)
	_, _ = r.exec(env.ctx, []string{"rm", "-f", "--", tmp}, false, 0, "")
	if err != nil {
		return 0, "", fmt.Errorf("run sqlite3: %w", err)
	}
	if res.ExitCode != 0 {
		return 0, "query failed: " + truncate(strings.TrimSpace(res.Stderr), 300), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(res.Stdout), 64)
	if err != nil {
		return 0, "query result is not a number: " + truncate(res.Stdout, 100), nil
	}
	return f, "", nil
}

func compareCSV(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	la, lb := pySplitLines(a), pySplitLines(b)
	strict := true
	if v, ok := opts["strict"]; ok {
		strict = pyTruthy(v)
	}
	ignoreCase := pyTruthy(opts["ignore_case"])
	norm := func(lines []string) {
		for i, l := range lines {
			if !strict {
				l = pyStrip(l)
			}
			if ignoreCase {
				l = pyLower(l)
			}
			lines[i] = l
		}
	}
	norm(la)
	norm(lb)
	if len(la) != len(lb) {
		return 0, fmt.Sprintf("%d lines, want %d", len(la), len(lb)), nil
	}
	for i := range la {
		if la[i] != lb[i] {
			return 0, fmt.Sprintf("line %d: got %q, want %q", i+1, truncate(la[i], 200), truncate(lb[i], 200)), nil
		}
	}
	return 1, "", nil
}
