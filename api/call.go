package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/containerd/errdefs"
)

// Endpoint is the HTTP core the Go clients of agentd (agentd/client) and
// of the host API (api/client) share: one request with the bearer
// token, one reading of the answer, and one classification of failures,
// so both report the same errdefs classes.
type Endpoint struct {
	// Base is the peer's address without a trailing slash
	// ("http://127.0.0.1:7000").
	Base string
	// Token, when not empty, is sent as a bearer token.
	Token string
	// Client sends the requests; it must not be nil.
	Client *http.Client
	// Name prefixes the method and path in errors ("agentd"); may be
	// empty.
	Name string
	// Unreachable says in errors what a failed round trip means
	// ("sandbox unreachable").
	Unreachable string
	// MaxAnswer bounds the answer read; a longer one is cut there.
	// Zero means no bound.
	MaxAnswer int64
}

// Do sends a request to e.Base+path with body (Content-Type ctype when
// there is a body) and reads the whole answer. A non-2xx answer is
// returned with its body and the error [ErrorFromResponse] makes of it,
// which carries the class of its code. A failed round trip or a cut
// answer is classified by [NetworkError]: the context's error when ctx
// ended, else an error of class [errdefs.ErrUnavailable].
func (e *Endpoint) Do(ctx context.Context, method, path string, body io.Reader, ctype string) (*http.Response, []byte, error) {
	what := method + " " + path
	if e.Name != "" {
		what = e.Name + " " + what
	}
	req, err := http.NewRequestWithContext(ctx, method, e.Base+path, body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	if e.Token != "" {
		req.Header.Set("Authorization", "Bearer "+e.Token)
	}
	if ctype != "" && body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := e.Client.Do(req)
	if err != nil {
		return nil, nil, e.failed(ctx, what, err)
	}
	defer resp.Body.Close()
	b, err := readAnswer(resp, e.MaxAnswer)
	if err != nil {
		return resp, nil, e.failed(ctx, what+": read answer", err)
	}
	if resp.StatusCode/100 != 2 {
		return resp, b, ErrorFromResponse(resp.StatusCode, b)
	}
	return resp, b, nil
}

func (e *Endpoint) failed(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	unreachable := e.Unreachable
	if unreachable == "" {
		unreachable = "peer unreachable"
	}
	return NetworkError(fmt.Errorf("%s: %s: %w", unreachable, what, err))
}

// readAnswer reads an answer's body: in one allocation of its announced
// length when it has one (a screenshot is about a megabyte, which
// io.ReadAll would reach by growing and copying a dozen times), else as
// it comes; max > 0 bounds both.
func readAnswer(resp *http.Response, max int64) ([]byte, error) {
	n := resp.ContentLength
	if n < 0 || max > 0 && n > max {
		if max > 0 {
			return io.ReadAll(io.LimitReader(resp.Body, max))
		}
		return io.ReadAll(resp.Body)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(resp.Body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// NetworkError is the one place a network failure becomes an error
// class: err, when it is a failure of the network or of a peer that went
// away (a net.Error such as a refused dial or a timeout of the
// transport, a connection reset or aborted, a broken pipe, an answer cut
// short), comes back as an error of class [errdefs.ErrUnavailable] that
// keeps err's text and chain. The context's own errors
// (context.Canceled, context.DeadlineExceeded), errors that already have
// a class, and any other error come back unchanged.
func NetworkError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errdefs.IsUnavailable(err) {
		return err
	}
	if !isNetwork(err) {
		return err
	}
	return unavailable{err}
}

func isNetwork(err error) bool {
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, io.ErrUnexpectedEOF, io.EOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// unavailable gives an error the class errdefs.ErrUnavailable, keeping
// its text and chain.
type unavailable struct{ err error }

func (u unavailable) Error() string   { return u.err.Error() }
func (u unavailable) Unwrap() []error { return []error{u.err, errdefs.ErrUnavailable} }
