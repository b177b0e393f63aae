package agent

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task"
)

// Secret is an API key: it prints and logs as "REDACTED".
type Secret string

// String hides the secret.
func (Secret) String() string { return "REDACTED" }

// LogValue hides the secret from slog.
func (Secret) LogValue() slog.Value { return slog.StringValue("REDACTED") }

// Infeasible is what a model agent's final answer contains when it
// judges the task impossible: the episode then ends with FAIL (which an
// infeasible task rewards) instead of DONE. The system prompt says so.
const Infeasible = "[INFEASIBLE]"

// AnthropicConfig configures an [Anthropic] agent. Only APIKey is
// required.
type AnthropicConfig struct {
	// APIKey authenticates with the API (ANTHROPIC_API_KEY).
	APIKey Secret
	// BaseURL is the API's address; empty means the SDK's default
	// (https://api.anthropic.com).
	BaseURL string
	// Model is the model to drive (default "claude-sonnet-4-5").
	Model string
	// MaxTokens bounds each answer (default 4096).
	MaxTokens int
	// ComputerTool is the version of the computer tool:
	// "computer_20250124" (the default) or "computer_20251124" (with
	// zoom, for the models that have it).
	ComputerTool string
	// KeepImages is how many of the latest screenshots stay in the
	// conversation; older ones are replaced by a line of text (default 3,
	// negative keeps all).
	KeepImages int
	// System is added to the system prompt.
	System string
	// HTTPClient makes the requests; nil means the SDK's.
	HTTPClient *http.Client
	// MaxRetries is how often the SDK retries a rate-limited or failed
	// request (default 2, negative means none).
	MaxRetries int
}

// Anthropic drives Claude through the Messages API with Anthropic's
// computer-use tools (computer, bash, str_replace_based_edit_tool), whose
// calls the "anthropic" dialect runs. Each step sends the conversation so
// far with the tool results of the previous step and turns the answer's
// tool_use blocks into calls; an answer without one ends the episode
// (with FAIL if it contains [Infeasible]). Anthropic is safe for
// concurrent use; each episode's conversation travels in
// [Response.State].
type Anthropic struct {
	cfg    AnthropicConfig
	client anthropic.Client
}

// anthropicDialect is the dialect the Anthropic agent's calls are in.
const anthropicDialect = "anthropic"

// NewAnthropic returns an Anthropic agent. A missing API key is an
// error of class [errdefs.ErrInvalidArgument].
func NewAnthropic(cfg AnthropicConfig) (*Anthropic, error) {
	if cfg.APIKey == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage("anthropic: api key: required (ANTHROPIC_API_KEY)")
	}
	if cfg.Model == "" {
		cfg.Model = "claude-sonnet-4-5"
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 4096
	}
	switch cfg.ComputerTool {
	case "":
		cfg.ComputerTool = "computer_20250124"
	case "computer_20250124", "computer_20251124":
	default:
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("anthropic: computer tool: unknown version %q (want computer_20250124 or computer_20251124)", cfg.ComputerTool))
	}
	if cfg.KeepImages == 0 {
		cfg.KeepImages = 3
	}
	opts := []option.RequestOption{option.WithoutEnvironmentDefaults(), option.WithAPIKey(string(cfg.APIKey))}
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
	return &Anthropic{cfg: cfg, client: anthropic.NewClient(opts...)}, nil
}

// ObservationCall takes the observation with the computer tool's
// screenshot action, so that the dialect scales it as the model sees it
// and maps the model's coordinates back.
func (a *Anthropic) ObservationCall() task.Call {
	return task.Call{Dialect: anthropicDialect, Tool: "computer", Args: json.RawMessage(`{"action":"screenshot"}`)}
}

// anthropicEpisode is an episode's conversation: the Anthropic agent's
// Response.State.
type anthropicEpisode struct {
	messages []anthropic.BetaMessageParam
	pending  []string // ids of the last answer's tool_use blocks, in order
}

// Step sends the conversation and turns the answer into calls.
func (a *Anthropic) Step(ctx context.Context, req Request) (Response, error) {
	ep, _ := req.State.(*anthropicEpisode)
	if ep == nil || req.Step == 0 {
		ep = &anthropicEpisode{messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(
			anthropic.NewBetaTextBlock(req.Instruction),
			anthropic.NewBetaImageBlock(base64Image("image/png", req.Observation.Screenshot)),
		)}}
	} else {
		var last Turn
		if len(req.History) > 0 {
			last = req.History[len(req.History)-1]
		}
		ep.messages = append(ep.messages, anthropic.NewBetaUserMessage(toolResults(ep.pending, last)...))
	}
	keepImages(ep.messages, a.cfg.KeepImages)

	params := anthropic.BetaMessageNewParams{
		Model:     anthropic.Model(a.cfg.Model),
		MaxTokens: int64(a.cfg.MaxTokens),
		System:    []anthropic.BetaTextBlockParam{{Text: a.system(req)}},
		Messages:  ep.messages,
		Tools:     a.tools(req.Observation),
		Betas:     []anthropic.AnthropicBeta{a.beta()},
	}
	msg, err := a.client.Beta.Messages.New(ctx, params)
	if err != nil {
		return Response{}, fmt.Errorf("anthropic: %w", err)
	}
	ep.messages = append(ep.messages, msg.ToParam())
	ep.pending = nil
	var out Response
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			out.Calls = append(out.Calls, task.Call{Dialect: anthropicDialect, Tool: b.Name, Args: args})
			ep.pending = append(ep.pending, b.ID)
		}
	}
	out.Dialect, out.Text, out.State = anthropicDialect, strings.Join(text, "\n"), ep
	out.Usage = &Usage{Model: cmp.Or(string(msg.Model), a.cfg.Model), InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens,
		CacheReadTokens: msg.Usage.CacheReadInputTokens, CacheWriteTokens: msg.Usage.CacheCreationInputTokens}
	if len(out.Calls) == 0 {
		if strings.Contains(out.Text, Infeasible) {
			out.Fail = true
		} else {
			out.Done = true
		}
	}
	return out, nil
}

