package task

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// These tests run shipped tasks end to end: setup, the reference
// solution (its bash calls, which need no dialect), and evaluation, which
// must score 1; and without the solution, which must score 0.

// hostSandbox is a Sandbox made of processes on this machine with HOME
// in a temporary folder: enough for tasks that need files and a shell
// but no desktop.
type hostSandbox struct {
	home string
}

func (h *hostSandbox) Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error) {
	timeout := time.Duration(req.TimeoutMS) * time.Millisecond
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, req.Cmd[0], req.Cmd[1:]...)
	cmd.Dir = h.home
	cmd.Env = append(os.Environ(), "HOME="+h.home, "DISPLAY=")
	for k, v := range req.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(req.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	res := api.ExecResult{Stdout: stdout.String(), Stderr: stderr.String(), TimedOut: ctx.Err() != nil}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case errors.Is(err, exec.ErrNotFound):
		res.ExitCode, res.Stderr = 127, err.Error()
	case err != nil && !res.TimedOut:
		return res, err
	}
	return res, nil
}

func (h *hostSandbox) ReadFile(_ context.Context, path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errdefs.ErrNotFound.WithMessage(path + ": no such file")
	}
	return data, err
}

func (h *hostSandbox) WriteFile(_ context.Context, path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

func (h *hostSandbox) Health(context.Context) (api.Health, error) {
	return api.Health{Status: "ok", Screen: api.Screen{Width: 1280, Height: 800}}, nil
}

func (h *hostSandbox) Windows(context.Context) ([]api.Window, error) { return nil, nil }
func (h *hostSandbox) ActivateWindow(context.Context, uint32) error  { return errdefs.ErrNotFound }
func (h *hostSandbox) CloseWindow(context.Context, uint32) error     { return errdefs.ErrNotFound }

// shellOnly reports whether a task can run without a desktop: its
// solution is bash calls (no pyautogui) and its setup opens no window.
func shellOnly(tk *Task) bool {
	for _, s := range tk.Config {
		switch s.Type {
		case "open", "activate_window", "close_window":
			return false
		case "launch":
			if c, _ := s.Parameters["command"].([]any); len(c) > 0 && c[0] == "xterm" {
				return false
			}
		}
	}
	for _, c := range tk.Solution {
		switch {
		case c.Dialect == "anthropic" && c.Tool == "bash":
			if bytes.Contains(c.Args, []byte("pyautogui")) {
				return false
			}
		case c.Dialect == "osworld" && c.Tool == "desktop_control":
		default:
			return false
		}
	}
	return true
}

// playSolution runs the solution's bash calls in sb and returns the last
// desktop_control action in upper case (DONE or FAIL).
func playSolution(t *testing.T, sb Sandbox, tk *Task) string {
	t.Helper()
	last := ""
	for i, c := range tk.Solution {
		switch c.Tool {
		case "bash":
			var args struct{ Command string }
			if err := json.Unmarshal(c.Args, &args); err != nil {
				t.Fatalf("solution[%d]: %v", i, err)
			}
			res, err := sb.Exec(t.Context(), api.ExecRequest{Cmd: []string{"bash", "-c", args.Command}, TimeoutMS: 60_000})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("solution[%d] %q: exit %d, %v: %s", i, args.Command, res.ExitCode, err, res.Stderr)
			}
		case "desktop_control":
			var args struct{ Action string }
			_ = json.Unmarshal(c.Args, &args)
			last = strings.ToUpper(args.Action)
		}
	}
	return last
}

// checkTask sets the task up, evaluates it unsolved (want 0), then
// solved (want 1). newSandbox gives a fresh sandbox each time.
func checkTask(t *testing.T, tk *Task, newSandbox func(t *testing.T) Sandbox) {
	for _, solve := range []bool{false, true} {
		sb := newSandbox(t)
		cache := t.TempDir()
		opts := Options{CacheDir: cache, WindowTimeout: 5 * time.Second}
		if err := Setup(t.Context(), sb, tk, opts); err != nil {
			t.Fatalf("setup: %v", err)
		}
		last := ActionDone
		if solve {
			last = playSolution(t, sb, tk)
		}
		res, err := Evaluate(t.Context(), sb, tk, EvalOptions{Options: opts, LastAction: last})
		if err != nil {
			t.Fatalf("evaluate: %v", err)
		}
		switch {
		case solve && res.Score != 1:
			t.Errorf("solved: score %v, want 1; metrics %+v", res.Score, res.Metrics)
		case !solve && graded(tk) && res.Score >= 1:
			t.Errorf("unsolved: score %v, want less than 1; metrics %+v", res.Score, res.Metrics)
		case !solve && !graded(tk) && res.Score != 0:
			t.Errorf("unsolved: score %v, want 0; metrics %+v", res.Score, res.Metrics)
		}
	}
}

// graded reports whether a task's metrics give partial credit, so an
// unsolved task may score above 0.
func graded(tk *Task) bool {
	for _, f := range tk.Evaluator.Func {
		if f == "diff_text_file" || f == "fuzzy_match" {
			return true
		}
	}
	return false
}

