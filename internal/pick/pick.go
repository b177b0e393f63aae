// Package pick chooses the element a person means by a name, the same way
// for every tool that acts on elements by name (the anthropic dialect's
// click_element and type_into_element, the options of hermes' set_value and
// agentd's set_value): an exact name before a name that starts with it
// before a name that contains it (case and runs of spaces ignored); among
// equal names, the element that can take the action (an entry for typing,
// something with a click or press action for clicking) before one that
// merely shows the words (static text, labels); and where that still
// leaves several, no guess: the candidates are listed.
package pick

import (
	"fmt"
	"slices"
	"strings"
)

// Verb is what will be done to the element chosen.
type Verb int

const (
	// Click presses or activates the element.
	Click Verb = iota
	// Type puts text into it.
	Type
	// Select picks it as an option (of a select, a list or a menu).
	Select
)

// Candidate is one element as the choice sees it.
type Candidate struct {
	Name    string
	Role    string   // AT-SPI role name ("push button", "entry")
	Actions []string // action names ("press", "click", "activate")
	States  []string // AT-SPI state names ("editable", "focusable")
}

// Match is how a name matches the words asked for: Exact, Prefix,
// Substring or None (in that order of preference).
type Match int

const (
	Exact Match = iota
	Prefix
	Substring
	None
)

func (m Match) String() string {
	return [...]string{"exact", "prefix", "substring", "none"}[m]
}

// Norm is a name as compared: lower case, spaces trimmed and runs of
// white space as one space.
func Norm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// MatchName says how name matches want (both as Norm leaves them); an
// empty want matches every name exactly.
func MatchName(name, want string) Match {
	name, want = Norm(name), Norm(want)
	switch {
	case name == want:
		return Exact
	case strings.HasPrefix(name, want):
		return Prefix
	case strings.Contains(name, want):
		return Substring
	}
	return None
}

// Fitness ranks how well an element can take the verb: 0 it is made for it,
// 1 it can, 2 it only shows the words (static text, labels, headings).
func Fitness(c Candidate, v Verb) int {
	role := strings.ToLower(c.Role)
	if wordsOnly[role] {
		return 2
	}
	switch v {
	case Type:
		if typeRoles[role] || slices.Contains(c.States, "editable") {
			return 0
		}
		if slices.Contains(c.States, "focusable") || len(c.Actions) > 0 {
			return 1
		}
		return 2
	case Select:
		if optionRoles[role] {
			return 0
		}
		return 1
	}
	for _, a := range c.Actions {
		if clickActions[strings.ToLower(a)] {
			return 0
		}
	}
	if clickRoles[role] {
		return 0
	}
	if len(c.Actions) > 0 || slices.Contains(c.States, "focusable") {
		return 1
	}
	return 2
}

// roles that show words and take no action of their own
var wordsOnly = map[string]bool{"static": true, "label": true, "heading": true, "paragraph": true,
	"caption": true, "description term": true, "description value": true, "section": true, "panel": true, "filler": true}

// roles made for text
var typeRoles = map[string]bool{"entry": true, "password text": true, "spin button": true, "combo box": true,
	"terminal": true, "editbar": true, "document text": true, "text": true}

// roles made for clicking, whatever actions they report
var clickRoles = map[string]bool{"push button": true, "toggle button": true, "check box": true, "radio button": true,
	"link": true, "menu item": true, "check menu item": true, "radio menu item": true, "page tab": true,
	"combo box": true, "push button menu": true, "tool bar item": true, "list item": true, "tree item": true, "icon": true}

// actions that are a click
var clickActions = map[string]bool{"click": true, "press": true, "activate": true, "jump": true, "toggle": true,
	"check": true, "uncheck": true, "open": true, "select": true, "switch": true, "expand or contract": true}

// roles of options
var optionRoles = map[string]bool{"menu item": true, "list item": true, "option": true, "check menu item": true,
	"radio menu item": true, "page tab": true, "table cell": true, "tree item": true}

// Result is the outcome of a choice: Index is the element chosen (-1 when
// none or when several tie), Tied the indexes of the candidates that tie
// for the best when there is no single one, Match how the chosen (or tied)
// names matched.
type Result struct {
	Index int
	Tied  []int
	Match Match
}

// Choose picks, among cands, the element named want for the verb. A
// candidate whose name does not contain want is never chosen.
func Choose(want string, v Verb, cands []Candidate) Result {
	best := Result{Index: -1, Match: None}
	bestFit := 3
	for i, c := range cands {
		m := MatchName(c.Name, want)
		if m == None {
			continue
		}
		f := Fitness(c, v)
		switch {
		case m < best.Match || m == best.Match && f < bestFit:
			best, bestFit = Result{Index: i, Tied: []int{i}, Match: m}, f
		case m == best.Match && f == bestFit:
			best.Tied = append(best.Tied, i)
		}
	}
	if len(best.Tied) > 1 {
		best.Index = -1
	} else {
		best.Tied = nil
	}
	return best
}

// Describe writes candidates for a message: `push button "Send" (id …)`,
// at most 10, then how many more.
func Describe(n int, at func(i int) string) string {
	var parts []string
	for i := range min(n, 10) {
		parts = append(parts, at(i))
	}
	s := strings.Join(parts, "; ")
	if n > 10 {
		s += fmt.Sprintf("; and %d more", n-10)
	}
	return s
}
