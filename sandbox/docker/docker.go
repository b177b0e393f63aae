// Package docker runs sandboxes as Docker containers: one container per
// sandbox, from an image of images/ (Xvfb, a window manager, apps and
// agentd), locked down by default and cut off from the network unless the
// sandbox asks for egress.
//
// Reaching agentd: isolated sandboxes join a bridge network that deskrun
// creates with Docker's "internal" flag (no route out of the host, no DNS
// beyond the network) and with inter-container traffic disabled (a sandbox
// cannot reach another). Docker publishes no ports for containers on an
// internal network (measured on engine 20.10: the port map stays empty), so
// the runner connects to agentd at the container's address on that bridge,
// which the host routes to directly. The runner must therefore share the
// engine's network namespace: run deskrun on the Docker host, or in a
// container with network_mode "host" (docker-compose.yml does). A unix
// socket on a shared volume would avoid that, at the cost of file
// ownership juggling between the runner and the sandbox user on every
// host; the bridge address needs nothing but the engine.
//
// What isolation does not cover: traffic addressed to the host itself
// (the bridge gateway or any host address) is delivered to the host's
// INPUT chain, which Docker leaves open, so host services listening on all
// interfaces are reachable from sandboxes. Bind host services to 127.0.0.1
// (deskrun serve does by default) or drop new connections from the bridge
// ([BridgeName]) in the host firewall.
package docker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// Names and ports shared with the images and the host firewall.
const (
	// DefaultImage is the image a Spec without one runs.
	DefaultImage = "deskrun/minimal:latest"
	// DefaultNetwork is the internal network isolated sandboxes join.
	DefaultNetwork = "deskrun-sandbox"
	// DefaultEgressNetwork is the network sandboxes with egress join.
	DefaultEgressNetwork = "deskrun-egress"
	// BridgeName is the host interface of DefaultNetwork, for firewall
	// rules.
	BridgeName = "deskrun0"
	// egressBridgeName is the host interface of DefaultEgressNetwork.
	egressBridgeName = "deskrun1"
	// AgentPort is the port agentd listens on inside the images.
	AgentPort = 7000
	// TokenEnv is the environment variable agentd reads its token from.
	TokenEnv = "AGENTD_TOKEN"
)

