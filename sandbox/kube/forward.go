package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/containerd/errdefs"
	"github.com/moby/spdystream"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// forward carries the connections to a loopback port of this host to
// agentd in a sandbox's Pod, through the API server's port-forward
// subresource (the runner outside the cluster, [ReachPortForward]).
//
// It speaks the subresource's protocol itself (portforward.k8s.io: per
// connection, an error stream and a data stream on one multiplexed
// session) rather than running client-go's PortForwarder, which ends the
// whole session when one connection fails: a health check that reaches
// the Pod before agentd listens is refused, and with it every later
// connection of the sandbox. Here a refused connection closes only
// itself, and a session that ended (the API server restarted, an idle
// timeout) is opened again by the next connection, so the sandbox's URL
// stays good for as long as the Pod runs.
type forward struct {
	url  string
	name string
	log  *slog.Logger
	ln   net.Listener
	dial func() (httpstream.Connection, error)

	dialing sync.Mutex // held while a session is opened
	mu      sync.Mutex
	sess    httpstream.Connection
	nextID  int
	conns   map[net.Conn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

// openForward listens on a loopback port for sandbox name and opens the
// port-forward session to its Pod (so a refusal, e.g. no pods/portforward
// permission, fails the start), and records the forward for Stop.
func (p *Provider) openForward(ctx context.Context, name string) (*forward, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w", name, err)
	}
	f := &forward{
		url:   "http://" + ln.Addr().String(),
		name:  name,
		log:   p.log,
		ln:    ln,
		dial:  func() (httpstream.Connection, error) { return p.dialForward(name) },
		conns: map[net.Conn]struct{}{},
	}
	if _, err := f.session(ctx); err != nil {
		ln.Close()
		return nil, err
	}
	f.wg.Go(f.serve)
	p.mu.Lock()
	p.forwards[name] = f
	p.mu.Unlock()
	return f, nil
}

// dialForward opens a port-forward session to Pod name: over WebSocket
// first, as kubectl does (SPDY is deprecated and some proxies in front of
// API servers do not pass it), else over SPDY.
func (p *Provider) dialForward(name string) (httpstream.Connection, error) {
	req := p.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(p.cfg.Namespace).Name(name).SubResource("portforward")
	// A SPDY round tripper holds the one connection it upgraded: a new
	// one per session.
	transport, upgrader, err := spdy.RoundTripperFor(p.rest)
	if err != nil {
		return nil, err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, req.URL())
	if ws, err := portforward.NewSPDYOverWebsocketDialer(req.URL(), p.rest); err == nil {
		dialer = portforward.NewFallbackDialer(ws, dialer, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	}
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	return conn, err
}

// session returns the open port-forward session, opening one if there is
// none or it ended, with the next request id.
func (f *forward) session(ctx context.Context) (httpstream.Connection, error) {
	// One dial at a time; f.mu is not held while dialing, so close never
	// waits for an API server that does not answer.
	f.dialing.Lock()
	defer f.dialing.Unlock()
	closed := fmt.Errorf("port-forward to %s: closed: %w", f.name, errdefs.ErrUnavailable)
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, closed
	}
	if sess := f.sess; sess != nil {
		select {
		case <-sess.CloseChan():
			f.sess = nil
		default:
			f.mu.Unlock()
			return sess, nil
		}
	}
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w", f.name, err)
	}
	sess, err := f.dial()
	if err != nil {
		return nil, fmt.Errorf("port-forward to %s: %w: %w", f.name, errdefs.ErrUnavailable, classify(err))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		sess.Close()
		return nil, closed
	}
	f.sess = sess
	return sess, nil
}

// serve accepts connections until the forward is closed.
func (f *forward) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			c.Close()
			return
		}
		f.conns[c] = struct{}{}
		f.wg.Add(1)
		f.mu.Unlock()
		go func() {
			defer f.wg.Done()
			f.carry(c)
			f.mu.Lock()
			delete(f.conns, c)
			f.mu.Unlock()
		}()
	}
}

// carry copies between c and the Pod's port over a pair of streams of
// the session: the error stream, on which the kubelet reports a failure
// to reach the port (the connection is then closed, nothing else), and
// the data stream.
func (f *forward) carry(c net.Conn) {
	defer c.Close()
	sess, err := f.session(context.Background())
	if err != nil {
		f.log.Debug("port-forward", "sandbox", f.name, "err", err)
		return
	}
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.mu.Unlock()
	h := http.Header{}
	h.Set(corev1.StreamType, corev1.StreamTypeError)
	h.Set(corev1.PortHeader, strconv.Itoa(AgentPort))
	h.Set(corev1.PortForwardRequestIDHeader, strconv.Itoa(id))
	errStream, err := sess.CreateStream(h)
	if err != nil {
		f.broken(sess, err)
		return
	}
	defer sess.RemoveStreams(errStream)
	errStream.Close() // nothing is sent on it
	message := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(errStream)
		message <- b
	}()
	h.Set(corev1.StreamType, corev1.StreamTypeData)
	data, err := sess.CreateStream(h)
	if err != nil {
		f.broken(sess, err)
		return
	}
	defer sess.RemoveStreams(data)
	remoteDone := make(chan struct{})
	go func() {
		defer close(remoteDone)
		io.Copy(c, data)
	}()
	localFailed := make(chan struct{})
	go func() {
		// At the local end's EOF the stream is half-closed and the answer
		// still comes back.
		if _, err := io.Copy(data, c); err != nil && !errors.Is(err, net.ErrClosed) {
			close(localFailed)
			return
		}
		data.Close()
	}()
	select {
	case <-remoteDone:
	case <-localFailed:
	}
	data.Reset()
	if b := <-message; len(b) > 0 {
		f.log.Debug("port-forward connection refused", "sandbox", f.name, "err", string(b))
	}
}

// broken handles a failure to open a stream on sess. A stream the far
// end reset (it refused the request before the stream's reply) fails
// only its connection; any other failure (the session ended, no reply in
// time) drops the session, and the next connection opens a new one.
func (f *forward) broken(sess httpstream.Connection, err error) {
	if errors.Is(err, spdystream.ErrReset) {
		f.log.Debug("port-forward connection refused", "sandbox", f.name, "err", err)
		return
	}
	f.log.Debug("port-forward session ended", "sandbox", f.name, "err", err)
	f.mu.Lock()
	if f.sess == sess {
		f.sess = nil
	}
	f.mu.Unlock()
	sess.Close()
}

// close stops listening, ends the session and every connection, and
// waits for them.
func (f *forward) close() {
	f.mu.Lock()
	f.closed = true
	f.ln.Close()
	if f.sess != nil {
		f.sess.Close()
		f.sess = nil
	}
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
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
