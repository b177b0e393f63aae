// Package agent holds the agents deskrun's evaluation farm runs: replay
// (plays a task's recorded tool calls) and http (asks an external agent
// server at every step). An agent sees the task's instruction, the
// current screenshot and the history of its calls, and answers with tool
// calls in a named dialect, or with done or fail.
package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task"
)

// Observation is what the agent sees before a step.
type Observation struct {
	// Screenshot is a PNG of the whole screen.
	Screenshot []byte `json:"screenshot"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
}

// Turn is one earlier step: the calls made and what each returned.
type Turn struct {
	Step    int           `json:"step"`
	Calls   []task.Call   `json:"calls"`
	Results []CallOutcome `json:"results"`
}

// CallOutcome is the text a tool call returned.
type CallOutcome struct {
	Text    string `json:"text"`
	IsError bool   `json:"is_error,omitempty"`
}

// Request is one step's question to an agent.
type Request struct {
	TaskID      string      `json:"task_id"`
	Instruction string      `json:"instruction"`
	Step        int         `json:"step"` // from 0
	Observation Observation `json:"observation"`
	History     []Turn      `json:"history"`
	// Task is the whole task (the replay agent reads its solution); not
	// sent to remote agents.
	Task *task.Task `json:"-"`
}

// Response is an agent's answer: calls to make, in order, and whether
// the episode ends (Done: the agent thinks the task is done; Fail: it
// thinks the task cannot be done).
type Response struct {
	// Dialect is the default dialect of Calls that name none.
	Dialect string      `json:"dialect,omitempty"`
	Calls   []task.Call `json:"calls,omitempty"`
	Done    bool        `json:"done,omitempty"`
	Fail    bool        `json:"fail,omitempty"`
}

// Agent decides the next step. Implementations are safe for concurrent
// use across tasks.
type Agent interface {
	Step(ctx context.Context, req Request) (Response, error)
}

// Replay plays a task's reference solution, one call per step.
type Replay struct{}

// Step returns the solution's call for this step, and Done after the
// last one.
func (Replay) Step(_ context.Context, req Request) (Response, error) {
	if req.Task == nil {
		return Response{}, fmt.Errorf("replay: no task")
	}
	sol := req.Task.Solution
	if len(sol) == 0 {
		return Response{}, fmt.Errorf("replay: task %s has no solution", req.TaskID)
	}
	if req.Step >= len(sol) {
		return Response{Done: true}, nil
	}
	return Response{Calls: []task.Call{sol[req.Step]}}, nil
}

// HTTP asks an agent server: each step is a POST of the Request as JSON
// (the screenshot base64-encoded) to URL, answered by a Response.
type HTTP struct {
	URL    string
	Client *http.Client
}

// Step posts the request and decodes the answer.
func (h HTTP) Step(ctx context.Context, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	hc := h.Client
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Minute}
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(hr)
	if err != nil {
		return Response{}, fmt.Errorf("agent %s: %w", h.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return Response{}, fmt.Errorf("agent %s: %w", h.URL, err)
	}
	if resp.StatusCode/100 != 2 {
		return Response{}, fmt.Errorf("agent %s answered %s: %s", h.URL, resp.Status, strings.TrimSpace(string(b)))
	}
	var out Response
	if err := json.Unmarshal(b, &out); err != nil {
		return Response{}, fmt.Errorf("agent %s: bad answer: %w", h.URL, err)
	}
	for i, c := range out.Calls {
		if c.Tool == "" {
			return Response{}, fmt.Errorf("agent %s: calls[%d].tool: required", h.URL, i)
		}
	}
	return out, nil
}

// Parse makes an agent from a spec: "replay", or an http(s) URL of an
// agent server.
func Parse(spec string) (Agent, error) {
	switch {
	case spec == "replay":
		return Replay{}, nil
	case strings.HasPrefix(spec, "http://"), strings.HasPrefix(spec, "https://"):
		return HTTP{URL: spec}, nil
	}
	return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("agent: unknown agent %q (want replay or an http(s) URL of an agent server)", spec))
}
