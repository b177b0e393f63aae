package server

import (
	"bytes"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/httpserve"
	"github.com/labstack/echo/v4"
)

// panicError is a panic recovered in a handler; it has no errdefs class,
// so it is answered as 500.
type panicError struct{ v error }

func (p panicError) Error() string { return "panic: " + p.v.Error() }

func (s *server) logPanic(c echo.Context, err error, stack []byte) error {
	s.log.ErrorContext(c.Request().Context(), "handler panicked",
		"method", c.Request().Method, "path", c.Path(), "err", err, "stack", string(stack))
	return panicError{err}
}

// decode reads a JSON body into v: unknown fields, wrong types and
// trailing data are errors of class [errdefs.ErrInvalidArgument] naming the
// field; an oversized body is [errdefs.ErrOutOfRange].
func (s *server) decode(c echo.Context, v any) error {
	b, err := httpserve.ReadBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	return api.DecodeJSON(bytes.NewReader(b), v)
}
