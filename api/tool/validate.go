package tool

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits of the specification.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 200
	MaxDetailLen      = 2000
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Validate checks d against the rules of the tool-definition
// specification and returns every violation, joined:
//
//   - name, description and input_schema are present;
//   - name is snake_case (a-z, 0-9, _), at most 64 characters;
//   - description is at most 200 characters and follows the template
//     "{what it does}. When you need to: (1) ..., (2) ...";
//   - detail is at most 2000 characters;
//   - input_schema is a valid schema of type object whose parameters each
//     have a type and a description, whose required names are
//     parameters, and whose defaults satisfy their parameter's schema;
//   - triggers, prerequisites and warnings are non-empty strings;
//   - every example has a scenario, params and an expected outcome, and
//     its params satisfy input_schema;
//   - related_tools have a snake_case name and a relation;
//   - workflow steps count 1, 2, ... and name an action and a tool.
//
// The specification's advice that optional parameters provide a default
// is not a rule here: many optional parameters mean something by being
// absent (an OSWorld click without x and y clicks where the pointer is),
// which no default value can say; defaults that are given must satisfy
// their schema.
//
// Each message starts with the tool's name.
func Validate(d Definition) error {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	switch {
	case d.Name == "":
		add("name: required")
	case len(d.Name) > MaxNameLen:
		add("name: %d characters, at most %d", len(d.Name), MaxNameLen)
	case !snakeCase.MatchString(d.Name):
		add("name: %q is not snake_case (lower-case letters, digits and single underscores)", d.Name)
	}

	switch n := utf8.RuneCountInString(d.Description); {
	case strings.TrimSpace(d.Description) == "":
		add("description: required")
	case n > MaxDescriptionLen:
		add("description: %d characters, at most %d", n, MaxDescriptionLen)
	case !strings.Contains(d.Description, "When you need to: (1)"):
		add("description: does not say when to use the tool (want \"... When you need to: (1) ..., (2) ...\")")
	}
	if n := utf8.RuneCountInString(d.Detail); n > MaxDetailLen {
		add("detail: %d characters, at most %d", n, MaxDetailLen)
	}

	if d.InputSchema == nil {
		add("input_schema: required")
	} else {
		if d.InputSchema.Type != "object" {
			add("input_schema: type is %q, want \"object\"", d.InputSchema.Type)
		}
		for _, e := range d.InputSchema.check("input_schema", false) {
			add("%s", e)
		}
	}

	for _, f := range []struct {
		name  string
		items []string
	}{{"triggers", d.Triggers}, {"prerequisites", d.Prerequisites}, {"warnings", d.Warnings}} {
		for i, s := range f.items {
			if strings.TrimSpace(s) == "" {
				add("%s[%d]: empty", f.name, i)
			}
		}
	}

	for i, ex := range d.Examples {
		if strings.TrimSpace(ex.Scenario) == "" {
			add("examples[%d].scenario: required", i)
		}
		if strings.TrimSpace(ex.Expected) == "" {
			add("examples[%d].expected: required", i)
		}
		if ex.Params == nil {
			add("examples[%d].params: required", i)
			continue
		}
		if d.InputSchema != nil {
			if err := d.InputSchema.Validate(ex.Params); err != nil {
				add("examples[%d].params: %v", i, err)
			}
		}
	}

	for i, r := range d.RelatedTools {
		if !snakeCase.MatchString(r.Name) {
			add("related_tools[%d].name: %q is not a tool name", i, r.Name)
		}
		if r.Name == d.Name {
			add("related_tools[%d].name: the tool itself", i)
		}
		if strings.TrimSpace(r.Relation) == "" {
			add("related_tools[%d].relation: required", i)
		}
	}

	if w := d.Workflow; w != nil {
		if strings.TrimSpace(w.Name) == "" {
			add("workflow.name: required")
		}
		if len(w.Steps) == 0 {
			add("workflow.steps: required")
		}
		for i, s := range w.Steps {
			if s.Step != i+1 {
				add("workflow.steps[%d].step: %d, want %d", i, s.Step, i+1)
			}
			if strings.TrimSpace(s.Action) == "" {
				add("workflow.steps[%d].action: required", i)
			}
			if s.Tool == "" && len(s.Tools) == 0 {
				add("workflow.steps[%d]: names no tool", i)
			}
		}
	}

	if len(errs) == 0 {
		return nil
	}
	name := d.Name
	if name == "" {
		name = "(unnamed tool)"
	}
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = fmt.Errorf("%s: %s", name, e)
	}
	return errors.Join(joined...)
}

// ValidateSet validates every definition (see [Validate]) and checks the
// set as a whole: names are unique, and related tools and workflow tools
// name tools of the set or of known (tools available alongside it, such
// as a companion dialect's); known may be nil.
func ValidateSet(defs []Definition, known map[string]bool) error {
	var errs []error
	names := map[string]bool{}
	for _, d := range defs {
		if names[d.Name] {
			errs = append(errs, fmt.Errorf("%s: defined twice", d.Name))
		}
		names[d.Name] = true
	}
	exists := func(n string) bool { return names[n] || known[n] }
	for _, d := range defs {
		if err := Validate(d); err != nil {
			errs = append(errs, err)
		}
		for i, r := range d.RelatedTools {
			if !exists(r.Name) {
				errs = append(errs, fmt.Errorf("%s: related_tools[%d]: no tool %q in the set", d.Name, i, r.Name))
			}
		}
		if d.Workflow != nil {
			for i, s := range d.Workflow.Steps {
				for _, t := range append([]string{s.Tool}, s.Tools...) {
					if t != "" && !exists(t) {
						errs = append(errs, fmt.Errorf("%s: workflow.steps[%d]: no tool %q in the set", d.Name, i, t))
					}
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Complete reports which of the recommended and optional fields d leaves
// empty: category, detail, triggers, prerequisites, examples, warnings and
// related_tools. Built-in tools fill them all; definitions from elsewhere
// need only pass [Validate].
func Complete(d Definition) error {
	var missing []string
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"category", d.Category == ""},
		{"detail", strings.TrimSpace(d.Detail) == ""},
		{"triggers", len(d.Triggers) == 0},
		{"prerequisites", len(d.Prerequisites) == 0},
		{"examples", len(d.Examples) == 0},
		{"warnings", len(d.Warnings) == 0},
		{"related_tools", len(d.RelatedTools) == 0},
	} {
		if f.empty {
			missing = append(missing, f.name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: no %s", d.Name, strings.Join(missing, ", "))
}
