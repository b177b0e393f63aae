package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/sandbox/kube"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/sandbox/pool"
	"github.com/moby/moby/client"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// serveOwner is the owner label (sandbox.LabelOwner) of the containers of
// deskrun serve, so that a restarted server, or deskrun reap, finds what
// a crashed one left. Other subcommands label theirs with their process
// id, so a starting server never removes the sandboxes of a running eval.
const serveOwner = "deskrun-serve"

// setupProviders makes the providers prov asks for ("auto", "docker" or
// "local") and returns them with the functions that release them. auto
// means docker where an engine answers and the image exists, plus local
// beside it when agentd and Xvfb are here; a docker provider labels its
// containers with serveOwner when reap is set (and removes that owner's
// leftovers first), with this process's own owner otherwise.
func setupProviders(ctx context.Context, prov, agentdPath, image string, reap bool, log *slog.Logger) (map[string]sandbox.Provider, []func(context.Context) error, error) {
	owner := fmt.Sprintf("deskrun-%d", os.Getpid())
	if reap {
		owner = serveOwner
	}
	return setupProvidersFor(ctx, providerOptions{Provider: prov, AgentdPath: agentdPath, Image: image, Owner: owner, Reap: reap}, log)
}

// providerOptions say which providers to make and how.
type providerOptions struct {
	// Provider is "auto", "docker" or "local".
	Provider string
	// AgentdPath is the agentd binary of local sandboxes; empty means
	// agentd beside the deskrun binary, else in $PATH.
	AgentdPath string
	// Image is the docker provider's default image.
	Image string
	// Owner labels the docker provider's containers.
	Owner string
	// Reap removes the sandboxes of Owner at start (and the local
	// sandboxes of runners that were killed).
	Reap bool
	// Runtime is the docker provider's default container runtime (empty:
	// the engine's), e.g. "runsc"; the kube provider's RuntimeClass.
	Runtime string
	// Kubeconfig is the kube provider's kubeconfig file: the runner is
	// outside the cluster and reaches agentd through port-forwards. Empty
	// means $KUBECONFIG, else the in-cluster configuration (pod IPs).
	Kubeconfig string
	// Namespace holds the kube provider's sandboxes (empty: the
	// kubeconfig's, else "default").
	Namespace string
}

func setupProvidersFor(ctx context.Context, o providerOptions, log *slog.Logger) (map[string]sandbox.Provider, []func(context.Context) error, error) {
	switch o.Provider {
	case "auto", "docker", "local", "kube":
	default:
		return nil, nil, usagef("--provider: unknown provider %q (want auto, docker, local or kube)", o.Provider)
	}
	providers := map[string]sandbox.Provider{}
	var closers []func(context.Context) error
	if o.Provider == "kube" {
		kp, err := kubeProvider(o, log)
		if err != nil {
			return nil, nil, err
		}
		if o.Reap {
			ids, err := kp.Reap(ctx, map[string]string{sandbox.LabelOwner: o.Owner})
			if len(ids) > 0 {
				log.InfoContext(ctx, "removed sandboxes a previous runner left", "count", len(ids), "owner", o.Owner)
			}
			if err != nil {
				log.WarnContext(ctx, "remove leftover sandboxes", "err", err)
			}
		}
		return map[string]sandbox.Provider{"kube": kp}, []func(context.Context) error{kp.Close}, nil
	}
	if o.Provider == "auto" || o.Provider == "docker" {
		dp, err := dockerProvider(ctx, o.Image, o.Owner, o.Runtime, o.Provider == "docker", log)
		switch {
		case err != nil && o.Provider == "docker":
			return nil, nil, err
		case err != nil:
			log.InfoContext(ctx, "docker provider unavailable; using local sandboxes", "reason", err.Error())
		default:
			providers["docker"] = dp
			if o.Reap {
				ids, err := dp.Reap(ctx, map[string]string{sandbox.LabelOwner: o.Owner})
				if len(ids) > 0 {
					log.InfoContext(ctx, "removed sandboxes a previous runner left", "count", len(ids), "owner", o.Owner)
				}
				if err != nil {
					log.WarnContext(ctx, "remove leftover sandboxes", "err", err)
				}
			}
		}
	}
	if o.Provider == "auto" || o.Provider == "local" {
		lp, err := localProvider(o.AgentdPath)
		switch {
		case err == nil:
			providers["local"] = lp
			closers = append(closers, lp.Close)
			if o.Reap {
				homes, err := lp.Reap(ctx)
				if len(homes) > 0 {
					log.InfoContext(ctx, "removed local sandboxes a killed runner left", "count", len(homes))
				}
				if err != nil {
					log.WarnContext(ctx, "remove leftover local sandboxes", "err", err)
				}
			}
		case o.Provider == "local" || len(providers) == 0:
			return nil, nil, err
		default:
			log.InfoContext(ctx, "local provider unavailable", "reason", err.Error())
		}
	}
	return providers, closers, nil
}

