package dialect

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// Plan is a compiled tool call: what the executor does, in order.
// Compiling is pure, so plans are what the golden tests compare.
type Plan struct {
	// Action is the dialect's own action object when it has one: the
	// OSWorld {"action_type","parameters"} object or "WAIT"/"DONE"/"FAIL".
	Action any `json:"action,omitempty"`
	// Steps run in order; the first failing step ends the plan.
	Steps []Step `json:"steps"`
}

// Step operations.
const (
	opInput          = "input"            // run Actions
	opDragFromCursor = "drag_from_cursor" // drag with Button from the cursor to To
	opScreenshot     = "screenshot"       // capture per Capture, add the image
	opCursor         = "cursor"           // add the cursor position in Space as "X=..,Y=.."
	opText           = "text"             // add Text
	opFail           = "fail"             // stop with the tool error Text
)

// Step is one operation of a Plan.
type Step struct {
	Op string `json:"op"`
	// Label names the step in error messages (an action of a batch).
	Label   string       `json:"label,omitempty"`
	Actions []api.Action `json:"actions,omitempty"`
	Capture *Capture     `json:"capture,omitempty"`
	Space   space        `json:"space,omitempty"`
	To      *api.Point   `json:"to,omitempty"`
	Button  string       `json:"button,omitempty"`
	Text    string       `json:"text,omitempty"`
}

// Capture says how to take a screenshot.
type Capture struct {
	// Region crops the screen (real pixels); nil is the whole screen.
	Region *api.Rect `json:"region,omitempty"`
	// MaxWidth scales the image down to at most this width; 0 keeps it.
	MaxWidth int `json:"max_width,omitempty"`
	// Remember makes the image's size the space of later pixel
	// coordinates (a full-screen screenshot the model now looks at).
	Remember bool `json:"remember,omitempty"`
	// Settle waits before the capture until the screen has been quiet for
	// settleQuiet, at most settleTimeout: a screenshot after an action
	// shows its result, not the frame in between.
	Settle bool `json:"settle,omitempty"`
}

// The settled wait of a screenshot after an action.
const (
	settleQuietMS   = 100
	settleTimeoutMS = 2_000
)

func inputStep(actions ...api.Action) Step { return Step{Op: opInput, Actions: actions} }
func textStep(s string) Step               { return Step{Op: opText, Text: s} }
func failStep(s string) Step               { return Step{Op: opFail, Text: s} }

// toolError is a tool-level failure found while compiling: the text the
// model gets back with IsError set.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func toolErrorf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// loadEnv returns what compiling needs, asking the desktop for its screen
// size once per session. The caller holds st.mu.
func (st *State) loadEnv(ctx context.Context, d Desktop) (env, error) {
	if st.screen.Width == 0 || st.screen.Height == 0 {
		s, err := d.Screen(ctx)
		if err != nil {
			return env{}, fmt.Errorf("read screen size: %w", err)
		}
		st.screen = s
	}
	return env{screen: st.screen, shot: st.shot, leftHeld: st.holding("button:left"), view: st.view}, nil
}