// Config holds optional settings for the Docker provider. The zero value
// is ready to use.
type Config struct {
	// Image is the image of a Spec that names none (default
	// [DefaultImage]).
	Image string
	// Network is the network isolated sandboxes join (default
	// [DefaultNetwork]). The provider creates it, internal and without
	// inter-container traffic, when it does not exist; an existing network
	// is used as it is.
	Network string
	// EgressNetwork is the network sandboxes with Spec.Network join
	// (default [DefaultEgressNetwork]); created like Network but with a
	// route out.
	EgressNetwork string
	// User runs the sandbox's processes (default "user", the images'
	// desktop user): a name or uid whose primary group has the same name
	// or gid, as setpriv drops to both before the image's entrypoint.
	User string
	// MemoryBytes limits a sandbox's memory when its Spec sets none
	// (default 2 GiB).
	MemoryBytes int64
	// NanoCPUs limits a sandbox's CPU when its Spec sets none, in
	// billionths of a core (default 1e9, one core).
	NanoCPUs int64
	// PidsLimit bounds the processes of a sandbox (default 512).
	PidsLimit int64
	// ShmSize is the size of /dev/shm (default 512 MiB; Chromium needs a
	// large one, and pages count only when used).
	ShmSize int64
	// DiskBytes bounds what a sandbox may write (default 2 GiB): /tmp and
	// /var/tmp, the places every program writes to, are tmpfs of this
	// size, at most half the memory limit (their pages count against it,
	// never the host's disk),
	// and the container's writable layer gets a quota of this size where
	// the storage driver has one (overlay2 on xfs with pquota, btrfs, zfs);
	// on others the user's home is bounded only by the host's disk, which
	// Start logs once.
	DiskBytes int64
	// Runtime is the container runtime of sandboxes whose Spec names none
	// (empty: the engine's default, runc), e.g. "runsc" for gVisor. The
	// engine must know it (daemon.json "runtimes"); images/README.md says
	// how to register gVisor's.
	Runtime string
	// NoHostGuard leaves the host firewall alone. By default the provider
	// makes the host drop new connections from its sandbox bridges
	// (iptables chain DESKRUN-SANDBOX on INPUT), so sandboxes cannot reach
	// the host's own services; without the right to (root or
	// CAP_NET_ADMIN) it logs a warning saying what to run.
	NoHostGuard bool
	// ReadOnlyRootfs makes the image's file system read-only, with a tmpfs
	// on /tmp and a volume, removed with the sandbox, on the user's home
	// (seeded from the image). Off by default: the agent user cannot
	// write outside its home and /tmp anyway, and task setup through the
	// admin channel must be able to change system files as it would on a
	// desktop.
	ReadOnlyRootfs bool
	// StartTimeout bounds Start when ctx has no earlier deadline (default
	// 60s), from the moment the start has its slot (MaxStarting).
	StartTimeout time.Duration
	// MaxStarting is how many sandboxes start (or restore) at once
	// (default: the host's processors, at least 2); a further Start
	// waits until one of them answers or fails. A desktop's start is the
	// busiest time of its life (a GNOME session brings up a dozen
	// programs, each reading its files): eight osworld desktops started
	// at once on 2 cores all passed the 60 s StartTimeout, in three runs
	// of three, while one alone takes about 8 s.
	MaxStarting int
	// HealthInterval is the pause between health checks of a starting
	// agentd (default 10ms).
	HealthInterval time.Duration
	// Labels are set on every container and network the provider creates,
	// besides the Spec's, e.g. {sandbox.LabelOwner: "runner-1"}.
	Labels map[string]string
	// SnapshotRuntime is the runtime whose sandboxes Checkpoint can save
	// (default [SnapshotRuntime]).
	SnapshotRuntime string
	// SnapshotRunsc is that runtime's wrapper, run to checkpoint (default
	// [DefaultSnapshotRunsc]).
	SnapshotRunsc string
	// RestoreMarkers is the folder where Restore tells the wrapper which
	// checkpoint a container starts from (default [DefaultRestoreMarkers],
	// the wrapper's).
	RestoreMarkers string
	// RuntimeRoot is the folder the engine keeps the snapshot runtime's
	// container state in; empty: found among the engine's usual places.
	RuntimeRoot string
	// Logger receives start and stop events. Nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Image == "" {
		c.Image = DefaultImage
	}
	if c.Network == "" {
		c.Network = DefaultNetwork
	}
	if c.EgressNetwork == "" {
		c.EgressNetwork = DefaultEgressNetwork
	}
	if c.User == "" {
		c.User = "user"
	}
	if c.MemoryBytes == 0 {
		c.MemoryBytes = 2 << 30
	}
	if c.NanoCPUs == 0 {
		c.NanoCPUs = 1e9
	}
	if c.PidsLimit == 0 {
		c.PidsLimit = 512
	}
	if c.ShmSize == 0 {
		c.ShmSize = 512 << 20
	}
	if c.DiskBytes == 0 {
		c.DiskBytes = 2 << 30
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 60 * time.Second
	}
	if c.MaxStarting <= 0 {
		c.MaxStarting = max(2, runtime.NumCPU())
	}
	if c.HealthInterval == 0 {
		c.HealthInterval = 10 * time.Millisecond
	}
	if c.SnapshotRuntime == "" {
		c.SnapshotRuntime = SnapshotRuntime
	}
	if c.SnapshotRunsc == "" {
		c.SnapshotRunsc = DefaultSnapshotRunsc
	}
	if c.RestoreMarkers == "" {
		c.RestoreMarkers = DefaultRestoreMarkers
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// engine is the part of the Docker client this package uses.
// *client.Client satisfies it; fake_test.go has a fake.
type engine interface {
	ContainerCreate(ctx context.Context, opts client.ContainerCreateOptions) (client.ContainerCreateResult, error)
	ContainerStart(ctx context.Context, id string, opts client.ContainerStartOptions) (client.ContainerStartResult, error)
	ContainerInspect(ctx context.Context, id string, opts client.ContainerInspectOptions) (client.ContainerInspectResult, error)
	ContainerStop(ctx context.Context, id string, opts client.ContainerStopOptions) (client.ContainerStopResult, error)
	ContainerRemove(ctx context.Context, id string, opts client.ContainerRemoveOptions) (client.ContainerRemoveResult, error)
	ContainerList(ctx context.Context, opts client.ContainerListOptions) (client.ContainerListResult, error)
	NetworkInspect(ctx context.Context, id string, opts client.NetworkInspectOptions) (client.NetworkInspectResult, error)
	NetworkCreate(ctx context.Context, name string, opts client.NetworkCreateOptions) (client.NetworkCreateResult, error)
	ImageInspect(ctx context.Context, image string, opts ...client.ImageInspectOption) (client.ImageInspectResult, error)
	ExecCreate(ctx context.Context, id string, opts client.ExecCreateOptions) (client.ExecCreateResult, error)
	ExecAttach(ctx context.Context, execID string, opts client.ExecAttachOptions) (client.ExecAttachResult, error)
	ExecInspect(ctx context.Context, execID string, opts client.ExecInspectOptions) (client.ExecInspectResult, error)
}

// Provider starts sandboxes as Docker containers. It is safe for
// concurrent use.
type Provider struct {
	engine engine
	cfg    Config
	log    *slog.Logger
	// healthy waits until the agentd at url answers its health check.
	healthy func(ctx context.Context, url string) error
	// guard closes the host to the sandboxes of a bridge ([guardHost]).
	guard func(ctx context.Context, bridge string) error

	// starting holds a token per sandbox starting (Config.MaxStarting).
	starting chan struct{}

	mu       sync.Mutex
	networks map[string]bool // networks known to exist
	// runscFunc, when set, stands in for running the snapshot runtime's
	// wrapper (tests).
	runscFunc func(ctx context.Context, args ...string) error
	// noQuota is set once the engine refused a writable-layer quota
	// (storage-opt size): its storage driver has none.
	noQuota bool
}

var (
	_ sandbox.Provider = (*Provider)(nil)
	_ sandbox.Lister   = (*Provider)(nil)
)

// New returns a provider that runs sandboxes on the engine cli talks to.
func New(cli *client.Client, cfg Config) *Provider {
	return newProvider(cli, cfg)
}

func newProvider(e engine, cfg Config) *Provider {
	cfg = cfg.withDefaults()
	p := &Provider{
		engine:   e,
		cfg:      cfg,
		log:      cfg.Logger.With("provider", "docker"),
		networks: map[string]bool{},
		guard:    guardHost,
		starting: make(chan struct{}, cfg.MaxStarting),
	}
	hc := &http.Client{Timeout: time.Second}
	p.healthy = func(ctx context.Context, url string) error {
		return agentdclient.WaitHealthy(ctx, url, hc, cfg.HealthInterval)
	}
	return p
}

// startSlot waits for a slot among the Config.MaxStarting sandboxes that
// may start at once; release gives it back.
func (p *Provider) startSlot(ctx context.Context) (release func(), err error) {
	select {
	case p.starting <- struct{}{}:
		return func() { <-p.starting }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait to start: %d sandboxes are starting: %w", cap(p.starting), ctx.Err())
	}
}

// Start creates and starts a container for spec and returns once agentd
// in it answers its health check. The container carries spec.Labels, the
// provider's Config.Labels and sandbox.LabelManaged; agentd requires a
// token made for this sandbox alone (Instance.Token). On error nothing is
// left behind.
func (p *Provider) Start(ctx context.Context, spec sandbox.Spec) (inst sandbox.Instance, err error) {
	spec = spec.WithDefaults()
	if spec.Screen.Width < 0 || spec.Screen.Height < 0 {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage("screen: width and height must be positive")
	}
	if spec.MemoryBytes < 0 || spec.NanoCPUs < 0 {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage("memory and cpu limits must not be negative")
	}
	release, err := p.startSlot(ctx)
	if err != nil {
		return sandbox.Instance{}, err
	}
	defer release()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.cfg.StartTimeout)
		defer cancel()
	}
	netName := p.cfg.Network
	if spec.Network {
		netName = p.cfg.EgressNetwork
	}
	if err := p.ensureNetwork(ctx, netName, !spec.Network); err != nil {
		return sandbox.Instance{}, err
	}
	token := sandbox.RandomHex(32)
	img, err := p.engine.ImageInspect(ctx, cmp.Or(spec.Image, p.cfg.Image))
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("image %s: %w", cmp.Or(spec.Image, p.cfg.Image), err)
	}
	if img.Config == nil || len(img.Config.Entrypoint) == 0 {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf(
			"image %s has no entrypoint (sandbox images start agentd from theirs)", cmp.Or(spec.Image, p.cfg.Image)))
	}
	opts := p.createOptions(spec, netName, token, img.Config.Entrypoint)
	p.mu.Lock()
	quota := !p.noQuota
	p.mu.Unlock()
	if quota {
		opts.HostConfig.StorageOpt = map[string]string{"size": strconv.FormatInt(p.cfg.DiskBytes, 10)}
	}
	t0 := time.Now()
	// The create request runs to its answer though ctx ends (Ctrl-C): one
	// cut short on the client may still be carried out by the engine, and
	// leave a container no one removes. After the answer, an ended ctx
	// undoes what it made (below).
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer ccancel()
	created, err := p.engine.ContainerCreate(cctx, opts)
	if err != nil && quota && strings.Contains(strings.ToLower(err.Error()), "storage-opt") {
		p.mu.Lock()
		p.noQuota = true
		p.mu.Unlock()
		p.log.Warn("the storage driver has no per-container quota: sandboxes' /tmp and /var/tmp are bounded tmpfs, their home is bounded only by the host's disk", "err", err)
		opts.HostConfig.StorageOpt = nil
		created, err = p.engine.ContainerCreate(cctx, opts)
	}
	if err != nil && strings.Contains(err.Error(), "runtime") && opts.HostConfig.Runtime != "" {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("runtime: the engine cannot run %q (its daemon.json names its runtimes): %v", opts.HostConfig.Runtime, err))
	}
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("create container: %w", err)
	}
	id := created.ID
	defer func() {
		if err != nil { // undo on any later failure, even if ctx is done
			rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if rmErr := p.remove(rmCtx, id); rmErr != nil && !errdefs.IsNotFound(rmErr) {
				err = errors.Join(err, rmErr)
			}
		}
	}()
	if err := ctx.Err(); err != nil {
		return sandbox.Instance{}, err
	}
	tCreated := time.Now()
	if _, err := p.engine.ContainerStart(ctx, id, client.ContainerStartOptions{}); err != nil {
		return sandbox.Instance{}, fmt.Errorf("start container %.12s: %w", id, err)
	}
	tStarted := time.Now()
	info, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("inspect container %.12s: %w", id, err)
	}
	url, err := agentURL(info.Container.NetworkSettings, netName)
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("container %.12s: %w", id, err)
	}
	if err := p.waitHealthy(ctx, id, url); err != nil {
		return sandbox.Instance{}, err
	}
	p.log.InfoContext(ctx, "sandbox started", "sandbox", shortID(id), "image", opts.Config.Image,
		"agent_url", url, "egress", spec.Network, "sudo", spec.Sudo,
		"create", tCreated.Sub(t0).Round(time.Millisecond), "start", tStarted.Sub(tCreated).Round(time.Millisecond),
		"healthy", time.Since(tStarted).Round(time.Millisecond))
	return sandbox.Instance{ID: id, AgentURL: url, Token: token, Labels: opts.Config.Labels}, nil
}

