package api

import "unicode"

// TokenRequest is the body of agentd's POST /v1/token: from then on the
// /v1 routes require Token instead of the token the call was made with.
// The runner gives each sandbox restored from a snapshot a token of its
// own this way, since every restored copy starts with the token of the
// sandbox the snapshot was taken of.
type TokenRequest struct {
	Token string `json:"token"`
}

// Validate checks r: Token of 32 to 256 printable characters without
// spaces. The error is of class [errdefs.ErrInvalidArgument] naming
// "token".
func (r TokenRequest) Validate() error {
	if n := len(r.Token); n < 32 || n > 256 {
		return invalid("token: %d characters, want 32 to 256", n)
	}
	for _, c := range r.Token {
		if c > unicode.MaxASCII || !unicode.IsPrint(c) || c == ' ' {
			return invalid("token: printable ASCII characters without spaces only")
		}
	}
	return nil
}

// MaxForkCount bounds the sessions one fork makes.
const MaxForkCount = 16

// ForkRequest is the body of POST /v1/sessions/{id}/fork: Count new
// sessions from the running session's current state.
type ForkRequest struct {
	Count int `json:"count"`
}

// Validate checks r: Count in 1..[MaxForkCount]. The error is of class
// [errdefs.ErrInvalidArgument] naming "count".
func (r ForkRequest) Validate() error {
	if r.Count < 1 || r.Count > MaxForkCount {
		return invalid("count: %d out of range 1..%d", r.Count, MaxForkCount)
	}
	return nil
}

// ForkResult is the answer to POST /v1/sessions/{id}/fork: the new
// sessions, each with its own id, sandbox, address and agentd token,
// listed and deleted like any session.
type ForkResult struct {
	Sessions []Session `json:"sessions"`
	// CheckpointMS is how long saving the running session took; the
	// session ran on during it.
	CheckpointMS int64 `json:"checkpoint_ms"`
	// SnapshotBytes is the size of the checkpoint the copies were
	// restored from.
	SnapshotBytes int64 `json:"snapshot_bytes"`
}
