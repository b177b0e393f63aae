package docker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

var _ sandbox.Snapshotter = (*Provider)(nil)

// Defaults of the snapshot runtime (scripts/install-deps.sh installs it;
// docs/snapshots.md).
const (
	// SnapshotRuntime is the engine's name of the runtime whose sandboxes
	// can be snapshot: gVisor's runsc built by scripts/runsc/build.sh,
	// behind the scripts/runsc/runsc-snap wrapper.
	SnapshotRuntime = "runsc-snap"
	// DefaultSnapshotRunsc is where install-deps.sh puts that wrapper.
	DefaultSnapshotRunsc = "/usr/local/lib/deskrun/runsc-snap"
	// DefaultRestoreMarkers is the folder of the wrapper's restore
	// markers (RUNSC_SNAP_RESTORE in the wrapper).
	DefaultRestoreMarkers = "/run/deskrun/restore"
)

// snapshotMeta is what a snapshot's folder holds beside the runtime's
// image: the container to restore it into and the token its agentd
// answers.
type snapshotMeta struct {
	Source     string                `json:"source"`
	ImageID    string                `json:"image_id"`
	Image      string                `json:"image"`
	Network    string                `json:"network"`
	Token      string                `json:"token"`
	Config     *container.Config     `json:"config"`
	HostConfig *container.HostConfig `json:"host_config"`
}

const (
	metaFile  = "sandbox.json"
	imageDir  = "image" // the runtime's checkpoint
	dirPerm   = 0o700
	filePerm  = 0o600
	tokenSize = 32
)

// runscRoot is the folder the engine keeps its runsc containers' state in
// for runtime rt: Config.RuntimeRoot, or the first of the engine's usual
// places that holds id's state.
func (p *Provider) runscRoot(rt, id string) (string, error) {
	if p.cfg.RuntimeRoot != "" {
		return p.cfg.RuntimeRoot, nil
	}
	for _, dir := range []string{
		"/var/run/docker/runtime-" + rt + "/moby",
		"/run/docker/runtime-" + rt + "/moby",
		"/var/run/docker/runtime-runc/moby",
		"/run/docker/runtime-runc/moby",
		"/run/containerd/runc/moby",
	} {
		if m, _ := filepath.Glob(filepath.Join(dir, "*"+id+"*")); len(m) > 0 {
			return dir, nil
		}
	}
	return "", fmt.Errorf("find the state of %.12s under runtime %s (set the docker provider's RuntimeRoot): %w", id, rt, errdefs.ErrUnavailable)
}

// snapshotRuntime checks that the sandbox info describes runs under the
// snapshot runtime.
func (p *Provider) snapshotRuntime(info container.InspectResponse) error {
	rt := ""
	if info.HostConfig != nil {
		rt = info.HostConfig.Runtime
	}
	if rt != p.cfg.SnapshotRuntime {
		return errdefs.ErrNotImplemented.WithMessage(fmt.Sprintf(
			"sandbox %.12s runs under runtime %q, which cannot snapshot: start it under %s (deskrun serve --runtime %s, or \"runtime\": %q in the session; docs/snapshots.md)",
			info.ID, cmp.Or(rt, "runc"), p.cfg.SnapshotRuntime, p.cfg.SnapshotRuntime, p.cfg.SnapshotRuntime))
	}
	return nil
}

// Basis names what a snapshot of a sandbox of spec depends on: the
// image's id (its content) and the runtime, which must be the snapshot
// runtime.
func (p *Provider) Basis(ctx context.Context, spec sandbox.Spec) (string, error) {
	rt := cmp.Or(spec.Runtime, p.cfg.Runtime)
	if rt != p.cfg.SnapshotRuntime {
		return "", errdefs.ErrNotImplemented.WithMessage(fmt.Sprintf(
			"sandboxes under runtime %q cannot be saved: run them under %s (deskrun serve --runtime %s, --runtime %s for a run, or \"runtime\": %q in the session; docs/snapshots.md)",
			cmp.Or(rt, "runc"), p.cfg.SnapshotRuntime, p.cfg.SnapshotRuntime, p.cfg.SnapshotRuntime, p.cfg.SnapshotRuntime))
	}
	image := cmp.Or(spec.Image, p.cfg.Image)
	res, err := p.engine.ImageInspect(ctx, image)
	if err != nil {
		return "", fmt.Errorf("snapshot basis: image %s: %w", image, err)
	}
	return "docker " + res.ID + " " + rt, nil
}

