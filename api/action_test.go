package api

import (
	"net/url"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
)

func knownKey(k string) bool { return k == "Return" || k == "a" || k == "Control_L" }

func TestDecodeInput(t *testing.T) {
	screen := Screen{Width: 1280, Height: 800}
	tests := []struct {
		name    string
		body    string
		wantErr string // substring; empty means valid
	}{
		{"move", `{"actions":[{"type":"move","x":10,"y":20}]}`, ""},
		{"click bare", `{"actions":[{"type":"click"}]}`, ""},
		{"click at", `{"actions":[{"type":"click","x":1279,"y":799,"button":"right","count":2}]}`, ""},
		{"chord", `{"actions":[{"type":"key","keys":["Control_L","a"],"repeat":3}]}`, ""},
		{"type unicode", `{"actions":[{"type":"type","text":"straße 日本"}]}`, ""},
		{"scroll", `{"actions":[{"type":"scroll","dy":-3,"x":5,"y":5}]}`, ""},
		{"drag", `{"actions":[{"type":"drag","path":[[0,0],[10,10]]}]}`, ""},
		{"wait", `{"actions":[{"type":"wait","ms":100}]}`, ""},
		{"empty list", `{"actions":[]}`, ""},

		{"empty body", ``, "body: empty"},
		{"malformed", `{"actions":[`, "body:"},
		{"trailing", `{"actions":[]} {}`, "unexpected data"},
		{"no actions", `{}`, "actions: required"},
		{"unknown top field", `{"actions":[],"foo":1}`, "foo: unknown field"},
		{"unknown action field", `{"actions":[{"type":"move","x":1,"y":1,"z":3}]}`, "z: unknown field"},
		{"mistyped x", `{"actions":[{"type":"move","x":"10","y":20}]}`, "actions[0].x: want an integer, got string"},
		{"mistyped actions", `{"actions":{}}`, "actions: want an array"},
		{"missing type", `{"actions":[{"x":1}]}`, "actions[0].type: required"},
		{"unknown type", `{"actions":[{"type":"teleport"}]}`, `actions[0].type: unknown action type "teleport"`},
		{"move missing y", `{"actions":[{"type":"move","x":1}]}`, "actions[0].y: required"},
		{"off screen x", `{"actions":[{"type":"move","x":1280,"y":1}]}`, "actions[0].x: 1280 is off the screen (0..1279)"},
		{"negative y", `{"actions":[{"type":"click","x":1,"y":-1}]}`, "actions[0].y: -1 is off the screen"},
		{"click one coord", `{"actions":[{"type":"click","x":1}]}`, "actions[0].y: required when"},
		{"bad button", `{"actions":[{"type":"click","button":"left2"}]}`, `actions[0].button: unknown button "left2"`},
		{"count too big", `{"actions":[{"type":"click","count":11}]}`, "actions[0].count: 11 out of range"},
		{"unknown key", `{"actions":[{"type":"key","keys":["Return","hyperdrive"]}]}`, `actions[0].keys[1]: unknown key name "hyperdrive"`},
		{"no keys", `{"actions":[{"type":"key"}]}`, "actions[0].keys: required"},
		{"key_down unknown", `{"actions":[{"type":"key_down","key":"nope"}]}`, `actions[0].key: unknown key name "nope"`},
		{"field of other type", `{"actions":[{"type":"move","x":1,"y":1,"text":"hi"}]}`, `actions[0].text: not a field of "move" actions`},
		{"drag short", `{"actions":[{"type":"drag","path":[[0,0]]}]}`, "actions[0].path: want at least 2 points"},
		{"drag off", `{"actions":[{"type":"move","x":0,"y":0},{"type":"drag","path":[[0,0],[0,900]]}]}`, "actions[1].path[1].y: 900 is off the screen"},
		{"wait long", `{"actions":[{"type":"wait","ms":600000}]}`, "actions[0].ms: 600000 out of range"},
		{"scroll big", `{"actions":[{"type":"scroll","dy":1000}]}`, "actions[0].dy: 1000 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeInput(strings.NewReader(tt.body))
			if err == nil {
				err = req.Validate(screen, knownKey)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error, want %q", tt.wantErr)
			}
			if !errdefs.IsInvalidArgument(err) {
				t.Errorf("got class of %v, want invalid argument", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got %q, want it to contain %q", err, tt.wantErr)
			}
			if status, code := Classify(err); status != 400 || code != CodeInvalidArgument {
				t.Errorf("Classify = %d %s, want 400 invalid_argument", status, code)
			}
		})
	}
}

