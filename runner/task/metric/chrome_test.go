package metric

import (
	"context"
	"encoding/json"
	"testing"
)

func TestSameURL(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://www.Example.com/", "https://example.com", true},
		{"example.com", "http://example.com", true},                   // no scheme: http is assumed
		{"https://www.airbnb.com.sg/a", "https://airbnb.com/a", true}, // the public suffix is dropped
		{".amazon.com", "www.amazon.com", true},
		{"smile.amazon.com", "amazon.com", false},
		{"docs.github.io", "docs.github.com", true}, // private suffixes are not suffixes to tldextract
		{"http://user:pw@localhost:8080/", "http://localhost", true},
		{"http://192.168.0.1/a", "http://192.168.0.2/a", false},
		{"HTTPS://example.com/a?b=1", "https://example.com/a?b=1", true},
		{"https://example.com/a", "https://example.com/a/", false},
		{"https://example.com/a?b=1", "https://example.com/a?b=2", false},
	} {
		if got := SameURL(tt.a, tt.b); got != tt.want {
			t.Errorf("sameURL(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestChromeMetrics(t *testing.T) {
	var roots any
	if err := json.Unmarshal([]byte(`{"bookmark_bar": {"children": [
		{"type": "folder", "name": "Work", "children": []},
		{"type": "folder", "name": "Liked Authors", "children": [{"type": "url", "url": "https://a"}, {"type": "url", "url": "https://b2"}]},
		{"type": "url", "url": "https://x.org/"}]}}`), &roots); err != nil {
		t.Fatal(err)
	}
	rule := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		name           string
		fn             Func
		result, expect any
		want           float64
	}{
		{"folders", isExpectedBookmarks, roots, rule(`{"type": "bookmark_bar_folders_names", "names": ["Liked Authors", "Work"]}`), 1},
		{"folders missing", isExpectedBookmarks, roots, rule(`{"type": "bookmark_bar_folders_names", "names": ["Work"]}`), 0},
		{"sites", isExpectedBookmarks, roots, rule(`{"type": "bookmark_bar_websites_urls", "urls": ["https://x.org/"]}`), 1},
		{"liked authors", isExpectedBookmarks, roots, rule(`{"type": "liked_authors_websites_urls", "urls": ["https://a", ["https://b1", "https://b2"]]}`), 1},
		{"liked authors wrong", isExpectedBookmarks, roots, rule(`{"type": "liked_authors_websites_urls", "urls": ["https://a", "https://b1"]}`), 0},
		{"no bookmarks", isExpectedBookmarks, []any{}, rule(`{"type": "bookmark_bar_websites_urls", "urls": []}`), 0},
		{"active tab", isExpectedActiveTab, map[string]any{"url": "https://www.x.org/"}, rule(`{"type": "url", "url": "https://x.org"}`), 1},
		{"active tab string", isExpectedActiveTab, "https://x.org/b", rule(`{"type": "url", "url": "https://x.org"}`), 0},
		{"tabs", isExpectedTabs, rule(`[{"url": "https://a.org/"}, {"url": "https://b.org"}]`), rule(`{"type": "url", "urls": ["https://b.org", "https://a.org"]}`), 1},
		{"tabs extra", isExpectedTabs, rule(`[{"url": "https://a.org/"}, {"url": "https://b.org"}]`), rule(`{"type": "url", "urls": ["https://a.org"]}`), 0},
		{"pattern", isExpectedURLPatternMatch, "https://www.x.org/search?q=cats", rule(`{"expected": ["q=cats", "^https://www\\."]}`), 1},
		{"pattern miss", isExpectedURLPatternMatch, map[string]any{"url": "https://x.org/"}, rule(`{"expected": ["q=cats"]}`), 0},
		{"pattern none", isExpectedURLPatternMatch, nil, rule(`{"expected": ["x"]}`), 0},
	} {
		got, detail, err := tt.fn(context.Background(), tt.result, tt.expect, nil)
		if err != nil || got != tt.want {
			t.Errorf("%s: %v (%s), %v; want %v", tt.name, got, detail, err, tt.want)
		}
	}
}
