package task

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// pyRe is a Python regular expression as task rules write them. Most
// compile with Go's RE2 (linear time); a pattern using what RE2 lacks
// (lookahead (?= (?!, lookbehind (?<= (?<!, backreferences) compiles with
// github.com/dlclark/regexp2, a backtracking engine with .NET/Python
// syntax, bounded by a match timeout.
type pyRe struct {
	src string
	re  *regexp.Regexp
	re2 *regexp2.Regexp
}

// pyRe2Timeout bounds one regexp2 match, so a pathological pattern in a
// task file cannot hang grading.
const pyRe2Timeout = 2 * time.Second

// compilePyRe compiles pattern as Python's re would, with flags among
// "i", "m", "s".
func compilePyRe(pattern, flags string) (*pyRe, error) {
	if re, err := pyRegexp(pattern, flags); err == nil {
		return &pyRe{src: pattern, re: re}, nil
	} else if !needsBacktracking(pattern) {
		return nil, err
	}
	p := strings.ReplaceAll(pattern, `\Z`, `\z`)
	var opts regexp2.RegexOptions
	for _, f := range flags {
		switch f {
		case 'i':
			opts |= regexp2.IgnoreCase
		case 'm':
			opts |= regexp2.Multiline
		case 's':
			opts |= regexp2.Singleline
		}
	}
	re2, err := regexp2.Compile(p, opts)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	re2.MatchTimeout = pyRe2Timeout
	return &pyRe{src: pattern, re2: re2}, nil
}

// needsBacktracking reports whether pattern uses a construct RE2 refuses
// but Python accepts: a lookaround or a backreference.
func needsBacktracking(pattern string) bool {
	for _, s := range []string{"(?=", "(?!", "(?<=", "(?<!", "(?P=", `\1`, `\2`, `\3`} {
		if strings.Contains(pattern, s) {
			return true
		}
	}
	return false
}

// MatchString is re.search(pattern, s) is not None.
func (p *pyRe) MatchString(s string) bool {
	if p.re != nil {
		return p.re.MatchString(s)
	}
	ok, err := p.re2.MatchString(s)
	return err == nil && ok
}

// String is the pattern as written.
func (p *pyRe) String() string { return p.src }
