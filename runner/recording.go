package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
)

// Recordings.
//
// A session created with "record": true has its agentd record the
// desktop from the moment it is created (agentd's POST /v1/recording:
// its own capture piped to ffmpeg, VP8 in WebM). When the session ends,
// before its sandbox stops, the runner stops the video (the file is
// finalized in the sandbox) and copies it to the host: to the path
// [Session.RecordTo] named, else <RecordingDir>/<session>.webm. The
// Manager remembers where, so [Manager.Recording] still finds the video
// of an ended session, until that file is removed (with its run's folder,
// or the Manager's own folder at Close).

// Bounds of the steps of a session's end that save its video. agentd
// waits for its encoder to finish the file as long as the encoder makes
// progress, at most 5 minutes (on a loaded machine the encoder runs far
// behind the screen): the stop is given longer, so the DELETE answers
// with the video whole.
const (
	recordingStopTimeout = 6 * time.Minute
	recordingCopyTimeout = 5 * time.Minute
)

// startRecording starts the session's video; called by Create.
func (s *Session) startRecording(ctx context.Context) error {
	rec, err := s.client.StartRecording(ctx, api.RecordingRequest{})
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	s.info.Record, s.info.RecordingStartedAt = true, rec.StartedAt
	return nil
}

// RecordTo sets the file the session's video is saved to when the
// session ends, in place of the Manager's recording folder; the farm
// points it into the task's folder. It has no effect on a session
// created without "record": true.
func (s *Session) RecordTo(path string) {
	s.mu.Lock()
	s.recordTo = path
	s.mu.Unlock()
}

// videoMS is when t falls in the session's video, in milliseconds from
// its start; nil when the session is not recorded.
func (s *Session) videoMS(t time.Time) *int64 {
	if !s.info.Record {
		return nil
	}
	ms := t.Sub(s.info.RecordingStartedAt).Milliseconds()
	return &ms
}

// saveRecording stops the video and copies it to the host; called by end
// before the sandbox stops. It returns the file's path.
func (s *Session) saveRecording(ctx context.Context) (string, error) {
	if why := s.unreachable.Load(); why != nil {
		// Its agentd does not answer: waiting for it would only delay
		// the stop.
		return "", fmt.Errorf("save recording: the sandbox is unreachable (%s)", *why)
	}
	s.mu.Lock()
	dst := s.recordTo
	s.mu.Unlock()
	if dst == "" {
		dst = filepath.Join(s.recordDir, s.info.ID+api.RecordingExtension)
	}
	sctx, cancel := context.WithTimeout(ctx, recordingStopTimeout)
	rec, err := s.client.StopRecording(sctx)
	cancel()
	if err != nil {
		return "", fmt.Errorf("stop recording: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", fmt.Errorf("save recording: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".recording-*")
	if err != nil {
		return "", fmt.Errorf("save recording: %w", err)
	}
	defer os.Remove(tmp.Name())
	cctx, cancel := context.WithTimeout(ctx, recordingCopyTimeout)
	n, err := s.client.DownloadRecording(cctx, tmp)
	cancel()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("save recording: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", fmt.Errorf("save recording: %w", err)
	}
	s.record(ctx, "recording", nil, map[string]any{"path": dst, "bytes": n, "frames": rec.Frames,
		"duration_ms": rec.DurationMS, "cut": rec.Cut, "error": rec.Error}, nil, time.Now(), nil)
	return dst, nil
}

// Recording answers the video of session id: the file of an ended
// session (path set, live nil), or the live session whose video is under
// way (its [Session.CopyRecording] gives the file as far as written). A
// session created without "record": true, an unknown one and one whose
// file was removed are errdefs.ErrNotFound.
func (m *Manager) Recording(id string) (path string, live *Session, err error) {
	if s, err := m.Get(id); err == nil {
		if !s.info.Record {
			return "", nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session %q is not recorded (create it with \"record\": true)", id))
		}
		return "", s, nil
	}
	m.mu.Lock()
	p, ok := m.recordings[id]
	m.mu.Unlock()
	if !ok {
		return "", nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("session %q not found, nor a recording of it", id))
	}
	if _, err := os.Stat(p); err != nil {
		m.mu.Lock()
		delete(m.recordings, id)
		m.mu.Unlock()
		return "", nil, errdefs.ErrNotFound.WithMessage(fmt.Sprintf("the recording of session %q was removed", id))
	}
	return p, nil, nil
}

// CopyRecording copies the video of a recorded session under way, as far
// as written, to w.
func (s *Session) CopyRecording(ctx context.Context, w io.Writer) (int64, error) {
	if err := s.live(); err != nil {
		return 0, err
	}
	return s.client.DownloadRecording(ctx, w)
}
