// Package client is the Go client of agentd, the daemon inside every
// sandbox: what the host's providers and sessions call (health,
// screenshots, input, exec, files, windows, shells, clipboard, port tunnels). It imports
// only the contract (package api), so the host never links X11.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/coder/websocket"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
)

// Client talks to one agentd. It is safe for concurrent use.
type Client struct {
	// ep is where agentd answers and with which token; [Client.Rebind]
	// replaces it whole (a session resumed from a snapshot).
	ep atomic.Pointer[api.Endpoint]
}

// DefaultHTTPClient is used when NewClient is given none: keep-alive
// connections to many sandboxes, no overall timeout (calls carry their
// own contexts; exec may run long).
var DefaultHTTPClient = &http.Client{Transport: &http.Transport{
	DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConnsPerHost: 8,
	IdleConnTimeout:     90 * time.Second,
	DisableCompression:  true,
}}

// NewClient returns a client of the agentd at baseURL
// ("http://127.0.0.1:7000") using token; hc nil means DefaultHTTPClient.
func NewClient(baseURL, token string, hc *http.Client) *Client {
	if hc == nil {
		hc = DefaultHTTPClient
	}
	c := &Client{}
	c.ep.Store(&api.Endpoint{Base: strings.TrimRight(baseURL, "/"), Token: token, Client: hc,
		Name: "agentd", Unreachable: "sandbox unreachable", MaxAnswer: maxAnswer})
	return c
}

// Rebind points c at the agentd at baseURL with token from the next call
// on; calls under way finish where they started.
func (c *Client) Rebind(baseURL, token string) {
	ep := *c.ep.Load()
	ep.Base, ep.Token = strings.TrimRight(baseURL, "/"), token
	c.ep.Store(&ep)
}

// SetToken gives agentd a new token (POST /v1/token) and makes c use it:
// the token c held no longer opens agentd.
func (c *Client) SetToken(ctx context.Context, token string) error {
	if err := c.json(ctx, http.MethodPost, "/v1/token", api.TokenRequest{Token: token}, nil); err != nil {
		return err
	}
	c.Rebind(c.BaseURL(), token)
	return nil
}

// Token is the bearer token c sends.
func (c *Client) Token() string { return c.ep.Load().Token }

// BaseURL is the address of the agentd c talks to.
func (c *Client) BaseURL() string { return c.ep.Load().Base }

// Healthy asks baseURL/healthz once: nil when it answers 200, else the
// error of the request or one naming the status. hc nil means
// DefaultHTTPClient; its Timeout bounds the check.
func Healthy(ctx context.Context, baseURL string, hc *http.Client) error {
	if hc == nil {
		hc = DefaultHTTPClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/healthz", nil)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: healthz answered %s", resp.Status)
	}
	return nil
}

// DefaultHealthInterval is the pause between two checks of [WaitHealthy]
// when its interval is zero.
const DefaultHealthInterval = 25 * time.Millisecond

// WaitHealthy asks baseURL/healthz (see [Healthy]) every interval (zero
// means [DefaultHealthInterval]) until it answers 200 or ctx ends; then
// the error wraps ctx's and names the last check's failure. It is the
// one poller of agentd's health: providers wait for a starting sandbox
// with it.
func WaitHealthy(ctx context.Context, baseURL string, hc *http.Client, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultHealthInterval
	}
	for {
		last := Healthy(ctx, baseURL, hc)
		if last == nil {
			return nil
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("agentd at %s not healthy: %w (last: %w)", baseURL, ctx.Err(), last)
		case <-t.C:
		}
	}
}

// do sends a request through the shared core ([api.Endpoint.Do]): a
// non-2xx answer becomes an error carrying its errdefs class, an agentd
// that does not answer one of class errdefs.ErrUnavailable. out, when
// non-nil, receives the JSON body (also of an error answer, when it
// parses).
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, ctype string, out any) (*http.Response, []byte, error) {
	resp, b, err := c.ep.Load().Do(ctx, method, path, body, ctype)
	if err != nil {
		if out != nil && b != nil {
			_ = json.Unmarshal(b, out)
		}
		return resp, b, err
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp, b, fmt.Errorf("agentd %s %s: decode answer: %w", method, path, err)
		}
	}
	return resp, b, nil
}

// maxAnswer bounds the answers the client reads.
const maxAnswer = 256 << 20

func (c *Client) json(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	_, _, err := c.do(ctx, method, path, body, "application/json", out)
	return err
}

// Health returns agentd's health; an error when the X server is down.
func (c *Client) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	err := c.json(ctx, http.MethodGet, "/healthz", nil, &h)
	return h, err
}

