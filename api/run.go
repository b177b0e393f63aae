package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// CreateRunRequest is the body of POST /v1/runs: a task suite to run
// against an agent, as `deskrun eval` runs it. Zero fields take the
// defaults given ([CreateRunRequest.Normalize]) and the bounds are
// checked by [CreateRunRequest.Validate]; the run's directory is chosen
// by the server.
type CreateRunRequest struct {
	// Tasks is a task file or a folder tree of tasks on the server;
	// required. A relative path is relative to the server's working
	// directory.
	Tasks string `json:"tasks"`
	// Agent is the agent spec: replay (default, [DefaultRunAgent]),
	// replay:DIR, an http(s) URL of an agent server, anthropic[:MODEL] or
	// openai[:MODEL].
	Agent string `json:"agent,omitempty"`
	// AgentToken is sent as a bearer token to an http(s) agent server. It
	// is never echoed back nor written to disk.
	AgentToken string `json:"agent_token,omitempty"`
	// Trials is how many times each task runs, each in a fresh sandbox: 1
	// to [MaxRunTrials] (100), default 1. Results then carry their trial.
	Trials int `json:"trials,omitempty"`
	// Parallel is how many tasks run at once: 1 to [MaxRunParallel] (64),
	// default [DefaultRunParallel] (4).
	Parallel int `json:"parallel,omitempty"`
	// MaxSteps bounds the agent's steps per task: 1 to [MaxRunMaxSteps]
	// (1000), default [DefaultRunMaxSteps] (30).
	MaxSteps int `json:"max_steps,omitempty"`
	// TimeoutMS bounds one attempt at a task, from sandbox start to
	// grade: [MinRunTimeoutMS] (1000) to [MaxRunTimeoutMS] (86400000, a
	// day), default [DefaultRunTimeoutMS] (600000, 10 minutes).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Retries is how many more attempts a task gets after an
	// infrastructure failure: 0 to [MaxRunRetries] (10), default (nil)
	// [DefaultRunRetries] (1).
	Retries *int `json:"retries,omitempty"`
	// Provider, Image and Screen go into every task's session request;
	// empty means the server's defaults. They are checked as a session's
	// are, by the server that runs the sandboxes.
	Provider string `json:"provider,omitempty"`
	Image    string `json:"image,omitempty"`
	Screen   Screen `json:"screen,omitzero"`
	// Runtime is the container runtime of every task's sandbox (as a
	// session's "runtime"): "runsc-snap" for a run that saves set-up
	// desktops on the docker provider. Empty means the server's.
	Runtime string `json:"runtime,omitempty"`
	// Snapshots saves each task's desktop once its setup is done (the
	// first trial's) and starts every further trial, and the task's
	// trials in later runs, from that snapshot instead of running the
	// setup again, where the provider can save sandboxes (docs/snapshots.md).
	// Where it cannot, or a snapshot fails, the trial runs its setup, with
	// the reason in its result's snapshot_error. Default (nil) true;
	// false keeps every trial on its own setup.
	Snapshots *bool `json:"snapshots,omitempty"`
	// ForkTrials runs a task's trials side by side from one set-up
	// desktop: the first trial's sandbox runs the setup and is forked
	// into the others (up to [MaxForkCount] per fork), each then driven
	// and graded on its own. A task then holds Trials sandboxes at once
	// (Parallel counts tasks). Needs a provider that can fork; where it
	// cannot, the trials run as without it, with the reason in their
	// results.
	ForkTrials bool `json:"fork_trials,omitempty"`
	// Record makes a video of every attempt's desktop, served with the
	// run's files (GET /v1/runs/{id}/{task}/recording.webm) and embedded
	// in its report; off by default.
	Record bool `json:"record,omitempty"`
	// Only keeps the tasks whose id matches one of these glob patterns
	// (path.Match syntax; a plain id matches itself). Empty means all.
	Only []string `json:"only,omitempty"`
	// Cache is a folder on the server of the files tasks download, in
	// OSWorld's cache layout (<task id>/<file>): read first, filled by
	// downloads (`deskrun eval --cache`). It must exist. Empty means no
	// cache.
	Cache string `json:"cache,omitempty"`
	// URLMap is a JSON file on the server mapping URLs to files on the
	// server, a mirror for a farm without internet (`--url-map`); a
	// mapped URL is never fetched.
	URLMap string `json:"url_map,omitempty"`
	// Offline: never download; URLs come from Cache or URLMap, and a
	// task needing another is skipped (`--offline`).
	Offline bool `json:"offline,omitempty"`
}

// Defaults and bounds of a [CreateRunRequest], the one place that holds
// them: the server's runs and `deskrun eval` both take them from here.
const (
	DefaultRunAgent     = "replay"
	DefaultRunTrials    = 1
	MaxRunTrials        = 100
	DefaultRunParallel  = 4
	MaxRunParallel      = 64
	DefaultRunMaxSteps  = 30
	MaxRunMaxSteps      = 1000
	DefaultRunTimeoutMS = 10 * 60 * 1000 // 10 minutes
	MinRunTimeoutMS     = 1000
	MaxRunTimeoutMS     = 24 * 60 * 60 * 1000 // a day
	DefaultRunRetries   = 1
	MaxRunRetries       = 10
)

