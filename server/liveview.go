package server

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// TicketTTL is how long a ticket stays valid.
const TicketTTL = 60 * time.Second

// PassTTL is how long the cookie a ticket turns into on the recording
// and run routes stays valid: the page it opened (a run's report, a
// video) loads its images and seeks in its video with it.
const PassTTL = 30 * time.Minute

// passCookie names the cookie of a pass.
const passCookie = "deskrun_pass"

// tickets are single-use credentials for the URLs a browser opens, each
// for one scope: a session's live view and recording ("session/<id>") or
// a run's report and files ("run/<id>"). A ticket spent on a recording
// or run route becomes a pass, a cookie for that scope's paths only that
// lasts [PassTTL], since the page then loads further URLs (images, video
// ranges) that cannot carry the ticket.
type tickets struct {
	mu sync.Mutex
	m  map[string]ticket
}

type ticket struct {
	scope   string
	expires time.Time
	used    bool
	pass    bool // a cookie's pass, not a ticket
}

func newSecret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (t *tickets) add(scope string, pass bool, now time.Time, ttl time.Duration) (string, time.Time) {
	id := newSecret()
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
	exp := now.Add(ttl)
	t.m[id] = ticket{scope: scope, expires: exp, pass: pass}
	return id, exp
}

func (t *tickets) issue(scope string, now time.Time) api.Ticket {
	id, exp := t.add(scope, false, now, TicketTTL)
	return api.Ticket{Ticket: id, ExpiresAt: exp.UTC()}
}

// check reports whether id is a valid ticket (or, with pass, a valid
// pass) of scope; consume marks a ticket used. The viewer page checks its
// ticket, the socket it opens uses it.
func (t *tickets) check(id, scope string, pass, consume bool, now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[id]
	if !ok || v.used || v.pass != pass || v.scope != scope || now.After(v.expires) {
		return false
	}
	if consume {
		v.used = true
		t.m[id] = v
	}
	return true
}

// ticketRoute says whether the route accepts ?ticket= in place of the
// bearer token: its scope, whether using the ticket spends it, and the
// path a pass cookie is given for ("" for none).
func ticketRoute(c echo.Context) (scope string, consume bool, cookiePath string, ok bool) {
	id := c.Param("id")
	switch c.Path() {
	case "/v1/sessions/:id/vnc":
		return "session/" + id, true, "", true
	case "/v1/sessions/:id/view":
		return "session/" + id, false, "", true
	case "/v1/sessions/:id/recording":
		return "session/" + id, true, "/v1/sessions/" + url.PathEscape(id) + "/recording", true
	case "/v1/runs/:id/report", "/v1/runs/:id/results", "/v1/runs/:id/:task/:file",
		"/v1/runs/:id/watch", "/v1/runs/:id/live", "/v1/runs/:id/live/:task/screen", "/v1/runs/:id/live/:task/view":
		return "run/" + id, true, "/v1/runs/" + url.PathEscape(id) + "/", true
	}
	return "", false, "", false
}

// ticketOK marks, in the echo context, a request a ticket let in.
const ticketOK = "deskrun.ticket"

// ticketAuth lets a request on a ticket route in by its ?ticket= (or by
// the pass cookie a ticket gave), and refuses (401) one whose ticket is
// unknown, spent, expired or for another session or run; requests
// without either go on to the bearer token.
func (s *server) ticketAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.Token == "" {
			return next(c)
		}
		scope, consume, cookiePath, ok := ticketRoute(c)
		t := c.QueryParam("ticket")
		if t == "" {
			if ck, err := c.Cookie(passCookie); ok && cookiePath != "" && err == nil &&
				s.tickets.check(ck.Value, scope, true, false, time.Now()) {
				c.Set(ticketOK, true)
			}
			return next(c)
		}
		if !ok || !s.tickets.check(t, scope, false, consume, time.Now()) {
			return errdefs.ErrUnauthenticated.WithMessage("ticket: unknown, expired, already used or not for this session or run (POST /v1/sessions/{id}/tickets or /v1/runs/{id}/tickets issues one)")
		}
		if cookiePath != "" {
			pass, exp := s.tickets.add(scope, true, time.Now(), PassTTL)
			c.SetCookie(&http.Cookie{Name: passCookie, Value: pass, Path: cookiePath, Expires: exp,
				MaxAge: int(PassTTL.Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.IsTLS()})
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
	return c.JSON(http.StatusCreated, s.tickets.issue("session/"+sess.ID(), time.Now()))
}

// createRunTicket answers POST /v1/runs/{id}/tickets: a ticket for the
// run's report, results and task files.
func (s *server) createRunTicket(c echo.Context) error {
	run, err := s.cfg.Runs.Get(c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, s.tickets.issue("run/"+run.ID, time.Now()))
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