// Screen returns the screen size.
func (c *Client) Screen(ctx context.Context) (api.Screen, error) {
	var s api.Screen
	err := c.json(ctx, http.MethodGet, "/v1/screen", nil, &s)
	return s, err
}

// EnvdMetrics reads envd's GET /metrics: what the sandbox has and uses.
func (c *Client) EnvdMetrics(ctx context.Context) (envdapi.Metrics, error) {
	var m envdapi.Metrics
	err := c.json(ctx, http.MethodGet, envdapi.MetricsPath, nil, &m)
	return m, err
}

// Cursor returns the pointer position.
func (c *Client) Cursor(ctx context.Context) (api.Point, error) {
	var p api.Point
	err := c.json(ctx, http.MethodGet, "/v1/cursor", nil, &p)
	return p, err
}

// Screenshot captures the screen.
func (c *Client) Screenshot(ctx context.Context, o api.ScreenshotOptions) (api.Screenshot, error) {
	path := "/v1/screenshot"
	if q := o.Query().Encode(); q != "" {
		path += "?" + q
	}
	resp, b, err := c.do(ctx, http.MethodGet, path, nil, "", nil)
	if err != nil {
		return api.Screenshot{}, err
	}
	return api.ParseScreenshot(resp.Header, b)
}

// Input runs core actions. When one fails the error carries its class and
// the result says which.
func (c *Client) Input(ctx context.Context, actions []api.Action) (api.InputResult, error) {
	var res api.InputResult
	err := c.json(ctx, http.MethodPost, "/v1/input", api.InputRequest{Actions: actions}, &res)
	return res, err
}

// Exec runs a command in the sandbox.
func (c *Client) Exec(ctx context.Context, r api.ExecRequest) (api.ExecResult, error) {
	var res api.ExecResult
	err := c.json(ctx, http.MethodPost, "/v1/exec", r, &res)
	return res, err
}

// Kill kills every process the commands of the sandbox left running,
// the desktop excepted.
func (c *Client) Kill(ctx context.Context) (api.KillResult, error) {
	var res api.KillResult
	err := c.json(ctx, http.MethodPost, "/v1/kill", nil, &res)
	return res, err
}

// ReadFile reads a file; a missing file is an errdefs not-found error.
func (c *Client) ReadFile(ctx context.Context, path string) ([]byte, error) {
	_, b, err := c.do(ctx, http.MethodGet, "/v1/files?path="+url.QueryEscape(path), nil, "", nil)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// WriteFile writes a file, creating its parent directories.
func (c *Client) WriteFile(ctx context.Context, path string, data []byte) error {
	_, _, err := c.do(ctx, http.MethodPut, "/v1/files?path="+url.QueryEscape(path), bytes.NewReader(data), "application/octet-stream", nil)
	return err
}

// Windows lists the top-level windows.
func (c *Client) Windows(ctx context.Context) ([]api.Window, error) {
	var l api.WindowList
	err := c.json(ctx, http.MethodGet, "/v1/windows", nil, &l)
	return l.Windows, err
}

// ActivateWindow raises and focuses a window.
func (c *Client) ActivateWindow(ctx context.Context, id uint32) error {
	return c.json(ctx, http.MethodPost, fmt.Sprintf("/v1/windows/%d/activate", id), nil, nil)
}

// CloseWindow asks a window to close.
func (c *Client) CloseWindow(ctx context.Context, id uint32) error {
	return c.json(ctx, http.MethodPost, fmt.Sprintf("/v1/windows/%d/close", id), nil, nil)
}

// Window returns one window with its client area and state.
func (c *Client) Window(ctx context.Context, id uint32) (api.Window, error) {
	var w api.Window
	err := c.json(ctx, http.MethodGet, fmt.Sprintf("/v1/windows/%d", id), nil, &w)
	return w, err
}

// ChangeWindow runs one of [api.WindowActions] on a window; place is the
// body of move_resize and ignored otherwise.
func (c *Client) ChangeWindow(ctx context.Context, id uint32, action string, place api.WindowPlacement) error {
	var in any
	if action == api.WindowMoveResize {
		in = place
	}
	return c.json(ctx, http.MethodPost, fmt.Sprintf("/v1/windows/%d/%s", id, url.PathEscape(action)), in, nil)
}

func shellPath(id, op string) string {
	p := "/v1/shells/" + url.PathEscape(id)
	if op != "" {
		p += "/" + op
	}
	return p
}

// ShellExec runs a command in the named shell session, creating it.
func (c *Client) ShellExec(ctx context.Context, id string, r api.ShellExecRequest) (api.Shell, error) {
	var s api.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "exec"), r, &s)
	return s, err
}

