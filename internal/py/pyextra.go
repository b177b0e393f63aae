package py

import (
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"
)

func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// DecodeJSON turns JSON into the JSON data model, numbers as
// json.Number.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("decode json: data after the top-level value")
	}
	return v, nil
}

// DecodeYAML turns YAML into the JSON data model, numbers as
// json.Number.
func DecodeYAML(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode yaml: %w", err)
	}
	if doc.Kind == 0 {
		return nil, errors.New("decode yaml: empty document")
	}
	d := yamlDecoder{active: map[*yaml.Node]bool{}}
	v, err := d.value(&doc, 0)
	if err != nil {
		return nil, fmt.Errorf("decode yaml: %w", err)
	}
	return v, nil
}

// A YAML document is bounded as it is turned into values: aliases are
// expanded (JSON has none), so a small file can stand for a huge or an
// infinite value ("a: &a [*a]", the "billion laughs"). The bounds are
// far above what a task needs and far below what hurts the host.
const (
	// yamlMaxDepth bounds nesting, aliases expanded included (Go's
	// encoding/json allows 10,000; the stack must survive it).
	yamlMaxDepth = 1000
	// yamlMaxValues bounds the values a document expands to: a 4 MB
	// task file without aliases holds fewer.
	yamlMaxValues = 1 << 20
)

type yamlDecoder struct {
	values int
	// active holds the anchors being expanded: one met again inside
	// itself is a cycle.
	active map[*yaml.Node]bool
}

func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// UUID5URL is Python's str(uuid.uuid5(uuid.NAMESPACE_URL, name)).
func UUID5URL(name string) string {
	ns := []byte{0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}
	h := sha1.Sum(append(ns, name...))
	u := h[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	x := fmt.Sprintf("%x", u)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

func SameSet(a, b []string) bool {
	set := func(x []string) []string {
		y := slices.Clone(x)
		slices.Sort(y)
		return slices.Compact(y)
	}
	return slices.Equal(set(a), set(b))
}

func Strings(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// Dict returns v when it is an object, else nil (which reads as empty).
func Dict(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// DictAt returns m[key] when it is an object (else nil, which reads as
// empty).
func DictAt(m map[string]any, key string) map[string]any {
	v, _ := m[key].(map[string]any)
	return v
}

// value converts a YAML node to the JSON data model, keeping ints and
// floats apart as JSON does.
func (d *yamlDecoder) value(n *yaml.Node, depth int) (any, error) {
	if depth > yamlMaxDepth {
		return nil, fmt.Errorf("line %d: nested deeper than %d levels (aliases expanded)", n.Line, yamlMaxDepth)
	}
	if d.values++; d.values > yamlMaxValues {
		return nil, fmt.Errorf("line %d: the document expands to more than %d values (aliases expanded)", n.Line, yamlMaxValues)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("line %d: alias *%s has no anchor", n.Line, n.Value)
		}
		if d.active[n.Alias] {
			return nil, fmt.Errorf("line %d: alias *%s refers to a value that holds it", n.Line, n.Value)
		}
		d.active[n.Alias] = true
		defer delete(d.active, n.Alias)
		return d.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := d.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: mapping keys must be scalars", k.Line)
			}
			if k.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: merge keys are not supported", k.Line)
			}
			v, err := d.value(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := out[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			return json.Number(strconv.FormatInt(i, 10)), nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %w", n.Line, err)
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s is not a JSON number", n.Line, n.Value)
			}
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if IsInt(json.Number(s)) {
				s += ".0"
			}
			return json.Number(s), nil
		case "!!str", "!!binary", "!!timestamp":
			return n.Value, nil
		}
		return nil, fmt.Errorf("line %d: unsupported tag %s", n.Line, n.Tag)
	}
	return nil, fmt.Errorf("line %d: unsupported yaml node", n.Line)
}
