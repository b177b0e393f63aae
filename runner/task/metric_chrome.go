package task

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// Chrome's metrics compare what the Chrome getters read: the active tab,
// the open tabs, URL patterns, the profile's settings, history, cookies,
// extensions and the desktop's shortcuts. A result that is missing or of
// the wrong shape scores 0 with a detail (where OSWorld's function would
// raise); rules of a type OSWorld does not support are refused at load.

func init() {
	addMetrics(map[string]metricSpec{
		"is_expected_active_tab":           {fn: isExpectedActiveTab, needsExpected: true, checkRules: checkURLRule("url")},
		"is_expected_tabs":                 {fn: isExpectedTabs, needsExpected: true, checkRules: checkURLRule("urls")},
		"is_expected_url_pattern_match":    {fn: isExpectedURLPatternMatch, needsExpected: true, checkRules: checkPatternRules},
		"is_expected_search_query":         {fn: isExpectedSearchQuery, needsExpected: true, checkRules: checkSearchQueryRules},
		"is_expected_installed_extensions": {fn: isExpectedInstalledExtensions, needsExpected: true, checkRules: checkStringsRule("expected")},
		"is_cookie_deleted":                {fn: isCookieDeleted, needsExpected: true, checkRules: checkTypedRules("domains", "domains")},
		"check_history_deleted":            {fn: checkHistoryDeleted, needsExpected: true, checkRules: checkTypedRules("keywords", "keywords")},
		"check_enabled_experiments":        {fn: checkEnabledExperiments, needsExpected: true, checkRules: checkTypedRules("names", "names")},
		"is_shortcut_on_desktop":           {fn: isShortcutOnDesktop, needsExpected: true, checkRules: checkShortcutRules},
		"check_font_size":                  {fn: checkFontSize, needsExpected: true, checkRules: checkFontSizeRules},
		"is_added_to_steam_cart":           {fn: isAddedToSteamCart, needsExpected: true, checkRules: checkStringsRule("items")},
	})
}

// normalURL normalises an address as OSWorld's compare_urls does: scheme
// http when missing, scheme and host lower-cased, "www." removed from the
// host, a path of "/" made empty; the rest as written.
func normalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "" {
		scheme = "http"
	}
	host := strings.ReplaceAll(strings.ToLower(u.Host), "www.", "")
	if u.User != nil {
		host = strings.ToLower(u.User.String()) + "@" + host
	}
	p := u.EscapedPath()
	if u.Opaque != "" {
		p = u.Opaque
	}
	if p == "/" {
		p = ""
	}
	if p != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p // an address without scheme: its host was read as a path
	}
	s := scheme + "://" + host + p
	if u.RawQuery != "" || u.ForceQuery {
		s += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		s += "#" + u.EscapedFragment()
	}
	return s
}

// sameURL reports whether two addresses are equal once normalised.
func sameURL(a, b string) bool { return normalURL(a) == normalURL(b) }

func checkURLRule(key string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", typeName(rules))
		}
		if t, _ := m["type"].(string); t != "url" {
			return fmt.Errorf("type: want \"url\", got %s", pyRepr(m["type"]))
		}
		if _, ok := m[key]; !ok {
			return fmt.Errorf("%s: required", key)
		}
		return nil
	}
}

// urlOf is the address in a getter's result: a string, or the "url" of
// an object.
func urlOf(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case map[string]any:
		s, ok := t["url"].(string)
		return s, ok
	}
	return "", false
}

func isExpectedActiveTab(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !pyTruthy(result) {
		return 0, "no active tab", nil
	}
	want, _ := rules["url"].(string)
	got, ok := urlOf(result)
	if !ok {
		return 0, fmt.Sprintf("no url in %s", truncate(pyRepr(result), 200)), nil
	}
	if sameURL(got, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("active tab %s, want %s", got, want), nil
}

func isExpectedTabs(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	wantList, _ := rules["urls"].([]any)
	tabs, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of tabs, got %s", typeName(result)), nil
	}
	var got []string
	for _, t := range tabs {
		u, ok := urlOf(t)
		if !ok {
			return 0, fmt.Sprintf("a tab without url: %s", truncate(pyRepr(t), 200)), nil
		}
		got = append(got, u)
	}
	if len(got) != len(wantList) {
		return 0, fmt.Sprintf("%d tabs open (%s), want %d", len(got), strings.Join(got, ", "), len(wantList)), nil
	}
	for _, w := range wantList {
		ws, _ := w.(string)
		found := false
		for _, g := range got {
			if sameURL(ws, g) {
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Sprintf("no tab shows %s (open: %s)", ws, strings.Join(got, ", ")), nil
		}
	}
	return 1, "", nil
}

func checkPatternRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	list, ok := m["expected"].([]any)
	if !ok {
		return fmt.Errorf("expected: want a list of patterns, got %s", typeName(m["expected"]))
	}
	for i, p := range list {
		s, ok := p.(string)
		if !ok {
			return fmt.Errorf("expected[%d]: want a string, got %s", i, typeName(p))
		}
		if _, err := pyRegexp(s, ""); err != nil {
			return fmt.Errorf("expected[%d]: %w", i, err)
		}
	}
	return nil
}

