package dialect

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/deskrun/deskrun/api/tool"
)

// sandbox is the sandbox's own tools of seeds/004: named shell sessions
// (shell_exec, shell_view, shell_wait, shell_write_to_process,
// shell_kill_process) and files (file_read, file_write,
// file_str_replace, image_view) and the browser (browser_view,
// browser_navigate, browser_click, browser_input, browser_move_mouse,
// browser_press_key, browser_select_option, browser_scroll_up,
// browser_scroll_down, browser_console_exec, browser_console_view,
// browser_save_image, browser_restart) and expose_port
// (deploy_expose_port).
type sandbox struct{}

func (sandbox) Name() string { return "sandbox" }

func (sandbox) Tools() []tool.Definition { return slices.Clone(toolsOf("sandbox")) }

func (s sandbox) Call(ctx context.Context, d Desktop, st *State, name string, args json.RawMessage) (Result, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if name == infoToolName {
		return toolInfo(s, args), nil
	}
	m, err := checkArgs(s, name, args)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	if name == "expose_port" {
		return exposePort(ctx, m)
	}
	if strings.HasPrefix(name, "browser_") {
		return browserTool(ctx, d, name, m)
	}
	if strings.HasPrefix(name, "shell_") {
		return shellTool(ctx, d, st, name, m)
	}
	return fileTool(ctx, d, name, m)
}
