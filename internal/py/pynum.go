package py

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// digitsWithUnderscores reports whether s is ASCII digits with single
// underscores between them, as Python's int() and float() allow.
func digitsWithUnderscores(s string) bool {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' {
			if s[i+1] == '_' {
				return false
			}
			continue
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseInt is Python's int(s) of a string: surrounding whitespace, a
// sign, decimal digits with single underscores between them.
func ParseInt(s string) (*big.Int, bool) {
	s = strings.TrimFunc(s, IsSpace)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || !digitsWithUnderscores(body) {
		return nil, false
	}
	n, ok := new(big.Int).SetString(strings.ReplaceAll(body, "_", ""), 10)
	if !ok {
		return nil, false
	}
	if strings.HasPrefix(s, "-") {
		n.Neg(n)
	}
	return n, true
}

// ParseFloat is Python's float(s) of a string: surrounding whitespace,
// decimal notation with underscores between digits, inf, infinity and
// nan in any case; out of range gives ±inf, as Python does.
func ParseFloat(s string) (float64, bool) {
	s = strings.TrimFunc(s, IsSpace)
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return 0, false
	}
	switch strings.ToLower(body) {
	case "inf", "infinity", "nan":
		f, _ := strconv.ParseFloat(s, 64)
		return f, true
	}
	// mantissa digits [. digits] [e [sign] digits], each run of digits
	// with underscores only between digits
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	ip, fp, hasDot := strings.Cut(mant, ".")
	if ip == "" && fp == "" {
		return 0, false
	}
	for _, part := range []string{ip, fp} {
		if part != "" && !digitsWithUnderscores(part) {
			return 0, false
		}
	}
	_ = hasDot
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if len(exp)-len(e) > 1 || !digitsWithUnderscores(e) {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return f, true
}
