// Package client is the Go client of deskrun serve's host API (contract
// v1, package api): sessions, screenshots, input, exec, files, windows,
// tools and runs over HTTP with the bearer token. It imports only the
// contract, so a program driving deskrun links neither the server, the
// runner nor X11.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/coder/websocket"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// Client is a Go client of a deskrun server (the API of [NewServer]).
// An error the server answers is a *[api.RemoteError] that carries the
// errdefs class of its code, so errdefs.IsNotFound, errdefs.IsInvalidArgument
// and the like work on it. A Client is safe for concurrent use.
type Client struct {
	ep api.Endpoint
}

// NewClient returns a client of the server at baseURL, e.g.
// "http://127.0.0.1:8080". token, when not empty, is sent as a bearer
// token. hc nil means [http.DefaultClient]; calls are bounded by their
// context, as starting a sandbox or running a command can take minutes.
func NewClient(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{ep: api.Endpoint{Base: strings.TrimRight(baseURL, "/"), Token: token, Client: hc,
		Unreachable: "deskrun server unreachable", MaxAnswer: maxAnswer}}
}

// maxAnswer bounds the answers the client reads: a file of the largest
// size agentd serves, plus room.
const maxAnswer = api.MaxFileSize + 1<<20

// do sends a request through the shared core ([api.Endpoint.Do]): an
// error answer carries its class, a server that does not answer is of
// class errdefs.ErrUnavailable.
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, ctype string) (*http.Response, []byte, error) {
	return c.ep.Do(ctx, method, path, body, ctype)
}

// json sends in (if not nil) as JSON and decodes the answer into out (if
// not nil). On an error answer out is still filled when the body fits it,
// as an input report does.
func (c *Client) json(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	_, b, err := c.do(ctx, method, path, body, "application/json")
	if out != nil && len(b) > 0 {
		if jerr := json.Unmarshal(b, out); jerr != nil && err == nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, jerr)
		}
	}
	return err
}

func sessionPath(id, rest string) string { return "/v1/sessions/" + url.PathEscape(id) + rest }

// Health calls GET /healthz.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	err := c.json(ctx, http.MethodGet, "/healthz", nil, &h)
	return h, err
}

// CreateSession starts a sandbox and returns its session. Invalid fields
// are [errdefs.ErrInvalidArgument]; a provider that cannot start one is
// [errdefs.ErrUnavailable].
func (c *Client) CreateSession(ctx context.Context, r api.CreateSessionRequest) (api.Session, error) {
	var s api.Session
	err := c.json(ctx, http.MethodPost, "/v1/sessions", r, &s)
	return s, err
}

// Sessions lists the sessions by creation time.
func (c *Client) Sessions(ctx context.Context) ([]api.Session, error) {
	var l api.SessionList
	err := c.json(ctx, http.MethodGet, "/v1/sessions", nil, &l)
	return l.Sessions, err
}

// Session describes the session id; [errdefs.ErrNotFound] if there is none.
func (c *Client) Session(ctx context.Context, id string) (api.Session, error) {
	var s api.Session
	err := c.json(ctx, http.MethodGet, sessionPath(id, ""), nil, &s)
	return s, err
}

// DeleteSession stops the session's sandbox; [errdefs.ErrNotFound] if there
// is no such session.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	return c.json(ctx, http.MethodDelete, sessionPath(id, ""), nil, nil)
}

// ForkSession makes r.Count new sessions from the session's current
// state (POST /v1/sessions/{id}/fork); a provider that cannot snapshot
// answers an [errdefs.ErrNotImplemented] error naming the one that can.
func (c *Client) ForkSession(ctx context.Context, id string, r api.ForkRequest) (api.ForkResult, error) {
	var res api.ForkResult
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/fork"), r, &res)
	return res, err
}

// PauseSession saves the session to disk and stops its sandbox until
// [Client.ResumeSession] (POST /v1/sessions/{id}/pause).
func (c *Client) PauseSession(ctx context.Context, id string) (api.Session, error) {
	var s api.Session
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/pause"), nil, &s)
	return s, err
}

