package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Schema is the subset of JSON Schema the tool definitions use: type,
// description, default, properties, required, additionalProperties, enum,
// items, minItems/maxItems, minimum/maximum and oneOf/anyOf.
type Schema struct {
	// Type is one of object, array, string, integer, number, boolean or
	// null; empty means any type (then OneOf or AnyOf usually constrain
	// the value).
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	Default     any    `json:"default,omitempty"`

	Properties map[string]*Schema `json:"properties,omitempty"`
	Required   []string           `json:"required,omitempty"`
	// AdditionalProperties false refuses properties not listed in
	// Properties; nil or true allows them.
	AdditionalProperties *bool `json:"additionalProperties,omitempty"`

	Enum []any `json:"enum,omitempty"`

	Items    *Schema `json:"items,omitempty"`
	MinItems *int    `json:"minItems,omitempty"`
	MaxItems *int    `json:"maxItems,omitempty"`

	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`

	OneOf []*Schema `json:"oneOf,omitempty"`
	AnyOf []*Schema `json:"anyOf,omitempty"`
}

// schemaTypes are the values Schema.Type may take.
var schemaTypes = []string{"object", "array", "string", "integer", "number", "boolean", "null"}

func (s *Schema) typeName() string {
	switch {
	case s.Type == "array" && s.Items != nil && s.Items.Type != "":
		return "array of " + s.Items.Type
	case s.Type != "":
		return s.Type
	case len(s.OneOf) > 0 || len(s.AnyOf) > 0:
		alts := append(append([]*Schema{}, s.OneOf...), s.AnyOf...)
		names := make([]string, len(alts))
		for i, a := range alts {
			names[i] = a.typeName()
		}
		return strings.Join(names, " or ")
	}
	return "any"
}

// ValidateJSON decodes data and validates it against s; see
// [Schema.Validate]. Malformed JSON is reported as such.
func (s *Schema) ValidateJSON(data []byte) error {
	v, err := DecodeValue(data)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// DecodeValue decodes one JSON value keeping numbers as [json.Number], so
// that integers and other numbers stay apart. Empty input decodes as an
// empty object (a call without arguments).
func DecodeValue(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments: malformed JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("arguments: unexpected data after the JSON value")
	}
	return v, nil
}

// Validate reports the first way v (a decoded JSON value: map[string]any,
// []any, string, bool, nil, or a number as json.Number, float64 or int)
// does not satisfy s. The error names the path of the value, as in
// `coordinate: want at most 2 items, got 3` or `actions[1].action: "jump"
// is not one of "key", "type"`.
func (s *Schema) Validate(v any) error {
	return s.validate("", v)
}

func (s *Schema) validate(path string, v any) error {
	if s == nil {
		return nil
	}
	name := path
	if name == "" {
		name = "arguments"
	}
	if s.Type != "" && !hasType(v, s.Type) {
		return fmt.Errorf("%s: want %s, got %s", name, article(s.Type), describe(v))
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return equal(e, v) }) {
		alts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			alts[i] = compactJSON(e)
		}
		return fmt.Errorf("%s: %s is not one of %s", name, compactJSON(v), strings.Join(alts, ", "))
	}
	if f, ok := number(v); ok {
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Errorf("%s: %s is below the minimum %s", name, compactJSON(v), fmtNum(*s.Minimum))
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Errorf("%s: %s is above the maximum %s", name, compactJSON(v), fmtNum(*s.Maximum))
		}
	}
	switch t := v.(type) {
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := t[r]; !ok {
				return fmt.Errorf("%s: required", join(path, r))
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties != nil && !*s.AdditionalProperties {
					return fmt.Errorf("%s: unknown parameter", join(path, k))
				}
				continue
			}
			if err := ps.validate(join(path, k), t[k]); err != nil {
				return err
			}
		}
	case []any:
		if s.MinItems != nil && len(t) < *s.MinItems {
			return fmt.Errorf("%s: want at least %d items, got %d", name, *s.MinItems, len(t))
		}
		if s.MaxItems != nil && len(t) > *s.MaxItems {
			return fmt.Errorf("%s: want at most %d items, got %d", name, *s.MaxItems, len(t))
		}
		for i, e := range t {
			if err := s.Items.validate(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
				return err
			}
		}
	}
	if len(s.OneOf) > 0 {
		matched := 0
		var first error
		for _, alt := range s.OneOf {
			if err := alt.validate(path, v); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			matched++
		}
		switch {
		case matched == 0 && len(s.OneOf) == 1:
			return first
		case matched == 0:
			return fmt.Errorf("%s: matches none of the %d allowed forms (first: %v)", name, len(s.OneOf), first)
		case matched > 1:
			return fmt.Errorf("%s: matches %d of the allowed forms, want exactly one", name, matched)
		}
	}
	if len(s.AnyOf) > 0 {
		var first error
		ok := false
		for _, alt := range s.AnyOf {
			err := alt.validate(path, v)
			if err == nil {
				ok = true
				break
			}
			if first == nil {
				first = err
			}
		}
		if !ok {
			if len(s.AnyOf) == 1 {
				return first
			}
			return fmt.Errorf("%s: matches none of the %d allowed forms (first: %v)", name, len(s.AnyOf), first)
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// hasType reports whether v is of JSON Schema type t. An integer is a
// number without a fractional part (1.0 included, as in JSON Schema).
func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	}
	return false
}

