package farm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/deskrun/deskrun/runner/agent"
)

// The model agents against real sandboxes. The Anthropic and OpenAI APIs
// are unreachable from here: a local server plays the API, answering with
// responses in the recorded shape of the real ones, and checks what the
// agents send (the screenshots, the tool results).

// modelServer answers the i-th request with answers[i](body).
func modelServer(t *testing.T, answers ...func(t *testing.T, body map[string]any) string) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || i >= len(answers) {
			t.Errorf("request %d: %v (%d answers recorded)", i, err, len(answers))
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answers[i](t, body))
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// dig walks decoded JSON by object keys and array indexes.
func dig(v any, keys ...any) any {
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

// checkPNG checks that s is a base64 PNG (optionally in a data URL) of
// the given size.
func checkPNG(t *testing.T, what string, s any, w, h int) {
	t.Helper()
	str, _ := s.(string)
	str = strings.TrimPrefix(str, "data:image/png;base64,")
	b, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		t.Errorf("%s: not base64: %v", what, err)
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != w || cfg.Height != h {
		t.Errorf("%s: %dx%d %v, want a %dx%d PNG", what, cfg.Width, cfg.Height, err, w, h)
	}
}

func TestAnthropicAgentSolvesTask(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	srv, requests := modelServer(t,
		func(t *testing.T, body map[string]any) string {
			checkPNG(t, "first screenshot", dig(body, "messages", 0, "content", 1, "source", "data"), 1280, 800)
			if dig(body, "tools", 0, "display_width_px") != 1280.0 {
				t.Errorf("computer tool = %v", dig(body, "tools", 0))
			}
			return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
				"content":[{"type":"text","text":"I'll click the desktop, then copy the file."},
				{"type":"tool_use","id":"toolu_01","name":"computer","input":{"action":"left_click","coordinate":[640,400]}},
				{"type":"tool_use","id":"toolu_02","name":"bash","input":{"command":"cp ~/Desktop/notes.txt ~/Documents/notes.txt && ls ~/Documents"}}],
				"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1600,"output_tokens":90}}`
		},
		func(t *testing.T, body map[string]any) string {
			results := dig(body, "messages", 2, "content")
			if dig(results, 0, "tool_use_id") != "toolu_01" || dig(results, 1, "tool_use_id") != "toolu_02" {
				t.Errorf("tool results = %v", results)
			}
			var sawShot bool
			for _, c := range dig(results, 0, "content").([]any) {
				if dig(c, "type") == "image" {
					sawShot = true
					checkPNG(t, "screenshot after the click", dig(c, "source", "data"), 1280, 800)
				}
			}
			if !sawShot {
				t.Errorf("the click's result has no screenshot: %v", dig(results, 0))
			}
			if out, _ := dig(results, 1, "content", 0, "text").(string); !strings.Contains(out, "notes.txt") {
				t.Errorf("bash result = %v", dig(results, 1))
			}
			return `{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
				"content":[{"type":"text","text":"notes.txt is now in ~/Documents."}],
				"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3400,"output_tokens":12,"cache_read_input_tokens":1000,"cache_creation_input_tokens":200}}`
		},
	)
	ag, err := agent.NewAnthropic(agent.AnthropicConfig{APIKey: "test", BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	results, err := Run(t.Context(), Config{Manager: m, Agent: ag, Out: out}, loadSuite(t, "files-copy-notes"))
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != StatusPassed || r.Steps != 2 || r.LastAction != "DONE" {
		t.Errorf("result = %+v", r)
	}
	// The tokens of both answers, priced at the list price of the
	// model the API named.
	u := results[0].Usage
	if u == nil || *u != (agent.Usage{Model: "claude-sonnet-4-5-20250929", InputTokens: 5000, OutputTokens: 102, CacheReadTokens: 1000, CacheWriteTokens: 200}) {
		t.Errorf("usage = %+v", u)
	}
	if want := (5000*3 + 102*15 + 1000*0.30 + 200*3.75) / 1e6; results[0].CostUSD != round6(want) {
		t.Errorf("cost = %v, want %v", results[0].CostUSD, round6(want))
	}
	if s := Summarize(results)[0]; s.InputTokens != 5000 || s.CacheReadTokens != 1000 || s.CostUSD != round6((5000*3+102*15+1000*0.30+200*3.75)/1e6) {
		t.Errorf("summary = %+v", s)
	}
	if requests() != 2 {
		t.Errorf("%d API requests, want 2", requests())
	}
	steps, _ := ReadTrajectory(out + "/" + DirName("files-copy-notes"))
	if len(steps) != 3 || !strings.Contains(steps[0].Text, "copy the file") || len(steps[0].Calls) != 2 || !steps[1].Done {
		t.Errorf("trajectory = %+v", steps)
	}
	checkNoLeftovers(t, p.home)
}

func TestOpenAIAgentSolvesTask(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	srv, requests := modelServer(t,
		func(t *testing.T, body map[string]any) string {
			checkPNG(t, "first screenshot", dig(body, "input", 0, "content", 1, "image_url"), 1280, 800)
			return `{"id":"resp_01","object":"response","created_at":1741442827,"status":"completed","error":null,
				"model":"computer-use-preview-2025-03-11","output":[
				{"type":"reasoning","id":"rs_01","summary":[]},
				{"type":"computer_call","id":"cu_01","call_id":"call_01","status":"completed","pending_safety_checks":[],
				 "action":{"type":"type","text":"echo 'hello from the terminal' > ~/hello.txt"}}],
				"truncation":"auto","usage":{"input_tokens":1800,"output_tokens":40,"total_tokens":1840}}`
		},
		func(t *testing.T, body map[string]any) string {
			if body["previous_response_id"] != "resp_01" || dig(body, "input", 0, "call_id") != "call_01" {
				t.Errorf("second request = %v", body)
			}
			checkPNG(t, "screenshot after typing", dig(body, "input", 0, "output", "image_url"), 1280, 800)
			return `{"id":"resp_02","object":"response","created_at":1741442830,"status":"completed","error":null,
				"model":"computer-use-preview-2025-03-11","output":[
				{"type":"computer_call","id":"cu_02","call_id":"call_02","status":"completed","pending_safety_checks":[],
				 "action":{"type":"keypress","keys":["ENTER"]}}],
				"previous_response_id":"resp_01","truncation":"auto","usage":{"input_tokens":3300,"output_tokens":20,"total_tokens":3320}}`
		},
		func(t *testing.T, body map[string]any) string {
			if body["previous_response_id"] != "resp_02" || dig(body, "input", 0, "call_id") != "call_02" {
				t.Errorf("third request = %v", body)
			}
			return `{"id":"resp_03","object":"response","created_at":1741442833,"status":"completed","error":null,
				"model":"computer-use-preview-2025-03-11","output":[
				{"type":"message","id":"msg_03","status":"completed","role":"assistant",
				 "content":[{"type":"output_text","text":"The line is in ~/hello.txt.","annotations":[]}]}],
				"previous_response_id":"resp_02","truncation":"auto","usage":{"input_tokens":4700,"output_tokens":10,"total_tokens":4710}}`
		},
	)
	ag, err := agent.NewOpenAI(agent.OpenAIConfig{APIKey: "test", BaseURL: srv.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(t.Context(), Config{Manager: m, Agent: ag, Out: t.TempDir()}, loadSuite(t, "terminal-echo-file"))
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != StatusPassed || r.Steps != 3 || r.LastAction != "DONE" {
		t.Errorf("result = %+v", r)
	}
	if u := results[0].Usage; u == nil || u.InputTokens != 1800+3300+4700 || u.OutputTokens != 70 || results[0].CostUSD == 0 {
		t.Errorf("usage = %+v, cost %v", u, results[0].CostUSD)
	}
	if requests() != 3 {
		t.Errorf("%d API requests, want 3", requests())
	}
	checkNoLeftovers(t, p.home)
}
