package task

// The accessibility family: the accessibility_tree and vm_terminal_output
// getters and the check_accessibility_tree metric, over OSWorld's XML of the
// desktop's accessibility tree (agentd's GET /v1/accessibility).
//
// XPath goes through github.com/antchfx/xmlquery and antchfx/xpath, the
// maintained pure-Go XML DOM and XPath 1.0 engine, with the namespace
// prefixes of OSWorld's XML. OSWorld's CSS selectors (type selectors,
// namespaced attribute selectors such as [attr|id=x], the =, *=, ^=, $=, ~=
// operators, and the descendant, child and sibling combinators) are turned
// into XPath here, as lxml's CSSSelector does, rather than matched by an
// HTML selector library, which knows no namespaced attributes.

import (
	"context"
	"fmt"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"github.com/deskrun/deskrun/api"
)

// AccessibilityReader is implemented by sandboxes that read the desktop's
// accessibility tree in OSWorld's XML (a runner session, agentd's client).
type AccessibilityReader interface {
	AccessibilityXML(ctx context.Context, app string) (string, error)
}

func init() {
	addGetters(map[string]getterSpec{
		"accessibility_tree": {checkAnyParams, (*run).accessibilityTree},
		"vm_terminal_output": {checkAnyParams, (*run).vmTerminalOutput},
	})
	addMetrics(map[string]metricSpec{
		"check_accessibility_tree": {fn: checkAccessibilityTree, needsExpected: true, checkRules: checkTreeRules},
	})
}

func checkAnyParams(fields) error { return nil }

func (r *run) treeXML(ctx context.Context) (string, error) {
	ar, ok := r.sb.(AccessibilityReader)
	if !ok {
		return "", fmt.Errorf("this sandbox does not read accessibility trees")
	}
	return ar.AccessibilityXML(ctx, "")
}

func (r *run) accessibilityTree(ctx context.Context, _ map[string]any) (any, error) {
	x, err := r.treeXML(ctx)
	if err != nil {
		return nil, fmt.Errorf("accessibility_tree: %w", err)
	}
	return x, nil
}

// vmTerminalOutput is the text of the focused terminal in the active
// window, right-trimmed; nil unless exactly one such terminal exists.
func (r *run) vmTerminalOutput(ctx context.Context, _ map[string]any) (any, error) {
	x, err := r.treeXML(ctx)
	if err != nil {
		return nil, fmt.Errorf("vm_terminal_output: %w", err)
	}
	out, err := TerminalOutput(x)
	if err != nil {
		return nil, fmt.Errorf("vm_terminal_output: %w", err)
	}
	if out == nil {
		return nil, nil
	}
	return *out, nil
}

// TerminalOutput is the text of the focused terminal in the active window
// of an accessibility tree in OSWorld's XML, right-trimmed, as OSWorld's
// /terminal route reads it; nil unless exactly one such terminal exists.
func TerminalOutput(treeXML string) (*string, error) {
	els, err := treeXPath(treeXML, `//application/frame[@st:active="true"]//terminal[@st:focused="true"]`)
	if err != nil {
		return nil, err
	}
	if len(els) != 1 {
		return nil, nil
	}
	out := strings.TrimRight(els[0].InnerText(), " \t\n\r\v\f")
	return &out, nil
}

// treeNS maps the prefixes of OSWorld's XML to their namespaces.
var treeNS = func() map[string]string {
	m := map[string]string{}
	for _, ns := range api.A11yNamespaces {
		m[ns.Prefix] = ns.URI
	}
	return m
}()

func treeXPath(doc, expr string) ([]*xmlquery.Node, error) {
	root, err := xmlquery.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parse the accessibility tree: %w", err)
	}
	return queryXPath(root, expr)
}

func queryXPath(root *xmlquery.Node, expr string) ([]*xmlquery.Node, error) {
	e, err := xpath.CompileWithNS(expr, treeNS)
	if err != nil {
		return nil, fmt.Errorf("xpath %q: %w", expr, err)
	}
	return xmlquery.QuerySelectorAll(root, e), nil
}

