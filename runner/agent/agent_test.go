package agent

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/google/go-cmp/cmp"
)

func TestReplay(t *testing.T) {
	sol := []task.Call{
		{Dialect: "anthropic", Tool: "bash", Args: json.RawMessage(`{"command":"true"}`)},
		{Dialect: "osworld", Tool: "desktop_control", Args: json.RawMessage(`{"action":"done"}`)},
	}
	tk := &task.Task{ID: "t1", Solution: sol}
	ctx := t.Context()
	for step, want := range []Response{{Calls: sol[:1]}, {Calls: sol[1:2]}, {Done: true}} {
		got, err := Replay{}.Step(ctx, Request{TaskID: "t1", Step: step, Task: tk})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("step %d (-want +got):\n%s", step, diff)
		}
	}
	// Recorded calls win over the task's own solution.
	rec := []task.Call{{Dialect: "osworld", Tool: "desktop_control", Args: json.RawMessage(`{"action":"fail"}`)}}
	got, err := Replay{Solutions: map[string][]task.Call{"t1": rec}}.Step(ctx, Request{TaskID: "t1", Task: tk})
	if err != nil || len(got.Calls) != 1 || got.Calls[0].Tool != "desktop_control" {
		t.Errorf("recorded: %+v, %v", got, err)
	}
	_, err = Replay{}.Step(ctx, Request{TaskID: "none", Task: &task.Task{ID: "none"}})
	if !errdefs.IsNotFound(err) || !strings.Contains(err.Error(), `"none" has no recorded solution`) {
		t.Errorf("no solution: err = %v", err)
	}
}

func TestLoadSolutions(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("- {dialect: osworld, tool: desktop_control, args: {action: done}}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`[{"dialect":"anthropic","tool":"bash","args":{"command":"ls"}}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	got, err := LoadSolutions(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"][0].Tool != "desktop_control" || got["b"][0].Tool != "bash" {
		t.Errorf("LoadSolutions = %+v", got)
	}
	if _, err := LoadSolutions(t.TempDir()); !errdefs.IsNotFound(err) {
		t.Errorf("empty folder: err = %v, want not found", err)
	}
}

func TestHTTP(t *testing.T) {
	var got []map[string]any
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, "bad json", 400)
			return
		}
		got = append(got, body)
		auth = append(auth, r.Header.Get("Authorization"))
		if body["step"].(float64) == 0 {
			io.WriteString(w, `{"dialect":"anthropic","calls":[{"tool":"bash","args":{"command":"echo hi"}}],"text":"looking","state":{"turn":1,"notes":["a"]}}`)
			return
		}
		io.WriteString(w, `{"done":true}`)
	}))
	defer srv.Close()
	h := HTTP{URL: srv.URL, Token: "s3cret"}
	ctx := t.Context()
	req := Request{TaskID: "t1", Instruction: "say hi", Observation: Observation{Screenshot: []byte{0x89, 'P', 'N', 'G'}, Width: 1280, Height: 800},
		Task: &task.Task{ID: "t1", Solution: []task.Call{{Tool: "secret"}}}}
	r0, err := h.Step(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if r0.Dialect != "anthropic" || len(r0.Calls) != 1 || r0.Calls[0].Tool != "bash" || string(r0.Calls[0].Args) != `{"command":"echo hi"}` || r0.Text != "looking" || r0.Done {
		t.Errorf("step 0 answer = %+v", r0)
	}
	req.Step, req.State = 1, r0.State
	req.History = []Turn{{Step: 0, Calls: r0.Calls, Results: []CallOutcome{{Text: "hi", Images: []Image{{Data: []byte("big")}}}}}}
	r1, err := h.Step(ctx, req)
	if err != nil || !r1.Done {
		t.Fatalf("step 1 answer = %+v, %v", r1, err)
	}

	// What the server saw: the protocol of the package doc.
	first := got[0]
	for k, want := range map[string]any{"task_id": "t1", "instruction": "say hi", "step": 0.0} {
		if first[k] != want {
			t.Errorf("request %s = %v, want %v", k, first[k], want)
		}
	}
	obs := first["observation"].(map[string]any)
	if obs["screenshot"] != "iVBORw==" || obs["width"] != 1280.0 || obs["height"] != 800.0 {
		t.Errorf("observation = %v", obs)
	}
	if _, ok := first["task"]; ok {
		t.Error("the task (with its solution) was sent to the agent server")
	}
	if _, ok := first["state"]; ok {
		t.Error("step 0 carries a state")
	}
	second := got[1]
	if diff := cmp.Diff(map[string]any{"turn": 1.0, "notes": []any{"a"}}, second["state"]); diff != "" {
		t.Errorf("state handed back (-want +got):\n%s", diff)
	}
	hist := second["history"].([]any)[0].(map[string]any)
	res := hist["results"].([]any)[0].(map[string]any)
	if res["text"] != "hi" || len(res) != 1 {
		t.Errorf("history result = %v, want only the text", res)
	}
	if auth[0] != "Bearer s3cret" {
		t.Errorf("Authorization = %q", auth[0])
	}
}

func TestHTTPBadAnswers(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"server error", 500, "model overloaded", "answered 500 Internal Server Error: model overloaded"},
		{"not json", 200, "<html>", "not a response object"},
		{"call without tool", 200, `{"calls":[{"dialect":"osworld","args":{}}]}`, "calls[0].tool: required"},
		{"args not an object", 200, `{"calls":[{"tool":"bash","args":"ls"}]}`, "calls[0].args: want a JSON object"},
		{"done and fail", 200, `{"done":true,"fail":true}`, "done and fail both set"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			_, err := HTTP{URL: srv.URL}.Step(t.Context(), Request{TaskID: "t"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
	// An answer with no calls and no end is a step that only looks.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }))
	defer srv.Close()
	if r, err := (HTTP{URL: srv.URL}).Step(t.Context(), Request{}); err != nil || r.Done || len(r.Calls) != 0 {
		t.Errorf("empty answer = %+v, %v", r, err)
	}
	// An unreachable server is an error, of the agent.
	srv.Close()
	if _, err := (HTTP{URL: srv.URL}).Step(t.Context(), Request{}); err == nil {
		t.Error("unreachable server: no error")
	}
}
