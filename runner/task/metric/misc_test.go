package metric

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func docxWith(t *testing.T, paras ...string) string {
	var b strings.Builder
	for _, p := range paras {
		b.WriteString("<w:p><w:r><w:t xml:space=\"preserve\">" + p + "</w:t></w:r></w:p>")
	}
	return makeZip(t, "list.docx", [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"word/document.xml", `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + b.String() + `</w:body></w:document>`},
	})
}

func TestMiscMetrics(t *testing.T) {
	places := js(t, `{"expected": ["深圳市福田区一号", "北京市海淀区二号", "上海市浦东新区三号"]}`)
	now := time.Now()
	csv := func(at time.Time) string {
		return writeTemp(t, "speed.csv", "Date,Time,Download\nx,2026-01-01 "+at.Format("15:04")+",100\n")
	}
	page := writeTemp(t, "index.html", "<html><head><style>\nbody { background-image: url('anmi_sharper.png'); }\n</style></head><body style=\"background-image: url('x.png')\"></body></html>")
	runSettingsCases(t, []settingsCase{
		{"three places", "fuzzy_place_math", docxWith(t, "深圳市福田区一号", "", "北京市海淀区二号  上海市浦东新区三号"), places, 1},
		{"two places", "fuzzy_place_math", docxWith(t, "深圳市福田区一号", "北京市海淀区二号"), places, 0},
		{"corrupt", "fuzzy_place_math", writeTemp(t, "x.docx", "PK"), places, 0},
		{"missing", "fuzzy_place_math", filepath.Join(t.TempDir(), "x.docx"), places, 0},

		{"just now", "compare_time_in_speedtest_results", csv(now), "60", 1},
		{"numeric limit", "compare_time_in_speedtest_results", csv(now), js(t, `60`), 1},
		{"no data row", "compare_time_in_speedtest_results", writeTemp(t, "e.csv", "Date,Time\n"), "60", 0},
		{"missing", "compare_time_in_speedtest_results", filepath.Join(t.TempDir(), "x.csv"), "60", 0},

		{"set in style", "check_html_background_image", page, js(t, `{"value": "anmi_sharper.png"}`), 1},
		{"only inline", "check_html_background_image", page, js(t, `{"value": "x.png"}`), 0},
		{"missing", "check_html_background_image", filepath.Join(t.TempDir(), "x.html"), js(t, `{"value": "x.png"}`), 0},
	})
	s, d, _ := fuzzyPlaceMath(testEnv(t), docxWith(t, "深圳市福田区一号 北京市海淀区 上海市浦东新区三号"), places, nil)
	if s <= 0.8 || s >= 1 || d == "" {
		t.Errorf("one place shortened: %v %q, want a partial score with a detail", s, d)
	}
	if h, m := now.Hour(), now.Minute(); h*60+m >= 90 {
		s, d, _ := compareSpeedtestTime(testEnv(t), csv(now.Add(-90*time.Minute)), "60", nil)
		if s != 0 || d == "" {
			t.Errorf("90 minutes ago: %v %q", s, d)
		}
	}
}
