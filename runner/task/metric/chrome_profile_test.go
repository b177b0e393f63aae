package metric

import (
	"context"
	"strings"
	"testing"
)

func TestChromeProfileMetrics(t *testing.T) {
	cookies := jv(t, `[[13300000000000000, ".amazon.com", "", "session-id", "1"], [13300000000000000, "example.org", "", "a", "b"]]`)
	history := jv(t, `[["https://www.youtube.com/watch?v=x", "Video", 13300000000000000], ["https://www.bbc.co.uk/", "BBC", 13300000000000000]]`)
	for _, tt := range []struct {
		name                   string
		fn                     Func
		result, expected       string
		want                   float64
		detail                 string // a part of the detail, when the score is 0
		rawResult, rawExpected any
	}{
		{name: "search query", fn: isExpectedSearchQuery, result: `{"url": "https://www.google.com/search?q=Nereida&oq=N"}`, expected: `{"expect": {"pattern": "www\\.google\\.com.*?/search\\?q=Nereida&"}}`, want: 1},
		{name: "search query other", fn: isExpectedSearchQuery, result: `{"url": "https://www.google.com/search?q=Other&"}`, expected: `{"expect": {"pattern": "q=Nereida&"}}`, detail: "does not match"},
		{name: "search query no tab", fn: isExpectedSearchQuery, result: `null`, expected: `{"expect": {"pattern": "x"}}`, detail: "no active tab"},
		{name: "search query a string", fn: isExpectedSearchQuery, result: `"https://x"`, expected: `{"expect": {"pattern": "x"}}`, detail: "no active tab"},
		{name: "extensions", fn: isExpectedInstalledExtensions, result: `["Momentum", "Google Translate", "PDF Viewer"]`, expected: `{"expected": ["Google Translate", "Momentum"]}`, want: 1},
		{name: "extensions missing", fn: isExpectedInstalledExtensions, result: `["Momentum"]`, expected: `{"expected": ["Google Translate", "Momentum"]}`, detail: "Google Translate"},
		{name: "extensions unreadable", fn: isExpectedInstalledExtensions, result: `"Google"`, expected: `{"expected": ["Momentum"]}`, detail: "want a list"},
		{name: "cookie deleted", fn: isCookieDeleted, rawResult: cookies, expected: `{"type": "domains", "domains": [".google.com"]}`, want: 1},
		{name: "cookie kept", fn: isCookieDeleted, rawResult: cookies, expected: `{"type": "domains", "domains": [".amazon.com"]}`, detail: ".amazon.com"},
		{name: "no cookies left", fn: isCookieDeleted, result: `[]`, expected: `{"type": "domains", "domains": [".amazon.com"]}`, want: 1},
		{name: "cookies unreadable", fn: isCookieDeleted, result: `null`, expected: `{"type": "domains", "domains": [".amazon.com"]}`, detail: "no cookies"},
		{name: "cookie row short", fn: isCookieDeleted, result: `[[1]]`, expected: `{"type": "domains", "domains": [".amazon.com"]}`, detail: "host"},
		{name: "history deleted", fn: checkHistoryDeleted, rawResult: history, expected: `{"type": "keywords", "keywords": ["cnn"]}`, want: 1},
		{name: "history kept", fn: checkHistoryDeleted, rawResult: history, expected: `{"type": "keywords", "keywords": ["youtube"]}`, detail: "youtube.com"},
		{name: "history unreadable", fn: checkHistoryDeleted, result: `null`, expected: `{"type": "keywords", "keywords": ["youtube"]}`, detail: "no history"},
		{name: "history rows not lists", fn: checkHistoryDeleted, result: `["https://youtube.com"]`, expected: `{"type": "keywords", "keywords": ["youtube"]}`, detail: "not a list"},
		{name: "experiments", fn: checkEnabledExperiments, result: `["chrome-refresh-2023@2", "chrome-webui-refresh-2023@2"]`, expected: `{"type": "names", "names": ["chrome-refresh-2023", "chrome-webui-refresh-2023"]}`, want: 1},
		{name: "experiments order", fn: checkEnabledExperiments, result: `["chrome-webui-refresh-2023@2", "chrome-refresh-2023@2"]`, expected: `{"type": "names", "names": ["chrome-refresh-2023", "chrome-webui-refresh-2023"]}`, detail: "want"},
		{name: "experiments none", fn: checkEnabledExperiments, result: `[]`, expected: `{"type": "names", "names": ["chrome-refresh-2023"]}`, detail: "want"},
		{name: "experiments unreadable", fn: checkEnabledExperiments, result: `{"a": 1}`, expected: `{"type": "names", "names": []}`, detail: "want a list"},
		{name: "shortcut", fn: isShortcutOnDesktop, result: `{"a.desktop": "[Desktop Entry]\nName=Play Puzzle Game 2048\nExec=x\n"}`, expected: `{"type": "name", "name": "Play Puzzle Game 2048"}`, want: 1},
		{name: "shortcut prefix only", fn: isShortcutOnDesktop, result: `{"a.desktop": "[Desktop Entry]\nName=Play Puzzle Game 2048 now\n"}`, expected: `{"type": "name", "name": "Play Puzzle Game 2048"}`, detail: "no shortcut"},
		{name: "no shortcuts", fn: isShortcutOnDesktop, result: `null`, expected: `{"type": "name", "name": "x"}`, detail: "want the desktop"},
		{name: "font size range", fn: checkFontSize, result: `{"default_font_size": 20, "default_fixed_font_size": 13}`, expected: `{"type": "range", "min": 16, "max": 99999}`, want: 1},
		{name: "font size at min", fn: checkFontSize, result: `{"default_font_size": 16}`, expected: `{"type": "range", "min": 16, "max": 99999}`, detail: "exclusive"},
		{name: "font size value", fn: checkFontSize, result: `{"default_font_size": 24}`, expected: `{"type": "value", "value": 24}`, want: 1},
		{name: "font size other value", fn: checkFontSize, result: `{"default_font_size": 16}`, expected: `{"type": "value", "value": 24}`, detail: "want 24"},
		{name: "font size missing", fn: checkFontSize, result: `{"minimum_font_size": 13}`, expected: `{"type": "value", "value": 24}`, detail: "no default_font_size"},
		{name: "steam cart", fn: isAddedToSteamCart, result: `{"content": "<div>The Dota 2 Official Soundtrack</div>"}`, expected: `{"items": ["The Dota 2 Official Soundtrack"]}`, want: 1},
		{name: "steam cart empty", fn: isAddedToSteamCart, result: `{"content": "<div>Your cart is empty</div>"}`, expected: `{"items": ["The Dota 2 Official Soundtrack"]}`, detail: "not in the cart"},
		{name: "steam no page", fn: isAddedToSteamCart, result: `null`, expected: `{"items": ["x"]}`, detail: "no page content"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, exp := tt.rawResult, tt.rawExpected
			if tt.result != "" {
				res = jv(t, tt.result)
			}
			if tt.expected != "" {
				exp = jv(t, tt.expected)
			}
			got, detail, err := tt.fn(context.Background(), res, exp, nil)
			if err != nil || got != tt.want {
				t.Fatalf("score %v (%s), %v; want %v", got, detail, err, tt.want)
			}
			if tt.want == 0 && !strings.Contains(detail, tt.detail) {
				t.Errorf("detail %q, want it to mention %q", detail, tt.detail)
			}
		})
	}
}

func TestChromeProfileMetricRules(t *testing.T) {
	for _, tt := range []struct {
		metric, rules, want string
	}{
		{"is_shortcut_on_desktop", `{"type": "url", "url": "x"}`, `type: 'url' is not supported`},
		{"check_font_size", `{"type": "range", "min": 16}`, "max: want a number"},
		{"check_history_deleted", `{"type": "domains", "keywords": []}`, `type: want "keywords"`},
		{"is_cookie_deleted", `{"type": "domains", "domains": ".amazon.com"}`, "domains: want a list of strings"},
		{"is_expected_search_query", `{"expect": {"pattern": "("}}`, "expect.pattern"},
		{"is_expected_installed_extensions", `{"expected": [1]}`, "expected[0]: want a string"},
		{"check_enabled_experiments", `{"names": []}`, `type: want "names"`},
	} {
		err := metricTable[tt.metric].CheckRules(jv(t, tt.rules))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %v, want %q", tt.metric, tt.rules, err, tt.want)
		}
	}
}