// ShellView returns a shell session's state and output.
func (c *Client) ShellView(ctx context.Context, id string) (api.Shell, error) {
	var s api.Shell
	err := c.json(ctx, http.MethodGet, shellPath(id, ""), nil, &s)
	return s, err
}

// ShellWait waits for the session's running command.
func (c *Client) ShellWait(ctx context.Context, id string, r api.ShellWaitRequest) (api.Shell, error) {
	var s api.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "wait"), r, &s)
	return s, err
}

// ShellWrite writes to the running command's standard input.
func (c *Client) ShellWrite(ctx context.Context, id string, r api.ShellWriteRequest) (api.Shell, error) {
	var s api.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "write"), r, &s)
	return s, err
}

// ShellKill kills the session's running command.
func (c *Client) ShellKill(ctx context.Context, id string) (api.Shell, error) {
	var s api.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "kill"), nil, &s)
	return s, err
}

// Clipboard returns the text of the desktop's CLIPBOARD selection ("" when
// nobody owns it).
func (c *Client) Clipboard(ctx context.Context) (string, error) {
	b, err := c.ReadClipboard(ctx, api.SelectionClipboard, api.ClipboardText)
	return string(b), err
}

// SetClipboard puts text on the desktop's CLIPBOARD selection (at most
// api.MaxClipboardText bytes of UTF-8).
func (c *Client) SetClipboard(ctx context.Context, text string) error {
	return c.WriteClipboard(ctx, api.SelectionClipboard, api.ClipboardText, []byte(text))
}

// ReadClipboard returns the content of an X selection (api.SelectionClipboard
// or api.SelectionPrimary; "" is the clipboard) as typ (api.ClipboardText,
// UTF-8, or api.ClipboardPNG; "" is text). A selection that holds no image
// answers [errdefs.ErrNotFound] for an image, and text nobody owns reads
// as empty.
func (c *Client) ReadClipboard(ctx context.Context, selection, typ string) ([]byte, error) {
	q := url.Values{}
	if selection != "" {
		q.Set("selection", selection)
	}
	if typ != "" {
		q.Set("type", typ)
	}
	_, b, err := c.do(ctx, http.MethodGet, "/v1/clipboard?"+q.Encode(), nil, "", nil)
	return b, err
}

// WriteClipboard makes the desktop's selection hold data as typ (see
// [Client.ReadClipboard]): UTF-8 text of at most api.MaxClipboardText
// bytes, or a PNG image of at most api.MaxClipboardImage.
func (c *Client) WriteClipboard(ctx context.Context, selection, typ string, data []byte) error {
	q := url.Values{}
	if selection != "" {
		q.Set("selection", selection)
	}
	ct := "text/plain; charset=utf-8"
	if typ == api.ClipboardPNG {
		ct = api.ClipboardPNG
	}
	if typ != "" {
		q.Set("type", typ)
	}
	_, _, err := c.do(ctx, http.MethodPut, "/v1/clipboard?"+q.Encode(), bytes.NewReader(data), ct, nil)
	return err
}

// AccessibilityXML returns the desktop's accessibility tree in OSWorld's
// XML; app keeps the applications whose name contains it (or of that pid).
func (c *Client) AccessibilityXML(ctx context.Context, app string) (string, error) {
	q := url.Values{"format": {api.A11yXML}}
	if app != "" {
		q.Set("app", app)
	}
	_, b, err := c.do(ctx, http.MethodGet, "/v1/accessibility?"+q.Encode(), nil, "", nil)
	return string(b), err
}

// Accessibility returns the tree in format api.A11yList (the indexed
// interactable elements) or api.A11yJSON (the whole tree).
func (c *Client) Accessibility(ctx context.Context, format, app string) (api.Accessibility, error) {
	q := url.Values{"format": {format}}
	if app != "" {
		q.Set("app", app)
	}
	var a api.Accessibility
	err := c.json(ctx, http.MethodGet, "/v1/accessibility?"+q.Encode(), nil, &a)
	return a, err
}

// Apps lists the applications on the accessibility bus.
func (c *Client) Apps(ctx context.Context) ([]api.App, error) {
	var out []api.App
	err := c.json(ctx, http.MethodGet, "/v1/accessibility/apps", nil, &out)
	return out, err
}

