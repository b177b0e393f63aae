package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/containerd/errdefs"
)

// Error is the body of every error answer: {"error":{"code","message"}}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorBody wraps an Error as the contract's error envelope.
type ErrorBody struct {
	Error Error `json:"error"`
}

// Error codes, one per class of [errdefs] the contract uses.
const (
	CodeInvalidArgument    = "invalid_argument"    // 400
	CodeUnauthorized       = "unauthorized"        // 401
	CodePermissionDenied   = "permission_denied"   // 403
	CodeNotFound           = "not_found"           // 404
	CodeConflict           = "conflict"            // 409
	CodeTooLarge           = "too_large"           // 413
	CodeFailedPrecondition = "failed_precondition" // 422: a valid request the desktop refused
	CodeUnavailable        = "unavailable"         // 503
	CodeDeadlineExceeded   = "deadline_exceeded"   // 504
	CodeCanceled           = "canceled"            // 499
	CodeInternal           = "internal"            // 500
	CodeNotImplemented     = "not_implemented"     // 501
)

// Classify maps an error to the HTTP status and code of the contract by its
// errdefs class. Unclassified errors are internal (500).
func Classify(err error) (status int, code string) {
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errdefs.IsInvalidArgument(err):
		return http.StatusBadRequest, CodeInvalidArgument
	case errdefs.IsUnauthorized(err):
		return http.StatusUnauthorized, CodeUnauthorized
	case errdefs.IsPermissionDenied(err):
		return http.StatusForbidden, CodePermissionDenied
	case errdefs.IsNotFound(err):
		return http.StatusNotFound, CodeNotFound
	case errdefs.IsConflict(err), errdefs.IsAlreadyExists(err):
		return http.StatusConflict, CodeConflict
	case errdefs.IsOutOfRange(err), errdefs.IsResourceExhausted(err):
		return http.StatusRequestEntityTooLarge, CodeTooLarge
	case errdefs.IsFailedPrecondition(err):
		return http.StatusUnprocessableEntity, CodeFailedPrecondition
	case errdefs.IsUnavailable(err):
		return http.StatusServiceUnavailable, CodeUnavailable
	case errdefs.IsDeadlineExceeded(err), errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, CodeDeadlineExceeded
	case errdefs.IsCanceled(err), errors.Is(err, context.Canceled):
		return 499, CodeCanceled
	case errdefs.IsNotImplemented(err):
		return http.StatusNotImplemented, CodeNotImplemented
	}
	return http.StatusInternalServerError, CodeInternal
}

// classes maps codes back to errdefs classes, for clients.
var classes = map[string]error{
	CodeInvalidArgument:    errdefs.ErrInvalidArgument,
	CodeUnauthorized:       errdefs.ErrUnauthenticated,
	CodePermissionDenied:   errdefs.ErrPermissionDenied,
	CodeNotFound:           errdefs.ErrNotFound,
	CodeConflict:           errdefs.ErrConflict,
	CodeTooLarge:           errdefs.ErrOutOfRange,
	CodeFailedPrecondition: errdefs.ErrFailedPrecondition,
	CodeUnavailable:        errdefs.ErrUnavailable,
	CodeDeadlineExceeded:   context.DeadlineExceeded,
	CodeCanceled:           context.Canceled,
	CodeInternal:           errdefs.ErrInternal,
	CodeNotImplemented:     errdefs.ErrNotImplemented,
}

// RemoteError is an error answer received from a deskrun or agentd server.
// It unwraps to the errdefs class of its code, so errdefs.IsNotFound and
// friends work on it, and [Classify] gives back the same status.
type RemoteError struct {
	Status  int
	Code    string
	Message string
}

func (e *RemoteError) Error() string { return e.Message }

// Unwrap returns the errdefs class of the code.
func (e *RemoteError) Unwrap() error {
	if c, ok := classes[e.Code]; ok {
		return c
	}
	switch {
	case e.Status == http.StatusBadRequest:
		return errdefs.ErrInvalidArgument
	case e.Status == http.StatusNotFound:
		return errdefs.ErrNotFound
	case e.Status == http.StatusUnauthorized:
		return errdefs.ErrUnauthenticated
	case e.Status >= 500:
		return errdefs.ErrUnavailable
	}
	return errdefs.ErrUnknown
}

// ErrorFromResponse builds the error for a non-2xx answer from its status
// and body. A body that is not the contract's envelope still yields an
// error carrying the status.
func ErrorFromResponse(status int, body []byte) error {
	var eb ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.Error.Code != "" {
		return &RemoteError{Status: status, Code: eb.Error.Code, Message: eb.Error.Message}
	}
	msg := string(body)
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &RemoteError{Status: status, Message: fmt.Sprintf("status %d: %s", status, msg)}
}

// ErrorOf builds the wire form of err as a server answers it. Errors of
// status 500 and above get the public message given, never err's text.
func ErrorOf(err error, internalMessage string) (int, ErrorBody) {
	status, code := Classify(err)
	msg := err.Error()
	if status >= 500 && code != CodeUnavailable && code != CodeDeadlineExceeded && code != CodeNotImplemented {
		msg = internalMessage
	}
	return status, ErrorBody{Error: Error{Code: code, Message: msg}}
}

// Answer is what a server answers for an error: the status and body of
// [ErrorOf], except that an internal error (500) is hidden behind an id
// (its message becomes "internal error (id …)") so its text, which may
// name hosts, paths or containers, only reaches the log. REST servers
// (deskrun's and agentd's) and MCP answer errors through it.
type Answer struct {
	Status int
	Body   ErrorBody
	// ID names an internal error in the answer and in the log; "" for
	// any other error.
	ID string
}

// AnswerOf builds the answer to err; see [Answer].
func AnswerOf(err error) Answer {
	status, body := ErrorOf(err, "internal error")
	a := Answer{Status: status, Body: body}
	if body.Error.Code == CodeInternal {
		a.ID = errorID()
		a.Body.Error.Message = fmt.Sprintf("internal error (id %s)", a.ID)
	}
	return a
}

// Log writes the line an answer deserves: an internal error at Error
// level with its id and err's text, other 5xx (unavailable, timeout, not
// implemented) at Warn; nothing for the rest. attrs are added to it.
func (a Answer) Log(ctx context.Context, log *slog.Logger, err error, attrs ...any) {
	switch {
	case a.ID != "":
		log.ErrorContext(ctx, "request failed", append([]any{"error_id", a.ID, "status", a.Status, "err", err}, attrs...)...)
	case a.Status >= 500:
		log.WarnContext(ctx, "request failed", append([]any{"status", a.Status, "err", err}, attrs...)...)
	}
}

func errorID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
