package py

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// Regexp is a Python regular expression as task rules write them. Most
// compile with Go's RE2 (linear time); a pattern using what RE2 lacks
// (lookahead (?= (?!, lookbehind (?<= (?<!, backreferences) compiles with
// github.com/dlclark/regexp2, a backtracking engine with .NET/Python
// syntax, bounded by a match timeout.
type Regexp struct {
	src string
	re  *regexp.Regexp
	re2 *regexp2.Regexp
}

// pyRe2Timeout bounds one regexp2 match, so a pathological pattern in a
// task file cannot hang grading.
const pyRe2Timeout = 2 * time.Second

// Compile compiles pattern as Python's re would, with flags among
// "i", "m", "s".
func Compile(pattern, flags string) (*Regexp, error) {
	if re, err := CompileRE2(pattern, flags); err == nil {
		return &Regexp{src: pattern, re: re}, nil
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
	return &Regexp{src: pattern, re2: re2}, nil
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
func (p *Regexp) MatchString(s string) bool {
	if p.re != nil {
		return p.re.MatchString(s)
	}
	ok, err := p.re2.MatchString(s)
	return err == nil && ok
}

// MatchContext is [Regexp.MatchString] under ctx: it answers ctx's
// error once ctx is done, and a backtracking match gets no more time
// than ctx has left. Not for concurrent use on one Regexp.
func (p *Regexp) MatchContext(ctx context.Context, s string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if p.re != nil {
		return p.re.MatchString(s), nil
	}
	p.re2.MatchTimeout = pyRe2Timeout
	if dl, ok := ctx.Deadline(); ok {
		p.re2.MatchTimeout = max(time.Millisecond, min(pyRe2Timeout, time.Until(dl)))
	}
	ok, err := p.re2.MatchString(s)
	if err != nil && ctx.Err() != nil {
		return false, ctx.Err()
	}
	return err == nil && ok, nil
}

// String is the pattern as written.
func (p *Regexp) String() string { return p.src }

// CompileRE2 compiles a Python regular expression with Go's RE2, mapping
// the syntax that differs (\Z) and the flags (re.I, re.M, re.S). Python
// features RE2 lacks (lookarounds, backreferences) fail to compile.
func CompileRE2(pattern, flags string) (*regexp.Regexp, error) {
	p := strings.ReplaceAll(pattern, `\Z`, `\z`)
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	return re, nil
}
