package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/mcp"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/moby/moby/client"
)

func init() {
	commands["serve"] = command{"serve the REST API, starting sandboxes on demand", serve}
	commands["reap"] = command{"remove sandbox containers left by a runner that died", reap}
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	prov := fs.String("provider", "auto", "sandbox provider: auto (docker where an engine answers and the image exists, else local), docker or local")
	token := fs.String("token", os.Getenv("DESKRUN_TOKEN"), "bearer token required on every call (default $DESKRUN_TOKEN)")
	agentdPath := fs.String("agentd", "", "agentd binary for the local provider (default: agentd beside deskrun, else in PATH)")
	image := fs.String("image", docker.DefaultImage, "default sandbox image for the docker provider")
	dialectName := fs.String("dialect", "anthropic", "default tool dialect of new sessions")
	traj := fs.String("trajectories", "", "directory to record every session's calls in (JSONL and screenshots)")
	verbose := fs.Bool("v", false, "debug logging")
	fs.Parse(args)

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	providers, closers, err := setupProviders(ctx, *prov, *agentdPath, *image, true, log)
	if err != nil {
		return err
	}
	def := "local"
	if providers["docker"] != nil {
		def = "docker"
	}
	m, err := runner.NewManager(runner.Config{
		Providers: providers, DefaultProvider: def, DefaultImage: *image,
		DefaultDialect: *dialectName, TrajectoryDir: *traj, Logger: log,
	})
	if err != nil {
		return err
	}
	if *token == "" && !isLoopback(*addr) {
		return fmt.Errorf("--addr %s is not a loopback address: set --token or DESKRUN_TOKEN", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mcpHandler := mcp.Handler(m, mcp.Options{Dialect: *dialectName, Logger: log})
	srv := &http.Server{Handler: api.NewServer(api.Config{Manager: m, Token: *token, Logger: log, MCP: mcpHandler}), ReadHeaderTimeout: 10 * time.Second}
	log.Info("deskrun serving", "addr", ln.Addr().String(), "providers", m.Providers(), "default", def, "auth", *token != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	log.Info("shutting down: deleting sessions")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	err = m.Close(sctx)
	for _, c := range closers {
		_ = c(sctx)
	}
	return err
}

// setupProviders makes the providers --provider asks for: auto means
// docker where an engine answers and the image exists, and local (when
// agentd and Xvfb are here) beside it.
func setupProviders(ctx context.Context, prov, agentdPath, image string, reap bool, log *slog.Logger) (map[string]sandbox.Provider, []func(context.Context) error, error) {
	if prov != "auto" && prov != "docker" && prov != "local" {
		return nil, nil, fmt.Errorf("--provider: unknown provider %q (want auto, docker or local)", prov)
	}
	providers := map[string]sandbox.Provider{}
	var closers []func(context.Context) error
	if prov == "auto" || prov == "docker" {
		dp, err := dockerProvider(ctx, image, prov == "docker")
		if err != nil {
			if prov == "docker" {
				return nil, nil, err
			}
			log.Info("docker provider unavailable; using local sandboxes", "reason", err)
		} else {
			providers["docker"] = dp
			if reap {
				if ids, err := dp.Reap(ctx, map[string]string{sandbox.LabelOwner: owner}); err == nil && len(ids) > 0 {
					log.Info("removed orphan sandboxes", "count", len(ids))
				}
			}
		}
	}
	if prov == "auto" || prov == "local" {
		bin, err := findAgentd(agentdPath)
		if err == nil {
			var lp *local.Provider
			lp, err = local.New(bin, "openbox")
			if err == nil {
				providers["local"] = lp
				closers = append(closers, lp.Close)
			}
		}
		if err != nil && (prov == "local" || len(providers) == 0) {
			return nil, nil, fmt.Errorf("local provider: %w", err)
		}
	}
	return providers, closers, nil
}

// owner labels the containers of deskrun serve, so that a restarted
// server finds and removes what a crashed one left.
const owner = "deskrun-serve"

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dockerProvider connects to the engine; unless required, it also
// insists that the sandbox image exists, so that auto falls back to local
// sandboxes on a machine where it was never built.
func dockerProvider(ctx context.Context, image string, required bool) (*docker.Provider, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("no Docker engine answers: %w", err)
	}
	if !required {
		if _, err := cli.ImageInspect(pctx, image); err != nil {
			cli.Close()
			return nil, fmt.Errorf("image %s is not built (images/build.sh builds it): %w", image, err)
		}
	}
	return docker.New(cli, docker.Config{Image: image, Labels: map[string]string{sandbox.LabelOwner: owner}}), nil
}

func findAgentd(flagPath string) (string, error) {
	if flagPath != "" {
		return flagPath, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "agentd")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("agentd")
	if err != nil {
		return "", fmt.Errorf("agentd not found beside deskrun or in PATH (make build puts it in bin/); use --agentd")
	}
	return p, nil
}

func reap(args []string) error {
	fs := flag.NewFlagSet("reap", flag.ExitOnError)
	fs.Parse(args)
	ctx := context.Background()
	dp, err := dockerProvider(ctx, docker.DefaultImage, true)
	if err != nil {
		return err
	}
	ids, err := dp.Reap(ctx, map[string]string{sandbox.LabelOwner: owner})
	for _, id := range ids {
		fmt.Println(id)
	}
	return err
}
