package task

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// App settings metrics: VS Code's settings and keybindings, GIMP's gimprc,
// Thunderbird's prefs.js, GNOME's gsettings and timedatectl output, and
// the clipboard and directory checks of OSWorld's basic OS tasks.

func init() {
	addMetrics(map[string]metricSpec{
		"check_json_settings":       {fn: checkJSONSettings, needsExpected: true, checkOptions: anyOptions, checkRules: checkExpectedObject},
		"check_json_keybindings":    {fn: checkJSONKeybindings, needsExpected: true, checkOptions: anyOptions, checkRules: needKeys("expected")},
		"compare_config":            {fn: compareConfig, needsExpected: true, checkOptions: anyOptions, checkRules: needKeys("expected")},
		"is_extension_installed":    {fn: isExtensionInstalled, needsExpected: true, checkOptions: anyOptions, checkRules: checkExtensionRules},
		"check_config_status":       {fn: checkConfigStatus, needsExpected: true, checkRules: checkConfigStatusRules},
		"check_thunderbird_prefs":   {fn: checkThunderbirdPrefs, needsExpected: true, checkRules: checkPrefsRules},
		"check_gnome_favorite_apps": {fn: checkGnomeFavoriteApps, needsExpected: true, checkRules: needKeys("expected")},
		"is_utc_0":                  {fn: isUTC0},
		"check_text_enlarged":       {fn: checkTextEnlarged},
		"check_moved_jpgs":          {fn: checkMovedJPGs, needsExpected: true, checkRules: needKeys("expected")},
		"is_in_vm_clickboard":       {fn: isInVMClipboard, needsExpected: true},
		"compare_result_files":      {fn: compareResultFiles, needsExpected: true},
		"check_thunderbird_filter":  {fn: checkThunderbirdFilter, needsExpected: true, checkRules: checkFilterRules},
		"check_thunderbird_folder":  {fn: checkThunderbirdFolder, needsExpected: true, checkOptions: anyOptions},
		"compare_python_pure_text":  {fn: comparePythonPureText, needsExpected: true},
	})
}

func checkExpectedObject(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if _, ok := m["expected"].(map[string]any); !ok {
		return fmt.Errorf("expected: want an object, got %s", typeName(m["expected"]))
	}
	return nil
}

// readJSONFile decodes a JSON file into the value model.
func readJSONFile(p any) (any, error) {
	text, err := readText(p)
	if err != nil {
		return nil, err
	}
	return decode([]byte(text), FormatJSON)
}

// checkJSONSettings scores 1 when every key of rules.expected is in the
// file with an equal value (Python's dict.update leaving it unchanged).
func checkJSONSettings(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		return 0, fmt.Sprintf("result: want a JSON object, got %s", typeName(doc)), nil
	}
	for k, v := range want {
		got, ok := data[k]
		if !ok {
			return 0, fmt.Sprintf("no setting %q", k), nil
		}
		if !pyEqual(got, v) {
			return 0, fmt.Sprintf("%q is %s, want %s", k, truncate(pyRepr(got), 200), truncate(pyRepr(v), 200)), nil
		}
	}
	return 1, "", nil
}

// checkJSONKeybindings reads the file as a JSON list, or failing that
// without its first line (VS Code writes a comment there), and looks for
// rules.expected in it.
func checkJSONKeybindings(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		if doc, err := decode([]byte(t), FormatJSON); err == nil {
			if l, ok := doc.([]any); ok {
				list = l
				break
			}
		}
	}
	if list == nil {
		return 0, "result is not a JSON list", nil
	}
	if found, _ := pyContains(list, rules["expected"]); found {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("%s is not among the %d keybindings", truncate(pyRepr(rules["expected"]), 200), len(list)), nil
}

func afterFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func compareConfig(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if s, ok := result.(string); result == nil || ok && s == "" {
		return 0, "no result file", nil
	}
	text, err := readText(result)
	if err != nil {
		return 0, "result: " + err.Error(), nil
	}
	want, _ := rules["expected"].(string)
	if text != want {
		return 0, fmt.Sprintf("got %q, want %q", truncate(text, 200), truncate(want, 200)), nil
	}
	return 1, "", nil
}

func checkExtensionRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if t := m["type"]; t != "contain" && t != "not_contain" {
		return fmt.Errorf("type: want \"contain\" or \"not_contain\", got %s", pyRepr(t))
	}
	if _, ok := m["expected"].(string); !ok {
		return fmt.Errorf("expected: want a string, got %s", typeName(m["expected"]))
	}
	return nil
}

// isExtensionInstalled looks for rules.expected in the command output.
func isExtensionInstalled(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	out, ok := result.(string)
	if !ok {
		return 0, "no command output", nil
	}
	want, _ := rules["expected"].(string)
	has := strings.Contains(out, want)
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
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	switch k := m["key"].(type) {
	case string:
	case []any:
		if len(k) != 2 {
			return errors.New("key: want a string or a list of two")
		}
	default:
		return fmt.Errorf("key: want a string or a list of two, got %s", typeName(k))
	}
	if _, ok := m["value"].(string); !ok {
		return fmt.Errorf("value: want a string, got %s", typeName(m["value"]))
	}
	return nil
}