// ResumeSession restores a paused session as it was (POST
// /v1/sessions/{id}/resume).
func (c *Client) ResumeSession(ctx context.Context, id string) (api.Session, error) {
	var s api.Session
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/resume"), nil, &s)
	return s, err
}

// Screenshot captures the session's screen.
func (c *Client) Screenshot(ctx context.Context, id string, o api.ScreenshotOptions) (api.Screenshot, error) {
	path := sessionPath(id, "/screenshot")
	if q := o.Query().Encode(); q != "" {
		path += "?" + q
	}
	resp, b, err := c.do(ctx, http.MethodGet, path, nil, "")
	if err != nil {
		return api.Screenshot{}, err
	}
	return api.ParseScreenshot(resp.Header, b)
}

// Input runs core actions in order on the session. When an action fails
// the error is returned with the report of the actions run up to it.
func (c *Client) Input(ctx context.Context, id string, actions []api.Action) (api.InputResult, error) {
	var r api.InputResult
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/input"), api.InputRequest{Actions: actions}, &r)
	return r, err
}

// Cursor returns the session's pointer position.
func (c *Client) Cursor(ctx context.Context, id string) (api.Point, error) {
	var p api.Point
	err := c.json(ctx, http.MethodGet, sessionPath(id, "/cursor"), nil, &p)
	return p, err
}

// Exec runs a command in the session's sandbox. A command that runs and
// fails is not an error: its exit code is in the result.
func (c *Client) Exec(ctx context.Context, id string, r api.ExecRequest) (api.ExecResult, error) {
	var res api.ExecResult
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/exec"), r, &res)
	return res, err
}

// ReadFile reads a file of the session's sandbox; [errdefs.ErrNotFound] if
// it does not exist.
func (c *Client) ReadFile(ctx context.Context, id, path string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, sessionPath(id, "/files?path="+url.QueryEscape(path)), nil, "")
	return b, err
}

// WriteFile writes a file of the session's sandbox, creating its parent
// directories.
func (c *Client) WriteFile(ctx context.Context, id, path string, data []byte) error {
	_, _, err := c.do(ctx, http.MethodPut, sessionPath(id, "/files?path="+url.QueryEscape(path)), bytes.NewReader(data), "application/octet-stream")
	return err
}

// ReadClipboard returns the content of the session's X selection
// (api.SelectionClipboard or api.SelectionPrimary; "" is the clipboard)
// as typ (api.ClipboardText or api.ClipboardPNG; "" is text). Text nobody
// owns reads as empty; a selection holding no image answers
// errdefs.ErrNotFound for an image.
func (c *Client) ReadClipboard(ctx context.Context, id, selection, typ string) ([]byte, error) {
	q := url.Values{"selection": {selection}, "type": {typ}}
	_, b, err := c.do(ctx, http.MethodGet, sessionPath(id, "/clipboard?"+q.Encode()), nil, "")
	return b, err
}

// WriteClipboard makes the session's X selection hold data as typ (see
// [Client.ReadClipboard]).
func (c *Client) WriteClipboard(ctx context.Context, id, selection, typ string, data []byte) error {
	q := url.Values{"selection": {selection}, "type": {typ}}
	ct := "text/plain; charset=utf-8"
	if typ == api.ClipboardPNG {
		ct = api.ClipboardPNG
	}
	_, _, err := c.do(ctx, http.MethodPut, sessionPath(id, "/clipboard?"+q.Encode()), bytes.NewReader(data), ct)
	return err
}

// Windows lists the top-level windows of the session's desktop.
func (c *Client) Windows(ctx context.Context, id string) ([]api.Window, error) {
	var l api.WindowList
	err := c.json(ctx, http.MethodGet, sessionPath(id, "/windows"), nil, &l)
	return l.Windows, err
}

