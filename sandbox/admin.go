package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// AdminOutputCap bounds what a provider's AdminExec keeps of each output
// stream, as agentd's exec does.
const AdminOutputCap = 1 << 20

// AdminTimeout is the timeout of an AdminExec request that gives none.
const AdminTimeout = 30 * time.Second

// CheckAdminExec checks the fields of an AdminExec request that every
// provider reads the same way and returns its timeout.
func CheckAdminExec(req api.ExecRequest) (time.Duration, error) {
	if len(req.Cmd) == 0 || req.Cmd[0] == "" {
		return 0, errdefs.ErrInvalidArgument.WithMessage("cmd: must name a program")
	}
	if req.TimeoutMS < 0 {
		return 0, errdefs.ErrInvalidArgument.WithMessage("timeout_ms: must not be negative")
	}
	for k := range req.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return 0, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("env: %q is not a variable name", k))
		}
	}
	if req.TimeoutMS > 0 {
		return time.Duration(req.TimeoutMS) * time.Millisecond, nil
	}
	return AdminTimeout, nil
}

// AdminResult is the answer to an AdminExec whose command, run under
// coreutils' timeout(1) for timeout, exited with code after elapsed.
// timeout(1) exits 124 when it stopped the command with TERM and 137 when
// it had to KILL it; a command exiting 124 by itself before the deadline
// is not a timeout.
func AdminResult(code int, stdout, stderr *CappedBuffer, elapsed, timeout time.Duration) api.ExecResult {
	return api.ExecResult{
		ExitCode:   code,
		Stdout:     stdout.String(),
		Stderr:     stderr.String(),
		Truncated:  stdout.Cut || stderr.Cut,
		DurationMS: elapsed.Milliseconds(),
		TimedOut:   (code == 124 || code == 137) && elapsed >= timeout,
	}
}

// CappedBuffer keeps the first N bytes written to it and notes a cut.
type CappedBuffer struct {
	N   int
	Cut bool
	b   []byte
}

// NewCappedBuffer returns a buffer keeping AdminOutputCap bytes.
func NewCappedBuffer() *CappedBuffer { return &CappedBuffer{N: AdminOutputCap} }

func (c *CappedBuffer) Write(p []byte) (int, error) {
	if room := c.N - len(c.b); room < len(p) {
		c.b = append(c.b, p[:max(room, 0)]...)
		c.Cut = true
	} else {
		c.b = append(c.b, p...)
	}
	return len(p), nil
}

func (c *CappedBuffer) String() string { return string(c.b) }

// RandomHex returns n random bytes from crypto/rand in hex: sandbox
// tokens, names and markers. crypto/rand does not fail on Linux (Go
// stops the program if the kernel's generator is unavailable).
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
