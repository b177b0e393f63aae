package agentd

import (
	"context"
	"fmt"

	"github.com/containerd/errdefs"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/labstack/echo/v4"
)

// vnc answers GET /v1/vnc: a WebSocket (subprotocol "binary", as noVNC
// and websockify use) carrying an RFB session of the display in binary
// messages (package rfb). ?view_only=1 drops the viewer's input. The
// WebSocket side is github.com/coder/websocket, a small, maintained
// implementation with a net.Conn adapter for byte streams.
func (s *Server) vnc(c echo.Context) error {
	conn, err := s.desk.get()
	if err != nil {
		return err
	}
	viewOnly := false
	switch v := c.QueryParam("view_only"); v {
	case "", "0", "false":
	case "1", "true":
		viewOnly = true
	default:
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("view_only: want 1 or 0, got %q", v))
	}
	ws, err := websocket.Accept(c.Response(), c.Request(), &websocket.AcceptOptions{
		Subprotocols: []string{"binary"},
		// The route is behind the bearer token (or the runner's ticket),
		// which a cross-site page cannot hold.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return nil // Accept has answered
	}
	ctx := s.life
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	nc := websocket.NetConn(ctx, ws, websocket.MessageBinary)
	err = rfb.Serve(ctx, nc, conn, rfb.Options{ViewOnly: viewOnly, Name: "deskrun " + s.Display()})
	if err != nil {
		s.log.Info("vnc session ended", "err", err)
		ws.Close(websocket.StatusInternalError, truncate(err.Error(), 120))
		return nil
	}
	ws.Close(websocket.StatusNormalClosure, "")
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
