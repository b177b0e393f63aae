package agentd

import (
	"strings"

	"github.com/deskrun/deskrun/agentd/envd"
	"github.com/labstack/echo/v4"
)

// sudoPassword is the desktop user's password in deskrun's images
// (OSWorld's {CLIENT_PASSWORD}), which sudo asks for in a session created
// with sudo; envd's commands run as root go through it.
const sudoPassword = "password"

// startEnvd makes E2B's in-sandbox API (package agentd/envd), which
// runs its commands as exec does: the desktop's environment, their
// process groups tracked.
func (s *Server) startEnvd() error {
	e, err := envd.New(envd.Config{Env: s.env, Track: s.track, Home: home(), SudoPassword: sudoPassword, Logger: s.log})
	if err != nil {
		return err
	}
	s.envd = e
	return nil
}

// envdRoutes serves envd at its own paths, behind auth (the check /v1
// has).
func (s *Server) envdRoutes(e *echo.Echo, auth echo.MiddlewareFunc) {
	h := echo.WrapHandler(s.envd.Handler())
	for _, p := range envd.Paths {
		if strings.HasSuffix(p, "/") {
			p += "*"
		}
		e.Any(p, h, auth)
	}
}