// reapOwner removes the docker and kube sandboxes that still carry the
// owner label owner.
func reapOwner(ctx context.Context, providers map[string]sandbox.Provider, owner string, log *slog.Logger) error {
	type reaper interface {
		Reap(context.Context, map[string]string) ([]string, error)
	}
	var errs []error
	for name, p := range providers {
		r, ok := p.(reaper)
		if !ok {
			continue
		}
		ids, err := r.Reap(ctx, map[string]string{sandbox.LabelOwner: owner})
		if len(ids) > 0 {
			log.WarnContext(ctx, "removed sandboxes left at exit", "provider", name, "sandboxes", ids)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// defaultProvider is the provider of sessions that name none: kube when
// asked for, else docker when there is one.
func defaultProvider(providers map[string]sandbox.Provider) string {
	if providers["kube"] != nil {
		return "kube"
	}
	if providers["docker"] != nil {
		return "docker"
	}
	return "local"
}

// kubeProvider connects to the cluster of o.Kubeconfig (or $KUBECONFIG),
// reaching agentd through the API server's port-forward, or, with
// neither, to the cluster deskrun runs in, reaching agentd by pod IP.
func kubeProvider(o providerOptions, log *slog.Logger) (*kube.Provider, error) {
	cfg := kube.Config{
		Image: o.Image, RuntimeClass: o.Runtime, Namespace: o.Namespace,
		Labels: map[string]string{sandbox.LabelOwner: o.Owner},
		Logger: log,
	}
	path := cmp.Or(o.Kubeconfig, os.Getenv("KUBECONFIG"))
	if path == "" {
		rc, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("kube provider: not in a cluster and no --kubeconfig or $KUBECONFIG: %w", err)
		}
		cfg.REST, cfg.Reach = rc, kube.ReachPodIP
		if cfg.Namespace == "" {
			if b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
				cfg.Namespace = strings.TrimSpace(string(b))
			}
		}
	} else {
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: path}, &clientcmd.ConfigOverrides{})
		rc, err := cc.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", path, err)
		}
		if cfg.Namespace == "" {
			cfg.Namespace, _, _ = cc.Namespace()
		}
		cfg.REST, cfg.Reach = rc, kube.ReachPortForward
	}
	return kube.New(cfg)
}

func localProvider(agentdPath string) (*local.Provider, error) {
	bin, err := findAgentd(agentdPath)
	if err != nil {
		return nil, err
	}
	lp, err := local.New(bin, "openbox")
	if err != nil {
		return nil, fmt.Errorf("local provider: %w", err)
	}
	return lp, nil
}

// dockerProvider connects to the engine. Unless required, it also insists
// that the image exists, so that auto falls back to local sandboxes on a
// machine where the image was never built.
func dockerProvider(ctx context.Context, image, owner, runtime string, required bool, log *slog.Logger) (*docker.Provider, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(pctx, client.PingOptions{}); err != nil {
		cli.Close()
		return nil, fmt.Errorf("no Docker engine answers (is DOCKER_HOST right?): %w", err)
	}
	if !required {
		if _, err := cli.ImageInspect(pctx, image); err != nil {
			cli.Close()
			return nil, fmt.Errorf("image %s is not built (images/build.sh builds it): %w", image, err)
		}
	}
	return docker.New(cli, docker.Config{
		Image:   image,
		Runtime: runtime,
		Labels:  map[string]string{sandbox.LabelOwner: owner},
		Logger:  log,
	}), nil
}

// findAgentd returns flagPath, or else agentd beside the deskrun binary
// (bin/agentd when deskrun is bin/deskrun), or else agentd in $PATH.
func findAgentd(flagPath string) (string, error) {
	if flagPath != "" {
		if _, err := exec.LookPath(flagPath); err != nil {
			return "", fmt.Errorf("--agentd: %w", err)
		}
		return flagPath, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "agentd")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("agentd")
	if err != nil {
		return "", errors.New("agentd not found beside deskrun or in PATH (make build puts both in bin/); pass --agentd")
	}
	return p, nil
}

// imageApps says which applications that not every image has (VS Code)
// the sandboxes of provider and image have: a docker image by its labels
// (task.LabelVSCode), the local provider, whose sandboxes run the host's
// programs, by what is in PATH, a kube image by the labels of the local
// docker engine's copy when there is one.
func imageApps(ctx context.Context, providers map[string]sandbox.Provider, provider, image string) (task.Apps, error) {
	if provider == "local" {
		_, err := exec.LookPath("code")
		return task.Apps{VSCode: err == nil}, nil
	}
	labels, err := imageLabels(ctx, providers, provider, image)
	if err != nil {
		return task.Apps{}, err
	}
	return task.AppsOf(labels), nil
}

// LabelScreen is the label of a sandbox image naming the screen its
// desktop is made for, "WxH" (deskrun/osworld: 1920x1080, OSWorld's).
// deskrun eval runs the image at that size unless --screen says otherwise.
const LabelScreen = "dev.deskrun.screen"

