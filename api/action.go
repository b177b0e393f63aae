package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/containerd/errdefs"
)

// Core action types: the one action model every dialect compiles to and
// agentd executes.
const (
	ActionMove       = "move"        // move{x,y}
	ActionButtonDown = "button_down" // button_down{button}
	ActionButtonUp   = "button_up"   // button_up{button}
	ActionClick      = "click"       // click{button,count,x?,y?}
	ActionKeyDown    = "key_down"    // key_down{key}
	ActionKeyUp      = "key_up"      // key_up{key}
	ActionKey        = "key"         // key{keys[],repeat}: a chord, pressed in order, released in reverse
	ActionType       = "type"        // type{text}: any Unicode text
	ActionScroll     = "scroll"      // scroll{dx,dy,x?,y?}: notches; dy>0 down, dx>0 right
	ActionDrag       = "drag"        // drag{path[[x,y]...],button}
	ActionWait       = "wait"        // wait{ms}
	ActionWaitIdle   = "wait_idle"   // wait_idle{ms,timeout_ms,commands}: until the screen is quiet for ms (and terminal commands ended), or timeout_ms
)

// Mouse buttons accepted in Action.Button. Empty means left.
const (
	ButtonLeft   = "left"
	ButtonMiddle = "middle"
	ButtonRight  = "right"
)

// Limits on single actions; larger values are refused as invalid input.
const (
	MaxClickCount = 10
	MaxKeyRepeat  = 100
	MaxWaitMS     = 60_000
	MaxScroll     = 100 // notches per axis
	MaxTextLen    = 10_000
	MaxDragPoints = 1_000
	MaxActions    = 1_000 // per input request
)

// Action is one core action. Type selects which other fields apply; the
// others must be left at their zero value (a field that does not belong to
// the type is refused, so typos in a dialect surface early).
type Action struct {
	Type   string   `json:"type"`
	X      *int     `json:"x,omitempty"`
	Y      *int     `json:"y,omitempty"`
	Button string   `json:"button,omitempty"`
	Count  int      `json:"count,omitempty"`
	Key    string   `json:"key,omitempty"`
	Keys   []string `json:"keys,omitempty"`
	Repeat int      `json:"repeat,omitempty"`
	Text   string   `json:"text,omitempty"`
	DX     int      `json:"dx,omitempty"`
	DY     int      `json:"dy,omitempty"`
	Path   [][2]int `json:"path,omitempty"`
	MS     int      `json:"ms,omitempty"`
	// TimeoutMS bounds a wait_idle action; zero means
	// DefaultSettleTimeoutMS.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Commands makes a wait_idle action also wait until no command typed
	// into a terminal of the desktop is still running (its shell has a
	// child), and the screen was quiet for ms after the last one ended.
	Commands bool `json:"commands,omitempty"`
	// Processes makes a wait_idle action first wait until the desktop's
	// programs have taken in what they were given: over half a second,
	// the time their threads ran plus the time they waited to run is
	// under a quarter of it. A program still working through keys on a
	// loaded host waits its turn for the processor, and that counts.
	Processes bool `json:"processes,omitempty"`
}

// Int returns a pointer to v, for Action.X and Action.Y literals.
func Int(v int) *int { return &v }

// InputRequest is the body of POST /v1/input (agentd) and
// POST /v1/sessions/{id}/input (deskrun serve).
type InputRequest struct {
	Actions []Action `json:"actions"`
}

