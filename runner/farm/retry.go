package farm

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/containerd/errdefs"
)

// infrastructure reports whether err is a failure of the infrastructure
// that another attempt may not meet: a sandbox or provider that is
// unavailable (class [errdefs.ErrUnavailable], which agentd's client
// gives an unreachable sandbox), or a connection refused, reset or cut
// short. Failures of the task (a setup command that fails), the agent,
// or the attempt's own deadline are not.
func infrastructure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errdefs.IsUnavailable(err) {
		return true
	}
	for _, e := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, io.ErrUnexpectedEOF, io.EOF} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne)
}
