package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

// downProvider is a provider whose engine is down: Start always fails.
func downProvider() *fake.Provider {
	return fake.New(fake.Config{Before: func(context.Context, sandbox.Spec) error { return errors.New("engine down") }})
}

// unitServer serves the API over a manager whose provider cannot start
// sandboxes: everything but the session calls themselves.
func unitServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	if cfg.Manager == nil {
		m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": downProvider()}})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Manager = m
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), nil))
	}
	ts := httptest.NewServer(NewServer(cfg))
	t.Cleanup(ts.Close)
	return ts
}

// testClient bounds every call of a test, so that a hang fails the test
// instead of stalling it.
var testClient = &http.Client{Timeout: time.Minute}

type answer struct {
	status int
	header http.Header
	body   []byte
	err    api.ErrorBody // decoded when the body is the error envelope
}

func call(t *testing.T, base, method, path, token, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: b}
	_ = json.Unmarshal(b, &a.err)
	return a
}

// checkError checks that a is an error answer in the contract's shape:
// the status, a JSON body {"error":{"code","message"}} with exactly those
// members, and a message containing msg.
func checkError(t *testing.T, a answer, status int, code, msg string) {
	t.Helper()
	if a.status != status {
		t.Errorf("status %d, want %d (body %s)", a.status, status, a.body)
	}
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var shape map[string]map[string]any
	if err := json.Unmarshal(a.body, &shape); err != nil || len(shape) != 1 || len(shape["error"]) != 2 {
		t.Errorf("body %s is not {\"error\":{\"code\",\"message\"}}", a.body)
	}
	conform(t, "Error", a.body)
	if code != "" && a.err.Error.Code != code {
		t.Errorf("code %q, want %q (body %s)", a.err.Error.Code, code, a.body)
	}
	if a.err.Error.Message == "" || !strings.Contains(a.err.Error.Message, msg) {
		t.Errorf("message %q, want it to contain %q", a.err.Error.Message, msg)
	}
}

func TestAuth(t *testing.T) {
	ts := unitServer(t, Config{Token: "s3cret"})
	for _, tc := range []struct {
		name, method, path, header string
		status                     int
	}{
		{"healthz needs none", "GET", "/healthz", "", 200},
		{"no header", "GET", "/v1/sessions", "", 401},
		{"wrong token", "GET", "/v1/sessions", "Bearer nope", 401},
		{"token prefix", "GET", "/v1/sessions", "Bearer s3cre", 401},
		{"token longer", "GET", "/v1/sessions", "Bearer s3cret2", 401},
		{"basic scheme", "GET", "/v1/sessions", "Basic czNjcmV0", 401},
		{"bare token", "GET", "/v1/sessions", "s3cret", 401},
		{"right token", "GET", "/v1/sessions", "Bearer s3cret", 200},
		{"scheme is case-insensitive", "GET", "/v1/sessions", "bearer s3cret", 200},
		{"unknown route needs the token", "GET", "/v1/nothing", "", 401},
		{"tools need the token", "GET", "/v1/tools", "", 401},
		{"create needs the token", "POST", "/v1/sessions", "", 401},
		{"tool call needs the token", "POST", "/v1/sessions/x/tools/computer", "", 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader("{}"))
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, tc.status, b)
			}
			if tc.status == 401 {
				checkError(t, answer{status: resp.StatusCode, header: resp.Header, body: b, err: decodeErr(b)}, 401, api.CodeUnauthorized, "bearer token")
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			}
		})
	}
	// /mcp is behind the same token.
	mcp := unitServer(t, Config{Token: "s3cret", MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "mcp "+r.Method)
	})})
	if a := call(t, mcp.URL, "POST", "/mcp", "", "{}"); a.status != 401 {
		t.Errorf("/mcp without the token: %d", a.status)
	}
	if a := call(t, mcp.URL, "POST", "/mcp", "s3cret", "{}"); a.status != 200 || string(a.body) != "mcp POST" {
		t.Errorf("/mcp with the token: %d %s", a.status, a.body)
	}
	checkError(t, call(t, mcp.URL, "PUT", "/mcp", "s3cret", "{}"), 405, httpserve.CodeMethodNotAllowed, "PUT")

	// The client sends the token and classifies a refusal.
	if _, err := client.NewClient(ts.URL, "s3cret", nil).Sessions(t.Context()); err != nil {
		t.Errorf("client with the token: %v", err)
	}
	if _, err := client.NewClient(ts.URL, "", nil).Sessions(t.Context()); !errdefs.IsUnauthorized(err) {
		t.Errorf("client without the token: %v, want unauthorized", err)
	}
}

