package py

import (
	"math"
	"testing"
)

func TestParseInt(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // "" when Python's int() raises
	}{
		{"7", "7"}, {" 7 ", "7"}, {"+7", "7"}, {"-7", "-7"}, {"1_000", "1000"},
		{"9007199254740993", "9007199254740993"}, {"18446744073709551617", "18446744073709551617"},
		{"1__0", ""}, {"_1", ""}, {"1_", ""}, {"1.0", ""}, {"1e3", ""}, {"inf", ""}, {"", ""}, {"+-1", ""}, {"0x10", ""},
	} {
		got, ok := ParseInt(tt.in)
		switch {
		case tt.want == "" && ok:
			t.Errorf("ParseInt(%q) = %v, want an error", tt.in, got)
		case tt.want != "" && (!ok || got.String() != tt.want):
			t.Errorf("ParseInt(%q) = %v, %v, want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestParseFloat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true}, {" 1e3 ", 1000, true}, {"1_000.5", 1000.5, true}, {".5", 0.5, true}, {"1.", 1, true},
		{"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true}, {"1e400", math.Inf(1), true},
		{"1e", 0, false}, {"0x1p3", 0, false}, {"1_", 0, false}, {"", 0, false}, {"1.5.2", 0, false}, {"--1", 0, false},
	} {
		got, ok := ParseFloat(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseFloat(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := ParseFloat("nan"); !ok || !math.IsNaN(f) {
		t.Errorf("ParseFloat(nan) = %v, %v", f, ok)
	}
}
