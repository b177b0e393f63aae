package agentd

import (
	"testing"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// TestTypeIntoFreshTerminals types into a terminal started just before,
// as an agent's first action on a new window does: 50 trials of one
// input call each (click, type, Return, ctrl+d) with text outside the
// keyboard map every second trial, once on a quiet desktop and once with
// two busy processes beside it. Every line must arrive exactly: typing
// outside the map rebinds keycodes, the window manager takes in each
// change, and keys sent before it caught up with the click went to the
// window that had the focus before, lost while the call answered ok.
func TestTypeIntoFreshTerminals(t *testing.T) {
	needX(t)
	s, err := Start(t.Context(), Config{Addr: "127.0.0.1:0", Xvfb: true, WM: "openbox", Screen: api.Screen{Width: 1280, Height: 800}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(t.Context()) })
	c := client.NewClient("http://"+s.Addr(), token, nil)
	for _, tc := range []struct {
		name string
		busy int
	}{{"quiet", 0}, {"loaded", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			agentdtest.Load(t, tc.busy)
			checkFreshTerminals(t, agentdtest.FreshTerminalTrials(t, c, 50))
		})
	}
}

// checkFreshTerminals fails the test for each trial whose line did not
// arrive exactly.
func checkFreshTerminals(t *testing.T, rs []agentdtest.FreshTerminalTrial) {
	t.Helper()
	exact := 0
	for i, r := range rs {
		if r.Exact() {
			exact++
			continue
		}
		t.Errorf("trial %d: typed %q, the terminal got %q (input call: %+v, error %v; lost without a word: %v; focus then on %q)", i, r.Text, r.Got, r.Input.Results, r.Err, r.Lost(), r.Focus)
	}
	t.Logf("%d of %d trials exact", exact, len(rs))
}