// imageScreen is the screen of LabelScreen on the image of provider, or
// def when the image has no such label (or the provider runs no images,
// or the image cannot be read through the engine of DOCKER_HOST: a kube
// image that engine does not hold).
func imageScreen(ctx context.Context, provider, image string, def api.Screen) (api.Screen, error) {
	if provider != "docker" && provider != "kube" {
		return def, nil
	}
	labels, err := dockerImageLabels(ctx, image)
	if err != nil {
		if provider == "kube" {
			return def, nil
		}
		return def, err
	}
	v, ok := labels[LabelScreen]
	if !ok {
		return def, nil
	}
	var sc api.Screen
	if _, err := fmt.Sscanf(v, "%dx%d", &sc.Width, &sc.Height); err != nil || sc.Width <= 0 || sc.Height <= 0 {
		return def, fmt.Errorf("image %s: label %s: want WxH, got %q", image, LabelScreen, v)
	}
	return sc, nil
}

// imageLabels are the labels of image as provider runs it: a docker
// image's own, a kube image's as the local docker engine's copy has them
// (none when there is no such copy: the cluster does not show them).
func imageLabels(ctx context.Context, providers map[string]sandbox.Provider, provider, image string) (map[string]string, error) {
	if _, ok := providers[provider].(*kube.Provider); ok {
		labels, err := dockerImageLabels(ctx, image)
		if err != nil {
			return nil, nil
		}
		return labels, nil
	}
	dp, ok := providers[provider].(*docker.Provider)
	if !ok {
		return nil, fmt.Errorf("provider %q: not a docker provider", provider)
	}
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return dp.ImageLabels(ictx, image)
}

// dockerImageApps reads task.Apps from the labels of a docker image,
// through the engine of DOCKER_HOST.
func dockerImageApps(ctx context.Context, image string) (task.Apps, error) {
	labels, err := dockerImageLabels(ctx, image)
	if err != nil {
		return task.Apps{}, err
	}
	return task.AppsOf(labels), nil
}

// dockerImageLabels reads the labels of a docker image through the
// engine of DOCKER_HOST.
func dockerImageLabels(ctx context.Context, image string) (map[string]string, error) {
	cli, err := client.New(client.FromEnv)
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	defer cli.Close()
	ictx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	img, err := cli.ImageInspect(ictx, image)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", image, err)
	}
	if img.Config == nil {
		return nil, nil
	}
	return img.Config.Labels, nil
}

// sandboxes is what serve and eval run sessions on: the providers, a
// warm pool of the default one, and the session manager over them.
type sandboxes struct {
	// Manager manages the sessions; its caller closes it.
	Manager *runner.Manager
	// Default is the default provider's name.
	Default string
	// Images are the providers as set up, before a pool or a wrapper:
	// what image labels are read through.
	Images map[string]sandbox.Provider

	closers []func(context.Context) error
}

// sandboxOptions say how [assemble] builds [sandboxes].
type sandboxOptions struct {
	providerOptions
	// Warm is the size of the warm pool of the default provider (0: none);
	// WarmSpec gives its sandboxes' spec for the default provider's name.
	Warm     int
	WarmSpec func(def string) sandbox.Spec
	// Wrap, when set, wraps every provider (after the pool), e.g. to
	// count its calls.
	Wrap func(name string, p sandbox.Provider) sandbox.Provider
	// Manager configures the manager; its providers, default provider
	// and logger are set by assemble.
	Manager runner.Config
}

// assemble sets up the providers, the warm pool and the session
// manager, the one way serve and eval do. On error, what it started is
// stopped.
func assemble(ctx context.Context, o sandboxOptions, log *slog.Logger) (*sandboxes, error) {
	providers, closers, err := setupProvidersFor(ctx, o.providerOptions, log)
	if err != nil {
		return nil, err
	}
	s := &sandboxes{Default: defaultProvider(providers), Images: maps.Clone(providers), closers: closers}
	if o.Warm > 0 {
		spec := o.WarmSpec(s.Default)
		pl := pool.New(providers[s.Default], pool.Config{Specs: []sandbox.Spec{spec}, Size: o.Warm, Logger: log})
		providers[s.Default] = pl
		s.closers = append([]func(context.Context) error{pl.Close}, s.closers...)
		log.Info("warm pool", "provider", s.Default, "size", o.Warm, "image", spec.Image, "screen", spec.Screen)
	}
	if o.Wrap != nil {
		for name, p := range providers {
			providers[name] = o.Wrap(name, p)
		}
	}
	mc := o.Manager
	mc.Providers, mc.DefaultProvider, mc.Logger = providers, s.Default, log
	if s.Manager, err = runner.NewManager(mc); err != nil {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sessionsGrace)
		defer cancel()
		s.closeProviders(cctx, log)
		return nil, err
	}
	return s, nil
}

// closeProviders stops the pool and the providers (after the manager is
// closed).
func (s *sandboxes) closeProviders(ctx context.Context, log *slog.Logger) {
	for _, c := range s.closers {
		if err := c(ctx); err != nil {
			log.Warn("close provider", "err", err)
		}
	}
}
