package metric

import (
	"context"
	"fmt"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"github.com/deskrun/deskrun/internal/py"
	"github.com/deskrun/deskrun/runner/task/internal/atree"
)

func checkTreeRules(rules any) error {
	list, ok := rules.([]any)
	if !ok {
		return fmt.Errorf("want a list of rules, got %s", py.TypeName(rules))
	}
	for i, r := range list {
		m, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("[%d]: want an object, got %s", i, py.TypeName(r))
		}
		if x, ok := m["xpath"]; ok {
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("[%d].xpath: want a string, got %s", i, py.TypeName(x))
			}
			if _, err := xpath.CompileWithNS(s, atree.Namespaces); err != nil {
				return fmt.Errorf("[%d].xpath: %v", i, err)
			}
		} else if sel, ok := m["selectors"]; ok {
			l, ok := sel.([]any)
			if !ok {
				return fmt.Errorf("[%d].selectors: want a list of strings, got %s", i, py.TypeName(sel))
			}
			for j, s := range l {
				str, ok := s.(string)
				if !ok {
					return fmt.Errorf("[%d].selectors[%d]: want a string, got %s", i, j, py.TypeName(s))
				}
				if _, err := atree.CSSToXPath(str); err != nil {
					return fmt.Errorf("[%d].selectors[%d]: %v", i, j, err)
				}
			}
		} else {
			return fmt.Errorf("[%d]: xpath or selectors is required", i)
		}
	}
	return nil
}

// checkAccessibilityTree implements OSWorld's check_accessibility_tree
// (desktop_env/evaluators/metrics/general.py).
//
// checkAccessibilityTree scores the tree against rules: every rule must
// select at least one element; a rule with text scores its best element
// (exact equality, or fuzz.ratio/100 when exact is false); the score is
// the product.
func checkAccessibilityTree(_ context.Context, result, expected any, _ map[string]any) (float64, string, error) {
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
			if expr, err = atree.CSSToXPath(strings.Join(parts, ", ")); err != nil {
				return 0, "", fmt.Errorf("rule %d: %w", i, err)
			}
		} else {
			return 0, "", fmt.Errorf("rule %d: xpath or selectors is required", i)
		}
		els, err := atree.Query(root, expr)
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
				txt := atree.OwnText(el)
				s := 0.0
				if exact {
					if txt == want {
						s = 1
					}
				} else {
					s = py.FuzzRatio(want, txt) / 100
				}
				score = max(score, s)
			}
		}
		total *= score
	}
	return total, "", nil
}