// execute runs p on d. A step the desktop refuses ends the plan with a
// Result whose IsError is set; a failing desktop gives an error.
// The caller holds st.mu.
func (st *State) execute(ctx context.Context, d Desktop, p Plan) (Result, error) {
	var res Result
	fail := func(label, msg string) (Result, error) {
		if label != "" {
			msg = label + ": " + msg
		}
		res.Content = append(res.Content, Part{Type: "text", Text: msg})
		res.IsError = true
		return res, nil
	}
	// A tool types at most what one REST type action may: longer text
	// would hold the desktop for minutes.
	typed := 0
	for _, s := range p.Steps {
		for _, a := range s.Actions {
			if a.Type == api.ActionType {
				typed += utf8.RuneCountInString(a.Text)
			}
		}
	}
	if typed > api.MaxTextLen {
		return fail("", fmt.Sprintf("text: %d characters, at most %d in one call", typed, api.MaxTextLen))
	}
	for _, s := range p.Steps {
		switch s.Op {
		case opInput:
			msg, err := st.input(ctx, d, s.Actions)
			if err != nil {
				return res, err
			}
			if msg != "" {
				return fail(s.Label, msg)
			}
		case opDragFromCursor:
			cur, err := d.Cursor(ctx)
			if err != nil {
				return res, fmt.Errorf("read cursor: %w", err)
			}
			drag := api.Action{Type: api.ActionDrag, Button: s.Button, Path: [][2]int{{cur.X, cur.Y}, {s.To.X, s.To.Y}}}
			msg, err := st.input(ctx, d, []api.Action{drag})
			if err != nil {
				return res, err
			}
			if msg != "" {
				return fail(s.Label, msg)
			}
		case opScreenshot:
			c := s.Capture
			if c == nil {
				c = &Capture{}
			}
			o := api.ScreenshotOptions{Format: api.FormatPNG, MaxWidth: c.MaxWidth, Region: c.Region}
			if c.Settle {
				o.SettleMS, o.TimeoutMS = settleQuietMS, settleTimeoutMS
			}
			shot, err := d.Screenshot(ctx, o)
			if err != nil {
				if refused(err) {
					return fail(s.Label, err.Error())
				}
				return res, fmt.Errorf("take screenshot: %w", err)
			}
			if shot.Screen.Width > 0 && shot.Screen.Height > 0 {
				st.screen = shot.Screen
			}
			if c.Remember {
				st.shot = api.Screen{Width: shot.Width, Height: shot.Height}
				st.view = nil
				if c.Region != nil {
					r := *c.Region
					st.view = &r
				}
			}
			res.Content = append(res.Content, imagePart(shot))
		case opCursor:
			p, err := d.Cursor(ctx)
			if err != nil {
				return res, fmt.Errorf("read cursor: %w", err)
			}
			x, y := env{screen: st.screen, shot: st.shot, view: st.view}.fromScreen(s.Space, p)
			res.Content = append(res.Content, Part{Type: "text", Text: fmt.Sprintf("X=%s,Y=%s", fmtCoord(x), fmtCoord(y))})
		case opText:
			res.Content = append(res.Content, Part{Type: "text", Text: s.Text})
		case opFail:
			return fail(s.Label, s.Text)
		default:
			return res, fmt.Errorf("run plan: unknown step %q", s.Op)
		}
	}
	return res, nil
}

// input runs core actions. It returns the desktop's message when the
// desktop refused one of them, and an error when the desktop failed.
func (st *State) input(ctx context.Context, d Desktop, actions []api.Action) (string, error) {
	res, err := d.Input(ctx, actions)
	done := len(actions)
	if res.Error != nil || err != nil {
		done = 0
		for _, r := range res.Results {
			if !r.OK {
				break
			}
			done++
		}
	}
	st.track(actions[:min(done, len(actions))])
	switch {
	case res.Error != nil:
		return res.Error.Message, nil
	case err != nil && refused(err):
		return err.Error(), nil
	case err != nil:
		return "", fmt.Errorf("send input: %w", err)
	}
	return "", nil
}

// refused reports whether err is the desktop refusing a request (bad
// input, a state that does not allow it) rather than failing.
func refused(err error) bool {
	return errdefs.IsInvalidArgument(err) || errdefs.IsFailedPrecondition(err) ||
		errdefs.IsNotFound(err) || errdefs.IsOutOfRange(err)
}

// errMessage strips the errdefs class prefix from err's text.
func errMessage(err error) string {
	var te *toolError
	if errors.As(err, &te) {
		return te.msg
	}
	return err.Error()
}

func imagePart(s api.Screenshot) Part {
	mime := "image/png"
	if s.Format == api.FormatJPEG {
		mime = "image/jpeg"
	}
	return Part{Type: "image", MIMEType: mime, Data: s.Data, Width: s.Width, Height: s.Height}
}

// itoa is strconv.Itoa, short for messages.
func itoa(n int) string { return strconv.Itoa(n) }
