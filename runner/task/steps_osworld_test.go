package task

import (
	"os/exec"
	"strings"
	"testing"
)

// On a real desktop (agentd on Xvfb): launching VS Code where there is
// none skips the task; execute_with_verification waits for its window.
func TestOSWorldStepsOnAgentd(t *testing.T) {
	a := startAgentd(t)
	if _, err := exec.LookPath("code"); err == nil {
		t.Skip("this machine has VS Code")
	}
	tk := parseTask(t, withConfig(`[{"type": "launch", "parameters": {"command": ["code", "/home/user/project"]}}]`), t.TempDir())
	err := Setup(t.Context(), a, tk, Options{})
	if sk := SkipOf(err); sk == nil || sk.Field != "config[0] (launch)" || sk.Reason != vsCodeMissing {
		t.Errorf("launch code = %v, want a skip naming VS Code", err)
	}

	if _, err := exec.LookPath("xterm"); err != nil {
		t.Skip("xterm not installed")
	}
	tk = parseTask(t, withConfig(`[{"type": "execute_with_verification", "parameters": {
	  "command": "setsid xterm -T VerifiedWindow >/dev/null 2>&1 &", "shell": true,
	  "verification": {"window_exists": "verifiedwindow", "command_success": "true"}, "max_wait_time": 10, "check_interval": 0.2}}]`), t.TempDir())
	if err := Setup(t.Context(), a, tk, Options{}); err != nil {
		t.Errorf("execute_with_verification: %v", err)
	}
	tk = parseTask(t, withConfig(`[{"type": "execute_with_verification", "parameters": {
	  "command": "true", "verification": {"window_exists": "NoSuchWindow"}, "max_wait_time": 0.5, "check_interval": 0.1}}]`), t.TempDir())
	if err := Setup(t.Context(), a, tk, Options{}); err == nil || !strings.Contains(err.Error(), "verification") {
		t.Errorf("unmet verification = %v, want an error", err)
	}
}
