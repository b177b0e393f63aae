package task

// The accessibility getters: accessibility_tree and vm_terminal_output,
// over OSWorld's XML of the desktop's accessibility tree (agentd's GET
// /v1/accessibility), queried through runner/task/internal/atree.

import (
	"context"
	"fmt"

	"github.com/deskrun/deskrun/runner/task/vm"
)

// AccessibilityReader is implemented by sandboxes that read the desktop's
// accessibility tree in OSWorld's XML (a runner session, agentd's client).
type AccessibilityReader interface {
	AccessibilityXML(ctx context.Context, app string) (string, error)
}

func checkAnyParams(fields) error { return nil }

func (r *run) treeXML(ctx context.Context) (string, error) {
	ar, ok := r.sb.(AccessibilityReader)
	if !ok {
		return "", fmt.Errorf("this sandbox does not read accessibility trees")
	}
	return ar.AccessibilityXML(ctx, "")
}

// accessibilityTree implements OSWorld's accessibility_tree
// (desktop_env/evaluators/getters/misc.py).
func (r *run) accessibilityTree(ctx context.Context, _ map[string]any) (any, error) {
	x, err := r.treeXML(ctx)
	if err != nil {
		return nil, fmt.Errorf("accessibility_tree: %w", err)
	}
	return x, nil
}

// vmTerminalOutput implements OSWorld's get_vm_terminal_output
// (desktop_env/evaluators/getters/general.py, through /terminal): the
// text of the focused terminal in the active window, right-trimmed; nil
// unless exactly one such terminal exists.
func (r *run) vmTerminalOutput(ctx context.Context, _ map[string]any) (any, error) {
	x, err := r.treeXML(ctx)
	if err != nil {
		return nil, fmt.Errorf("vm_terminal_output: %w", err)
	}
	out, err := vm.TerminalOutput(x)
	if err != nil {
		return nil, fmt.Errorf("vm_terminal_output: %w", err)
	}
	if out == nil {
		return nil, nil
	}
	return *out, nil
}