// waitHealthy waits for agentd's health check while making sure the
// container is still running, so a sandbox whose agentd exits at start
// fails at once instead of at the deadline.
func (p *Provider) waitHealthy(ctx context.Context, id, url string) error {
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- p.healthy(hctx, url) }()
	watch := time.NewTicker(250 * time.Millisecond)
	defer watch.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if cause := context.Cause(hctx); cause != nil && !errors.Is(cause, err) {
					err = cause
				}
				return fmt.Errorf("wait for agentd of %.12s: %w", id, err)
			}
			return nil
		case <-watch.C:
			info, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
			switch {
			case err != nil:
				cancel(fmt.Errorf("inspect container: %w", err))
			case info.Container.State != nil && !info.Container.State.Running:
				st := info.Container.State
				cancel(fmt.Errorf("container %s (exit code %d) %s: %w",
					st.Status, st.ExitCode, st.Error, errdefs.ErrUnavailable))
			}
		}
	}
}

// adminCaps are the only capabilities a sandbox's processes can ever
// hold, and only the commands the runner starts as root through
// [Provider.AdminExec] hold them: what task setup needs to act as an
// administrator would (write and chown system and user files, run sudo,
// stop any process). The desktop user's processes have none: the sandbox
// starts as root only to drop to the user at once (setpriv, before
// agentd), a non-root process gains no capability from the bounding set,
// and no-new-privileges stops setuid programs such as sudo from raising
// it. The bounding set is all a root process inside could regain, so no
// SYS_ADMIN, NET_*, MKNOD or the like.
var adminCaps = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID"}

