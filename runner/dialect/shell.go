package dialect

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/deskrun/deskrun/api"
)

// Shell sessions back Anthropic's bash tool and the sandbox's shell_*
// tools. A desktop with a [ShellHost] keeps them (a command may keep
// running between calls); without one, each command runs to completion
// through Exec in bash, and the session keeps only its directory and
// last command in [State].

const (
	bashSessionID  = "bash"
	bashWaitMS     = 120_000 // the reference bash tool's timeout
	shellWaitMS    = 30_000  // how long shell_exec waits before answering
	fallbackExecMS = 120_000 // how long a command may run without a ShellHost
)

// pwdMarker ends the output of a command run without a ShellHost, followed
// by the shell's directory after it.
const pwdMarker = "\x1edeskrun-pwd:"

// fallbackScript runs $2 in directory $1 and prints the directory it ends
// in, so that cd carries over to the next command.
const fallbackScript = `if [ -n "$1" ]; then cd "$1" || exit 1; fi
eval "$2"
__deskrun_rc=$?
printf '\n` + pwdMarker + `%s\n' "$(pwd)"
exit $__deskrun_rc`

// shellExec runs a command in session id. The caller holds st.mu.
func shellExec(ctx context.Context, d Desktop, st *State, id string, r api.ShellExecRequest) (api.Shell, error) {
	if sh, ok := d.(ShellHost); ok {
		return sh.ShellExec(ctx, id, r)
	}
	if st.shells == nil {
		st.shells = map[string]*console{}
	}
	c := st.shells[id]
	if c == nil {
		c = &console{}
		st.shells[id] = c
	}
	dir := r.Dir
	if dir == "" {
		dir = c.dir
	}
	res, err := d.Exec(ctx, api.ExecRequest{Cmd: []string{"bash", "-c", fallbackScript, "bash", dir, r.Command}, TimeoutMS: fallbackExecMS})
	if err != nil {
		return api.Shell{}, err
	}
	out := res.Stdout
	if i := strings.LastIndex(out, "\n"+pwdMarker); i >= 0 {
		c.dir = strings.TrimSuffix(out[i+len("\n"+pwdMarker):], "\n")
		out = out[:i]
	} else if r.Dir != "" {
		c.dir = r.Dir
	}
	if res.Stderr != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += res.Stderr
	}
	c.command, c.output = r.Command, out
	c.exitCode = nil
	if res.TimedOut {
		c.output += fmt.Sprintf("\n(killed after %d s)", fallbackExecMS/1000)
	} else {
		code := res.ExitCode
		c.exitCode = &code
	}
	return c.shell(id), nil
}

func (c *console) shell(id string) api.Shell {
	return api.Shell{ID: id, Dir: c.dir, Command: c.command, ExitCode: c.exitCode, Output: c.output}
}

// formatShell renders a session for a model.
func formatShell(s api.Shell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s$ %s\n", s.ID, s.Dir, s.Command)
	b.WriteString(s.Output)
	if s.Output != "" && !strings.HasSuffix(s.Output, "\n") {
		b.WriteString("\n")
	}
	switch {
	case s.Running:
		b.WriteString("(still running; use shell_wait, shell_view, shell_write_to_process or shell_kill_process)")
	case s.ExitCode != nil:
		fmt.Fprintf(&b, "(exit code %d)", *s.ExitCode)
	default:
		b.WriteString("(no exit code)")
	}
	return b.String()
}

// bashTool is Anthropic's bash tool: {command} runs in one persistent
// session, {restart: true} starts it afresh.
func bashTool(ctx context.Context, d Desktop, st *State, dl Dialect, args json.RawMessage) (Result, error) {
	m, err := checkArgs(dl, "bash", args)
	if err != nil {
		return errorResult(errMessage(err)), nil
	}
	if restart, _ := m["restart"].(bool); restart {
		if sh, ok := d.(ShellHost); ok {
			if _, err := sh.ShellKill(ctx, bashSessionID); err != nil && !refused(err) {
				return Result{}, fmt.Errorf("restart bash: %w", err)
			}
		}
		delete(st.shells, bashSessionID)
		return textResult("tool has been restarted."), nil
	}
	cmd, _ := m["command"].(string)
	if strings.TrimSpace(cmd) == "" {
		return errorResult("no command provided."), nil
	}
	s, err := shellExec(ctx, d, st, bashSessionID, api.ShellExecRequest{Command: cmd, WaitMS: bashWaitMS})
	if err != nil {
		if refused(err) {
			return errorResult(err.Error()), nil
		}
		return Result{}, fmt.Errorf("run bash command: %w", err)
	}
	if s.Running || s.ExitCode == nil {
		return errorResult(fmt.Sprintf("timed out: bash has not returned in %d seconds and must be restarted\n%s", bashWaitMS/1000, s.Output)), nil
	}
	return textResult(s.Output), nil
}

// The sandbox's shell tools (seeds/004).

func shellTool(ctx context.Context, d Desktop, st *State, name string, m map[string]any) (Result, error) {
	id, _ := m["id"].(string)
	if strings.TrimSpace(id) == "" {
		return errorResult("id: empty shell session id"), nil
	}
	sh, hosted := d.(ShellHost)
	var s api.Shell
	var err error
	switch name {
	case "shell_exec":
		dir, _ := m["exec_dir"].(string)
		cmd, _ := m["command"].(string)
		if !path.IsAbs(dir) {
			return errorResult(fmt.Sprintf("exec_dir: %q is not an absolute path", dir)), nil
		}
		s, err = shellExec(ctx, d, st, id, api.ShellExecRequest{Command: cmd, Dir: dir, WaitMS: shellWaitMS})
	case "shell_view", "shell_wait", "shell_write_to_process", "shell_kill_process":
		if !hosted {
			c := st.shells[id]
			if c == nil {
				return errorResult(fmt.Sprintf("no shell session %q; start one with shell_exec", id)), nil
			}
			switch name {
			case "shell_write_to_process":
				return errorResult(fmt.Sprintf("no process is running in shell session %q", id)), nil
			case "shell_kill_process":
				return textResult(formatShell(c.shell(id)) + "\nNo process was running."), nil
			}
			return textResult(formatShell(c.shell(id))), nil
		}
		switch name {
		case "shell_view":
			s, err = sh.ShellView(ctx, id)
		case "shell_wait":
			secs := 30.0
			if f, ok := number(m["seconds"]); ok {
				secs = f
			}
			if secs < 0 || secs > 600 {
				return errorResult(fmt.Sprintf("seconds: %s out of range 0..600", fmtCoord(secs))), nil
			}
			s, err = sh.ShellWait(ctx, id, api.ShellWaitRequest{WaitMS: int(secs * 1000)})
		case "shell_write_to_process":
			input, _ := m["input"].(string)
			enter, _ := m["press_enter"].(bool)
			s, err = sh.ShellWrite(ctx, id, api.ShellWriteRequest{Input: input, PressEnter: enter})
		case "shell_kill_process":
			s, err = sh.ShellKill(ctx, id)
		}
	default:
		return errorResult(fmt.Sprintf("unknown tool %q", name)), nil
	}
	if err != nil {
		if refused(err) {
			return errorResult(err.Error()), nil
		}
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	return Result{Content: []Part{{Type: "text", Text: formatShell(s)}}, Structured: s}, nil
}
