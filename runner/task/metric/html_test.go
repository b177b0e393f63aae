package metric

import (
	"path/filepath"
	"testing"
)

func TestCompareHTMLs(t *testing.T) {
	gold := writeTemp(t, "gold.html", "<!DOCTYPE html><html><head><title>Survey</title></head><body><table class=\"data wide\"><tr><td>2021</td><td>42</td></tr></table></body></html>")
	runSettingsCases(t, []settingsCase{
		{"identical", "compare_htmls", gold, gold, 1},
		{"newline before html, double space in class", "compare_htmls", writeTemp(t, "a.html", "<!DOCTYPE html>\n<html><head><title>Survey</title></head><body><table class=\"data  wide\"><tr><td>2021</td><td>42</td></tr></table></body></html>"), gold, 1},
		{"class words spaced", "compare_htmls", writeTemp(t, "b.html", "<!DOCTYPE html><html><head><title>Survey</title></head><body><table class=\" data   wide \"><tr><td>2021</td><td>42</td></tr></table></body></html>"), gold, 1},
		{"cell changed", "compare_htmls", writeTemp(t, "c.html", "<!DOCTYPE html><html><head><title>Survey</title></head><body><table class=\"data wide\"><tr><td>2021</td><td>43</td></tr></table></body></html>"), gold, 0},
		{"attribute added", "compare_htmls", writeTemp(t, "d.html", "<!DOCTYPE html><html><head><title>Survey</title></head><body><table class=\"data wide\" border=\"1\"><tr><td>2021</td><td>42</td></tr></table></body></html>"), gold, 0},
		{"missing", "compare_htmls", filepath.Join(t.TempDir(), "x.html"), gold, 0},
		{"no result", "compare_htmls", nil, gold, 0},
	})
}
