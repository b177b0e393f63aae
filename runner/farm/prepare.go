package farm

import (
	"fmt"
	"os"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
)

// Preparation is what preparing a run takes besides its request: the
// rules of the sandboxes, where task files may be, the agents' keys and
// the downloads' settings. `deskrun eval` fills it from its flags, a
// server's [Runs] from its [RunsConfig]; both then call [Prepare], the
// one recipe of a run.
type Preparation struct {
	// Manager checks the request's provider, image and screen as it
	// checks a session's ([runner.Manager.Validate]); required.
	Manager *runner.Manager
	// TasksRoot, when set, confines the task files, the cache and the
	// files a URL map names to that folder ([RunsConfig.TasksRoot]).
	TasksRoot string
	// Agents holds the credentials and endpoints of the agent specs
	// ([agent.FromSpec]); the request's AgentToken becomes HTTPToken.
	Agents agent.SpecOptions
	// TaskOptions are the task options of the run but for Fetch and
	// DownloadCache, which come from Fetch and the request.
	TaskOptions task.Options
	// Fetch configures the downloads (client, attempts, sizes); the URL
	// map and Offline come from the request.
	Fetch task.FetchOptions
	// Apps says which applications that not every image has (VS Code)
	// the sandboxes of a provider and image have; tasks needing one the
	// run's lacks are skipped ([task.SkipMissing]). Nil means none. An
	// error refuses the run, naming the image.
	Apps func(provider, image string) (task.Apps, error)
	// LoadTimeout bounds loading the task files (default 60s).
	LoadTimeout time.Duration
}

// Plan is a run prepared: what [Prepare] made of a request, ready for
// [Run] through [Plan.Config].
type Plan struct {
	// Request is the request with its defaults ([api.CreateRunRequest.Normalize]),
	// its paths taken from the task root, without AgentToken, and
	// with Agent as it may be shown ([agent.Redact]).
	Request api.CreateRunRequest
	// Tasks are the tasks loaded, selected by Only and checked, those
	// needing an application the image lacks marked skipped.
	Tasks []*task.Task
	// Skipped counts the tasks marked skipped for an application.
	Skipped int
	// Fetch is the downloads' configuration: the preparation's with the
	// request's URL map and offline.
	Fetch task.FetchOptions
	// TaskOptions are the preparation's, with a fetcher made of Fetch
	// and the request's cache.
	TaskOptions task.Options
	// Agent is the agent the request names.
	Agent agent.Agent
}

// Prepare makes a run of req: it checks the request ([api.CreateRunRequest.Validate],
// then the provider, image and screen against p.Manager, the cache and
// the task root), loads the task files away from the caller within
// p.LoadTimeout, keeps those Only selects, checks them, makes the
// download options, marks the tasks the image cannot run as skipped and
// makes the agent. Every error is of class [errdefs.ErrInvalidArgument]
// and names the request's JSON field ("tasks: load tasks: ...",
// "agent: unknown agent ...").
func Prepare(req api.CreateRunRequest, p Preparation) (Plan, error) {
	req, err := checkRequest(req, p)
	if err != nil {
		return Plan{}, err
	}
	tasks, err := loadTasks(req.Tasks, p.LoadTimeout)
	if err != nil {
		return Plan{}, invalidField("tasks", err)
	}
	if len(tasks) == 0 {
		return Plan{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("tasks: %s holds no task (.json or .yaml) files", req.Tasks))
	}
	if tasks, err = Select(tasks, req.Only); err != nil {
		return Plan{}, invalidField("only", err)
	}
	if err := checkTasks(tasks, req.Trials); err != nil {
		return Plan{}, invalidField("tasks", err)
	}
	pl := Plan{Tasks: tasks, TaskOptions: p.TaskOptions, Fetch: p.Fetch}
	if pl.Fetch, err = fetchOptions(req, p); err != nil {
		return Plan{}, err
	}
	pl.TaskOptions.Fetch = task.NewFetch(pl.Fetch)
	pl.TaskOptions.DownloadCache = req.Cache
	var apps task.Apps
	if p.Apps != nil {
		if apps, err = p.Apps(req.Provider, req.Image); err != nil {
			return Plan{}, invalidField("image", err)
		}
	}
	pl.Skipped = task.SkipMissing(tasks, apps)
	opts := p.Agents
	opts.HTTPToken = agent.Secret(req.AgentToken)
	if pl.Agent, err = agent.FromSpec(req.Agent, opts); err != nil {
		return Plan{}, invalidField("agent", err)
	}
	req.AgentToken = ""
	// What is stored (run.json), logged and answered names the agent
	// without the credentials its URL may hold.
	req.Agent = agent.Redact(req.Agent)
	pl.Request = req
	return pl, nil
}

// Config is the farm configuration of the plan: its agent, counts,
// bounds, sandboxes and task options. The caller adds where the results
// go (Out), the snapshot cache when the request's Snapshots is true, and
// its own knobs (progress, logging, labels, settling).
func (pl Plan) Config() Config {
	r := pl.Request
	return Config{
		Agent:  pl.Agent,
		Trials: r.Trials, Parallel: r.Parallel, MaxSteps: r.MaxSteps,
		Timeout:  time.Duration(r.TimeoutMS) * time.Millisecond,
		Retries:  retriesOf(*r.Retries),
		Provider: r.Provider, Image: r.Image, Screen: r.Screen, Runtime: r.Runtime, Record: r.Record,
		ForkTrials:  r.ForkTrials,
		TaskOptions: pl.TaskOptions,
	}
}

// retriesOf maps a request's retries (0 = none) onto [Config.Retries]
// (0 = default, negative = none).
func retriesOf(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// checkRequest checks req and applies its defaults: the request on its
// own, then what needs the preparation (the task root, the sandboxes'
// rules, the cache folder).
func checkRequest(req api.CreateRunRequest, p Preparation) (api.CreateRunRequest, error) {
	if err := req.Validate(); err != nil {
		return req, err
	}
	req.Normalize()
	for _, f := range []struct {
		name string
		path *string
	}{{"tasks", &req.Tasks}, {"cache", &req.Cache}, {"url_map", &req.URLMap}} {
		if *f.path == "" || p.TasksRoot == "" {
			continue
		}
		path, err := within(p.TasksRoot, *f.path)
		if err != nil {
			return req, invalidField(f.name, err)
		}
		*f.path = path
	}
	if err := p.Manager.Validate(api.CreateSessionRequest{Provider: req.Provider, Image: req.Image, Screen: req.Screen}); err != nil {
		return req, err // names provider or screen.*
	}
	if req.Cache != "" {
		st, err := os.Stat(req.Cache)
		if err != nil {
			return req, invalidField("cache", err)
		}
		if !st.IsDir() {
			return req, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("cache: %s is not a folder", req.Cache))
		}
	}
	return req, nil
}

// fetchOptions are the download options of a run of req: the
// preparation's, with the request's URL map and offline.
func fetchOptions(req api.CreateRunRequest, p Preparation) (task.FetchOptions, error) {
	fetch := p.Fetch
	fetch.Offline = req.Offline
	if req.URLMap != "" {
		m, err := task.ReadURLMap(req.URLMap)
		if err != nil {
			return fetch, invalidField("url_map", err)
		}
		if p.TasksRoot != "" {
			for u, path := range m {
				if _, err := within(p.TasksRoot, path); err != nil {
					return fetch, invalidField("url_map", fmt.Errorf("%s: %w", u, err))
				}
			}
		}
		fetch.URLMap = m
	}
	return fetch, nil
}
