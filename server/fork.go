package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/server/osworld"
	"github.com/labstack/echo/v4"
)

// forkSession answers POST /v1/sessions/{id}/fork: count new sessions
// from the session's current state (201 with their objects). A fork of a
// session with OSWorld's routes gets routes of its own.
func (s *server) forkSession(c echo.Context) error {
	src, err := s.session(c)
	if err != nil {
		return err
	}
	var req api.ForkRequest
	if err := s.decode(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := s.m.Fork(ctx, src.ID(), req)
	if err != nil {
		return err
	}
	if src.Info().OSWorld != nil {
		for i, info := range res.Sessions {
			sess, err := s.m.Get(info.ID)
			if err != nil {
				return err
			}
			ow, err := osworld.Start(sess, osworld.Config{Logger: s.log})
			if err != nil {
				dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteTimeout)
				defer cancel()
				for _, f := range res.Sessions {
					_ = s.m.Delete(dctx, f.ID)
				}
				return fmt.Errorf("osworld: %w (%w)", err, errdefs.ErrUnavailable)
			}
			sess.SetOSWorld(ow.Addrs())
			sess.OnEnd(func() { ow.Close() })
			res.Sessions[i] = sess.Info()
		}
	}
	return c.JSON(http.StatusCreated, res)
}

// pauseSession answers POST /v1/sessions/{id}/pause: the session saved
// to disk, its sandbox stopped (memory freed); 200 with its object.
func (s *server) pauseSession(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	info, err := s.m.Pause(c.Request().Context(), sess.ID())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}

// resumeSession answers POST /v1/sessions/{id}/resume: the paused
// session back as it was; 200 with its object.
func (s *server) resumeSession(c echo.Context) error {
	sess, err := s.session(c)
	if err != nil {
		return err
	}
	info, err := s.m.Resume(c.Request().Context(), sess.ID())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, info)
}
