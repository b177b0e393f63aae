package api

import "github.com/deskrun/deskrun/api/tool"

// ToolResult is the answer to a tool call, general enough for REST and MCP.
type ToolResult struct {
	// Content is what the model sees: text and images, in order.
	Content []ToolPart `json:"content"`
	// IsError marks a tool-level failure: invalid arguments or an
	// action the desktop refused. Content holds the dialect's message.
	IsError bool `json:"is_error,omitempty"`
	// Structured is a machine-readable form of the result, when the
	// dialect has one (the OSWorld step envelope); MCP sends it as
	// structured content.
	Structured any `json:"structured,omitempty"`
	// Done reports that the agent ended the episode (OSWorld DONE or
	// FAIL).
	Done bool `json:"done,omitempty"`
}

// ToolPart is one piece of a ToolResult's content.
type ToolPart struct {
	// Type is "text" or "image".
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	// MIMEType and Data hold an image ("image/png", "image/jpeg").
	MIMEType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data,omitempty"`
	// Width and Height are an image's size in pixels.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// Text returns the concatenated text parts of r, one per line.
func (r ToolResult) Text() string {
	var s string
	for _, p := range r.Content {
		if p.Type == "text" {
			if s != "" {
				s += "\n"
			}
			s += p.Text
		}
	}
	return s
}

// ToolList is the answer to GET /v1/tools: level 1 of a dialect's tool
// definitions, what an agent puts in its tool list.
type ToolList struct {
	// Dialect is the dialect listed.
	Dialect string        `json:"dialect"`
	Tools   []ToolSummary `json:"tools"`
}

// ToolSummary is one tool of a [ToolList]: its name, description and
// category, and the JSON Schema of its arguments.
type ToolSummary struct {
	tool.Summary
	InputSchema *tool.Schema `json:"input_schema"`
}
