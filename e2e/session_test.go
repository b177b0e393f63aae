//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// session drives one desktop over the contract's HTTP calls, which are the
// same for agentd (base ".../v1") and for a session of the host API (base
// ".../v1/sessions/{id}"): screenshot, input, cursor, exec, files.
type session struct {
	base  string
	token string
	hc    *http.Client
	// sandboxID is the container of the session.
	sandboxID string
}

// agentSession drives the sandbox's agentd directly.
func agentSession(inst sandbox.Instance) *session {
	return &session{base: inst.AgentURL + "/v1", token: inst.Token, hc: &http.Client{Timeout: 30 * time.Second}, sandboxID: inst.ID}
}

// httpError is a non-2xx answer.
type httpError struct {
	Status int
	Body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("status %d: %.300s", e.Status, e.Body) }

func (s *session) do(ctx context.Context, method, path string, body io.Reader, out any) ([]byte, error) {
	return s.doType(ctx, method, path, "application/json", body, out)
}

// get answers a GET's headers and body.
func (s *session) get(ctx context.Context, path string) (http.Header, []byte, error) {
	return s.send(ctx, http.MethodGet, path, "", nil)
}

func (s *session) doType(ctx context.Context, method, path, contentType string, body io.Reader, out any) ([]byte, error) {
	_, data, err := s.send(ctx, method, path, contentType, body)
	if err != nil {
		return data, err
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return data, fmt.Errorf("decode %s: %w", path, err)
		}
	}
	return data, nil
}

// send makes one request with the session's token and answers the
// response's headers and body; a status other than 2xx is an httpError.
func (s *session) send(ctx context.Context, method, path, contentType string, body io.Reader) (http.Header, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, body)
	if err != nil {
		return nil, nil, err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		return resp.Header, data, &httpError{Status: resp.StatusCode, Body: string(data)}
	}
	return resp.Header, data, nil
}

func (s *session) screenshot(ctx context.Context) (image.Image, error) {
	data, err := s.do(ctx, http.MethodGet, "/screenshot?format=png", nil, nil)
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("screenshot: decode: %w", err)
	}
	return img, nil
}

func (s *session) input(ctx context.Context, actions ...api.Action) error {
	b, _ := json.Marshal(api.InputRequest{Actions: actions})
	var res api.InputResult
	if _, err := s.do(ctx, http.MethodPost, "/input", bytes.NewReader(b), &res); err != nil {
		return fmt.Errorf("input: %w", err)
	}
	if res.Error != nil {
		return fmt.Errorf("input: %s", res.Error.Message)
	}
	return nil
}

func (s *session) cursor(ctx context.Context) (api.Point, error) {
	var p api.Point
	_, err := s.do(ctx, http.MethodGet, "/cursor", nil, &p)
	return p, err
}

func (s *session) exec(ctx context.Context, cmd ...string) (api.ExecResult, error) {
	b, _ := json.Marshal(api.ExecRequest{Cmd: cmd})
	var res api.ExecResult
	_, err := s.do(ctx, http.MethodPost, "/exec", bytes.NewReader(b), &res)
	return res, err
}

func (s *session) readFile(ctx context.Context, path string) ([]byte, error) {
	return s.do(ctx, http.MethodGet, "/files?path="+url.QueryEscape(path), nil, nil)
}

func (s *session) writeFile(ctx context.Context, path string, data []byte) error {
	_, err := s.doType(ctx, http.MethodPut, "/files?path="+url.QueryEscape(path), "application/octet-stream", bytes.NewReader(data), nil)
	return err
}