// Normalize fills the request's zero fields with their defaults: Agent,
// Trials, Parallel, MaxSteps, TimeoutMS and a nil Retries and Snapshots. Values out
// of bounds are left for [CreateRunRequest.Validate] to refuse.
func (r *CreateRunRequest) Normalize() {
	if r.Agent == "" {
		r.Agent = DefaultRunAgent
	}
	if r.Trials == 0 {
		r.Trials = DefaultRunTrials
	}
	if r.Parallel == 0 {
		r.Parallel = DefaultRunParallel
	}
	if r.MaxSteps == 0 {
		r.MaxSteps = DefaultRunMaxSteps
	}
	if r.TimeoutMS == 0 {
		r.TimeoutMS = DefaultRunTimeoutMS
	}
	if r.Retries == nil {
		n := DefaultRunRetries
		r.Retries = &n
	}
	if r.Snapshots == nil {
		on := true
		r.Snapshots = &on
	}
}

// Validate checks what the request says on its own, defaults taken as
// [CreateRunRequest.Normalize] takes them: Tasks given, the counts and
// the timeout within their bounds, no empty Only pattern. Errors are of
// class [errdefs.ErrInvalidArgument] and name the JSON field
// ("parallel: must be between 1 and 64, got 65"). What needs the server
// (the task files, the provider, image and screen, the agent, the cache
// and URL map) is checked where the run is prepared.
func (r CreateRunRequest) Validate() error {
	r.Normalize()
	if strings.TrimSpace(r.Tasks) == "" {
		return invalid("tasks: required, a task file or folder on the server")
	}
	for _, b := range []struct {
		field       string
		v, min, max int64
	}{
		{"trials", int64(r.Trials), 1, MaxRunTrials},
		{"parallel", int64(r.Parallel), 1, MaxRunParallel},
		{"max_steps", int64(r.MaxSteps), 1, MaxRunMaxSteps},
		{"timeout_ms", r.TimeoutMS, MinRunTimeoutMS, MaxRunTimeoutMS},
		{"retries", int64(*r.Retries), 0, MaxRunRetries},
	} {
		if b.v < b.min || b.v > b.max {
			return invalid("%s: must be between %d and %d, got %d", b.field, b.min, b.max, b.v)
		}
	}
	for i, p := range r.Only {
		if strings.TrimSpace(p) == "" {
			return invalid("only[%d]: empty pattern", i)
		}
	}
	return nil
}

// CheckGiven refuses a field given as an explicit 0 where 0 is below
// its minimum (trials, parallel, max_steps, timeout_ms): left out, such
// a field takes its default; given as 0 it is a mistake, not a request
// for the default. given reports whether the request's writer gave the
// JSON field named (a key of the body, a flag on the command line).
func (r CreateRunRequest) CheckGiven(given func(field string) bool) error {
	for _, f := range []struct {
		name string
		zero bool
		min  int
	}{
		{"trials", r.Trials == 0, 1}, {"parallel", r.Parallel == 0, 1},
		{"max_steps", r.MaxSteps == 0, 1}, {"timeout_ms", r.TimeoutMS == 0, MinRunTimeoutMS},
	} {
		if f.zero && given(f.name) {
			return &fieldError{fmt.Sprintf("%s: 0 is below the minimum %d (leave it out for the default)", f.name, f.min)}
		}
	}
	return nil
}

// Statuses of a [Run].
const (
	// RunRunning: tasks are under way.
	RunRunning = "running"
	// RunFinished: every task has a result.
	RunFinished = "finished"
	// RunCancelled: stopped by DELETE or by the server's shutdown before
	// every task had a result; the tasks under way were ended without
	// one and their sandboxes deleted.
	RunCancelled = "cancelled"
	// RunFailed: the run itself failed (its results could not be
	// written, or the server stopped in the middle of it); Error says
	// why. Tasks that fail do not fail the run.
	RunFailed = "failed"
)

