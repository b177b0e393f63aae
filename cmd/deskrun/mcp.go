package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/deskrun/deskrun/api/mcp"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox/docker"
)

func mcpStdio(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ExitOnError)
	prov := fs.String("provider", "auto", "sandbox provider: auto, docker or local")
	agentdPath := fs.String("agentd", "", "agentd binary for the local provider")
	image := fs.String("image", docker.DefaultImage, "sandbox image for the docker provider")
	dn := fs.String("dialect", "anthropic", "tool dialect")
	screen := fs.String("screen", "1280x800", "screen size WxH")
	fs.Parse(args)
	var sc wire.Screen
	if _, err := fmt.Sscanf(*screen, "%dx%d", &sc.Width, &sc.Height); err != nil {
		return fmt.Errorf("--screen: want WxH, got %q", *screen)
	}
	// Standard output carries the protocol: logs go to standard error.
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	providers, closers, err := setupProviders(ctx, *prov, *agentdPath, *image, false, log)
	if err != nil {
		return err
	}
	m, err := runner.NewManager(runner.Config{Providers: providers, DefaultImage: *image, DefaultDialect: *dn, Logger: log})
	if err != nil {
		return err
	}
	err = mcp.ServeStdio(ctx, m, mcp.Options{Dialect: *dn, Screen: sc, Logger: log})
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m.Close(sctx)
	for _, c := range closers {
		_ = c(sctx)
	}
	return err
}
