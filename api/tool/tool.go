// Package tool defines built-in tool definitions in the OpenAkita format
// (name, description, input_schema, detail, triggers, prerequisites,
// examples, warnings, related_tools, workflow, category), their views for
// progressive disclosure (level 1: [Summary]; level 2: the whole
// [Definition] or its [Definition.Markdown]; level 3 is the call, done by
// package dialect), a validator implementing the rules of the
// specification, and a JSON Schema subset validator ([Schema.Validate])
// covering what the definitions use.
package tool

import (
	"fmt"
	"sort"
	"strings"
)

// Definition describes one tool. Name, Description and InputSchema are
// required; the rest is recommended or optional (see [Validate]).
type Definition struct {
	// Name is the tool's unique identifier in snake_case, at most 64
	// characters of a-z, 0-9 and _.
	Name string `json:"name"`
	// Category groups tools ("Desktop", "File System", ...).
	Category string `json:"category,omitempty"`
	// Description is the level-1 text: what the tool does and when to
	// use it, at most 200 characters.
	Description string `json:"description"`
	// Detail is the level-2 text in Markdown, at most 2000 characters.
	Detail string `json:"detail,omitempty"`
	// Triggers say when an agent should use the tool.
	Triggers []string `json:"triggers,omitempty"`
	// Prerequisites are conditions that must hold before a call.
	Prerequisites []string `json:"prerequisites,omitempty"`
	// Examples are typical calls; each one's Params must satisfy
	// InputSchema.
	Examples []Example `json:"examples,omitempty"`
	// Warnings are important caveats.
	Warnings []string `json:"warnings,omitempty"`
	// RelatedTools name tools that go with this one.
	RelatedTools []Related `json:"related_tools,omitempty"`
	// Workflow describes a multi-step procedure the tool is part of.
	Workflow *Workflow `json:"workflow,omitempty"`
	// InputSchema is the JSON Schema of the arguments; its type is
	// "object".
	InputSchema *Schema `json:"input_schema"`
}

// Example is one typical call of a tool.
type Example struct {
	Scenario string         `json:"scenario"`
	Params   map[string]any `json:"params"`
	Expected string         `json:"expected"`
}

// Related names a tool related to another and how.
type Related struct {
	Name     string `json:"name"`
	Relation string `json:"relation"`
}

// Workflow is a named sequence of steps using tools.
type Workflow struct {
	Name  string         `json:"name"`
	Steps []WorkflowStep `json:"steps"`
}

// WorkflowStep is one step of a [Workflow]; Step counts from 1.
type WorkflowStep struct {
	Step      int      `json:"step"`
	Action    string   `json:"action"`
	Tool      string   `json:"tool,omitempty"`
	Tools     []string `json:"tools,omitempty"`
	Condition string   `json:"condition,omitempty"`
}

// Summary is the level-1 view of a tool: what goes into a tool list or a
// system prompt.
type Summary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Category    string `json:"category,omitempty"`
}

// Summary returns the level-1 view of d.
func (d Definition) Summary() Summary {
	return Summary{Name: d.Name, Description: d.Description, Category: d.Category}
}

// Function is the shape function-calling APIs share (OpenAI "parameters",
// Anthropic "input_schema", MCP "inputSchema" hold the same schema).
type Function struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *Schema `json:"parameters"`
}

// Function returns d as a function declaration for an agent's tool list.
func (d Definition) Function() Function {
	return Function{Name: d.Name, Description: d.Description, Parameters: d.InputSchema}
}

// Markdown renders the level-2 view of d as text for a model: the
// description, detail, parameters, prerequisites, warnings, examples and
// related tools.
func (d Definition) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", d.Name, d.Description)
	if d.Category != "" {
		fmt.Fprintf(&b, "\nCategory: %s\n", d.Category)
	}
	if d.Detail != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(d.Detail))
	}
	if s := d.InputSchema; s != nil && len(s.Properties) > 0 {
		b.WriteString("\n## Parameters\n\n")
		req := map[string]bool{}
		for _, r := range s.Required {
			req[r] = true
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := s.Properties[n]
			opt := "optional"
			if req[n] {
				opt = "required"
			}
			fmt.Fprintf(&b, "- %s (%s, %s): %s\n", n, p.typeName(), opt, p.Description)
		}
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		for _, it := range items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	list("When to use", d.Triggers)
	list("Prerequisites", d.Prerequisites)
	list("Warnings", d.Warnings)
	if len(d.Examples) > 0 {
		b.WriteString("\n## Examples\n\n")
		for _, e := range d.Examples {
			fmt.Fprintf(&b, "- %s: `%s` -> %s\n", e.Scenario, compactJSON(e.Params), e.Expected)
		}
	}
	if len(d.RelatedTools) > 0 {
		b.WriteString("\n## Related tools\n\n")
		for _, r := range d.RelatedTools {
			fmt.Fprintf(&b, "- %s: %s\n", r.Name, r.Relation)
		}
	}
	return b.String()
}
