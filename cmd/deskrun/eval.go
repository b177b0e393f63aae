package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
)

const evalUsage = `usage: deskrun eval --out DIR [flags]

Runs every task of --tasks in a fresh sandbox with the agent of --agent,
grades it, and appends one line per task to DIR/results.jsonl as soon as
its result is known (passed, failed, skipped for want of what the run
cannot give, or an error). DIR/<task>/ keeps each task's trajectory and
screenshots; DIR/report.html shows them. Ctrl-C stops cleanly (no sandbox
is left); --resume finishes the run, skipping the tasks already in
results.jsonl.

Agents (--agent):
  replay              play each task's reference solution
  replay:DIR          play DIR/<task id>.json|.yaml (lists of {dialect, tool, args})
  http://HOST/PATH    an agent server (protocol: tasks/README.md), bearer
                      token from --agent-token or $DESKRUN_AGENT_TOKEN
  anthropic[:MODEL]   Claude through the Anthropic API ($ANTHROPIC_API_KEY,
                      --base-url or $ANTHROPIC_BASE_URL)
  openai[:MODEL]      OpenAI computer use through the Responses API
                      ($OPENAI_API_KEY, --base-url or $OPENAI_BASE_URL)

Flags:
`

type evalFlags struct {
	tasks, agent, out, prov, agentd, image, screen, only string
	model, baseURL, agentToken                           string
	junit, markdown, prices, runtime                     string
	kubeconfig, namespace                                string
	parallel, maxSteps, retries, warm, trials            int
	maxTaskMB, maxRunMB                                  int64
	failUnder                                            float64
	timeout, settle, quiet                               time.Duration
	resume, verbose, offline, record                     bool
	cache, urlMap                                        string
}

