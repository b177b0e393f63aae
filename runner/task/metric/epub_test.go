package metric

import (
	"os"
	"path/filepath"
	"testing"
)

func epubFiles(id, chapter string) [][2]string {
	return [][2]string{
		{"mimetype", "application/epub+zip"},
		{"toc.ncx", "<ncx>\n<navMap>\n<navPoint id=\"" + id + "\" playOrder=\"1\">\n<text>One</text>\n</navMap>\n</ncx>\n"},
		{"content.opf", "<package>\n<dc:identifier>urn:uuid:" + id + "</dc:identifier>\n<dc:title>Pass Through</dc:title>\n</package>\n"},
		{"ch1.html", "<html>\n<body>\n<h1>One</h1>\n<p>" + chapter + "</p>\n<p>Second paragraph.</p>\n<p>Third.</p>\n</body></html>"},
	}
}

func TestCompareEpub(t *testing.T) {
	gold := makeZip(t, "gold.epub", epubFiles("aaa", "It was a dark night."))
	runSettingsCases(t, []settingsCase{
		{"identical", "compare_epub", gold, gold, 1},
		{"other identifiers, same text", "compare_epub", makeZip(t, "a.epub", epubFiles("bbb", "It was a dark night.")), gold, 1},
		{"other line breaks", "compare_epub", makeZip(t, "b.epub", append(epubFiles("aaa", "")[:3], [2]string{"ch1.html", "<html><body><h1>One</h1><p>It was a dark night.</p><p>Second paragraph.</p><p>Third.</p></body></html>"})), gold, 1},
		{"no toc, the rest equal (OSWorld compares the parts there are)", "compare_epub", makeZip(t, "d.epub", epubFiles("aaa", "It was a dark night.")[2:]), gold, 1},
		{"corrupt", "compare_epub", writeTemp(t, "e.epub", "PK junk"), gold, 0},
		{"missing", "compare_epub", filepath.Join(t.TempDir(), "none.epub"), gold, 0},
		{"no result", "compare_epub", nil, gold, 0},
	})
	changed := makeZip(t, "c.epub", epubFiles("aaa", "It was a bright morning."))
	s, d, err := compareEpub(testEnv(t), changed, gold, nil)
	if err != nil || s <= 0 || s >= 1 || d == "" {
		t.Errorf("one paragraph changed: %v %q %v, want a partial score with a detail", s, d, err)
	}
}

func TestCheckPythonFileByTestSuite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mod := write("snake.py", "def speed():\n    return 10\n")
	pass := write("suite_pass.py", "from snake import speed\ndef test():\n    return speed() == 10\n")
	fail := write("suite_fail.py", "from snake import speed\ndef test():\n    return speed() == 20\n")
	raise := write("suite_raise.py", "def test():\n    raise ValueError('boom')\n")
	custom := write("suite_custom.py", "def check_all():\n    return True\n")
	sp := metricTable["check_python_file_by_test_suite"]
	cases := []struct {
		name   string
		result any
		suite  any
		opts   map[string]any
		want   float64
	}{
		{"passes", []any{mod}, pass, nil, 1},
		{"false", []any{mod}, fail, nil, 0},
		{"raises", []any{mod}, raise, nil, 0},
		{"function name option", []any{mod}, custom, map[string]any{"test_function_name": "check_all"}, 1},
		{"no such function", []any{mod}, custom, nil, 0},
		{"result file missing, suite run all the same", []any{mod, nil}, pass, nil, 1},
		{"suite missing", []any{mod}, filepath.Join(dir, "none.py"), nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, d, err := sp.Fn(testEnv(t), c.result, c.suite, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if s != c.want || s == 0 && d == "" {
				t.Errorf("score %v (%q), want %v with a detail for 0", s, d, c.want)
			}
		})
	}
	if sp.CheckOptions(map[string]any{"test_function_name": 3}) == nil {
		t.Error("test_function_name 3: no load-time error")
	}
}
