package server

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/server/metrics"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/labstack/echo/v4"
	"gopkg.in/yaml.v3"
)

var openapiDoc = sync.OnceValues(func() (map[string]any, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(api.OpenAPI, &doc); err != nil {
		return nil, fmt.Errorf("parse openapi.yaml: %w", err)
	}
	return doc, nil
})

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	doc, err := openapiDoc()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// TestOpenAPIRoutes: the routes the server registers and the operations
// openapi.yaml documents are the same set.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	e := newEcho(Config{MCP: http.NotFoundHandler(), Runs: &farm.Runs{}, Metrics: metrics.New()})
	param := regexp.MustCompile(`:([a-z_]+)`)
	served := map[string]bool{}
	for _, r := range e.Routes() {
		if r.Method == echo.RouteNotFound {
			continue
		}
		path := strings.Replace(param.ReplaceAllString(r.Path, "{$1}"), "/*", "/{path}", 1)
		served[r.Method+" "+path] = true
	}
	documented := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		for m := range item.(map[string]any) {
			if slices.Contains(httpMethods, m) {
				documented[strings.ToUpper(m)+" "+path] = true
			}
		}
	}
	for r := range served {
		if !documented[r] {
			t.Errorf("%s is served but not in openapi.yaml", r)
		}
	}
	for r := range documented {
		if !served[r] {
			t.Errorf("%s is in openapi.yaml but not served", r)
		}
	}
	if len(served) < 25 {
		t.Errorf("only %d routes served", len(served))
	}
}

// TestOpenAPIDocument checks what a generator or a reader relies on: the
// version, unique operation ids, responses on every operation, path
// parameters declared, and every $ref resolving.
func TestOpenAPIDocument(t *testing.T) {
	doc := loadOpenAPI(t)
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi %q, want 3.1.x", v)
	}
	resolve := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			return lookupRef(t, doc, ref)
		}
		return m
	}
	ids := map[string]string{}
	for path, item := range doc["paths"].(map[string]any) {
		item := item.(map[string]any)
		for m, op := range item {
			if !slices.Contains(httpMethods, m) {
				continue
			}
			op := op.(map[string]any)
			where := strings.ToUpper(m) + " " + path
			id, _ := op["operationId"].(string)
			if id == "" {
				t.Errorf("%s has no operationId", where)
			} else if other, dup := ids[id]; dup {
				t.Errorf("%s and %s share operationId %s", where, other, id)
			}
			ids[id] = where
			if rs, _ := op["responses"].(map[string]any); len(rs) == 0 {
				t.Errorf("%s has no responses", where)
			}
			declared := map[string]bool{}
			for _, ps := range []any{item["parameters"], op["parameters"]} {
				list, _ := ps.([]any)
				for _, p := range list {
					p := resolve(p)
					if p["in"] == "path" {
						declared[p["name"].(string)] = true
					}
				}
			}
			for _, m := range regexp.MustCompile(`\{([a-z_]+)\}`).FindAllStringSubmatch(path, -1) {
				if !declared[m[1]] {
					t.Errorf("%s does not declare path parameter %s", where, m[1])
				}
			}
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				lookupRef(t, doc, ref)
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
}

func lookupRef(t *testing.T, doc map[string]any, ref string) map[string]any {
	t.Helper()
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := cur.(map[string]any)
		cur = m[part]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		t.Errorf("$ref %s does not resolve", ref)
	}
	return m
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonschema.Resolved{}
)

// schemaFor compiles components/schemas/<name> of openapi.yaml.
func schemaFor(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if rs, ok := schemaCache[name]; ok {
		return rs
	}
	doc := loadOpenAPI(t)
	defs, err := json.Marshal(doc["components"].(map[string]any)["schemas"])
	if err != nil {
		t.Fatal(err)
	}
	root := fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":%s,"$ref":"#/$defs/%s"}`,
		strings.ReplaceAll(string(defs), "#/components/schemas/", "#/$defs/"), name)
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(root), &s); err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve schema %s: %v", name, err)
	}
	schemaCache[name] = rs
	return rs
}

// conform checks that body, a JSON answer, is valid against the schema
// components/schemas/<name> of openapi.yaml.
func conform(t *testing.T, name string, body []byte) {
	t.Helper()
	rs := schemaFor(t, name)
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("answer is not JSON (%v): %.200s", err, body)
		return
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("answer does not conform to %s in openapi.yaml: %v\n%.500s", name, err, body)
	}
}

// TestOpenAPISchemas: answers that need no sandbox conform to the
// document; the session answers are checked in TestSession.
func TestOpenAPISchemas(t *testing.T) {
	ts := unitServer(t, Config{})
	conform(t, "Health", call(t, ts.URL, "GET", "/healthz", "", "").body)
	conform(t, "SessionList", call(t, ts.URL, "GET", "/v1/sessions", "", "").body)
	for _, dn := range []string{"anthropic", "anthropic_normalized", "hermes", "openai", "osworld", "sandbox"} {
		a := call(t, ts.URL, "GET", "/v1/tools?dialect="+dn, "", "")
		conform(t, "ToolList", a.body)
		var l api.ToolList
		if err := json.Unmarshal(a.body, &l); err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Tools {
			conform(t, "ToolDefinition", call(t, ts.URL, "GET", "/v1/tools/"+s.Name+"?dialect="+dn, "", "").body)
		}
	}
	// The schemas refuse what they should, so conforming means something.
	for _, tc := range []struct{ name, bad string }{
		{"Error", `{"error":{"code":"oops","message":"x"}}`},
		{"Error", `{"error":{"code":"internal"}}`},
		{"Session", `{"id":"a"}`},
		{"ToolResult", `{"content":[{"type":"video"}]}`},
		{"InputRequest", `{"actions":[{"type":"move","x":1}]}`},
		{"InputRequest", `{"actions":[{"type":"move","x":1,"y":2,"text":"a"}]}`},
		{"ExecRequest", `{"cmd":[]}`},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.bad), &v); err != nil {
			t.Fatal(err)
		}
		if err := schemaFor(t, tc.name).Validate(v); err == nil {
			t.Errorf("%s accepts %s", tc.name, tc.bad)
		}
	}
	for _, tc := range []struct{ name, good string }{
		{"InputRequest", `{"actions":[{"type":"move","x":1,"y":2},{"type":"key","keys":["ctrl","c"]},{"type":"drag","path":[[1,2],[3,4]]},{"type":"click"}]}`},
		{"CreateSessionRequest", `{"provider":"local","screen":{"width":1280,"height":800},"env":{"A":"b"},"network":true}`},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.good), &v); err != nil {
			t.Fatal(err)
		}
		if err := schemaFor(t, tc.name).Validate(v); err != nil {
			t.Errorf("%s refuses %s: %v", tc.name, tc.good, err)
		}
	}
}