func eval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f evalFlags
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), evalUsage); fs.PrintDefaults() }
	fs.StringVar(&f.tasks, "tasks", "tasks", "task file or folder tree (OSWorld JSON or YAML)")
	fs.StringVar(&f.agent, "agent", "replay", "the agent (see above)")
	fs.StringVar(&f.out, "out", "", "run directory (required)")
	fs.BoolVar(&f.resume, "resume", false, "finish the run in --out, skipping tasks it has results for")
	fs.IntVar(&f.parallel, "parallel", 4, "tasks at once")
	fs.IntVar(&f.trials, "trials", 1, "times each task runs, each in a fresh sandbox (results keep every trial; the summary adds pass@k and pass^k)")
	fs.Float64Var(&f.failUnder, "fail-under", 0, "exit 1 when the run's success rate (0..1) is under this")
	fs.StringVar(&f.prices, "prices", "", "JSON price table of model tokens (US dollars per million: {\"MODEL\": {\"input\",\"output\",\"cache_read\",\"cache_write\"}}), over the built-in list prices")
	fs.StringVar(&f.junit, "junit", "", "also write the results as JUnit XML to this file")
	fs.StringVar(&f.markdown, "markdown", "", "also write a Markdown summary to this file (a pull-request comment, a CI step summary)")
	fs.IntVar(&f.maxSteps, "max-steps", 30, "agent steps per task")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time per attempt at a task, from sandbox start to grade")
	fs.Int64Var(&f.maxTaskMB, "max-task-mb", task.DefaultTaskBytes>>20, "MiB one attempt at a task may copy to this host (files fetched from its sandbox, downloads, saved output)")
	fs.Int64Var(&f.maxRunMB, "max-run-mb", farm.DefaultRunBytes>>20, "MiB the whole run may copy to this host")
	fs.IntVar(&f.retries, "retries", 1, "more attempts after an infrastructure failure (never after an agent's)")
	fs.DurationVar(&f.settle, "settle", 2*time.Second, "after the setup and after each step's input, before the next screenshot and before grading: the deadline of the wait for the screen to settle, or with --quiet 0 a fixed pause (0 = none)")
	fs.DurationVar(&f.quiet, "quiet", 100*time.Millisecond, "the settle wait ends once nothing on the screen changed for this long (0 = a fixed pause of --settle)")
	fs.StringVar(&f.only, "only", "", "run only tasks whose id matches one of these comma-separated glob patterns")
	fs.StringVar(&f.prov, "provider", "auto", "sandbox provider: auto (docker when an engine answers and the image exists, else local), docker, local or kube")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig of the kube provider's cluster (default $KUBECONFIG; neither: the cluster deskrun runs in)")
	fs.StringVar(&f.namespace, "namespace", "", "namespace of the kube provider's sandboxes (default the kubeconfig's, else deskrun's own)")
	fs.StringVar(&f.image, "image", docker.DefaultImage, "sandbox image (docker)")
	fs.StringVar(&f.runtime, "runtime", "", "container runtime of docker sandboxes, e.g. runsc (gVisor); empty: the engine's default")
	fs.StringVar(&f.agentd, "agentd", "", "agentd binary for the local provider (default: beside deskrun, else in PATH)")
	fs.StringVar(&f.screen, "screen", "", "screen size WxH (default: the size the image is made for, 1920x1080 for deskrun/osworld as OSWorld's tasks expect; else 1280x800)")
	fs.IntVar(&f.warm, "warm", 0, "sandboxes kept started ahead of the tasks (a warm pool); 0 starts each on demand")
	fs.StringVar(&f.model, "model", "", "model of the anthropic and openai agents (overrides the one in --agent)")
	fs.StringVar(&f.baseURL, "base-url", "", "API base URL of the anthropic and openai agents")
	fs.StringVar(&f.agentToken, "agent-token", os.Getenv("DESKRUN_AGENT_TOKEN"), "bearer token for an http agent server")
	fs.StringVar(&f.cache, "cache", "", "folder of files tasks download, in OSWorld's cache layout (<task id>/<file>): read first, filled by downloads")
	fs.StringVar(&f.urlMap, "url-map", "", "JSON file mapping URLs to files on this host (a mirror for a farm without internet)")
	fs.BoolVar(&f.offline, "offline", false, "never download: URLs come from --cache or --url-map, and a task needing another is skipped")
	fs.BoolVar(&f.record, "record", false, "record a video of each task's desktop into DIR/<task>/recording.webm (VP8 WebM; the sandbox needs ffmpeg); the report embeds it")
	fs.BoolVar(&f.verbose, "v", false, "log what the run does")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	if f.out == "" {
		return usagef("--out: required (the run's directory)")
	}
	if f.trials < 1 || f.trials > 100 {
		return usagef("--trials: %d is not from 1 to 100", f.trials)
	}
	if f.maxTaskMB < 1 || f.maxRunMB < 1 {
		return usagef("--max-task-mb and --max-run-mb: want at least 1, got %d and %d", f.maxTaskMB, f.maxRunMB)
	}
	if f.failUnder < 0 || f.failUnder > 1 {
		return usagef("--fail-under: %g is not a rate from 0 to 1", f.failUnder)
	}
	var sc api.Screen
	if f.screen != "" {
		if _, err := fmt.Sscanf(f.screen, "%dx%d", &sc.Width, &sc.Height); err != nil {
			return usagef("--screen: want WxH, got %q", f.screen)
		}
	}
	ag, err := newAgent(f)
	if err != nil {
		return err
	}
	prices := agent.DefaultPrices
	if f.prices != "" {
		if prices, err = agent.LoadPrices(f.prices); err != nil {
			return usageError{err}
		}
	}
	fetchOpts := task.FetchOptions{Offline: f.offline}
	if f.urlMap != "" {
		if fetchOpts.URLMap, err = task.ReadURLMap(f.urlMap); err != nil {
			return usagef("--url-map: %w", err)
		}
	}
	taskOpts := task.Options{Fetch: task.NewFetch(fetchOpts), DownloadCache: f.cache}
	tasks, err := task.Load(f.tasks)
	if err != nil {
		return err
	}
	if tasks, err = selectTasks(tasks, f.only); err != nil {
		return err
	}

	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// A second Ctrl-C ends the process at once: the signals get their
	// default behaviour back (for every listener of the process).
	defer context.AfterFunc(ctx, func() {
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		fmt.Fprintln(stderr, "\ndeskrun: stopping: ending the tasks under way and deleting their sandboxes (Ctrl-C again to quit at once)")
	})()

	// The run's sandboxes carry an owner label of its directory's, so that
	// the next eval of the directory (--resume) removes what a killed one
	// left, as serve does at start.
	owner, leftover, release, err := claimRun(f.out)
	if err != nil {
		return err
	}
	defer release()
	sb, err := assemble(ctx, sandboxOptions{
		providerOptions: providerOptions{
			Provider: f.prov, AgentdPath: f.agentd, Image: f.image, Owner: owner, Reap: leftover, Runtime: f.runtime,
			Kubeconfig: f.kubeconfig, Namespace: f.namespace,
		},
		Warm: f.warm,
		WarmSpec: func(def string) sandbox.Spec {
			img := evalImage(def, f.image)
			if sc == (api.Screen{}) {
				// The image's own size, as the run below takes it.
				var err error
				if sc, err = imageScreen(ctx, def, img, sandbox.DefaultScreen); err != nil {
					log.Warn("warm pool: the image's screen", "err", err)
				}
			}
			return sandbox.Spec{Image: img, Screen: sc}
		},
		Manager: runner.Config{DefaultImage: f.image},
	}, log)
	if err != nil {
		return err
	}
	m, provName, images := sb.Manager, sb.Default, sb.Images
	image := evalImage(provName, f.image)
	if sc == (api.Screen{}) {
		if sc, err = imageScreen(ctx, provName, image, sandbox.DefaultScreen); err != nil {
			return err
		}
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := m.Close(sctx); err != nil {
			log.Warn("delete sessions", "err", err)
		}
		sb.closeProviders(sctx, log)
		// Last: whatever still carries the run's owner label is a
		// leftover, and the label is this run directory's alone (claimRun
		// holds its lock).
		if err := reapOwner(sctx, sb.Images, owner, log); err != nil {
			log.Warn("remove leftover sandboxes", "err", err)
		}
	}()

	apps, err := imageApps(ctx, images, provName, image)
	if err != nil {
		return err
	}
	if n := task.SkipMissing(tasks, apps); n > 0 {
		log.Info("tasks skipped for want of an application in the image", "tasks", n, "image", image)
	}

	start := time.Now()
	results, runErr := farm.Run(ctx, farm.Config{
		Manager: m, Agent: ag, Out: f.out, Resume: f.resume, Trials: f.trials, Prices: prices,
		MaxTaskBytes: f.maxTaskMB << 20, MaxRunBytes: f.maxRunMB << 20,
		Parallel: f.parallel, MaxSteps: f.maxSteps, Timeout: f.timeout, Retries: retriesFlag(f.retries), Settle: settleFlag(f.settle), Quiet: settleFlag(f.quiet),
		Provider: provName, Image: image, Screen: sc, TaskOptions: taskOpts, Record: f.record,
		Progress: stderr, Terminal: isTerminal(stderr), Logger: log,
	}, tasks)
	if results == nil && runErr != nil {
		return runErr
	}
	if err := farm.WriteTable(stdout, farm.Summarize(results)); err != nil {
		return err
	}
	if len(results) > 0 {
		fmt.Fprintln(stdout, farm.GradingOf(results))
	}
	if err := farm.WriteReport(f.out, results); err != nil {
		return err
	}
	what := "tasks"
	if f.trials > 1 {
		what = fmt.Sprintf("trials (%d tasks x %d)", len(tasks), f.trials)
	}
	fmt.Fprintf(stdout, "%d of %d %s have results (%s this run); %s/%s, report %s/%s\n", countIn(results, tasks), len(tasks)*f.trials, what,
		time.Since(start).Round(time.Second), f.out, farm.ResultsFile, f.out, farm.ReportFile)
	if f.junit != "" {
		if err := writeFileWith(f.junit, func(w io.Writer) error { return farm.WriteJUnit(w, results) }); err != nil {
			return err
		}
	}
	if f.markdown != "" {
		if err := writeFileWith(f.markdown, func(w io.Writer) error { return farm.WriteMarkdown(w, "deskrun: "+f.tasks, results) }); err != nil {
			return err
		}
	}
	if errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("stopped; finish the run with: deskrun eval --resume --out %s (and the same flags)", f.out)
	}
	if runErr != nil {
		return runErr
	}
	return gate(stderr, results, f.failUnder, false, farm.DomainDelta{})
}

