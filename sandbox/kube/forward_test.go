package kube

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	spdystream "k8s.io/apimachinery/pkg/util/httpstream/spdy"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// podEnd plays the far end of a port-forward, as the kubelet (through the
// API server) does: the portforward.k8s.io protocol on SPDY, each request
// an error and a data stream, connected to target; a refused connection
// is reported on the error stream and ends that request only (as
// k8s.io/cri-streaming's portforward handler, which kubelets' runtimes
// serve, does).
type podEnd struct {
	target   atomic.Value // string: host:port agentd would listen on
	sessions atomic.Int32 // sessions opened
	mu       sync.Mutex
	conns    []httpstream.Connection
}

func (e *podEnd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := httpstream.Handshake(r, w, []string{portforward.PortForwardProtocolV1Name}); err != nil {
		return
	}
	type pair struct{ errs, data httpstream.Stream }
	var mu sync.Mutex
	pairs := map[string]*pair{}
	var conn httpstream.Connection
	conn = spdystream.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, _ <-chan struct{}) error {
		id := s.Headers().Get(corev1.PortForwardRequestIDHeader)
		mu.Lock()
		p := pairs[id]
		if p == nil {
			p = &pair{}
			pairs[id] = p
		}
		if s.Headers().Get(corev1.StreamType) == corev1.StreamTypeError {
			p.errs = s
		} else {
			p.data = s
		}
		ready := p.errs != nil && p.data != nil
		mu.Unlock()
		if ready {
			go func() {
				e.carry(p.errs, p.data)
				// As the kubelet does: the session drops what still
				// comes for the request's streams.
				mu.Lock()
				delete(pairs, id)
				c := conn
				mu.Unlock()
				c.RemoveStreams(p.errs, p.data)
			}()
		}
		return nil
	})
	mu.Lock()
	c := conn
	mu.Unlock()
	if c == nil {
		return
	}
	e.sessions.Add(1)
	e.mu.Lock()
	e.conns = append(e.conns, c)
	e.mu.Unlock()
	<-c.CloseChan()
}

func (e *podEnd) carry(errs, data httpstream.Stream) {
	defer errs.Close()
	defer data.Close()
	c, err := net.Dial("tcp", e.target.Load().(string))
	if err != nil {
		// The kubelet's runtime says why and resets both streams.
		fmt.Fprintf(errs, "error forwarding port %d to pod: %v", AgentPort, err)
		data.Reset()
		errs.Reset()
		return
	}
	defer c.Close()
	go io.Copy(c, data)
	io.Copy(data, c)
}

// endSessions closes every session, as an API server restart would.
func (e *podEnd) endSessions() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.conns {
		c.Close()
	}
	e.conns = nil
}

func newTestForward(t *testing.T, url string) *forward {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forward{
		url: "http://" + ln.Addr().String(), name: "test", log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})), ln: ln,
		conns: map[net.Conn]struct{}{},
		dial: func() (httpstream.Connection, error) {
			transport, upgrader, err := spdy.RoundTripperFor(&rest.Config{Host: url})
			if err != nil {
				return nil, err
			}
			req, _ := http.NewRequest(http.MethodPost, url, nil)
			conn, _, err := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, req.URL).
				Dial(portforward.PortForwardProtocolV1Name)
			return conn, err
		},
	}
	if _, err := f.session(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.wg.Go(f.serve)
	t.Cleanup(f.close)
	return f
}

// TestForwardSurvivesRefusal: connections refused in the Pod (agentd not
// listening yet) close themselves only; once agentd listens the same
// URL and the same session serve it. An ended session is opened again.
func TestForwardSurvivesRefusal(t *testing.T) {
	end := &podEnd{}
	srv := httptest.NewServer(end)
	defer srv.Close()
	// A port nothing listens on yet.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	end.target.Store(addr)
	f := newTestForward(t, srv.URL)
	hc := &http.Client{Timeout: 5 * time.Second}
	for range 5 {
		t0 := time.Now()
		_, err := hc.Get(f.url + "/healthz")
		if err == nil {
			t.Fatal("a request went through while nothing listened")
		}
		t.Logf("refused %v after %v", err, time.Since(t0))
	}
	agentd := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/echo" {
			io.Copy(w, r.Body)
			return
		}
		io.WriteString(w, "ok "+r.URL.Path)
	})}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	go agentd.Serve(ln)
	defer agentd.Close()
	get := func() string {
		t.Helper()
		resp, err := hc.Get(f.url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for range 3 {
		if got := get(); got != "ok /healthz" {
			t.Fatalf("got %q", got)
		}
	}
	if n := end.sessions.Load(); n != 1 {
		t.Errorf("%d sessions after refused connections, want the first still serving", n)
	}
	end.endSessions()
	hc.CloseIdleConnections()
	// The forward may learn of the end from the first connection after it.
	var got string
	for i := range 3 {
		resp, err := hc.Get(f.url + "/healthz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = string(b)
			break
		}
		t.Logf("attempt %d after the session ended: %v", i, err)
	}
	if got != "ok /healthz" {
		t.Fatalf("after the session ended: got %q", got)
	}
	if n := end.sessions.Load(); n != 2 {
		t.Errorf("%d sessions, want a second one", n)
	}
	// Bodies larger than a stream's window, both ways.
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(i)
	}
	resp, err := hc.Post(f.url+"/echo", "application/octet-stream", bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) != len(big) || string(b[:1000]) != string(big[:1000]) || string(b[len(b)-1000:]) != string(big[len(big)-1000:]) {
		t.Errorf("echo of %d bytes came back as %d", len(big), len(b))
	}
}
