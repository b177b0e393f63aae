package task

import (
	"context"
	"strconv"
	"strings"

	"github.com/deskrun/deskrun/api"
)

// Sandbox is the part of a session that setup, getters and metrics use.
// A runner session and the agentd client satisfy it. ReadFile must
// report a missing file with an error for which errdefs.IsNotFound holds.
type Sandbox interface {
	Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error)
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte) error
	Health(ctx context.Context) (api.Health, error)
	Windows(ctx context.Context) ([]api.Window, error)
	ActivateWindow(ctx context.Context, id uint32) error
	CloseWindow(ctx context.Context, id uint32) error
}

// AdminExecer is implemented by sandboxes that offer the runner a
// privileged exec channel (root inside the sandbox), separate from the
// agent's. Commands that call sudo (OSWorld's
// `echo {CLIENT_PASSWORD} | sudo -S ...`) and steps with "admin": true
// run through it when the sandbox has it, and as the desktop user
// otherwise (also when AdminExec answers an error for which
// errdefs.IsNotImplemented holds: a runner session whose provider has no
// admin channel).
type AdminExecer interface {
	AdminExec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error)
}

// Vars are the values of the placeholders OSWorld tasks use:
// {SCREEN_WIDTH}, {SCREEN_HEIGHT}, {SCREEN_WIDTH_HALF},
// {SCREEN_HEIGHT_HALF} and {CLIENT_PASSWORD}.
type Vars struct {
	ScreenWidth, ScreenHeight int
	ClientPassword            string
}

// Expand replaces the placeholders in s. Halves round down, as OSWorld's
// width // 2 does.
func (v Vars) Expand(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	return strings.NewReplacer(
		"{SCREEN_WIDTH_HALF}", strconv.Itoa(v.ScreenWidth/2),
		"{SCREEN_HEIGHT_HALF}", strconv.Itoa(v.ScreenHeight/2),
		"{SCREEN_WIDTH}", strconv.Itoa(v.ScreenWidth),
		"{SCREEN_HEIGHT}", strconv.Itoa(v.ScreenHeight),
		"{CLIENT_PASSWORD}", v.ClientPassword,
	).Replace(s)
}

// expandValue returns a copy of v with placeholders expanded in every
// string, map keys excepted.
func (v Vars) expandValue(x any) any {
	switch t := x.(type) {
	case string:
		return v.Expand(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = v.expandValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = v.expandValue(e)
		}
		return out
	}
	return x
}

// hasPlaceholder reports whether any string in x holds a placeholder.
func hasPlaceholder(x any) bool {
	switch t := x.(type) {
	case string:
		return strings.Contains(t, "{SCREEN_") || strings.Contains(t, "{CLIENT_PASSWORD}")
	case []any:
		for _, e := range t {
			if hasPlaceholder(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range t {
			if hasPlaceholder(e) {
				return true
			}
		}
	}
	return false
}
