package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/google/go-cmp/cmp"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// newTestProvider returns a provider on a fake engine whose agentd
// answers health checks with healthErr.
func newTestProvider(t *testing.T, cfg Config, healthErr error) (*Provider, *fakeEngine, *[]string) {
	t.Helper()
	f := newFakeEngine()
	p := newProvider(f, cfg)
	p.guard = func(context.Context, string) error { return nil } // the host's firewall is e2e's business
	var mu sync.Mutex
	var urls []string
	p.healthy = func(ctx context.Context, url string) error {
		mu.Lock()
		urls = append(urls, url)
		mu.Unlock()
		return healthErr
	}
	return p, f, &urls
}

func TestStartLockedDown(t *testing.T) {
	p, f, urls := newTestProvider(t, Config{Labels: map[string]string{sandbox.LabelOwner: "r1"}}, nil)
	inst, err := p.Start(t.Context(), sandbox.Spec{
		Screen: api.Screen{Width: 1024, Height: 768},
		Env:    map[string]string{"LANG": "C.UTF-8", TokenEnv: "chosen-by-caller"},
		Labels: map[string]string{sandbox.LabelSession: "s1", sandbox.LabelManaged: "false"},
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c := f.containers[inst.ID]
	if c == nil {
		t.Fatalf("container %s not created", inst.ID)
	}
	cfg, hc := c.opts.Config, c.opts.HostConfig

	if got, want := inst.AgentURL, "http://"+c.ip.String()+":7000"; got != want {
		t.Errorf("AgentURL = %q, want %q", got, want)
	}
	if got, want := *urls, []string{inst.AgentURL}; !slices.Equal(got, want) {
		t.Errorf("health checked at %q, want %q", got, want)
	}
	if len(inst.Token) != 64 {
		t.Errorf("token %q: got %d hex digits, want 64", inst.Token, len(inst.Token))
	}
	if got, want := cfg.Env, []string{"LANG=C.UTF-8", TokenEnv + "=" + inst.Token, sandbox.SoleDesktopEnv + "=1"}; !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	wantLabels := map[string]string{sandbox.LabelManaged: "true", sandbox.LabelOwner: "r1", sandbox.LabelSession: "s1"}
	if diff := cmp.Diff(wantLabels, cfg.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantLabels, inst.Labels); diff != "" {
		t.Errorf("instance labels (-want +got):\n%s", diff)
	}
	if got, want := cfg.Image, DefaultImage; got != want {
		t.Errorf("Image = %q, want %q", got, want)
	}
	if got, want := cfg.Cmd, []string{"--screen", "1024x768x24"}; !slices.Equal(got, want) {
		t.Errorf("Cmd = %q, want %q", got, want)
	}
	// Root only until setpriv drops to the desktop user before the
	// image's entrypoint.
	if got, want := cfg.User, "0"; got != want {
		t.Errorf("User = %q, want %q", got, want)
	}
	wantEntry := []string{"setpriv", "--reuid=user", "--regid=user", "--init-groups", "--inh-caps=-all", "--", "/usr/local/bin/agentd", "--xvfb"}
	if got := []string(cfg.Entrypoint); !slices.Equal(got, wantEntry) {
		t.Errorf("Entrypoint = %q, want %q", got, wantEntry)
	}
	if hc.Privileged {
		t.Error("Privileged = true")
	}
	if got, want := hc.CapDrop, []string{"ALL"}; !slices.Equal(got, want) {
		t.Errorf("CapDrop = %q, want %q", got, want)
	}
	if got, want := hc.CapAdd, adminCaps; !slices.Equal(got, want) {
		t.Errorf("CapAdd = %q, want only the admin channel's %q", got, want)
	}
	if !slices.Contains(hc.SecurityOpt, "no-new-privileges:true") {
		t.Errorf("SecurityOpt = %q, want no-new-privileges", hc.SecurityOpt)
	}
	if hc.PidsLimit == nil || *hc.PidsLimit != 512 {
		t.Errorf("PidsLimit = %v, want 512", hc.PidsLimit)
	}
	if got, want := hc.Memory, int64(2<<30); got != want {
		t.Errorf("Memory = %d, want %d", got, want)
	}
	if got, want := hc.NanoCPUs, int64(1e9); got != want {
		t.Errorf("NanoCPUs = %d, want %d", got, want)
	}
	if got, want := string(hc.NetworkMode), DefaultNetwork; got != want {
		t.Errorf("NetworkMode = %q, want %q", got, want)
	}
	if len(hc.PortBindings) != 0 {
		t.Errorf("PortBindings = %v, want none", hc.PortBindings)
	}
	n, ok := f.networks[DefaultNetwork]
	if !ok {
		t.Fatalf("network %s not created", DefaultNetwork)
	}
	if !n.Internal || n.Options["com.docker.network.bridge.enable_icc"] != "false" {
		t.Errorf("network: internal %v, options %v; want internal, icc off", n.Internal, n.Options)
	}
}

func TestStartLimitsAndEgress(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{Image: "img:1", PidsLimit: 64}, nil)
	inst, err := p.Start(t.Context(), sandbox.Spec{
		Image:       "deskrun/desktop:latest",
		MemoryBytes: 1 << 30,
		NanoCPUs:    5e8,
		Network:     true,
		StopTimeout: 1500 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	c := f.containers[inst.ID]
	hc := c.opts.HostConfig
	if got, want := c.opts.Config.Image, "deskrun/desktop:latest"; got != want {
		t.Errorf("Image = %q, want %q", got, want)
	}
	if hc.Memory != 1<<30 || hc.NanoCPUs != 5e8 || *hc.PidsLimit != 64 {
		t.Errorf("limits: memory %d, cpus %d, pids %d; want %d, %d, %d", hc.Memory, hc.NanoCPUs, *hc.PidsLimit, 1<<30, int64(5e8), 64)
	}
	if got, want := *c.opts.Config.StopTimeout, 2; got != want {
		t.Errorf("StopTimeout = %ds, want %ds", got, want)
	}
	if got, want := string(hc.NetworkMode), DefaultEgressNetwork; got != want {
		t.Errorf("NetworkMode = %q, want %q", got, want)
	}
	if n := f.networks[DefaultEgressNetwork]; n.Internal {
		t.Error("egress network is internal")
	}
	if _, ok := f.networks[DefaultNetwork]; ok {
		t.Error("isolated network created for an egress sandbox")
	}
}

func TestStartInvalidSpec(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	for _, spec := range []sandbox.Spec{
		{MemoryBytes: -1},
		{NanoCPUs: -5},
		{Screen: api.Screen{Width: -1, Height: 10}},
	} {
		_, err := p.Start(t.Context(), spec)
		if !errdefs.IsInvalidArgument(err) {
			t.Errorf("Start(%+v) = %v, want invalid argument", spec, err)
		}
	}
	if n := f.callsWith("create"); n != 0 {
		t.Errorf("%d containers created for invalid specs", n)
	}
}

func TestStartNetworkOnce(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := p.Start(t.Context(), sandbox.Spec{}); err != nil {
				t.Errorf("Start: %v", err)
			}
		})
	}
	wg.Wait()
	if got := f.callsWith("network create"); got != 1 {
		t.Errorf("network created %d times, want 1", got)
	}
	if got := f.callsWith("network inspect"); got != 1 {
		t.Errorf("network inspected %d times, want 1", got)
	}
	if got := len(f.containers); got != 8 {
		t.Errorf("%d containers, want 8", got)
	}
}

