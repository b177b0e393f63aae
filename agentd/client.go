package agentd

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
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
)

// Client talks to one agentd. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	hc    *http.Client
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
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, hc: hc}
}

// WaitHealthy polls baseURL/healthz until it answers 200 or ctx ends.
func WaitHealthy(ctx context.Context, baseURL string, hc *http.Client) error {
	if hc == nil {
		hc = DefaultHTTPClient
	}
	var last error
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/healthz", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("healthz answered %s", resp.Status)
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("agentd at %s not healthy: %w (last: %v)", baseURL, ctx.Err(), last)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// do sends a request; a non-2xx answer becomes an error carrying its
// errdefs class. out, when non-nil, receives the JSON body (also of an
// error answer, when it parses).
func (c *Client) do(ctx context.Context, method, path string, body io.Reader, ctype string, out any) (*http.Response, []byte, error) {
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
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("agentd %s %s: %w", method, path, ctx.Err())
		}
		// The sandbox does not answer: it died or its network is gone.
		return nil, nil, errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("sandbox unreachable: agentd %s %s: %v", method, path, err))
	}
	defer resp.Body.Close()
	b, err := readAnswer(resp)
	if err != nil {
		return resp, nil, fmt.Errorf("agentd %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		if out != nil {
			_ = json.Unmarshal(b, out)
		}
		return resp, b, wire.ErrorFromResponse(resp.StatusCode, b)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return resp, b, fmt.Errorf("agentd %s %s: decode answer: %w", method, path, err)
		}
	}
	return resp, b, nil
}

// readAnswer reads an answer's body: in one allocation of its announced
// length when it has one (a screenshot is about a megabyte, which
// io.ReadAll would reach by growing and copying a dozen times).
func readAnswer(resp *http.Response) ([]byte, error) {
	n := resp.ContentLength
	if n < 0 || n > maxAnswer {
		return io.ReadAll(resp.Body)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// maxAnswer bounds the allocation made ahead of reading an answer; a
// longer one is read as it comes.
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
func (c *Client) Health(ctx context.Context) (wire.Health, error) {
	var h wire.Health
	err := c.json(ctx, http.MethodGet, "/healthz", nil, &h)
	return h, err
}

// Screen returns the screen size.
func (c *Client) Screen(ctx context.Context) (wire.Screen, error) {
	var s wire.Screen
	err := c.json(ctx, http.MethodGet, "/v1/screen", nil, &s)
	return s, err
}

// Cursor returns the pointer position.
func (c *Client) Cursor(ctx context.Context) (wire.Point, error) {
	var p wire.Point
	err := c.json(ctx, http.MethodGet, "/v1/cursor", nil, &p)
	return p, err
}

// Screenshot captures the screen.
func (c *Client) Screenshot(ctx context.Context, o wire.ScreenshotOptions) (wire.Screenshot, error) {
	path := "/v1/screenshot"
	if q := o.Query().Encode(); q != "" {
		path += "?" + q
	}
	resp, b, err := c.do(ctx, http.MethodGet, path, nil, "", nil)
	if err != nil {
		return wire.Screenshot{}, err
	}
	return ParseScreenshot(resp.Header, b)
}

// ParseScreenshot reads a screenshot answer: the image bytes and the
// scale and screen headers.
func ParseScreenshot(h http.Header, data []byte) (wire.Screenshot, error) {
	s := wire.Screenshot{Data: data, Format: strings.TrimPrefix(h.Get("Content-Type"), "image/"), Scale: 1}
	if v := h.Get(wire.HeaderScale); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return s, fmt.Errorf("bad %s header %q", wire.HeaderScale, v)
		}
		s.Scale = f
	}
	if v := h.Get(wire.HeaderScreen); v != "" {
		if _, err := fmt.Sscanf(v, "%dx%d", &s.Screen.Width, &s.Screen.Height); err != nil {
			return s, fmt.Errorf("bad %s header %q", wire.HeaderScreen, v)
		}
	}
	w, hgt, err := imageSize(data)
	if err != nil {
		return s, err
	}
	s.Width, s.Height = w, hgt
	return s, nil
}

// Input runs core actions. When one fails the error carries its class and
// the result says which.
func (c *Client) Input(ctx context.Context, actions []wire.Action) (wire.InputResult, error) {
	var res wire.InputResult
	err := c.json(ctx, http.MethodPost, "/v1/input", wire.InputRequest{Actions: actions}, &res)
	return res, err
}

// Exec runs a command in the sandbox.
func (c *Client) Exec(ctx context.Context, r wire.ExecRequest) (wire.ExecResult, error) {
	var res wire.ExecResult
	err := c.json(ctx, http.MethodPost, "/v1/exec", r, &res)
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
func (c *Client) Windows(ctx context.Context) ([]wire.Window, error) {
	var l wire.WindowList
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

func shellPath(id, op string) string {
	p := "/v1/shells/" + url.PathEscape(id)
	if op != "" {
		p += "/" + op
	}
	return p
}

// ShellExec runs a command in the named shell session, creating it.
func (c *Client) ShellExec(ctx context.Context, id string, r wire.ShellExecRequest) (wire.Shell, error) {
	var s wire.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "exec"), r, &s)
	return s, err
}

// ShellView returns a shell session's state and output.
func (c *Client) ShellView(ctx context.Context, id string) (wire.Shell, error) {
	var s wire.Shell
	err := c.json(ctx, http.MethodGet, shellPath(id, ""), nil, &s)
	return s, err
}

// ShellWait waits for the session's running command.
func (c *Client) ShellWait(ctx context.Context, id string, r wire.ShellWaitRequest) (wire.Shell, error) {
	var s wire.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "wait"), r, &s)
	return s, err
}

// ShellWrite writes to the running command's standard input.
func (c *Client) ShellWrite(ctx context.Context, id string, r wire.ShellWriteRequest) (wire.Shell, error) {
	var s wire.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "write"), r, &s)
	return s, err
}

// ShellKill kills the session's running command.
func (c *Client) ShellKill(ctx context.Context, id string) (wire.Shell, error) {
	var s wire.Shell
	err := c.json(ctx, http.MethodPost, shellPath(id, "kill"), nil, &s)
	return s, err
}

// Clipboard returns the text of the desktop's CLIPBOARD selection. An
// agentd whose X client cannot read selections answers
// [errdefs.ErrNotImplemented].
func (c *Client) Clipboard(ctx context.Context) (string, error) {
	_, b, err := c.do(ctx, http.MethodGet, "/v1/clipboard", nil, "", nil)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// SetClipboard puts text on the desktop's CLIPBOARD selection (at most
// [MaxClipboard] bytes of UTF-8). An agentd whose X client cannot own
// selections answers [errdefs.ErrNotImplemented].
func (c *Client) SetClipboard(ctx context.Context, text string) error {
	_, _, err := c.do(ctx, http.MethodPut, "/v1/clipboard", strings.NewReader(text), "text/plain; charset=utf-8", nil)
	return err
}
