package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/containerd/errdefs"
)

func TestErrorRoundTrip(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{errdefs.ErrInvalidArgument.WithMessage("x: bad"), 400, CodeInvalidArgument},
		{fmt.Errorf("session %q: %w", "s1", errdefs.ErrNotFound), 404, CodeNotFound},
		{errdefs.ErrUnavailable, 503, CodeUnavailable},
		{errdefs.ErrFailedPrecondition.WithMessage("no window"), 422, CodeFailedPrecondition},
		{errors.New("boom"), 500, CodeInternal},
	}
	for _, tt := range tests {
		status, body := ErrorOf(tt.err, "internal error")
		if status != tt.status || body.Error.Code != tt.code {
			t.Errorf("ErrorOf(%v) = %d %s, want %d %s", tt.err, status, body.Error.Code, tt.status, tt.code)
		}
		if status == 500 && body.Error.Message != "internal error" {
			t.Errorf("500 leaks %q", body.Error.Message)
		}
		data := fmt.Appendf(nil, `{"error":{"code":%q,"message":%q}}`, body.Error.Code, body.Error.Message)
		back := ErrorFromResponse(status, data)
		if got, _ := Classify(back); got != tt.status {
			t.Errorf("round trip of %v: got status %d, want %d", tt.err, got, tt.status)
		}
	}
	if err := ErrorFromResponse(http.StatusBadGateway, []byte("<html>")); !errdefs.IsUnavailable(err) {
		t.Errorf("non-envelope 502 = %v, want unavailable", err)
	}
}

func TestParseRegion(t *testing.T) {
	s := Screen{Width: 100, Height: 50}
	if r, err := ParseRegion("0,0,100,50", s); err != nil || r != (Rect{0, 0, 100, 50}) {
		t.Errorf("full screen: got %v %v", r, err)
	}
	for _, bad := range []string{"1,2,3", "a,0,1,1", "5,5,5,6", "0,0,101,10", "-1,0,5,5"} {
		if _, err := ParseRegion(bad, s); !errdefs.IsInvalidArgument(err) {
			t.Errorf("ParseRegion(%q) = %v, want invalid argument", bad, err)
		}
	}
}
