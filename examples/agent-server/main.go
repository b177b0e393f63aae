// Command agent-server is a minimal agent server for `deskrun eval
// --agent http://HOST/step`: the HTTP side of the agent protocol
// (tasks/README.md) in one file, with the decision left to a policy
// function. Its policy plays each task's reference solution from the task
// files, so that a CI job can run it end to end with no model; a real
// agent replaces solve with a call to its model, from the instruction, the
// screenshot and the history.
//
//	go run ./examples/agent-server --tasks tasks --addr 127.0.0.1:9000 &
//	deskrun eval --tasks tasks --agent http://127.0.0.1:9000/step --out runs/mine
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
	"strconv"

	"github.com/deskrun/deskrun/runner/task"
)

// request is what deskrun POSTs at every step.
type request struct {
	TaskID      string `json:"task_id"`
	Instruction string `json:"instruction"`
	Step        int    `json:"step"`
	Observation struct {
		Screenshot    []byte `json:"screenshot"` // a PNG
		Width, Height int
	} `json:"observation"`
	History []json.RawMessage `json:"history"`
	State   json.RawMessage   `json:"state,omitempty"`
}

// call is one tool call of one of deskrun's dialects.
type call struct {
	Dialect string          `json:"dialect,omitempty"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"`
}

// response is the agent's answer: the calls to make, and whether the
// episode ends.
type response struct {
	Calls []call `json:"calls,omitempty"`
	Done  bool   `json:"done,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
	Text  string `json:"text,omitempty"`
	Usage *usage `json:"usage,omitempty"`
}

// usage reports the model tokens a step took, for the run's cost.
type usage struct {
	Model        string `json:"model"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to serve on")
	tasksDir := flag.String("tasks", "tasks", "task files whose reference solutions the policy plays")
	flag.Parse()
	tasks, err := task.Load(*tasksDir)
	if err != nil {
		log.Fatal(err)
	}
	byID := map[string]*task.Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	token := os.Getenv("AGENT_TOKEN") // deskrun sends --agent-token as a bearer token
	http.HandleFunc("POST /step", func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(solve(byID[req.TaskID], req))
	})
	log.Printf("agent server on http://%s/step", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}

// solve is the policy: here, the task's reference solution, one call a
// step (deskrun settles the screen and sends a new screenshot between
// steps), then done. A model-driven agent asks its model instead, and
// reports the tokens the answer took in Usage.
func solve(t *task.Task, req request) response {
	if t == nil || len(t.Solution) == 0 {
		return response{Fail: true, Text: "no solution known for " + req.TaskID}
	}
	if req.Step >= len(t.Solution) {
		return response{Done: true}
	}
	c := t.Solution[req.Step]
	return response{
		Calls: []call{{Dialect: c.Dialect, Tool: c.Tool, Args: c.Args}},
		Text:  "playing step " + strconv.Itoa(req.Step) + " of the reference solution",
		Usage: &usage{Model: "reference-solution", InputTokens: int64(len(req.Instruction)), OutputTokens: int64(len(c.Args))},
	}
}
