// Package agent holds the agents deskrun's evaluation farm drives: replay
// (plays recorded tool calls, such as a task's reference solution), http
// (asks an external agent server at every step), and model loops on the
// Anthropic and OpenAI APIs. An agent sees the task's instruction, the
// current screenshot and the history of its calls, and answers with tool
// calls in a named dialect (package
// github.com/deskrun/deskrun/runner/dialect), or with done or fail.
//
// The farm calls [Agent.Step] once per step and runs the calls it returns
// in order on the task's session. Agents keep no per-episode state of
// their own: what an agent wants to remember between steps (a model
// conversation) it returns in [Response.State], and the next [Request]
// hands it back. One Agent value therefore serves many tasks at once.
package agent

import (
	"context"

	"github.com/deskrun/deskrun/runner/task"
)

// Agent decides the steps of episodes. Implementations are safe for
// concurrent use: the farm calls Step from one goroutine per task.
type Agent interface {
	// Step returns the calls to make next, or Done or Fail to end the
	// episode. An error means the agent failed (it could not answer);
	// the farm ends the task with an agent error and does not retry it.
	Step(ctx context.Context, req Request) (Response, error)
}

// Observer is implemented by agents whose observation must come from a
// tool call of their dialect rather than a plain screenshot: the call's
// first image is the observation. Dialects that scale screenshots for
// vision models (Anthropic's pixel coordinates) need it, so that the
// coordinates a model reads off the image are the ones the dialect
// expects.
type Observer interface {
	ObservationCall() task.Call
}

// Request is one step's question to an agent. It is also the body of the
// http agent's POST (see [HTTP]).
type Request struct {
	// TaskID is the task's id.
	TaskID string `json:"task_id"`
	// Instruction is what the agent is asked to do.
	Instruction string `json:"instruction"`
	// Step counts the steps of this episode from 0. A retried task
	// starts again at 0 with no history and no state.
	Step int `json:"step"`
	// Observation is the screen before this step.
	Observation Observation `json:"observation"`
	// History holds the earlier steps of this episode, oldest first.
	History []Turn `json:"history"`
	// State is the agent's Response.State of the previous step; nil at
	// step 0.
	State any `json:"state,omitempty"`
	// Task is the whole task (the replay agent reads its solution); it
	// is not sent to remote agents.
	Task *task.Task `json:"-"`
}

// Observation is what the agent sees before a step.
type Observation struct {
	// Screenshot is the screen as a PNG image (base64 in JSON); with
	// observation type som, the screen with the interactable elements
	// boxed and numbered.
	Screenshot []byte `json:"screenshot"`
	// Width and Height are the image's size in pixels.
	Width  int `json:"width"`
	Height int `json:"height"`
	// AccessibilityTree is the desktop's accessibility tree in OSWorld's
	// XML (observation types a11y_tree and screenshot_a11y_tree).
	AccessibilityTree string `json:"accessibility_tree,omitempty"`
	// Elements lists the interactable elements, one per line
	// (`[3] push button "OK" @(x,y,w,h) id=...`), numbered as the som
	// image marks them (types a11y_tree, screenshot_a11y_tree and som).
	Elements string `json:"elements,omitempty"`
	// AccessibilityPartial says an application did not answer in time:
	// its part of the tree is missing or cut.
	AccessibilityPartial bool `json:"accessibility_partial,omitempty"`
	// AccessibilityError says why the tree could not be read at all (a
	// desktop without an accessibility bus); the screenshot still comes.
	AccessibilityError string `json:"accessibility_error,omitempty"`
}

// Observation types an agent can ask for, OSWorld's names.
const (
	ObserveScreenshot     = "screenshot"           // the screenshot alone (the default)
	ObserveA11yTree       = "a11y_tree"            // the tree and the element list (and the screenshot)
	ObserveScreenshotTree = "screenshot_a11y_tree" // the screenshot, the tree and the element list
	ObserveSetOfMarks     = "som"                  // the marked screenshot and the element list
)

// ObservationTypes lists the observation types.
var ObservationTypes = []string{ObserveScreenshot, ObserveA11yTree, ObserveScreenshotTree, ObserveSetOfMarks}

// ObservationTyper is implemented by agents that ask for more than a
// screenshot from the first step on; a Response's ObservationType
// changes it for the steps after.
type ObservationTyper interface {
	ObservationType() string
}

// Turn is one earlier step: the calls the agent made and what each
// returned. A step that ended early (a call ended the episode) has fewer
// Results than Calls.
type Turn struct {
	Step    int           `json:"step"`
	Calls   []task.Call   `json:"calls"`
	Results []CallOutcome `json:"results"`
}

// CallOutcome is what a tool call returned.
type CallOutcome struct {
	// Text is the result's text parts, one per line.
	Text string `json:"text"`
	// IsError marks a tool-level failure (invalid arguments, an action
	// the desktop refused); Text holds the dialect's message.
	IsError bool `json:"is_error,omitempty"`
	// Images are the result's images (a screenshot the tool took), for
	// agents that hand them to a model; not sent to remote agents.
	Images []Image `json:"-"`
}

// Image is an image a tool returned.
type Image struct {
	MIMEType string
	Data     []byte
	Width    int
	Height   int
}

// Response is an agent's answer: calls to make, in order, and whether
// the episode ends. Done means the agent thinks the task is done, Fail
// that it thinks the task cannot be done (OSWorld's FAIL, which an
// infeasible task rewards). Calls are made before the episode ends.
type Response struct {
	// Dialect is the dialect of calls that name none.
	Dialect string `json:"dialect,omitempty"`
	// Calls are the tool calls to make, in order.
	Calls []task.Call `json:"calls,omitempty"`
	// ObservationType, when set, is what the next steps' observations
	// carry (one of ObservationTypes).
	ObservationType string `json:"observation_type,omitempty"`
	Done            bool   `json:"done,omitempty"`
	Fail            bool   `json:"fail,omitempty"`
	// Text is what the agent said beside its calls (a model's
	// reasoning); recorded in the trajectory.
	Text string `json:"text,omitempty"`
	// State is handed back in the next Request. An http agent server
	// may return any JSON value here.
	State any `json:"state,omitempty"`
	// Usage counts the model tokens this step took: the anthropic and
	// openai agents fill it from the API's usage fields; an http agent
	// server may report its own.
	Usage *Usage `json:"usage,omitempty"`
}
