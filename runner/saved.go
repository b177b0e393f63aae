package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// Saved is a session saved whole by [Manager.Save]: its sandbox's
// snapshot and the session it was. [Manager.CreateFrom] starts sessions
// from it, in this process or in a later one (it is plain data, kept as
// JSON beside the snapshot's folder by whoever keeps it).
type Saved struct {
	Snapshot sandbox.Snapshot `json:"snapshot"`
	Session  api.Session      `json:"session"`
}

// SnapshotBasis names what a snapshot of a session of req depends on:
// the provider, what its [sandbox.Snapshotter.Basis] answers (the
// image's content and the runtime) and the screen. A key made of it and
// of what was done in the session after its start names one saved
// desktop. A provider or runtime that cannot save sessions answers an
// error for which errdefs.IsNotImplemented holds, naming what can; a bad
// request one of class errdefs.ErrInvalidArgument naming the field.
func (m *Manager) SnapshotBasis(ctx context.Context, req api.CreateSessionRequest) (string, error) {
	prov, scr, _, err := m.validate(req)
	if err != nil {
		return "", err
	}
	image := req.Image
	if image == "" && prov != "local" {
		image = m.cfg.DefaultImage
	}
	basis, err := sandbox.Basis(ctx, m.cfg.Providers[prov], sandbox.Spec{Image: image, Screen: scr, Runtime: req.Runtime})
	if err != nil {
		return "", fmt.Errorf("provider %s: %w", prov, err)
	}
	return fmt.Sprintf("%s %s %dx%d", prov, basis, scr.Width, scr.Height), nil
}

// Save checkpoints session id into dir, a folder that must not exist yet,
// while the session runs on: what [Manager.Fork] does before its copies,
// kept for later. A provider that cannot save the session answers an
// error for which errdefs.IsNotImplemented holds, naming what can.
func (m *Manager) Save(ctx context.Context, id, dir string) (Saved, error) {
	s, err := m.Get(id)
	if err != nil {
		return Saved{}, err
	}
	if err := s.live(); err != nil {
		return Saved{}, err
	}
	start := time.Now()
	snap, err := sandbox.Checkpoint(ctx, s.prov, s.inst.ID, sandbox.CheckpointOptions{Dir: dir, Token: s.client.Token()})
	if err != nil {
		return Saved{}, fmt.Errorf("save session %q: %w", id, err)
	}
	s.log.InfoContext(ctx, "session saved", "took", time.Since(start).Round(time.Millisecond), "bytes", snap.Bytes)
	s.record(ctx, "save", nil, map[string]int64{"bytes": snap.Bytes}, nil, start, nil)
	return Saved{Snapshot: snap, Session: s.Info()}, nil
}

// CreateFrom starts a new session from saved, as the session it was
// (provider, image, screen, dialect, runtime) with labels set over its
// labels, and returns once its agentd answers with a token of its own.
// The saved session need not exist any more; saved's provider must be
// one of the Manager's (else errdefs.ErrInvalidArgument naming
// "provider"). The new session is not recorded. On error no sandbox is
// left running.
func (m *Manager) CreateFrom(ctx context.Context, saved Saved, labels map[string]string) (*Session, error) {
	p, ok := m.cfg.Providers[saved.Session.Provider]
	if !ok {
		return nil, invalid("provider: unknown provider %q of a saved session", saved.Session.Provider)
	}
	if m.isClosed() {
		return nil, errdefs.ErrUnavailable.WithMessage("the server is shutting down")
	}
	s, err := m.adoptRestored(ctx, p, saved.Session, saved.Snapshot, labels)
	if err != nil {
		return nil, fmt.Errorf("provider %s: restore session %q: %w", saved.Session.Provider, saved.Session.ID, err)
	}
	return s, nil
}
