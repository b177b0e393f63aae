package metric

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deskrun/deskrun/internal/py"
)

// jv decodes a JSON literal into the value model.
func jv(t *testing.T, s string) any {
	t.Helper()
	v, err := py.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

// file writes content to a temporary file and returns its path.
func file(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type metricCase struct {
	name     string
	result   any
	expected any
	opts     map[string]any
	want     float64
}

func runMetricCases(t *testing.T, metric string, cases []metricCase) {
	t.Helper()
	spec := metricTable[metric]
	for _, tt := range cases {
		t.Run(metric+"/"+tt.name, func(t *testing.T) {
			opts := tt.opts
			if opts == nil {
				opts = map[string]any{}
			}
			got, detail, err := spec.Fn(t.Context(), tt.result, tt.expected, opts)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if d := got - tt.want; d > 1e-9 || d < -1e-9 {
				t.Errorf("score = %v (%s), want %v", got, detail, tt.want)
			}
			if got == 0 && detail == "" {
				t.Errorf("score %v without a detail", got)
			}
		})
	}
}

func TestExactMatch(t *testing.T) {
	runMetricCases(t, "exact_match", []metricCase{
		{"equal text", "File exists.\n", jv(t, `{"expected": "File exists.\n"}`), nil, 1},
		{"trailing newline matters", "File exists.", jv(t, `{"expected": "File exists.\n"}`), nil, 0},
		{"int equals float", jv(t, `1`), jv(t, `{"expected": 1.0}`), nil, 1},
		{"string is not a number", "1", jv(t, `{"expected": 1}`), nil, 0},
		{"none", nil, jv(t, `{"expected": null}`), nil, 1},
		{"objects", jv(t, `{"a": [1, "b"]}`), jv(t, `{"expected": {"a": [1, "b"]}}`), nil, 1},
	})
}

func TestMatchInList(t *testing.T) {
	runMetricCases(t, "match_in_list", []metricCase{
		{"member", "b", jv(t, `{"expected": ["a", "b"]}`), nil, 1},
		{"not a member", "c", jv(t, `{"expected": ["a", "b"]}`), nil, 0},
		{"substring of a string", "ell", jv(t, `{"expected": "hello"}`), nil, 1},
		{"type error scores 0", nil, jv(t, `{"expected": "hello"}`), nil, 0},
	})
}

func TestIsInList(t *testing.T) {
	runMetricCases(t, "is_in_list", []metricCase{
		{"member", jv(t, `["a", "b"]`), jv(t, `{"expected": "b"}`), nil, 1},
		{"substring", "a b c", jv(t, `{"expected": "b c"}`), nil, 1},
		{"absent", jv(t, `["a"]`), jv(t, `{"expected": "b"}`), nil, 0},
		{"none result", nil, jv(t, `{"expected": "b"}`), nil, 0},
	})
}

func TestCheckIncludeExclude(t *testing.T) {
	runMetricCases(t, "check_include_exclude", []metricCase{
		{"all in, none out", "total 42 lines", jv(t, `{"include": ["42", "lines"], "exclude": ["error"]}`), nil, 1},
		{"missing include", "total 41", jv(t, `{"include": ["42"]}`), nil, 0},
		{"excluded present", "Error: boom", jv(t, `{"include": [], "exclude": ["Error:"]}`), nil, 0},
		{"no rules", "x", jv(t, `{}`), nil, 1},
		{"none result", nil, jv(t, `{"include": []}`), nil, 0},
		{"list result", jv(t, `["a", "b"]`), jv(t, `{"include": ["a"], "exclude": ["c"]}`), nil, 1},
	})
}

func TestLiteralMatch(t *testing.T) {
	runMetricCases(t, "literal_match", []metricCase{
		{"str", "abc", "abc", nil, 1},
		{"str differs", "abc", "ABC", nil, 0},
		{"ignore case", "abc", "ABC", map[string]any{"ignore_case": true}, 1},
		{"str of number", jv(t, `1`), "1", nil, 1},
		{"str of float keeps .0", jv(t, `1.0`), "1", nil, 0},
		{"str of None", nil, "None", nil, 1},
		{"list", jv(t, `["a", 1]`), jv(t, `["a", "1"]`), map[string]any{"type": "list"}, 1},
		{"list ignore case", jv(t, `["A"]`), jv(t, `["a"]`), map[string]any{"type": "list", "ignore_case": true}, 1},
		{"list lengths differ", jv(t, `["a"]`), jv(t, `["a", "b"]`), map[string]any{"type": "list"}, 0},
		{"list of a string", "a", jv(t, `["a"]`), map[string]any{"type": "list"}, 0},
	})
	if err := metricTable["literal_match"].CheckOptions(map[string]any{"type": "dict"}); err == nil {
		t.Error("literal_match type dict: no load-time error")
	}
}

func TestFuzzyMatch(t *testing.T) {
	runMetricCases(t, "fuzzy_match", []metricCase{
		{"identical", "hello", jv(t, `{"expected": "hello"}`), nil, 1},
		{"close", "13245", jv(t, `{"expected": "12345"}`), nil, 0.8},
		{"none", nil, jv(t, `{"expected": "x"}`), nil, 0},
		{"both empty", "", jv(t, `{"expected": ""}`), nil, 1},
	})
}

func TestDiffTextFile(t *testing.T) {
	runMetricCases(t, "diff_text_file", []metricCase{
		{"same", file(t, "a\nb\n"), file(t, "a\r\nb"), nil, 1},
		{"partial", file(t, "a\nb\nc\n"), file(t, "a\nc\n"), nil, 0.8},
		{"none", nil, file(t, "a"), nil, 0},
		{"missing file", "/nonexistent/x", file(t, "a"), nil, 0},
		{"both empty", file(t, ""), file(t, ""), nil, 1},
	})
}

func TestCompareTextFile(t *testing.T) {
	runMetricCases(t, "compare_text_file", []metricCase{
		{"equal", file(t, "Hello\n"), file(t, "Hello\n"), nil, 1},
		{"crlf is newline", file(t, "Hello\r\n"), file(t, "Hello\n"), nil, 1},
		{"blanks differ", file(t, "Hello  world\n"), file(t, "Hello world"), nil, 0},
		{"ignore blanks", file(t, "  Hello \t world\n\n"), file(t, "Hello world"), map[string]any{"ignore_blanks": true}, 1},
		{"case differs", file(t, "HELLO"), file(t, "hello"), nil, 0},
		{"ignore case", file(t, "HELLO"), file(t, "hello"), map[string]any{"ignore_case": true}, 1},
		{"empty path", "", file(t, "x"), nil, 0},
		{"none", nil, file(t, "x"), nil, 0},
	})
}

func TestCompareCSV(t *testing.T) {
	runMetricCases(t, "compare_csv", []metricCase{
		{"equal", file(t, "a,b\n1,2\n"), file(t, "a,b\n1,2"), nil, 1},
		{"spaces strict", file(t, "a,b \n"), file(t, "a,b"), nil, 0},
		{"spaces not strict", file(t, " a,b \n"), file(t, "a,b"), map[string]any{"strict": false}, 1},
		{"ignore case", file(t, "A,B"), file(t, "a,b"), map[string]any{"ignore_case": true}, 1},
		{"extra line", file(t, "a\nb"), file(t, "a"), nil, 0},
		{"none", nil, file(t, "a"), nil, 0},
	})
}

func TestCheckList(t *testing.T) {
	runMetricCases(t, "check_list", []metricCase{
		{"expect all", file(t, "apple pie\nbanana\n"), jv(t, `{"expect": ["^apple", "banana$"]}`), nil, 1},
		{"dollar before final newline", file(t, "x\nend\n"), jv(t, `{"expect": ["^end$"]}`), nil, 1},
		{"missing", file(t, "apple\n"), jv(t, `{"expect": ["cherry"]}`), nil, 0},
		{"unexpected", file(t, "apple\nrotten\n"), jv(t, `{"expect": ["apple"], "unexpect": ["rot"]}`), nil, 0},
		{"none", nil, jv(t, `{"expect": []}`), nil, 0},
		{"python \\Z", file(t, "abc"), jv(t, `{"expect": ["c\\Z"]}`), nil, 1},
		{"negative lookahead", file(t, "COMPANY.msf\nCOMPANY\n"), jv(t, `{"expect": ["\\bCOMPANY/?(?!\\.msf)"]}`), nil, 1},
		{"negative lookahead unmet", file(t, "COMPANY.msf\n"), jv(t, `{"expect": ["\\bCOMPANY/?(?!\\.msf)"]}`), nil, 0},
		{"lookbehind", file(t, "xy\n"), jv(t, `{"expect": ["(?<=x)y"]}`), nil, 1},
	})
	if err := checkListRules(jv(t, `{"expect": ["(x"]}`)); err == nil {
		t.Error("bad pattern: no load-time error")
	}
}

func TestCheckCSV(t *testing.T) {
	csvFile := file(t, "name,age\nann,30\nbob,41\n\n")
	runMetricCases(t, "check_csv", []metricCase{
		{"expected records", csvFile, jv(t, `{"expect": [{"name": "ann", "age": "30"}, {"name": "bob"}]}`), nil, 1},
		{"missing record", csvFile, jv(t, `{"expect": [{"name": "cid"}]}`), nil, 0},
		{"unexpected record", csvFile, jv(t, `{"expect": [], "unexpect": [{"age": "41"}]}`), nil, 0},
		{"numbers never equal text", csvFile, jv(t, `{"expect": [{"age": 30}]}`), nil, 0},
		{"unknown field", csvFile, jv(t, `{"expect": [{"city": "x"}]}`), nil, 0},
		{"none", nil, jv(t, `{}`), nil, 0},
	})
}

func TestCheckJSON(t *testing.T) {
	doc := file(t, `{"editor": {"fontSize": 14, "theme": "Dark+", "tabs": [2, 4]}, "files": "a,b"}`)
	yml := file(t, "editor:\n  fontSize: 14\n")
	runMetricCases(t, "check_json", []metricCase{
		{"eq", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "eq", "ref": 14}]}`), nil, 1},
		{"eq float", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "eq", "ref": 14.0}]}`), nil, 1},
		{"ne fails", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "ne", "ref": 14}]}`), nil, 0},
		{"re", doc, jv(t, `{"expect": [{"key": ["editor", "theme"], "method": "re", "ref": "^Dark"}]}`), nil, 1},
		{"re.I", doc, jv(t, `{"expect": [{"key": ["editor", "theme"], "method": "re.I", "ref": "dark"}]}`), nil, 1},
		{"ge", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "ge", "ref": 12}]}`), nil, 1},
		{"approx", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "approx:0.5", "ref": 14.3}]}`), nil, 1},
		{"range.te", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "range.te", "ref": [13, 14]}]}`), nil, 1},
		{"range.tt excludes", doc, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "range.tt", "ref": [13, 14]}]}`), nil, 0},
		{"list index", doc, jv(t, `{"expect": [{"key": ["editor", "tabs", -1], "method": "eq", "ref": 4}]}`), nil, 1},
		{"str_set_eq", doc, jv(t, `{"expect": [{"key": ["files"], "method": "str_set_eq", "ref": ["b", "a"]}]}`), nil, 1},
		{"str_list_eq order", doc, jv(t, `{"expect": [{"key": ["files"], "method": "str_list_eq", "ref": ["b", "a"]}]}`), nil, 0},
		{"missing key", doc, jv(t, `{"expect": [{"key": ["nope"], "method": "eq", "ref": 1}]}`), nil, 0},
		{"unexpect absent key is None", doc, jv(t, `{"unexpect": [{"key": ["nope"], "method": "eq", "ref": null}]}`), nil, 0},
		{"unexpect holds", doc, jv(t, `{"unexpect": [{"key": ["editor", "theme"], "method": "eq", "ref": "Light"}]}`), nil, 1},
		{"yaml", yml, jv(t, `{"expect": [{"key": ["editor", "fontSize"], "method": "eq", "ref": 14}]}`), map[string]any{"is_yaml": true}, 1},
		{"not json", file(t, "{"), jv(t, `{"expect": []}`), nil, 0},
		{"none", nil, jv(t, `{}`), nil, 0},
	})
	for _, bad := range []string{
		`{"expect": [{"key": ["a"], "method": "spreadsheet_range", "ref": 1}]}`,
		`{"expect": [{"key": ["a"], "method": "re.X", "ref": "a"}]}`,
		`{"expect": [{"key": "a", "method": "eq", "ref": 1}]}`,
		`{"expect": [{"key": ["a"], "method": "approx", "ref": 1}]}`,
	} {
		if err := checkJSONRules(jv(t, bad)); err == nil {
			t.Errorf("rules %s: no load-time error", bad)
		}
	}
}

func TestCheckDirectJSONObject(t *testing.T) {
	runMetricCases(t, "check_direct_json_object", []metricCase{
		{"keys equal", `{'start': 'SEA', 'n': 2}`, jv(t, `{"expected": {"start": "SEA"}}`), nil, 1},
		{"key differs", jv(t, `{"start": "NYC"}`), jv(t, `{"expected": {"start": "SEA"}}`), nil, 0},
		{"missing key is None", jv(t, `{}`), jv(t, `{"expected": {"x": null}}`), nil, 1},
		{"in result: substring", jv(t, `{"title": "The Big Sleep"}`), jv(t, `{"expected": {"title": "Big"}, "expect_in_result": true}`), nil, 1},
		{"in result: any of list", jv(t, `{"tags": ["a", "b"]}`), jv(t, `{"expected": {"tags": ["x", "b"]}, "expect_in_result": true}`), nil, 1},
		{"in result: none of list", jv(t, `{"tags": ["a"]}`), jv(t, `{"expected": {"tags": ["x"]}, "expect_in_result": true}`), nil, 0},
		{"in result: number unsupported", jv(t, `{"n": 1}`), jv(t, `{"expected": {"n": 1}, "expect_in_result": true}`), nil, 0},
		{"invalid json text", "not json", jv(t, `{"expected": {}}`), nil, 0},
		{"a list is not an object", jv(t, `[]`), jv(t, `{"expected": {"a": 1}}`), nil, 0},
		{"none", nil, jv(t, `{"expected": {}}`), nil, 0},
	})
}

func TestFileContains(t *testing.T) {
	runMetricCases(t, "file_contains", []metricCase{
		{"all present", file(t, "alpha beta"), jv(t, `{"expected": ["alpha", "beta"]}`), nil, 1},
		{"one missing", file(t, "alpha"), jv(t, `{"expected": ["alpha", "beta"]}`), nil, 0},
		{"missing file", "/nonexistent", jv(t, `{"expected": []}`), nil, 0},
		{"empty path", "", jv(t, `{"expected": []}`), nil, 0},
	})
}

func TestCheckLineNumber(t *testing.T) {
	report := file(t, "Linux 6.1\n10:00:01 AM all 1.0\n10:00:02 AM all 2.0\nAverage: all\n23:59:60 x\n")
	runMetricCases(t, "check_line_number", []metricCase{
		{"count", report, jv(t, `{"expected": 3}`), nil, 1},
		{"count as text", report, jv(t, `{"expected": "3"}`), nil, 1},
		{"wrong count", report, jv(t, `{"expected": 30}`), nil, 0},
		{"no file", "/nonexistent", jv(t, `{"expected": 0}`), nil, 0},
		{"none", nil, jv(t, `{"expected": 0}`), nil, 0},
	})
}

// TestReprTail: a missing include's detail shows the end of what was read
// (a terminal's last lines), cut at a character's start.
func TestReprTail(t *testing.T) {
	if got := reprTail("short", 300); got != "'short'" {
		t.Errorf("short: %q", got)
	}
	long := strings.Repeat("x", 400) + "é$ echo typed"
	got := reprTail(long, 20)
	if !strings.HasPrefix(got, "...") || !strings.HasSuffix(got, "é$ echo typed'") || !utf8.ValidString(got) {
		t.Errorf("long: %q", got)
	}
	if got := reprTail(strings.Repeat("é", 50), 7); !utf8.ValidString(got) {
		t.Errorf("cut inside a character: %q", got)
	}
}
