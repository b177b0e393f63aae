package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"golang.org/x/sync/errgroup"
)

// SnapshotDir is the folder of the snapshots forks and pauses take (and
// that callers of [Manager.Save] may use), removed when the Manager closes,
// made on first use (owner only: a snapshot holds the sandbox's memory).
func (m *Manager) SnapshotDir() (string, error) {
	m.snapMu.Lock()
	defer m.snapMu.Unlock()
	if m.snapDir == "" {
		dir, err := os.MkdirTemp("", "deskrun-snapshots-")
		if err != nil {
			return "", fmt.Errorf("runner: make snapshot folder: %w", err)
		}
		m.snapDir = dir
	}
	return m.snapDir, nil
}

// removeSnapshots removes the snapshot folder, once the Manager is done.
func (m *Manager) removeSnapshots() {
	m.snapMu.Lock()
	defer m.snapMu.Unlock()
	if m.snapDir != "" {
		os.RemoveAll(m.snapDir)
		m.snapDir = ""
	}
}

// noSnapshots is the error of a session whose provider cannot snapshot.
func noSnapshots(s *Session) error {
	return fmt.Errorf("session %q (provider %s, runtime %q): %w", s.info.ID, s.info.Provider, s.info.Runtime, sandbox.ErrNoSnapshots)
}