// evalImage is the image of eval's sandboxes: --image for the docker
// and kube providers, none for local ones.
func evalImage(provider, image string) string {
	if provider == "docker" || provider == "kube" {
		return image
	}
	return ""
}

// newAgent makes the agent --agent names, with the keys and endpoints of
// the flags and the environment.
func newAgent(f evalFlags) (agent.Agent, error) {
	ag, err := agent.FromSpec(f.agent, agent.SpecOptions{
		Model:            f.model,
		AnthropicKey:     agent.Secret(os.Getenv("ANTHROPIC_API_KEY")),
		AnthropicBaseURL: cmp.Or(f.baseURL, os.Getenv("ANTHROPIC_BASE_URL")),
		OpenAIKey:        agent.Secret(os.Getenv("OPENAI_API_KEY")),
		OpenAIBaseURL:    cmp.Or(f.baseURL, os.Getenv("OPENAI_BASE_URL")),
		HTTPToken:        agent.Secret(f.agentToken),
	})
	if errdefs.IsInvalidArgument(err) {
		return nil, usagef("--agent: %w", err)
	}
	return ag, err
}

// selectTasks keeps the tasks whose id matches one of the comma-separated
// glob patterns of only (all when only is empty).
func selectTasks(tasks []*task.Task, only string) ([]*task.Task, error) {
	if only == "" {
		return tasks, nil
	}
	out, err := farm.Select(tasks, strings.Split(only, ","))
	if err != nil {
		return nil, usagef("--only: %w", err)
	}
	return out, nil
}

// retriesFlag maps --retries (0 = none) onto farm.Config.Retries (0 =
// default, negative = none).
func retriesFlag(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// settleFlag maps --settle (0 = none) onto farm.Config.Settle.
func settleFlag(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

func countIn(results []farm.Result, tasks []*task.Task) int {
	ids := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		ids[t.ID] = true
	}
	n := 0
	for _, r := range results {
		if ids[r.ID] {
			n++
		}
	}
	return n
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
