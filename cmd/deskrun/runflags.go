package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox/docker"
)

// runFlags binds the flags of a run request for `deskrun eval` and
// `deskrun runs start`: one set of names, defaults and help texts, filling
// the API's own [api.CreateRunRequest], whose defaults and bounds they
// show. A field added to the request gets its flag here, and both
// commands have it.
type runFlags struct {
	fs  *flag.FlagSet
	req api.CreateRunRequest
	// The flags whose value is not the request's field as it is.
	timeout      time.Duration
	retries      int
	screen, only string
	snapshots    bool
}

// bindRunFlags defines the run request's flags on fs.
func bindRunFlags(fs *flag.FlagSet) *runFlags {
	b := &runFlags{fs: fs}
	r := &b.req
	fs.StringVar(&r.Tasks, "tasks", "tasks", "task file or folder tree, OSWorld JSON or YAML (runs start: on the server)")
	fs.StringVar(&r.Agent, "agent", api.DefaultRunAgent, "the agent (see above)")
	fs.StringVar(&r.AgentToken, "agent-token", os.Getenv("DESKRUN_AGENT_TOKEN"), "bearer token for an http agent server")
	fs.IntVar(&r.Trials, "trials", api.DefaultRunTrials, fmt.Sprintf("times each task runs, each in a fresh sandbox, 1 to %d (results keep every trial; the summary adds pass@k and pass^k)", api.MaxRunTrials))
	fs.IntVar(&r.Parallel, "parallel", api.DefaultRunParallel, fmt.Sprintf("tasks at once, 1 to %d", api.MaxRunParallel))
	fs.IntVar(&r.MaxSteps, "max-steps", api.DefaultRunMaxSteps, fmt.Sprintf("agent steps per task, 1 to %d", api.MaxRunMaxSteps))
	fs.DurationVar(&b.timeout, "timeout", api.DefaultRunTimeoutMS*time.Millisecond, fmt.Sprintf("time per attempt at a task, from sandbox start to grade, %s to %s",
		api.MinRunTimeoutMS*time.Millisecond, api.MaxRunTimeoutMS*time.Millisecond))
	fs.IntVar(&b.retries, "retries", api.DefaultRunRetries, fmt.Sprintf("more attempts after an infrastructure failure (never after an agent's), 0 to %d", api.MaxRunRetries))
	fs.StringVar(&r.Provider, "provider", "", "sandbox provider: docker, local or kube (default: eval docker when an engine answers and the image exists, else local; runs start the server's)")
	fs.StringVar(&r.Image, "image", "", "sandbox image of docker and kube sandboxes (default: eval "+docker.DefaultImage+"; runs start the server's)")
	fs.StringVar(&b.screen, "screen", "", "screen size WxH (default: the size the image is made for, 1920x1080 for deskrun/osworld as OSWorld's tasks expect, else 1280x800; runs start: the server's)")
	fs.StringVar(&r.Runtime, "runtime", "", "container runtime of the sandboxes (docker: "+docker.SnapshotRuntime+" saves set-up desktops and forks; default: the provider's)")
	fs.BoolVar(&b.snapshots, "snapshots", true, "save each task's set-up desktop (its first trial's) and start its other trials, and its trials in later runs, from it instead of its setup, where the provider and runtime can save sandboxes (docs/snapshots.md); results say why where not")
	fs.BoolVar(&r.ForkTrials, "fork-trials", false, "run a task's trials side by side, forked from the first trial's set-up sandbox (a task holds --trials sandboxes at once; --parallel counts tasks)")
	fs.StringVar(&b.only, "only", "", "run only tasks whose id matches one of these comma-separated glob patterns")
	fs.BoolVar(&r.Record, "record", false, "record a video of each task's desktop into <run>/<task>/recording.webm (VP8 WebM; the sandbox needs ffmpeg); the report embeds it")
	fs.StringVar(&r.Cache, "cache", "", "folder of files tasks download, in OSWorld's cache layout (<task id>/<file>): read first, filled by downloads (runs start: on the server)")
	fs.StringVar(&r.URLMap, "url-map", "", "JSON file mapping URLs to files, a mirror for a farm without internet (runs start: on the server, as the files)")
	fs.BoolVar(&r.Offline, "offline", false, "never download: URLs come from --cache or --url-map, and a task needing another is skipped")
	return b
}

// request is the request the parsed flags make. A flag given as 0 where
// 0 is below the field's minimum (--parallel 0) is refused as the API
// refuses the JSON field given as 0, and a --screen that is not WxH; the
// bounds are the request's own ([api.CreateRunRequest.Validate]), checked
// where it is prepared.
func (b *runFlags) request() (api.CreateRunRequest, error) {
	r := b.req
	r.TimeoutMS = b.timeout.Milliseconds()
	retries := b.retries
	r.Retries = &retries
	snapshots := b.snapshots
	r.Snapshots = &snapshots
	if b.screen != "" {
		sc, err := parseScreen(b.screen)
		if err != nil {
			return r, err
		}
		r.Screen = sc
	}
	if b.only != "" {
		r.Only = strings.Split(b.only, ",")
	}
	given := map[string]bool{}
	b.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	flagOf := func(field string) string {
		if field == "timeout_ms" {
			return "timeout"
		}
		return strings.ReplaceAll(field, "_", "-")
	}
	if err := r.CheckGiven(func(field string) bool { return given[flagOf(field)] }); err != nil {
		return r, usageError{err}
	}
	return r, nil
}