// isExpectedURLPatternMatch scores 1 when every pattern is found in the
// address (re.search).
func isExpectedURLPatternMatch(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !pyTruthy(result) {
		return 0, "no address", nil
	}
	u, ok := urlOf(result)
	if !ok {
		return 0, fmt.Sprintf("no url in %s", truncate(pyRepr(result), 200)), nil
	}
	list, _ := rules["expected"].([]any)
	for _, p := range list {
		s, _ := p.(string)
		re, err := pyRegexp(s, "")
		if err != nil {
			return 0, "", fmt.Errorf("expected: %w", err)
		}
		if !re.MatchString(u) {
			return 0, fmt.Sprintf("%s does not match %s", u, s), nil
		}
	}
	return 1, "", nil
}

func checkSearchQueryRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	e, ok := m["expect"].(map[string]any)
	if !ok {
		return fmt.Errorf("expect: want an object, got %s", typeName(m["expect"]))
	}
	p, ok := e["pattern"].(string)
	if !ok {
		return fmt.Errorf("expect.pattern: want a string, got %s", typeName(e["pattern"]))
	}
	if _, err := pyRegexp(p, ""); err != nil {
		return fmt.Errorf("expect.pattern: %w", err)
	}
	return nil
}

// isExpectedSearchQuery scores 1 when expect.pattern is found in the
// active tab's address (re.search).
func isExpectedSearchQuery(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	pat, _ := obj(rules, "expect")["pattern"].(string)
	re, err := pyRegexp(pat, "")
	if err != nil {
		return 0, "", fmt.Errorf("expect.pattern: %w", err)
	}
	u, ok := asMap(result)["url"].(string)
	if !ok {
		return 0, fmt.Sprintf("no active tab address in %s", truncate(pyRepr(result), 200)), nil
	}
	if re.MatchString(u) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("%s does not match %s", u, pat), nil
}

// checkStringsRule checks that rules[key] is a list of strings.
func checkStringsRule(key string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", typeName(rules))
		}
		list, ok := m[key].([]any)
		if !ok {
			return fmt.Errorf("%s: want a list of strings, got %s", key, typeName(m[key]))
		}
		for i, e := range list {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("%s[%d]: want a string, got %s", key, i, typeName(e))
			}
		}
		return nil
	}
}

// checkTypedRules checks rules whose type must be typ (the one OSWorld's
// function supports) with a list of strings under key.
func checkTypedRules(typ, key string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", typeName(rules))
		}
		if m["type"] != typ {
			return fmt.Errorf("type: want %q, got %s", typ, pyRepr(m["type"]))
		}
		return checkStringsRule(key)(rules)
	}
}

// isExpectedInstalledExtensions scores 1 when every expected name is
// among the installed extensions' names.
func isExpectedInstalledExtensions(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of installed extensions, got %s", truncate(pyRepr(result), 200)), nil
	}
	have := map[string]bool{}
	for _, e := range list {
		if s, ok := e.(string); ok {
			have[s] = true
		}
	}
	var missing []string
	for _, w := range strs(rules["expected"]) {
		if !have[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return 0, fmt.Sprintf("not installed: %q", missing), nil
	}
	return 1, "", nil
}

// rowsOf reads a database getter's result: a list of rows, each a list.
func rowsOf(result any, what string) ([][]any, string) {
	list, ok := result.([]any)
	if !ok {
		return nil, fmt.Sprintf("no %s (got %s)", what, truncate(pyRepr(result), 200))
	}
	rows := make([][]any, 0, len(list))
	for _, e := range list {
		row, ok := e.([]any)
		if !ok {
			return nil, fmt.Sprintf("%s: a row is %s, not a list", what, typeName(e))
		}
		rows = append(rows, row)
	}
	return rows, ""
}

