package e2b

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/containerd/errdefs"
	"github.com/labstack/echo/v4"
)

// apiError is E2B's error body: {"code": <the status>, "message": ...}.
// The SDKs read message; any other body surfaces in them as a raw
// KeyError.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(apiError{Code: status, Message: msg})
}

// statusOf maps an error of the runner (errdefs classes) or of echo to
// its status and message. A 5xx of no known class keeps its text out of
// the answer.
func statusOf(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if s, ok := he.Message.(string); ok {
			msg = s
		}
		return he.Code, msg
	}
	switch {
	case errdefs.IsInvalidArgument(err):
		return http.StatusBadRequest, err.Error()
	case errdefs.IsUnauthorized(err):
		return http.StatusUnauthorized, err.Error()
	case errdefs.IsNotFound(err):
		return http.StatusNotFound, err.Error()
	case errdefs.IsConflict(err):
		return http.StatusConflict, err.Error()
	case errdefs.IsNotImplemented(err):
		return http.StatusNotImplemented, err.Error()
	case errdefs.IsUnavailable(err):
		return http.StatusServiceUnavailable, err.Error()
	case errdefs.IsDeadlineExceeded(err), errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, err.Error()
	case errors.Is(err, context.Canceled):
		return 499, "request cancelled"
	}
	return http.StatusInternalServerError, "internal error"
}

// handleError answers an error of a control-plane route in E2B's shape.
func (f *Front) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := statusOf(err)
	if status >= 500 {
		f.log.Error("e2b: request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
	}
	writeError(c.Response(), status, msg)
}

func invalid(msg string) error  { return errdefs.ErrInvalidArgument.WithMessage(msg) }
func notFound(msg string) error { return errdefs.ErrNotFound.WithMessage(msg) }
