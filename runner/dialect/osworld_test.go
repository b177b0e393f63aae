package dialect

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/x11/keysym"
)

// TestOSWorldSeedRules checks every valid combination and every invalid
// case that seeds/000 lists, tool by tool, against the seed's action
// objects and its exact error strings. The golden files show the same
// calls end to end; this table pins the seed's wording so that
// regenerating the golden files cannot change it unnoticed.
func TestOSWorldSeedRules(t *testing.T) {
	const (
		moveBoth   = "MOVE_TO requires both 'x' and 'y' parameters"
		clickXY    = "If 'x' is provided, 'y' must also be provided, and vice versa."
		actionReq  = "'action' parameter is required"
		upDown     = "Invalid action '%s'. Must be 'down' or 'up'."
		badButton  = "Invalid button '%s'. Must be 'left', 'right', or 'middle'."
		badClicks  = "Invalid num_clicks '%s'. Must be 1, 2, or 3."
		rightBoth  = "RIGHT_CLICK requires both 'x' and 'y', or neither."
		doubleBoth = "DOUBLE_CLICK requires both 'x' and 'y', or neither."
		dragBoth   = "DRAG_TO requires both 'x' and 'y' parameters"
		scrollOne  = "SCROLL requires at least one of 'dx' or 'dy'"
		typingText = "TYPING requires 'text' parameter"
		pressKey   = "PRESS requires 'key' parameter"
		badKey     = "Invalid key '%s'. Must be one of the valid keyboard keys."
		keyReq     = "'key' parameter is required"
		hotkeyKeys = "HOTKEY requires 'keys' parameter"
		keysList   = "'keys' must be a list, got %s"
		badListKey = "Invalid key '%s' in keys list. All keys must be valid keyboard keys."
		control    = "Invalid action '%s'. Must be 'wait', 'done', or 'fail'."
	)
	f := func(format, v string) string { return strings.Replace(format, "%s", v, 1) }
	tests := []struct {
		tool, args string
		// action is the OSWorld action object (JSON) for a valid call;
		// err the exact error for an invalid one.
		action, err string
	}{
		// §1 MOVE_TO
		{"desktop_mouse_move", `{"x":100,"y":200}`, `{"action_type":"MOVE_TO","parameters":{"x":100,"y":200}}`, ""},
		{"desktop_mouse_move", `{}`, "", moveBoth},
		{"desktop_mouse_move", `{"x":100}`, "", moveBoth},
		{"desktop_mouse_move", `{"y":200}`, "", moveBoth},
		// §2 CLICK
		{"desktop_mouse_click", `{}`, `{"action_type":"CLICK","parameters":{}}`, ""},
		{"desktop_mouse_click", `{"button":"left","x":100,"y":200}`, `{"action_type":"CLICK","parameters":{"button":"left","x":100,"y":200}}`, ""},
		{"desktop_mouse_click", `{"button":"right","x":1,"y":2,"num_clicks":2}`, `{"action_type":"CLICK","parameters":{"button":"right","num_clicks":2,"x":1,"y":2}}`, ""},
		{"desktop_mouse_click", `{"button":"middle"}`, `{"action_type":"CLICK","parameters":{"button":"middle"}}`, ""},
		{"desktop_mouse_click", `{"button":"right","num_clicks":3}`, `{"action_type":"CLICK","parameters":{"button":"right","num_clicks":3}}`, ""},
		{"desktop_mouse_click", `{"x":100,"y":200}`, `{"action_type":"CLICK","parameters":{"x":100,"y":200}}`, ""},
		{"desktop_mouse_click", `{"x":100,"y":200,"num_clicks":2}`, `{"action_type":"CLICK","parameters":{"num_clicks":2,"x":100,"y":200}}`, ""},
		{"desktop_mouse_click", `{"x":100,"y":200,"button":"middle"}`, `{"action_type":"CLICK","parameters":{"button":"middle","x":100,"y":200}}`, ""},
		{"desktop_mouse_click", `{"num_clicks":1}`, `{"action_type":"CLICK","parameters":{"num_clicks":1}}`, ""},
		{"desktop_mouse_click", `{"x":100}`, "", clickXY},
		{"desktop_mouse_click", `{"y":200}`, "", clickXY},
		{"desktop_mouse_click", `{"x":100,"button":"left"}`, "", clickXY},
		{"desktop_mouse_click", `{"button":"center"}`, "", f(badButton, "center")},
		{"desktop_mouse_click", `{"button":"LEFT"}`, "", f(badButton, "LEFT")},
		{"desktop_mouse_click", `{"num_clicks":0}`, "", f(badClicks, "0")},
		{"desktop_mouse_click", `{"num_clicks":4}`, "", f(badClicks, "4")},
		{"desktop_mouse_click", `{"num_clicks":5}`, "", f(badClicks, "5")},
		{"desktop_mouse_click", `{"num_clicks":1.5}`, "", f(badClicks, "1.5")},
		// §3 MOUSE_DOWN / MOUSE_UP
		{"desktop_mouse_button", `{"action":"down"}`, `{"action_type":"MOUSE_DOWN","parameters":{}}`, ""},
		{"desktop_mouse_button", `{"action":"down","button":"right"}`, `{"action_type":"MOUSE_DOWN","parameters":{"button":"right"}}`, ""},
		{"desktop_mouse_button", `{"action":"down","button":"left"}`, `{"action_type":"MOUSE_DOWN","parameters":{"button":"left"}}`, ""},
		{"desktop_mouse_button", `{"action":"up"}`, `{"action_type":"MOUSE_UP","parameters":{}}`, ""},
		{"desktop_mouse_button", `{"action":"up","button":"left"}`, `{"action_type":"MOUSE_UP","parameters":{"button":"left"}}`, ""},
		{"desktop_mouse_button", `{"action":"press"}`, "", f(upDown, "press")},
		{"desktop_mouse_button", `{}`, "", actionReq},
		{"desktop_mouse_button", `{"button":"left"}`, "", actionReq},
		{"desktop_mouse_button", `{"action":"down","button":"center"}`, "", f(badButton, "center")},
		{"desktop_mouse_button", `{"action":"down","x":1,"y":2}`, "", "Invalid parameter 'x'. MOUSE_DOWN accepts only 'action' and 'button'."},
		// §4 RIGHT_CLICK
		{"desktop_mouse_right_click", `{}`, `{"action_type":"RIGHT_CLICK","parameters":{}}`, ""},
		{"desktop_mouse_right_click", `{"x":100,"y":200}`, `{"action_type":"RIGHT_CLICK","parameters":{"x":100,"y":200}}`, ""},
		{"desktop_mouse_right_click", `{"x":100}`, "", rightBoth},
		{"desktop_mouse_right_click", `{"y":200}`, "", rightBoth},
		// §5 DOUBLE_CLICK
		{"desktop_mouse_double_click", `{}`, `{"action_type":"DOUBLE_CLICK","parameters":{}}`, ""},
		{"desktop_mouse_double_click", `{"x":100,"y":200}`, `{"action_type":"DOUBLE_CLICK","parameters":{"x":100,"y":200}}`, ""},
		{"desktop_mouse_double_click", `{"x":100}`, "", doubleBoth},
		{"desktop_mouse_double_click", `{"y":200}`, "", doubleBoth},
		// §6 DRAG_TO
		{"desktop_mouse_drag", `{"x":100,"y":200}`, `{"action_type":"DRAG_TO","parameters":{"x":100,"y":200}}`, ""},
		{"desktop_mouse_drag", `{}`, "", dragBoth},
		{"desktop_mouse_drag", `{"x":100}`, "", dragBoth},
		{"desktop_mouse_drag", `{"y":200}`, "", dragBoth},
		// §7 SCROLL
		{"desktop_scroll", `{"dx":5}`, `{"action_type":"SCROLL","parameters":{"dx":5}}`, ""},
		{"desktop_scroll", `{"dy":-3}`, `{"action_type":"SCROLL","parameters":{"dy":-3}}`, ""},
		{"desktop_scroll", `{"dy":-5}`, `{"action_type":"SCROLL","parameters":{"dy":-5}}`, ""},
		{"desktop_scroll", `{"dx":5,"dy":-3}`, `{"action_type":"SCROLL","parameters":{"dx":5,"dy":-3}}`, ""},
		{"desktop_scroll", `{"dx":3,"dy":-2}`, `{"action_type":"SCROLL","parameters":{"dx":3,"dy":-2}}`, ""},
		{"desktop_scroll", `{}`, "", scrollOne},
		// §8 TYPING
		{"desktop_type", `{"text":"hello"}`, `{"action_type":"TYPING","parameters":{"text":"hello"}}`, ""},
		{"desktop_type", `{"text":""}`, `{"action_type":"TYPING","parameters":{"text":""}}`, ""},
		{"desktop_type", `{"text":"Hello World!"}`, `{"action_type":"TYPING","parameters":{"text":"Hello World!"}}`, ""},
		{"desktop_type", `{}`, "", typingText},
		// §9 PRESS
		{"desktop_key_press", `{"key":"enter"}`, `{"action_type":"PRESS","parameters":{"key":"enter"}}`, ""},
		{"desktop_key_press", `{"key":"a"}`, `{"action_type":"PRESS","parameters":{"key":"a"}}`, ""},
		{"desktop_key_press", `{"key":"ENTER"}`, `{"action_type":"PRESS","parameters":{"key":"ENTER"}}`, ""},
		{"desktop_key_press", `{}`, "", pressKey},
		{"desktop_key_press", `{"key":"invalid_key"}`, "", f(badKey, "invalid_key")},
		// §10 KEY_DOWN / KEY_UP
		{"desktop_key_hold", `{"action":"down","key":"ctrl"}`, `{"action_type":"KEY_DOWN","parameters":{"key":"ctrl"}}`, ""},
		{"desktop_key_hold", `{"action":"down","key":"shift"}`, `{"action_type":"KEY_DOWN","parameters":{"key":"shift"}}`, ""},
		{"desktop_key_hold", `{"action":"up","key":"shift"}`, `{"action_type":"KEY_UP","parameters":{"key":"shift"}}`, ""},
		{"desktop_key_hold", `{"action":"press","key":"ctrl"}`, "", f(upDown, "press")},
		{"desktop_key_hold", `{"key":"ctrl"}`, "", actionReq},
		{"desktop_key_hold", `{"action":"down"}`, "", keyReq},
		{"desktop_key_hold", `{"action":"down","key":"invalid_key"}`, "", f(badKey, "invalid_key")},
		// §11 HOTKEY
		{"desktop_hotkey", `{"keys":["ctrl","c"]}`, `{"action_type":"HOTKEY","parameters":{"keys":["ctrl","c"]}}`, ""},
		{"desktop_hotkey", `{"keys":["ctrl","shift","t"]}`, `{"action_type":"HOTKEY","parameters":{"keys":["ctrl","shift","t"]}}`, ""},
		{"desktop_hotkey", `{}`, "", hotkeyKeys},
		{"desktop_hotkey", `{"keys":"ctrl"}`, "", f(keysList, "str")},
		{"desktop_hotkey", `{"keys":["ctrl","invalid_key"]}`, "", f(badListKey, "invalid_key")},
		{"desktop_hotkey", `{"keys":["ctrl","invalid"]}`, "", f(badListKey, "invalid")},
		// §12 WAIT / DONE / FAIL: strings, not objects
		{"desktop_control", `{"action":"wait"}`, `"WAIT"`, ""},
		{"desktop_control", `{"action":"done"}`, `"DONE"`, ""},
		{"desktop_control", `{"action":"fail"}`, `"FAIL"`, ""},
		{"desktop_control", `{"action":"pause"}`, "", f(control, "pause")},
		{"desktop_control", `{}`, "", actionReq},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			p, err := compileOSWorld(tt.tool, json.RawMessage(tt.args))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("got action %s, want error %q", compactJSON(p.Action), tt.err)
				}
				if got := errMessage(err); got != tt.err {
					t.Errorf("error:\ngot  %q\nwant %q", got, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %q, want action %s", errMessage(err), tt.action)
			}
			if got := compactJSON(p.Action); got != tt.action {
				t.Errorf("action:\ngot  %s\nwant %s", got, tt.action)
			}
		})
	}
}