// ActionResult reports one executed action.
type ActionResult struct {
	Index int    `json:"index"`
	Type  string `json:"type"`
	OK    bool   `json:"ok"`
	// Micros is how long the action took, in microseconds.
	Micros int64 `json:"us"`
	// Settled answers a wait_idle action: true when the screen was quiet
	// for its ms, false when its timeout_ms passed first.
	Settled *bool  `json:"settled,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// InputResult is the answer to an input request: one entry per action that
// was attempted. Execution stops at the first failing action, whose entry
// carries the error; the actions after it have no entry.
type InputResult struct {
	Results []ActionResult `json:"results"`
	// Error is set (and the status is 422) when an action failed.
	Error *Error `json:"error,omitempty"`
}

// Screen is a screen or image size in pixels.
type Screen struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Point is a position on the screen in pixels.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// DecodeInput decodes and structurally checks an input request. Errors are
// of class [errdefs.ErrInvalidArgument] and name the offending field, e.g.
// `actions[2].x: want an integer, got string`.
func DecodeInput(r io.Reader) (InputRequest, error) {
	var req InputRequest
	if err := DecodeJSON(r, &req); err != nil {
		return InputRequest{}, err
	}
	if req.Actions == nil {
		return InputRequest{}, invalid("actions: required")
	}
	if len(req.Actions) > MaxActions {
		return InputRequest{}, invalid("actions: %d actions, at most %d per request", len(req.Actions), MaxActions)
	}
	return req, nil
}

// DecodeJSON decodes one JSON value from r into v, refusing unknown fields
// and trailing data. Errors are of class [errdefs.ErrInvalidArgument] and
// name the field where the decoder could tell.
func DecodeJSON(r io.Reader, v any) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return invalid("read body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return invalid("body: empty, want a JSON object")
	}
	if string(bytes.TrimSpace(data)) == "null" {
		return invalid("body: null, want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if at := jsonPathAt(data, te.Offset); at != "" {
				te.Field = at
			}
		}
		return invalid("%s", describeJSONError(err))
	}
	if dec.More() {
		return invalid("body: unexpected data after the JSON value")
	}
	return nil
}

// fieldError is a decoding error that names its field itself.
type fieldError struct{ msg string }

func (e *fieldError) Error() string { return e.msg }

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return fmt.Sprintf("%s: want %s, got %s", field, jsonKind(te.Type.Kind().String()), te.Value)
	case errors.As(err, &se):
		return fmt.Sprintf("body: malformed JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "body: truncated JSON"
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return fe.msg
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("%s: unknown field", strings.Trim(f, `"`))
	}
	return "body: " + strings.TrimPrefix(msg, "json: ")
}

// jsonPathAt names the JSON value that ends at offset in data, with
// array indexes ("actions[0].path[1][0]"): the decoder's own field path
// has no indexes. Empty when data cannot be walked that far.
func jsonPathAt(data []byte, offset int64) string {
	type level struct {
		array bool
		key   string
		index int
		value bool // in an object: the next token is the key's value
	}
	var stack []level
	name := func() string {
		var b strings.Builder
		for i, l := range stack {
			switch {
			case l.array:
				fmt.Fprintf(&b, "[%d]", l.index)
			case l.key != "":
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(l.key)
			}
		}
		return b.String()
	}
	// after moves past one value in the innermost container.
	after := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].value = false
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if before >= offset || dec.InputOffset() >= offset {
					return name()
				}
				stack = append(stack, level{array: t == '['})
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
				if dec.InputOffset() >= offset {
					return name()
				}
				after()
				continue
			}
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && !stack[n-1].value {
				stack[n-1].key, stack[n-1].value = t, true
				continue
			}
		}
		if dec.InputOffset() >= offset {
			return name()
		}
		after()
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return goKind
}

// Validate checks every action against screen (coordinates must lie on it)
// and knownKey (which reports whether a key name is valid). The first
// problem is returned as an [errdefs.ErrInvalidArgument] naming the field,
// e.g. `actions[0].x: 1500 is off the screen (0..1279)`.
func (r InputRequest) Validate(screen Screen, knownKey func(string) bool) error {
	for i, a := range r.Actions {
		if err := a.Validate(screen, knownKey); err != nil {
			return invalid("actions[%d].%s", i, strings.TrimPrefix(err.Error(), "invalid argument: "))
		}
	}
	return nil
}

