package runner

import (
	"context"
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