// createOptions is the container of spec, joined to netName. entrypoint
// is the image's own, which the container runs as Config.User.
func (p *Provider) createOptions(spec sandbox.Spec, netName, token string, entrypoint []string) client.ContainerCreateOptions {
	image := spec.Image
	if image == "" {
		image = p.cfg.Image
	}
	labels := map[string]string{}
	maps.Copy(labels, spec.Labels)
	maps.Copy(labels, p.cfg.Labels)
	labels[sandbox.LabelManaged] = "true"

	env := make([]string, 0, len(spec.Env)+1)
	for k, v := range spec.Env {
		if k == TokenEnv {
			continue // the provider's token is the only one
		}
		env = append(env, k+"="+v)
	}
	env = append(env, TokenEnv+"="+token, sandbox.SoleDesktopEnv+"=1")

	memory := cmp.Or(spec.MemoryBytes, p.cfg.MemoryBytes)
	pids := p.cfg.PidsLimit
	stopTimeout := int((spec.StopTimeout + time.Second - 1) / time.Second)
	init := true
	// A sandbox that opts in to sudo goes without no-new-privileges, so
	// sudo's setuid bit takes effect; root then holds what adminCaps
	// leaves in the bounding set, no more.
	securityOpt := []string{"no-new-privileges:true"}
	if spec.Sudo {
		securityOpt = nil
	}
	hc := &container.HostConfig{
		NetworkMode: container.NetworkMode(netName),
		// The container is disposable: no restarts, logs capped.
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled},
		LogConfig: container.LogConfig{Type: "json-file", Config: map[string]string{
			"max-size": "1m", "max-file": "1",
		}},
		// Least privilege. Xvfb, the window manager, agentd and the apps
		// all run as the unprivileged desktop user and need no
		// capability: Xvfb listens on a unix socket under /tmp and on no
		// TCP port, XTEST and MIT-SHM are X requests, and shared memory is
		// the container's own IPC namespace. no-new-privileges disables
		// setuid programs such as sudo. The capabilities added back are
		// the admin channel's alone (see adminCaps).
		Privileged:  false,
		CapDrop:     []string{"ALL"},
		CapAdd:      adminCaps,
		SecurityOpt: securityOpt,
		IpcMode:     container.IPCModePrivate,
		Runtime:     cmp.Or(spec.Runtime, p.cfg.Runtime),
		Init:        &init, // reaps the apps' orphans, forwards SIGTERM to agentd
		ShmSize:     p.cfg.ShmSize,
		Resources: container.Resources{
			Memory:     memory,
			MemorySwap: memory, // no swap beyond the memory limit
			NanoCPUs:   cmp.Or(spec.NanoCPUs, p.cfg.NanoCPUs),
			PidsLimit:  &pids,
		},
	}
	// Where programs write scratch files: tmpfs of bounded size, at most
	// half the memory their pages are charged to (a full tmpfs must not
	// leave the desktop's processes to the OOM killer).
	size := strconv.FormatInt(min(p.cfg.DiskBytes, memory/2), 10)
	hc.Tmpfs = map[string]string{
		"/tmp":     "rw,nosuid,nodev,mode=1777,size=" + size,
		"/var/tmp": "rw,nosuid,nodev,mode=1777,size=" + size,
	}
	if p.cfg.ReadOnlyRootfs {
		hc.ReadonlyRootfs = true
		// An anonymous volume rather than a tmpfs: the engine fills it
		// with the image's home (Desktop, dot files) on first use, and
		// Stop removes it with the container.
		hc.Mounts = []mount.Mount{{Type: mount.TypeVolume, Target: "/home/user"}}
	}
	return client.ContainerCreateOptions{
		Name: "deskrun-" + sandbox.RandomHex(6),
		Config: &container.Config{
			Image: image,
			// Root only until setpriv: it drops to the desktop user with
			// its groups, clears the inheritable set, and runs the image's
			// entrypoint. Root in the process spec is what gives
			// AdminExec's commands the adminCaps; the user's get none.
			User: "0",
			Entrypoint: append([]string{"setpriv", "--reuid=" + p.cfg.User, "--regid=" + p.cfg.User,
				"--init-groups", "--inh-caps=-all", "--"}, entrypoint...),
			Env:         env,
			Cmd:         []string{"--screen", fmt.Sprintf("%dx%dx24", spec.Screen.Width, spec.Screen.Height)},
			Labels:      labels,
			StopTimeout: &stopTimeout,
		},
		HostConfig: hc,
		NetworkingConfig: &network.NetworkingConfig{
			EndpointsConfig: map[string]*network.EndpointSettings{netName: {}},
		},
	}
}