// TestOSWorldKeyboardKeys presses every key of KEYBOARD_KEYS (seeds/000),
// as given and upper-cased: each is valid, and each but the two keys X
// has no keysym for resolves to a key agentd knows.
func TestOSWorldKeyboardKeys(t *testing.T) {
	if len(keysym.PyautoguiKeys()) != 193 {
		t.Errorf("KEYBOARD_KEYS has %d keys, seeds/000 lists 193", len(keysym.PyautoguiKeys()))
	}
	for _, k := range keysym.PyautoguiKeys() {
		for _, key := range []string{k, strings.ToUpper(k)} {
			args, _ := json.Marshal(map[string]any{"key": key})
			p, err := compileOSWorld("desktop_key_press", args)
			if err != nil {
				t.Errorf("PRESS %q: %v", key, errMessage(err))
				continue
			}
			s := p.Steps[0]
			switch {
			case k == "accept" || k == "final":
				if s.Op != opFail {
					t.Errorf("PRESS %q: got step %s, want it to fail when run", key, s.Op)
				}
			case s.Op != opInput:
				t.Errorf("PRESS %q: got step %s %q", key, s.Op, s.Text)
			case !knownKeysym(s.Actions[0].Keys[0]):
				t.Errorf("PRESS %q: keysym %q unknown to agentd", key, s.Actions[0].Keys[0])
			}
		}
	}
}

