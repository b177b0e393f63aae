package kube

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/containerd/errdefs"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// forward is a port-forward of a sandbox's agentd port to a loopback
// port of this host, through the API server.
type forward struct {
	url    string
	cancel context.CancelFunc
	done   chan struct{}
}

func (f *forward) close() {
	f.cancel()
	<-f.done
}

// openForward forwards a loopback port to agentd in Pod name and records
// it for Stop. The forward ends when the Pod goes; connections to the port
// are then refused, which the runner's clients report as unavailable.
func (p *Provider) openForward(ctx context.Context, name string) (*forward, error) {
	req := p.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(p.cfg.Namespace).Name(name).SubResource("portforward")
	transport, upgrader, err := spdy.RoundTripperFor(p.rest)
	if err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w", name, err)
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, req.URL())
	// WebSocket first, as kubectl does: SPDY is deprecated and proxies
	// in front of some API servers do not pass it.
	if ws, err := portforward.NewSPDYOverWebsocketDialer(req.URL(), p.rest); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ready := make(chan struct{})
	pf, err := portforward.NewOnAddressesWithContext(fctx, dialer, []string{"127.0.0.1"},
		[]string{"0:" + strconv.Itoa(AgentPort)}, ready, io.Discard, io.Discard)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("port-forward to %s: %w", name, err)
	}
	f := &forward{cancel: cancel, done: make(chan struct{})}
	failed := make(chan error, 1)
	go func() {
		defer close(f.done)
		if err := pf.ForwardPorts(); err != nil {
			failed <- err
			p.log.Info("port-forward ended", "sandbox", name, "err", err)
		}
	}()
	select {
	case <-ready:
	case err := <-failed:
		cancel()
		return nil, fmt.Errorf("port-forward to %s: %w: %w", name, errdefs.ErrUnavailable, err)
	case <-ctx.Done():
		f.close()
		return nil, fmt.Errorf("port-forward to %s: %w", name, ctx.Err())
	}
	ports, err := pf.GetPorts()
	if err != nil || len(ports) == 0 {
		f.close()
		return nil, fmt.Errorf("port-forward to %s: no local port: %v", name, err)
	}
	f.url = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local)))
	p.mu.Lock()
	p.forwards[name] = f
	p.mu.Unlock()
	return f, nil
}

// dropForward closes the port-forward of sandbox name, if any.
func (p *Provider) dropForward(name string) {
	p.mu.Lock()
	f := p.forwards[name]
	delete(p.forwards, name)
	p.mu.Unlock()
	if f != nil {
		f.close()
	}
}
