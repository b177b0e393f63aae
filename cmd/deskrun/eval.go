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
	"syscall"
	"time"

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

// evalCmd is a parsed `deskrun eval`: the run's request (the flags
// eval shares with runs start) and eval's own knobs.
type evalCmd struct {
	run                              *runFlags
	req                              api.CreateRunRequest
	out, prices, junit, markdown     string
	agentd, kubeconfig, namespace    string
	model, baseURL                   string
	snapCache                        string
	warm                             int
	maxTaskMB, maxRunMB, snapCacheMB int64
	failUnder                        float64
	settle, quiet                    time.Duration
	resume, verbose                  bool

	// assemble sets up the sandboxes (the function serve uses too); plan,
	// when set, is told what the run prepared. Tests replace both.
	assemble func(context.Context, sandboxOptions, *slog.Logger) (*sandboxes, error)
	plan     func(farm.Plan)
}

func eval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	e, err := parseEval(args, stderr)
	if e == nil {
		return err
	}
	return e.exec(ctx, stdout, stderr)
}

// parseEval parses eval's command line; a nil command with a nil error
// means help was asked for.
func parseEval(args []string, stderr io.Writer) (*evalCmd, error) {
	e := &evalCmd{assemble: assemble}
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), evalUsage); fs.PrintDefaults() }
	e.run = bindRunFlags(fs)
	fs.StringVar(&e.out, "out", "", "run directory (required)")
	fs.BoolVar(&e.resume, "resume", false, "finish the run in --out, skipping tasks it has results for")
	fs.Float64Var(&e.failUnder, "fail-under", 0, "exit 1 when the run's success rate (0..1) is under this")
	fs.StringVar(&e.prices, "prices", "", "JSON price table of model tokens (US dollars per million: {\"MODEL\": {\"input\",\"output\",\"cache_read\",\"cache_write\"}}), over the built-in list prices")
	fs.StringVar(&e.junit, "junit", "", "also write the results as JUnit XML to this file")
	fs.StringVar(&e.markdown, "markdown", "", "also write a Markdown summary to this file (a pull-request comment, a CI step summary)")
	fs.Int64Var(&e.maxTaskMB, "max-task-mb", task.DefaultTaskBytes>>20, "MiB one attempt at a task may copy to this host (files fetched from its sandbox, downloads, saved output)")
	fs.Int64Var(&e.maxRunMB, "max-run-mb", farm.DefaultRunBytes>>20, "MiB the whole run may copy to this host")
	fs.DurationVar(&e.settle, "settle", 2*time.Second, "after the setup and after each step's input, before the next screenshot and before grading: the deadline of the wait for the screen to settle, or with --quiet 0 a fixed pause (0 = none)")
	fs.DurationVar(&e.quiet, "quiet", 100*time.Millisecond, "the settle wait ends once nothing on the screen changed for this long (0 = a fixed pause of --settle)")
	fs.StringVar(&e.snapCache, "snapshot-cache", "", "folder of the set-up desktops --snapshots keeps (default: deskrun/snapshots in the user's cache folder)")
	fs.Int64Var(&e.snapCacheMB, "snapshot-cache-mb", farm.DefaultSnapshotCacheBytes>>20, "MiB the snapshot cache may hold; saving evicts the desktops used longest ago")
	fs.StringVar(&e.kubeconfig, "kubeconfig", "", "kubeconfig of the kube provider's cluster (default $KUBECONFIG; neither: the cluster deskrun runs in)")
	fs.StringVar(&e.namespace, "namespace", "", "namespace of the kube provider's sandboxes (default the kubeconfig's, else deskrun's own)")
	fs.StringVar(&e.agentd, "agentd", "", "agentd binary for the local provider (default: beside deskrun, else in PATH)")
	fs.IntVar(&e.warm, "warm", 0, "sandboxes kept started ahead of the tasks (a warm pool); 0 starts each on demand")
	fs.StringVar(&e.model, "model", "", "model of the anthropic and openai agents (overrides the one in --agent)")
	fs.StringVar(&e.baseURL, "base-url", "", "API base URL of the anthropic and openai agents")
	fs.BoolVar(&e.verbose, "v", false, "log what the run does")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil
		}
		return nil, usageError{err}
	}
	if fs.NArg() > 0 {
		return nil, usagef("unexpected arguments %q", fs.Args())
	}
	if e.out == "" {
		return nil, usagef("--out: required (the run's directory)")
	}
	if e.maxTaskMB < 1 || e.maxRunMB < 1 {
		return nil, usagef("--max-task-mb and --max-run-mb: want at least 1, got %d and %d", e.maxTaskMB, e.maxRunMB)
	}
	if e.snapCacheMB < 1 {
		return nil, usagef("--snapshot-cache-mb: want at least 1, got %d", e.snapCacheMB)
	}
	if e.failUnder < 0 || e.failUnder > 1 {
		return nil, usagef("--fail-under: %g is not a rate from 0 to 1", e.failUnder)
	}
	var err error
	if e.req, err = e.run.request(); err != nil {
		return nil, err
	}
	// What the request says on its own is refused before any sandbox
	// starts; the rest when the run is prepared.
	if err := e.req.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// exec sets up the sandboxes, prepares the run as a server prepares