// number returns v as a float64 if it is a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil || isRangeErr(err)
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// equal compares two decoded JSON values; numbers compare by value.
func equal(a, b any) bool {
	fa, aok := number(a)
	fb, bok := number(b)
	if aok || bok {
		return aok && bok && fa == fb
	}
	switch x := a.(type) {
	case string, bool, nil:
		return a == b
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// describe names the JSON type of v for error messages.
func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	if f, ok := number(v); ok {
		if f == math.Trunc(f) {
			return "the integer " + compactJSON(v)
		}
		return "the number " + compactJSON(v)
	}
	return fmt.Sprintf("%T", v)
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// compactJSON renders v as compact JSON for messages.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// check reports problems with the schema itself: unknown types, required
// names without a property, enum values of the wrong type, minimum above
// maximum, array schemas without items. Properties (not the root) must
// have a type (or oneOf/anyOf) and a description.
func (s *Schema) check(path string, property bool) []string {
	var errs []string
	add := func(format string, args ...any) {
		errs = append(errs, path+": "+fmt.Sprintf(format, args...))
	}
	if s == nil {
		add("missing schema")
		return errs
	}
	if s.Type != "" && !slices.Contains(schemaTypes, s.Type) {
		add("unknown type %q", s.Type)
	}
	if property {
		if s.Type == "" && len(s.OneOf) == 0 && len(s.AnyOf) == 0 {
			add("no type")
		}
		if strings.TrimSpace(s.Description) == "" {
			add("no description")
		}
	}
	for _, e := range s.Enum {
		if s.Type != "" && !hasType(e, s.Type) {
			add("enum value %s is not of type %s", compactJSON(e), s.Type)
		}
	}
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		add("minimum %s above maximum %s", fmtNum(*s.Minimum), fmtNum(*s.Maximum))
	}
	if s.MinItems != nil && s.MaxItems != nil && *s.MinItems > *s.MaxItems {
		add("minItems %d above maxItems %d", *s.MinItems, *s.MaxItems)
	}
	if (s.MinItems != nil && *s.MinItems < 0) || (s.MaxItems != nil && *s.MaxItems < 0) {
		add("negative minItems or maxItems")
	}
	if s.Type == "array" && s.Items == nil {
		add("array without items")
	}
	if s.Items != nil {
		errs = append(errs, s.Items.check(path+"[]", false)...)
	}
	if s.Type != "" && s.Type != "object" && (len(s.Properties) > 0 || len(s.Required) > 0) {
		add("properties on a %s", s.Type)
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; !ok {
			add("required %q is not a property", r)
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		errs = append(errs, s.Properties[n].check(join(path, n), true)...)
	}
	for i, alt := range s.OneOf {
		errs = append(errs, alt.check(fmt.Sprintf("%s.oneOf[%d]", path, i), false)...)
	}
	for i, alt := range s.AnyOf {
		errs = append(errs, alt.check(fmt.Sprintf("%s.anyOf[%d]", path, i), false)...)
	}
	if s.Default != nil {
		if err := s.validate(path, s.Default); err != nil {
			add("default does not satisfy the schema: %v", err)
		}
	}
	return errs
}