func TestStartCleansUp(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		setup     func(*fakeEngine)
		health    error
		wantErr   string
		wantCalls int // ContainerRemove calls
	}{
		{name: "create fails", setup: func(f *fakeEngine) { f.createErr = boom }, wantErr: "create container: boom", wantCalls: 0},
		{name: "start fails", setup: func(f *fakeEngine) { f.startErr = boom }, wantErr: "start container", wantCalls: 1},
		{name: "no address", setup: func(f *fakeEngine) { f.noAddress = true }, wantErr: "no address on network", wantCalls: 1},
		{name: "agentd unhealthy", health: boom, wantErr: "wait for agentd", wantCalls: 1},
		{name: "network fails", setup: func(f *fakeEngine) { f.netCreateErr = boom }, wantErr: "network deskrun-sandbox: boom", wantCalls: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, f, _ := newTestProvider(t, Config{}, tt.health)
			if tt.setup != nil {
				tt.setup(f)
			}
			_, err := p.Start(t.Context(), sandbox.Spec{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Start error = %v, want one containing %q", err, tt.wantErr)
			}
			if tt.health != nil && !errors.Is(err, tt.health) {
				t.Errorf("Start error %v does not wrap %v", err, tt.health)
			}
			if got := f.callsWith("remove"); got != tt.wantCalls {
				t.Errorf("%d removals, want %d", got, tt.wantCalls)
			}
			if got := len(f.containers); got != 0 {
				t.Errorf("%d containers left", got)
			}
		})
	}
}

