package dialect

import (
	"context"
	"fmt"
)

// PortExposer answers the URL at which a port inside the session's
// sandbox can be reached from outside, or an error when nothing listens
// on it. The server that runs the session puts one in the context of a
// tool call ([WithPortExposer]); without one, expose_port answers that
// exposing ports needs `deskrun serve`.
type PortExposer func(ctx context.Context, port int) (string, error)

type portExposerKey struct{}

// WithPortExposer returns ctx carrying f for the expose_port tool.
func WithPortExposer(ctx context.Context, f PortExposer) context.Context {
	return context.WithValue(ctx, portExposerKey{}, f)
}

// exposePort is the sandbox dialect's expose_port tool.
func exposePort(ctx context.Context, m map[string]any) (Result, error) {
	p := intArg(m, "port")
	if p == nil || *p < 1 || *p > 65535 {
		return errorResult(fmt.Sprintf("port: want an integer 1..65535, got %v", m["port"])), nil
	}
	port := *p
	f, _ := ctx.Value(portExposerKey{}).(PortExposer)
	if f == nil {
		return errorResult("expose_port is not available here: ports are exposed by a session of `deskrun serve`"), nil
	}
	url, err := f(ctx, port)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	return textResult(url), nil
}
