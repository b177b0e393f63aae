package agentd

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// TestSetToken: a new token opens agentd at once and the old one no
// longer does, as a restored sandbox's runner relies on; a bad token is
// refused naming the field and changes nothing.
func TestSetToken(t *testing.T) {
	s, c := start(t)
	ctx := t.Context()
	if err := c.SetToken(ctx, "short"); !errdefs.IsInvalidArgument(err) || !strings.Contains(err.Error(), "token") {
		t.Fatalf("a short token: got %v, want a 400 naming token", err)
	}
	if _, err := c.Cursor(ctx); err != nil {
		t.Fatalf("the old token after a refused change: %v", err)
	}
	next := strings.Repeat("ab", 32)
	if err := c.SetToken(ctx, next); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cursor(ctx); err != nil {
		t.Fatalf("the client with the new token: %v", err)
	}
	old := client.NewClient("http://"+s.Addr(), token, nil)
	_, err := old.Cursor(ctx)
	var re *api.RemoteError
	if !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
		t.Fatalf("the old token after the change: got %v, want 401", err)
	}
}
