package agentd

import (
	"context"
	"fmt"
	"image"
	"sync"

	"github.com/containerd/errdefs"

	"github.com/coder/websocket"
	"github.com/deskrun/deskrun/agentd/rfb"
	"github.com/deskrun/deskrun/x11"
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
	s.liveCapture.join(1)
	err = rfb.Serve(ctx, nc, s.liveScreen(conn), rfb.Options{ViewOnly: viewOnly, Name: "deskrun " + s.Display()})
	s.liveCapture.join(-1)
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

// sharedCapture is the screen the live views share: one capture per
// change of the screen (its DAMAGE count), copied to every view that
// asks until the screen changes again, so that N viewers cost the X
// server one capture of each change rather than N.
type sharedCapture struct {
	mu    sync.Mutex
	conn  *x11.Conn // the connection frame came from
	n     uint64    // its change count when frame was taken
	frame *image.RGBA
	views int // live views being served
}

// join counts a live view starting (1) or ending (-1).
func (c *sharedCapture) join(n int) {
	c.mu.Lock()
	c.views += n
	if c.views == 0 {
		c.frame = nil // 4 to 8 MB not worth keeping for no one
	}
	c.mu.Unlock()
}

// liveScreen is the [rfb.Display] of a live view on conn.
func (s *Server) liveScreen(conn *x11.Conn) *liveDisplay {
	return &liveDisplay{Conn: conn, shared: &s.liveCapture}
}

// liveDisplay is conn with its full-screen captures shared.
type liveDisplay struct {
	*x11.Conn
	shared *sharedCapture
}

// CaptureInto copies the shared capture of the screen into reuse, taking
// a new one first when the screen changed since; a region, or a display
// that cannot count its changes, is captured as usual.
func (d *liveDisplay) CaptureInto(reuse *image.RGBA, r image.Rectangle) (*image.RGBA, error) {
	n, err := d.Changes()
	c := d.shared
	c.mu.Lock()
	defer c.mu.Unlock()
	if !r.Empty() || err != nil || c.views < 2 {
		// One view alone captures into its own frame.
		c.frame = nil
		return d.Conn.CaptureInto(reuse, r)
	}
	if c.conn != d.Conn || c.n < n || c.frame == nil {
		f, err := d.Conn.CaptureInto(c.frame, r)
		if err != nil {
			return nil, err
		}
		c.conn, c.n, c.frame = d.Conn, n, f
	}
	if reuse == nil || reuse.Rect != c.frame.Rect {
		reuse = image.NewRGBA(c.frame.Rect)
	}
	copy(reuse.Pix, c.frame.Pix)
	return reuse, nil
}
