package task

import (
	"context"
	"fmt"
	"path"
	"slices"

	"github.com/containerd/errdefs"
)

// Chrome's bookmarks: the getter reads the profile's Bookmarks file (JSON)
// as OSWorld does, the metric compares the bookmark bar.

func init() {
	addGetters(map[string]getterSpec{"bookmarks": {checkNoParams, (*run).bookmarks}})
	addMetrics(map[string]metricSpec{"is_expected_bookmarks": {fn: isExpectedBookmarks, needsExpected: true, checkRules: needKeys("type")}})
}

// bookmarks answers the "roots" object of the profile's Bookmarks file
// (~/.config/google-chrome, else ~/.config/chromium), an empty list when
// there is none.
func (r *run) bookmarks(ctx context.Context, _ map[string]any) (any, error) {
	home, err := r.userHome(ctx)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{".config/google-chrome", ".config/chromium"} {
		data, err := r.sb.ReadFile(ctx, path.Join(home, dir, "Default", "Bookmarks"))
		if errdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(data) == 0 {
			return []any{}, nil
		}
		v, err := decode(data, FormatJSON)
		if err != nil {
			return nil, fmt.Errorf("read bookmarks: %w", err)
		}
		m, _ := v.(map[string]any)
		if roots, ok := m["roots"]; ok {
			return roots, nil
		}
		return map[string]any{}, nil
	}
	return []any{}, nil
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

func sameSet(a, b []string) bool {
	set := func(x []string) []string {
		y := slices.Clone(x)
		slices.Sort(y)
		return slices.Compact(y)
	}
	return slices.Equal(set(a), set(b))
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func isExpectedBookmarks(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	rules, err := rulesMap(expected)
	if err != nil {
		return 0, "", err
	}
	roots, ok := result.(map[string]any)
	if !ok || !pyTruthy(result) {
		return 0, "no bookmarks", nil
	}
	switch rules["type"] {
	case "bookmark_bar_folders_names":
		got := barChildren(roots, "folder", "name")
		if sameSet(got, strs(rules["names"])) {
			return 1, "", nil
		}
		return 0, fmt.Sprintf("bookmark bar folders %q", got), nil
	case "bookmark_bar_websites_urls":
		got := barChildren(roots, "url", "url")
		if sameSet(got, strs(rules["urls"])) {
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
				choices = append(choices, strs(t))
			}
		}
		var try func(i int, pick []string) bool
		try = func(i int, pick []string) bool {
			if i == len(choices) {
				return sameSet(pick, got)
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
	return 0, "", fmt.Errorf("rules.type: %s is not supported", pyRepr(rules["type"]))
}
