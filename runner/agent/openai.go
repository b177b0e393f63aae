package agent

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
)

// OpenAIConfig configures an [OpenAI] agent. Only APIKey is required.
type OpenAIConfig struct {
	// APIKey authenticates with the API (OPENAI_API_KEY).
	APIKey Secret
	// BaseURL is the API's address; empty means the SDK's default
	// (https://api.openai.com/v1).
	BaseURL string
	// Model is the model to drive (default "computer-use-preview").
	Model string
	// Tool is the computer tool to declare: "computer_use_preview" (the
	// preview model's, with the display size) or "computer" (the tool of
	// later models, which may batch actions). Empty means
	// "computer_use_preview" for models named computer-use-preview* and
	// "computer" for the others.
	Tool string
	// Instructions are added to the instructions (system prompt).
	Instructions string
	// HTTPClient makes the requests; nil means the SDK's.
	HTTPClient *http.Client
	// MaxRetries is how often the SDK retries a rate-limited or failed
	// request (default 2, negative means none).
	MaxRetries int
}

// OpenAI drives an OpenAI computer-use model through the Responses API.
// The model's computer_call actions are run by the "openai" dialect
// (whose computer tool takes the action object, or {"actions": [...]}
// for a batch); each next step answers the calls with a
// computer_call_output carrying the new screenshot, chained to the
// previous response by its id (the API keeps the conversation). Pending
// safety checks are acknowledged: the sandbox is disposable and nobody
// watches an evaluation. An answer without a computer_call ends the
// episode (with FAIL if it contains [Infeasible]). OpenAI is safe for
// concurrent use; each episode's state travels in [Response.State].
type OpenAI struct {
	cfg    OpenAIConfig
	client openai.Client
}

const openaiDialect = "openai"

// NewOpenAI returns an OpenAI agent. A missing API key or an unknown tool
// is an error of class [errdefs.ErrInvalidArgument].
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.APIKey == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage("openai: api key: required (OPENAI_API_KEY)")
	}
	if cfg.Model == "" {
		cfg.Model = "computer-use-preview"
	}
	switch cfg.Tool {
	case "":
		cfg.Tool = "computer"
		if strings.HasPrefix(cfg.Model, "computer-use-preview") {
			cfg.Tool = "computer_use_preview"
		}
	case "computer", "computer_use_preview":
	default:
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("openai: tool: unknown computer tool %q (want computer or computer_use_preview)", cfg.Tool))
	}
	opts := []option.RequestOption{option.WithAPIKey(string(cfg.APIKey))}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	switch {
	case cfg.MaxRetries > 0:
		opts = append(opts, option.WithMaxRetries(cfg.MaxRetries))
	case cfg.MaxRetries < 0:
		opts = append(opts, option.WithMaxRetries(0))
	}
	return &OpenAI{cfg: cfg, client: openai.NewClient(opts...)}, nil
}

// ObservationCall takes the observation with the openai dialect's
// screenshot action.
func (o *OpenAI) ObservationCall() task.Call {
	return task.Call{Dialect: openaiDialect, Tool: "computer", Args: json.RawMessage(`{"type":"screenshot"}`)}
}

// openaiEpisode is what an episode remembers: the last response, whose
// computer calls the next step answers.
type openaiEpisode struct {
	responseID string
	pending    []openaiCall
}