// Checkpoint saves sandbox id whole into opts.Dir with the snapshot
// runtime's checkpoint (processes, memory, the files they wrote, the
// network stack), leaving it running unless opts.Stop. It needs the
// runtime's wrapper at Config.SnapshotRunsc and the right to run it
// (root on the engine's host).
func (p *Provider) Checkpoint(ctx context.Context, id string, opts sandbox.CheckpointOptions) (sandbox.Snapshot, error) {
	if opts.Dir == "" {
		return sandbox.Snapshot{}, errdefs.ErrInvalidArgument.WithMessage("checkpoint: no folder given")
	}
	res, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	info := res.Container
	if info.Config == nil || info.Config.Labels[sandbox.LabelManaged] != "true" {
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: not a deskrun sandbox: %w", id, errdefs.ErrNotFound)
	}
	if err := p.snapshotRuntime(info); err != nil {
		return sandbox.Snapshot{}, err
	}
	if info.State == nil || !info.State.Running {
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: the sandbox is not running: %w", id, errdefs.ErrConflict)
	}
	root, err := p.runscRoot(info.HostConfig.Runtime, info.ID)
	if err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Dir), dirPerm); err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	if err := os.Mkdir(opts.Dir, dirPerm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %s exists: %w", id, opts.Dir, errdefs.ErrAlreadyExists)
		}
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	netName := string(info.HostConfig.NetworkMode)
	meta := snapshotMeta{Source: info.ID, ImageID: info.Image, Image: info.Config.Image, Network: netName,
		Token: opts.Token, Config: info.Config, HostConfig: info.HostConfig}
	b, err := json.Marshal(meta)
	if err == nil {
		err = os.WriteFile(filepath.Join(opts.Dir, metaFile), b, filePerm)
	}
	if err != nil {
		os.RemoveAll(opts.Dir)
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	args := []string{"--root", root, "checkpoint", "--image-path", filepath.Join(opts.Dir, imageDir)}
	if !opts.Stop {
		args = append(args, "--leave-running")
	}
	start := time.Now()
	if err := p.runsc(ctx, append(args, info.ID)...); err != nil {
		os.RemoveAll(opts.Dir)
		return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
	}
	took := time.Since(start)
	if opts.Stop {
		// The runtime ends the sandbox once saved; the engine learns of it
		// from its shim a little later. Stop makes sure of it before the
		// sandbox counts as paused.
		if err := p.waitStopped(ctx, info.ID); err != nil {
			return sandbox.Snapshot{}, fmt.Errorf("checkpoint %.12s: %w", id, err)
		}
	}
	snap := sandbox.Snapshot{Dir: opts.Dir, Source: info.ID, Image: info.Config.Image, Bytes: dirBytes(opts.Dir), Took: took}
	p.log.InfoContext(ctx, "sandbox checkpointed", "sandbox", shortID(info.ID), "dir", opts.Dir,
		"bytes", snap.Bytes, "took", took.Round(time.Millisecond), "stopped", opts.Stop)
	return snap, nil
}