func TestStartCancelledStillCleansUp(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	p.healthy = func(ctx context.Context, url string) error {
		cancel() // the caller gives up while agentd starts
		<-ctx.Done()
		return ctx.Err()
	}
	_, err := p.Start(ctx, sandbox.Spec{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Start error = %v, want context.Canceled", err)
	}
	if got := len(f.containers); got != 0 {
		t.Errorf("%d containers left after a cancelled Start", got)
	}
}

func TestStartContainerExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, f, _ := newTestProvider(t, Config{}, nil)
		f.exitOnStart = true
		p.healthy = func(ctx context.Context, url string) error {
			<-ctx.Done() // agentd never answers
			return ctx.Err()
		}
		start := time.Now()
		_, err := p.Start(t.Context(), sandbox.Spec{})
		if err == nil || !strings.Contains(err.Error(), "container exited (exit code 1)") {
			t.Fatalf("Start error = %v, want container exited", err)
		}
		if !errdefs.IsUnavailable(err) {
			t.Errorf("Start error %v: want class unavailable", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Start noticed the exit after %v, want within a second", d)
		}
		if got := len(f.containers); got != 0 {
			t.Errorf("%d containers left", got)
		}
	})
}

func TestStartTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, f, _ := newTestProvider(t, Config{StartTimeout: 5 * time.Second}, nil)
		p.healthy = func(ctx context.Context, url string) error {
			<-ctx.Done()
			return ctx.Err()
		}
		start := time.Now()
		_, err := p.Start(t.Context(), sandbox.Spec{})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Start error = %v, want deadline exceeded", err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("Start gave up after %v, want 5s", d)
		}
		if got := len(f.containers); got != 0 {
			t.Errorf("%d containers left", got)
		}
	})
}

func TestStop(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	inst, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := p.Stop(t.Context(), inst.ID); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if got, want := f.callsWith("stop "+inst.ID), 1; got != want {
		t.Errorf("%d ContainerStop calls, want %d", got, want)
	}
	if got, want := f.callsWith("remove "+inst.ID+" force=true volumes=true"), 1; got != want {
		t.Errorf("%d forced removals with volumes, want %d", got, want)
	}
	err = p.Stop(t.Context(), inst.ID)
	if !errdefs.IsNotFound(err) {
		t.Errorf("second Stop = %v, want not found", err)
	}
	if err := p.Stop(t.Context(), "nosuchcontainer"); !errdefs.IsNotFound(err) {
		t.Errorf("Stop(unknown) = %v, want not found", err)
	}
}

func TestStopRefusesForeignContainer(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	res, _ := f.ContainerCreate(t.Context(), client.ContainerCreateOptions{
		Config:           &container.Config{Image: "postgres", Labels: map[string]string{"app": "db"}},
		NetworkingConfig: p.createOptions(sandbox.Spec{}, "n", "t", []string{"agentd"}).NetworkingConfig,
	})
	err := p.Stop(t.Context(), res.ID)
	if !errdefs.IsNotFound(err) {
		t.Errorf("Stop(foreign) = %v, want not found", err)
	}
	if _, ok := f.containers[res.ID]; !ok {
		t.Error("foreign container removed")
	}
}

func TestListAndReap(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	var ids []string
	for i, owner := range []string{"a", "a", "b"} {
		inst, err := p.Start(t.Context(), sandbox.Spec{Labels: map[string]string{
			sandbox.LabelOwner: owner, sandbox.LabelSession: fmt.Sprint(i),
		}})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		ids = append(ids, inst.ID)
	}
	f.containers[ids[1]].running = false // exited, as after a crash

	got, err := p.List(t.Context(), map[string]string{sandbox.LabelOwner: "a"})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != 1 || got[0].ID != ids[0] || got[0].Labels[sandbox.LabelSession] != "0" {
		t.Errorf("List(owner a) = %+v, want the running sandbox %s", got, ids[0])
	}
	if !strings.HasPrefix(got[0].AgentURL, "http://172.30.0.") {
		t.Errorf("AgentURL = %q", got[0].AgentURL)
	}

	removed, err := p.Reap(t.Context(), map[string]string{sandbox.LabelOwner: "a"})
	if err != nil {
		t.Fatalf("Reap: %v", err)
	}
	slices.Sort(removed)
	want := []string{ids[0], ids[1]}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("Reap removed %q, want %q", removed, want)
	}
	if _, ok := f.containers[ids[2]]; !ok || len(f.containers) != 1 {
		t.Errorf("after Reap: %d containers, want only %s", len(f.containers), ids[2])
	}
}