// isCookieDeleted scores 0 when a cookie's host (the row's second
// column) is one of the domains, compared as URLs.
func isCookieDeleted(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	rows, why := rowsOf(result, "cookies")
	if why != "" {
		return 0, why, nil
	}
	for _, d := range strs(rules["domains"]) {
		for _, row := range rows {
			if len(row) < 2 {
				return 0, "cookies: a row without a host column", nil
			}
			if h, ok := row[1].(string); ok && sameURL(d, h) {
				return 0, fmt.Sprintf("a cookie of %s is still there", h), nil
			}
		}
	}
	return 1, "", nil
}

// checkHistoryDeleted scores 0 when a history address (the row's first
// column) contains one of the keywords.
func checkHistoryDeleted(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	rows, why := rowsOf(result, "history")
	if why != "" {
		return 0, why, nil
	}
	for _, k := range strs(rules["keywords"]) {
		for _, row := range rows {
			if len(row) < 1 {
				return 0, "history: an empty row", nil
			}
			if u, ok := row[0].(string); ok && strings.Contains(u, k) {
				return 0, fmt.Sprintf("history still holds %s", u), nil
			}
		}
	}
	return 1, "", nil
}

// checkEnabledExperiments scores 1 when the enabled experiments, each
// without its "@option", are exactly names, in order.
func checkEnabledExperiments(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of experiments, got %s", truncate(pyRepr(result), 200)), nil
	}
	var got []string
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return 0, fmt.Sprintf("an experiment is %s, not a string", typeName(e)), nil
		}
		name, _, _ := strings.Cut(s, "@")
		got = append(got, name)
	}
	want := strs(rules["names"])
	if slices.Equal(got, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("enabled experiments %q, want %q", got, want), nil
}

func checkShortcutRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	if m["type"] != "name" {
		return fmt.Errorf("type: %s is not supported (only \"name\", as in OSWorld)", pyRepr(m["type"]))
	}
	if _, ok := m["name"].(string); !ok {
		return fmt.Errorf("name: want a string, got %s", typeName(m["name"]))
	}
	return nil
}

// isShortcutOnDesktop scores 1 when a desktop shortcut has the line
// Name=<name>.
func isShortcutOnDesktop(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	sc, ok := result.(map[string]any)
	if !ok {
		return 0, fmt.Sprintf("want the desktop's shortcuts, got %s", truncate(pyRepr(result), 200)), nil
	}
	name, _ := rules["name"].(string)
	for _, f := range slices.Sorted(maps.Keys(sc)) {
		if c, ok := sc[f].(string); ok && strings.Contains(c, "Name="+name+"\n") {
			return 1, "", nil
		}
	}
	return 0, fmt.Sprintf("no shortcut named %q among %d on the desktop", name, len(sc)), nil
}

func checkFontSizeRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", typeName(rules))
	}
	var keys []string
	switch m["type"] {
	case "value":
		keys = []string{"value"}
	case "range":
		keys = []string{"min", "max"}
	default:
		return fmt.Errorf("type: %s is not supported (want \"value\" or \"range\")", pyRepr(m["type"]))
	}
	for _, k := range keys {
		if _, ok := number(m[k]); !ok {
			return fmt.Errorf("%s: want a number, got %s", k, typeName(m[k]))
		}
	}
	return nil
}

// checkFontSize compares the default font size with rules.value, or
// checks min < size < max.
func checkFontSize(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	m, ok := result.(map[string]any)
	if !ok {
		return 0, fmt.Sprintf("want the font sizes, got %s", truncate(pyRepr(result), 200)), nil
	}
	size, ok := number(m["default_font_size"])
	if !ok {
		return 0, fmt.Sprintf("no default_font_size in %s", truncate(pyRepr(result), 200)), nil
	}
	if rules["type"] == "value" {
		if pyEqual(m["default_font_size"], rules["value"]) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("default font size %v, want %s", size, pyRepr(rules["value"])), nil
	}
	lo, _ := number(rules["min"])
	hi, _ := number(rules["max"])
	if lo < size && size < hi {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("default font size %v, want between %v and %v (exclusive)", size, lo, hi), nil
}

// isAddedToSteamCart scores 1 when every item's text is in the page's
// HTML.
func isAddedToSteamCart(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	content, ok := asMap(result)["content"].(string)
	if !ok {
		return 0, fmt.Sprintf("no page content in %s", truncate(pyRepr(result), 200)), nil
	}
	for _, it := range strs(rules["items"]) {
		if !strings.Contains(content, it) {
			return 0, fmt.Sprintf("%q is not in the cart", it), nil
		}
	}
	return 1, "", nil
}
