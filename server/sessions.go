package server

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/server/osworld"
	"github.com/deskrun/deskrun/x11/keysym"
	"github.com/labstack/echo/v4"
)

// deleteTimeout bounds the stop of a sandbox a DELETE started; the stop
// goes on when the client hangs up, so that nothing is left running.
const deleteTimeout = 60 * time.Second

func (s *server) session(c echo.Context) (*runner.Session, error) {
	return s.m.Get(c.Param("id"))
}

func (s *server) createSession(c echo.Context) error {
	var req api.CreateSessionRequest
	if err := s.decode(c, &req); err != nil {
		return err
	}
	sess, err := s.m.Create(c.Request().Context(), req)
	if err != nil {
		return err
	}
	if req.OSWorld {
		ow, err := osworld.Start(sess, osworld.Config{Logger: s.log})
		if err != nil {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
			defer cancel()
			_ = s.m.Delete(ctx, sess.ID())
			return fmt.Errorf("osworld: %w (%w)", err, errdefs.ErrUnavailable)
		}
		sess.SetOSWorld(ow.Addrs())
		sess.OnEnd(func() { ow.Close() })
	}
	c.Response().Header().Set(echo.HeaderLocation, "/v1/sessions/"+sess.ID())
	return c.JSON(http.StatusCreated, sess.Info())
}

func (s *server) listSessions(c echo.Context) error {
	all := s.m.List()
	out := api.SessionList{Sessions: make([]api.Session, 0, len(all))}
	for _, sess := range all {
		out.Sessions = append(out.Sessions, sess.Info())
	}
	return c.JSON(http.StatusOK, out)
}

func (s *server) getSession(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sess.Info())
}

