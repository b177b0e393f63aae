package runner

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

// adopt registers a session over a sandbox of p started here, as Create
// does once agentd has answered (the fake sandbox has none).
func adopt(t *testing.T, m *Manager, p *fake.Provider, id string) *Session {
	t.Helper()
	inst, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{log: slog.New(slog.DiscardHandler), prov: p, inst: inst,
		info: api.Session{ID: id, Provider: "fake", CreatedAt: time.Now().UTC(), SandboxID: inst.ID}}
	m.mu.Lock()
	m.sessions[id] = s
	m.mu.Unlock()
	m.watchDeadline(s)
	return s
}

// TestDeadline checks the reaper: a session past its deadline is deleted
// and its sandbox stopped, a moved deadline counts from its new time, and
// a session without one stays.
func TestDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := fake.New(fake.Config{})
		m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"fake": p}, HealthInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close(context.Background())
		short := adopt(t, m, p, "short")
		moved := adopt(t, m, p, "moved")
		none := adopt(t, m, p, "none")
		start := time.Now()
		short.SetDeadline(start.Add(10 * time.Second))
		moved.SetDeadline(start.Add(10 * time.Second))
		if got := short.Info().ExpiresAt; !got.Equal(start.Add(10 * time.Second)) {
			t.Errorf("expires_at %v, want %v", got, start.Add(10*time.Second))
		}

		time.Sleep(5 * time.Second)
		moved.SetDeadline(time.Now().Add(20 * time.Second)) // now 25 s from start
		if got := moved.ExtendDeadline(start.Add(15 * time.Second)); !got.Equal(start.Add(25 * time.Second)) {
			t.Errorf("an earlier time moved the deadline to %v", got)
		}
		if got := none.ExtendDeadline(start.Add(15 * time.Second)); !got.IsZero() {
			t.Errorf("ExtendDeadline gave a session without one the deadline %v", got)
		}

		time.Sleep(5*time.Second + time.Millisecond)
		synctest.Wait()
		if _, err := m.Get("short"); !errdefs.IsNotFound(err) {
			t.Errorf("short past its deadline: Get = %v, want not found", err)
		}
		if _, err := m.Get("moved"); err != nil {
			t.Errorf("moved before its new deadline: %v", err)
		}
		if !slices.Contains(p.Stopped(), short.inst.ID) {
			t.Errorf("short's sandbox not stopped: stopped %v", p.Stopped())
		}

		time.Sleep(15 * time.Second)
		synctest.Wait()
		if _, err := m.Get("moved"); !errdefs.IsNotFound(err) {
			t.Errorf("moved past its new deadline: Get = %v, want not found", err)
		}
		if _, err := m.Get("none"); err != nil {
			t.Errorf("a session without deadline went: %v", err)
		}

		// A deadline already past ends the session at once; a deleted
		// session's timer is stopped.
		none.SetDeadline(time.Now().Add(-time.Second))
		synctest.Wait()
		if _, err := m.Get("none"); !errdefs.IsNotFound(err) {
			t.Errorf("past deadline: Get = %v, want not found", err)
		}
		gone := adopt(t, m, p, "gone")
		gone.SetDeadline(time.Now().Add(time.Second))
		if err := m.Delete(context.Background(), "gone"); err != nil {
			t.Fatal(err)
		}
		gone.SetDeadline(time.Now().Add(time.Hour))
		gone.mu.Lock()
		timer := gone.ttl.timer
		gone.mu.Unlock()
		if timer != nil {
			t.Errorf("an ended session has a deadline timer")
		}
	})
}

// TestCreateTTLValidation checks the bound of ttl_s on a create.
func TestCreateTTLValidation(t *testing.T) {
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"fake": fake.New(fake.Config{})}, HealthInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	for _, ttl := range []int{-1, api.MaxTTLS + 1} {
		if err := m.Validate(api.CreateSessionRequest{TTLS: ttl}); !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "ttl_s") {
			t.Errorf("ttl_s %d: %v, want invalid argument naming ttl_s", ttl, err)
		}
	}
	if err := m.Validate(api.CreateSessionRequest{TTLS: api.MaxTTLS}); err != nil {
		t.Errorf("ttl_s %d: %v", api.MaxTTLS, err)
	}
}
