package py

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Values flowing through getters and metrics are the JSON data model:
// nil, bool, string, json.Number (which keeps whether the source wrote an
// integer or a float, as Python does), []any and map[string]any. The
// helpers below give them the Python semantics OSWorld's metrics rely on:
// equality (True == 1 == 1.0), str(), truthiness, "in" and ordering.

// IntNumber makes a json.Number from an int.
func IntNumber(i int) json.Number { return json.Number(strconv.Itoa(i)) }

// Equal is Python's == on JSON values.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	}
	fa, ok := Number(a)
	if !ok {
		return false
	}
	fb, ok := Number(b)
	return ok && fa == fb
}

// Truthy is Python's bool(v).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	f, ok := Number(v)
	return ok && f != 0
}

// Contains is Python's `item in container`. ok is false where Python
// raises a TypeError (e.g. a number in a string).
func Contains(container, item any) (found, ok bool) {
	switch c := container.(type) {
	case string:
		s, isStr := item.(string)
		if !isStr {
			return false, false
		}
		return strings.Contains(c, s), true
	case []any:
		for _, e := range c {
			if Equal(e, item) {
				return true, true
			}
		}
		return false, true
	case map[string]any:
		switch k := item.(type) {
		case string:
			_, found := c[k]
			return found, true
		case []any, map[string]any:
			return false, false // unhashable
		}
		return false, true
	}
	return false, false
}

// Compare orders a and b as Python's < does; ok is false where Python
// raises a TypeError.
func Compare(a, b any) (cmp int, ok bool) {
	if sa, isStr := a.(string); isStr {
		sb, isStr := b.(string)
		if !isStr {
			return 0, false
		}
		return strings.Compare(sa, sb), true
	}
	if la, isList := a.([]any); isList {
		lb, isList := b.([]any)
		if !isList {
			return 0, false
		}
		for i := 0; i < len(la) && i < len(lb); i++ {
			if Equal(la[i], lb[i]) {
				continue
			}
			return Compare(la[i], lb[i])
		}
		return compareInts(len(la), len(lb)), true
	}
	fa, okA := Number(a)
	fb, okB := Number(b)
	if !okA || !okB {
		return 0, false
	}
	switch {
	case fa < fb:
		return -1, true
	case fa > fb:
		return 1, true
	}
	return 0, true
}

func compareInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Lower is Python's str.lower. Go's strings.ToLower uses the simple
// case mapping, which differs from Python's in two ways: Python lowers
// U+0130 (İ) to "i" plus a combining dot, not to "i", and a capital
// sigma ending a word (after a cased letter, not before one, case-ignorable
// characters skipped) to the final sigma ς.
func Lower(s string) string {
	if !strings.ContainsRune(s, 'Σ') {
		return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == 'Σ' && finalSigma(rs, i):
			b.WriteRune('ς')
		case r == '\u0130':
			b.WriteString("i\u0307")
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

func cased(r rune) bool { return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) }

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', '\u00ad', '\u00b7', '\u0387', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027', '\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// Strip is Python's str.strip() with no arguments.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// IsSpace reports whether Python's str.isspace holds for r.
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// SplitLines is Python's str.splitlines() (no line ends kept).
func SplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		brk := 0
		switch r {
		case '\r':
			brk = 1
			if i+1 < len(s) && s[i+1] == '\n' {
				brk = 2
			}
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			brk = size
		}
		if brk == 0 {
			i += size
			continue
		}
		lines = append(lines, s[start:i])
		i += brk
		start = i
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// UniversalNewlines turns \r\n and \r into \n, as Python's text-mode
// open() does on reading.
func UniversalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// TextLines splits text read in text mode into lines with their "\n", as
// iterating over a Python file object does.
func TextLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// AsString returns v when it is a string.
func AsString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// AsInt returns v as an int when it is an integral number, or a string
// holding one (Python's int("3")).
func AsInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		if IsInt(x) {
			i, err := strconv.Atoi(string(x))
			return i, err == nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false
		}
		return int(f), true // int(3.7) == 3
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		return i, err == nil
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int:
		return x, true
	}
	return 0, false
}
