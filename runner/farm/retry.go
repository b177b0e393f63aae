package farm

import (
	"context"
	"errors"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// infrastructure reports whether err is a failure of the infrastructure
// that another attempt may not meet: an error of class
// [errdefs.ErrUnavailable] (a sandbox or provider that is unavailable;
// the Go clients give an unreachable sandbox that class, and
// [api.NetworkError], the one classification of network failures, gives
// it to a connection refused, reset or cut short that reached here
// unclassified). Failures of the task (a setup command that fails), the
// agent, or the attempt's own deadline are not.
func infrastructure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return errdefs.IsUnavailable(api.NetworkError(err))
}
