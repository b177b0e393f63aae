package metric

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"

	"github.com/deskrun/deskrun/internal/py"
)

// Chrome's metrics compare what the Chrome getters read: the active tab,
// the open tabs, URL patterns, the profile's settings, history, cookies,
// extensions and the desktop's shortcuts. A result that is missing or of
// the wrong shape scores 0 with a detail (where OSWorld's function would
// raise); rules of a type OSWorld does not support are refused at load.

// normalURL normalises an address as OSWorld's compare_urls does: scheme
// http when missing, scheme lower-cased, the host reduced as tldextract
// splits it (user, port and public suffix dropped, "www" dropped when it
// is the whole subdomain: www.airbnb.com and airbnb.com.sg are both
// "airbnb"), a path of "/" made empty; the rest as written.
func normalURL(raw string) string {
	if !hasScheme.MatchString(raw) {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme == "" {
		scheme = "http"
	}
	host := registeredName(strings.ToLower(u.Host))
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

// hasScheme is compare_urls' test for an address that names its scheme.
var hasScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+\-.]*://`)

// registeredName is the host as compare_urls rebuilds it from
// tldextract's split: subdomain.domain, or domain alone when the
// subdomain is empty or "www". The public suffix is the longest ICANN
// one (tldextract leaves out the private section of the list); a host
// under no listed suffix keeps its last label as the domain, and an IPv4
// address is the domain whole.
func registeredName(netloc string) string {
	host, _, _ := strings.Cut(netloc, ":")
	host = strings.TrimRight(strings.TrimSpace(host), ".")
	if ip := net.ParseIP(host); ip != nil && ip.To4() != nil {
		return host
	}
	labels := strings.Split(host, ".")
	cut := len(labels) // index of the suffix's first label
	for i := range labels {
		cand := strings.Join(labels[i:], ".")
		if ps, icann := publicsuffix.PublicSuffix(cand); icann && ps == cand {
			cut = i
			break
		}
	}
	if cut == 0 {
		return ""
	}
	domain := labels[cut-1]
	sub := strings.Join(labels[:cut-1], ".")
	if sub == "" || sub == "www" {
		return domain
	}
	return sub + "." + domain
}

// SameURL reports whether two addresses are equal once normalised.
func SameURL(a, b string) bool { return normalURL(a) == normalURL(b) }

func checkURLRule(key string) func(any) error {
	return func(rules any) error {
		m, ok := rules.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object, got %s", py.TypeName(rules))
		}
		if t, _ := m["type"].(string); t != "url" {
			return fmt.Errorf("type: want \"url\", got %s", py.Repr(m["type"]))
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

// isExpectedActiveTab implements OSWorld's is_expected_active_tab
// (desktop_env/evaluators/metrics/chrome.py).
func isExpectedActiveTab(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !py.Truthy(result) {
		return 0, "no active tab", nil
	}
	want, _ := rules["url"].(string)
	got, ok := urlOf(result)
	if !ok {
		return 0, fmt.Sprintf("no url in %s", py.Truncate(py.Repr(result), 200)), nil
	}
	if SameURL(got, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("active tab %s, want %s", got, want), nil
}

// isExpectedActiveTabApproximate implements OSWorld's
// is_expected_active_tab_approximate (desktop_env/evaluators/metrics/chrome.py):
// the active tab's URL equals the expected one once both lose their query,
// as urlunparse(urlparse(url)._replace(query="")) writes them.
func isExpectedActiveTabApproximate(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !py.Truthy(result) {
		return 0, "no active tab", nil
	}
	if rules["type"] != "url" {
		return 0, fmt.Sprintf("unknown type %s", py.Repr(rules["type"])), nil
	}
	want, _ := rules["url"].(string)
	var got string
	switch t := result.(type) {
	case map[string]any:
		s, ok := t["url"].(string)
		if !ok {
			return 0, fmt.Sprintf("no url in %s", py.Truncate(py.Repr(result), 200)), nil
		}
		got = s
	case string:
		got = t
	default:
		return 0, fmt.Sprintf("want a tab or a URL, got %s", py.TypeName(result)), nil
	}
	if stripQuery(got) == stripQuery(want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("active tab %s, want %s (queries aside)", got, want), nil
}

// stripQuery is urlunparse(urlparse(u)._replace(query="")): the scheme
// lower-cased, the query gone, an empty fragment dropped.
func stripQuery(u string) string {
	frag, hasFrag := "", false
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u, frag, hasFrag = u[:i], u[i+1:], true
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	if i := strings.IndexByte(u, ':'); i > 0 && validScheme(u[:i]) {
		u = strings.ToLower(u[:i]) + u[i:]
	}
	if hasFrag && frag != "" {
		u += "#" + frag
	}
	return u
}

// validScheme says whether urlparse takes s as a scheme: a letter, then
// letters, digits, "+", "-" or ".".
func validScheme(s string) bool {
	for i, c := range s {
		isAlpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !isAlpha || !isAlpha && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// isExpectedTabs implements OSWorld's is_expected_tabs
// (desktop_env/evaluators/metrics/chrome.py).
func isExpectedTabs(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	wantList, _ := rules["urls"].([]any)
	tabs, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of tabs, got %s", py.TypeName(result)), nil
	}
	var got []string
	for _, t := range tabs {
		u, ok := urlOf(t)
		if !ok {
			return 0, fmt.Sprintf("a tab without url: %s", py.Truncate(py.Repr(t), 200)), nil
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
			if SameURL(ws, g) {
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
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	list, ok := m["expected"].([]any)
	if !ok {
		return fmt.Errorf("expected: want a list of patterns, got %s", py.TypeName(m["expected"]))
	}
	for i, p := range list {
		s, ok := p.(string)
		if !ok {
			return fmt.Errorf("expected[%d]: want a string, got %s", i, py.TypeName(p))
		}
		if _, err := py.CompileRE2(s, ""); err != nil {
			return fmt.Errorf("expected[%d]: %w", i, err)
		}
	}
	return nil
}

// isExpectedURLPatternMatch implements OSWorld's
// is_expected_url_pattern_match
// (desktop_env/evaluators/metrics/chrome.py).
//
// isExpectedURLPatternMatch scores 1 when every pattern is found in the
// address (re.search).
func isExpectedURLPatternMatch(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if !py.Truthy(result) {
		return 0, "no address", nil
	}
	u, ok := urlOf(result)
	if !ok {
		return 0, fmt.Sprintf("no url in %s", py.Truncate(py.Repr(result), 200)), nil
	}
	list, _ := rules["expected"].([]any)
	for _, p := range list {
		s, _ := p.(string)
		re, err := py.CompileRE2(s, "")
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
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	e, ok := m["expect"].(map[string]any)
	if !ok {
		return fmt.Errorf("expect: want an object, got %s", py.TypeName(m["expect"]))
	}
	p, ok := e["pattern"].(string)
	if !ok {
		return fmt.Errorf("expect.pattern: want a string, got %s", py.TypeName(e["pattern"]))
	}
	if _, err := py.CompileRE2(p, ""); err != nil {
		return fmt.Errorf("expect.pattern: %w", err)
	}
	return nil
}

// isExpectedSearchQuery implements OSWorld's is_expected_search_query
// (desktop_env/evaluators/metrics/chrome.py).
//
// isExpectedSearchQuery scores 1 when expect.pattern is found in the
// active tab's address (re.search).
func isExpectedSearchQuery(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	pat, _ := py.DictAt(rules, "expect")["pattern"].(string)
	re, err := py.CompileRE2(pat, "")
	if err != nil {
		return 0, "", fmt.Errorf("expect.pattern: %w", err)
	}
	u, ok := py.Dict(result)["url"].(string)
	if !ok {
		return 0, fmt.Sprintf("no active tab address in %s", py.Truncate(py.Repr(result), 200)), nil
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
			return fmt.Errorf("want an object, got %s", py.TypeName(rules))
		}
		list, ok := m[key].([]any)
		if !ok {
			return fmt.Errorf("%s: want a list of strings, got %s", key, py.TypeName(m[key]))
		}
		for i, e := range list {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("%s[%d]: want a string, got %s", key, i, py.TypeName(e))
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
			return fmt.Errorf("want an object, got %s", py.TypeName(rules))
		}
		if m["type"] != typ {
			return fmt.Errorf("type: want %q, got %s", typ, py.Repr(m["type"]))
		}
		return checkStringsRule(key)(rules)
	}
}

// isExpectedInstalledExtensions implements OSWorld's
// is_expected_installed_extensions
// (desktop_env/evaluators/metrics/chrome.py).
//
// isExpectedInstalledExtensions scores 1 when every expected name is
// among the installed extensions' names.
func isExpectedInstalledExtensions(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of installed extensions, got %s", py.Truncate(py.Repr(result), 200)), nil
	}
	have := map[string]bool{}
	for _, e := range list {
		if s, ok := e.(string); ok {
			have[s] = true
		}
	}
	var missing []string
	for _, w := range py.Strings(rules["expected"]) {
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
		return nil, fmt.Sprintf("no %s (got %s)", what, py.Truncate(py.Repr(result), 200))
	}
	rows := make([][]any, 0, len(list))
	for _, e := range list {
		row, ok := e.([]any)
		if !ok {
			return nil, fmt.Sprintf("%s: a row is %s, not a list", what, py.TypeName(e))
		}
		rows = append(rows, row)
	}
	return rows, ""
}

// isCookieDeleted implements OSWorld's is_cookie_deleted
// (desktop_env/evaluators/metrics/chrome.py).
//
// isCookieDeleted scores 0 when a cookie's host (the row's second
// column) is one of the domains, compared as URLs.
func isCookieDeleted(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if t, _ := rules["type"].(string); t != "domains" {
		return 0, fmt.Sprintf("rules of type %s are not supported (OSWorld raises)", py.Repr(rules["type"])), nil
	}
	rows, why := rowsOf(result, "cookies")
	if why != "" {
		return 0, why, nil
	}
	for _, d := range py.Strings(rules["domains"]) {
		for _, row := range rows {
			if len(row) < 2 {
				return 0, "cookies: a row without a host column", nil
			}
			if h, ok := row[1].(string); ok && SameURL(d, h) {
				return 0, fmt.Sprintf("a cookie of %s is still there", h), nil
			}
		}
	}
	return 1, "", nil
}

// checkHistoryDeleted implements OSWorld's check_history_deleted
// (desktop_env/evaluators/metrics/chrome.py).
//
// checkHistoryDeleted scores 0 when a history address (the row's first
// column) contains one of the keywords.
func checkHistoryDeleted(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	if t, _ := rules["type"].(string); t != "keywords" {
		return 0, fmt.Sprintf("rules of type %s are not supported (OSWorld raises)", py.Repr(rules["type"])), nil
	}
	rows, why := rowsOf(result, "history")
	if why != "" {
		return 0, why, nil
	}
	for _, k := range py.Strings(rules["keywords"]) {
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

// checkEnabledExperiments implements OSWorld's check_enabled_experiments
// (desktop_env/evaluators/metrics/chrome.py).
//
// checkEnabledExperiments scores 1 when the enabled experiments, each
// without its "@option", are exactly names, in order.
func checkEnabledExperiments(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	list, ok := result.([]any)
	if !ok {
		return 0, fmt.Sprintf("want a list of experiments, got %s", py.Truncate(py.Repr(result), 200)), nil
	}
	var got []string
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return 0, fmt.Sprintf("an experiment is %s, not a string", py.TypeName(e)), nil
		}
		name, _, _ := strings.Cut(s, "@")
		got = append(got, name)
	}
	want := py.Strings(rules["names"])
	if slices.Equal(got, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("enabled experiments %q, want %q", got, want), nil
}

func checkShortcutRules(rules any) error {
	m, ok := rules.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	if m["type"] != "name" {
		return fmt.Errorf("type: %s is not supported (only \"name\", as in OSWorld)", py.Repr(m["type"]))
	}
	if _, ok := m["name"].(string); !ok {
		return fmt.Errorf("name: want a string, got %s", py.TypeName(m["name"]))
	}
	return nil
}

// isShortcutOnDesktop implements OSWorld's is_shortcut_on_desktop
// (desktop_env/evaluators/metrics/chrome.py).
//
// isShortcutOnDesktop scores 1 when a desktop shortcut has the line
// Name=<name>.
func isShortcutOnDesktop(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	sc, ok := result.(map[string]any)
	if !ok {
		return 0, fmt.Sprintf("want the desktop's shortcuts, got %s", py.Truncate(py.Repr(result), 200)), nil
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
		return fmt.Errorf("want an object, got %s", py.TypeName(rules))
	}
	var keys []string
	switch m["type"] {
	case "value":
		keys = []string{"value"}
	case "range":
		keys = []string{"min", "max"}
	default:
		return fmt.Errorf("type: %s is not supported (want \"value\" or \"range\")", py.Repr(m["type"]))
	}
	for _, k := range keys {
		if _, ok := py.Number(m[k]); !ok {
			return fmt.Errorf("%s: want a number, got %s", k, py.TypeName(m[k]))
		}
	}
	return nil
}

// checkFontSize implements OSWorld's check_font_size
// (desktop_env/evaluators/metrics/chrome.py).
//
// checkFontSize compares the default font size with rules.value, or
// checks min < size < max.
func checkFontSize(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	m, ok := result.(map[string]any)
	if !ok {
		return 0, fmt.Sprintf("want the font sizes, got %s", py.Truncate(py.Repr(result), 200)), nil
	}
	size, ok := py.Number(m["default_font_size"])
	if !ok {
		return 0, fmt.Sprintf("no default_font_size in %s", py.Truncate(py.Repr(result), 200)), nil
	}
	if rules["type"] == "value" {
		if py.Equal(m["default_font_size"], rules["value"]) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("default font size %v, want %s", size, py.Repr(rules["value"])), nil
	}
	lo, _ := py.Number(rules["min"])
	hi, _ := py.Number(rules["max"])
	if lo < size && size < hi {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("default font size %v, want between %v and %v (exclusive)", size, lo, hi), nil
}

// isAddedToSteamCart implements OSWorld's is_added_to_steam_cart
// (desktop_env/evaluators/metrics/chrome.py).
//
// isAddedToSteamCart scores 1 when every item's text is in the page's
// HTML.
func isAddedToSteamCart(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	content, ok := py.Dict(result)["content"].(string)
	if !ok {
		return 0, fmt.Sprintf("no page content in %s", py.Truncate(py.Repr(result), 200)), nil
	}
	for _, it := range py.Strings(rules["items"]) {
		if !strings.Contains(content, it) {
			return 0, fmt.Sprintf("%q is not in the cart", it), nil
		}
	}
	return 1, "", nil
}
