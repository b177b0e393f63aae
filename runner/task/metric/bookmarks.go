package metric

import (
	"context"
	"fmt"

	"github.com/deskrun/deskrun/internal/py"
)

// isExpectedBookmarks implements OSWorld's is_expected_bookmarks
// (desktop_env/evaluators/metrics/chrome.py).
func isExpectedBookmarks(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	roots, ok := result.(map[string]any)
	if !ok || !py.Truthy(result) {
		return 0, "no bookmarks", nil
	}
	switch rules["type"] {
	case "bookmark_bar_folders_names":
		got := barChildren(roots, "folder", "name")
		if py.SameSet(got, py.Strings(rules["names"])) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("bookmark bar folders %q", got), nil
	case "bookmark_bar_websites_urls":
		got := barChildren(roots, "url", "url")
		if py.SameSet(got, py.Strings(rules["urls"])) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("bookmark bar sites %q", got), nil
	case "liked_authors_websites_urls":
		bar, _ := roots["bookmark_bar"].(map[string]any)
		kids, _ := bar["children"].([]any)
		var folder map[string]any
		for _, k := range kids {
			m, _ := k.(map[string]any)
			if m["type"] == "folder" && m["name"] == "Liked Authors" {
				folder = m
				break
			}
		}
		if folder == nil {
			return 0, "no Liked Authors folder on the bookmark bar", nil
		}
		got := barChildren(map[string]any{"bookmark_bar": folder}, "url", "url")
		// Each expected entry is a URL or a list of acceptable URLs; one
		// choice per entry must give exactly the folder's set.
		var choices [][]string
		urls, _ := rules["urls"].([]any)
		for _, u := range urls {
			switch t := u.(type) {
			case string:
				choices = append(choices, []string{t})
			default:
				choices = append(choices, py.Strings(t))
			}
		}
		var try func(i int, pick []string) bool
		try = func(i int, pick []string) bool {
			if i == len(choices) {
				return py.SameSet(pick, got)
			}
			for _, c := range choices[i] {
				if try(i+1, append(pick, c)) {
					return true
				}
			}
			return false
		}
		if try(0, nil) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("Liked Authors holds %q", got), nil
	}
	return 0, "", fmt.Errorf("rules.type: %s is not supported", py.Repr(rules["type"]))
}

// barChildren lists the bookmark bar's entries of a kind ("folder",
// "url"), giving field of each.
func barChildren(roots map[string]any, kind, field string) []string {
	bar, _ := roots["bookmark_bar"].(map[string]any)
	kids, _ := bar["children"].([]any)
	var out []string
	for _, k := range kids {
		m, _ := k.(map[string]any)
		if m["type"] == kind {
			s, _ := m[field].(string)
			out = append(out, s)
		}
	}
	return out
}
