// Package dialect speaks the tool dialects agents already use (OSWorld's
// computer_13 tools and its pyautogui action space, Anthropic's
// computer-use tools and their MCP form, OpenAI's computer-use actions,
// hermes' computer_use tool, and the shell and file tools of a sandbox)
// and turns each tool call into the core actions of [api.Action], which
// agentd executes, or, for pyautogui code, runs it in the sandbox with
// the pyautogui module that drives agentd. A dialect never talks to X11.
//
// A call goes in two halves. First the dialect validates its arguments
// with its own rules and error texts and compiles them into a [Plan]: core
// input actions, screenshots, cursor reads and the like. Compiling is pure
// (it needs only the screen size and the size of the last screenshot), so
// translation is tested without a desktop. Then a small executor runs the
// plan on a [Desktop] and collects a [Result].
//
// Tool-level problems (bad arguments, an action the desktop refused) are
// results with IsError set and the dialect's text; Go errors mean the
// infrastructure failed. Every tool has an OpenAkita definition (package
// [tool]); [Definitions] lists a dialect's tools and [Lookup] finds one.
package dialect

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// Desktop is what a dialect drives: one session's desktop. A runner
// session satisfies it. Errors of class errdefs.ErrInvalidArgument or
// errdefs.ErrFailedPrecondition from Input are reported to the model as
// tool errors; other errors are infrastructure failures. ReadFile reports
// a missing file with an error for which errdefs.IsNotFound holds.
type Desktop interface {
	Input(ctx context.Context, actions []api.Action) (api.InputResult, error)
	Screenshot(ctx context.Context, o api.ScreenshotOptions) (api.Screenshot, error)
	Cursor(ctx context.Context) (api.Point, error)
	Screen(ctx context.Context) (api.Screen, error)
	Exec(ctx context.Context, r api.ExecRequest) (api.ExecResult, error)
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
}

// WindowManager is implemented by desktops that list and activate
// top-level windows (hermes' list_apps and focus_app, Anthropic's
// open_application). Without it those tools answer "not available".
type WindowManager interface {
	Windows(ctx context.Context) ([]api.Window, error)
	ActivateWindow(ctx context.Context, id uint32) error
}

// WindowControl is implemented by desktops that read a window's client
// area and state and change it (Anthropic's window_management,
// bind_window, activate_window and the tools that act on the bound
// window). Action is one of [api.WindowActions]; place is the body of
// move_resize. A window that does not exist is an error for which
// errdefs.IsNotFound holds.
type WindowControl interface {
	Window(ctx context.Context, id uint32) (api.Window, error)
	ChangeWindow(ctx context.Context, id uint32, action string, place api.WindowPlacement) error
}

// AppLister is implemented by desktops that list the applications on
// their accessibility bus (agentd's AT-SPI): hermes' list_apps and
// focus_app name applications as they name themselves, with their
// windows found by process id.
type AppLister interface {
	Apps(ctx context.Context) ([]api.App, error)
}

// Accessible is implemented by desktops that read accessibility trees
// (agentd's AT-SPI): hermes' som and ax captures and element targeting,
// Anthropic's click_element and type_into_element. Without it those answer
// "not available".
type Accessible interface {
	Accessibility(ctx context.Context, format, app string) (api.Accessibility, error)
	SetOfMarks(ctx context.Context, app string, maxWidth int) (api.SetOfMarks, error)
	ElementAction(ctx context.Context, a api.ElementAction) error
}

// ClipboardAccess is implemented by desktops that read and write the
// clipboard (Anthropic's read_clipboard and write_clipboard).
type ClipboardAccess interface {
	Clipboard(ctx context.Context) (string, error)
	SetClipboard(ctx context.Context, text string) error
}

// ShellHost is implemented by desktops that keep named shell sessions
// (agentd's shell service): a session keeps its working directory,
// environment and running process between calls. ShellExec creates the
// session if it does not exist; the others report an unknown session
// with an error for which errdefs.IsNotFound holds. Without ShellHost the
// shell tools run each command to completion through Exec and remember
// the console text in [State].
type ShellHost interface {
	ShellExec(ctx context.Context, id string, r api.ShellExecRequest) (api.Shell, error)
	ShellView(ctx context.Context, id string) (api.Shell, error)
	ShellWait(ctx context.Context, id string, r api.ShellWaitRequest) (api.Shell, error)
	ShellWrite(ctx context.Context, id string, r api.ShellWriteRequest) (api.Shell, error)
	ShellKill(ctx context.Context, id string) (api.Shell, error)
}

