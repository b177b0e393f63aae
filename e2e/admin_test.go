//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// TestTaskSudoSetup: an OSWorld task whose setup calls sudo the way
// OSWorld's do runs on a docker session through the admin channel, and
// its getters read what root made; the agent's own exec still cannot use
// sudo.
func TestTaskSudoSetup(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"docker": p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(t.Context()) })
	s, err := m.Create(t.Context(), api.CreateSessionRequest{Image: minimalImage})
	if err != nil {
		t.Fatal(err)
	}

	tk, err := task.Parse([]byte(`{
	  "id": "sudo-setup",
	  "instruction": "nothing to do",
	  "config": [
	    {"type": "execute", "parameters": {"command": "echo {CLIENT_PASSWORD} | sudo -S sh -c 'echo managed > /etc/deskrun-policy && chmod 644 /etc/deskrun-policy'", "shell": true}},
	    {"type": "execute", "parameters": {"command": ["bash", "-c", "echo {CLIENT_PASSWORD} | sudo -S chown root:root ~/Desktop && echo root-owned > /tmp/setup-done"]}}
	  ],
	  "evaluator": {
	    "func": ["exact_match", "exact_match"],
	    "result": [
	      {"type": "vm_command_line", "command": "cat /etc/deskrun-policy"},
	      {"type": "vm_command_line", "command": "stat -c %U ~/Desktop", "shell": true}
	    ],
	    "expected": [
	      {"type": "rule", "rules": {"expected": "managed\n"}},
	      {"type": "rule", "rules": {"expected": "root\n"}}
	    ]
	  }
	}`), "json")
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Setup(t.Context(), s, tk, task.Options{}); err != nil {
		t.Fatalf("setup: %v", err)
	}
	got, err := task.Evaluate(t.Context(), s, tk, task.EvalOptions{})
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	if got.Score != 1 {
		t.Errorf("score %v (%+v), want 1: the sudo steps did not take effect", got.Score, got.Metrics)
	}

	// The agent's channel is the desktop user's, without sudo.
	res, err := s.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c", "echo password | sudo -S true"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == 0 {
		t.Error("sudo worked through the session's exec")
	}
}

// TestSessionSudo: a session that opts in to sudo says so, and its agent
// can run sudo with the client password; root there holds no more than
// the sandbox's bounding set.
func TestSessionSudo(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"docker": p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(t.Context()) })
	s, err := m.Create(t.Context(), api.CreateSessionRequest{Image: minimalImage, Sudo: true})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Info().Sudo {
		t.Error("the session does not say it allows sudo")
	}
	res, err := s.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c", "echo password | sudo -S sh -c 'id -un; grep CapBnd /proc/self/status'"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "root\n") || !strings.Contains(res.Stdout, "00000000000000eb") {
		t.Errorf("sudo in a sudo session: exit %d, %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}