// openaiCall is the part of a computer_call item the agent reads.
type openaiCall struct {
	Type         string          `json:"type"`
	CallID       string          `json:"call_id"`
	Action       json.RawMessage `json:"action"`
	Actions      json.RawMessage `json:"actions"`
	SafetyChecks []struct {
		ID      string `json:"id"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"pending_safety_checks"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// Step sends the task (step 0) or the screenshot after the previous
// step's actions, and turns the answer into calls.
func (o *OpenAI) Step(ctx context.Context, req Request) (Response, error) {
	ep, _ := req.State.(*openaiEpisode)
	shot := "data:image/png;base64," + base64.StdEncoding.EncodeToString(req.Observation.Screenshot)
	params := responses.ResponseNewParams{
		Model:        o.cfg.Model,
		Tools:        []responses.ToolUnionParam{o.tool(req.Observation)},
		Truncation:   responses.ResponseNewParamsTruncationAuto,
		Instructions: param.NewOpt(o.instructions(req)),
	}
	var input responses.ResponseInputParam
	if ep == nil || req.Step == 0 {
		ep = &openaiEpisode{}
		input = append(input, responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			responses.ResponseInputContentParamOfInputText(req.Instruction),
			{OfInputImage: &responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetailAuto, ImageURL: param.NewOpt(shot)}},
		}, responses.EasyInputMessageRoleUser))
	} else {
		params.PreviousResponseID = param.NewOpt(ep.responseID)
		for _, c := range ep.pending {
			out := responses.ResponseInputItemComputerCallOutputParam{
				CallID: c.CallID,
				Output: responses.ResponseComputerToolCallOutputScreenshotParam{ImageURL: param.NewOpt(shot)},
			}
			for _, sc := range c.SafetyChecks {
				out.AcknowledgedSafetyChecks = append(out.AcknowledgedSafetyChecks, responses.ResponseInputItemComputerCallOutputAcknowledgedSafetyCheckParam{
					ID: sc.ID, Code: param.NewOpt(sc.Code), Message: param.NewOpt(sc.Message)})
			}
			input = append(input, responses.ResponseInputItemUnionParam{OfComputerCallOutput: &out})
		}
	}
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}

	resp, err := o.client.Responses.New(ctx, params)
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && apiErr.Message != "" {
			return Response{}, fmt.Errorf("openai: %w (%s: %s)", err, cmp.Or(apiErr.Code, apiErr.Type), apiErr.Message)
		}
		return Response{}, fmt.Errorf("openai: %w", err)
	}
	if resp.Status == "failed" || resp.Status == "incomplete" && len(resp.Output) == 0 {
		return Response{}, fmt.Errorf("openai: response %s %s: %s", resp.ID, resp.Status, resp.Error.Message)
	}
	next := &openaiEpisode{responseID: resp.ID}
	out := Response{Dialect: openaiDialect, State: next}
	cached := resp.Usage.InputTokensDetails.CachedTokens
	out.Usage = &Usage{Model: cmp.Or(string(resp.Model), o.cfg.Model), InputTokens: resp.Usage.InputTokens - cached, OutputTokens: resp.Usage.OutputTokens, CacheReadTokens: cached}
	var text []string
	for _, item := range resp.Output {
		var c openaiCall
		if err := json.Unmarshal([]byte(item.RawJSON()), &c); err != nil {
			return Response{}, fmt.Errorf("openai: output item: %w", err)
		}
		switch c.Type {
		case "computer_call":
			args := c.Action
			if len(c.Actions) > 0 && string(c.Actions) != "null" {
				args = json.RawMessage(`{"actions":` + string(c.Actions) + `}`)
			}
			if len(args) == 0 || string(args) == "null" {
				return Response{}, fmt.Errorf("openai: computer_call %s has no action", c.CallID)
			}
			out.Calls = append(out.Calls, task.Call{Dialect: openaiDialect, Tool: "computer", Args: args})
			next.pending = append(next.pending, c)
		case "message":
			for _, p := range c.Content {
				if p.Type == "output_text" || p.Type == "refusal" {
					text = append(text, p.Text)
				}
			}
		}
	}
	out.Text = strings.Join(text, "\n")
	if len(out.Calls) == 0 {
		if strings.Contains(out.Text, Infeasible) {
			out.Fail = true
		} else {
			out.Done = true
		}
	}
	return out, nil
}

func (o *OpenAI) tool(obs Observation) responses.ToolUnionParam {
	if o.cfg.Tool == "computer_use_preview" {
		return responses.ToolParamOfComputerUsePreview(int64(obs.Height), int64(obs.Width), responses.ComputerUsePreviewToolEnvironmentLinux)
	}
	t := responses.NewComputerToolParam()
	return responses.ToolUnionParam{OfComputer: &t}
}

func (o *OpenAI) instructions(req Request) string {
	s := modelSystemPrompt(req.Observation)
	if o.cfg.Instructions != "" {
		s += "\n\n" + o.cfg.Instructions
	}
	return s
}