// SetOfMarks captures the screen with every interactable element boxed and
// numbered (scaled to maxWidth when > 0), and the elements.
func (c *Client) SetOfMarks(ctx context.Context, app string, maxWidth int) (api.SetOfMarks, error) {
	q := url.Values{}
	if app != "" {
		q.Set("app", app)
	}
	if maxWidth > 0 {
		q.Set("max_width", strconv.Itoa(maxWidth))
	}
	var out api.SetOfMarks
	err := c.json(ctx, http.MethodGet, "/v1/som?"+q.Encode(), nil, &out)
	return out, err
}

// ElementAction acts on an element by its id (click, focus, set_value,
// set_text, do).
func (c *Client) ElementAction(ctx context.Context, a api.ElementAction) error {
	return c.json(ctx, http.MethodPost, "/v1/accessibility/act", a, nil)
}

// Browser runs a browser action (one of [api.BrowserActions]) on the
// sandbox's Chromium.
func (c *Client) Browser(ctx context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error) {
	var res api.BrowserResult
	err := c.json(ctx, http.MethodPost, "/v1/browser/"+url.PathEscape(action), r, &res)
	return res, err
}

// DialPort opens a raw TCP stream to port on the sandbox's loopback
// (GET /v1/ports/{port} upgraded to "tcp"). The stream lives on after ctx
// ends; close it when done. A port nothing listens on is an
// errdefs.ErrUnavailable error.
func (c *Client) DialPort(ctx context.Context, port int) (io.ReadWriteCloser, error) {
	ep := c.ep.Load()
	path := fmt.Sprintf("/v1/ports/%d", port)
	// The stream outlives ctx, so the request does not carry it; agentd
	// answers once its own bounded dial is done.
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, ep.Base+path, nil)
	if err != nil {
		return nil, err
	}
	if ep.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ep.Token)
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "tcp")
	resp, err := ep.Client.Do(req)
	if err != nil {
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("sandbox unreachable: agentd GET %s: %v", path, err))
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, api.ErrorFromResponse(resp.StatusCode, b)
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		resp.Body.Close()
		return nil, fmt.Errorf("agentd GET %s: the upgraded body is not writable", path)
	}
	return rwc, nil
}

// DialVNC opens the live view (GET /v1/vnc): a WebSocket carrying an RFB
// session of the display in binary messages; viewOnly drops the viewer's
// input. The connection lives on after ctx ends; close it when done.
func (c *Client) DialVNC(ctx context.Context, viewOnly bool) (*websocket.Conn, error) {
	ep := c.ep.Load()
	path := "/v1/vnc"
	if viewOnly {
		path += "?view_only=1"
	}
	h := http.Header{}
	if ep.Token != "" {
		h.Set("Authorization", "Bearer "+ep.Token)
	}
	ws, resp, err := websocket.Dial(ctx, ep.Base+path, &websocket.DialOptions{HTTPClient: ep.Client, HTTPHeader: h, Subprotocols: []string{"binary"}})
	if err != nil {
		if resp != nil && resp.StatusCode/100 != 1 {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			return nil, api.ErrorFromResponse(resp.StatusCode, b)
		}
		return nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("sandbox unreachable: agentd GET %s: %v", path, err))
	}
	ws.SetReadLimit(-1)
	return ws, nil
}

// StartRecording starts the video of the display (POST /v1/recording).
func (c *Client) StartRecording(ctx context.Context, r api.RecordingRequest) (api.Recording, error) {
	var rec api.Recording
	err := c.json(ctx, http.MethodPost, "/v1/recording", r, &rec)
	return rec, err
}

// StopRecording ends the video and waits for its file to be final
// (DELETE /v1/recording).
func (c *Client) StopRecording(ctx context.Context) (api.Recording, error) {
	var rec api.Recording
	err := c.json(ctx, http.MethodDelete, "/v1/recording", nil, &rec)
	return rec, err
}

// DownloadRecording copies the video's file (GET /v1/recording) to w
// and returns the bytes copied; no recording is an errdefs not-found
// error.
func (c *Client) DownloadRecording(ctx context.Context, w io.Writer) (int64, error) {
	ep := c.ep.Load()
	const path = "/v1/recording"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.Base+path, nil)
	if err != nil {
		return 0, err
	}
	if ep.Token != "" {
		req.Header.Set("Authorization", "Bearer "+ep.Token)
	}
	resp, err := ep.Client.Do(req)
	if err != nil {
		return 0, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("sandbox unreachable: agentd GET %s: %v", path, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return 0, api.ErrorFromResponse(resp.StatusCode, b)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return n, fmt.Errorf("agentd GET %s: %w", path, err)
	}
	return n, nil
}