// ActivateWindow raises and focuses the window wid.
func (c *Client) ActivateWindow(ctx context.Context, id string, wid uint32) error {
	return c.json(ctx, http.MethodPost, sessionPath(id, "/windows/"+strconv.FormatUint(uint64(wid), 10)+"/activate"), nil, nil)
}

// CloseWindow asks the window wid to close.
func (c *Client) CloseWindow(ctx context.Context, id string, wid uint32) error {
	return c.json(ctx, http.MethodPost, sessionPath(id, "/windows/"+strconv.FormatUint(uint64(wid), 10)+"/close"), nil, nil)
}

// Window returns the window wid with its client area and state.
func (c *Client) Window(ctx context.Context, id string, wid uint32) (api.Window, error) {
	var w api.Window
	err := c.json(ctx, http.MethodGet, sessionPath(id, "/windows/"+strconv.FormatUint(uint64(wid), 10)), nil, &w)
	return w, err
}

// ChangeWindow runs one of [api.WindowActions] on the window wid; place
// is the body of move_resize and ignored otherwise.
func (c *Client) ChangeWindow(ctx context.Context, id string, wid uint32, action string, place api.WindowPlacement) error {
	var in any
	if action == api.WindowMoveResize {
		in = place
	}
	return c.json(ctx, http.MethodPost, sessionPath(id, "/windows/"+strconv.FormatUint(uint64(wid), 10)+"/"+url.PathEscape(action)), in, nil)
}

// Tools lists the tools of a dialect ("" for the server's default) at
// level 1: name, description and argument schema.
func (c *Client) Tools(ctx context.Context, dialectName string) (api.ToolList, error) {
	var l api.ToolList
	path := "/v1/tools"
	if dialectName != "" {
		path += "?dialect=" + url.QueryEscape(dialectName)
	}
	err := c.json(ctx, http.MethodGet, path, nil, &l)
	return l, err
}

// ToolInfo returns the whole definition (level 2) of the tool name of a
// dialect ("" searches the server's default dialect, then every one).
func (c *Client) ToolInfo(ctx context.Context, dialectName, name string) (tool.Definition, error) {
	var d tool.Definition
	path := "/v1/tools/" + url.PathEscape(name)
	if dialectName != "" {
		path += "?dialect=" + url.QueryEscape(dialectName)
	}
	err := c.json(ctx, http.MethodGet, path, nil, &d)
	return d, err
}

// CallTool calls the tool name of a dialect ("" for the session's) on the
// session with args, any value that encodes as a JSON object (nil means
// no arguments). Arguments the dialect refuses and actions the desktop
// refused come back as a Result with IsError set, not as an error.
func (c *Client) CallTool(ctx context.Context, id, dialectName, name string, args any) (api.ToolResult, error) {
	var r api.ToolResult
	path := sessionPath(id, "/tools/"+url.PathEscape(name))
	if dialectName != "" {
		path += "?dialect=" + url.QueryEscape(dialectName)
	}
	if args == nil {
		args = struct{}{}
	}
	err := c.json(ctx, http.MethodPost, path, args, &r)
	return r, err
}

func runPath(id, rest string) string { return "/v1/runs/" + url.PathEscape(id) + rest }

// StartRun starts a task suite run on the server (POST /v1/runs) and
// returns it, status running. A bad field, tasks that do not load and an
// unknown agent are [errdefs.ErrInvalidArgument] naming the field.
func (c *Client) StartRun(ctx context.Context, r api.CreateRunRequest) (api.Run, error) {
	var run api.Run
	err := c.json(ctx, http.MethodPost, "/v1/runs", r, &run)
	return run, err
}

// Runs lists the runs by creation time.
func (c *Client) Runs(ctx context.Context) ([]api.Run, error) {
	var l api.RunList
	err := c.json(ctx, http.MethodGet, "/v1/runs", nil, &l)
	return l.Runs, err
}

