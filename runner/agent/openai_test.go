package agent

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// See anthropic_test.go: the OpenAI API is unreachable here, so the agent
// talks to a local server answering recorded Responses API responses.

func TestOpenAI(t *testing.T) {
	shot0, shot1 := testPNG(t, 1280, 800), testPNG(t, 1280, 801)
	dataURL := func(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }
	srv, n := recordedServer(t,
		recording{file: "openai_click.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			if r.URL.Path != "/responses" || r.Header.Get("Authorization") != "Bearer sk-test" {
				t.Errorf("%s with Authorization %q", r.URL.Path, r.Header.Get("Authorization"))
			}
			if body["model"] != "computer-use-preview" || body["truncation"] != "auto" || body["previous_response_id"] != nil {
				t.Errorf("model %v, truncation %v, previous %v", body["model"], body["truncation"], body["previous_response_id"])
			}
			if ins, _ := body["instructions"].(string); !strings.Contains(ins, "[INFEASIBLE]") {
				t.Errorf("instructions = %q", ins)
			}
			tool := path(body, "tools", 0)
			if path(tool, "type") != "computer_use_preview" || path(tool, "display_width") != 1280.0 || path(tool, "display_height") != 800.0 || path(tool, "environment") != "linux" {
				t.Errorf("tool = %v", tool)
			}
			msg := path(body, "input", 0)
			if path(msg, "role") != "user" || path(msg, "content", 0, "text") != "Record today's date." ||
				path(msg, "content", 1, "type") != "input_image" || path(msg, "content", 1, "image_url") != dataURL(shot0) {
				t.Errorf("first input = %v", msg)
			}
		}},
		recording{file: "openai_batch.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			if body["previous_response_id"] != "resp_67cc4f0bd6d48190a7c4e6a8b1d9e0f30c3b8d7e9a1b2c3d" {
				t.Errorf("previous_response_id = %v", body["previous_response_id"])
			}
			out := path(body, "input", 0)
			if path(out, "type") != "computer_call_output" || path(out, "call_id") != "call_zw3Tk5bJ9nq0fLkW1pDd7Yx2" ||
				path(out, "output", "type") != "computer_screenshot" || path(out, "output", "image_url") != dataURL(shot1) ||
				path(out, "acknowledged_safety_checks", 0, "id") != "cu_sc_67cc4f0f9b7c8190" {
				t.Errorf("computer_call_output = %v", out)
			}
		}},
		recording{file: "openai_done.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			out := path(body, "input", 0)
			if path(out, "call_id") != "call_Qm8Vb2Lx4Rt6Yp0Zs1Nc3Kd5" || path(out, "acknowledged_safety_checks") != nil {
				t.Errorf("computer_call_output = %v", out)
			}
		}},
	)
	o, err := NewOpenAI(OpenAIConfig{APIKey: "sk-test", BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if c := o.ObservationCall(); c.Dialect != "openai" || c.Tool != "computer" || string(c.Args) != `{"type":"screenshot"}` {
		t.Errorf("observation call = %+v", c)
	}
	ctx := t.Context()
	req := Request{Instruction: "Record today's date.", Observation: Observation{Screenshot: shot0, Width: 1280, Height: 800}}
	r0, err := o.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r0.Calls) != 1 || r0.Calls[0].Dialect != "openai" || r0.Calls[0].Tool != "computer" ||
		string(r0.Calls[0].Args) != `{"type": "click", "button": "left", "x": 200, "y": 120}` || r0.Done {
		t.Errorf("step 0 = %+v", r0)
	}
	req.Step, req.State, req.Observation.Screenshot = 1, r0.State, shot1
	r1, err := o.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Calls) != 1 || string(r1.Calls[0].Args) != `{"actions":[{"type": "type", "text": "date +%F > ~/today.txt"}, {"type": "keypress", "keys": ["ENTER"]}]}` {
		t.Errorf("step 1 = %+v", r1)
	}
	req.Step, req.State = 2, r1.State
	r2, err := o.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Done || r2.Fail || len(r2.Calls) != 0 || !strings.Contains(r2.Text, "today's date") {
		t.Errorf("step 2 = %+v", r2)
	}
	if *n != 3 {
		t.Errorf("%d requests, want 3", *n)
	}
}

func TestOpenAIInfeasibleAndErrors(t *testing.T) {
	srv, _ := recordedServer(t,
		recording{file: "openai_infeasible.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			if path(body, "tools", 0, "type") != "computer" || path(body, "tools", 0, "display_width") != nil {
				t.Errorf("tool for a later model = %v", path(body, "tools", 0))
			}
		}},
		recording{status: 429, file: "openai_rate_limited.json"},
	)
	o, err := NewOpenAI(OpenAIConfig{APIKey: "k", BaseURL: srv.URL, Model: "gpt-5.4", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Instruction: "Print the report.", Observation: Observation{Screenshot: testPNG(t, 64, 40), Width: 64, Height: 40}}
	r, err := o.Step(t.Context(), req)
	if err != nil || !r.Fail || r.Done {
		t.Errorf("infeasible answer = %+v, %v; want Fail", r, err)
	}
	_, err = o.Step(t.Context(), req)
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "rate_limit_exceeded") {
		t.Errorf("rate limited: err = %v", err)
	}
	if _, err := NewOpenAI(OpenAIConfig{}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("no key: err = %v", err)
	}
	if _, err := NewOpenAI(OpenAIConfig{APIKey: "k", Tool: "mouse"}); err == nil {
		t.Error("unknown tool accepted")
	}
}

func TestSecretHidden(t *testing.T) {
	s := Secret("sk-live-123")
	if s.String() != "REDACTED" || s.LogValue().String() != "REDACTED" {
		t.Errorf("secret shows as %q / %q", s.String(), s.LogValue().String())
	}
}
