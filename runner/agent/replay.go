package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/runner/task"
)

// Replay plays recorded tool calls, one per step, and answers Done after
// the last. The zero value plays each task's reference solution
// ([task.Task.Solution]).
type Replay struct {
	// Solutions holds recorded calls by task id; a task without an entry
	// plays its own Solution.
	Solutions map[string][]task.Call
}

// Step returns the recorded call for req.Step. A task with nothing to
// play is an error of class [errdefs.ErrNotFound].
func (r Replay) Step(_ context.Context, req Request) (Response, error) {
	calls, ok := r.Solutions[req.TaskID]
	if !ok && req.Task != nil {
		calls = req.Task.Solution
	}
	if len(calls) == 0 {
		return Response{}, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("replay: task %q has no recorded solution", req.TaskID))
	}
	if req.Step >= len(calls) {
		return Response{Done: true}, nil
	}
	return Response{Calls: []task.Call{calls[req.Step]}}, nil
}

// LoadSolutions reads recorded calls for Replay from a folder: each
// <task id>.json, .yaml or .yml file is a list of {"dialect", "tool",
// "args"} objects ([task.LoadSolution]).
func LoadSolutions(dir string) (map[string][]task.Call, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("load solutions: %w", err)
	}
	out := map[string][]task.Call{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".json" && ext != ".yaml" && ext != ".yml") {
			continue
		}
		calls, err := task.LoadSolution(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(e.Name(), ext)] = calls
	}
	if len(out) == 0 {
		return nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("load solutions: no .json or .yaml files in %s", dir))
	}
	return out, nil
}
