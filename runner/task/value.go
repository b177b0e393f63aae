package task

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deskrun/deskrun/runner/pyvalue"
)

// Values flowing through getters and metrics are the JSON data model:
// nil, bool, string, json.Number (which keeps whether the source wrote an
// integer or a float, as Python does), []any and map[string]any. The
// helpers below give them the Python semantics OSWorld's metrics rely on:
// equality (True == 1 == 1.0), str(), truthiness, "in" and ordering.

// number returns v as a float64 when it is a number or a bool (Python's
// bool is an int); see [pyvalue.Number].
func number(v any) (float64, bool) { return pyvalue.Number(v) }

// isInt reports whether a json.Number was written as an integer.
func isInt(n json.Number) bool { return pyvalue.IsInt(n) }

// intNumber makes a json.Number from an int.
func intNumber(i int) json.Number { return json.Number(strconv.Itoa(i)) }

// pyEqual is Python's == on JSON values.
func pyEqual(a, b any) bool {
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
			if !pyEqual(x[i], y[i]) {
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
			if !ok || !pyEqual(v, w) {
				return false
			}
		}
		return true
	}
	fa, ok := number(a)
	if !ok {
		return false
	}
	fb, ok := number(b)
	return ok && fa == fb
}

// pyTruthy is Python's bool(v).
func pyTruthy(v any) bool {
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
	f, ok := number(v)
	return ok && f != 0
}

// pyContains is Python's `item in container`. ok is false where Python
// raises a TypeError (e.g. a number in a string).
func pyContains(container, item any) (found, ok bool) {
	switch c := container.(type) {
	case string:
		s, isStr := item.(string)
		if !isStr {
			return false, false
		}
		return strings.Contains(c, s), true
	case []any:
		for _, e := range c {
			if pyEqual(e, item) {
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

// pyCompare orders a and b as Python's < does; ok is false where Python
// raises a TypeError.
func pyCompare(a, b any) (cmp int, ok bool) {
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
			if pyEqual(la[i], lb[i]) {
				continue
			}
			return pyCompare(la[i], lb[i])
		}
		return compareInts(len(la), len(lb)), true
	}
	fa, okA := number(a)
	fb, okB := number(b)
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

// pyStr is Python's str(v); see [pyvalue.Str].
func pyStr(v any) string { return pyvalue.Str(v) }

// reprFloat is Python's repr(float(f)); see [pyvalue.Float].
func reprFloat(f float64) string { return pyvalue.Float(f) }

// reprString is Python's repr(s); see [pyvalue.Repr].
func reprString(s string) string { return pyvalue.Repr(s) }

// pyRepr is Python's repr(v); see [pyvalue.Repr].
func pyRepr(v any) string { return pyvalue.Repr(v) }

// pyLower is Python's str.lower for the purposes of the metrics.
func pyLower(s string) string { return strings.ToLower(s) }

// pyStrip is Python's str.strip() with no arguments.
func pyStrip(s string) string { return strings.TrimFunc(s, isPySpace) }

// isPySpace reports whether Python's str.isspace holds for r.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pySplitLines is Python's str.splitlines() (no line ends kept).
func pySplitLines(s string) []string {
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

// universalNewlines turns \r\n and \r into \n, as Python's text-mode
// open() does on reading.
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// textLines splits text read in text mode into lines with their "\n", as
// iterating over a Python file object does.
func textLines(s string) []string {
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

// asString returns v when it is a string.
func asString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

// asInt returns v as an int when it is an integral number, or a string
// holding one (Python's int("3")).
func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		if isInt(x) {
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