func decodeErr(b []byte) api.ErrorBody {
	var e api.ErrorBody
	_ = json.Unmarshal(b, &e)
	return e
}

func TestHealth(t *testing.T) {
	ts := unitServer(t, Config{})
	h, err := client.NewClient(ts.URL, "", nil).Health(t.Context())
	if err != nil || h.Status != "ok" || len(h.Providers) != 1 || h.Providers[0] != "local" {
		t.Errorf("health %+v %v", h, err)
	}
}

// TestErrorShapes: requests that go wrong before any sandbox is involved
// answer in the contract's shape with the right status, and the server
// keeps serving.
func TestErrorShapes(t *testing.T) {
	ts := unitServer(t, Config{MaxBodyBytes: 1024})
	big := `{"image":"` + strings.Repeat("x", 2000) + `"}`
	for _, tc := range []struct {
		method, path, body string
		status             int
		code, msg          string
	}{
		{"GET", "/v2/sessions", "", 404, api.CodeNotFound, "no route GET /v2/sessions"},
		{"GET", "/v1/nothing", "", 404, api.CodeNotFound, "no route"},
		{"GET", "/", "", 404, api.CodeNotFound, "no route"},
		{"GET", "/v1/sessions/nope", "", 404, api.CodeNotFound, `"nope"`},
		{"DELETE", "/v1/sessions/nope", "", 404, api.CodeNotFound, "nope"},
		{"GET", "/v1/sessions/nope/screenshot", "", 404, api.CodeNotFound, "nope"},
		{"POST", "/v1/sessions/nope/input", `{"actions":[]}`, 404, api.CodeNotFound, "nope"},
		{"POST", "/v1/sessions/nope/tools/computer", `{}`, 404, api.CodeNotFound, "nope"},
		{"PATCH", "/v1/sessions", "{}", 405, httpserve.CodeMethodNotAllowed, "PATCH not allowed"},
		{"PUT", "/v1/sessions/x/cursor", "", 405, httpserve.CodeMethodNotAllowed, "allowed: "},
		{"DELETE", "/healthz", "", 405, httpserve.CodeMethodNotAllowed, "DELETE"},
		{"POST", "/v1/sessions", ``, 400, api.CodeInvalidArgument, "body: empty"},
		{"POST", "/v1/sessions", `{"provider":`, 400, api.CodeInvalidArgument, "body: truncated JSON"},
		{"POST", "/v1/sessions", `{"provider":1}`, 400, api.CodeInvalidArgument, "provider: want a string, got number"},
		{"POST", "/v1/sessions", `{"colour":"red"}`, 400, api.CodeInvalidArgument, "colour: unknown field"},
		{"POST", "/v1/sessions", `{} {}`, 400, api.CodeInvalidArgument, "after the JSON value"},
		{"POST", "/v1/sessions", `[]`, 400, api.CodeInvalidArgument, "body"},
		{"POST", "/v1/sessions", big, 413, api.CodeTooLarge, "limit of 1024 bytes"},
		{"POST", "/v1/sessions", `{"provider":"k8s"}`, 400, api.CodeInvalidArgument, `provider: unknown provider "k8s"`},
		{"POST", "/v1/sessions", `{}`, 503, api.CodeUnavailable, "engine down"},
		{"GET", "/v1/tools?dialect=klingon", "", 400, api.CodeInvalidArgument, `dialect: unknown dialect "klingon"`},
		{"GET", "/v1/tools/no_such_tool", "", 404, api.CodeNotFound, `"no_such_tool"`},
		{"GET", "/v1/tools/computer?dialect=osworld", "", 404, api.CodeNotFound, "osworld has no tool"},
		{"GET", "/v1/tools/computer?dialect=klingon", "", 400, api.CodeInvalidArgument, "dialect"},
		{"GET", "/v1/tools/computer?format=yaml", "", 400, api.CodeInvalidArgument, "format"},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.body, func(t *testing.T) {
			checkError(t, call(t, ts.URL, tc.method, tc.path, "", tc.body), tc.status, tc.code, tc.msg)
		})
	}
	if a := call(t, ts.URL, "GET", "/v1/sessions", "", ""); a.status != 200 || string(a.body) != "{\"sessions\":[]}\n" {
		t.Errorf("after the errors: %d %s", a.status, a.body)
	}
	if a := call(t, ts.URL, "PATCH", "/v1/sessions", "", ""); !strings.Contains(a.header.Get("Allow"), "POST") {
		t.Errorf("405 Allow header %q", a.header.Get("Allow"))
	} else if strings.Contains(string(a.body), "  ") {
		t.Errorf("405 message with a double space: %s", a.body)
	}
	// HEAD is GET without the body, as net/http serves it.
	if a := call(t, ts.URL, "HEAD", "/healthz", "", ""); a.status != 200 || len(a.body) != 0 {
		t.Errorf("HEAD /healthz: %d %q", a.status, a.body)
	}
	if a := call(t, ts.URL, "HEAD", "/v1/sessions", "", ""); a.status != 200 || len(a.body) != 0 || a.header.Get("Content-Type") == "" {
		t.Errorf("HEAD /v1/sessions: %d %q %v", a.status, a.body, a.header)
	}
}