// ensureNetwork creates the network name unless it exists. internal
// networks have no route out of the host.
func (p *Provider) ensureNetwork(ctx context.Context, name string, internal bool) error {
	p.mu.Lock()
	defer p.mu.Unlock() // serialises the first Starts; later ones return at once
	if p.networks[name] {
		return nil
	}
	_, err := p.engine.NetworkInspect(ctx, name, client.NetworkInspectOptions{})
	if errdefs.IsNotFound(err) {
		bridge := BridgeName
		if !internal {
			bridge = egressBridgeName
		}
		labels := map[string]string{sandbox.LabelManaged: "true"}
		_, err = p.engine.NetworkCreate(ctx, name, client.NetworkCreateOptions{
			Driver:   "bridge",
			Internal: internal,
			Options: map[string]string{
				"com.docker.network.bridge.enable_icc": "false",
				"com.docker.network.bridge.name":       bridge,
			},
			Labels: labels,
		})
		if errdefs.IsConflict(err) { // created meanwhile by another runner
			err = nil
		}
		if err == nil {
			p.log.InfoContext(ctx, "network created", "network", name, "internal", internal)
		}
	}
	if err != nil {
		return fmt.Errorf("network %s: %w", name, err)
	}
	if !p.cfg.NoHostGuard {
		bridge := BridgeName
		if !internal {
			bridge = egressBridgeName
		}
		if name == p.cfg.Network || name == p.cfg.EgressNetwork {
			if err := p.guard(ctx, bridge); err != nil {
				p.log.WarnContext(ctx, "host firewall", "err", err)
			}
		}
	}
	p.networks[name] = true
	return nil
}