// Run is a task suite run started through POST /v1/runs.
type Run struct {
	ID string `json:"id"`
	// Status is one of [RunRunning], [RunFinished], [RunCancelled] or
	// [RunFailed].
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
	// Out is the run's directory on the server: results.jsonl,
	// report.html and a folder per task.
	Out string `json:"out"`
	// Request is the request that started the run, defaults applied
	// (without AgentToken).
	Request CreateRunRequest `json:"request"`
	// Total counts the tasks of the run; Done those with a result, which
	// are Passed (score 1), Failed (graded below 1) or Errors (ended
	// without a grade: timeout, agent, setup, evaluation or
	// infrastructure error).
	Total  int `json:"total"`
	Done   int `json:"done"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	// Skipped counts the tasks not run for want of what the run cannot
	// give them (Google Drive credentials, an app the image lacks).
	Skipped int `json:"skipped"`
	// Summary aggregates the results per domain, with a row "all" last;
	// set once the run has ended with results.
	Summary []DomainSummary `json:"summary,omitempty"`
	// OSWorld is the OSWorld tree the results' grading followed, and
	// TasksSHA256 the SHA-256 over their task files' "domain/id sha256"
	// lines, sorted (what deskrun tasks check prints for the same
	// files); set with Summary.
	OSWorld     string `json:"osworld,omitempty"`
	TasksSHA256 string `json:"tasks_sha256,omitempty"`
	// Error says why a run failed or was cancelled.
	Error string `json:"error,omitempty"`
}

// RunList is the answer to GET /v1/runs.
type RunList struct {
	Runs []Run `json:"runs"`
}

// DomainSummary aggregates the results of one domain of a run, or of all
// of them (Domain "all").
type DomainSummary struct {
	Domain string `json:"domain"`
	Tasks  int    `json:"tasks"`
	Passed int    `json:"passed"`
	// Errors counts the tasks that ended without a grade (timeouts,
	// agent, setup, evaluation and infrastructure errors).
	Errors int `json:"errors"`
	// Skipped counts the tasks not run for want of what the run cannot
	// give them (status "skipped"); they count in Tasks and in no rate
	// or score below.
	Skipped int `json:"skipped"`
	// SuccessRate is Passed / (Tasks - Skipped).
	SuccessRate float64 `json:"success_rate"`
	// MeanScore averages the scores, ungraded tasks counting 0.
	MeanScore float64 `json:"mean_score"`
	// Duration and step percentiles by the nearest-rank method.
	P50MS    int64 `json:"p50_ms"`
	P95MS    int64 `json:"p95_ms"`
	P50Steps int   `json:"p50_steps"`
	P95Steps int   `json:"p95_steps"`

	// With several trials per task (a run's trials), the counts above are
	// of results (Tasks of them: tasks × trials) and these are set:
	// Trials per task, the distinct tasks, pass@k (the share of tasks
	// passed in at least one of k=Trials trials) and pass^k (passed in
	// all of them), both by their unbiased estimators over the trials.
	Trials       int     `json:"trials,omitempty"`
	DistinctTask int     `json:"distinct_tasks,omitempty"`
	PassAtK      float64 `json:"pass_at_k,omitempty"`
	PassHatK     float64 `json:"pass_hat_k,omitempty"`
	// MeanScoreCI is a 95% interval of MeanScore: a percentile bootstrap
	// over the tasks (each task's mean over its trials), when there are
	// at least two tasks.
	MeanScoreCI *[2]float64 `json:"mean_score_ci,omitempty"`
	// Model tokens the agents reported (prompt tokens at full price, from
	// and to the prompt cache, output) and their cost in US dollars by
	// the run's price table, when agents report usage.
	InputTokens      int64   `json:"input_tokens,omitempty"`
	OutputTokens     int64   `json:"output_tokens,omitempty"`
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	CostUSD          float64 `json:"cost_usd,omitempty"`
}

// UnmarshalJSON decodes a run request as it is written (unknown fields
// are refused) and refuses an explicit 0 for trials, parallel, max_steps
// and timeout_ms ([CreateRunRequest.CheckGiven]).
func (r *CreateRunRequest) UnmarshalJSON(b []byte) error {
	type plain CreateRunRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(r)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	return r.CheckGiven(func(field string) bool { _, ok := keys[field]; return ok })
}

// Phases of a [LiveTask].
const (
	PhaseStarting = "starting" // its sandbox is starting
	PhaseSetup    = "setup"    // the task's setup steps run
	PhaseActing   = "acting"   // the agent acts
	PhaseGrading  = "grading"  // the result is graded
)

// LiveTask is a task of a run under way, as GET /v1/runs/{id}/live
// lists them: from its sandbox's start to its grade.
type LiveTask struct {
	// Task names the task's folder in the run (its id, with the trial
	// when the run has several).
	Task        string `json:"task"`
	ID          string `json:"id"`
	Instruction string `json:"instruction"`
	// Session is the id of the task's session, empty while its sandbox
	// starts.
	Session string `json:"session,omitempty"`
	// Phase is one of [PhaseStarting], [PhaseSetup], [PhaseActing] and
	// [PhaseGrading].
	Phase string `json:"phase"`
	// Step counts the agent's steps taken.
	Step      int       `json:"step"`
	StartedAt time.Time `json:"started_at"`
}

// RunLive is the answer to GET /v1/runs/{id}/live: the run and the tasks
// running now (none once it has ended), in the order they started.
type RunLive struct {
	Run   Run        `json:"run"`
	Tasks []LiveTask `json:"tasks"`
}
