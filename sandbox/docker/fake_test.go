package docker

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"

	"github.com/containerd/errdefs"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// fakeEngine is an in-memory Docker engine: containers and networks in
// maps, errors scriptable per method, every call recorded.
type fakeEngine struct {
	mu         sync.Mutex
	calls      []string
	containers map[string]*fakeContainer
	networks   map[string]client.NetworkCreateOptions
	next       int

	createErr, startErr, removeErr, netCreateErr error
	// exitOnStart makes started containers stop at once.
	exitOnStart bool
	// noAddress leaves started containers without an IP.
	noAddress bool
	// noImage makes every image unknown.
	noImage bool
	// imageLabels are the labels of every image.
	imageLabels map[string]string
}

type fakeContainer struct {
	opts    client.ContainerCreateOptions
	running bool
	stopped int // ContainerStop calls
	ip      netip.Addr
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{containers: map[string]*fakeContainer{}, networks: map[string]client.NetworkCreateOptions{}}
}

func (f *fakeEngine) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeEngine) callsWith(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func notFound(kind, id string) error {
	return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("No such %s: %s", kind, id))
}

func (f *fakeEngine) ContainerCreate(_ context.Context, opts client.ContainerCreateOptions) (client.ContainerCreateResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("create %s", opts.Config.Image)
	if f.createErr != nil {
		return client.ContainerCreateResult{}, f.createErr
	}
	f.next++
	id := fmt.Sprintf("%064x", f.next)
	f.containers[id] = &fakeContainer{opts: opts}
	return client.ContainerCreateResult{ID: id}, nil
}

func (f *fakeEngine) ContainerStart(_ context.Context, id string, _ client.ContainerStartOptions) (client.ContainerStartResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("start %s", id)
	c, ok := f.containers[id]
	if !ok {
		return client.ContainerStartResult{}, notFound("container", id)
	}
	if f.startErr != nil {
		return client.ContainerStartResult{}, f.startErr
	}
	c.running = !f.exitOnStart
	if !f.noAddress {
		c.ip = netip.AddrFrom4([4]byte{172, 30, 0, byte(1 + f.next)})
	}
	return client.ContainerStartResult{}, nil
}

func (f *fakeEngine) ContainerInspect(_ context.Context, id string, _ client.ContainerInspectOptions) (client.ContainerInspectResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("inspect %s", id)
	c, ok := f.containers[id]
	if !ok {
		return client.ContainerInspectResult{}, notFound("container", id)
	}
	st := &container.State{Running: c.running, Status: "running"}
	if !c.running {
		st.Status, st.ExitCode = "exited", 1
	}
	nets := map[string]*network.EndpointSettings{}
	for name := range c.opts.NetworkingConfig.EndpointsConfig {
		nets[name] = &network.EndpointSettings{IPAddress: c.ip}
	}
	return client.ContainerInspectResult{Container: container.InspectResponse{
		ID:              id,
		State:           st,
		Config:          c.opts.Config,
		HostConfig:      c.opts.HostConfig,
		NetworkSettings: &container.NetworkSettings{Networks: nets},
	}}, nil
}

func (f *fakeEngine) ContainerStop(_ context.Context, id string, _ client.ContainerStopOptions) (client.ContainerStopResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("stop %s", id)
	c, ok := f.containers[id]
	if !ok {
		return client.ContainerStopResult{}, notFound("container", id)
	}
	c.running = false
	c.stopped++
	return client.ContainerStopResult{}, nil
}

func (f *fakeEngine) ContainerRemove(_ context.Context, id string, opts client.ContainerRemoveOptions) (client.ContainerRemoveResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("remove %s force=%v volumes=%v", id, opts.Force, opts.RemoveVolumes)
	if f.removeErr != nil {
		return client.ContainerRemoveResult{}, f.removeErr
	}
	if _, ok := f.containers[id]; !ok {
		return client.ContainerRemoveResult{}, notFound("container", id)
	}
	delete(f.containers, id)
	return client.ContainerRemoveResult{}, nil
}

func (f *fakeEngine) ContainerList(_ context.Context, opts client.ContainerListOptions) (client.ContainerListResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("list all=%v", opts.All)
	var res client.ContainerListResult
	for id, c := range f.containers {
		if !opts.All && !c.running {
			continue
		}
		match := true
		for kv := range opts.Filters["label"] {
			k, v, _ := strings.Cut(kv, "=")
			if c.opts.Config.Labels[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		nets := map[string]*network.EndpointSettings{}
		for name := range c.opts.NetworkingConfig.EndpointsConfig {
			nets[name] = &network.EndpointSettings{IPAddress: c.ip}
		}
		res.Items = append(res.Items, container.Summary{
			ID:              id,
			Labels:          c.opts.Config.Labels,
			NetworkSettings: &container.NetworkSettingsSummary{Networks: nets},
		})
	}
	return res, nil
}

func (f *fakeEngine) NetworkInspect(_ context.Context, name string, _ client.NetworkInspectOptions) (client.NetworkInspectResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("network inspect %s", name)
	if _, ok := f.networks[name]; !ok {
		return client.NetworkInspectResult{}, notFound("network", name)
	}
	return client.NetworkInspectResult{}, nil
}

func (f *fakeEngine) NetworkCreate(_ context.Context, name string, opts client.NetworkCreateOptions) (client.NetworkCreateResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("network create %s", name)
	if f.netCreateErr != nil {
		return client.NetworkCreateResult{}, f.netCreateErr
	}
	f.networks[name] = opts
	return client.NetworkCreateResult{ID: name}, nil
}

// ImageInspect knows every image; its entrypoint is agentd's.
func (f *fakeEngine) ImageInspect(_ context.Context, img string, _ ...client.ImageInspectOption) (client.ImageInspectResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("image inspect %s", img)
	if f.noImage {
		return client.ImageInspectResult{}, notFound("image", img)
	}
	var res client.ImageInspectResult
	res.Config = &dockerspec.DockerOCIImageConfig{}
	res.Config.Entrypoint = []string{"/usr/local/bin/agentd", "--xvfb"}
	res.Config.Labels = f.imageLabels
	return res, nil
}

// The exec calls are not faked: AdminExec is tested on a real engine
// (e2e).
func (f *fakeEngine) ExecCreate(context.Context, string, client.ExecCreateOptions) (client.ExecCreateResult, error) {
	return client.ExecCreateResult{}, errdefs.ErrNotImplemented
}

func (f *fakeEngine) ExecAttach(context.Context, string, client.ExecAttachOptions) (client.ExecAttachResult, error) {
	return client.ExecAttachResult{}, errdefs.ErrNotImplemented
}

func (f *fakeEngine) ExecInspect(context.Context, string, client.ExecInspectOptions) (client.ExecInspectResult, error) {
	return client.ExecInspectResult{}, errdefs.ErrNotImplemented
}
