package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/containerd/errdefs"
)

func TestNetworkError(t *testing.T) {
	urlErr := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/input", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	for _, tt := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"nil", nil, false},
		{"connection refused", fmt.Errorf("exec: %w", urlErr), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"broken pipe", syscall.EPIPE, true},
		{"cut short", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), true},
		{"already unavailable", errdefs.ErrUnavailable.WithMessage("no engine"), true},
		{"canceled", fmt.Errorf("exec: %w", context.Canceled), false},
		{"request canceled", &url.Error{Op: "Post", URL: "http://x", Err: context.Canceled}, false},
		{"deadline", context.DeadlineExceeded, false},
		{"plain", errors.New("exit status 1"), false},
		{"not found", errdefs.ErrNotFound.WithMessage("no such file"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := NetworkError(tt.err)
			if errdefs.IsUnavailable(got) != tt.unavailable {
				t.Errorf("NetworkError(%v) unavailable = %v, want %v", tt.err, !tt.unavailable, tt.unavailable)
			}
			if tt.err != nil && (got.Error() != tt.err.Error() || !errors.Is(got, tt.err)) {
				t.Errorf("NetworkError(%v) = %v, want the same text and chain", tt.err, got)
			}
		})
	}
}

func TestEndpointDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "text/plain" {
				http.Error(w, "headers", http.StatusTeapot)
				return
			}
			b, _ := io.ReadAll(r.Body)
			w.Write(b)
		case "/missing":
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"code":"not_found","message":"no session x"}}`))
		}
	}))
	e := Endpoint{Base: srv.URL, Token: "tok", Client: srv.Client(), Name: "agentd", Unreachable: "sandbox unreachable"}
	if _, b, err := e.Do(t.Context(), http.MethodPost, "/ok", strings.NewReader("hi"), "text/plain"); err != nil || string(b) != "hi" {
		t.Errorf("Do /ok = %q, %v", b, err)
	}
	if _, _, err := e.Do(t.Context(), http.MethodGet, "/missing", nil, ""); !errdefs.IsNotFound(err) || err.Error() != "no session x" {
		t.Errorf("Do /missing = %v, want not found", err)
	}
	srv.Close()
	_, _, err := e.Do(t.Context(), http.MethodGet, "/ok", nil, "")
	if !errdefs.IsUnavailable(err) || !strings.HasPrefix(err.Error(), "sandbox unreachable: agentd GET /ok: ") {
		t.Errorf("Do on a closed server = %v, want unavailable naming the call", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := e.Do(ctx, http.MethodGet, "/ok", nil, ""); !errors.Is(err, context.Canceled) || errdefs.IsUnavailable(err) {
		t.Errorf("Do with a cancelled context = %v, want canceled", err)
	}
}
