package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/containerd/errdefs"
)

// HTTP asks an external agent server. Each step is one POST of the
// [Request] as JSON to URL:
//
//	{"task_id": "files-copy-notes",
//	 "instruction": "Copy ~/notes.txt into ~/Documents.",
//	 "step": 0,
//	 "observation": {"screenshot": "<base64 PNG>", "width": 1280, "height": 800,
//	                 "accessibility_tree": "<desktop-frame ...>", "elements": "[1] push button ..."},
//	 "history": [{"step": 0, "calls": [{"dialect": "anthropic", "tool": "bash", "args": {...}}],
//	              "results": [{"text": "...", "is_error": false}]}],
//	 "state": <what the server returned last step, if anything>}
//
// answered with 200 and a [Response]:
//
//	{"dialect": "anthropic",
//	 "calls": [{"tool": "bash", "args": {"command": "cp ~/notes.txt ~/Documents/"}}],
//	 "done": false, "fail": false,
//	 "text": "optional commentary", "state": <any JSON, handed back next step>}
//
// A call's "dialect" overrides the response's; with neither, the
// session's dialect is used. "observation_type" (screenshot, a11y_tree,
// screenshot_a11y_tree, som) sets what the next observations carry; the
// first steps' comes from the URL's fragment (#observation=som). "done"
// or "fail" end the episode after the
// calls run; an answer with neither and no calls just looks again. Any status other than 2xx, or a body that is not such an
// object, fails the task as an agent error (not retried).
type HTTP struct {
	// URL is the agent server's endpoint.
	URL string
	// Token, when set, is sent as "Authorization: Bearer <Token>".
	Token string
	// Client makes the requests; nil means one with a 10 minute timeout
	// (a model may think long).
	Client *http.Client
	// Observe is the observation type of the first steps (empty: a
	// screenshot); [FromSpec] takes it from the URL's fragment,
	// #observation=TYPE, which is not sent.
	Observe string
}

// ObservationType is the observation type of the first step.
func (h HTTP) ObservationType() string { return h.Observe }

// maxAnswer bounds an agent server's answer.
const maxAnswer = 16 << 20

// Step posts req and decodes the answer.
func (h HTTP) Step(ctx context.Context, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("encode request: %w", err)
	}
	hc := h.Client
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return Response{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("agent url: %s is not a URL a request can go to", Redact(h.URL)))
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if h.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+h.Token)
	}
	resp, err := hc.Do(hr)
	if err != nil {
		// net/http's error names the URL with its query.
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = Redact(ue.URL)
		}
		return Response{}, fmt.Errorf("agent server %s: %w", Redact(h.URL), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return Response{}, fmt.Errorf("agent server %s: read answer: %w", Redact(h.URL), err)
	}
	if resp.StatusCode/100 != 2 {
		return Response{}, fmt.Errorf("agent server %s answered %s: %s", Redact(h.URL), resp.Status, clip(strings.TrimSpace(string(b)), 500))
	}
	if len(b) > maxAnswer {
		return Response{}, fmt.Errorf("agent server %s: answer larger than %d bytes", Redact(h.URL), maxAnswer)
	}
	return decodeResponse(b)
}

// decodeResponse parses and checks an agent server's answer.
func decodeResponse(b []byte) (Response, error) {
	var wire struct {
		Response
		State json.RawMessage `json:"state"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&wire); err != nil {
		return Response{}, fmt.Errorf("agent answer: not a response object: %w", err)
	}
	out := wire.Response
	if len(wire.State) > 0 && string(wire.State) != "null" {
		out.State = wire.State
	}
	for i, c := range out.Calls {
		if c.Tool == "" {
			return Response{}, fmt.Errorf("agent answer: calls[%d].tool: required", i)
		}
		if len(c.Args) > 0 && !bytes.HasPrefix(bytes.TrimSpace(c.Args), []byte("{")) {
			return Response{}, fmt.Errorf("agent answer: calls[%d].args: want a JSON object, got %s", i, clip(string(c.Args), 80))
		}
	}
	if out.ObservationType != "" && !slices.Contains(ObservationTypes, out.ObservationType) {
		return Response{}, fmt.Errorf("agent answer: observation_type: %q is not one of %s", out.ObservationType, strings.Join(ObservationTypes, ", "))
	}
	if out.Done && out.Fail {
		return Response{}, fmt.Errorf("agent answer: done and fail both set")
	}
	return out, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