// ImageLabels returns the labels of image (empty: the provider's
// image), such as the one saying whether it has Visual Studio Code.
func (p *Provider) ImageLabels(ctx context.Context, image string) (map[string]string, error) {
	image = cmp.Or(image, p.cfg.Image)
	img, err := p.engine.ImageInspect(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("image %s: %w", image, err)
	}
	if img.Config == nil {
		return map[string]string{}, nil
	}
	return img.Config.Labels, nil
}

// Stop stops the sandbox id, giving agentd the Spec's StopTimeout to exit,
// and removes its container and anonymous volumes. An id that is not a
// sandbox of deskrun's (unknown, or a container deskrun did not start)
// yields an error for which errdefs.IsNotFound holds; stopping a sandbox
// that is already being removed succeeds.
func (p *Provider) Stop(ctx context.Context, id string) error {
	info, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return fmt.Errorf("stop sandbox %.12s: %w", id, err)
	}
	if info.Container.Config == nil || info.Container.Config.Labels[sandbox.LabelManaged] != "true" {
		return fmt.Errorf("stop sandbox %.12s: not a deskrun sandbox: %w", id, errdefs.ErrNotFound)
	}
	if info.Container.State != nil && info.Container.State.Running {
		_, err := p.engine.ContainerStop(ctx, id, client.ContainerStopOptions{})
		if err != nil && !errdefs.IsNotFound(err) && !errdefs.IsConflict(err) {
			p.log.WarnContext(ctx, "stop container", "sandbox", shortID(id), "err", err)
		}
	}
	if err := p.remove(ctx, id); err != nil {
		return fmt.Errorf("stop sandbox %.12s: %w", id, err)
	}
	p.log.InfoContext(ctx, "sandbox stopped", "sandbox", shortID(id))
	return nil
}

