package metric

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deskrun/deskrun/internal/py"
)

// App settings metrics: VS Code's settings and keybindings, GIMP's gimprc,
// Thunderbird's prefs.js, GNOME's gsettings and timedatectl output, and
// the clipboard and directory checks of OSWorld's basic OS tasks.

func checkExpectedObject(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if _, ok := m["expected"].(map[string]any); !ok {
		return fmt.Errorf("expected: want an object, got %s", py.TypeName(m["expected"]))
	}
	return nil
}

// readJSONFile decodes a JSON file into the value model.
func readJSONFile(p any) (any, error) {
	text, err := readText(p)
	if err != nil {
		return nil, err
	}
	return py.DecodeJSON([]byte(text))
}

// checkJSONSettings implements OSWorld's check_json_settings
// (desktop_env/evaluators/metrics/vscode.py).
//
// checkJSONSettings scores 1 when every key of rules.expected is in the
// file with an equal value (Python's dict.update leaving it unchanged).
func checkJSONSettings(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, _ := rules["expected"].(map[string]any)
	doc, err := readJSONFile(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	data, ok := doc.(map[string]any)
	if !ok {
		return 0, fmt.Sprintf("result: want a JSON object, got %s", py.TypeName(doc)), nil
	}
	for k, v := range want {
		got, ok := data[k]
		if !ok {
			return 0, fmt.Sprintf("no setting %q", k), nil
		}
		if !py.Equal(got, v) {
			return 0, fmt.Sprintf("%q is %s, want %s", k, py.Truncate(py.Repr(got), 200), py.Truncate(py.Repr(v), 200)), nil
		}
	}
	return 1, "", nil
}

// checkJSONKeybindings implements OSWorld's check_json_keybindings
// (desktop_env/evaluators/metrics/vscode.py).
//
// checkJSONKeybindings reads the file as a JSON list, or failing that
// without its first line (VS Code writes a comment there), and looks for
// rules.expected in it.
func checkJSONKeybindings(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var list []any
	for _, t := range []string{text, afterFirstLine(text)} {
		if doc, err := py.DecodeJSON([]byte(t)); err == nil {
			if l, ok := doc.([]any); ok {
				list = l
				break
			}
		}
	}
	if list == nil {
		return 0, "result is not a JSON list", nil
	}
	if found, _ := py.Contains(list, rules["expected"]); found {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("%s is not among the %d keybindings", py.Truncate(py.Repr(rules["expected"]), 200), len(list)), nil
}

func afterFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// compareConfig implements OSWorld's compare_config
// (desktop_env/evaluators/metrics/vscode.py). With containment_ok (the
// default) the expected JSON must be a subset of the file's (objects by
// key, lists and scalars by equality), or, where either is not JSON, the
// stripped expected text must occur in the file; without it the texts
// must be equal, or both parse to equal JSON.
func compareConfig(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !py.Truthy(result) {
		return 0, "no result file", nil
	}
	want, _ := rules["expected"].(string)
	if !py.Truthy(rules["expected"]) {
		return 0, "rules.expected is empty", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	containment := true
	if v, ok := opts["containment_ok"]; ok {
		containment = py.Truthy(v)
	}
	if containment {
		a, errA := py.DecodeJSON([]byte(text))
		e, errE := py.DecodeJSON([]byte(want))
		if errA == nil && errE == nil {
			if configSubset(e, a) {
				return 1, "", nil
			}
			return 0, "the expected settings are not all in the file", nil
		}
		if strings.Contains(text, py.Strip(want)) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("%q not in the file", py.Truncate(py.Strip(want), 200)), nil
	}
	if text == want {
		return 1, "", nil
	}
	a, errA := py.DecodeJSON([]byte(text))
	e, errE := py.DecodeJSON([]byte(want))
	if errA == nil && errE == nil && py.Equal(a, e) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("got %q, want %q", py.Truncate(text, 200), py.Truncate(want, 200)), nil
}

// configSubset is OSWorld's _is_subset: objects by key, recursively;
// everything else by equality.
func configSubset(expected, actual any) bool {
	e, ok := expected.(map[string]any)
	if !ok {
		return py.Equal(expected, actual)
	}
	a, ok := actual.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range e {
		av, ok := a[k]
		if !ok || !configSubset(v, av) {
			return false
		}
	}
	return true
}

func checkExtensionRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if t := m["type"]; t != "contain" && t != "not_contain" {
		return fmt.Errorf("type: want \"contain\" or \"not_contain\", got %s", py.Repr(t))
	}
	if _, ok := m["expected"].(string); !ok {
		return fmt.Errorf("expected: want a string, got %s", py.TypeName(m["expected"]))
	}
	return nil
}

// isExtensionInstalled implements OSWorld's is_extension_installed
// (desktop_env/evaluators/metrics/vscode.py).
//
// isExtensionInstalled looks for rules.expected in the command output.
func isExtensionInstalled(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	want, _ := rules["expected"].(string)
	has, ok := py.Contains(result, want)
	if !ok {
		return 0, fmt.Sprintf("no command output (got %s)", py.TypeName(result)), nil
	}
	if rules["type"] == "not_contain" {
		if has {
			return 0, fmt.Sprintf("%q is in the output", want), nil
		}
		return 1, "", nil
	}
	if !has {
		return 0, fmt.Sprintf("%q is not in the output", want), nil
	}
	return 1, "", nil
}

func checkConfigStatusRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	switch k := m["key"].(type) {
	case string:
	case []any:
		if len(k) != 2 {
			return errors.New("key: want a string or a list of two")
		}
	default:
		return fmt.Errorf("key: want a string or a list of two, got %s", py.TypeName(k))
	}
	if _, ok := m["value"].(string); !ok {
		return fmt.Errorf("value: want a string, got %s", py.TypeName(m["value"]))
	}
	return nil
}

// checkConfigStatus implements OSWorld's check_config_status
// (desktop_env/evaluators/metrics/gimp.py).
//
// checkConfigStatus reads a gimprc: each line "(key ... value)"; the
// first whose key (or two leading words) and last word match scores 1.
func checkConfigStatus(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	value, _ := rules["value"].(string)
	var key []string
	switch k := rules["key"].(type) {
	case string:
		key = []string{k}
	case []any:
		for _, e := range k {
			s, _ := e.(string)
			key = append(key, s)
		}
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || line == "\n" {
			continue
		}
		trimmed := strings.TrimRight(strings.TrimLeft(py.Strip(line), "("), ")\n")
		items := strings.Fields(trimmed)
		if len(items) == 0 {
			return 0, "a blank line that Python's reading fails on", nil
		}
		if len(items) < len(key) {
			if len(key) == 2 && items[0] == key[0] {
				return 0, "a line with one word where two were wanted", nil
			}
			continue
		}
		match := items[len(items)-1] == value
		for i, k := range key {
			match = match && items[i] == k
		}
		if match {
			return 1, "", nil
		}
	}
	return 0, fmt.Sprintf("no %s set to %s", strings.Join(key, " "), value), nil
}

func checkPrefsRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	for _, part := range []string{"expect", "unexpect"} {
		v, ok := m[part]
		if !ok {
			continue
		}
		prefs, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", part, py.TypeName(v))
		}
		for k, r := range prefs {
			rm, ok := r.(map[string]any)
			if !ok {
				return fmt.Errorf("%s.%s: want an object, got %s", part, k, py.TypeName(r))
			}
			if err := checkValueRule(rm); err != nil {
				return fmt.Errorf("%s.%s: %w", part, k, err)
			}
		}
	}
	return nil
}