func (a *Anthropic) beta() anthropic.AnthropicBeta {
	if a.cfg.ComputerTool == "computer_20251124" {
		return anthropic.AnthropicBetaComputerUse2025_11_24
	}
	return anthropic.AnthropicBetaComputerUse2025_01_24
}

// tools declares the computer (with the observation's size, the space
// of the model's coordinates), bash and the text editor.
func (a *Anthropic) tools(obs Observation) []anthropic.BetaToolUnionParam {
	w, h := int64(obs.Width), int64(obs.Height)
	computer := anthropic.BetaToolUnionParam{OfComputerUseTool20250124: &anthropic.BetaToolComputerUse20250124Param{DisplayWidthPx: w, DisplayHeightPx: h}}
	if a.cfg.ComputerTool == "computer_20251124" {
		computer = anthropic.BetaToolUnionParam{OfComputerUseTool20251124: &anthropic.BetaToolComputerUse20251124Param{
			DisplayWidthPx: w, DisplayHeightPx: h, EnableZoom: anthropic.Bool(true)}}
	}
	return []anthropic.BetaToolUnionParam{
		computer,
		{OfBashTool20250124: &anthropic.BetaToolBash20250124Param{}},
		{OfTextEditor20250728: &anthropic.BetaToolTextEditor20250728Param{}},
	}
}

func (a *Anthropic) system(req Request) string {
	s := modelSystemPrompt(req.Observation)
	if a.cfg.System != "" {
		s += "\n\n" + a.cfg.System
	}
	return s
}

// modelSystemPrompt tells a model where it is and how to end.
func modelSystemPrompt(obs Observation) string {
	return fmt.Sprintf(`You operate a Linux desktop (X11 with the openbox window manager, %dx%d) to carry out the user's task. You act only through your tools, as the desktop's user; your home directory is ~. Terminals (xterm), python3 and the usual command-line tools are installed; there is no internet access.
Check the screen after acting. When the task is done, answer with a short summary and no tool call. If the task cannot be done on this computer, do not attempt a substitute: explain why in your final answer and end it with %s.`,
		obs.Width, obs.Height, Infeasible)
}

func base64Image(mime string, data []byte) anthropic.BetaBase64ImageSourceParam {
	return anthropic.BetaBase64ImageSourceParam{Data: base64.StdEncoding.EncodeToString(data), MediaType: anthropic.BetaBase64ImageSourceMediaType(mime)}
}

// toolResults answers the tool_use blocks ids with what their calls
// returned in turn (calls the farm did not make, because an earlier one
// ended the episode or failed, are answered as not run).
func toolResults(ids []string, turn Turn) []anthropic.BetaContentBlockParamUnion {
	out := make([]anthropic.BetaContentBlockParamUnion, 0, len(ids))
	for i, id := range ids {
		r := anthropic.BetaToolResultBlockParam{ToolUseID: id}
		if i >= len(turn.Results) {
			r.IsError = anthropic.Bool(true)
			r.Content = []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: "not run"}}}
			out = append(out, anthropic.BetaContentBlockParamUnion{OfToolResult: &r})
			continue
		}
		res := turn.Results[i]
		if res.IsError {
			r.IsError = anthropic.Bool(true)
		}
		if res.Text != "" {
			r.Content = append(r.Content, anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: res.Text}})
		}
		for _, img := range res.Images {
			src := base64Image(img.MIMEType, img.Data)
			r.Content = append(r.Content, anthropic.BetaToolResultBlockParamContentUnion{OfImage: &anthropic.BetaImageBlockParam{
				Source: anthropic.BetaImageBlockParamSourceUnion{OfBase64: &src}}})
		}
		if len(r.Content) == 0 {
			r.Content = []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: "(no output)"}}}
		}
		out = append(out, anthropic.BetaContentBlockParamUnion{OfToolResult: &r})
	}
	return out
}

// omittedImage replaces a screenshot dropped from the conversation.
const omittedImage = "[an earlier screenshot, omitted]"

// keepImages replaces all but the keep latest images of the user's
// messages with a line of text (keep < 0 keeps all).
func keepImages(msgs []anthropic.BetaMessageParam, keep int) {
	if keep < 0 {
		return
	}
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != anthropic.BetaMessageParamRoleUser {
			continue
		}
		blocks := msgs[i].Content
		for j := len(blocks) - 1; j >= 0; j-- {
			switch b := &blocks[j]; {
			case b.OfImage != nil:
				if seen++; seen > keep {
					*b = anthropic.NewBetaTextBlock(omittedImage)
				}
			case b.OfToolResult != nil:
				parts := b.OfToolResult.Content
				for k := len(parts) - 1; k >= 0; k-- {
					if parts[k].OfImage != nil {
						if seen++; seen > keep {
							parts[k] = anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: omittedImage}}
						}
					}
				}
			}
		}
	}
}