// remove removes container id at once, with its anonymous volumes. A
// removal already in progress counts as done.
func (p *Provider) remove(ctx context.Context, id string) error {
	_, err := p.engine.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && errdefs.IsConflict(err) && strings.Contains(err.Error(), "already in progress") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove container %.12s: %w", id, err)
	}
	return nil
}

// List returns the running sandboxes of this provider whose labels
// include all of labels. Instances carry ID, AgentURL and Labels; Token is
// empty (it is known only to whoever started the sandbox).
func (p *Provider) List(ctx context.Context, labels map[string]string) ([]sandbox.Instance, error) {
	items, err := p.list(ctx, labels, false)
	if err != nil {
		return nil, err
	}
	out := make([]sandbox.Instance, 0, len(items))
	for _, c := range items {
		inst := sandbox.Instance{ID: c.ID, Labels: c.Labels}
		if c.NetworkSettings != nil {
			for _, ep := range c.NetworkSettings.Networks {
				if ep != nil && ep.IPAddress.IsValid() {
					inst.AgentURL = "http://" + net.JoinHostPort(ep.IPAddress.String(), strconv.Itoa(AgentPort))
					break
				}
			}
		}
		out = append(out, inst)
	}
	return out, nil
}

func (p *Provider) list(ctx context.Context, labels map[string]string, all bool) ([]container.Summary, error) {
	f := make(client.Filters).Add("label", sandbox.LabelManaged+"=true")
	for k, v := range labels {
		f.Add("label", k+"="+v)
	}
	res, err := p.engine.ContainerList(ctx, client.ContainerListOptions{All: all, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	return res.Items, nil
}

// Reap removes every container of deskrun's whose labels include all of
// labels, running or not, e.g. {sandbox.LabelOwner: owner} for the
// leftovers of a runner that crashed. It returns the ids it removed; a
// failure to remove one does not stop the others and is reported in the
// joined error.
func (p *Provider) Reap(ctx context.Context, labels map[string]string) ([]string, error) {
	items, err := p.list(ctx, labels, true)
	if err != nil {
		return nil, fmt.Errorf("reap: %w", err)
	}
	var removed []string
	var errs []error
	for _, c := range items {
		if err := p.remove(ctx, c.ID); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, c.ID)
		p.log.InfoContext(ctx, "sandbox reaped", "sandbox", shortID(c.ID))
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("reap: %w", err)
	}
	return removed, nil
}

// agentURL is agentd's URL at the container's address on netName.
func agentURL(ns *container.NetworkSettings, netName string) (string, error) {
	if ns == nil || ns.Networks[netName] == nil || !ns.Networks[netName].IPAddress.IsValid() {
		return "", fmt.Errorf("no address on network %s: %w", netName, errdefs.ErrUnavailable)
	}
	ip := ns.Networks[netName].IPAddress.String()
	return "http://" + net.JoinHostPort(ip, strconv.Itoa(AgentPort)), nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
