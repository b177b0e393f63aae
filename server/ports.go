package server

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/dialect"
	"github.com/labstack/echo/v4"
)

// portsHost is the host name the port proxy gives the upstream URL of a
// session: its id in hex under this suffix, so that the transport pools
// connections per session and port and its dialer finds the session
// again.
const portsHost = ".session.invalid"

// portMethods are the methods the port proxy passes through.
var portMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}

// portDialTimeout bounds the tunnel to a port inside a sandbox.
const portDialTimeout = 10 * time.Second

// newPortsTransport is the transport of the port proxy: every
// connection is a tunnel through agentd (GET /v1/ports/{port} upgraded
// to tcp), opened by the session the host name names.
func (s *server) newPortsTransport() *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			host, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			raw, err := hex.DecodeString(strings.TrimSuffix(host, portsHost))
			if err != nil {
				return nil, fmt.Errorf("port proxy: bad upstream host %q", host)
			}
			port, err := strconv.Atoi(p)
			if err != nil {
				return nil, err
			}
			sess, err := s.m.Get(string(raw))
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithTimeout(ctx, portDialTimeout)
			defer cancel()
			rwc, err := sess.DialPort(ctx, port)
			if err != nil {
				return nil, err
			}
			return tunnelConn{ReadWriteCloser: rwc, port: port}, nil
		},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     30 * time.Second,
		// A tunnel is plain HTTP/1.1 to the sandbox's loopback.
		ForceAttemptHTTP2: false,
	}
}

// tunnelConn is a tunnel to a port in a sandbox seen as a net.Conn.
// Deadlines are not supported on the tunnel and are accepted as no-ops;
// the proxy's requests carry their own contexts.
type tunnelConn struct {
	io.ReadWriteCloser
	port int
}

func (tunnelConn) LocalAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }
func (t tunnelConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: t.port}
}
func (tunnelConn) SetDeadline(time.Time) error      { return nil }
func (tunnelConn) SetReadDeadline(time.Time) error  { return nil }
func (tunnelConn) SetWriteDeadline(time.Time) error { return nil }

// parsePort reads the {port} path parameter.
func parsePort(v string) (int, error) {
	p, err := strconv.Atoi(v)
	if err != nil || p < 1 || p > 65535 {
		return 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("port: want an integer 1..65535, got %q", v))
	}
	return p, nil
}

// proxyPort answers /v1/sessions/{id}/ports/{port}/{path...}: the
// request, WebSocket upgrades included, goes to http://127.0.0.1:{port}/{path}
// inside the session's sandbox, without the caller's Authorization
// header. A port nothing listens on is answered 502 naming it.
func (s *server) proxyPort(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	port, err := parsePort(c.Param("port"))
	if err != nil {
		return err
	}
	req := c.Request()
	prefix := fmt.Sprintf("/v1/sessions/%s/ports/%s", c.Param("id"), c.Param("port"))
	rest := strings.TrimPrefix(req.URL.Path, prefix)
	if rest == "" {
		// Relative links of the page resolve against the directory.
		u := *req.URL
		u.Path += "/"
		return c.Redirect(http.StatusTemporaryRedirect, u.String())
	}
	id := sess.Info().ID
	rp := &httputil.ReverseProxy{
		Transport: s.ports,
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme = "http"
			r.Out.URL.Host = net.JoinHostPort(hex.EncodeToString([]byte(id))+portsHost, strconv.Itoa(port))
			r.Out.URL.Path = rest
			r.Out.URL.RawPath = ""
			r.Out.Host = net.JoinHostPort("localhost", strconv.Itoa(port))
			r.Out.Header.Del("Authorization")
			r.SetXForwarded()
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			var status int
			var msg string
			switch {
			case errdefs.IsNotFound(err):
				status, msg = http.StatusNotFound, err.Error()
			case errdefs.IsUnavailable(err):
				status = http.StatusBadGateway
				msg = fmt.Sprintf("port %d: nothing answers on it in the sandbox (%v)", port, err)
			default:
				status = http.StatusBadGateway
				msg = fmt.Sprintf("port %d: %v", port, err)
			}
			code := api.CodeUnavailable
			if status == http.StatusNotFound {
				code = api.CodeNotFound
			}
			_ = c.JSON(status, api.ErrorBody{Error: api.Error{Code: code, Message: msg}})
		},
	}
	// A program in the sandbox may answer before it has read the whole
	// request (a stream); net/http's HTTP/1.1 server would otherwise
	// close the request body at the first write.
	_ = http.NewResponseController(c.Response()).EnableFullDuplex()
	rp.ServeHTTP(c.Response(), req)
	return nil
}

// portExposer answers the sandbox dialect's expose_port for sess: the
// URL of the port proxy at the address the caller reached this server
// by, once something answers on the port.
func (s *server) portExposer(c echo.Context, sess *runner.Session) dialect.PortExposer {
	base := c.Scheme() + "://" + c.Request().Host
	id := sess.Info().ID
	return func(ctx context.Context, port int) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, portDialTimeout)
		defer cancel()
		conn, err := sess.DialPort(ctx, port)
		if err != nil {
			if errdefs.IsUnavailable(err) {
				return "", fmt.Errorf("port %d: nothing listens on it in the sandbox; start the service first (%v)", port, err)
			}
			return "", fmt.Errorf("port %d: %v", port, err)
		}
		conn.Close()
		return fmt.Sprintf("%s/v1/sessions/%s/ports/%d/", base, url.PathEscape(id), port), nil
	}
}