var prefPattern = regexp.MustCompile(`^user_pref\("((?:[^"]|\\")+)", (.+)\);$`)

// checkThunderbirdPrefs implements OSWorld's check_thunderbird_prefs
// (desktop_env/evaluators/metrics/thunderbird.py).
//
// checkThunderbirdPrefs matches prefs.js's user_pref lines against the
// expect rules (each must be set and match) and the unexpect rules (none
// may match).
func checkThunderbirdPrefs(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	expect, _ := rules["expect"].(map[string]any)
	unexpect, _ := rules["unexpect"].(map[string]any)
	matched := map[string]bool{}
	var unexpected []string
	for _, line := range strings.Split(text, "\n") {
		m := prefPattern.FindStringSubmatch(py.Strip(line))
		if m == nil {
			continue
		}
		key := m[1]
		// OSWorld decodes every pref line's value, wanted or not.
		value, err := py.DecodeJSON([]byte(m[2]))
		if err != nil {
			return 0, fmt.Sprintf("pref %s: %v", key, err), nil
		}
		if r, ok := expect[key].(map[string]any); ok {
			matched[key] = matchValueRule(value, r)
		} else if r, ok := unexpect[key].(map[string]any); ok {
			if matchValueRule(value, r) {
				unexpected = append(unexpected, key)
			}
		}
	}
	for k := range expect {
		if !matched[k] {
			return 0, fmt.Sprintf("pref %s is not set as expected", k), nil
		}
	}
	if len(unexpected) > 0 {
		return 0, fmt.Sprintf("pref %s is set as it should not be", unexpected[0]), nil
	}
	return 1, "", nil
}

