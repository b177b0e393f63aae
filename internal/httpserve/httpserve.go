// Package httpserve holds what deskrun's two HTTP servers (the host's
// REST server in server/ and agentd in the sandbox) answer alike, on
// echo: the error handler (every error in the contract's shape
// {"error":{"code","message"}}, an internal error hidden behind an id
// whose detail is logged, see [api.Answer]), the reading of a bounded
// request body, and the bearer-token check.
package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/labstack/echo/v4"
)

// CodeMethodNotAllowed is the code of a 405, which the contract's
// classes do not name.
const CodeMethodNotAllowed = "method_not_allowed"

// ErrorHandler returns the one place a server's errors become answers:
// echo's own (routing, 404, 405, 413) by their status, the rest by their
// errdefs class through [api.AnswerOf], logged to log through
// [api.Answer.Log]. A HEAD request gets the status alone.
func ErrorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		req := c.Request()
		var a api.Answer
		var he *echo.HTTPError
		if errors.As(err, &he) {
			a.Status = he.Code
			a.Body.Error.Code, a.Body.Error.Message = echoError(he, req, c.Response().Header().Get(echo.HeaderAllow))
			if a.Body.Error.Code == api.CodeInternal {
				a = api.AnswerOf(err)
				a.Status = he.Code
			}
		} else {
			a = api.AnswerOf(err)
		}
		a.Log(req.Context(), log, err, "method", req.Method, "path", c.Path())
		if req.Method == http.MethodHead {
			_ = c.NoContent(a.Status)
			return
		}
		_ = c.JSON(a.Status, a.Body)
	}
}

// echoError gives the code and message of an error echo raised itself.
func echoError(he *echo.HTTPError, req *http.Request, allow string) (code, msg string) {
	switch he.Code {
	case http.StatusNotFound:
		return api.CodeNotFound, fmt.Sprintf("no route %s %s", req.Method, req.URL.Path)
	case http.StatusMethodNotAllowed:
		msg := fmt.Sprintf("method %s not allowed on %s", req.Method, req.URL.Path)
		if allow != "" {
			var methods []string
			for _, m := range strings.Split(allow, ",") {
				if m = strings.TrimSpace(m); m != "" {
					methods = append(methods, m)
				}
			}
			msg += " (allowed: " + strings.Join(methods, ", ") + ")"
		}
		return CodeMethodNotAllowed, msg
	case http.StatusRequestEntityTooLarge:
		return api.CodeTooLarge, fmt.Sprint(he.Message)
	case http.StatusUnauthorized:
		return api.CodeUnauthorized, fmt.Sprint(he.Message)
	}
	_, code = api.Classify(statusClass(he.Code))
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

// ReadBody reads the request body, refusing more than limit bytes with
// an error of class [errdefs.ErrOutOfRange] (413); a body that cannot be
// read is [errdefs.ErrInvalidArgument].
func ReadBody(c echo.Context, limit int64) ([]byte, error) {
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

// BearerAuth requires "Authorization: Bearer <token>" (the scheme in any
// case) on every request but those open says need none; a missing or
// wrong token is an error of class [errdefs.ErrUnauthenticated] (401)
// with a WWW-Authenticate header naming realm. An empty token turns the
// check off. The comparison takes the same time whatever the token sent.
func BearerAuth(token, realm string, open func(echo.Context) bool) echo.MiddlewareFunc {
	return NewBearer(token).Auth(realm, open)
}

// Bearer is a bearer token that can be replaced while it is checked (a
// sandbox restored from a snapshot takes a token of its own). Its
// methods are safe for concurrent use.
type Bearer struct {
	sum atomic.Pointer[[sha256.Size]byte] // nil: no token, the check is off
}

// NewBearer returns the holder of token; an empty token turns the check
// off.
func NewBearer(token string) *Bearer {
	b := &Bearer{}
	if token != "" {
		b.Set(token)
	}
	return b
}

// Set makes token the only one accepted from now on; token must not be
// empty.
func (b *Bearer) Set(token string) {
	sum := sha256.Sum256([]byte(token))
	b.sum.Store(&sum)
}

// Auth is [BearerAuth] checking b's current token.
func (b *Bearer) Auth(realm string, open func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			sum := b.sum.Load()
			if sum == nil || open != nil && open(c) {
				return next(c)
			}
			scheme, got, _ := strings.Cut(c.Request().Header.Get("Authorization"), " ")
			gotSum := sha256.Sum256([]byte(strings.TrimSpace(got)))
			if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(gotSum[:], sum[:]) != 1 {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="`+realm+`"`)
				return errdefs.ErrUnauthenticated.WithMessage("missing or wrong bearer token (send Authorization: Bearer <token>)")
			}
			return next(c)
		}
	}
}

// HeadAsGet answers HEAD as GET without the body, as net/http's own
// mux does (echo routes HEAD nowhere, so it answered 405). Use it with
// echo's Pre.
func HeadAsGet(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodHead {
			return next(c)
		}
		req.Method = http.MethodGet
		c.Response().Writer = headWriter{c.Response().Writer}
		return next(c)
	}
}

// headWriter drops the body of an answer to HEAD, keeping its headers.
type headWriter struct{ http.ResponseWriter }

func (headWriter) Write(b []byte) (int, error) { return len(b), nil }