// roundTripper answers requests in memory, so that synctest's clock can
// advance while a poll waits.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func answer(status int) *http.Response {
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(`{"status":"ok"}`))}
}

func TestStartReadOnlyRootfs(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{ReadOnlyRootfs: true}, nil)
	inst, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	hc := f.containers[inst.ID].opts.HostConfig
	if !hc.ReadonlyRootfs {
		t.Error("ReadonlyRootfs = false")
	}
	if _, ok := hc.Tmpfs["/tmp"]; !ok {
		t.Errorf("Tmpfs = %v, want /tmp", hc.Tmpfs)
	}
	if len(hc.Mounts) != 1 || hc.Mounts[0].Target != "/home/user" || hc.Mounts[0].Source != "" {
		t.Errorf("Mounts = %+v, want one anonymous volume on /home/user", hc.Mounts)
	}
}

func TestStartSudo(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{}, nil)
	inst, err := p.Start(t.Context(), sandbox.Spec{Sudo: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	hc := f.containers[inst.ID].opts.HostConfig
	if slices.Contains(hc.SecurityOpt, "no-new-privileges:true") {
		t.Errorf("SecurityOpt = %q: a sudo sandbox must go without no-new-privileges", hc.SecurityOpt)
	}
	// Everything else stays locked down.
	if hc.Privileged || !slices.Equal(hc.CapDrop, []string{"ALL"}) || !slices.Equal(hc.CapAdd, adminCaps) {
		t.Errorf("privileged %v, cap drop %q, cap add %q", hc.Privileged, hc.CapDrop, hc.CapAdd)
	}
}

// ImageLabels answers the labels of the image asked for, or of the
// provider's image; an unknown image is an error naming it.
func TestImageLabels(t *testing.T) {
	p, f, _ := newTestProvider(t, Config{Image: "deskrun/osworld"}, nil)
	f.imageLabels = map[string]string{"dev.deskrun.vscode": "1"}
	for _, img := range []string{"", "deskrun/other"} {
		labels, err := p.ImageLabels(t.Context(), img)
		if err != nil || labels["dev.deskrun.vscode"] != "1" {
			t.Errorf("ImageLabels(%q) = %v, %v", img, labels, err)
		}
	}
	if !slices.Contains(f.calls, "image inspect deskrun/osworld") || !slices.Contains(f.calls, "image inspect deskrun/other") {
		t.Errorf("calls %q", f.calls)
	}
	f.noImage = true
	if _, err := p.ImageLabels(t.Context(), "deskrun/none"); err == nil || !strings.Contains(err.Error(), "image deskrun/none") {
		t.Errorf("unknown image: %v", err)
	}
}

// TestMaxStarting: with MaxStarting 2, a third Start waits until one of
// the two starting answers, and its StartTimeout runs from then: it is
// not late for the time it waited.
func TestMaxStarting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _, _ := newTestProvider(t, Config{MaxStarting: 2, StartTimeout: time.Minute}, nil)
		gate := make(chan struct{})
		var mu sync.Mutex
		checking := 0
		p.healthy = func(ctx context.Context, url string) error {
			mu.Lock()
			checking++
			mu.Unlock()
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		errs := make(chan error, 3)
		for range 3 {
			go func() {
				_, err := p.Start(context.Background(), sandbox.Spec{})
				errs <- err
			}()
		}
		count := func() int {
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			return checking
		}
		time.Sleep(30 * time.Second)
		if n := count(); n != 2 {
			t.Fatalf("%d starts under way, want 2 (MaxStarting)", n)
		}
		// The two time out at 60 s (the gate stays shut); the third then
		// starts, and 30 s later, 90 s after it was asked for, it is
		// still within its own timeout: it answers once the gate opens.
		for range 2 {
			if err := <-errs; !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("first two: %v, want their own timeout", err)
			}
		}
		time.Sleep(30 * time.Second)
		if n := count(); n != 3 {
			t.Fatalf("%d starts under way, want the third's too", n)
		}
		close(gate)
		if err := <-errs; err != nil {
			t.Errorf("the third, started once a slot was free: %v", err)
		}
	})
}
