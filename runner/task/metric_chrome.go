package task

import (
	"fmt"
	"net/url"
	"strings"
)

// Chrome's metrics compare what the Chrome getters read: the active tab,
// the open tabs, URL patterns.

func init() {
	addMetrics(map[string]metricSpec{
		"is_expected_active_tab":        {fn: isExpectedActiveTab, needsExpected: true, checkRules: checkURLRule("url")},
		"is_expected_tabs":              {fn: isExpectedTabs, needsExpected: true, checkRules: checkURLRule("urls")},
		"is_expected_url_pattern_match": {fn: isExpectedURLPatternMatch, needsExpected: true, checkRules: checkPatternRules},
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
