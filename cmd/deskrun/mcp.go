package main

import (
	"context"
	"io"
	"log/slog"
	"os"

	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/server/mcp"
)

const mcpSynopsis = `[flags]

Serves one MCP connection on standard input and output (the stdio
transport): the tools of one dialect, driving one desktop that is started
on the first tool call and deleted when the client closes the connection.
Logs go to standard error.`

func mcpStdio(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("mcp", stderr, mcpSynopsis)
	prov := fs.String("provider", "auto", "sandbox provider: auto (docker where an engine answers and the image exists, else local), docker or local")
	agentdPath := fs.String("agentd", "", "agentd binary of local sandboxes (default: agentd beside deskrun, else in PATH)")
	image := fs.String("image", docker.DefaultImage, "sandbox image of the docker provider")
	dn := fs.String("dialect", "anthropic", "tool dialect: the tools served")
	screen := fs.String("screen", "1280x800", "screen size `WxH` of the desktop")
	traj := fs.String("trajectories", "", "record the session's calls in `DIR`/<session>.jsonl, screenshots beside")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if _, ok := dialect.ByName(*dn); !ok {
		return usagef("--dialect: unknown dialect %q (want one of %v)", *dn, dialect.Names())
	}
	sc, err := parseScreen(*screen)
	if err != nil {
		return err
	}
	// Standard output carries the protocol: logs go to standard error.
	var l slog.Level
	if err := l.UnmarshalText([]byte(*level)); err != nil {
		return usagef("--log-level: want debug, info, warn or error, got %q", *level)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: l}))
	providers, closers, err := setupProviders(ctx, *prov, *agentdPath, *image, false, log)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
		defer cancel()
		for _, c := range closers {
			_ = c(cctx)
		}
	}()
	m, err := runner.NewManager(runner.Config{
		Providers: providers, DefaultProvider: defaultProvider(providers), DefaultImage: *image,
		DefaultDialect: *dn, TrajectoryDir: *traj, Logger: log,
	})
	if err != nil {
		return err
	}
	err = mcp.ServeStdio(ctx, m, mcp.Options{Dialect: *dn, Screen: sc, Logger: log}, os.Stdin, stdout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
	defer cancel()
	if cerr := m.Close(sctx); err == nil && cerr != nil {
		err = cerr
	}
	return err
}