// one ([farm.Prepare]), runs it and writes its reports.
func (e *evalCmd) exec(ctx context.Context, stdout, stderr io.Writer) error {
	prices := agent.DefaultPrices
	if e.prices != "" {
		var err error
		if prices, err = agent.LoadPrices(e.prices); err != nil {
			return usageError{err}
		}
	}
	level := slog.LevelWarn
	if e.verbose {
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
	owner, leftover, release, err := claimRun(e.out)
	if err != nil {
		return err
	}
	defer release()
	sb, err := e.sandboxes(ctx, owner, leftover, log)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := sb.Manager.Close(sctx); err != nil {
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
	pl, err := e.prepare(ctx, sb)
	if err != nil {
		return err
	}
	if pl.Skipped > 0 {
		log.Info("tasks skipped for want of an application in the image", "tasks", pl.Skipped, "image", pl.Request.Image)
	}
	start := time.Now()
	cfg := pl.Config()
	cfg.Manager, cfg.Out, cfg.Resume, cfg.Prices = sb.Manager, e.out, e.resume, prices
	cfg.MaxTaskBytes, cfg.MaxRunBytes = e.maxTaskMB<<20, e.maxRunMB<<20
	cfg.Settle, cfg.Quiet = settleFlag(e.settle), settleFlag(e.quiet)
	cfg.Progress, cfg.Terminal, cfg.Logger = stderr, isTerminal(stderr), log
	if *pl.Request.Snapshots {
		if cfg.Snapshots, err = e.snapshotCache(); err != nil {
			return err
		}
	}
	results, runErr := farm.Run(ctx, cfg, pl.Tasks)
	if results == nil && runErr != nil {
		return runErr
	}
	if err := e.report(stdout, pl, results, time.Since(start)); err != nil {
		return err
	}
	if errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("stopped; finish the run with: deskrun eval --resume --out %s (and the same flags)", e.out)
	}
	if runErr != nil {
		return runErr
	}
	return gate(stderr, results, e.failUnder, false, farm.DomainDelta{})
}

// snapshotCache opens the cache of set-up desktops that --snapshots
// keeps.
func (e *evalCmd) snapshotCache() (*farm.SnapshotCache, error) {
	dir := e.snapCache
	if dir == "" {
		var err error
		if dir, err = farm.DefaultSnapshotCacheDir(); err != nil {
			return nil, usagef("--snapshot-cache: %v", err)
		}
	}
	c, err := farm.OpenSnapshotCache(dir, e.snapCacheMB<<20)
	if err != nil {
		return nil, usagef("--snapshot-cache: %v", err)
	}
	return c, nil
}

// sandboxes sets up the providers eval's --provider names (default
// auto), with a warm pool of --warm sandboxes of the run's image and
// screen.
func (e *evalCmd) sandboxes(ctx context.Context, owner string, leftover bool, log *slog.Logger) (*sandboxes, error) {
	image := cmp.Or(e.req.Image, docker.DefaultImage)
	return e.assemble(ctx, sandboxOptions{
		providerOptions: providerOptions{
			Provider: cmp.Or(e.req.Provider, "auto"), AgentdPath: e.agentd, Image: image, Owner: owner, Reap: leftover, Runtime: e.req.Runtime,
			Kubeconfig: e.kubeconfig, Namespace: e.namespace,
		},
		Warm: e.warm,
		WarmSpec: func(def string) sandbox.Spec {
			img := evalImage(def, image)
			sc := e.req.Screen
			if sc == (api.Screen{}) {
				// The image's own size, as the run takes it.
				var err error
				if sc, err = imageScreen(ctx, def, img, sandbox.DefaultScreen); err != nil {
					log.Warn("warm pool: the image's screen", "err", err)
				}
			}
			return sandbox.Spec{Image: img, Screen: sc}
		},
		Manager: runner.Config{DefaultImage: image},
	}, log)
}

// prepare completes the request with what the sandboxes resolved (the
// provider auto chose, its image, the image's screen) and prepares the
// run of it: the one recipe [farm.Prepare] that a server's runs follow.
func (e *evalCmd) prepare(ctx context.Context, sb *sandboxes) (farm.Plan, error) {
	req := e.req
	req.Provider = sb.Default
	req.Image = evalImage(sb.Default, cmp.Or(req.Image, docker.DefaultImage))
	if req.Screen == (api.Screen{}) {
		var err error
		if req.Screen, err = imageScreen(ctx, req.Provider, req.Image, sandbox.DefaultScreen); err != nil {
			return farm.Plan{}, err
		}
	}
	pl, err := farm.Prepare(req, farm.Preparation{
		Manager: sb.Manager,
		Agents:  evalAgents(e.model, e.baseURL),
		Apps: func(provider, image string) (task.Apps, error) {
			return imageApps(ctx, sb.Images, provider, image)
		},
	})
	if err == nil && e.plan != nil {
		e.plan(pl)
	}
	return pl, err
}

// report prints the summary table and writes the report, JUnit and
// Markdown of the run.
func (e *evalCmd) report(stdout io.Writer, pl farm.Plan, results []farm.Result, took time.Duration) error {
	if err := farm.WriteTable(stdout, farm.Summarize(results)); err != nil {
		return err
	}
	if len(results) > 0 {
		fmt.Fprintln(stdout, farm.GradingOf(results))
	}
	if err := farm.WriteReport(e.out, results); err != nil {
		return err
	}
	trials := pl.Request.Trials
	what := "tasks"
	if trials > 1 {
		what = fmt.Sprintf("trials (%d tasks x %d)", len(pl.Tasks), trials)
	}
	fmt.Fprintf(stdout, "%d of %d %s have results (%s this run); %s/%s, report %s/%s\n", countIn(results, pl.Tasks), len(pl.Tasks)*trials, what,
		took.Round(time.Second), e.out, farm.ResultsFile, e.out, farm.ReportFile)
	if e.junit != "" {
		if err := writeFileWith(e.junit, func(w io.Writer) error { return farm.WriteJUnit(w, results) }); err != nil {
			return err
		}
	}
	if e.markdown != "" {
		if err := writeFileWith(e.markdown, func(w io.Writer) error { return farm.WriteMarkdown(w, "deskrun: "+e.req.Tasks, results) }); err != nil {
			return err
		}
	}
	return nil
}

// evalImage is the image of eval's sandboxes: --image for the docker
// and kube providers, none for local ones.
func evalImage(provider, image string) string {
	if provider == "docker" || provider == "kube" {
		return image
	}
	return ""
}

// evalAgents are the keys and endpoints of the model agents, from the
// flags and the environment.
func evalAgents(model, baseURL string) agent.SpecOptions {
	return agent.SpecOptions{
		Model:            model,
		AnthropicKey:     agent.Secret(os.Getenv("ANTHROPIC_API_KEY")),
		AnthropicBaseURL: cmp.Or(baseURL, os.Getenv("ANTHROPIC_BASE_URL")),
		OpenAIKey:        agent.Secret(os.Getenv("OPENAI_API_KEY")),
		OpenAIBaseURL:    cmp.Or(baseURL, os.Getenv("OPENAI_BASE_URL")),
	}
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
