package py

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Number returns v as a float64 when it is a number or a bool (Python's
// bool is an int): json.Number, float64 or int.
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false
		}
		return f, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// Finite returns v as a float64 when it is a number, not a bool, with a
// finite value: what a tool argument that must be a number accepts.
func Finite(v any) (float64, bool) {
	if _, ok := v.(bool); ok {
		return 0, false
	}
	f, ok := Number(v)
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// IsInt reports whether a json.Number was written as an integer, which
// json.loads makes an int (else a float).
func IsInt(n json.Number) bool { return !strings.ContainsAny(string(n), ".eEnN") }

// Str is Python's str(v): a string is itself, anything else its [Repr].
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

// Repr is Python's repr(v). A dict's keys come sorted (Python keeps
// insertion order, which a decoded Go map has lost). A value outside the
// JSON data model prints as fmt.Sprint does.
func Repr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return quote(x)
	case json.Number:
		if IsInt(x) {
			return string(x)
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !math.IsInf(f, 0) {
			return string(x)
		}
		return formatFloat(f)
	case int:
		return strconv.Itoa(x)
	case float64:
		return formatFloat(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = Repr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = quote(k) + ": " + Repr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// Type names the Python type json.loads gives for v: NoneType, bool,
// str, int, float, list or dict.
func Type(v any) string {
	switch t := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case json.Number:
		if IsInt(t) {
			return "int"
		}
		return "float"
	case int:
		return "int"
	case float64:
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// Float is Python's repr(float(f)).
func Float(f float64) string { return formatFloat(f) }

// formatFloat formats f as Python's repr(float): the shortest round-trip
// digits, positional for exponents -4..15, scientific otherwise, and
// always with a decimal point or an exponent.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// quote quotes s as Python's repr(str) does: single quotes unless s has
// a single quote and no double one; backslashes, the quote, \n \r \t
// escaped; other characters Python does not print as \xhh, \uhhhh or
// \Uhhhhhhhh; bytes that are not UTF-8 as \xhh.
func quote(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		i += size
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
