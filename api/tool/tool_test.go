package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// navigate is the complete example of the specification, adapted to the
// description template.
func navigate() Definition {
	return Definition{
		Name:          "browser_navigate",
		Category:      "Browser",
		Description:   "Navigates the browser to a URL. When you need to: (1) Open a webpage, (2) Start web interaction.",
		Detail:        "Navigates to the URL.\n\n**Parameters**:\n- url: complete URL",
		Triggers:      []string{"When user asks to open a webpage"},
		Prerequisites: []string{"None - auto-starts browser if needed"},
		Warnings:      []string{"Must call before browser_click"},
		Examples: []Example{{
			Scenario: "open a search engine",
			Params:   map[string]any{"url": "https://www.google.com"},
			Expected: "Browser opens Google homepage",
		}},
		RelatedTools: []Related{{Name: "browser_click", Relation: "commonly used after"}},
		InputSchema: &Schema{
			Type:       "object",
			Properties: map[string]*Schema{"url": {Type: "string", Description: "the URL"}},
			Required:   []string{"url"},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Definition)
		want   string // substring of the error; empty means valid
	}{
		{"valid", func(*Definition) {}, ""},
		{"no name", func(d *Definition) { d.Name = "" }, "name: required"},
		{"camel case", func(d *Definition) { d.Name = "browserNavigate" }, "is not snake_case"},
		{"double underscore", func(d *Definition) { d.Name = "browser__navigate" }, "is not snake_case"},
		{"leading digit", func(d *Definition) { d.Name = "1browser" }, "is not snake_case"},
		{"long name", func(d *Definition) { d.Name = strings.Repeat("a", 65) }, "65 characters, at most 64"},
		{"no description", func(d *Definition) { d.Description = " " }, "description: required"},
		{"long description", func(d *Definition) { d.Description += strings.Repeat("x", 200) }, "at most 200"},
		{"no when", func(d *Definition) { d.Description = "Navigate to URL" }, "does not say when"},
		{"long detail", func(d *Definition) { d.Detail = strings.Repeat("é", 2001) }, "detail: 2001 characters"},
		{"no schema", func(d *Definition) { d.InputSchema = nil }, "input_schema: required"},
		{"schema not object", func(d *Definition) { d.InputSchema.Type = "string" }, `type is "string", want "object"`},
		{"param without type", func(d *Definition) { d.InputSchema.Properties["url"].Type = "" }, "input_schema.url: no type"},
		{"param without description", func(d *Definition) { d.InputSchema.Properties["url"].Description = "" }, "input_schema.url: no description"},
		{"unknown type", func(d *Definition) { d.InputSchema.Properties["url"].Type = "str" }, `unknown type "str"`},
		{"required not a property", func(d *Definition) { d.InputSchema.Required = []string{"uri"} }, `required "uri" is not a property`},
		{"bad default", func(d *Definition) {
			d.InputSchema.Properties["wait"] = &Schema{Type: "boolean", Description: "wait", Default: "yes"}
		}, "default does not satisfy"},
		{"enum of wrong type", func(d *Definition) {
			d.InputSchema.Properties["url"].Enum = []any{1.0}
		}, "enum value 1 is not of type string"},
		{"array without items", func(d *Definition) {
			d.InputSchema.Properties["l"] = &Schema{Type: "array", Description: "l"}
		}, "array without items"},
		{"example breaks schema", func(d *Definition) { d.Examples[0].Params = map[string]any{"url": 5.0} }, "examples[0].params: url: want a string, got the integer 5"},
		{"example misses required", func(d *Definition) { d.Examples[0].Params = map[string]any{} }, "examples[0].params: url: required"},
		{"example without scenario", func(d *Definition) { d.Examples[0].Scenario = "" }, "examples[0].scenario: required"},
		{"example without expected", func(d *Definition) { d.Examples[0].Expected = "" }, "examples[0].expected: required"},
		{"example without params", func(d *Definition) { d.Examples[0].Params = nil }, "examples[0].params: required"},
		{"empty trigger", func(d *Definition) { d.Triggers = []string{""} }, "triggers[0]: empty"},
		{"related without relation", func(d *Definition) { d.RelatedTools[0].Relation = "" }, "related_tools[0].relation: required"},
		{"related to itself", func(d *Definition) { d.RelatedTools[0].Name = d.Name }, "the tool itself"},
		{"workflow numbering", func(d *Definition) {
			d.Workflow = &Workflow{Name: "w", Steps: []WorkflowStep{{Step: 2, Action: "go", Tool: "browser_navigate"}}}
		}, "workflow.steps[0].step: 2, want 1"},
		{"workflow without tool", func(d *Definition) {
			d.Workflow = &Workflow{Name: "w", Steps: []WorkflowStep{{Step: 1, Action: "go"}}}
		}, "names no tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := navigate()
			tt.change(&d)
			err := Validate(d)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: got %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Validate: got nil, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Validate: got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestValidateSet(t *testing.T) {
	a := navigate()
	if err := ValidateSet([]Definition{a}, nil); err == nil || !strings.Contains(err.Error(), `no tool "browser_click"`) {
		t.Errorf("dangling related tool: got %v", err)
	}
	if err := ValidateSet([]Definition{a}, map[string]bool{"browser_click": true}); err != nil {
		t.Errorf("known related tool: got %v", err)
	}
	if err := ValidateSet([]Definition{a, a}, map[string]bool{"browser_click": true}); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("duplicate: got %v", err)
	}
}

func TestComplete(t *testing.T) {
	d := navigate()
	if err := Complete(d); err != nil {
		t.Errorf("Complete: %v", err)
	}
	d.Warnings, d.Category = nil, ""
	if err := Complete(d); err == nil || err.Error() != "browser_navigate: no category, warnings" {
		t.Errorf("Complete: got %v", err)
	}
}

func TestSchemaValidate(t *testing.T) {
	coord := &Schema{Type: "array", Items: &Schema{Type: "number"}, MinItems: ptr(2), MaxItems: ptr(2), Description: "xy"}
	s := &Schema{
		Type: "object",
		Properties: map[string]*Schema{
			"action":     {Type: "string", Enum: []any{"key", "type"}, Description: "a"},
			"coordinate": coord,
			"n":          {Type: "integer", Minimum: ptr(1.0), Maximum: ptr(3.0), Description: "n"},
			"flag":       {Type: "boolean", Description: "f"},
			"nothing":    {Type: "null", Description: "z"},
			"list": {Type: "array", Description: "l", Items: &Schema{
				Type:       "object",
				Properties: map[string]*Schema{"k": {Type: "string", Description: "k"}},
				Required:   []string{"k"},
			}},
			"either": {Description: "e", OneOf: []*Schema{{Type: "string"}, {Type: "integer"}}},
			"any":    {Description: "e", AnyOf: []*Schema{{Type: "string"}, {Type: "array", Items: &Schema{Type: "string"}}}},
		},
		Required:             []string{"action"},
		AdditionalProperties: ptr(false),
	}
	tests := []struct {
		in   string
		want string
	}{
		{`{"action":"key"}`, ""},
		{``, "action: required"},
		{`[]`, "arguments: want an object, got an array"},
		{`{"action":"jump"}`, `action: "jump" is not one of "key", "type"`},
		{`{"action":"key","extra":1}`, "extra: unknown parameter"},
		{`{"action":"key","coordinate":[1,2]}`, ""},
		{`{"action":"key","coordinate":[1.5,2e2]}`, ""},
		{`{"action":"key","coordinate":[1]}`, "coordinate: want at least 2 items, got 1"},
		{`{"action":"key","coordinate":[1,2,3]}`, "coordinate: want at most 2 items, got 3"},
		{`{"action":"key","coordinate":[1,"2"]}`, "coordinate[1]: want a number, got a string"},
		{`{"action":"key","coordinate":"1,2"}`, "coordinate: want an array, got a string"},
		{`{"action":"key","n":2}`, ""},
		{`{"action":"key","n":2.0}`, ""},
		{`{"action":"key","n":1.5}`, "n: want an integer, got the number 1.5"},
		{`{"action":"key","n":0}`, "n: 0 is below the minimum 1"},
		{`{"action":"key","n":4}`, "n: 4 is above the maximum 3"},
		{`{"action":"key","n":true}`, "n: want an integer, got a boolean"},
		{`{"action":"key","flag":null}`, "flag: want a boolean, got null"},
		{`{"action":"key","nothing":null}`, ""},
		{`{"action":"key","list":[{"k":"a"},{}]}`, "list[1].k: required"},
		{`{"action":"key","either":"a"}`, ""},
		{`{"action":"key","either":3}`, ""},
		{`{"action":"key","either":1.5}`, "either: matches none of the 2 allowed forms (first: either: want a string, got the number 1.5)"},
		{`{"action":"key","any":["a"]}`, ""},
		{`{"action":"key","any":[1]}`, "any: matches none of the 2 allowed forms"},
		{`{"action":`, "arguments: malformed JSON"},
		{`{} {}`, "unexpected data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := s.ValidateJSON([]byte(tt.in))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestOneOfAmbiguous(t *testing.T) {
	s := &Schema{OneOf: []*Schema{{Type: "number"}, {Type: "integer"}}}
	if err := s.Validate(json.Number("2")); err == nil || !strings.Contains(err.Error(), "matches 2 of the allowed forms") {
		t.Errorf("got %v", err)
	}
}

func TestDefinitionJSON(t *testing.T) {
	d := navigate()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back Definition
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := Validate(back); err != nil {
		t.Errorf("round trip: %v", err)
	}
	for _, want := range []string{`"input_schema":{"type":"object"`, `"related_tools":[{"name":"browser_click"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
	if s := d.Summary(); s.Name != d.Name || s.Description != d.Description || s.Category != "Browser" {
		t.Errorf("Summary: got %+v", s)
	}
	md := d.Markdown()
	for _, want := range []string{"# browser_navigate", "- url (string, required): the URL", "## Examples", `{"url":"https://www.google.com"}`, "browser_click: commonly used after"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func FuzzSchemaValidate(f *testing.F) {
	s := &Schema{
		Type: "object",
		Properties: map[string]*Schema{
			"a": {Type: "array", Items: &Schema{Type: "integer", Minimum: ptr(0.0)}, MaxItems: ptr(3)},
			"o": {OneOf: []*Schema{{Type: "string", Enum: []any{"x"}}, {Type: "object"}}},
		},
		Required: []string{"a"},
	}
	f.Add([]byte(`{"a":[1,2]}`))
	f.Add([]byte(`{"a":[1e400],"o":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = s.ValidateJSON(data)
	})
}
