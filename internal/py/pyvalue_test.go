package py

import (
	"encoding/json"
	"math"
	"testing"
)

// The expected texts are what CPython 3 prints for the value json.loads
// gives (repr, and str, which is repr but for a string).
func TestReprAndStr(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		repr string
	}{
		{"string plain", "abc", "'abc'"},
		{"single quote", "it's", "\"it's\""},
		{"double quote", "say \"hi\"", "'say \"hi\"'"},
		{"both quotes", "it's \"x\"", "'it\\'s \"x\"'"},
		{"backslash", "C:\\dir\\f", "'C:\\\\dir\\\\f'"},
		{"newline tab cr", "a\nb\tc\rd", "'a\\nb\\tc\\rd'"},
		{"control", "\u0001\u007f", "'\\x01\\x7f'"},
		{"c1 control", "\u0085", "'\\x85'"},
		{"nbsp", "a\u00a0b", "'a\\xa0b'"},
		{"accents", "café", "'café'"},
		{"cjk emoji", "中文😀", "'中文😀'"},
		{"zero width space", "a\u200bb", "'a\\u200bb'"},
		{"line separator", "\u2028", "'\\u2028'"},
		{"empty", "", "''"},
		{"int", json.Number("42"), "42"},
		{"negative int", json.Number("-7"), "-7"},
		{"big int", json.Number("12345678901234567890"), "12345678901234567890"},
		{"float 0.1", json.Number("0.1"), "0.1"},
		{"float 1.0", json.Number("1.0"), "1.0"},
		{"float 1e16", json.Number("1e16"), "1e+16"},
		{"float 1e15", json.Number("1e15"), "1000000000000000.0"},
		{"float 1.5e-5", json.Number("1.5e-5"), "1.5e-05"},
		{"float 0.0001", json.Number("0.0001"), "0.0001"},
		{"float -0.0", json.Number("-0.0"), "-0.0"},
		{"float 1/3", 1.0 / 3, "0.3333333333333333"},
		{"float big", json.Number("123456789012345678.0"), "1.2345678901234568e+17"},
		{"float 2.5E3", json.Number("2.5E3"), "2500.0"},
		{"inf", math.Inf(1), "inf"},
		{"-inf", math.Inf(-1), "-inf"},
		{"nan", math.NaN(), "nan"},
		{"overflow 1e999", json.Number("1e999"), "inf"},
		{"true", true, "True"},
		{"false", false, "False"},
		{"none", nil, "None"},
		{"go int", 3, "3"},
		{"go float64", float64(2), "2.0"},
		{"list", []any{json.Number("1"), "a", nil, true, json.Number("2.50")}, "[1, 'a', None, True, 2.5]"},
		{"nested list", []any{[]any{}, []any{"it's"}}, "[[], [\"it's\"]]"},
		{"dict", map[string]any{"b": json.Number("1"), "a": []any{"x"}, "it's": false}, "{'a': ['x'], 'b': 1, \"it's\": False}"},
		{"empty dict", map[string]any{}, "{}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Repr(tt.v); got != tt.repr {
				t.Errorf("Repr(%#v) = %s, want %s", tt.v, got, tt.repr)
			}
			wantStr := tt.repr
			if s, ok := tt.v.(string); ok {
				wantStr = s
			}
			if got := Str(tt.v); got != wantStr {
				t.Errorf("Str(%#v) = %s, want %s", tt.v, got, wantStr)
			}
		})
	}
}

func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		v              any
		number, finite bool
		f              float64
	}{
		{json.Number("2.5"), true, true, 2.5},
		{json.Number("-3"), true, true, -3},
		{3, true, true, 3},
		{1.25, true, true, 1.25},
		{true, true, false, 1},
		{false, true, false, 0},
		{json.Number("1e999"), false, false, 0},
		{math.Inf(1), true, false, math.Inf(1)},
		{"1", false, false, 0},
		{nil, false, false, 0},
	} {
		f, ok := Number(tt.v)
		if ok != tt.number || ok && f != tt.f {
			t.Errorf("Number(%#v) = %v, %v; want %v, %v", tt.v, f, ok, tt.f, tt.number)
		}
		f, ok = Finite(tt.v)
		if ok != tt.finite || ok && f != tt.f {
			t.Errorf("Finite(%#v) = %v, %v; want %v, %v", tt.v, f, ok, tt.f, tt.finite)
		}
	}
	for v, want := range map[any]string{nil: "NoneType", true: "bool", "s": "str", json.Number("1"): "int", json.Number("1.0"): "float", json.Number("1e3"): "float", 2: "int", 2.0: "float"} {
		if got := Type(v); got != want {
			t.Errorf("Type(%#v) = %s, want %s", v, got, want)
		}
	}
	if Type([]any{}) != "list" || Type(map[string]any{}) != "dict" {
		t.Errorf("Type of a list, a dict = %s, %s", Type([]any{}), Type(map[string]any{}))
	}
}

// The accessibility tree writes numbers as Python's str() does.
func TestFloatAccessibility(t *testing.T) {
	for f, want := range map[float64]string{10: "10.0", 0: "0.0", 0.5: "0.5", 1e-5: "1e-05", 1e16: "1e+16", 1e6: "1000000.0", -2.25: "-2.25"} {
		if got := Float(f); got != want {
			t.Errorf("Float(%v) = %q, want %q", f, got, want)
		}
	}
}
