package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
)

// movingAddress is a local provider whose sandboxes answer at one
// address that can be pointed at another sandbox, as a container's
// address on a bridge is given to a new container once it dies.
type movingAddress struct {
	*local.Provider
	target atomic.Pointer[url.URL]
	addr   *httptest.Server
}

func (p *movingAddress) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	inst, err := p.Provider.Start(ctx, spec)
	if err != nil {
		return inst, err
	}
	u, err := url.Parse(inst.AgentURL)
	if err != nil {
		return inst, err
	}
	p.target.Store(u)
	inst.AgentURL = p.addr.URL
	return inst, nil
}

// TestAddressTaken: when a session's sandbox dies and another sandbox
// takes its address (Docker hands a dead container's address to the next
// one), the other sandbox's agentd refuses the session's token. The
// session's calls then answer that the sandbox is gone (unavailable, a
// 503), not that the caller's credentials are wrong (a 401), and the
// health checks, which /healthz alone would pass, mark it unreachable.
func TestAddressTaken(t *testing.T) {
	lp, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), TempDir: t.TempDir(), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	p := &movingAddress{Provider: lp}
	p.addr = httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(p.target.Load()) }})
	defer p.addr.Close()
	m, err := NewManager(Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: testLogger(t), HealthInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		m.Close(ctx)
		lp.Close(ctx)
	})
	ctx := t.Context()
	s, err := m.Create(ctx, api.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Screenshot(ctx, api.ScreenshotOptions{}); err != nil {
		t.Fatal(err)
	}

	other, err := lp.Start(ctx, sandbox.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	defer lp.Stop(context.WithoutCancel(ctx), other.ID)
	// The address moves to the other sandbox before the first stops: a
	// health check between the two (every 200 ms; a stop takes longer
	// on a loaded machine) would find the address dead, not taken.
	u, _ := url.Parse(other.AgentURL)
	p.target.Store(u)
	if err := lp.Stop(ctx, s.Info().SandboxID); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(p.addr.URL + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the address does not answer /healthz for the other sandbox: %v", err)
	}

	_, err = s.Screenshot(ctx, api.ScreenshotOptions{})
	if !errdefs.IsUnavailable(err) || !strings.Contains(err.Error(), "answers for another sandbox") {
		t.Errorf("screenshot of a session whose address another sandbox took: %v, want unavailable saying so", err)
	}
	waitUntil(t, "the session is marked unreachable", func() bool { return s.Info().State == api.SessionUnreachable })
	if info := s.Info(); !strings.Contains(info.Unreachable, "another sandbox") {
		t.Errorf("unreachable %q, want it to say another sandbox answers", info.Unreachable)
	}
}

// TestFirstScreen: a new sandbox's first read goes again past connections
// the path to it drops, and fails at once on an answer.
func TestFirstScreen(t *testing.T) {
	var calls, drops atomic.Int32
	drops.Store(2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= drops.Load() {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close() // the hop dropped it
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, `{"error":{"code":"unauthorized","message":"token"}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"width":640,"height":480}`)
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	got, err := firstScreen(t.Context(), agentdclient.NewClient(srv.URL, "tok", hc))
	if err != nil || got != (api.Screen{Width: 640, Height: 480}) || calls.Load() != 3 {
		t.Fatalf("after two dropped connections: %v %v, %d calls; want 640x480 on the third", got, err, calls.Load())
	}
	calls.Store(0)
	drops.Store(0)
	if _, err := firstScreen(t.Context(), agentdclient.NewClient(srv.URL, "wrong", hc)); err == nil || calls.Load() != 1 {
		t.Fatalf("a refused token: %v after %d calls, want its error after one", err, calls.Load())
	}
	calls.Store(0)
	drops.Store(100)
	if _, err := firstScreen(t.Context(), agentdclient.NewClient(srv.URL, "tok", hc)); !errdefs.IsUnavailable(err) || calls.Load() != firstScreenTries {
		t.Fatalf("a path that stays down: %v after %d calls, want unavailable after %d", err, calls.Load(), firstScreenTries)
	}
}
