package server

import (
	_ "embed"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

//go:embed watch/watch.html
var watchPage string

// thumbWidth is the width of the live pictures of a run's page.
const thumbWidth = 384

// runWatch answers GET /v1/runs/{id}/watch: a page showing every task
// the run has under way as a small live picture of its desktop, with its
// task id, instruction, step and phase, updated as tasks start and end;
// a picture opens the session's viewer. Opened with a run ticket, which
// leaves the pass cookie its requests then use.
func (s *server) runWatch(c echo.Context) error {
	if _, err := s.cfg.Runs.Get(c.Param("id")); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	return c.HTML(http.StatusOK, watchPage)
}

// runLive answers GET /v1/runs/{id}/live ([api.RunLive]).
func (s *server) runLive(c echo.Context) error {
	live, err := s.cfg.Runs.Live(c.Param("id"))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusOK, live)
}

// liveTask is the task of the run named by the route, with its session:
// only a session of a task the run has under way is reachable through a
// run's routes. A task that ended, or one whose sandbox is still
// starting, is not found.
func (s *server) liveTask(c echo.Context) (api.LiveTask, error) {
	live, err := s.cfg.Runs.Live(c.Param("id"))
	if err != nil {
		return api.LiveTask{}, err
	}
	name := c.Param("task")
	for _, t := range live.Tasks {
		if t.Task == name && t.Session != "" {
			return t, nil
		}
	}
	return api.LiveTask{}, errdefs.ErrNotFound.WithMessage("task " + strconv.Quote(name) + ": not running in run " + live.Run.ID)
}

// runLiveScreen answers GET /v1/runs/{id}/live/{task}/screen: the task's
// desktop as a JPEG thumbnail (?max_width=, default 384).
func (s *server) runLiveScreen(c echo.Context) error {
	t, err := s.liveTask(c)
	if err != nil {
		return err
	}
	sess, err := s.m.Get(t.Session)
	if err != nil {
		return err
	}
	q := url.Values{"format": {"jpeg"}, "max_width": {strconv.Itoa(thumbWidth)}}
	if v := c.QueryParam("max_width"); v != "" {
		q.Set("max_width", v)
	}
	o, err := api.ParseScreenshotQuery(q, sess.Info().Screen)
	if err != nil {
		return err
	}
	shot, err := sess.Screenshot(c.Request().Context(), o)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.Blob(http.StatusOK, "image/"+shot.Format, shot.Data)
}

// runLiveView answers GET /v1/runs/{id}/live/{task}/view: a redirect to
// the viewer of the task's session (view-only, so that watching does not
// disturb the agent) with a fresh session ticket.
func (s *server) runLiveView(c echo.Context) error {
	t, err := s.liveTask(c)
	if err != nil {
		return err
	}
	tk := s.tickets.issue("session/"+t.Session, time.Now())
	return c.Redirect(http.StatusSeeOther, "/v1/sessions/"+url.PathEscape(t.Session)+"/view?view_only=1&ticket="+url.QueryEscape(tk.Ticket))
}
