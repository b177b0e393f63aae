// Package e2btest is deskrun's own client of E2B's protocol, for the
// tests and benchmarks of the E2B front (package server/e2b) and the e2e
// tests: the control plane as E2B's SDKs call it (X-API-KEY, the JSON
// names of E2B's API), and envd as the SDKs reach it with E2B_SANDBOX_URL
// set (the headers E2b-Sandbox-Id and E2b-Sandbox-Port, the sandbox's
// X-Access-Token, the acting user as Authorization: Basic), through the
// Connect clients generated from deskrun's own declarations of envd's
// services (package api/e2b/envd).
//
// It depends on connectrpc.com/connect and those generated clients.
package e2btest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/api/e2b/envd/filesystem/filesystemconnect"
	"github.com/deskrun/deskrun/api/e2b/envd/process"
	"github.com/deskrun/deskrun/api/e2b/envd/process/processconnect"
)

// Client calls E2B's control plane at Base (E2B_API_URL, e.g.
// "http://127.0.0.1:8080/e2b") with Key (E2B_API_KEY).
type Client struct {
	Base string
	Key  string
	HTTP *http.Client
}

// Sandbox is E2B's sandbox object as the control plane answers it.
type Sandbox struct {
	TemplateID          string            `json:"templateID"`
	SandboxID           string            `json:"sandboxID"`
	Alias               string            `json:"alias"`
	ClientID            string            `json:"clientID"`
	EnvdVersion         string            `json:"envdVersion"`
	EnvdAccessToken     string            `json:"envdAccessToken"`
	TrafficAccessToken  *string           `json:"trafficAccessToken"`
	Domain              *string           `json:"domain"`
	StartedAt           time.Time         `json:"startedAt"`
	EndAt               time.Time         `json:"endAt"`
	CPUCount            *int              `json:"cpuCount"`
	MemoryMB            *int              `json:"memoryMB"`
	Metadata            map[string]string `json:"metadata"`
	State               string            `json:"state"`
	AllowInternetAccess *bool             `json:"allowInternetAccess"`
}

// Error is an answer other than the one expected: its status and E2B's
// error body.
type Error struct {
	Status  int
	Code    int    `json:"code"`
	Message string `json:"message"`
	Body    string
}

func (e *Error) Error() string { return fmt.Sprintf("%d: %s", e.Status, e.Body) }

// StatusOf is the status of an *Error, else 0.
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Do sends a control-plane request (body marshalled to JSON unless nil)
// and decodes the answer into out when its status is want.
func (c *Client) Do(ctx context.Context, method, path string, body, out any, want int) (http.Header, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set("X-API-KEY", c.Key)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.Header, err
	}
	if resp.StatusCode != want {
		e := &Error{Status: resp.StatusCode, Body: string(b)}
		_ = json.Unmarshal(b, e)
		return resp.Header, e
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.Header, fmt.Errorf("decode %s %s: %w (%s)", method, path, err, b)
		}
	}
	return resp.Header, nil
}

// Create creates a sandbox from body (E2B's NewSandbox: templateID,
// timeout, metadata, envVars, ...).
func (c *Client) Create(ctx context.Context, body map[string]any) (Sandbox, error) {
	var sb Sandbox
	_, err := c.Do(ctx, http.MethodPost, "/sandboxes", body, &sb, http.StatusCreated)
	return sb, err
}

// Get is GET /sandboxes/{id}.
func (c *Client) Get(ctx context.Context, id string) (Sandbox, error) {
	var sb Sandbox
	_, err := c.Do(ctx, http.MethodGet, "/sandboxes/"+url.PathEscape(id), nil, &sb, http.StatusOK)
	return sb, err
}

// Kill is DELETE /sandboxes/{id}.
func (c *Client) Kill(ctx context.Context, id string) error {
	_, err := c.Do(ctx, http.MethodDelete, "/sandboxes/"+url.PathEscape(id), nil, nil, http.StatusNoContent)
	return err
}

// SetTimeout is POST /sandboxes/{id}/timeout.
func (c *Client) SetTimeout(ctx context.Context, id string, seconds int) error {
	_, err := c.Do(ctx, http.MethodPost, "/sandboxes/"+url.PathEscape(id)+"/timeout", map[string]int{"timeout": seconds}, nil, http.StatusNoContent)
	return err
}

// Connect is POST /sandboxes/{id}/connect.
func (c *Client) Connect(ctx context.Context, id string, seconds int) (Sandbox, error) {
	var sb Sandbox
	_, err := c.Do(ctx, http.MethodPost, "/sandboxes/"+url.PathEscape(id)+"/connect", map[string]int{"timeout": seconds}, &sb, http.StatusOK)
	return sb, err
}

// List is GET /v2/sandboxes with the metadata filter encoded as the SDKs
// encode it (each key and value escaped, then the query string escaped
// again as the parameter's value) and the other query parameters as
// given; it returns the page and X-Next-Token.
func (c *Client) List(ctx context.Context, metadata map[string]string, query url.Values) ([]Sandbox, string, error) {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	if len(metadata) > 0 {
		inner := url.Values{}
		for k, v := range metadata {
			inner.Set(url.QueryEscape(k), url.QueryEscape(v))
		}
		q.Set("metadata", inner.Encode())
	}
	path := "/v2/sandboxes"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out []Sandbox
	h, err := c.Do(ctx, http.MethodGet, path, nil, &out, http.StatusOK)
	if err != nil {
		return nil, "", err
	}
	return out, h.Get("X-Next-Token"), nil
}