// Validate checks one action; see [InputRequest.Validate]. Field names in
// the error are relative to the action (`x: ...`).
func (a Action) Validate(screen Screen, knownKey func(string) bool) error {
	allowed := map[string]bool{}
	switch a.Type {
	case ActionMove:
		allowed = fields("x", "y")
		if a.X == nil || a.Y == nil {
			return invalidField(a.X == nil, "x", "y", "required")
		}
	case ActionButtonDown, ActionButtonUp:
		allowed = fields("button")
	case ActionClick:
		allowed = fields("x", "y", "button", "count")
		if (a.X == nil) != (a.Y == nil) {
			return invalidField(a.X == nil, "x", "y", "required when the other coordinate is given")
		}
		if a.Count < 0 || a.Count > MaxClickCount {
			return invalid("count: %d out of range 1..%d", a.Count, MaxClickCount)
		}
	case ActionKeyDown, ActionKeyUp:
		allowed = fields("key")
		if a.Key == "" {
			return invalid("key: required")
		}
		if knownKey != nil && !knownKey(a.Key) {
			return invalid("key: unknown key name %q", a.Key)
		}
	case ActionKey:
		allowed = fields("keys", "repeat")
		if len(a.Keys) == 0 {
			return invalid("keys: required, at least one key name")
		}
		for j, k := range a.Keys {
			if k == "" {
				return invalid("keys[%d]: empty key name", j)
			}
			if knownKey != nil && !knownKey(k) {
				return invalid("keys[%d]: unknown key name %q", j, k)
			}
		}
		if a.Repeat < 0 || a.Repeat > MaxKeyRepeat {
			return invalid("repeat: %d out of range 1..%d", a.Repeat, MaxKeyRepeat)
		}
	case ActionType:
		allowed = fields("text")
		if n := len([]rune(a.Text)); n > MaxTextLen {
			return invalid("text: %d characters, at most %d", n, MaxTextLen)
		}
	case ActionScroll:
		allowed = fields("x", "y", "dx", "dy")
		if (a.X == nil) != (a.Y == nil) {
			return invalidField(a.X == nil, "x", "y", "required when the other coordinate is given")
		}
		if a.DX < -MaxScroll || a.DX > MaxScroll {
			return invalid("dx: %d out of range -%d..%d", a.DX, MaxScroll, MaxScroll)
		}
		if a.DY < -MaxScroll || a.DY > MaxScroll {
			return invalid("dy: %d out of range -%d..%d", a.DY, MaxScroll, MaxScroll)
		}
	case ActionDrag:
		allowed = fields("path", "button")
		if len(a.Path) < 2 {
			return invalid("path: want at least 2 points, got %d", len(a.Path))
		}
		if len(a.Path) > MaxDragPoints {
			return invalid("path: %d points, at most %d", len(a.Path), MaxDragPoints)
		}
		for j, p := range a.Path {
			if err := onScreen(fmt.Sprintf("path[%d]", j), p[0], p[1], screen); err != nil {
				return err
			}
		}
	case ActionWait:
		allowed = fields("ms")
		if a.MS < 0 || a.MS > MaxWaitMS {
			return invalid("ms: %d out of range 0..%d", a.MS, MaxWaitMS)
		}
	case ActionWaitIdle:
		allowed = fields("ms", "timeout_ms", "commands", "processes")
		if a.MS <= 0 || a.MS > MaxSettleMS {
			return invalid("ms: %d out of range 1..%d (the quiet period)", a.MS, MaxSettleMS)
		}
		if a.TimeoutMS < 0 || a.TimeoutMS > MaxWaitMS {
			return invalid("timeout_ms: %d out of range 0..%d", a.TimeoutMS, MaxWaitMS)
		}
		if a.TimeoutMS != 0 && a.TimeoutMS < a.MS {
			return invalid("timeout_ms: %d is shorter than ms %d", a.TimeoutMS, a.MS)
		}
	case "":
		return invalid("type: required")
	default:
		return invalid("type: unknown action type %q", a.Type)
	}
	if err := a.onlyFields(allowed); err != nil {
		return err
	}
	if allowed["button"] {
		switch a.Button {
		case "", ButtonLeft, ButtonMiddle, ButtonRight:
		default:
			return invalid("button: unknown button %q (want left, middle or right)", a.Button)
		}
	}
	if a.X != nil && a.Y != nil {
		if err := onScreen("", *a.X, *a.Y, screen); err != nil {
			return err
		}
	}
	return nil
}

func fields(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// onlyFields refuses fields set on a that do not belong to its type.
func (a Action) onlyFields(allowed map[string]bool) error {
	set := map[string]bool{
		"x": a.X != nil, "y": a.Y != nil, "button": a.Button != "", "count": a.Count != 0,
		"key": a.Key != "", "keys": a.Keys != nil, "repeat": a.Repeat != 0, "text": a.Text != "",
		"dx": a.DX != 0, "dy": a.DY != 0, "path": a.Path != nil, "ms": a.MS != 0,
		"timeout_ms": a.TimeoutMS != 0, "commands": a.Commands, "processes": a.Processes,
	}
	for _, name := range []string{"x", "y", "button", "count", "key", "keys", "repeat", "text", "dx", "dy", "path", "ms", "timeout_ms", "commands", "processes"} {
		if set[name] && !allowed[name] {
			return invalid("%s: not a field of %q actions", name, a.Type)
		}
	}
	return nil
}

func onScreen(prefix string, x, y int, screen Screen) error {
	name := func(f string) string {
		if prefix == "" {
			return f
		}
		return prefix + "." + f
	}
	if screen.Width > 0 && (x < 0 || x >= screen.Width) {
		return invalid("%s: %d is off the screen (0..%d)", name("x"), x, screen.Width-1)
	}
	if screen.Height > 0 && (y < 0 || y >= screen.Height) {
		return invalid("%s: %d is off the screen (0..%d)", name("y"), y, screen.Height-1)
	}
	return nil
}

func invalidField(firstMissing bool, first, second, msg string) error {
	if firstMissing {
		return invalid("%s: %s", first, msg)
	}
	return invalid("%s: %s", second, msg)
}

func invalid(format string, args ...any) error {
	return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf(format, args...))
}
