//go:build e2e

package e2e

import (
	"testing"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
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
	agentdtest.Load(t, 2)
	terms := make([]agentdtest.Terminal, len(insts))
	for i, in := range insts {
		terms[i] = agentdtest.Terminal{URL: in.AgentURL, Token: in.Token}
	}
	agentdtest.TypeInTerminals(t, terms)
}

// TestTypeIntoFreshTerminalsDocker is agentd's TestTypeIntoFreshTerminals
// on a deskrun/desktop container with two busy processes beside it: 50
// trials of a terminal started just before one input call (click, type,
// Return, ctrl+d), text outside the keyboard map every second trial;
// every line must arrive exactly.
func TestTypeIntoFreshTerminalsDocker(t *testing.T) {
	cli := engine(t, desktopImage)
	p, _ := newProvider(t, cli, docker.Config{})
	in := startSandbox(t, p, sandbox.Spec{Image: desktopImage, Screen: api.Screen{Width: 1280, Height: 800}})
	agentdtest.Load(t, 2)
	rs := agentdtest.FreshTerminalTrials(t, agentdclient.NewClient(in.AgentURL, in.Token, nil), 50)
	exact := 0
	for i, r := range rs {
		if r.Exact() {
			exact++
			continue
		}
		t.Errorf("trial %d: typed %q, the terminal got %q (input call: %+v, error %v; lost without a word: %v)", i, r.Text, r.Got, r.Input.Results, r.Err, r.Lost())
	}
	t.Logf("%d of %d trials exact", exact, len(rs))
}
