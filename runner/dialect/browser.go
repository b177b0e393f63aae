package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// The sandbox's browser tools (seeds/004) run on agentd's browser through
// a [BrowserHost]. Navigation and scrolling answer the page as
// browser_view does, which is what the tools' descriptions promise ("page
// content is automatically provided after navigation").

func browserTool(ctx context.Context, d Desktop, name string, m map[string]any) (Result, error) {
	bh, ok := d.(BrowserHost)
	if !ok {
		return errorResult("this sandbox has no browser"), nil
	}
	var r api.BrowserRequest
	intArg := func(field string) (*int, string) {
		v, present := m[field]
		if !present {
			return nil, ""
		}
		f, ok := number(v)
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Sprintf("%s: want an integer", field)
		}
		n := int(f)
		return &n, ""
	}
	point := func() string {
		x, hasX := number(m["coordinate_x"])
		y, hasY := number(m["coordinate_y"])
		if hasX != hasY {
			return "coordinate_x: give both coordinate_x and coordinate_y"
		}
		if hasX {
			r.X, r.Y = &x, &y
		}
		return ""
	}
	var msg string
	action := strings.TrimPrefix(name, "browser_")
	view := false
	switch name {
	case "browser_view":
		r.Screenshot = true
	case "browser_navigate":
		r.URL, _ = m["url"].(string)
		view = true
	case "browser_click", "browser_input":
		if r.Index, msg = intArg("index"); msg == "" {
			msg = point()
		}
		if msg == "" && r.Index == nil && r.X == nil {
			msg = "index: must provide either element index or coordinates"
		}
		r.Text, _ = m["text"].(string)
		r.PressEnter, _ = m["press_enter"].(bool)
	case "browser_move_mouse", "browser_save_image":
		msg = point()
		r.SaveDir, _ = m["save_dir"].(string)
		r.BaseName, _ = m["base_name"].(string)
	case "browser_press_key":
		r.Key, _ = m["key"].(string)
	case "browser_select_option":
		if r.Index, msg = intArg("index"); msg == "" {
			r.Option, msg = intArg("option")
		}
	case "browser_scroll_up":
		r.Edge, _ = m["to_top"].(bool)
		view = true
	case "browser_scroll_down":
		r.Edge, _ = m["to_bottom"].(bool)
		view = true
	case "browser_console_exec":
		r.JavaScript, _ = m["javascript"].(string)
	case "browser_console_view":
		var n *int
		if n, msg = intArg("max_lines"); n != nil {
			r.MaxLines = *n
			if *n <= 0 {
				msg = fmt.Sprintf("max_lines: %d is not a positive number of lines", *n)
			}
		}
	case "browser_restart":
	default:
		return errorResult(fmt.Sprintf("unknown tool %q", name)), nil
	}
	if msg != "" {
		return errorResult(msg), nil
	}
	res, err := bh.Browser(ctx, action, r)
	if err != nil {
		return browserFailure(name, err)
	}
	if view {
		if res, err = bh.Browser(ctx, "view", api.BrowserRequest{Screenshot: true}); err != nil {
			return browserFailure(name, err)
		}
	}
	switch name {
	case "browser_view", "browser_navigate", "browser_scroll_up", "browser_scroll_down":
		return pageResult(res), nil
	case "browser_console_exec":
		return Result{Content: []Part{{Type: "text", Text: string(res.Value)}}, Structured: json.RawMessage(res.Value)}, nil
	case "browser_console_view":
		if len(res.Lines) == 0 {
			return textResult("(no console output)"), nil
		}
		return textResult(strings.Join(res.Lines, "\n")), nil
	case "browser_save_image":
		return Result{Content: []Part{{Type: "text", Text: "Saved the image to " + res.Path}}, Structured: map[string]string{"path": res.Path}}, nil
	case "browser_restart":
		return textResult("The browser was restarted."), nil
	case "browser_click":
		return textResult("Clicked."), nil
	case "browser_input":
		return textResult("Text entered."), nil
	case "browser_move_mouse":
		return textResult("Moved the mouse."), nil
	case "browser_press_key":
		return textResult("Pressed " + r.Key + "."), nil
	case "browser_select_option":
		return textResult(fmt.Sprintf("Selected option %d.", *r.Option)), nil
	}
	return textResult("done"), nil
}

// browserFailure turns the browser's refusals (bad input, a stale index,
// a JavaScript exception, a page that did not load) into tool errors the
// model reads; other failures are errors of the call.
func browserFailure(name string, err error) (Result, error) {
	if errdefs.IsInvalidArgument(err) || errdefs.IsFailedPrecondition(err) || errdefs.IsNotFound(err) ||
		errdefs.IsDeadlineExceeded(err) || errdefs.IsNotImplemented(err) || refused(err) {
		return errorResult(errMessage(err)), nil
	}
	return Result{}, fmt.Errorf("%s: %w", name, err)
}

// pageResult renders a view: the page's text, then its screenshot.
func pageResult(v api.BrowserResult) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nTitle: %s\n%s; %d interactive elements\n\n%s", v.URL, v.Title, v.Scroll, v.Elements, v.Text)
	parts := []Part{{Type: "text", Text: b.String()}}
	if len(v.Screenshot) > 0 {
		parts = append(parts, Part{Type: "image", MIMEType: "image/png", Data: v.Screenshot})
	}
	return Result{Content: parts, Structured: map[string]any{"url": v.URL, "title": v.Title, "elements": v.Elements}}
}
