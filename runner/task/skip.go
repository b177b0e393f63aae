package task

import (
	"context"
	"errors"
	"fmt"
)

// Skip says why a task cannot run here: it needs what this runner or
// its image cannot give (Google Drive credentials, an account login, a
// browser or an app the image lacks). A skipped task is neither passed
// nor failed: the farm reports it with the status "skipped", apart from
// the agent's failures and infrastructure errors.
//
// [Load] sets [Task.Skip] for tasks using a step or getter known to be
// unavailable; Setup and Evaluate return a *Skip (found with errors.As)
// when a need shows only in the sandbox, such as a launch of VS Code on
// an image without `code`.
type Skip struct {
	// Field is the task field that needs it, e.g. "config[2]".
	Field string `json:"field"`
	// Reason says what is missing.
	Reason string `json:"reason"`
}

func (s *Skip) Error() string {
	if s.Field == "" {
		return "skipped: " + s.Reason
	}
	return "skipped: " + s.Field + ": " + s.Reason
}

// SkipOf returns the *Skip in err's chain, or nil.
func SkipOf(err error) *Skip {
	var s *Skip
	if errors.As(err, &s) {
		return s
	}
	return nil
}

// Step and getter types that are known (a task using one loads) but
// cannot run here, with the reason; a task using one is skipped.
var (
	unavailableSteps   = map[string]string{}
	unavailableGetters = map[string]string{}
)

// addUnavailable registers step and getter types that are known but
// cannot run here, each with the reason (each family in its own file,
// from an init function). Replacing one by a working implementation is
// deleting it here and registering it with addSteps or addGetters.
func addUnavailable(steps, getters map[string]string) {
	for name, why := range steps {
		addSteps(map[string]stepSpec{name: {check: anyParams, run: func(*run, context.Context, map[string]any) error {
			return &Skip{Reason: why}
		}}})
		unavailableSteps[name] = why
	}
	for name, why := range getters {
		addGetters(map[string]getterSpec{name: {check: anyParams, get: func(*run, context.Context, map[string]any) (any, error) {
			return nil, &Skip{Reason: why}
		}}})
		unavailableGetters[name] = why
	}
}

// anyParams accepts any parameters.
func anyParams(fields) error { return nil }

// skipOf returns why t cannot run here: the first step or getter it uses
// that is unavailable, or nil.
func skipOf(t *Task) *Skip {
	if t.Evaluator.Unfinished {
		return &Skip{Field: "evaluator.func", Reason: "empty: the task has no metric, so it cannot be graded (in OSWorld either)"}
	}
	for _, g := range []struct {
		steps []Step
		where string
	}{{t.Config, "config"}, {t.Evaluator.Postconfig, "evaluator.postconfig"}} {
		for i, s := range g.steps {
			if why, ok := unavailableSteps[s.Type]; ok {
				return &Skip{Field: fmt.Sprintf("%s[%d] (%s)", g.where, i, s.Type), Reason: why}
			}
		}
	}
	ev := t.Evaluator
	for _, g := range []struct {
		getters []*Getter
		where   string
	}{{ev.Result, "evaluator.result"}, {ev.Expected, "evaluator.expected"}} {
		for i, x := range g.getters {
			if x == nil {
				continue
			}
			if why, ok := unavailableGetters[x.Type]; ok {
				field := g.where
				if ev.List {
					field = fmt.Sprintf("%s[%d]", g.where, i)
				}
				return &Skip{Field: field + " (" + x.Type + ")", Reason: why}
			}
		}
	}
	return nil
}
