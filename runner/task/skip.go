package task

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
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
// an image without `code`. [SkipMissing] marks the tasks needing an
// application the target image lacks (VS Code), before any sandbox.
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

// unavailableStep is the row of a step type that is known (a task using
// it loads) but cannot run here, with the reason; the task is skipped.
func unavailableStep(why string) stepSpec {
	return stepSpec{check: anyParams, unavailable: why, run: func(*run, context.Context, map[string]any) error {
		return &Skip{Reason: why}
	}}
}

// unavailableGetter is the row of a getter type that is known but cannot
// run here, as unavailableStep.
func unavailableGetter(why string) getterSpec {
	return getterSpec{check: anyParams, unavailable: why, get: func(*run, context.Context, map[string]any) (any, error) {
		return nil, &Skip{Reason: why}
	}}
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
			if why := stepTable[s.Type].unavailable; why != "" {
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
			if why := getterTable[x.Type].unavailable; why != "" {
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

// LabelVSCode is the image label saying whether a sandbox image has
// Visual Studio Code: "1" when it has. The osworld image sets it from
// its build argument VSCODE (VS Code is not in Debian; its vendor's
// repository may be out of reach where the image is built).
const LabelVSCode = "dev.deskrun.vscode"

// Apps says which applications that not every sandbox image has the
// image tasks run on has. The zero value has none of them.
type Apps struct {
	// VSCode: the image has Visual Studio Code (`code`).
	VSCode bool
}

// AppsOf reads Apps from an image's labels ([LabelVSCode]).
func AppsOf(labels map[string]string) Apps {
	return Apps{VSCode: labels[LabelVSCode] == "1"}
}

// vsCodeMissing is why a task that needs VS Code is skipped on an image
// without it.
const vsCodeMissing = "needs VS Code (`code`), which this image does not have (the osworld image built with VSCODE=1 has it)"

// SkipMissing marks as skipped ([Task.Skip]) each task of tasks that
// needs an application apps says the image lacks, and returns how many
// it marked; a task already skipped keeps its reason. A task needs VS
// Code when a setup step, a postconfig step or a getter runs `code`
// (the program, or a command word of a shell script), a window step
// names a "Visual Studio Code" window, or a getter is vscode_config.
func SkipMissing(tasks []*Task, apps Apps) int {
	n := 0
	for _, t := range tasks {
		if t.Skip != nil || apps.VSCode {
			continue
		}
		if field := vsCodeNeed(t); field != "" {
			t.Skip = &Skip{Field: field, Reason: vsCodeMissing}
			n++
		}
	}
	return n
}

// vsCodeNeed returns the first field of t that needs VS Code, or "".
func vsCodeNeed(t *Task) string {
	for _, g := range []struct {
		steps []Step
		where string
	}{{t.Config, "config"}, {t.Evaluator.Postconfig, "evaluator.postconfig"}} {
		for i, s := range g.steps {
			name, _ := s.Parameters["window_name"].(string)
			if runsVSCode(s.Parameters["command"]) || strings.Contains(name, "Visual Studio Code") {
				return fmt.Sprintf("%s[%d] (%s)", g.where, i, s.Type)
			}
		}
	}
	ev := t.Evaluator
	for _, g := range []struct {
		getters []*Getter
		where   string
	}{{ev.Result, "evaluator.result"}, {ev.Expected, "evaluator.expected"}} {
		for i, x := range g.getters {
			if x == nil || (x.Type != "vscode_config" && !runsVSCode(x.Params["command"])) {
				continue
			}
			field := g.where
			if ev.List {
				field = fmt.Sprintf("%s[%d]", g.where, i)
			}
			return field + " (" + x.Type + ")"
		}
	}
	return ""
}

// vsCodeWord finds `code` as a command word of a shell script: at the
// start of a line or after ; & | ( or `, followed by a blank or the end.
var vsCodeWord = regexp.MustCompile("(?m)(^|[;&|(`])[ \t]*code([ \t]|$)")

// runsVSCode reports whether a step's or getter's command (a string or a
// list of strings) runs VS Code: its program is `code`, or a script it
// holds runs it.
func runsVSCode(command any) bool {
	switch c := command.(type) {
	case string:
		return vsCodeWord.MatchString(c)
	case []any:
		for i, e := range c {
			s, _ := e.(string)
			if i == 0 && path.Base(s) == "code" {
				return true
			}
			if strings.ContainsAny(s, " \n") && vsCodeWord.MatchString(s) {
				return true
			}
		}
	}
	return false
}
