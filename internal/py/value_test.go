package py

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestPyEqual(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	tests := []struct {
		a, b any
		want bool
	}{
		{n("1"), n("1.0"), true},
		{true, n("1"), true}, // True == 1 in Python
		{false, n("0.0"), true},
		{"1", n("1"), false},
		{nil, nil, true},
		{nil, "", false},
		{[]any{"a", n("2")}, []any{"a", n("2.0")}, true},
		{[]any{"a"}, []any{"a", "b"}, false},
		{map[string]any{"k": n("1")}, map[string]any{"k": true}, true},
		{map[string]any{"k": "v"}, map[string]any{"k": "v", "x": nil}, false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPyStr(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{json.Number("1"), "1"},
		{json.Number("1.0"), "1.0"},
		{json.Number("1e16"), "1e+16"},
		{json.Number("0.00001"), "1e-05"},
		{json.Number("1e15"), "1000000000000000.0"},
		{json.Number("0.00025"), "0.00025"},
		{json.Number("123456789.123"), "123456789.123"},
		{nil, "None"},
		{true, "True"},
		{"text", "text"},
		// str(['a', 1, 2.0, None, True, {'k': "it's"}]) in Python 3.11
		{[]any{"a", json.Number("1"), json.Number("2.0"), nil, true, map[string]any{"k": "it's"}},
			`['a', 1, 2.0, None, True, {'k': "it's"}]`},
	}
	for _, tt := range tests {
		if got := Str(tt.v); got != tt.want {
			t.Errorf("Str(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestPyContains(t *testing.T) {
	tests := []struct {
		container, item any
		found, ok       bool
	}{
		{"hello world", "o w", true, true},
		{"hello", json.Number("1"), false, false},
		{[]any{"a", json.Number("1")}, json.Number("1.0"), true, true},
		{[]any{"a"}, "b", false, true},
		{map[string]any{"k": nil}, "k", true, true},
		{nil, "x", false, false},
	}
	for _, tt := range tests {
		found, ok := Contains(tt.container, tt.item)
		if found != tt.found || ok != tt.ok {
			t.Errorf("Contains(%#v, %#v) = %v, %v, want %v, %v", tt.container, tt.item, found, ok, tt.found, tt.ok)
		}
	}
}

func TestSplitLines(t *testing.T) {
	// "a\nb\r\nc\rd\x0be\x1cf\u2028g\n".splitlines() in Python
	got := SplitLines("a\nb\r\nc\rd\x0be\x1cf\u2028g\n")
	want := []string{"a", "b", "c", "d", "e", "f", "g"}
	if !slices.Equal(got, want) {
		t.Errorf("pySplitLines = %q, want %q", got, want)
	}
	if got := SplitLines(""); len(got) != 0 {
		t.Errorf("pySplitLines(\"\") = %q, want none", got)
	}
	if got := TextLines("a\nb"); !slices.Equal(got, []string{"a\n", "b"}) {
		t.Errorf("textLines = %q", got)
	}
}

func TestShlexSplit(t *testing.T) {
	// Expected values are Python 3.11's shlex.split.
	tests := []struct {
		in   string
		want []string
	}{
		{`'x y' z`, []string{"x y", "z"}},
		{`a\ b`, []string{"a b"}},
		{`"a\"b"`, []string{`a"b`}},
		{`python -c 'import pyautogui; pyautogui.click(1,2)'`, []string{"python", "-c", "import pyautogui; pyautogui.click(1,2)"}},
		{`a#b c`, []string{"a#b", "c"}},
		{`"a\nb"`, []string{`a\nb`}},
		{`x''y`, []string{"xy"}},
		{`"$HOME\$x"`, []string{`$HOME\$x`}},
		{"  ", nil},
	}
	for _, tt := range tests {
		got, err := ShlexSplit(tt.in)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ShlexSplit(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{`it's x`, `"open`, `end\`} {
		if _, err := ShlexSplit(bad); err == nil {
			t.Errorf("ShlexSplit(%q): no error", bad)
		}
	}
}

func TestSequenceRatio(t *testing.T) {
	mod := func(n, m int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('0' + i%m))
		}
		return out
	}
	// Expected values are Python 3.11's difflib.SequenceMatcher(a=, b=).ratio().
	tests := []struct {
		a, b []string
		want float64
	}{
		{[]string{"a", "b", "c"}, []string{"a", "c"}, 0.8},
		{[]string{"x", "x", "x", "x", "x"}, []string{"x", "x", "x"}, 0.75},
		{nil, nil, 1},
		{[]string{"a"}, nil, 0},
		{mod(300, 7), mod(250, 5), 0.01818181818181818}, // the popular-element heuristic at work
		{[]string{"one", "two", "three", "four"}, []string{"zero", "one", "three", "four", "five"}, 0.6666666666666666},
	}
	for _, tt := range tests {
		if got := SequenceRatio(tt.a, tt.b); got != tt.want {
			t.Errorf("SequenceRatio(%d lines, %d lines) = %v, want %v", len(tt.a), len(tt.b), got, tt.want)
		}
	}
}

func TestFuzzRatio(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 100},
		{"abc", "", 0},
		{"abc", "abc", 100},
		{"this is a test", "this is a test!", 100 * 28.0 / 29},
		{"13245", "12345", 80},
		{"grüße", "grüsse", 100 * 8.0 / 11},
	}
	for _, tt := range tests {
		if got := FuzzRatio(tt.a, tt.b); got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("fuzzRatio(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestUUID5(t *testing.T) {
	// str(uuid.uuid5(uuid.NAMESPACE_URL, "file:///tmp/a.txt")) in Python
	if got, want := UUID5URL("file:///tmp/a.txt"), "7b79b2d0-a169-5dc8-ad16-b7e8622bd94e"; got != want {
		t.Errorf("UUID5URL = %s, want %s", got, want)
	}
}

func TestDecodeYAMLBounds(t *testing.T) {
	deep := strings.Repeat("[", 3000) + strings.Repeat("]", 3000)
	deepAlias := "a: &a [1]\n"
	for i := range 1100 {
		deepAlias += fmt.Sprintf("b%d: &b%d [*%s]\n", i, i, map[bool]string{true: "a", false: fmt.Sprintf("b%d", i-1)}[i == 0])
	}
	for _, c := range []struct{ doc, want string }{
		{"a: &a [*a]\n", "alias *a refers to a value that holds it"},
		{"a: &a {b: [1, {c: *a}]}\n", "alias *a refers to a value that holds it"},
		{deep, "nested deeper than"},
		{deepAlias, "nested deeper than 1000 levels"},
		{"a: *nowhere\n", "unknown anchor"},
	} {
		_, err := DecodeYAML([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeYAML(%.40q) = %v, want %q", c.doc, err, c.want)
		}
	}
	v, err := DecodeYAML([]byte("a: &a [1, 2]\nb: *a\nc: [*a, *a]\n"))
	if err != nil || fmt.Sprint(v) != "map[a:[1 2] b:[1 2] c:[[1 2] [1 2]]]" {
		t.Errorf("aliases = %v, %v", v, err)
	}
}
