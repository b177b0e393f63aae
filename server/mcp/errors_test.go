package mcp

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFailedHidesInternalErrors: a tool call that fails with an internal
// error answers an id, as REST does, and the detail goes to the log under
// that id; a classified error keeps its message.
func TestFailedHidesInternalErrors(t *testing.T) {
	var logged bytes.Buffer
	b := &binding{o: Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))}}

	res := b.failed(t.Context(), "computer", "", errors.New("open /var/lib/deskrun/secret: permission denied"))
	msg := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError || !strings.HasPrefix(msg, "internal error (id ") || strings.Contains(msg, "secret") {
		t.Fatalf("internal error answered %q, want an id and no detail", msg)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(msg, "internal error (id "), ")")
	if !strings.Contains(logged.String(), "error_id="+id) || !strings.Contains(logged.String(), "secret") {
		t.Errorf("log %q lacks the id %s and the detail", logged.String(), id)
	}

	res = b.failed(t.Context(), "computer", "no desktop: ", errdefs.ErrUnavailable.WithMessage("provider local: Xvfb did not start"))
	if msg := res.Content[0].(*sdk.TextContent).Text; msg != "no desktop: provider local: Xvfb did not start" {
		t.Errorf("unavailable answered %q, want its message", msg)
	}
}