// TestOSWorldErrorEnvelope checks the envelope of a refused call field
// by field (seeds/000 错误返回格式).
func TestOSWorldErrorEnvelope(t *testing.T) {
	f := newFake(fakeConfig{})
	st := &State{Now: func() time.Time { return time.Date(2025, 1, 31, 8, 9, 10, 0, time.UTC) }}
	res, err := OSWorld.Call(t.Context(), f.desktop(), st, "desktop_mouse_click", json.RawMessage(`{"x":100}`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Done {
		t.Errorf("IsError %v, Done %v; want true, false", res.IsError, res.Done)
	}
	if len(f.trace) != 0 {
		t.Errorf("a refused call reached the desktop: %v", f.trace)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil {
		t.Fatalf("envelope text: %v", err)
	}
	want := map[string]any{
		"observation": map[string]any{},
		"reward":      0.0,
		"done":        false,
		"info":        map[string]any{"error": "If 'x' is provided, 'y' must also be provided, and vice versa."},
		"metadata": map[string]any{
			"step_num":          0.0,
			"timestamp":         "2025-01-31T08:09:10.000000",
			"screenshot_file":   nil,
			"action":            nil,
			"validation_failed": true,
		},
	}
	if g, w := compactJSON(got), compactJSON(want); g != w {
		t.Errorf("envelope:\ngot  %s\nwant %s", g, w)
	}
	if !strings.Contains(res.Text(), `"reward": 0.0,`) {
		t.Errorf("reward is not written 0.0 as in the seed:\n%s", res.Text())
	}
	if _, ok := res.Structured.(osworldStep); !ok {
		t.Errorf("structured content is %T, want the step envelope", res.Structured)
	}
}

// TestOSWorldToolList checks that the tools compileOSWorld knows are the
// ones the dialect defines, the 12 of seeds/000's 工具总览表.
func TestOSWorldToolList(t *testing.T) {
	var defined []string
	for _, d := range OSWorld.Tools() {
		if d.Name != infoToolName {
			defined = append(defined, d.Name)
		}
	}
	if len(osworldTools) != 12 || !slices.Equal(defined, osworldTools) {
		t.Errorf("defined %v, compiled %v", defined, osworldTools)
	}
}