// checkConfigStatus reads a gimprc: each line "(key ... value)"; the
// first whose key (or two leading words) and last word match scores 1.
func checkConfigStatus(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		trimmed := strings.TrimRight(strings.TrimLeft(pyStrip(line), "("), ")\n")
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
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	for _, part := range []string{"expect", "unexpect"} {
		v, ok := m[part]
		if !ok {
			continue
		}
		prefs, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", part, typeName(v))
		}
		for k, r := range prefs {
			rm, ok := r.(map[string]any)
			if !ok {
				return fmt.Errorf("%s.%s: want an object, got %s", part, k, typeName(r))
			}
			if err := checkValueRule(rm); err != nil {
				return fmt.Errorf("%s.%s: %w", part, k, err)
			}
		}
	}
	return nil
}

var prefPattern = regexp.MustCompile(`^user_pref\("((?:[^"]|\\")+)", (.+)\);$`)

// checkThunderbirdPrefs matches prefs.js's user_pref lines against the
// expect rules (each must be set and match) and the unexpect rules (none
// may match).
func checkThunderbirdPrefs(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		m := prefPattern.FindStringSubmatch(pyStrip(line))
		if m == nil {
			continue
		}
		key := m[1]
		// OSWorld decodes every pref line's value, wanted or not.
		value, err := decode([]byte(m[2]), FormatJSON)
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
	s = pyStrip(s)
	s = strings.TrimPrefix(s, "@as ")
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, errors.New("not a list")
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	out := []string{}
	for body != "" {
		q := body[0]
		if q != '\'' && q != '"' {
			return nil, fmt.Errorf("unquoted item at %q", truncate(body, 20))
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
			return nil, fmt.Errorf("want a comma at %q", truncate(body, 20))
		}
		body = strings.TrimSpace(body[1:])
	}
	return out, nil
}

func sameStringSets(got []string, want []any) bool {
	return len(got) == len(want) && sameStringSet(got, want)
}

func checkGnomeFavoriteApps(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		return 0, fmt.Sprintf("favourite apps %q: %v", truncate(out, 100), err), nil
	}
	want, _ := rules["expected"].([]any)
	if !sameStringSets(apps, want) {
		return 0, fmt.Sprintf("favourite apps %s, want %s", pyRepr(anyStrings(apps)), pyRepr(want)), nil
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

// isUTC0 reads timedatectl's fourth line ("Time zone: ... +0000)").
func isUTC0(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
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

func checkTextEnlarged(_ metricEnv, result, _ any, _ map[string]any) (float64, string, error) {
	out, ok := result.(string)
	if !ok {
		return 0, "no command output", nil
	}
	f, err := strconv.ParseFloat(pyStrip(out), 64)
	if err != nil {
		return 0, fmt.Sprintf("scaling factor %q is not a number", truncate(out, 50)), nil
	}
	if f <= 1 {
		return 0, fmt.Sprintf("text scaling factor %v", f), nil
	}
	return 1, "", nil
}

func checkMovedJPGs(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
		return 0, fmt.Sprintf("the folder holds %s, want %s", pyRepr(anyStrings(names)), pyRepr(want)), nil
	}
	return 1, "", nil
}

// isInVMClipboard takes OSWorld's order: the rules as the result and the
// clipboard (command output) as the expected value.
func isInVMClipboard(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	return 0, fmt.Sprintf("rules.expected: want a string or a list, got %s", typeName(rules["expected"])), nil
}

// compareResultFiles compares two files' stripped contents: as numbers
// when the expected one is a number (the expected text inside the result,
// or within 1e-4), else as text.
func compareResultFiles(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	a, b = pyStrip(a), pyStrip(b)
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
		return 0, fmt.Sprintf("got %q, want %q", truncate(a, 100), truncate(b, 100)), nil
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

// checkThunderbirdFilter reads msgFilterRules.dat into filters (name,
// enabled, type, action, actionValue and the conditions found in the
// condition line); each expect record must match some filter and no
// unexpect record any.
func checkThunderbirdFilter(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
			if !ok || !pyEqual(got, v) {
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
	removeDeleted, removeDuplicate := true, true
	if v, ok := opts["remove_deleted"]; ok {
		removeDeleted = pyTruthy(v)
	}
	if v, ok := opts["remove_duplicate"]; ok {
		removeDuplicate = pyTruthy(v)
	}
	var msgs []string
	seen := map[string]bool{}
	for _, piece := range strings.Split(pyStrip(text), "FROM - ") {
		if pyStrip(piece) != "" {
			continue
		}
		if removeDeleted && mozillaDeleted.MatchString(piece) {
			continue
		}
		m := "FROM - " + pyStrip(piece)
		if removeDuplicate && seen[m] {
			continue
		}
		seen[m] = true
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	return strings.Join(msgs, "\n"), nil
}

func checkThunderbirdFolder(_ metricEnv, result, expected any, opts map[string]any) (float64, string, error) {
	got, want := []any{result}, []any{expected}
	if l, ok := expected.([]any); ok {
		want = l
		if got, ok = result.([]any); !ok {
			return 0, fmt.Sprintf("result: want a list of files, got %s", typeName(result)), nil
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

// comparePythonPureText compares two files with all whitespace removed.
func comparePythonPureText(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
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
	squeeze := func(s string) string {
		return strings.Map(func(r rune) rune {
			if isPySpace(r) {
				return -1
			}
			return r
		}, s)
	}
	if squeeze(a) != squeeze(b) {
		return 0, "the files differ in more than whitespace", nil
	}
	return 1, "", nil
}
