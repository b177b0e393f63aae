package agentd

import (
	"net/http"

	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// setToken answers POST /v1/token: the token sent replaces the one this
// call was authorised with, for every later call. A sandbox restored from
// a snapshot answers the token of the sandbox the snapshot was taken of
// until the runner gives it one of its own this way.
func (s *Server) setToken(c echo.Context) error {
	var req api.TokenRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	s.bearer.Set(req.Token)
	s.log.Info("token replaced")
	return c.NoContent(http.StatusNoContent)
}
