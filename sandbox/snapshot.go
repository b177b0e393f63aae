package sandbox

import (
	"context"
	"time"

	"github.com/containerd/errdefs"
)

// Snapshotter is implemented by providers that can save a running sandbox
// whole (its processes, their memory, the files they wrote) and start
// sandboxes from what they saved: a fork of a running desktop, a task's
// set-up desktop restored for every trial, a session paused to disk.
//
// Every sandbox restored from a snapshot is a sandbox of its own: its own
// id, network address and agentd token. The token agentd held when the
// snapshot was taken opens a restored copy only until Restore has given
// it its own (agentd's POST /v1/token), before Restore returns.
type Snapshotter interface {
	// Checkpoint saves sandbox id into opts.Dir, which must not exist
	// yet. The sandbox runs on unless opts.Stop is set: then it is
	// stopped once saved, its memory freed, and only [Snapshotter.Restore]
	// with RestoreOptions.Into set to id starts it again. A sandbox the
	// provider cannot save (the wrong runtime) yields an error for which
	// errdefs.IsNotImplemented holds, naming what can; an unknown id one
	// for which errdefs.IsNotFound holds.
	Checkpoint(ctx context.Context, id string, opts CheckpointOptions) (Snapshot, error)

	// Restore starts a sandbox from snap and returns once its agentd
	// answers, with a new token (Instance.Token). If Restore returns an
	// error it has already removed what it created (a stopped sandbox
	// named by Into stays stopped).
	Restore(ctx context.Context, snap Snapshot, opts RestoreOptions) (Instance, error)

	// Basis names what a snapshot of a sandbox started from spec
	// depends on, for keying saved snapshots: the content of its image
	// (not only its name: a rebuilt image makes the old snapshots
	// stale), its runtime and anything else of the provider's. A spec
	// whose sandboxes cannot be saved (the wrong runtime) yields an
	// error for which errdefs.IsNotImplemented holds, naming what can.
	Basis(ctx context.Context, spec Spec) (string, error)
}

// CheckpointOptions says where and how [Snapshotter.Checkpoint] saves.
type CheckpointOptions struct {
	// Dir is the folder the snapshot is written to; required, and it
	// must not exist.
	Dir string
	// Token is the sandbox's current agentd token, kept in the snapshot
	// (readable by its owner only, as the saved memory holding the token
	// is) so that a restore can give each copy a token of its own.
	Token string
	// Stop stops the sandbox once saved (a pause), instead of leaving it
	// running (a fork).
	Stop bool
}

// RestoreOptions describes the sandbox [Snapshotter.Restore] starts.
type RestoreOptions struct {
	// Labels replace the labels the snapshot's sandbox carried (the
	// provider's own are set as in Start).
	Labels map[string]string
	// Into is the id of a sandbox stopped by a checkpoint with Stop,
	// restored in place (a resume): it keeps its id and labels. Empty
	// restores into a new sandbox.
	Into string
}

// Snapshot is a saved sandbox, as [Snapshotter.Checkpoint] made it.
type Snapshot struct {
	// Dir is the folder holding it; removing the folder removes the
	// snapshot.
	Dir string
	// Source is the id of the sandbox it was taken of.
	Source string
	// Image is that sandbox's image.
	Image string
	// Bytes is its size on disk.
	Bytes int64
	// Took is how long saving took.
	Took time.Duration
}

// Checkpoint saves sandbox id of p (see [Snapshotter.Checkpoint]). When p
// cannot, it answers an error for which errdefs.IsNotImplemented holds,
// naming the provider that can.
func Checkpoint(ctx context.Context, p Provider, id string, opts CheckpointOptions) (Snapshot, error) {
	s, ok := p.(Snapshotter)
	if !ok {
		return Snapshot{}, ErrNoSnapshots
	}
	return s.Checkpoint(ctx, id, opts)
}

// Restore starts a sandbox of p from snap (see [Snapshotter.Restore]),
// answering as [Checkpoint] does when p cannot.
func Restore(ctx context.Context, p Provider, snap Snapshot, opts RestoreOptions) (Instance, error) {
	s, ok := p.(Snapshotter)
	if !ok {
		return Instance{}, ErrNoSnapshots
	}
	return s.Restore(ctx, snap, opts)
}

// Basis answers p's [Snapshotter.Basis] for spec, as [Checkpoint] does
// when p cannot.
func Basis(ctx context.Context, p Provider, spec Spec) (string, error) {
	s, ok := p.(Snapshotter)
	if !ok {
		return "", ErrNoSnapshots
	}
	return s.Basis(ctx, spec)
}

// ErrNoSnapshots is the error of a provider without snapshots: of class
// errdefs.ErrNotImplemented, naming the provider and runtime that have
// them.
var ErrNoSnapshots = errdefs.ErrNotImplemented.WithMessage(
	"the sandbox's provider cannot snapshot, fork or pause sandboxes: the docker provider can, with sandboxes under the runsc-snap runtime (deskrun serve --runtime runsc-snap; docs/snapshots.md)")
