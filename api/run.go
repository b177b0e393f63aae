package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// CreateRunRequest is the body of POST /v1/runs: a task suite to run
// against an agent, as `deskrun eval` runs it. Zero fields take the
// defaults given; the run's directory is chosen by the server.
type CreateRunRequest struct {
	// Tasks is a task file or a folder tree of tasks on the server;
	// required. A relative path is relative to the server's working
	// directory.
	Tasks string `json:"tasks"`
	// Agent is the agent spec: replay (default), replay:DIR, an http(s)
	// URL of an agent server, anthropic[:MODEL] or openai[:MODEL].
	Agent string `json:"agent,omitempty"`
	// AgentToken is sent as a bearer token to an http(s) agent server. It
	// is never echoed back nor written to disk.
	AgentToken string `json:"agent_token,omitempty"`
	// Trials is how many times each task runs, each in a fresh sandbox: 1
	// to 100, default 1. Results then carry their trial.
	Trials int `json:"trials,omitempty"`
	// Parallel is how many tasks run at once: 1 to 64, default 4.
	Parallel int `json:"parallel,omitempty"`
	// MaxSteps bounds the agent's steps per task: 1 to 1000, default 30.
	MaxSteps int `json:"max_steps,omitempty"`
	// TimeoutMS bounds one attempt at a task, from sandbox start to
	// grade: 1000 to 86400000 (a day), default 600000 (10 minutes).
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Retries is how many more attempts a task gets after an
	// infrastructure failure: 0 to 10, default (nil) 1.
	Retries *int `json:"retries,omitempty"`
	// Provider, Image and Screen go into every task's session request;
	// empty means the server's defaults.
	Provider string `json:"provider,omitempty"`
	Image    string `json:"image,omitempty"`
	Screen   Screen `json:"screen,omitzero"`
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
// and timeout_ms: left out, they take their defaults; 0 is below their
// minimum, not a request for the default.
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
	for _, f := range []struct {
		name string
		zero bool
		min  int
	}{
		{"trials", r.Trials == 0, 1}, {"parallel", r.Parallel == 0, 1},
		{"max_steps", r.MaxSteps == 0, 1}, {"timeout_ms", r.TimeoutMS == 0, 1000},
	} {
		if _, set := keys[f.name]; set && f.zero {
			return &fieldError{fmt.Sprintf("%s: 0 is below the minimum %d (leave it out for the default)", f.name, f.min)}
		}
	}
	return nil
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
