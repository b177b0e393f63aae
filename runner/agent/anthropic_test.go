package agent

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
)

// The Anthropic and OpenAI APIs cannot be reached from where these tests
// run. The model agents are tested against a local httptest server that
// answers with recorded API responses (testdata/*.json, in the shape the
// APIs document) and checks what the official SDKs send.

// recording is one exchange of a recorded server: the response it gives
// and checks of the request that gets it.
type recording struct {
	status int
	file   string // under testdata
	check  func(t *testing.T, r *http.Request, body map[string]any)
}

// recordedServer answers the requests in order with recs, failing the
// test on a request too many.
func recordedServer(t *testing.T, recs ...recording) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if i >= len(recs) {
			t.Errorf("request %d: %s %s, but only %d were recorded", i, r.Method, r.URL.Path, len(recs))
			http.Error(w, "no recording", http.StatusTeapot)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request %d: body is not JSON: %v", i, err)
		}
		if recs[i].check != nil {
			recs[i].check(t, r, body)
		}
		data, err := os.ReadFile(filepath.Join("testdata", recs[i].file))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		status := recs[i].status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// path walks a decoded JSON value: string keys index objects, ints
// index arrays.
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func TestAnthropic(t *testing.T) {
	shot := testPNG(t, 1280, 800)
	srv, n := recordedServer(t,
		recording{file: "anthropic_click_and_bash.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			if r.URL.Path != "/v1/messages" {
				t.Errorf("path = %s", r.URL.Path)
			}
			if r.Header.Get("X-Api-Key") != "sk-ant-test" {
				t.Errorf("x-api-key = %q", r.Header.Get("X-Api-Key"))
			}
			if !strings.Contains(r.Header.Get("Anthropic-Beta"), "computer-use-2025-01-24") {
				t.Errorf("anthropic-beta = %q", r.Header.Get("Anthropic-Beta"))
			}
			if body["model"] != "claude-test" || body["max_tokens"] != 4096.0 {
				t.Errorf("model %v, max_tokens %v", body["model"], body["max_tokens"])
			}
			tools := body["tools"].([]any)
			if len(tools) != 3 || path(tools, 0, "type") != "computer_20250124" || path(tools, 0, "name") != "computer" ||
				path(tools, 0, "display_width_px") != 1280.0 || path(tools, 0, "display_height_px") != 800.0 ||
				path(tools, 1, "type") != "bash_20250124" || path(tools, 2, "type") != "text_editor_20250728" ||
				path(tools, 2, "name") != "str_replace_based_edit_tool" {
				t.Errorf("tools = %v", tools)
			}
			if s, _ := path(body, "system", 0, "text").(string); !strings.Contains(s, "[INFEASIBLE]") || !strings.Contains(s, "1280x800") {
				t.Errorf("system = %q", s)
			}
			msgs := body["messages"].([]any)
			if len(msgs) != 1 || path(msgs, 0, "role") != "user" || path(msgs, 0, "content", 0, "text") != "Write hello into ~/hello.txt." ||
				path(msgs, 0, "content", 1, "type") != "image" || path(msgs, 0, "content", 1, "source", "media_type") != "image/png" {
				t.Errorf("messages = %v", msgs)
			}
		}},
		recording{file: "anthropic_done.json", check: func(t *testing.T, r *http.Request, body map[string]any) {
			msgs := body["messages"].([]any)
			if len(msgs) != 3 {
				t.Fatalf("second request has %d messages, want user, assistant, user", len(msgs))
			}
			// The assistant's answer goes back as it came.
			if path(msgs, 1, "role") != "assistant" || path(msgs, 1, "content", 1, "id") != "toolu_01A09q90qw90lq917835lq9" ||
				path(msgs, 1, "content", 2, "input", "command") != "echo hello > ~/hello.txt && cat ~/hello.txt" {
				t.Errorf("assistant message = %v", msgs[1])
			}
			results := path(msgs, 2, "content").([]any)
			if len(results) != 2 {
				t.Fatalf("%d tool results, want 2", len(results))
			}
			if path(results, 0, "type") != "tool_result" || path(results, 0, "tool_use_id") != "toolu_01A09q90qw90lq917835lq9" ||
				path(results, 0, "content", 0, "type") != "image" || path(results, 0, "is_error") != nil {
				t.Errorf("computer result = %v", results[0])
			}
			if path(results, 1, "tool_use_id") != "toolu_01BkqpMbZ3jN9fKk7yQk2xYz" || path(results, 1, "content", 0, "text") != "hello" {
				t.Errorf("bash result = %v", results[1])
			}
		}},
	)
	a, err := NewAnthropic(AnthropicConfig{APIKey: "sk-ant-test", BaseURL: srv.URL, Model: "claude-test", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if c := a.ObservationCall(); c.Dialect != "anthropic" || c.Tool != "computer" || string(c.Args) != `{"action":"screenshot"}` {
		t.Errorf("observation call = %+v", c)
	}
	ctx := t.Context()
	req := Request{TaskID: "t", Instruction: "Write hello into ~/hello.txt.", Observation: Observation{Screenshot: shot, Width: 1280, Height: 800}}
	r0, err := a.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r0.Done || r0.Fail || len(r0.Calls) != 2 || r0.Dialect != "anthropic" ||
		r0.Calls[0].Tool != "computer" || string(r0.Calls[0].Args) != `{"action": "left_click", "coordinate": [200, 120]}` ||
		r0.Calls[1].Tool != "bash" || !strings.Contains(r0.Text, "click into the terminal") {
		t.Errorf("step 0 = %+v", r0)
	}
	for _, c := range r0.Calls {
		if c.Dialect != "anthropic" {
			t.Errorf("call %s in dialect %q", c.Tool, c.Dialect)
		}
	}
	req.Step, req.State = 1, r0.State
	req.History = []Turn{{Step: 0, Calls: r0.Calls, Results: []CallOutcome{
		{Images: []Image{{MIMEType: "image/png", Data: shot, Width: 1280, Height: 800}}},
		{Text: "hello"},
	}}}
	r1, err := a.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !r1.Done || r1.Fail || len(r1.Calls) != 0 || !strings.Contains(r1.Text, "complete") {
		t.Errorf("step 1 = %+v", r1)
	}
	if *n != 2 {
		t.Errorf("%d requests, want 2", *n)
	}
}

func TestAnthropicInfeasibleAndErrors(t *testing.T) {
	srv, _ := recordedServer(t,
		recording{file: "anthropic_infeasible.json"},
		recording{status: 529, file: "anthropic_overloaded.json"},
	)
	a, err := NewAnthropic(AnthropicConfig{APIKey: "k", BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Instruction: "Pair the bluetooth headphones.", Observation: Observation{Screenshot: testPNG(t, 64, 40), Width: 64, Height: 40}}
	r, err := a.Step(t.Context(), req)
	if err != nil || !r.Fail || r.Done {
		t.Errorf("infeasible answer = %+v, %v; want Fail", r, err)
	}
	_, err = a.Step(t.Context(), req)
	if err == nil || !strings.Contains(err.Error(), "529") || !strings.Contains(err.Error(), "Overloaded") {
		t.Errorf("overloaded API: err = %v", err)
	}
	if _, err := NewAnthropic(AnthropicConfig{}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: err = %v", err)
	}
	if _, err := NewAnthropic(AnthropicConfig{APIKey: "k", ComputerTool: "computer_1999"}); err == nil {
		t.Error("unknown computer tool version accepted")
	}
}

func TestAnthropicKeepImages(t *testing.T) {
	img := func() anthropic.BetaContentBlockParamUnion {
		return anthropic.NewBetaImageBlock(base64Image("image/png", []byte("x")))
	}
	result := func(id string) anthropic.BetaContentBlockParamUnion {
		return toolResults([]string{id}, Turn{Results: []CallOutcome{{Text: "ok", Images: []Image{{MIMEType: "image/png", Data: []byte("y")}}}}})[0]
	}
	msgs := []anthropic.BetaMessageParam{
		anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("task"), img()),
		{Role: anthropic.BetaMessageParamRoleAssistant, Content: []anthropic.BetaContentBlockParamUnion{anthropic.NewBetaTextBlock("a")}},
		anthropic.NewBetaUserMessage(result("1")),
		{Role: anthropic.BetaMessageParamRoleAssistant, Content: []anthropic.BetaContentBlockParamUnion{anthropic.NewBetaTextBlock("b")}},
		anthropic.NewBetaUserMessage(result("2"), result("3")),
	}
	keepImages(msgs, 2)
	b, _ := json.Marshal(msgs)
	s := string(b)
	if got := strings.Count(s, `"type":"image"`); got != 2 {
		t.Errorf("%d images kept, want 2: %s", got, s)
	}
	if got := strings.Count(s, omittedImage); got != 2 {
		t.Errorf("%d images replaced, want 2: %s", got, s)
	}
	// The latest two are the ones kept.
	last, _ := json.Marshal(msgs[4])
	if strings.Count(string(last), `"type":"image"`) != 2 {
		t.Errorf("the latest message lost an image: %s", last)
	}
}

func TestAnthropicNotRunResults(t *testing.T) {
	got := toolResults([]string{"a", "b"}, Turn{Results: []CallOutcome{{Text: "refused", IsError: true}}})
	b, _ := json.Marshal(got)
	var v []any
	json.Unmarshal(b, &v)
	if path(v, 0, "is_error") != true || path(v, 0, "content", 0, "text") != "refused" || path(v, 1, "tool_use_id") != "b" ||
		path(v, 1, "is_error") != true || path(v, 1, "content", 0, "text") != "not run" {
		t.Errorf("tool results = %s", b)
	}
}
