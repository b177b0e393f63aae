package pool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

func newFake(delay time.Duration) *fake.Provider {
	return fake.New(fake.Config{Delay: delay})
}

func healthy(context.Context, sandbox.Instance) error { return nil }

var small = sandbox.Spec{Image: "deskrun/minimal:latest", Screen: api.Screen{Width: 1024, Height: 768}}

func TestWarmStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Second)
		pl := New(f, Config{Specs: []sandbox.Spec{small}, Size: 2, Healthy: healthy})
		defer pl.Close(context.Background())

		synctest.Wait()
		time.Sleep(2 * time.Second) // two sequential starts
		synctest.Wait()
		if got := pl.Idle(); got != 2 {
			t.Fatalf("idle = %d, want 2", got)
		}

		seen := map[string]bool{}
		for range 5 {
			start := time.Now()
			inst, err := pl.Start(t.Context(), small)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			if d := time.Since(start); d != 0 {
				t.Errorf("warm Start took %v, want no wait", d)
			}
			if seen[inst.ID] {
				t.Errorf("sandbox %s handed out twice", inst.ID)
			}
			seen[inst.ID] = true
			time.Sleep(time.Second) // the refill replaces it
			synctest.Wait()
		}
		if got := pl.Idle(); got != 2 {
			t.Errorf("idle after refills = %d, want 2", got)
		}
	})
}

func TestColdStartWhenNoMatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Second)
		pl := New(f, Config{Specs: []sandbox.Spec{small}, Healthy: healthy})
		defer pl.Close(context.Background())
		time.Sleep(time.Second)
		synctest.Wait()

		for _, spec := range []sandbox.Spec{
			{Image: "deskrun/desktop:latest", Screen: small.Screen},
			{Image: small.Image}, // default screen 1280x800
			{Image: small.Image, Screen: small.Screen, Env: map[string]string{"A": "1"}},
			{Image: small.Image, Screen: small.Screen, Network: true},
		} {
			start := time.Now()
			if _, err := pl.Start(t.Context(), spec); err != nil {
				t.Fatalf("Start: %v", err)
			}
			if d := time.Since(start); d != time.Second {
				t.Errorf("Start(%+v) took %v, want a cold start (1s)", spec, d)
			}
		}
		if got := pl.Idle(); got != 1 {
			t.Errorf("idle = %d, want the warm sandbox untouched", got)
		}
	})
}

func TestEmptyPoolFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Second)
		pl := New(f, Config{Specs: []sandbox.Spec{small}, Size: 1, Healthy: healthy})
		defer pl.Close(context.Background())
		// Nothing is ready yet: the caller does not wait for the refill
		// but starts its own.
		inst, err := pl.Start(t.Context(), small)
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		synctest.Wait()
		if got := pl.Idle(); got != 1 {
			t.Errorf("idle = %d, want 1", got)
		}
		inst2, err := pl.Start(t.Context(), small)
		if err != nil || inst2.ID == inst.ID {
			t.Errorf("second Start = %v, %v; want a different sandbox", inst2.ID, err)
		}
	})
}

func TestRefillRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		busy := errors.New("engine busy")
		f := fake.New(fake.Config{Delay: 10 * time.Millisecond, Errs: []error{busy, busy, busy}})
		pl := New(f, Config{Specs: []sandbox.Spec{small}, RetryDelay: time.Second, Healthy: healthy})
		defer pl.Close(context.Background())
		// Failures at 10ms, 1.02s, 3.03s (delays 1s, 2s, 4s), success at 7.04s.
		time.Sleep(7 * time.Second)
		synctest.Wait()
		if got := pl.Idle(); got != 0 {
			t.Fatalf("idle at 7s = %d, want 0 (still backing off)", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := pl.Idle(); got != 1 {
			t.Errorf("idle at 8s = %d, want 1", got)
		}
		if starts := f.Attempts(); starts != 4 {
			t.Errorf("%d starts, want 4", starts)
		}
	})
}

func TestUnhealthyIdleDiscarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Second)
		var mu sync.Mutex
		bad := map[string]bool{"fake-1": true}
		pl := New(f, Config{Specs: []sandbox.Spec{small}, Size: 2, Healthy: func(_ context.Context, inst sandbox.Instance) error {
			mu.Lock()
			defer mu.Unlock()
			if bad[inst.ID] {
				return errors.New("connection refused")
			}
			return nil
		}})
		defer pl.Close(context.Background())
		time.Sleep(2 * time.Second)
		synctest.Wait()

		inst, err := pl.Start(t.Context(), small)
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if inst.ID != "fake-2" {
			t.Errorf("got %s, want fake-2 (fake-1 is unhealthy)", inst.ID)
		}
		synctest.Wait()
		if stops := fmt.Sprint(f.Stopped()); stops != "[fake-1]" {
			t.Errorf("stopped %s, want [fake-1]", stops)
		}
	})
}

func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(time.Second)
		other := sandbox.Spec{Image: "deskrun/desktop:latest"}
		pl := New(f, Config{Specs: []sandbox.Spec{small, other}, Size: 2, Healthy: healthy})
		time.Sleep(1500 * time.Millisecond) // one ready per template, one starting
		synctest.Wait()
		inUse, err := pl.Start(t.Context(), small)
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		if err := pl.Close(t.Context()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if running := len(f.Running()); running != 1 {
			t.Errorf("%d sandboxes running after Close, want only the one in use", running)
		}
		if _, ok := f.Spec(inUse.ID); !ok {
			t.Errorf("Close stopped %s, which was handed out", inUse.ID)
		}
		// Afterwards Start goes straight to the provider.
		start := time.Now()
		if _, err := pl.Start(t.Context(), small); err != nil {
			t.Fatalf("Start after Close: %v", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("Start after Close took %v, want a cold start", d)
		}
		synctest.Wait() // no pool goroutine left: synctest would report it
	})
}

func TestAdminExecForwarded(t *testing.T) {
	var ids []string
	a := fake.New(fake.Config{Admin: func(_ context.Context, id string, req api.ExecRequest) (api.ExecResult, error) {
		ids = append(ids, id)
		return api.ExecResult{Stdout: req.Cmd[0]}, nil
	}})
	p := New(a, Config{Healthy: healthy})
	defer p.Close(context.Background())
	res, err := p.AdminExec(t.Context(), "fake-1", api.ExecRequest{Cmd: []string{"id"}})
	if err != nil || res.Stdout != "id" || len(ids) != 1 || ids[0] != "fake-1" {
		t.Errorf("AdminExec through the pool: %+v, %v (calls %q)", res, err, ids)
	}

	plain := New(newFake(0), Config{Healthy: healthy})
	defer plain.Close(context.Background())
	if _, err := plain.AdminExec(t.Context(), "fake-1", api.ExecRequest{Cmd: []string{"id"}}); !errdefs.IsNotImplemented(err) {
		t.Errorf("AdminExec over a provider without one: %v, want not implemented", err)
	}
}
