package dialect

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestToolTextCapped: a tool types at most as much as one REST type
// action (api.MaxTextLen characters); more is a tool error, and nothing
// is typed.
func TestToolTextCapped(t *testing.T) {
	long := strings.Repeat("é", 10_001)
	for _, c := range []struct{ dialect, tool, args string }{
		{"anthropic", "computer", `{"action":"type","text":"` + long + `"}`},
		{"osworld", "desktop_type", `{"text":"` + long + `"}`},
		{"openai", "computer", `{"type":"type","text":"` + long + `"}`},
	} {
		dl, _ := ByName(c.dialect)
		f := newFake(fakeConfig{})
		res, err := dl.Call(t.Context(), f, &State{}, c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.dialect, err)
		}
		if !res.IsError || !strings.Contains(res.Text(), "10001 characters, at most 10000") {
			t.Errorf("%s: %+v, want a tool error naming the cap", c.dialect, res.Text())
		}
		if f.inputs != 0 {
			t.Errorf("%s: %d input requests, want none", c.dialect, f.inputs)
		}
	}
	// At the cap it types.
	dl, _ := ByName("anthropic")
	f := newFake(fakeConfig{})
	res, err := dl.Call(t.Context(), f, &State{}, "computer", json.RawMessage(`{"action":"type","text":"`+strings.Repeat("a", 10_000)+`"}`))
	if err != nil || res.IsError {
		t.Errorf("10000 characters: %v %s", err, res.Text())
	}
}
