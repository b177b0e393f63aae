package server

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// TicketTTL is how long a live-view ticket stays valid.
const TicketTTL = 60 * time.Second

// tickets are single-use credentials for one session's live view.
type tickets struct {
	mu sync.Mutex
	m  map[string]ticket
}

type ticket struct {
	session string
	expires time.Time
	used    bool
}

func (t *tickets) issue(session string, now time.Time) api.Ticket {
	b := make([]byte, 24)
	rand.Read(b)
	id := base64.RawURLEncoding.EncodeToString(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[string]ticket{}
	}
	for k, v := range t.m { // drop the expired ones
		if now.After(v.expires) {
			delete(t.m, k)
		}
	}
	exp := now.Add(TicketTTL)
	t.m[id] = ticket{session: session, expires: exp}
	return api.Ticket{Ticket: id, ExpiresAt: exp.UTC()}
}

// check reports whether id is a valid ticket of session; consume marks it
// used. The viewer page checks its ticket, the socket it opens uses it.
func (t *tickets) check(id, session string, consume bool, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[id]
	if !ok || v.used || v.session != session || now.After(v.expires) {
		return false
	}
	if consume {
		v.used = true
		t.m[id] = v
	}
	return true
}

// ticketRoute reports whether the route accepts ?ticket= in place of the
// bearer token, and whether using it spends the ticket.
func ticketRoute(path string) (ok, consume bool) {
	switch path {
	case "/v1/sessions/:id/vnc":
		return true, true
	case "/v1/sessions/:id/view":
		return true, false
	}
	return false, false
}

// ticketOK marks, in the echo context, a request a ticket let in.
const ticketOK = "deskrun.ticket"

// ticketAuth lets a request on a live-view route in by its ?ticket=, and
// refuses (401) one whose ticket is unknown, spent, expired or for
// another session; requests without a ticket go on to the bearer token.
func (s *server) ticketAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		t := c.QueryParam("ticket")
		if t == "" || s.cfg.Token == "" {
			return next(c)
		}
		ok, consume := ticketRoute(c.Path())
		if !ok || !s.tickets.check(t, c.Param("id"), consume, time.Now()) {
			return errdefs.ErrUnauthenticated.WithMessage("ticket: unknown, expired, already used or not for this session (POST /v1/sessions/{id}/tickets issues one)")
		}
		c.Set(ticketOK, true)
		return next(c)
	}
}

// createTicket answers POST /v1/sessions/{id}/tickets.
func (s *server) createTicket(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, s.tickets.issue(sess.ID(), time.Now()))
}

//go:embed view/view.html
var viewHTML string

//go:embed view/view.js
var viewJS string

// viewPage is the viewer with its script inline, so that loading it takes
// one request (one ticket check).
var viewPage = strings.Replace(viewHTML, `<script src="view.js"></script>`, "<script>\n"+viewJS+"</script>", 1)

// view answers GET /v1/sessions/{id}/view: a page that shows the live
// view in a canvas, speaking RFB over the session's vnc socket with the
// ticket of its own URL.
func (s *server) view(c echo.Context) error {
	if _, err := s.session(c); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	return c.HTML(http.StatusOK, viewPage)
}

// vnc answers GET /v1/sessions/{id}/vnc: the WebSocket of the sandbox's
// live view (subprotocol "binary"), relayed message by message to
// agentd's GET /v1/vnc; ?view_only=1 drops the viewer's input.
func (s *server) vnc(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	viewOnly := false
	switch v := c.QueryParam("view_only"); v {
	case "", "0", "false":
	case "1", "true":
		viewOnly = true
	default:
		return errdefs.ErrInvalidArgument.WithMessage("view_only: want 1 or 0, got " + v)
	}
	req := c.Request()
	up, err := sess.DialVNC(req.Context(), viewOnly)
	if err != nil {
		return err
	}
	down, err := websocket.Accept(c.Response(), req, &websocket.AcceptOptions{
		Subprotocols: []string{"binary"},
		// The ticket or token authorises the socket, not the page's origin.
		InsecureSkipVerify: true,
	})
	if err != nil {
		up.CloseNow()
		return nil // Accept has answered
	}
	down.SetReadLimit(-1)
	ctx, cancel := context.WithCancel(context.WithoutCancel(req.Context()))
	defer cancel()
	sess.OnEnd(cancel)
	errc := make(chan error, 2)
	go func() { errc <- relay(ctx, up, down) }()
	go func() { errc <- relay(ctx, down, up) }()
	err = <-errc
	cancel()
	<-errc
	code, reason := websocket.StatusNormalClosure, ""
	if err != nil && !errors.Is(err, context.Canceled) && websocket.CloseStatus(err) == -1 {
		code, reason = websocket.StatusGoingAway, "the sandbox's live view ended"
	}
	down.Close(code, reason)
	up.CloseNow()
	return nil
}

// relay copies messages from src to dst until either fails.
func relay(ctx context.Context, dst, src *websocket.Conn) error {
	for {
		typ, b, err := src.Read(ctx)
		if err != nil {
			return err
		}
		if err := dst.Write(ctx, typ, b); err != nil {
			return err
		}
	}
}