func checkTreeRules(rules any) error {
	list, ok := rules.([]any)
	if !ok {
		return fmt.Errorf("want a list of rules, got %s", typeName(rules))
	}
	for i, r := range list {
		m, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("[%d]: want an object, got %s", i, typeName(r))
		}
		if x, ok := m["xpath"]; ok {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("[%d].xpath: want a string, got %s", i, typeName(x))
			}
			if _, err := xpath.CompileWithNS(s, treeNS); err != nil {
				return fmt.Errorf("[%d].xpath: %v", i, err)
			}
		} else if sel, ok := m["selectors"]; ok {
			l, ok := sel.([]any)
			if !ok {
				return fmt.Errorf("[%d].selectors: want a list of strings, got %s", i, typeName(sel))
			}
			for j, s := range l {
				str, ok := s.(string)
				if !ok {
					return fmt.Errorf("[%d].selectors[%d]: want a string, got %s", i, j, typeName(s))
				}
				if _, err := cssToXPath(str); err != nil {
					return fmt.Errorf("[%d].selectors[%d]: %v", i, j, err)
				}
			}
		} else {
			return fmt.Errorf("[%d]: xpath or selectors is required", i)
		}
	}
	return nil
}

// checkAccessibilityTree scores the tree against rules: every rule must
// select at least one element; a rule with text scores its best element
// (exact equality, or fuzz.ratio/100 when exact is false); the score is
// the product.
func checkAccessibilityTree(_ metricEnv, result, expected any, _ map[string]any) (float64, string, error) {
	doc, ok := result.(string)
	if !ok {
		return 0, "no accessibility tree", nil
	}
	root, err := xmlquery.Parse(strings.NewReader(doc))
	if err != nil {
		return 0, "", fmt.Errorf("parse the accessibility tree: %w", err)
	}
	var rules []any
	switch e := expected.(type) {
	case []any:
		rules = e
	case map[string]any:
		rules, _ = e["rules"].([]any)
	}
	total := 1.0
	for i, r := range rules {
		m, _ := r.(map[string]any)
		var expr string
		if x, ok := m["xpath"].(string); ok {
			expr = x
		} else if sel, ok := m["selectors"].([]any); ok {
			var parts []string
			for _, s := range sel {
				str, _ := s.(string)
				parts = append(parts, str)
			}
			if expr, err = cssToXPath(strings.Join(parts, ", ")); err != nil {
				return 0, "", fmt.Errorf("rule %d: %w", i, err)
			}
		} else {
			return 0, "", fmt.Errorf("rule %d: xpath or selectors is required", i)
		}
		els, err := queryXPath(root, expr)
		if err != nil {
			return 0, "", fmt.Errorf("rule %d: %w", i, err)
		}
		if len(els) == 0 {
			return 0, fmt.Sprintf("rule %d selects no element", i), nil
		}
		score := 1.0
		if want, ok := m["text"].(string); ok {
			exact := true
			if e, ok := m["exact"].(bool); ok {
				exact = e
			}
			score = 0
			for _, el := range els {
				txt := ownText(el)
				s := 0.0
				if exact {
					if txt == want {
						s = 1
					}
				} else {
					s = fuzzRatio(want, txt) / 100
				}
				score = max(score, s)
			}
		}
		total *= score
	}
	return total, "", nil
}