func (s *server) deleteSession(c echo.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
	defer cancel()
	if err := s.m.Delete(ctx, c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// setTTL answers POST /v1/sessions/{id}/ttl: the session now ends ttl_s
// seconds from the call; the answer is the session with its new
// expires_at.
func (s *server) setTTL(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	var req api.TTLRequest
	if err := s.decode(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	sess.SetDeadline(time.Now().Add(time.Duration(req.TTLS) * time.Second))
	return c.JSON(http.StatusOK, sess.Info())
}

func (s *server) screenshot(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	o, err := api.ParseScreenshotQuery(c.QueryParams(), sess.Info().Screen)
	if err != nil {
		return err
	}
	shot, err := sess.Screenshot(c.Request().Context(), o)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(api.HeaderScale, strconv.FormatFloat(shot.Scale, 'f', -1, 64))
	h.Set(api.HeaderScreen, fmt.Sprintf("%dx%d", shot.Screen.Width, shot.Screen.Height))
	if shot.Settled != nil {
		h.Set(api.HeaderSettled, strconv.FormatBool(*shot.Settled))
		h.Set(api.HeaderSettleMS, strconv.Itoa(shot.SettleMS))
	}
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(shot.Data)))
	return c.Blob(http.StatusOK, "image/"+shot.Format, shot.Data)
}

func (s *server) input(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	b, err := httpserve.ReadBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	req, err := api.DecodeInput(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := req.Validate(sess.Info().Screen, keysym.Known); err != nil {
		return err
	}
	res, err := sess.Input(c.Request().Context(), req.Actions)
	if err != nil {
		// The answer is the error envelope plus the report of the
		// actions run up to the one that failed.
		status, body := api.ErrorOf(err, "input failed")
		if body.Error.Code == api.CodeInternal {
			return err // answered with an error id, the report left out
		}
		res.Error = &body.Error
		if res.Results == nil {
			res.Results = []api.ActionResult{}
		}
		return c.JSON(status, res)
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) cursor(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p, err := sess.Cursor(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (s *server) exec(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	var req api.ExecRequest
	if err := s.decode(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	res, err := sess.Exec(c.Request().Context(), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func (s *server) kill(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	res, err := sess.Kill(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

func filePath(c echo.Context) (string, error) {
	p := c.QueryParam("path")
	if err := api.CheckPath(p); err != nil {
		return "", err
	}
	return p, nil
}

func (s *server) readFile(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p, err := filePath(c)
	if err != nil {
		return err
	}
	b, err := sess.ReadFile(c.Request().Context(), p)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(b)))
	return c.Blob(http.StatusOK, echo.MIMEOctetStream, b)
}

func (s *server) writeFile(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	p, err := filePath(c)
	if err != nil {
		return err
	}
	b, err := httpserve.ReadBody(c, maxFileBody)
	if err != nil {
		return err
	}
	if err := sess.WriteFile(c.Request().Context(), p, b); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// clipboardParams reads the selection and type of a clipboard call; a
// PUT's Content-Type image/png stands for type=image/png.
func clipboardParams(c echo.Context) (selection, typ string, err error) {
	typ = c.QueryParam("type")
	if c.Request().Method == http.MethodPut && typ == "" {
		if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get(echo.HeaderContentType)); mt == api.ClipboardPNG {
			typ = api.ClipboardPNG
		}
	}
	selection, typ, err = api.CheckClipboard(c.QueryParam("selection"), typ)
	if err != nil {
		return "", "", errdefs.ErrInvalidArgument.WithMessage(err.Error())
	}
	return selection, typ, nil
}

func (s *server) readClipboard(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	sel, typ, err := clipboardParams(c)
	if err != nil {
		return err
	}
	b, err := sess.ReadClipboard(c.Request().Context(), sel, typ)
	if err != nil {
		return err
	}
	ct := "text/plain; charset=utf-8"
	if typ == api.ClipboardPNG {
		ct = api.ClipboardPNG
	}
	return c.Blob(http.StatusOK, ct, b)
}

func (s *server) writeClipboard(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	sel, typ, err := clipboardParams(c)
	if err != nil {
		return err
	}
	limit := int64(api.MaxClipboardText)
	if typ == api.ClipboardPNG {
		limit = api.MaxClipboardImage
	}
	b, err := httpserve.ReadBody(c, limit)
	if err != nil {
		return err
	}
	if err := sess.WriteClipboard(c.Request().Context(), sel, typ, b); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) windows(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	ws, err := sess.Windows(c.Request().Context())
	if err != nil {
		return err
	}
	if ws == nil {
		ws = []api.Window{}
	}
	return c.JSON(http.StatusOK, api.WindowList{Windows: ws})
}

// sessionWindow returns the session and the window id {wid} of a
// window route.
func (s *server) sessionWindow(c echo.Context) (*runner.Session, uint32, error) {
	sess, err := s.session(c)
	if err != nil {
		return nil, 0, err
	}
	wid, err := strconv.ParseUint(c.Param("wid"), 0, 32)
	if err != nil {
		return nil, 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("wid: want a window id (decimal or 0x hex), got %q", c.Param("wid")))
	}
	return sess, uint32(wid), nil
}

func (s *server) activateWindow(c echo.Context) error {
	sess, wid, err := s.sessionWindow(c)
	if err != nil {
		return err
	}
	if err := sess.ActivateWindow(c.Request().Context(), wid); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// window answers one window with its client area and state.
func (s *server) window(c echo.Context) error {
	sess, wid, err := s.sessionWindow(c)
	if err != nil {
		return err
	}
	w, err := sess.Window(c.Request().Context(), wid)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, w)
}

// changeWindow minimizes, maximizes, restores or moves and resizes a
// window (move_resize takes an api.WindowPlacement body).
func (s *server) changeWindow(c echo.Context) error {
	sess, wid, err := s.sessionWindow(c)
	if err != nil {
		return err
	}
	action := c.Param("action")
	if !slices.Contains(api.WindowActions, action) {
		return errdefs.ErrNotFound.WithMessage(fmt.Sprintf("action: no window action %q (want one of %s)", action, strings.Join(api.WindowActions, ", ")))
	}
	var place api.WindowPlacement
	if action == api.WindowMoveResize {
		b, err := httpserve.ReadBody(c, s.cfg.MaxBodyBytes)
		if err != nil {
			return err
		}
		if err := api.DecodeJSON(bytes.NewReader(b), &place); err != nil {
			return err
		}
		if err := place.Validate(); err != nil {
			return err
		}
	}
	if err := sess.ChangeWindow(c.Request().Context(), wid, action, place); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) closeWindow(c echo.Context) error {
	sess, wid, err := s.sessionWindow(c)
	if err != nil {
		return err
	}
	if err := sess.CloseWindow(c.Request().Context(), wid); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
