//go:build e2e

package e2e

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// TestTypingInEightContainers types ten Unicode lines into a terminal in
// each of 8 containers at once, with busy processes loading the machine
// beside them, and checks that every character arrives.
func TestTypingInEightContainers(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	insts := make([]sandbox.Instance, 8)
	for i := range insts {
		insts[i] = startSandbox(t, p, sandbox.Spec{Image: minimalImage, Screen: api.Screen{Width: 800, Height: 600}})
	}
	for range 2 {
		busy := exec.Command("sh", "-c", "while :; do :; done")
		busy.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	terms := make([]agentdtest.Terminal, len(insts))
	for i, in := range insts {
		terms[i] = agentdtest.Terminal{URL: in.AgentURL, Token: in.Token}
	}
	agentdtest.TypeInTerminals(t, terms)
}