// BrowserHost is implemented by desktops whose agentd drives a browser
// (the browser_* tools of the sandbox dialect). Action is one of
// [api.BrowserActions]; bad arguments are errors for which
// errdefs.IsInvalidArgument holds, a stale element index or a JavaScript
// exception one for which errdefs.IsFailedPrecondition holds.
type BrowserHost interface {
	Browser(ctx context.Context, action string, r api.BrowserRequest) (api.BrowserResult, error)
}

// Dialect is one agent tool vocabulary. Implementations are stateless
// values; per-session state lives in the [State] passed to Call.
type Dialect interface {
	// Name is the dialect's name as ByName knows it.
	Name() string
	// Tools returns the definitions of the dialect's tools, get_tool_info
	// last. The slice is new on every call.
	Tools() []tool.Definition
	// Call runs the tool name with the JSON arguments args on d. A tool
	// the dialect does not have, invalid arguments, or an action the
	// desktop refused give a Result with IsError set; the error is
	// non-nil only when the desktop failed (connection lost, timeout).
	// Calls on one State are serialized.
	Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error)
}

// The built-in dialects.
var (
	OSWorld             Dialect = osworld{}
	PyAutoGUI           Dialect = pyautoguiDialect{}
	Anthropic           Dialect = anthropic{space: pixelSpace}
	AnthropicNormalized Dialect = anthropic{space: normalizedSpace}
	OpenAI              Dialect = openai{}
	Hermes              Dialect = hermes{}
	Sandbox             Dialect = sandbox{}
)

// ByName returns the dialect called name: "osworld", "pyautogui"
// (OSWorld's pyautogui action space: Python code), "anthropic"
// (coordinates in pixels of the last screenshot), "anthropic_normalized"
// (coordinates 0..100), "openai", "hermes" or "sandbox" (shell and file
// tools).
func ByName(name string) (Dialect, bool) {
	d, ok := map[string]Dialect{
		"osworld":              OSWorld,
		"pyautogui":            PyAutoGUI,
		"anthropic":            Anthropic,
		"anthropic_normalized": AnthropicNormalized,
		"openai":               OpenAI,
		"hermes":               Hermes,
		"sandbox":              Sandbox,
	}[name]
	return d, ok
}

// Names lists the dialects ByName knows, sorted.
func Names() []string {
	return []string{"anthropic", "anthropic_normalized", "hermes", "openai", "osworld", "pyautogui", "sandbox"}
}

// Definitions returns the tool definitions of the dialect called name
// (level 1 and 2 of progressive disclosure), or false if there is no such
// dialect.
func Definitions(name string) ([]tool.Definition, bool) {
	d, ok := ByName(name)
	if !ok {
		return nil, false
	}
	return d.Tools(), true
}

// Lookup finds the definition of the tool toolName, searching the
// dialects in the order of [Names] (a name several dialects share, such
// as "computer", is found in the first). Use [Find] to search one dialect.
func Lookup(toolName string) (tool.Definition, bool) {
	for _, n := range Names() {
		if def, ok := Find(n, toolName); ok {
			return def, true
		}
	}
	return tool.Definition{}, false
}

// Find returns the definition of the tool toolName of the dialect called
// dialectName.
func Find(dialectName, toolName string) (tool.Definition, bool) {
	defs, ok := Definitions(dialectName)
	if !ok {
		return tool.Definition{}, false
	}
	i := slices.IndexFunc(defs, func(d tool.Definition) bool { return d.Name == toolName })
	if i < 0 {
		return tool.Definition{}, false
	}
	return defs[i], true
}

// Result is the answer to a tool call: the contract's [api.ToolResult].
type Result = api.ToolResult

// Part is one piece of a Result's content: the contract's [api.ToolPart].
type Part = api.ToolPart

func textResult(s string) Result { return Result{Content: []Part{{Type: "text", Text: s}}} }

func errorResult(s string) Result {
	return Result{Content: []Part{{Type: "text", Text: s}}, IsError: true}
}