// TestPanicIs500: a bug in a handler (here: no Manager) answers 500 in
// the contract's shape with an id, keeps the panic's text out of the
// answer, logs it under that id, and the server keeps serving.
func TestPanicIs500(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), nil))
	e := newEcho(Config{Logger: log})
	ts := httptest.NewServer(e)
	t.Cleanup(ts.Close)
	for range 3 {
		a := call(t, ts.URL, "GET", "/v1/sessions", "", "")
		checkError(t, a, 500, api.CodeInternal, "internal error (id ")
		if strings.Contains(string(a.body), "nil pointer") {
			t.Errorf("the panic leaks into the answer: %s", a.body)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(a.err.Error.Message, "internal error (id "), ")")
		mu.Lock()
		l := logs.String()
		mu.Unlock()
		if !strings.Contains(l, "error_id="+id) || !strings.Contains(l, "nil pointer") {
			t.Errorf("log does not have the panic under id %s:\n%s", id, l)
		}
	}
	if a := call(t, ts.URL, "GET", "/v1/tools", "", ""); a.status != 200 {
		t.Errorf("after panics: %d %s", a.status, a.body)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestToolDefinitions(t *testing.T) {
	ts := unitServer(t, Config{Dialect: "osworld"})
	c := client.NewClient(ts.URL, "", nil)
	ctx := t.Context()

	def, err := c.Tools(ctx, "")
	if err != nil || def.Dialect != "osworld" {
		t.Fatalf("default dialect: %q %v", def.Dialect, err)
	}
	for _, dn := range []string{"anthropic", "anthropic_normalized", "openai", "hermes", "osworld", "sandbox"} {
		l, err := c.Tools(ctx, dn)
		if err != nil {
			t.Fatalf("%s: %v", dn, err)
		}
		if l.Dialect != dn || len(l.Tools) == 0 {
			t.Errorf("%s: %+v", dn, l)
		}
		for _, s := range l.Tools {
			if s.Name == "" || s.Description == "" || s.InputSchema == nil || s.InputSchema.Type != "object" {
				t.Errorf("%s: tool %+v lacks a name, description or object schema", dn, s)
			}
			full, err := c.ToolInfo(ctx, dn, s.Name)
			if err != nil || full.Name != s.Name || full.Description != s.Description {
				t.Errorf("%s/%s level 2: %+v %v", dn, s.Name, full.Name, err)
			}
		}
	}
	// Level 1 carries what an agent's tool list needs, and no more.
	a := call(t, ts.URL, "GET", "/v1/tools?dialect=anthropic", "", "")
	var raw struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(a.body, &raw); err != nil || len(raw.Tools) == 0 {
		t.Fatalf("%s %v", a.body, err)
	}
	for _, tl := range raw.Tools {
		for k := range tl {
			if k != "name" && k != "description" && k != "category" && k != "input_schema" {
				t.Errorf("level 1 has %q", k)
			}
		}
	}
	// Without a dialect, the default dialect wins, then any dialect.
	if d, err := c.ToolInfo(ctx, "", "desktop_mouse_click"); err != nil || d.Name != "desktop_mouse_click" {
		t.Errorf("osworld tool without dialect: %v", err)
	}
	if d, err := c.ToolInfo(ctx, "", "computer"); err != nil || d.Name != "computer" {
		t.Errorf("computer without dialect: %v", err)
	}
	if _, err := c.ToolInfo(ctx, "openai", "nope"); !errdefs.IsNotFound(err) {
		t.Errorf("unknown tool: %v", err)
	}
	md := call(t, ts.URL, "GET", "/v1/tools/desktop_mouse_click?format=markdown", "", "")
	if md.status != 200 || !strings.HasPrefix(md.header.Get("Content-Type"), "text/markdown") || !strings.HasPrefix(string(md.body), "# desktop_mouse_click") {
		t.Errorf("markdown: %d %q %.80s", md.status, md.header.Get("Content-Type"), md.body)
	}
}
