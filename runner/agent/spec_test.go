package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
)

func TestFromSpec(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t1.yaml"), []byte("- {dialect: osworld, tool: desktop_control, args: {action: done}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	keys := SpecOptions{AnthropicKey: "ak", OpenAIKey: "ok", HTTPToken: "ht"}
	for _, tc := range []struct {
		spec string
		o    SpecOptions
		want string // the agent's type, or the error's text
	}{
		{"replay", SpecOptions{}, "agent.Replay"},
		{"replay:" + dir, SpecOptions{}, "agent.Replay"},
		{"http://127.0.0.1:9/step", keys, "agent.HTTP"},
		{"https://agents.example/step", SpecOptions{}, "agent.HTTP"},
		{"anthropic", keys, "*agent.Anthropic"},
		{"anthropic:claude-x", keys, "*agent.Anthropic"},
		{"openai:computer-use-preview", keys, "*agent.OpenAI"},
		{"anthropic", SpecOptions{}, "anthropic: api key: required (ANTHROPIC_API_KEY)"},
		{"openai", SpecOptions{}, "openai: api key: required (OPENAI_API_KEY)"},
		{"gemini", keys, `unknown agent "gemini" (want replay, replay:DIR, an http(s) URL, anthropic[:MODEL] or openai[:MODEL])`},
		{"", keys, `unknown agent ""`},
		{"http://", keys, `"http://" has no host`},
		{"replay:", keys, "replay: want replay or replay:DIR, got an empty folder"},
	} {
		a, err := FromSpec(tc.spec, tc.o)
		got := ""
		if err != nil {
			got = err.Error()
			if !errdefs.IsInvalidArgument(err) {
				t.Errorf("%q: error %v is not invalid argument", tc.spec, err)
			}
		} else {
			got = typeName(a)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("FromSpec(%q) = %s, want %s", tc.spec, got, tc.want)
		}
	}
	if h, _ := FromSpec("http://h/step", keys); h.(HTTP).Token != "ht" || h.(HTTP).URL != "http://h/step" {
		t.Errorf("http agent %+v", h)
	}
	if r, _ := FromSpec("replay:"+dir, keys); len(r.(Replay).Solutions["t1"]) != 1 {
		t.Errorf("replay:DIR solutions %+v", r)
	}
	if a, _ := FromSpec("anthropic:from-spec", SpecOptions{AnthropicKey: "k", Model: "from-options"}); a.(*Anthropic).cfg.Model != "from-options" {
		t.Errorf("model %q, want the options' to win", a.(*Anthropic).cfg.Model)
	}
	if _, err := FromSpec("replay:"+filepath.Join(dir, "missing"), keys); err == nil {
		t.Error("replay of a missing folder: no error")
	}
}

func typeName(v any) string {
	switch v.(type) {
	case Replay:
		return "agent.Replay"
	case HTTP:
		return "agent.HTTP"
	case *Anthropic:
		return "*agent.Anthropic"
	case *OpenAI:
		return "*agent.OpenAI"
	}
	return "?"
}

func TestFromSpecObservation(t *testing.T) {
	a, err := FromSpec("http://127.0.0.1:9/step#observation=som", SpecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, ok := a.(HTTP)
	if !ok || h.URL != "http://127.0.0.1:9/step" || h.ObservationType() != ObserveSetOfMarks {
		t.Fatalf("%#v", a)
	}
	for _, bad := range []string{"http://h/step#observation=tree", "http://h/step#som", "http://h/step#observation=som&x=1"} {
		if _, err := FromSpec(bad, SpecOptions{}); err == nil || !strings.Contains(err.Error(), "#observation=TYPE, TYPE one of screenshot, a11y_tree, screenshot_a11y_tree, som") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := decodeResponse([]byte(`{"observation_type":"xml"}`)); err == nil || !strings.Contains(err.Error(), `observation_type: "xml" is not one of`) {
		t.Errorf("bad observation_type: %v", err)
	}
}