func TestSuiteOnHost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs shell commands on this machine; skipped in -short mode")
	}
	for _, tool := range []string{"bash", "python3", "md5sum", "find"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	tasks, err := Load(suiteDir)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tk := range tasks {
		if !shellOnly(tk) {
			continue
		}
		ran++
		t.Run(tk.ID, func(t *testing.T) {
			if tk.Evaluator.Infeasible() {
				sb := &hostSandbox{home: t.TempDir()}
				if err := Setup(t.Context(), sb, tk, Options{}); err != nil {
					t.Fatal(err)
				}
				for last, want := range map[string]float64{playSolution(t, sb, tk): 1, ActionDone: 0} {
					res, err := Evaluate(t.Context(), sb, tk, EvalOptions{LastAction: last})
					if err != nil || res.Score != want {
						t.Errorf("last action %s: score %v, %v; want %v", last, res.Score, err, want)
					}
				}
				return
			}
			checkTask(t, tk, func(t *testing.T) Sandbox { return &hostSandbox{home: t.TempDir()} })
		})
	}
	if ran < 15 {
		t.Errorf("ran %d tasks without a desktop, want at least 15", ran)
	}
}

// agentdSandbox speaks agentd's HTTP API (the session calls of contract
// v1 without the session id).
type agentdSandbox struct {
	base, token string
	hc          *http.Client
}

func (a *agentdSandbox) do(ctx context.Context, method, path string, body io.Reader, out any) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil && out != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, api.ErrorFromResponse(resp.StatusCode, data)
	}
	if out != nil && len(data) > 0 {
		return data, json.Unmarshal(data, out)
	}
	return data, nil
}

func (a *agentdSandbox) Exec(ctx context.Context, req api.ExecRequest) (api.ExecResult, error) {
	body, _ := json.Marshal(req)
	var res api.ExecResult
	_, err := a.do(ctx, http.MethodPost, "/v1/exec", bytes.NewReader(body), &res)
	return res, err
}

func (a *agentdSandbox) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return a.do(ctx, http.MethodGet, "/v1/files?path="+url.QueryEscape(path), nil, nil)
}

func (a *agentdSandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	_, err := a.do(ctx, http.MethodPut, "/v1/files?path="+url.QueryEscape(path), bytes.NewReader(data), nil)
	return err
}

func (a *agentdSandbox) Health(ctx context.Context) (api.Health, error) {
	var h api.Health
	_, err := a.do(ctx, http.MethodGet, "/healthz", nil, &h)
	return h, err
}

func (a *agentdSandbox) Windows(ctx context.Context) ([]api.Window, error) {
	var l api.WindowList
	_, err := a.do(ctx, http.MethodGet, "/v1/windows", nil, &l)
	return l.Windows, err
}

func (a *agentdSandbox) ActivateWindow(ctx context.Context, id uint32) error {
	_, err := a.do(ctx, http.MethodPost, fmt.Sprintf("/v1/windows/%d/activate", id), nil, nil)
	return err
}

func (a *agentdSandbox) CloseWindow(ctx context.Context, id uint32) error {
	_, err := a.do(ctx, http.MethodPost, fmt.Sprintf("/v1/windows/%d/close", id), nil, nil)
	return err
}

// startAgentd starts agentd on its own Xvfb with HOME in a temporary
// folder (the shared harness builds it once; a failed build fails the
// test); it skips in -short mode.
func startAgentd(t *testing.T) *agentdSandbox {
	t.Helper()
	d := agentdtest.StartAgentd(t)
	return &agentdSandbox{base: d.URL, token: d.Token, hc: &http.Client{Timeout: 3 * time.Minute}}
}

func TestSuiteOnAgentd(t *testing.T) {
	a := startAgentd(t)
	tasks, err := Load(suiteDir)
	if err != nil {
		t.Fatal(err)
	}
	pick := map[string]bool{"files-copy-notes": true, "files-archive-flag": true, "shell-sqlite-insert": true,
		"shell-log-times": true, "shell-python-script": true, "infeasible-printer": true}
	n := 0
	for _, tk := range tasks {
		if !pick[tk.ID] {
			continue
		}
		t.Run(tk.ID, func(t *testing.T) {
			fresh := func(t *testing.T) Sandbox {
				// Clear what a previous run left in the home folder.
				_, err := a.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c",
					`cd "$HOME" && find . -mindepth 1 -maxdepth 1 -exec rm -rf {} +`}})
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			if tk.Evaluator.Infeasible() {
				sb := fresh(t)
				for last, want := range map[string]float64{ActionFail: 1, ActionDone: 0} {
					r, err := Evaluate(t.Context(), sb, tk, EvalOptions{LastAction: last})
					if err != nil || r.Score != want {
						t.Errorf("last action %s: score %v, %v; want %v", last, r.Score, err, want)
					}
				}
				return
			}
			checkTask(t, tk, fresh)
		})
		n++
	}
	if n != len(pick) {
		t.Errorf("ran %d of %d picked tasks", n, len(pick))
	}
}