func FuzzDecodeInput(f *testing.F) {
	for _, s := range []string{
		`{"actions":[{"type":"move","x":10,"y":20}]}`,
		`{"actions":[{"type":"drag","path":[[0,0],[10,10]],"button":"left"}]}`,
		`{"actions":[{"type":"key","keys":["a"],"repeat":-1}]}`,
		`{"actions":[{"type":"type","text":"\u00df"}]}`,
		`{"actions":null}`, `[]`, `{"actions":[{"type":"scroll","dx":1e99}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		req, err := DecodeInput(strings.NewReader(body))
		if err != nil {
			if !errdefs.IsInvalidArgument(err) {
				t.Fatalf("decode error %v is not invalid argument", err)
			}
			return
		}
		if err := req.Validate(Screen{Width: 100, Height: 100}, knownKey); err != nil && !errdefs.IsInvalidArgument(err) {
			t.Fatalf("validate error %v is not invalid argument", err)
		}
	})
}

// TestDecodeJSONNamesTheElement: a value of the wrong type deep in the
// body is named with its indexes; a null body is refused.
func TestDecodeJSONNamesTheElement(t *testing.T) {
	for body, want := range map[string]string{
		`{"actions":[{"type":"drag","path":[[1,2],["a",3]]}]}`:              `actions[0].path[1][0]: want an integer, got string`,
		`{"actions":[{"type":"move","x":1,"y":2},{"type":"move","x":"1"}]}`: `actions[1].x: want an integer, got string`,
		`{"actions":{"type":"move"}}`:                                       `actions: want an array, got object`,
		`null`:                                                              `body: null, want a JSON object`,
		` null `:                                                            `body: null, want a JSON object`,
	} {
		var req InputRequest
		err := DecodeJSON(strings.NewReader(body), &req)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
}

func TestWaitIdleValidation(t *testing.T) {
	scr := Screen{Width: 100, Height: 100}
	ok := []Action{{Type: ActionWaitIdle, MS: 100}, {Type: ActionWaitIdle, MS: 100, TimeoutMS: 2000}}
	for _, a := range ok {
		if err := a.Validate(scr, nil); err != nil {
			t.Errorf("%+v: %v", a, err)
		}
	}
	bad := map[string]Action{
		"ms:":                       {Type: ActionWaitIdle},
		"ms: 20000":                 {Type: ActionWaitIdle, MS: 20000},
		"timeout_ms:":               {Type: ActionWaitIdle, MS: 100, TimeoutMS: -1},
		"timeout_ms: 50 is shorter": {Type: ActionWaitIdle, MS: 100, TimeoutMS: 50},
		"timeout_ms: not a field":   {Type: ActionWait, MS: 100, TimeoutMS: 50},
	}
	for want, a := range bad {
		err := a.Validate(scr, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: got %v, want an error with %q", a, err, want)
		}
	}
}

func TestScreenshotSettleQuery(t *testing.T) {
	o := ScreenshotOptions{SettleMS: 100, TimeoutMS: 1500}
	got, err := ParseScreenshotQuery(o.Query(), Screen{})
	if err != nil || got.SettleMS != 100 || got.TimeoutMS != 1500 {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for q, want := range map[string]string{"settle_ms=x": "settle_ms:", "settle_ms=99999": "settle_ms:", "timeout_ms=100": "timeout_ms: only with settle_ms"} {
		v, _ := url.ParseQuery(q)
		if _, err := ParseScreenshotQuery(v, Screen{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", q, err, want)
		}
	}
}
