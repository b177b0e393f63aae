package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rewriting is a client transport that lets a test change the next
// request it sends, so the SDK's own client can put on the wire what a
// careless or hostile client would.
type rewriting struct {
	sdk.Transport
	mu   sync.Mutex
	next func(*jsonrpc.Request)
}

func (t *rewriting) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rewritingConn{Connection: c, t: t}, nil
}

// rewrite makes f change the next request sent.
func (t *rewriting) rewrite(f func(*jsonrpc.Request)) {
	t.mu.Lock()
	t.next = f
	t.mu.Unlock()
}

type rewritingConn struct {
	sdk.Connection
	t *rewriting
}

func (c *rewritingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.t.mu.Lock()
		f := c.t.next
		c.t.next = nil
		c.t.mu.Unlock()
		if f != nil {
			f(r)
		}
	}
	return c.Connection.Write(ctx, m)
}

// TestErrorCodes: every JSON-RPC error /mcp answers carries the code
// JSON-RPC 2.0 defines for its cause, never 0, whatever the client sends:
// params of the wrong shape or types, an unknown tool or method, a bad
// cursor. An error the SDK answers at the HTTP level ends the call alone,
// not the connection. The requests are sent by the SDK's own client over streamable
// HTTP, changed on their way out.
func TestErrorCodes(t *testing.T) {
	m := manager(t)
	ts := httptest.NewServer(Handler(m, Options{Screen: api.Screen{Width: 640, Height: 480}}))
	defer ts.Close()
	tr := &rewriting{Transport: &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	params := func(raw string) func(*jsonrpc.Request) {
		return func(r *jsonrpc.Request) { r.Params = json.RawMessage(raw) }
	}
	callTool := func(ctx context.Context) error {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "cursor_position"})
		return err
	}
	for _, tc := range []struct {
		name    string
		rewrite func(*jsonrpc.Request)
		call    func(context.Context) error
		code    int64
	}{
		{"tools/call name a number", params(`{"name":5}`), callTool, jsonrpc.CodeInvalidParams},
		{"tools/call params a string", params(`"cursor_position"`), callTool, jsonrpc.CodeInvalidParams},
		{"tools/call params an array", params(`[1,2]`), callTool, jsonrpc.CodeInvalidParams},
		{"tools/call _meta a number", params(`{"name":"cursor_position","_meta":3}`), callTool, jsonrpc.CodeInvalidParams},
		{"tools/call unknown tool", nil, func(ctx context.Context) error {
			_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"})
			return err
		}, jsonrpc.CodeInvalidParams},
		{"tools/list bad cursor", nil, func(ctx context.Context) error {
			_, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: "%%% not a cursor"})
			return err
		}, jsonrpc.CodeInvalidParams},
		{"tools/list cursor a number", params(`{"cursor":7}`), func(ctx context.Context) error {
			_, err := cs.ListTools(ctx, nil)
			return err
		}, jsonrpc.CodeInvalidParams},
		{"unknown method", func(r *jsonrpc.Request) { r.Method = "deskrun/nothing" }, func(ctx context.Context) error {
			return cs.Ping(ctx, nil)
		}, jsonrpc.CodeMethodNotFound},
		{"a notification's method with an id", func(r *jsonrpc.Request) { r.Method = "notifications/initialized" }, func(ctx context.Context) error {
			return cs.Ping(ctx, nil)
		}, jsonrpc.CodeInvalidRequest},
		{"tools/call without params", func(r *jsonrpc.Request) { r.Params = nil }, callTool, jsonrpc.CodeInvalidRequest},
	} {
		tr.rewrite(tc.rewrite)
		err := tc.call(t.Context())
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			t.Errorf("%s: %v, want a JSON-RPC error", tc.name, err)
			continue
		}
		if we.Code != tc.code || we.Code > -32000 || we.Code < -32768 || we.Message == "" {
			t.Errorf("%s: code %d %q, want %d", tc.name, we.Code, we.Message, tc.code)
		}
	}
	// The connection still works after all of that.
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("tools/list after the errors: %v", err)
	}
}

// TestTooLargeBody: a body over the limit answers 413 with the code REST
// answers for it, too_large, naming the limit.
func TestTooLargeBody(t *testing.T) {
	m := manager(t)
	ts := httptest.NewServer(Handler(m, Options{Screen: api.Screen{Width: 640, Height: 480}}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 5<<20) + `"}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e api.ErrorBody
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &e)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || e.Error.Code != api.CodeTooLarge || !strings.Contains(e.Error.Message, "exceeds") {
		t.Errorf("%d %s, want 413 too_large naming the limit", resp.StatusCode, b)
	}
}
