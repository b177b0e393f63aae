package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox/docker"
)

func init() {
	commands["eval"] = command{"run a task suite against an agent in parallel sandboxes and grade it", eval}
}

func eval(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ExitOnError)
	tasksPath := fs.String("tasks", "tasks", "task file or directory (OSWorld JSON or YAML)")
	agentSpec := fs.String("agent", "replay", "agent: replay (the tasks' reference solutions) or the URL of an agent server")
	parallel := fs.Int("parallel", 4, "tasks at once")
	maxSteps := fs.Int("max-steps", 30, "agent steps per task")
	timeout := fs.Duration("timeout", 10*time.Minute, "time per task, setup to grade")
	out := fs.String("out", "", "run directory: results.jsonl, trajectories, report.html (required)")
	resume := fs.Bool("resume", false, "finish the run in --out, skipping finished tasks")
	prov := fs.String("provider", "auto", "sandbox provider: auto, docker or local")
	agentdPath := fs.String("agentd", "", "agentd binary for the local provider")
	image := fs.String("image", docker.DefaultImage, "sandbox image for the docker provider")
	screen := fs.String("screen", "1280x800", "screen size WxH")
	verbose := fs.Bool("v", false, "log what the run does")
	fs.Parse(args)
	if *out == "" {
		return fmt.Errorf("--out: required (a directory for the run)")
	}
	var sc wire.Screen
	if _, err := fmt.Sscanf(*screen, "%dx%d", &sc.Width, &sc.Height); err != nil {
		return fmt.Errorf("--screen: want WxH, got %q", *screen)
	}
	ag, err := agent.Parse(*agentSpec)
	if err != nil {
		return err
	}
	tasks, err := task.Load(*tasksPath)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	providers, closers, err := setupProviders(ctx, *prov, *agentdPath, *image, false, log)
	if err != nil {
		return err
	}
	m, err := runner.NewManager(runner.Config{Providers: providers, DefaultImage: *image, Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		m.Close(sctx)
		for _, c := range closers {
			_ = c(sctx)
		}
	}()
	st, _ := os.Stderr.Stat()
	start := time.Now()
	results, runErr := farm.Run(ctx, farm.Config{
		Manager: m, Agent: ag, Parallel: *parallel, MaxSteps: *maxSteps, Timeout: *timeout,
		Retries: 1, Out: *out, Resume: *resume, Screen: sc,
		Progress: os.Stderr, Terminal: st != nil && st.Mode()&os.ModeCharDevice != 0, Logger: log,
	}, tasks)
	if results != nil {
		farm.WriteTable(os.Stdout, farm.Summarize(results))
		if err := farm.WriteReport(*out, results); err != nil {
			return err
		}
		fmt.Printf("%d tasks in %s; results in %s/results.jsonl, report in %s/report.html\n", len(results), time.Since(start).Round(time.Second), *out, *out)
	}
	if errors.Is(runErr, context.Canceled) {
		return fmt.Errorf("stopped; finish with: deskrun eval --resume --out %s ...", *out)
	}
	return runErr
}
