package api

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api/wire"
	"github.com/labstack/echo/v4"
)

// Error codes the server answers besides those of package wire.
const codeMethodNotAllowed = "method_not_allowed"

// panicError is a panic recovered in a handler; it has no errdefs class,
// so it is answered as 500.
type panicError struct{ v error }

func (p panicError) Error() string { return "panic: " + p.v.Error() }

func (s *server) logPanic(c echo.Context, err error, stack []byte) error {
	s.log.ErrorContext(c.Request().Context(), "handler panicked",
		"method", c.Request().Method, "path", c.Path(), "err", err, "stack", string(stack))
	return panicError{err}
}

// errorHandler is the one place errors become answers: echo's own
// (routing, 404, 405) by their status, the rest by their errdefs class
// through [wire.ErrorOf]. An internal error (500) is answered with an id
// instead of its text, which goes to the log under that id; the other
// 5xx (unavailable, timeout, not implemented) carry their own
// classified messages and are logged as warnings.
func (s *server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	req := c.Request()
	var status int
	var body wire.ErrorBody
	var he *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status = he.Code
		body.Error.Code, body.Error.Message = echoError(he, req, c.Response().Header().Get(echo.HeaderAllow))
	default:
		status, body = wire.ErrorOf(err, "internal error")
	}
	switch {
	case body.Error.Code == wire.CodeInternal:
		id := errorID()
		s.log.ErrorContext(req.Context(), "request failed",
			"error_id", id, "method", req.Method, "path", c.Path(), "status", status, "err", err)
		body.Error.Message = fmt.Sprintf("internal error (id %s)", id)
	case status >= 500:
		s.log.WarnContext(req.Context(), "request failed",
			"method", req.Method, "path", c.Path(), "status", status, "err", err)
	}
	if req.Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = c.JSON(status, body)
}

// echoError gives the code and message of an error echo raised itself.
func echoError(he *echo.HTTPError, req *http.Request, allow string) (code, msg string) {
	switch he.Code {
	case http.StatusNotFound:
		return wire.CodeNotFound, fmt.Sprintf("no route %s %s", req.Method, req.URL.Path)
	case http.StatusMethodNotAllowed:
		msg := fmt.Sprintf("method %s not allowed on %s", req.Method, req.URL.Path)
		if allow != "" {
			msg += " (allowed: " + strings.ReplaceAll(allow, ",", ", ") + ")"
		}
		return codeMethodNotAllowed, msg
	case http.StatusRequestEntityTooLarge:
		return wire.CodeTooLarge, fmt.Sprint(he.Message)
	case http.StatusUnauthorized:
		return wire.CodeUnauthorized, fmt.Sprint(he.Message)
	}
	_, code = wire.Classify(statusClass(he.Code))
	return code, fmt.Sprint(he.Message)
}

// statusClass is the errdefs class of an HTTP status.
func statusClass(status int) error {
	switch {
	case status == http.StatusBadRequest:
		return errdefs.ErrInvalidArgument
	case status == http.StatusForbidden:
		return errdefs.ErrPermissionDenied
	case status == http.StatusConflict:
		return errdefs.ErrConflict
	case status == http.StatusServiceUnavailable:
		return errdefs.ErrUnavailable
	}
	return errdefs.ErrInternal
}

func errorID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// readBody reads the request body, refusing more than limit bytes with
// an error of class [errdefs.ErrOutOfRange] (413).
func readBody(c echo.Context, limit int64) ([]byte, error) {
	if c.Request().ContentLength > limit {
		return nil, tooLarge(limit)
	}
	b, err := io.ReadAll(http.MaxBytesReader(c.Response(), c.Request().Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge(limit)
	}
	if err != nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("body: read: %v", err))
	}
	return b, nil
}

func tooLarge(limit int64) error {
	return errdefs.ErrOutOfRange.WithMessage(fmt.Sprintf("body: larger than the limit of %d bytes", limit))
}

// decode reads a JSON body into v: unknown fields, wrong types and
// trailing data are errors of class [errdefs.ErrInvalidArgument] naming the
// field; an oversized body is [errdefs.ErrOutOfRange].
func (s *server) decode(c echo.Context, v any) error {
	b, err := readBody(c, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	return wire.DecodeJSON(bytes.NewReader(b), v)
}
