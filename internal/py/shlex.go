package py

import (
	"errors"
	"strings"
)

// ShlexSplit splits s into words as Python's shlex.split does in POSIX
// mode: whitespace separates words, single quotes keep everything,
// double quotes keep everything but \ before \ and ", a
// backslash outside quotes escapes the next character. Comments are off,
// as in shlex.split, so # is an ordinary character.
func ShlexSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	const (
		plain = iota
		single
		double
	)
	state := plain
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case single:
			if c == '\'' {
				state = plain
				continue
			}
			cur.WriteByte(c)
		case double:
			switch c {
			case '"':
				state = plain
			case '\\':
				if i+1 < len(s) && strings.IndexByte(`\"`, s[i+1]) >= 0 {
					i++
					cur.WriteByte(s[i])
				} else {
					cur.WriteByte(c)
				}
			default:
				cur.WriteByte(c)
			}
		default:
			switch {
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				if inWord {
					words = append(words, cur.String())
					cur.Reset()
					inWord = false
				}
			case c == '\'':
				state, inWord = single, true
			case c == '"':
				state, inWord = double, true
			case c == '\\':
				if i+1 >= len(s) {
					return nil, errors.New("no escaped character")
				}
				i++
				cur.WriteByte(s[i])
				inWord = true
			default:
				cur.WriteByte(c)
				inWord = true
			}
		}
	}
	if state != plain {
		return nil, errors.New("no closing quotation")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