// Fork makes count new sessions from session id's current state: its
// sandbox is checkpointed while it runs on, and each copy is restored
// into a sandbox of its own (own id, address, agentd token), listed and
// deleted like any session. A count out of 1..[api.MaxForkCount] is
// errdefs.ErrInvalidArgument naming "count"; a provider that cannot
// snapshot answers errdefs.ErrNotImplemented naming the one that can.
// On error no copy is left running.
func (m *Manager) Fork(ctx context.Context, id string, req api.ForkRequest) (api.ForkResult, error) {
	if err := req.Validate(); err != nil {
		return api.ForkResult{}, err
	}
	src, err := m.Get(id)
	if err != nil {
		return api.ForkResult{}, err
	}
	if _, ok := src.prov.(sandbox.Snapshotter); !ok {
		return api.ForkResult{}, noSnapshots(src)
	}
	if err := src.live(); err != nil {
		return api.ForkResult{}, err
	}
	root, err := m.SnapshotDir()
	if err != nil {
		return api.ForkResult{}, err
	}
	dir := filepath.Join(root, "fork-"+id+"-"+newID())
	defer os.RemoveAll(dir) // the copies hold what they restored
	snap, err := sandbox.Checkpoint(ctx, src.prov, src.inst.ID, sandbox.CheckpointOptions{Dir: dir, Token: src.client.Token()})
	if err != nil {
		return api.ForkResult{}, fmt.Errorf("fork session %q: %w", id, err)
	}
	out := make([]*Session, req.Count)
	g, gctx := errgroup.WithContext(ctx)
	for i := range out {
		g.Go(func() error {
			s, err := m.adoptRestored(gctx, src.prov, src.info, snap, nil)
			out[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		// Undo: no copy outlives a failed fork.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		for _, s := range out {
			if s != nil {
				err = errors.Join(err, m.Delete(cctx, s.info.ID))
			}
		}
		return api.ForkResult{}, fmt.Errorf("fork session %q: %w", id, err)
	}
	res := api.ForkResult{CheckpointMS: snap.Took.Milliseconds(), SnapshotBytes: snap.Bytes}
	for _, s := range out {
		res.Sessions = append(res.Sessions, s.Info())
	}
	src.log.InfoContext(ctx, "session forked", "count", req.Count, "checkpoint", snap.Took.Round(time.Millisecond), "bytes", snap.Bytes)
	return res, nil
}

// adoptRestored restores snap into a new sandbox of prov and makes it
// a session like info (provider, image, screen, dialect, labels, with
// labels' entries set over them), with its own id; info.ID names the
// session it is a fork of.
func (m *Manager) adoptRestored(ctx context.Context, prov sandbox.Provider, info api.Session, snap sandbox.Snapshot, labels map[string]string) (*Session, error) {
	id := newID()
	all := maps.Clone(info.Labels)
	if all == nil {
		all = map[string]string{}
	}
	maps.Copy(all, labels)
	info.Labels = maps.Clone(all)
	all[sandbox.LabelSession] = id
	start := time.Now()
	inst, err := sandbox.Restore(ctx, prov, snap, sandbox.RestoreOptions{Labels: all})
	if err != nil {
		return nil, err
	}
	info.ForkOf = info.ID
	info.ID, info.SandboxID = id, inst.ID
	info.Record, info.RecordingStartedAt = false, time.Time{}
	s := &Session{
		log: m.log.With("session", id), prov: prov, inst: inst, onTool: m.cfg.OnToolCall, callTimeout: m.cfg.CallTimeout,
		client: agentdclient.NewClient(inst.AgentURL, inst.Token, m.cfg.HTTPClient),
		info:   info,
	}
	if m.cfg.TrajectoryDir != "" {
		if s.traj, err = openTrajectory(m.cfg.TrajectoryDir, id, m.cfg.TrajectoryLimit, m.trajStore); err != nil {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			return nil, errors.Join(err, prov.Stop(sctx, inst.ID))
		}
	}
	s.info.CreatedAt = time.Now().UTC()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		s.traj.close()
		return nil, errors.Join(errdefs.ErrUnavailable.WithMessage("the server is shutting down"), prov.Stop(sctx, inst.ID))
	}
	m.sessions[id] = s
	m.mu.Unlock()
	m.watchDeadline(s)
	s.log.InfoContext(ctx, "session restored", "fork_of", info.ForkOf, "sandbox", inst.ID, "took", time.Since(start).Round(time.Millisecond))
	s.record(ctx, "fork", map[string]string{"fork_of": info.ForkOf}, s.info, nil, start, nil)
	return s, nil
}

// Pause saves session id whole to disk and stops its sandbox, freeing
// its memory; until [Manager.Resume] its calls answer
// errdefs.ErrConflict saying so. A session already paused is
// errdefs.ErrConflict; a provider that cannot snapshot answers
// errdefs.ErrNotImplemented naming the one that can.
func (m *Manager) Pause(ctx context.Context, id string) (api.Session, error) {
	s, err := m.Get(id)
	if err != nil {
		return api.Session{}, err
	}
	if _, ok := s.prov.(sandbox.Snapshotter); !ok {
		return api.Session{}, noSnapshots(s)
	}
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	if s.pausedTo.Load() != nil {
		return api.Session{}, errdefs.ErrConflict.WithMessage(fmt.Sprintf("session %q is paused already", id))
	}
	if err := s.live(); err != nil {
		return api.Session{}, err
	}
	root, err := m.SnapshotDir()
	if err != nil {
		return api.Session{}, err
	}
	start := time.Now()
	snap, err := sandbox.Checkpoint(ctx, s.prov, s.inst.ID, sandbox.CheckpointOptions{
		Dir: filepath.Join(root, "pause-"+id+"-"+newID()), Token: s.client.Token(), Stop: true})
	if err != nil {
		return api.Session{}, fmt.Errorf("pause session %q: %w", id, err)
	}
	s.pausedTo.Store(&snap)
	s.log.InfoContext(ctx, "session paused", "took", time.Since(start).Round(time.Millisecond), "bytes", snap.Bytes)
	s.record(ctx, "pause", nil, map[string]int64{"bytes": snap.Bytes}, nil, start, nil)
	return s.Info(), nil
}

// Resume restores the paused session id as it was when paused, in its
// own sandbox (same sandbox id, a new agentd token). A session not paused
// is errdefs.ErrConflict.
func (m *Manager) Resume(ctx context.Context, id string) (api.Session, error) {
	s, err := m.Get(id)
	if err != nil {
		return api.Session{}, err
	}
	s.pauseMu.Lock()
	defer s.pauseMu.Unlock()
	snap := s.pausedTo.Load()
	if snap == nil {
		return api.Session{}, errdefs.ErrConflict.WithMessage(fmt.Sprintf("session %q is not paused", id))
	}
	start := time.Now()
	inst, err := sandbox.Restore(ctx, s.prov, *snap, sandbox.RestoreOptions{Into: s.inst.ID})
	if err != nil {
		return api.Session{}, fmt.Errorf("resume session %q: %w", id, err)
	}
	s.client.Rebind(inst.AgentURL, inst.Token)
	s.pausedTo.Store(nil)
	os.RemoveAll(snap.Dir)
	s.log.InfoContext(ctx, "session resumed", "took", time.Since(start).Round(time.Millisecond))
	s.record(ctx, "resume", nil, nil, nil, start, nil)
	return s.Info(), nil
}
