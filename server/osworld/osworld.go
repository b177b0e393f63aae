// Package osworld serves OSWorld's in-VM environment server for a deskrun
// session: the HTTP routes OSWorld's Python controllers call
// (/screenshot, /execute, /setup/upload, /list_directory, ...) with the
// request and response shapes and status codes of OSWorld's own server,
// implemented over a [runner.Session], plus plain TCP forwards to the
// sandbox's Chrome remote-debugging port (1337) and VLC's HTTP interface
// (8080) through agentd's port tunnel.
//
// OSWorld's controllers send no token, so [Start] binds every listener to
// 127.0.0.1 only: whoever can connect to the runner host's loopback can
// drive the session. The listeners close when the session ends.
//
// /accessibility and /terminal read the desktop's AT-SPI tree through
// agentd; where it cannot be read, they answer as OSWorld's server does
// when it finds nothing: an empty desktop-frame, a null output.
package osworld

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
)

// Ports inside the sandbox that the forwards reach.
const (
	// ChromiumPort is where OSWorld's tasks start Chrome's remote
	// debugging (--remote-debugging-port=1337); OSWorld's VM forwards its
	// port 9222 there.
	ChromiumPort = 1337
	// VLCPort is VLC's HTTP interface.
	VLCPort = 8080
)

// Server is the OSWorld face of one session: an HTTP server and two TCP
// forwards on 127.0.0.1. Its methods are safe for concurrent use.
type Server struct {
	addrs api.OSWorldAddrs
	http  *http.Server
	lns   []net.Listener
	log   *slog.Logger

	closeOnce sync.Once
	wg        sync.WaitGroup
	mu        sync.Mutex
	conns     map[io.Closer]struct{}
}

// Config configures [Start]; the zero value is OSWorld's setup.
type Config struct {
	// ChromiumPort and VLCPort are the sandbox ports the forwards reach;
	// zero means [ChromiumPort] and [VLCPort].
	ChromiumPort, VLCPort int
	// Logger receives failures to serve; nil discards them.
	Logger *slog.Logger
}

// Start listens on three free ports of 127.0.0.1 and serves sess there
// until [Server.Close]: OSWorld's routes, and forwards to the sandbox's
// Chrome and VLC ports.
func Start(sess *runner.Session, cfg Config) (*Server, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.ChromiumPort == 0 {
		cfg.ChromiumPort = ChromiumPort
	}
	if cfg.VLCPort == 0 {
		cfg.VLCPort = VLCPort
	}
	s := &Server{log: log, conns: map[io.Closer]struct{}{}}
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, l := range s.lns {
				l.Close()
			}
			return nil, fmt.Errorf("osworld: listen: %w", err)
		}
		s.lns = append(s.lns, ln)
	}
	s.addrs = api.OSWorldAddrs{Server: s.lns[0].Addr().String(), Chromium: s.lns[1].Addr().String(), VLC: s.lns[2].Addr().String()}
	s.http = &http.Server{Handler: Handler(sess), ReadHeaderTimeout: 10 * time.Second}
	s.wg.Go(func() {
		if err := s.http.Serve(s.lns[0]); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("osworld serve", "err", err)
		}
	})
	s.wg.Go(func() { s.forward(s.lns[1], sess, cfg.ChromiumPort) })
	s.wg.Go(func() { s.forward(s.lns[2], sess, cfg.VLCPort) })
	return s, nil
}

// Addrs are the addresses Start listens on.
func (s *Server) Addrs() api.OSWorldAddrs { return s.addrs }

// Close stops the listeners, the HTTP server and the forwarded streams.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = s.http.Shutdown(ctx)
		s.http.Close()
		for _, l := range s.lns {
			l.Close()
		}
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return nil
}

func (s *Server) track(c io.Closer, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.conns[c] = struct{}{}
	} else {
		delete(s.conns, c)
	}
}

// forward accepts connections on ln and relays each to port in the
// sandbox until either side closes.
func (s *Server) forward(ln net.Listener, sess *runner.Session, port int) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s.wg.Go(func() {
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			up, err := sess.DialPort(ctx, port)
			cancel()
			if err != nil {
				s.log.Debug("osworld forward", "port", port, "err", err)
				return
			}
			defer up.Close()
			s.track(c, true)
			s.track(up, true)
			defer s.track(c, false)
			defer s.track(up, false)
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(up, c)
				if cw, ok := up.(interface{ CloseWrite() error }); ok {
					_ = cw.CloseWrite()
				}
				close(done)
			}()
			_, _ = io.Copy(c, up)
			// The sandbox's side ended: end the client's too.
			c.Close()
			up.Close()
			<-done
		})
	}
}
