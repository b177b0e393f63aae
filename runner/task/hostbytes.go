package task

import (
	"fmt"
	"sync"

	"github.com/containerd/errdefs"
)

// DefaultTaskBytes bounds the bytes one task copies to the runner host
// when [Options.HostBytes] is nil: files a getter fetches from the
// sandbox, downloads kept in the cache, command output saved as files.
// OSWorld's largest task files are a few hundred megabytes.
const DefaultTaskBytes = 1 << 30

// HostBytes bounds the bytes tasks copy to the runner host. A bound
// made with a parent counts against it too: a farm gives each attempt
// its own, under one for the whole run. It is safe for concurrent use.
type HostBytes struct {
	parent *HostBytes
	what   string
	mu     sync.Mutex
	used   int64
	limit  int64
}

// NewHostBytes returns a bound of limit bytes under parent (nil for
// none); what names it in errors ("the task", "the run").
func NewHostBytes(limit int64, what string, parent *HostBytes) *HostBytes {
	return &HostBytes{parent: parent, what: what, limit: limit}
}

// Used reports the bytes taken so far.
func (b *HostBytes) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// take counts n bytes of name, or refuses them, taking nothing, when
// this bound or a parent's would be passed; the error is of class
// [errdefs.ErrResourceExhausted] and names the bound.
func (b *HostBytes) take(n int64, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return errdefs.ErrResourceExhausted.WithMessage(fmt.Sprintf("%s: %d bytes would pass the limit of %d bytes %s may copy to the runner host (%d copied)", name, n, b.limit, b.what, b.used))
	}
	if b.parent != nil {
		if err := b.parent.take(n, name); err != nil {
			return err
		}
	}
	b.used += n
	return nil
}