// ownText is an element's text before its first child (lxml's .text).
func ownText(n *xmlquery.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == xmlquery.ElementNode {
			break
		}
		if c.Type == xmlquery.TextNode || c.Type == xmlquery.CharDataNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// cssToXPath turns a CSS selector group into an XPath expression over the
// tree, as lxml's CSSSelector: every match anywhere in the document.
func cssToXPath(sel string) (string, error) {
	groups, err := splitTop(sel, ',')
	if err != nil {
		return "", err
	}
	var out []string
	for _, g := range groups {
		x, err := cssOne(strings.TrimSpace(g))
		if err != nil {
			return "", err
		}
		out = append(out, x)
	}
	return strings.Join(out, " | "), nil
}

// splitTop splits s at sep outside brackets and quotes.
func splitTop(s string, sep byte) ([]string, error) {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if quote != 0 || depth != 0 {
		return nil, fmt.Errorf("selector %q: unbalanced quotes or brackets", s)
	}
	return append(out, s[start:]), nil
}

func cssOne(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("empty selector")
	}
	var b strings.Builder
	b.WriteString("descendant-or-self::")
	i := 0
	first := true
	for i < len(s) {
		// combinator
		if !first {
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			comb := byte(' ')
			if j < len(s) && strings.IndexByte(">~+", s[j]) >= 0 {
				comb = s[j]
				j++
				for j < len(s) && s[j] == ' ' {
					j++
				}
			}
			if j == i && comb == ' ' {
				return "", fmt.Errorf("selector %q: unexpected %q at %d", s, s[i], i)
			}
			i = j
			switch comb {
			case ' ':
				b.WriteString("/descendant::")
			case '>':
				b.WriteString("/")
			case '~':
				b.WriteString("/following-sibling::")
			case '+':
				b.WriteString("/following-sibling::*[1]/self::")
			}
		}
		first = false
		// type selector
		j := i
		for j < len(s) && (s[j] == '-' || s[j] == '_' || s[j] == '*' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		tag := s[i:j]
		if tag == "" {
			tag = "*"
		}
		b.WriteString(tag)
		i = j
		// attribute selectors
		for i < len(s) && s[i] == '[' {
			end := i + 1
			quote := byte(0)
			for ; end < len(s); end++ {
				c := s[end]
				if quote != 0 {
					if c == quote {
						quote = 0
					}
				} else if c == '"' || c == '\'' {
					quote = c
				} else if c == ']' {
					break
				}
			}
			if end >= len(s) {
				return "", fmt.Errorf("selector %q: unclosed [", s)
			}
			cond, err := cssAttr(s[i+1 : end])
			if err != nil {
				return "", fmt.Errorf("selector %q: %w", s, err)
			}
			b.WriteString("[" + cond + "]")
			i = end + 1
		}
		if i < len(s) && s[i] != ' ' && s[i] != '>' && s[i] != '~' && s[i] != '+' {
			return "", fmt.Errorf("selector %q: unsupported %q at %d", s, s[i], i)
		}
	}
	return b.String(), nil
}

// cssAttr turns the inside of [...] into an XPath predicate.
func cssAttr(a string) (string, error) {
	ops := []string{"*=", "^=", "$=", "~=", "|=", "!=", "="}
	name, op, val := strings.TrimSpace(a), "", ""
	for k := 0; k < len(a); k++ {
		for _, o := range ops {
			if strings.HasPrefix(a[k:], o) {
				name, op, val = strings.TrimSpace(a[:k]), o, strings.TrimSpace(a[k+len(o):])
				goto found
			}
		}
	}
found:
	// ns|attr: the | of a namespace is not followed by =
	name = strings.Replace(name, "|", ":", 1)
	if name == "" || strings.ContainsAny(name, " \"'") {
		return "", fmt.Errorf("bad attribute selector [%s]", a)
	}
	if op == "" {
		return "@" + name, nil
	}
	if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
		val = val[1 : len(val)-1]
	}
	lit := xpathLiteral(val)
	at := "@" + name
	switch op {
	case "=":
		return at + " = " + lit, nil
	case "!=":
		return "not(" + at + ") or " + at + " != " + lit, nil
	case "*=":
		return fmt.Sprintf("%s and contains(%s, %s)", at, at, lit), nil
	case "^=":
		return fmt.Sprintf("%s and starts-with(%s, %s)", at, at, lit), nil
	case "$=":
		return fmt.Sprintf("%s and substring(%s, string-length(%s)-%d) = %s", at, at, at, len([]rune(val))-1, lit), nil
	case "~=":
		return fmt.Sprintf("%s and contains(concat(' ', normalize-space(%s), ' '), %s)", at, at, xpathLiteral(" "+val+" ")), nil
	case "|=":
		return fmt.Sprintf("%s and (%s = %s or starts-with(%s, %s))", at, at, lit, at, xpathLiteral(val+"-")), nil
	}
	return "", fmt.Errorf("bad attribute selector [%s]", a)
}

func xpathLiteral(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	parts := strings.Split(s, "'")
	return "concat('" + strings.Join(parts, `', "'", '`) + "')"
}