// parseStringList reads gsettings' print of a string list: ['a', "b"],
// or @as [] when empty.
func parseStringList(s string) ([]string, error) {
	s = py.Strip(s)
	s = strings.TrimPrefix(s, "@as ")
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, errors.New("not a list")
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	out := []string{}
	for body != "" {
		q := body[0]
		if q != '\'' && q != '"' {
			return nil, fmt.Errorf("unquoted item at %q", py.Truncate(body, 20))
		}
		var b strings.Builder
		i := 1
		for ; i < len(body) && body[i] != q; i++ {
			if body[i] == '\\' && i+1 < len(body) {
				i++
			}
			b.WriteByte(body[i])
		}
		if i >= len(body) {
			return nil, errors.New("unterminated string")
		}
		out = append(out, b.String())
		body = strings.TrimSpace(body[i+1:])
		if body == "" {
			break
		}
		if body[0] != ',' {
			return nil, fmt.Errorf("want a comma at %q", py.Truncate(body, 20))
		}
		body = strings.TrimSpace(body[1:])
	}
	return out, nil
}

func sameStringSets(got []string, want []any) bool {
	return len(got) == len(want) && sameStringSet(got, want)
}

// checkGnomeFavoriteApps implements OSWorld's check_gnome_favorite_apps
// (desktop_env/evaluators/metrics/basic_os.py).
func checkGnomeFavoriteApps(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	out, ok := result.(string)
	if !ok {
		return 0, "no command output", nil
	}
	apps, err := parseStringList(out)
	if err != nil {
		return 0, fmt.Sprintf("favourite apps %q: %v", py.Truncate(out, 100), err), nil
	}
	want, _ := rules["expected"].([]any)
	if !sameStringSets(apps, want) {
		return 0, fmt.Sprintf("favourite apps %s, want %s", py.Repr(anyStrings(apps)), py.Repr(want)), nil
	}
	return 1, "", nil
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// isUTC0 implements OSWorld's is_utc_0
// (desktop_env/evaluators/metrics/basic_os.py).
//
// isUTC0 reads timedatectl's fourth line ("Time zone: ... +0000)").
func isUTC0(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	out, ok := result.(string)
	if !ok {
		return 0, "no command output", nil
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 4 {
		return 0, "timedatectl printed fewer than four lines", nil
	}
	if !strings.HasSuffix(lines[3], "+0000)") {
		return 0, fmt.Sprintf("time zone line %q is not UTC+0", lines[3]), nil
	}
	return 1, "", nil
}

// checkTextEnlarged implements OSWorld's check_text_enlarged
// (desktop_env/evaluators/metrics/basic_os.py).
func checkTextEnlarged(_ context.Context, result, _ any, _ map[string]any) (float64, string, error) {
	out, ok := result.(string)
	if !ok {
		return 0, "no command output", nil
	}
	f, err := strconv.ParseFloat(py.Strip(out), 64)
	if err != nil {
		return 0, fmt.Sprintf("scaling factor %q is not a number", py.Truncate(out, 50)), nil
	}
	if f <= 1 {
		return 0, fmt.Sprintf("text scaling factor %v", f), nil
	}
	return 1, "", nil
}

// checkMovedJPGs implements OSWorld's check_moved_jpgs
// (desktop_env/evaluators/metrics/basic_os.py).
func checkMovedJPGs(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	tree, ok := result.(map[string]any)
	if !ok {
		return 0, "no directory listing", nil
	}
	children, _ := tree["children"].([]any)
	var names []string
	for _, c := range children {
		n, _ := c.(map[string]any)
		s, _ := n["name"].(string)
		names = append(names, s)
	}
	want, _ := rules["expected"].([]any)
	if !sameStringSets(names, want) {
		return 0, fmt.Sprintf("the folder holds %s, want %s", py.Repr(anyStrings(names)), py.Repr(want)), nil
	}
	return 1, "", nil
}

// isInVMClipboard implements OSWorld's is_in_vm_clickboard
// (desktop_env/evaluators/metrics/basic_os.py).
//
// isInVMClipboard takes OSWorld's order: the rules as the result and the
// clipboard (command output) as the expected value.
func isInVMClipboard(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(result)
	if err != nil {
		return 0, "", err
	}
	out, ok := expected.(string)
	if !ok {
		return 0, "no clipboard output", nil
	}
	switch want := rules["expected"].(type) {
	case []any:
		for _, w := range want {
			s, _ := w.(string)
			if !strings.Contains(out, s) {
				return 0, fmt.Sprintf("%q is not in the clipboard", s), nil
			}
		}
		return 1, "", nil
	case string:
		if !strings.Contains(out, want) {
			return 0, fmt.Sprintf("%q is not in the clipboard", want), nil
		}
		return 1, "", nil
	}
	return 0, fmt.Sprintf("rules.expected: want a string or a list, got %s", py.TypeName(rules["expected"])), nil
}

// compareResultFiles implements OSWorld's compare_result_files
// (desktop_env/evaluators/metrics/vscode.py).
//
// compareResultFiles compares two files' stripped contents: as numbers
// when the expected one is a number (the expected text inside the result,
// or within 1e-4), else as text.
func compareResultFiles(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	if s, ok := expected.(string); expected == nil || ok && s == "" {
		return 0, "no expected file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	a, b = py.Strip(a), py.Strip(b)
	if want, err := strconv.ParseFloat(b, 64); err == nil {
		if strings.Contains(a, b) {
			return 1, "", nil
		}
		if got, err := strconv.ParseFloat(a, 64); err == nil {
			if math.Abs(got-want) < 1e-4 {
				return 1, "", nil
			}
			return 0, fmt.Sprintf("got %v, want %v", got, want), nil
		}
	}
	if a != b {
		return 0, fmt.Sprintf("got %q, want %q", py.Truncate(a, 100), py.Truncate(b, 100)), nil
	}
	return 1, "", nil
}

func checkFilterRules(rules any) error {
	return checkRuleLists(rules, "filters", nil)
}

var filterConditionPattern = regexp.MustCompile(`\b(?:AND|OR) \((?:[\w ]+),(?:[\w ']+),(?:"(?:(?:[^"]|")+)"|(?:[^)]+))\)|\bALL\b`)

// pySlice is Python's s[from:len(s)+back] for a negative back.
func pySlice(s string, from, back int) string {
	end := len(s) + back
	if from > len(s) || end <= from {
		return ""
	}
	return s[from:end]
}

func unescapeFilterValue(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\"`, `"`), `\\`, `\`)
}

// checkThunderbirdFilter implements OSWorld's check_thunderbird_filter
// (desktop_env/evaluators/metrics/thunderbird.py).
//
// checkThunderbirdFilter reads msgFilterRules.dat into filters (name,
// enabled, type, action, actionValue and the conditions found in the
// condition line); each expect record must match some filter and no
// unexpect record any.
func checkThunderbirdFilter(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if result == nil {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	var filters []map[string]any
	var cur map[string]any
	for _, l := range strings.SplitAfter(text, "\n") {
		field := ""
		from := 0
		for _, f := range []string{"name", "enabled", "type", "action", "actionValue", "condition"} {
			if strings.HasPrefix(l, f+"=") {
				field, from = f, len(f)+2
			}
		}
		if field == "" {
			continue
		}
		if field == "name" {
			cur = map[string]any{}
		} else if cur == nil {
			return 0, fmt.Sprintf("%s line before any filter name", field), nil
		}
		v := unescapeFilterValue(pySlice(l, from, -2))
		if field != "condition" {
			cur[field] = v
			continue
		}
		conds := []any{}
		for _, c := range filterConditionPattern.FindAllString(v, -1) {
			conds = append(conds, c)
		}
		cur["condition"] = conds
		filters = append(filters, cur)
	}
	matchRecord := func(pattern, item map[string]any) bool {
		for k, v := range pattern {
			got, ok := item[k]
			if !ok || !py.Equal(got, v) {
				return false
			}
		}
		return true
	}
	expect, _ := rules["expect"].([]any)
	unexpect, _ := rules["unexpect"].([]any)
	for i, e := range expect {
		r, _ := e.(map[string]any)
		found := false
		for _, f := range filters {
			found = found || matchRecord(r, f)
		}
		if !found {
			return 0, fmt.Sprintf("no filter matches expect[%d] among %d filters", i, len(filters)), nil
		}
	}
	for i, e := range unexpect {
		r, _ := e.(map[string]any)
		for _, f := range filters {
			if matchRecord(r, f) {
				return 0, fmt.Sprintf("a filter matches unexpect[%d]", i), nil
			}
		}
	}
	return 1, "", nil
}

var mozillaDeleted = regexp.MustCompile(`X-Mozilla-Status: 000[89]`)

// thunderbirdFolderDigest is OSWorld's reading of a mail folder file, kept
// as it is written: the file is split on "FROM - " and a piece is kept
// only when it is blank, so two folders compare equal when both are empty
// or both hold text without that upper-case separator. Upper-case "FROM - "
// pieces that are blank count once (remove_duplicate, default true);
// remove_deleted (default true) drops pieces with a deleted status.
func thunderbirdFolderDigest(p any, opts map[string]any) (string, error) {
	text, err := readText(p)
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(text) {
		return "", errors.New("not UTF-8 text (OSWorld reads it as UTF-8 and raises)")
	}
	removeDeleted, removeDuplicate := true, true
	if v, ok := opts["remove_deleted"]; ok {
		removeDeleted = py.Truthy(v)
	}
	if v, ok := opts["remove_duplicate"]; ok {
		removeDuplicate = py.Truthy(v)
	}
	var msgs []string
	seen := map[string]bool{}
	for _, piece := range strings.Split(py.Strip(text), "FROM - ") {
		if py.Strip(piece) != "" {
			continue
		}
		if removeDeleted && mozillaDeleted.MatchString(piece) {
			continue
		}
		m := "FROM - " + py.Strip(piece)
		if removeDuplicate && seen[m] {
			continue
		}
		seen[m] = true
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	return strings.Join(msgs, "\n"), nil
}

// checkThunderbirdFolder implements OSWorld's check_thunderbird_folder
// (desktop_env/evaluators/metrics/thunderbird.py).
func checkThunderbirdFolder(_ context.Context, result, expected any, opts map[string]any) (float64, string, error) {
	got, want := []any{result}, []any{expected}
	if l, ok := expected.([]any); ok {
		want = l
		if got, ok = result.([]any); !ok {
			return 0, fmt.Sprintf("result: want a list of files, got %s", py.TypeName(result)), nil
		}
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if got[i] == nil {
			return 0, fmt.Sprintf("folder %d: no result file", i+1), nil
		}
		a, err := thunderbirdFolderDigest(got[i], opts)
		if err != nil {
			return 0, fmt.Sprintf("folder %d: result: %v", i+1, err), nil
		}
		b, err := thunderbirdFolderDigest(want[i], opts)
		if err != nil {
			return 0, fmt.Sprintf("folder %d: expected: %v", i+1, err), nil
		}
		if a != b {
			return 0, fmt.Sprintf("folder %d differs", i+1), nil
		}
	}
	return 1, "", nil
}

// comparePythonPureText implements OSWorld's compare_python_pure_text
// (desktop_env/evaluators/metrics/general.py).
//
// comparePythonPureText compares two files with all whitespace removed.
// normalizePython is compare_python_pure_text's _normalize: a shebang or
// coding line among the first three dropped, blank lines dropped, tabs
// expanded to 4 columns, trailing spaces removed.
func normalizePython(text string) string {
	lines := py.SplitLines(text)
	i := 0
	for i < len(lines) && i < 3 {
		t := py.Strip(lines[i])
		if strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "# -*- coding:") || strings.HasPrefix(t, "# coding:") || strings.HasPrefix(t, "# coding=") {
			i++
			continue
		}
		break
	}
	var out []string
	for ; i < len(lines); i++ {
		if py.Strip(lines[i]) == "" {
			continue
		}
		out = append(out, strings.TrimRightFunc(expandTabs(lines[i], 4), py.IsSpace))
	}
	return strings.Join(out, "\n")
}

// expandTabs is Python's str.expandtabs.
func expandTabs(s string, size int) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := size - col%size
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

func comparePythonPureText(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	if s, ok := expected.(string); expected == nil || ok && s == "" {
		return 0, "no expected file", nil
	}
	a, b, detail := readTexts(result, expected)
	if detail != "" {
		return 0, detail, nil
	}
	if normalizePython(a) != normalizePython(b) {
		return 0, "the files differ in more than blank lines, indentation tabs and trailing spaces", nil
	}
	return 1, "", nil
}
