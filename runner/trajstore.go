package runner

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// DefaultTrajectoryTotal bounds the trajectories of a directory together
// when Config.TrajectoryTotal is zero.
const DefaultTrajectoryTotal = 4 << 30

// trajStore bounds the bytes the trajectories of one directory take
// together, those of earlier servers included. Its policy: when a line
// or screenshot would take the directory past its total, the
// trajectories of ended sessions are removed, oldest first, until it
// fits; when the sessions still running alone fill the total, the
// session writing is cut (its last line says the total was reached). A
// nil *trajStore bounds nothing. Safe for concurrent use.
type trajStore struct {
	dir   string
	limit int64
	// onRemove, when set, is told of each ended trajectory removed.
	onRemove func(session string, bytes int64)

	mu    sync.Mutex
	used  int64
	ended []endedTraj // oldest first
}

type endedTraj struct {
	session string
	bytes   int64
}

// newTrajStore counts what dir already holds: the <session>.jsonl files
// and their <session>/ screenshot folders, as trajectories of ended
// sessions ordered by the time they were last written.
func newTrajStore(dir string, limit int64) (*trajStore, error) {
	if limit < 0 {
		return nil, nil
	}
	if limit == 0 {
		limit = DefaultTrajectoryTotal
	}
	st := &trajStore{dir: dir, limit: limit}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read trajectory directory: %w", err)
	}
	type found struct {
		endedTraj
		mtime int64
	}
	var old []found
	for _, e := range entries {
		session, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		n := info.Size() + dirBytes(filepath.Join(dir, session))
		old = append(old, found{endedTraj{session, n}, info.ModTime().UnixNano()})
		st.used += n
	}
	slices.SortFunc(old, func(a, b found) int { return int(min(max(a.mtime-b.mtime, -1), 1)) })
	for _, f := range old {
		st.ended = append(st.ended, f.endedTraj)
	}
	return st, nil
}

// dirBytes is the size of the regular files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// reserve takes n bytes of the total for a session's line or image,
// removing ended trajectories to make room; false means the sessions
// running fill the total.
func (st *trajStore) reserve(n int64) bool {
	if st == nil {
		return true
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for st.used+n > st.limit && len(st.ended) > 0 {
		e := st.ended[0]
		st.ended = st.ended[1:]
		_ = os.Remove(filepath.Join(st.dir, e.session+".jsonl"))
		_ = os.RemoveAll(filepath.Join(st.dir, e.session))
		st.used -= e.bytes
		if st.onRemove != nil {
			st.onRemove(e.session, e.bytes)
		}
	}
	if st.used+n > st.limit {
		return false
	}
	st.used += n
	return true
}

// end records that a session's trajectory, of bytes, will grow no more:
// it may be removed to make room.
func (st *trajStore) end(session string, bytes int64) {
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = append(st.ended, endedTraj{session, bytes})
}