// Envd reaches one sandbox's envd through the front at sandboxURL
// (E2B_SANDBOX_URL) as the SDKs do, acting as User ("" sends no user,
// envd's default).
type Envd struct {
	SandboxURL string
	Sandbox    Sandbox
	User       string
	HTTP       *http.Client

	Process    processconnect.ProcessClient
	Filesystem filesystemconnect.FilesystemClient
}

// NewEnvd returns the envd clients of sb at sandboxURL.
func NewEnvd(sandboxURL string, sb Sandbox, user string, hc *http.Client) *Envd {
	if hc == nil {
		hc = http.DefaultClient
	}
	e := &Envd{SandboxURL: sandboxURL, Sandbox: sb, User: user, HTTP: hc}
	opts := []connect.ClientOption{connect.WithProtoJSON(), connect.WithInterceptors(headers{e})}
	e.Process = processconnect.NewProcessClient(hc, sandboxURL, opts...)
	e.Filesystem = filesystemconnect.NewFilesystemClient(hc, sandboxURL, opts...)
	return e
}

// SetHeaders puts on h what the SDKs put on every envd request.
func (e *Envd) SetHeaders(h http.Header) {
	h.Set("E2b-Sandbox-Id", e.Sandbox.SandboxID)
	h.Set("E2b-Sandbox-Port", strconv.Itoa(49983))
	if e.Sandbox.EnvdAccessToken != "" {
		h.Set("X-Access-Token", e.Sandbox.EnvdAccessToken)
	}
	if e.User != "" {
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(e.User+":")))
	}
}

// headers is the interceptor that sets the SDK's headers on unary and
// streaming calls.
type headers struct{ e *Envd }

func (h headers) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		h.e.SetHeaders(req.Header())
		return next(ctx, req)
	}
}

func (h headers) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		h.e.SetHeaders(conn.RequestHeader())
		return conn
	}
}

func (headers) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// Result is how a command ended, with its whole output.
type Result struct {
	PID      uint32
	Stdout   string
	Stderr   string
	ExitCode int32
	Status   string
	Error    string
}

// Run starts cmd as the SDKs do (/bin/bash -l -c cmd) with envs and cwd
// (empty: the user's home), and reads its stream to the end; onData, when
// set, sees each output chunk as it comes.
func (e *Envd) Run(ctx context.Context, cmd string, envs map[string]string, cwd string, onData func(stdout, stderr []byte)) (Result, error) {
	cfg := &process.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", cmd}, Envs: envs}
	if cwd != "" {
		cfg.Cwd = &cwd
	}
	stdin := false
	stream, err := e.Process.Start(ctx, connect.NewRequest(&process.StartRequest{Process: cfg, Stdin: &stdin}))
	if err != nil {
		return Result{}, err
	}
	defer stream.Close()
	var res Result
	var out, errb bytes.Buffer
	for stream.Receive() {
		ev := stream.Msg().GetEvent()
		switch {
		case ev.GetStart() != nil:
			res.PID = ev.GetStart().GetPid()
		case ev.GetData() != nil:
			d := ev.GetData()
			out.Write(d.GetStdout())
			errb.Write(d.GetStderr())
			if onData != nil {
				onData(d.GetStdout(), d.GetStderr())
			}
		case ev.GetEnd() != nil:
			end := ev.GetEnd()
			res.ExitCode, res.Status, res.Error = end.GetExitCode(), end.GetStatus(), end.GetError()
		}
	}
	res.Stdout, res.Stderr = out.String(), errb.String()
	return res, stream.Err()
}

// filesURL is the /files URL of path.
func (e *Envd) filesURL(path string) string {
	q := url.Values{"path": {path}}
	if e.User != "" {
		q.Set("username", e.User)
	}
	return e.SandboxURL + "/files?" + q.Encode()
}

// Write uploads r to path as an octet-stream, streamed.
func (e *Envd) Write(ctx context.Context, path string, r io.Reader) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.filesURL(path), r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	e.SetHeaders(req.Header)
	return e.send(req, nil)
}

// Read downloads path.
func (e *Envd) Read(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.filesURL(path), nil)
	if err != nil {
		return nil, err
	}
	e.SetHeaders(req.Header)
	var b bytes.Buffer
	err = e.send(req, &b)
	return b.Bytes(), err
}

// Health is GET /health through the front: its status.
func (e *Envd) Health(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.SandboxURL+"/health", nil)
	if err != nil {
		return 0, err
	}
	e.SetHeaders(req.Header)
	resp, err := e.HTTP.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (e *Envd) send(req *http.Request, out io.Writer) error {
	resp, err := e.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		er := &Error{Status: resp.StatusCode, Body: string(b)}
		_ = json.Unmarshal(b, er)
		return er
	}
	if out == nil {
		out = io.Discard
	}
	_, err = io.Copy(out, resp.Body)
	return err
}
