package task

import (
	"encoding/json"
)

// Task is one task: OSWorld's task JSON as it is, plus deskrun's
// additions (Domain, Solution) and where it was loaded from.
type Task struct {
	// ID identifies the task; required, unique within a loaded tree.
	ID string
	// Snapshot names the VM snapshot OSWorld reverts to; deskrun keeps it
	// as information (each sandbox starts fresh).
	Snapshot string
	// Instruction is what the agent is asked to do; required. It may hold
	// placeholders, see [Vars].
	Instruction string
	// Source says where the task comes from (a URL, "authors", ...).
	Source string
	// Config is the list of setup steps run before the agent starts.
	Config []Step
	// Trajectory is OSWorld's trajectory folder; informational.
	Trajectory string
	// RelatedApps lists the applications the task touches.
	RelatedApps []string
	// Evaluator says how the outcome is graded.
	Evaluator Evaluator
	// Proxy, FixedIP and PossibilityOfEnvChange are OSWorld's flags,
	// kept as information.
	Proxy                  bool
	FixedIP                bool
	PossibilityOfEnvChange string

	// Domain groups tasks in reports ("files", "shell", ...). It is the
	// "domain" field when present, else the name of the folder holding
	// the task file (OSWorld keeps examples/<domain>/<id>.json).
	Domain string
	// Solution is the reference solution: dialect tool calls that solve
	// the task when replayed in order. Empty when the task has none.
	Solution []Call

	// Skip is set when the task cannot run here (see [Skip]); the task
	// is otherwise complete and checked.
	Skip *Skip

	// Path is the file the task was loaded from; empty for [Parse].
	Path string
	// SHA256 is the hex SHA-256 of that file's bytes; empty for [Parse].
	SHA256 string
	// Dir is the folder of Path: the base of relative local paths in
	// download, upload_file and cloud_file, and the second place
	// cache_file looks. Empty means the current directory.
	Dir string
}

// Step is a setup step: OSWorld's {"type", "parameters"}.
type Step struct {
	// Type names the step: execute, command, launch, open, sleep,
	// download, upload_file, activate_window, close_window.
	Type string
	// Parameters are the step's parameters, as decoded from the task
	// (JSON data model: nil, bool, string, json.Number, []any,
	// map[string]any).
	Parameters map[string]any
}

// Getter is a getter configuration: OSWorld's {"type": ..., ...params}.
type Getter struct {
	// Type names the getter: vm_command_line, vm_file, rule, ...
	Type string
	// Params holds every other key of the object.
	Params map[string]any
}

// Evaluator is OSWorld's evaluator object with its single-or-list fields
// normalised to lists of the same length as Func.
type Evaluator struct {
	// Func names the metrics; one entry for a single metric.
	Func []string
	// Result holds one getter per metric (nil for infeasible).
	Result []*Getter
	// Expected holds one getter per metric; an entry is nil where the
	// task gives none.
	Expected []*Getter
	// Options holds one options object per metric (never nil entries).
	Options []map[string]any
	// Conj combines several metrics: "and" (the default) or "or".
	Conj string
	// Postconfig are setup steps run before the getters.
	Postconfig []Step
	// Unfinished reports an evaluator with an empty func and no getters
	// (drafts among OSWorld's files): the task cannot be graded, and is
	// skipped.
	Unfinished bool
	// List reports that func was a list in the source, so results
	// combine with Conj even when it has one entry.
	List bool
}

// Infeasible reports whether the task is graded by OSWorld's infeasible
// metric: it scores 1 only if the agent's last action was FAIL.
func (e Evaluator) Infeasible() bool {
	return !e.List && len(e.Func) == 1 && e.Func[0] == "infeasible"
}

// Call is one recorded tool call of a reference solution.
type Call struct {
	// Dialect names the tool dialect: "osworld", "anthropic", ...
	Dialect string `json:"dialect" yaml:"dialect"`
	// Tool is the tool's name within the dialect, e.g. "desktop_type" or
	// "bash".
	Tool string `json:"tool" yaml:"tool"`
	// Args are the tool's arguments as a JSON object.
	Args json.RawMessage `json:"args,omitempty" yaml:"-"`
}

// Last actions an agent can end an episode with, for [EvalOptions].
const (
	ActionDone = "DONE"
	ActionFail = "FAIL"
)
