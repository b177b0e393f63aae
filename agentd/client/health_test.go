package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func answer(status int) *http.Response {
	return &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), Body: io.NopCloser(strings.NewReader(`{"status":"ok"}`))}
}

func TestWaitHealthy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
			calls++
			if r.URL.String() != "http://10.0.0.2:7000/healthz" {
				return nil, fmt.Errorf("unexpected URL %s", r.URL)
			}
			if calls < 3 {
				return nil, errors.New("connection refused")
			}
			return answer(http.StatusOK), nil
		})}
		start := time.Now()
		if err := WaitHealthy(t.Context(), "http://10.0.0.2:7000", hc, 10*time.Millisecond); err != nil {
			t.Fatalf("WaitHealthy: %v", err)
		}
		if d := time.Since(start); d != 20*time.Millisecond {
			t.Errorf("healthy after %v, want 20ms (two pauses)", d)
		}

		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		hc.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
			return answer(http.StatusInternalServerError), nil
		})
		err := WaitHealthy(ctx, "http://10.0.0.2:7000", hc, 10*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "500 Internal Server Error") {
			t.Errorf("WaitHealthy = %v, want deadline exceeded after status 500", err)
		}
	})
}

func TestHealthy(t *testing.T) {
	hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		return answer(http.StatusServiceUnavailable), nil
	})}
	if err := Healthy(t.Context(), "http://10.0.0.2:7000/", hc); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("Healthy = %v, want an error naming 503", err)
	}
	hc.Transport = roundTripper(func(r *http.Request) (*http.Response, error) { return nil, errors.New("connection refused") })
	if err := Healthy(t.Context(), "http://10.0.0.2:7000", hc); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Healthy = %v, want the transport's error", err)
	}
}
