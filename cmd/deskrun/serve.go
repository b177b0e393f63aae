package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/deskrun/deskrun/runner/farm"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/server"
	"github.com/deskrun/deskrun/server/e2b"
	"github.com/deskrun/deskrun/server/mcp"
	"github.com/deskrun/deskrun/server/metrics"
)

// Bounds of the shutdown: requests in flight get shutdownGrace to finish,
// then the runs under way and the sessions get sessionsGrace to end.
const (
	shutdownGrace = 10 * time.Second
	sessionsGrace = 60 * time.Second
)

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr, "[flags]")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	prov := fs.String("provider", "auto", "sandbox provider: auto (docker where an engine answers and the image exists, else local), docker, local or kube")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig of the kube provider's cluster (default $KUBECONFIG; neither: the cluster deskrun runs in)")
	namespace := fs.String("namespace", "", "namespace of the kube provider's sandboxes (default the kubeconfig's, else deskrun's own)")
	token := fs.String("token", "", "bearer token required on every call but /healthz (default $DESKRUN_TOKEN, which, unlike a flag, does not show in ps)")
	agentdPath := fs.String("agentd", "", "agentd binary of local sandboxes (default: agentd beside deskrun, else in PATH)")
	image := fs.String("image", docker.DefaultImage, "default sandbox image of the docker provider")
	dn := fs.String("dialect", "anthropic", "default tool dialect of sessions and tool lists")
	traj := fs.String("trajectories", "", "record every session's calls in `DIR`/<session>.jsonl, screenshots beside")
	trajLimit := fs.Int64("trajectory-limit", runner.DefaultTrajectoryLimit, "bytes one session's trajectory may take, screenshots included; past it the trajectory ends with a line saying so (negative: no bound)")
	trajTotal := fs.Int64("trajectory-total", runner.DefaultTrajectoryTotal, "bytes the trajectories of --trajectories may take together; to make room the trajectories of ended sessions are removed, oldest first, and a session is cut when running ones fill it (negative: no bound)")
	runsDir := fs.String("runs", "runs", "`DIR` of the task suite runs started through POST /v1/runs, a folder per run (made when the first starts)")
	tasksRoot := fs.String("tasks-root", "", "confine the task paths runs may name to `DIR` (relative ones are taken from it); empty: any path this server can read")
	owner := fs.String("owner", serveOwner, "owner label of this server's containers; leftovers of the same owner are removed at start, so two servers on one engine need different owners")
	level := fs.String("log-level", "info", "log level: debug, info, warn or error")
	runtime := fs.String("runtime", "", "container runtime of docker sandboxes whose session names none, e.g. runsc (gVisor; the engine must have it); empty: the engine's default")
	callTimeout := fs.Duration("call-timeout", time.Minute, "bound of each call to a sandbox (exec and shell waits get their own wait and half a minute more); past it the call answers 504 naming it")
	e2bDomain := fs.String("e2b-domain", "", "E2B_DOMAIN of the E2B front: the host (and port) at which clients reach this server, under which a sandbox's port P is P-ID.DOMAIN (default localhost:PORT of --addr)")
	e2bAnyImage := fs.Bool("e2b-any-image", false, "let an E2B create name any image as its templateID, besides the templates base, desktop and osworld")
	e2bPublic := fs.Bool("e2b-public-ports", false, "serve sandbox ports reached as P-ID.DOMAIN without a token, as E2B serves them (a browser sends none: e2b_desktop's stream URL opens only so); a sandbox created with network.allowPublicTraffic false still needs its traffic token")
	tlsCert := fs.String("tls-cert", "", "serve HTTPS with this certificate `FILE` (PEM; with --tls-key)")
	tlsKey := fs.String("tls-key", "", "the private key `FILE` of --tls-cert (PEM)")
	tlsSelf := fs.String("tls-self-signed", "", "serve HTTPS with certificates signed by a certificate authority made at start, written to `FILE` (PEM) for clients to trust; a certificate per server name, P-ID.DOMAIN included")
	snapCache := fs.String("snapshot-cache", "", "`DIR` of the set-up desktops runs with snapshots keep (default: deskrun/snapshots in the user's cache folder; \"off\": none)")
	snapCacheMB := fs.Int64("snapshot-cache-mb", farm.DefaultSnapshotCacheBytes>>20, "MiB the snapshot cache may hold; saving evicts the desktops used longest ago")
	warm := fs.Int("warm", 0, "sandboxes of the default provider, image and screen (1280x800) kept started ahead, so creating such a session takes milliseconds; 0 starts each on demand")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *warm < 0 || *warm > 64 {
		return usagef("--warm: %d out of range 0..64", *warm)
	}
	if *snapCacheMB < 1 {
		return usagef("--snapshot-cache-mb: want at least 1, got %d", *snapCacheMB)
	}
	if *callTimeout < time.Second || *callTimeout > time.Hour {
		return usagef("--call-timeout: %v out of range 1s..1h", *callTimeout)
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usagef("--tls-cert and --tls-key: give both or neither")
	}
	if *tlsCert != "" && *tlsSelf != "" {
		return usagef("--tls-self-signed: not with --tls-cert")
	}
	if *token == "" {
		*token = os.Getenv("DESKRUN_TOKEN")
	}
	if *token == "" && !isLoopback(*addr) {
		return usagef("--addr %s is reachable from other machines: set --token or DESKRUN_TOKEN", *addr)
	}
	if _, ok := dialect.ByName(*dn); !ok {
		return usagef("--dialect: unknown dialect %q (want one of %v)", *dn, dialect.Names())
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}

	met := metrics.New()
	sb, err := assemble(ctx, sandboxOptions{
		providerOptions: providerOptions{
			Provider: *prov, AgentdPath: *agentdPath, Image: *image, Owner: *owner, Reap: true, Runtime: *runtime,
			Kubeconfig: *kubeconfig, Namespace: *namespace,
		},
		// Warm sandboxes carry the template's labels (the owner's, set
		// by the provider), not a session's: the session label is only
		// on sandboxes started for a session.
		Warm: *warm,
		WarmSpec: func(def string) sandbox.Spec {
			tmpl := sandbox.Spec{Screen: sandbox.DefaultScreen}
			if def != "local" {
				tmpl.Image = *image
			}
			return tmpl
		},
		Wrap: met.Provider,
		Manager: runner.Config{
			DefaultImage: *image, DefaultDialect: *dn, TrajectoryDir: *traj, TrajectoryLimit: *trajLimit,
			TrajectoryTotal: *trajTotal, CallTimeout: *callTimeout, OnToolCall: met.ToolCalled,
		},
	}, log)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
		defer cancel()
		sb.closeProviders(cctx, log)
	}()
	m, def, images := sb.Manager, sb.Default, sb.Images
	var snaps *farm.SnapshotCache
	if *snapCache != "off" {
		dir := *snapCache
		if dir == "" {
			if dir, err = farm.DefaultSnapshotCacheDir(); err != nil {
				return usagef("--snapshot-cache: %v", err)
			}
		}
		if snaps, err = farm.OpenSnapshotCache(dir, *snapCacheMB<<20); err != nil {
			return usagef("--snapshot-cache: %v", err)
		}
	}
	runs, err := farm.NewRuns(farm.RunsConfig{
		Manager: m, Dir: *runsDir, TasksRoot: *tasksRoot, Logger: log, OnResult: met.TaskFinished, Snapshots: snaps,
		Apps: func(provider, img string) (task.Apps, error) {
			if _, ok := images[cmp.Or(provider, def)]; !ok {
				return task.Apps{}, nil // an unknown provider: the session request names it
			}
			return imageApps(ctx, images, cmp.Or(provider, def), cmp.Or(img, *image))
		},
		// The keys and endpoints of the model agents runs may name; an
		// agent server's token comes with each run.
		Agents: agent.SpecOptions{
			AnthropicKey: agent.Secret(os.Getenv("ANTHROPIC_API_KEY")), AnthropicBaseURL: os.Getenv("ANTHROPIC_BASE_URL"),
			OpenAIKey: agent.Secret(os.Getenv("OPENAI_API_KEY")), OpenAIBaseURL: os.Getenv("OPENAI_BASE_URL"),
		},
	})
	if err != nil {
		return err
	}
	if err := met.Watch(m, runs); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	api := server.NewServer(server.Config{
		Manager: m, Token: *token, Dialect: *dn, Logger: log,
		MCP:  mcp.Handler(m, mcp.Options{Dialect: *dn, Logger: log}),
		Runs: runs, Metrics: met,
	})
	base, port := listenURL(ln.Addr())
	if *tlsCert != "" || *tlsSelf != "" {
		var ips []net.IP
		if a, ok := ln.Addr().(*net.TCPAddr); ok && !a.IP.IsUnspecified() {
			ips = append(ips, a.IP)
		}
		cfg, err := serveTLS(*tlsCert, *tlsKey, *tlsSelf, ips)
		if err != nil {
			ln.Close()
			return err
		}
		ln = tls.NewListener(ln, cfg)
		base = "https" + strings.TrimPrefix(base, "http")
	}
	front, err := e2b.New(e2b.Config{
		Manager: m, Token: *token, Domain: cmp.Or(*e2bDomain, "localhost:"+port), AnyImage: *e2bAnyImage,
		Templates: e2bTemplates(*image), Ports: api, PublicPorts: *e2bPublic, Logger: log,
	})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           front.Handler(api),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          stdlog.New(httpErrors{log}, "", 0),
	}
	log.Info("serving", "addr", ln.Addr().String(), "providers", m.Providers(), "default_provider", def, "auth", *token != "", "runs", runs.Dir())
	fmt.Fprintln(stdout, "E2B's SDKs reach this server with:")
	for _, l := range front.EnvLines(base) {
		fmt.Fprintln(stdout, "  export "+l)
	}
	if *tlsSelf != "" {
		// Python's httpx and ssl, and so E2B's Python SDK, trust it so.
		fmt.Fprintln(stdout, "  export SSL_CERT_FILE="+*tlsSelf)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	select {
	case <-ctx.Done():
		// A second signal now ends the process at once.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
			defer cancel()
			_ = runs.Close(cctx)
			_ = m.Close(cctx)
			return fmt.Errorf("serve: %w", err)
		}
	}
	log.Info("shutting down", "sessions", len(m.List()), "runs", runs.Active())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("requests still running at shutdown; closing them", "err", err)
		_ = srv.Close()
	}
	mctx, mcancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
	defer mcancel()
	// The runs first: they end their tasks and delete those sessions
	// themselves, and write their reports.
	if err := runs.Close(mctx); err != nil {
		log.Warn("runs still ending at shutdown", "err", err)
	}
	n := len(m.List())
	if err := m.Close(mctx); err != nil {
		return fmt.Errorf("delete sessions: %w", err)
	}
	log.Info("stopped", "sessions_deleted", n)
	return nil
}

// listenURL is the base URL clients of this machine reach the listener
// at, and its port: an unspecified address (0.0.0.0, ::) is reached at
// 127.0.0.1.
func listenURL(a net.Addr) (base, port string) {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String(), ""
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), port
}

// e2bTemplates are the E2B front's templates: E2B's base is the
// server's default image (--image).
func e2bTemplates(image string) map[string]string {
	t := maps.Clone(e2b.DefaultTemplates)
	t["base"] = image
	return t
}

// isLoopback reports whether addr listens on loopback only.
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