// Run describes the run id: its progress, and its summary once it has
// ended; [errdefs.ErrNotFound] if there is none.
func (c *Client) Run(ctx context.Context, id string) (api.Run, error) {
	var run api.Run
	err := c.json(ctx, http.MethodGet, runPath(id, ""), nil, &run)
	return run, err
}

// RunResults returns the run's results.jsonl as it stands: one JSON
// result per line (farm.Result), complete lines only.
func (c *Client) RunResults(ctx context.Context, id string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, runPath(id, "/results"), nil, "")
	return b, err
}

// RunReport returns the run's HTML report; [errdefs.ErrConflict] while
// the run is under way.
func (c *Client) RunReport(ctx context.Context, id string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, runPath(id, "/report"), nil, "")
	return b, err
}

// CancelRun deletes the run id (DELETE /v1/runs/{id}). A run under way is
// cancelled: CancelRun returns once its tasks have stopped and their
// sandboxes are gone, with the run's final state (status cancelled). A
// run that had ended is forgotten, its directory on the server removed,
// and the zero Run is returned.
func (c *Client) CancelRun(ctx context.Context, id string) (api.Run, error) {
	var run api.Run
	err := c.json(ctx, http.MethodDelete, runPath(id, ""), nil, &run)
	return run, err
}

// SessionTicket issues a ticket for a session's browser URLs (POST
// /v1/sessions/{id}/tickets): its view, vnc and recording with
// ?ticket=..., valid 60 seconds, spent on use.
func (c *Client) SessionTicket(ctx context.Context, id string) (api.Ticket, error) {
	var t api.Ticket
	err := c.json(ctx, http.MethodPost, sessionPath(id, "/tickets"), nil, &t)
	return t, err
}

// RunTicket issues a ticket for a run's browser URLs (POST
// /v1/runs/{id}/tickets): its report, results and files with
// ?ticket=..., valid 60 seconds, spent on first use, which answers the
// cookie the report's links then use.
func (c *Client) RunTicket(ctx context.Context, id string) (api.Ticket, error) {
	var t api.Ticket
	err := c.json(ctx, http.MethodPost, runPath(id, "/tickets"), nil, &t)
	return t, err
}

// Recording reads the video of a session created with "record": true
// (GET /v1/sessions/{id}/recording): the final file once the session
// ended, as far as written while it runs. A session without one is
// [errdefs.ErrNotFound].
func (c *Client) Recording(ctx context.Context, id string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, sessionPath(id, "/recording"), nil, "")
	return b, err
}

// DialVNC opens the live view of a session (GET /v1/sessions/{id}/vnc):
// a WebSocket of subprotocol "binary" carrying RFB (RFC 6143), as a
// byte stream. viewOnly drops the viewer's input. The stream ends when
// ctx does, when it is closed, or when the session ends. An unknown
// session is [errdefs.ErrNotFound].
func (c *Client) DialVNC(ctx context.Context, id string, viewOnly bool) (net.Conn, error) {
	path := sessionPath(id, "/vnc")
	if viewOnly {
		path += "?view_only=1"
	}
	h := http.Header{}
	if c.ep.Token != "" {
		h.Set("Authorization", "Bearer "+c.ep.Token)
	}
	u := "ws" + strings.TrimPrefix(c.ep.Base, "http") + path
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: c.ep.Client, HTTPHeader: h, Subprotocols: []string{"binary"}})
	if err != nil {
		if resp != nil && resp.StatusCode/100 != 1 {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			return nil, api.ErrorFromResponse(resp.StatusCode, b)
		}
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("deskrun server unreachable: GET %s: %v", path, err))
	}
	ws.SetReadLimit(-1)
	return websocket.NetConn(ctx, ws, websocket.MessageBinary), nil
}

// RunLive describes a run and the tasks it runs now (GET
// /v1/runs/{id}/live).
func (c *Client) RunLive(ctx context.Context, id string) (api.RunLive, error) {
	var l api.RunLive
	err := c.json(ctx, http.MethodGet, runPath(id, "/live"), nil, &l)
	return l, err
}