// Restore starts a sandbox from snap: a new container made like the one
// the snapshot was taken of (same image, limits and lockdown, a new name,
// address and network namespace; opts.Labels), or the stopped container
// opts.Into. The snapshot runtime's wrapper restores the checkpoint into
// it in place of a fresh start; once agentd answers, it is given a token
// of its own.
func (p *Provider) Restore(ctx context.Context, snap sandbox.Snapshot, opts sandbox.RestoreOptions) (inst sandbox.Instance, err error) {
	b, err := os.ReadFile(filepath.Join(snap.Dir, metaFile))
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: %w", snap.Dir, errors.Join(err, errdefs.ErrNotFound))
	}
	var meta snapshotMeta
	if err := json.Unmarshal(b, &meta); err != nil || meta.Config == nil || meta.HostConfig == nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: %s is not a snapshot's: %w", snap.Dir, metaFile, errors.Join(err, errdefs.ErrInvalidArgument))
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
	token := sandbox.RandomHex(tokenSize)
	t0 := time.Now()
	id := opts.Into
	labels := meta.Config.Labels
	if id == "" {
		cfg := *meta.Config
		cfg.Image = cmp.Or(meta.ImageID, meta.Config.Image)
		cfg.Hostname = ""
		labels = map[string]string{}
		maps.Copy(labels, opts.Labels)
		maps.Copy(labels, p.cfg.Labels)
		labels[sandbox.LabelManaged] = "true"
		cfg.Labels = labels
		cfg.Env = nil
		for _, e := range meta.Config.Env {
			if !strings.HasPrefix(e, TokenEnv+"=") {
				cfg.Env = append(cfg.Env, e)
			}
		}
		// The restored agentd reads no environment; the variable says
		// which token the container was made for.
		cfg.Env = append(cfg.Env, TokenEnv+"="+token)
		hc := *meta.HostConfig
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer ccancel()
		created, err := p.engine.ContainerCreate(cctx, client.ContainerCreateOptions{
			Name: "deskrun-" + sandbox.RandomHex(6), Config: &cfg, HostConfig: &hc,
			NetworkingConfig: &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{meta.Network: {}}},
		})
		if err != nil {
			return sandbox.Instance{}, fmt.Errorf("restore %s: create container: %w", snap.Dir, err)
		}
		id = created.ID
		defer func() {
			if err != nil {
				rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				defer cancel()
				if rmErr := p.remove(rmCtx, id); rmErr != nil && !errdefs.IsNotFound(rmErr) {
					err = errors.Join(err, rmErr)
				}
			}
		}()
	} else {
		res, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		if err != nil {
			return sandbox.Instance{}, fmt.Errorf("restore into %.12s: %w", id, err)
		}
		if res.Container.Config == nil || res.Container.Config.Labels[sandbox.LabelManaged] != "true" {
			return sandbox.Instance{}, fmt.Errorf("restore into %.12s: not a deskrun sandbox: %w", id, errdefs.ErrNotFound)
		}
		if res.Container.State != nil && res.Container.State.Running {
			return sandbox.Instance{}, fmt.Errorf("restore into %.12s: the sandbox is running: %w", id, errdefs.ErrConflict)
		}
		id = res.Container.ID
		labels = res.Container.Config.Labels
	}
	tCreated := time.Now()
	marker := filepath.Join(p.cfg.RestoreMarkers, id)
	err = os.MkdirAll(p.cfg.RestoreMarkers, dirPerm)
	if err == nil {
		err = os.WriteFile(marker, []byte(filepath.Join(snap.Dir, imageDir)), filePerm)
	}
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: the runtime's marker (needs root on the engine's host): %w (%w)", snap.Dir, err, errdefs.ErrUnavailable)
	}
	_, err = p.engine.ContainerStart(ctx, id, client.ContainerStartOptions{})
	os.Remove(marker) // the wrapper removed it, unless the start failed before
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: start container %.12s: %w", snap.Dir, id, err)
	}
	tStarted := time.Now()
	res, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: inspect container %.12s: %w", snap.Dir, id, err)
	}
	url, err := agentURL(res.Container.NetworkSettings, meta.Network)
	if err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: container %.12s: %w", snap.Dir, id, err)
	}
	if err := p.waitHealthy(ctx, id, url); err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: %w", snap.Dir, err)
	}
	tHealthy := time.Now()
	// The copy answers the token of the sandbox the snapshot was taken
	// of, known to the runner alone; from here on it answers its own.
	c := agentdclient.NewClient(url, meta.Token, &http.Client{Timeout: 10 * time.Second})
	if err := c.SetToken(ctx, token); err != nil {
		return sandbox.Instance{}, fmt.Errorf("restore %s: give agentd of %.12s its token: %w", snap.Dir, id, err)
	}
	p.log.InfoContext(ctx, "sandbox restored", "sandbox", shortID(id), "snapshot", snap.Dir, "agent_url", url,
		"into", opts.Into != "", "create", tCreated.Sub(t0).Round(time.Millisecond),
		"restore", tStarted.Sub(tCreated).Round(time.Millisecond), "healthy", tHealthy.Sub(tStarted).Round(time.Millisecond))
	return sandbox.Instance{ID: id, AgentURL: url, Token: token, Labels: labels}, nil
}

// waitStopped waits until the engine reports container id stopped, and
// stops it should it still run after a few seconds.
func (p *Provider) waitStopped(ctx context.Context, id string) error {
	for range 50 {
		res, err := p.engine.ContainerInspect(ctx, id, client.ContainerInspectOptions{})
		if err != nil {
			return err
		}
		if res.Container.State == nil || !res.Container.State.Running {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	_, err := p.engine.ContainerStop(ctx, id, client.ContainerStopOptions{})
	return err
}

// runsc runs the snapshot runtime's wrapper with args.
func (p *Provider) runsc(ctx context.Context, args ...string) error {
	if p.runscFunc != nil {
		return p.runscFunc(ctx, args...)
	}
	out, err := exec.CommandContext(ctx, p.cfg.SnapshotRunsc, args...).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if len(msg) > 2000 {
			msg = "..." + msg[len(msg)-2000:]
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("run %s (scripts/install-deps.sh installs it): %w", p.cfg.SnapshotRunsc, errors.Join(err, errdefs.ErrUnavailable))
		}
		// Unavailable, so the API shows the runtime's words (a runner
		// that is not root, a runtime that refused the sandbox).
		return fmt.Errorf("%s %s (needs root on the engine's host): %w: %s (%w)", filepath.Base(p.cfg.SnapshotRunsc), args[2], err, msg, errdefs.ErrUnavailable)
	}
	return nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
