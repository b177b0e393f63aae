package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/tool"
)

// pyautoguiDialect is OSWorld's pyautogui action space as one tool,
// pyautogui: the agent's Python code runs in the sandbox as OSWorld's
// controller runs it (after `import pyautogui; import time;
// pyautogui.FAILSAFE = False`), with the pyautogui module deskrun's
// sandboxes ship (a client of agentd), or the code is one of the special
// actions WAIT, DONE and FAIL. The answer is what OSWorld's /execute
// answers ({"status","output","error","returncode"}) and the screenshot
// of the new observation.
type pyautoguiDialect struct{}

func (pyautoguiDialect) Name() string { return "pyautogui" }

func (pyautoguiDialect) Tools() []tool.Definition { return slices.Clone(toolsOf("pyautogui")) }

const (
	pyautoguiToolName = "pyautogui"
	// pyautoguiPrefix is OSWorld's pkgs_prefix, one statement a line so
	// that code starting with a compound statement (for, with, def) runs
	// too.
	pyautoguiPrefix = "import pyautogui\nimport time\npyautogui.FAILSAFE = False\n"
	// pyautoguiTimeoutMS is how long the code may run: OSWorld's
	// controller waits 90 s for /execute.
	pyautoguiTimeoutMS = 90_000
	// pyautoguiWaitDefault is how long WAIT waits when no pause is given:
	// the default pause of OSWorld's DesktopEnv.step.
	pyautoguiWaitDefault = 2.0
)

// pyautoguiCall is a validated call: Python code, or a special action.
type pyautoguiCall struct {
	Code    string  // the agent's code; empty for a special action
	Special string  // "WAIT", "DONE" or "FAIL"
	Pause   float64 // seconds to wait before the screenshot
}

// pyautoguiResult is what OSWorld's /execute answers about the code.
type pyautoguiResult struct {
	Status     string `json:"status"` // "success" or "error"
	Output     string `json:"output"`
	Error      string `json:"error"`
	ReturnCode int    `json:"returncode"`
}

// compilePyautogui validates a call. It is pure.
func compilePyautogui(name string, args json.RawMessage) (pyautoguiCall, error) {
	m, err := checkArgs(PyAutoGUI, name, args)
	if err != nil {
		return pyautoguiCall{}, err
	}
	code, _ := m["code"].(string)
	var c pyautoguiCall
	if f, ok := number(m["pause"]); ok {
		c.Pause = f
	}
	switch s := strings.TrimSpace(code); s {
	case "":
		return pyautoguiCall{}, toolErrorf("code: empty; give Python code using pyautogui, or WAIT, DONE or FAIL")
	case "WAIT", "DONE", "FAIL":
		c.Special = s
		if _, ok := m["pause"]; !ok && s == "WAIT" {
			c.Pause = pyautoguiWaitDefault
		}
	default:
		c.Code = code
	}
	return c, nil
}

func (p pyautoguiDialect) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == infoToolName {
		return toolInfo(p, args), nil
	}
	c, err := compilePyautogui(name, args)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	switch c.Special {
	case "DONE", "FAIL":
		// As OSWorld's DesktopEnv.step: done, and info says which.
		out := map[string]any{"action": c.Special, "done": true, "info": map[string]any{strings.ToLower(c.Special): true}}
		res := jsonResult(out)
		res.Done = true
		return res, nil
	}
	var res Result
	if c.Code != "" {
		r, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"python3", "-c", pyautoguiPrefix + c.Code}, TimeoutMS: pyautoguiTimeoutMS})
		if err != nil {
			if refused(err) {
				return errorResult(err.Error()), nil
			}
			return Result{}, fmt.Errorf("run pyautogui code: %w", err)
		}
		out := pyautoguiResult{Status: "success", Output: r.Stdout, Error: r.Stderr, ReturnCode: r.ExitCode}
		if r.ExitCode != 0 || r.TimedOut {
			out.Status = "error"
			res.IsError = true
		}
		if r.TimedOut {
			if out.Error != "" && !strings.HasSuffix(out.Error, "\n") {
				out.Error += "\n"
			}
			out.Error += fmt.Sprintf("killed after %d s", pyautoguiTimeoutMS/1000)
		}
		var text bytes.Buffer
		enc := json.NewEncoder(&text)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		res.Content = append(res.Content, Part{Type: "text", Text: strings.TrimSuffix(text.String(), "\n")})
		res.Structured = out
	}
	plan := Plan{Action: c.Special}
	if c.Pause > 0 {
		plan.Steps = append(plan.Steps, inputStep(waitActions(c.Pause)...))
	}
	plan.Steps = append(plan.Steps, Step{Op: opScreenshot, Capture: &Capture{Remember: true}})
	obs, err := st.execute(ctx, d, plan)
	if err != nil {
		return Result{}, err
	}
	res.Content = append(res.Content, obs.Content...)
	res.IsError = res.IsError || obs.IsError
	if c.Special == "WAIT" && !obs.IsError {
		res.Content = append([]Part{{Type: "text", Text: "WAIT"}}, res.Content...)
	}
	return res, nil
}
