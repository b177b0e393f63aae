package atree

import (
	"fmt"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"github.com/deskrun/deskrun/api"
)

// treeNS maps the prefixes of OSWorld's XML to their namespaces.
var Namespaces = func() map[string]string {
	m := map[string]string{}
	for _, ns := range api.A11yNamespaces {
		m[ns.Prefix] = ns.URI
	}
	return m
}()

func XPath(doc, expr string) ([]*xmlquery.Node, error) {
	root, err := xmlquery.Parse(strings.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parse the accessibility tree: %w", err)
	}
	return Query(root, expr)
}

func Query(root *xmlquery.Node, expr string) ([]*xmlquery.Node, error) {
	e, err := xpath.CompileWithNS(expr, Namespaces)
	if err != nil {
		return nil, fmt.Errorf("xpath %q: %w", expr, err)
	}
	return xmlquery.QuerySelectorAll(root, e), nil
}

// OwnText is an element's text before its first child (lxml's .text).
func OwnText(n *xmlquery.Node) string {
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

// CSSToXPath turns a CSS selector group into an XPath expression over the
// tree, as lxml's CSSSelector: every match anywhere in the document.
func CSSToXPath(sel string) (string, error) {
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
