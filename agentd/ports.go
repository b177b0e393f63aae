package agentd

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/labstack/echo/v4"
)

// portDialTimeout bounds the connection to a port inside the sandbox.
const portDialTimeout = 5 * time.Second

// port answers GET /v1/ports/{port} sent with "Connection: Upgrade" and
// "Upgrade: tcp": it connects to 127.0.0.1:{port} inside the sandbox and,
// once connected, answers 101 Switching Protocols and relays raw bytes both
// ways until either side closes. A port nothing listens on is 503
// (unavailable), a request without the upgrade headers 400.
func (s *Server) port(c echo.Context) error {
	p, err := strconv.Atoi(c.Param("port"))
	if err != nil || p < 1 || p > 65535 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("port: want 1..65535, got %q", c.Param("port")))
	}
	req := c.Request()
	if !strings.EqualFold(req.Header.Get("Upgrade"), "tcp") || !headerHas(req.Header, "Connection", "upgrade") {
		return errdefs.ErrInvalidArgument.WithMessage(`upgrade: send "Connection: Upgrade" and "Upgrade: tcp"`)
	}
	up, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), portDialTimeout)
	if err != nil {
		return errdefs.ErrUnavailable.WithMessage(fmt.Sprintf("port %d: %v", p, err))
	}
	down, brw, err := c.Response().Hijack()
	if err != nil {
		up.Close()
		return fmt.Errorf("port %d: hijack: %w", p, err)
	}
	// The server's read and write deadlines do not apply to a tunnel.
	_ = down.SetDeadline(time.Time{})
	if _, err := io.WriteString(down, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n"); err != nil {
		up.Close()
		down.Close()
		return nil
	}
	go func() {
		// Bytes the client sent after its request may sit in brw.
		_, _ = io.Copy(up, brw.Reader)
		closeWrite(up)
	}()
	_, _ = io.Copy(down, up)
	up.Close()
	down.Close()
	return nil
}

// headerHas reports whether the comma-separated header name holds token.
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), token) {
				return true
			}
		}
	}
	return false
}

// closeWrite half-closes c when it can, so the far side sees the end of
// the stream while answers still flow back.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	c.Close()
}
