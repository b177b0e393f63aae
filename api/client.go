package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/tool"
)

// Client is a Go client of a deskrun server. Errors the server answers
// carry their errdefs class (errdefs.IsNotFound and so on).
type Client struct {
	base  string
	token string
	hc    *http.Client
}

// NewClient returns a client of the server at baseURL
// ("http://127.0.0.1:8080"); hc nil means http.DefaultClient.
func NewClient(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, hc: hc}
}

func (c *Client) do(ctx context.Context, method, path string, body io.Reader, ctype string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return resp, b, wire.ErrorFromResponse(resp.StatusCode, b)
	}
	return resp, b, nil
}

func (c *Client) json(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	_, b, err := c.do(ctx, method, path, body, "application/json")
	if err != nil {
		if out != nil && len(b) > 0 {
			_ = json.Unmarshal(b, out)
		}
		return err
	}
	if out != nil && len(b) > 0 {
		return json.Unmarshal(b, out)
	}
	return nil
}

func sp(id, rest string) string { return "/v1/sessions/" + url.PathEscape(id) + rest }

// CreateSession starts a session.
func (c *Client) CreateSession(ctx context.Context, r wire.CreateSessionRequest) (wire.Session, error) {
	var s wire.Session
	err := c.json(ctx, http.MethodPost, "/v1/sessions", r, &s)
	return s, err
}

// Sessions lists the sessions.
func (c *Client) Sessions(ctx context.Context) ([]wire.Session, error) {
	var l wire.SessionList
	err := c.json(ctx, http.MethodGet, "/v1/sessions", nil, &l)
	return l.Sessions, err
}

// Session describes one session.
func (c *Client) Session(ctx context.Context, id string) (wire.Session, error) {
	var s wire.Session
	err := c.json(ctx, http.MethodGet, sp(id, ""), nil, &s)
	return s, err
}

// DeleteSession stops a session's sandbox.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	return c.json(ctx, http.MethodDelete, sp(id, ""), nil, nil)
}

// Screenshot captures a session's screen.
func (c *Client) Screenshot(ctx context.Context, id string, o wire.ScreenshotOptions) (wire.Screenshot, error) {
	path := sp(id, "/screenshot")
	if q := o.Query().Encode(); q != "" {
		path += "?" + q
	}
	resp, b, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return wire.Screenshot{}, err
	}
	return agentd.ParseScreenshot(resp.Header, b)
}

// Input runs core actions on a session.
func (c *Client) Input(ctx context.Context, id string, actions []wire.Action) (wire.InputResult, error) {
	var r wire.InputResult
	err := c.json(ctx, http.MethodPost, sp(id, "/input"), wire.InputRequest{Actions: actions}, &r)
	return r, err
}

// Cursor returns a session's pointer position.
func (c *Client) Cursor(ctx context.Context, id string) (wire.Point, error) {
	var p wire.Point
	err := c.json(ctx, http.MethodGet, sp(id, "/cursor"), nil, &p)
	return p, err
}

// Exec runs a command in a session's sandbox.
func (c *Client) Exec(ctx context.Context, id string, r wire.ExecRequest) (wire.ExecResult, error) {
	var res wire.ExecResult
	err := c.json(ctx, http.MethodPost, sp(id, "/exec"), r, &res)
	return res, err
}

// ReadFile reads a file of a session's sandbox.
func (c *Client) ReadFile(ctx context.Context, id, path string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, sp(id, "/files?path="+url.QueryEscape(path)), nil, "")
	return b, err
}

// WriteFile writes a file of a session's sandbox.
func (c *Client) WriteFile(ctx context.Context, id, path string, data []byte) error {
	_, _, err := c.do(ctx, http.MethodPut, sp(id, "/files?path="+url.QueryEscape(path)), bytes.NewReader(data), "application/octet-stream")
	return err
}

// Tools lists the tool definitions of a dialect (level 1).
func (c *Client) Tools(ctx context.Context, dialectName string) (ToolList, error) {
	var l ToolList
	err := c.json(ctx, http.MethodGet, "/v1/tools?dialect="+url.QueryEscape(dialectName), nil, &l)
	return l, err
}

// ToolInfo returns a tool's full definition (level 2).
func (c *Client) ToolInfo(ctx context.Context, dialectName, name string) (tool.Definition, error) {
	var d tool.Definition
	path := "/v1/tools/" + url.PathEscape(name)
	if dialectName != "" {
		path += "?dialect=" + url.QueryEscape(dialectName)
	}
	err := c.json(ctx, http.MethodGet, path, nil, &d)
	return d, err
}

// CallTool calls a tool of a dialect ("" for the session's) on a session.
func (c *Client) CallTool(ctx context.Context, id, dialectName, name string, args any) (dialect.Result, error) {
	var r dialect.Result
	path := sp(id, "/tools/"+url.PathEscape(name))
	if dialectName != "" {
		path += "?dialect=" + url.QueryEscape(dialectName)
	}
	if args == nil {
		args = struct{}{}
	}
	err := c.json(ctx, http.MethodPost, path, args, &r)
	if err != nil {
		return r, fmt.Errorf("call %s: %w", name, err)
	}
	return r, nil
}
