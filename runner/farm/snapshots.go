package farm

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
)

// SnapshotCache keeps the set-up desktops of tasks on disk, one folder
// per key, for the runs of this process and later ones: a key names the
// sandboxes' provider, image content and runtime, the screen, the task
// file's SHA-256 and deskrun's executable, so a changed task, image or
// deskrun never restores an old desktop. Its size is bounded: saving an
// entry evicts the entries used longest ago until the cache holds at
// most its bound (the entry just saved is kept even when larger). It is
// safe for concurrent use, and for several processes sharing the folder
// (an entry is written under a temporary name and renamed whole; an
// entry evicted under a reader makes that reader's restore fail, and its
// attempt runs the setup instead).
//
// The folder:
//
//	<key>/entry.json    what was saved: the task, the session, the size
//	<key>/snapshot/     the provider's snapshot
//	.new-<key>-<rand>/  an entry being written
type SnapshotCache struct {
	dir string
	max int64
	mu  sync.Mutex // one eviction at a time in this process
}

// DefaultSnapshotCacheBytes bounds a [SnapshotCache] by default (16 GiB:
// about a hundred set-up desktops of the osworld image).
const DefaultSnapshotCacheBytes = 16 << 30

// DefaultSnapshotCacheDir is the cache's folder by default:
// deskrun/snapshots in the user's cache folder ($XDG_CACHE_HOME, else
// ~/.cache).
func DefaultSnapshotCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("snapshot cache: %w", err)
	}
	return filepath.Join(dir, "deskrun", "snapshots"), nil
}

// OpenSnapshotCache opens the cache in dir, bounded to maxBytes (0:
// [DefaultSnapshotCacheBytes]). The folder is made when the first entry
// is saved, readable by its owner only (a snapshot holds a sandbox's
// memory).
func OpenSnapshotCache(dir string, maxBytes int64) (*SnapshotCache, error) {
	if dir == "" {
		return nil, errdefs.ErrInvalidArgument.WithMessage("snapshot cache: no folder given")
	}
	if maxBytes < 0 {
		return nil, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("snapshot cache: size bound %d is negative", maxBytes))
	}
	return &SnapshotCache{dir: dir, max: cmp.Or(maxBytes, DefaultSnapshotCacheBytes)}, nil
}

// Dir is the cache's folder.
func (c *SnapshotCache) Dir() string { return c.dir }

// cacheEntry is an entry's entry.json.
type cacheEntry struct {
	Key        string       `json:"key"`
	Task       string       `json:"task"`
	TaskSHA256 string       `json:"task_sha256"`
	Saved      runner.Saved `json:"saved"`
	Bytes      int64        `json:"bytes"`
	Created    time.Time    `json:"created"`
}

const (
	entryFile   = "entry.json"
	snapshotDir = "snapshot"
	newPrefix   = ".new-"
)

// get returns the entry of key, marking it used now.
func (c *SnapshotCache) get(key string) (runner.Saved, bool) {
	dir := filepath.Join(c.dir, key)
	b, err := os.ReadFile(filepath.Join(dir, entryFile))
	if err != nil {
		return runner.Saved{}, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Key != key {
		return runner.Saved{}, false
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, entryFile), now, now)
	e.Saved.Snapshot.Dir = filepath.Join(dir, snapshotDir)
	return e.Saved, true
}

// put saves an entry for key with save, which writes the snapshot into
// the folder it is given, then evicts what the bound asks.
func (c *SnapshotCache) put(key string, t *task.Task, save func(dir string) (runner.Saved, error)) error {
	tmp := filepath.Join(c.dir, newPrefix+key+"-"+rand.Text()[:8])
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("snapshot cache: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("snapshot cache: %w", err)
	}
	saved, err := save(filepath.Join(tmp, snapshotDir))
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	e := cacheEntry{Key: key, Task: t.ID, TaskSHA256: t.SHA256, Saved: saved, Bytes: saved.Snapshot.Bytes, Created: time.Now().UTC()}
	e.Saved.Snapshot.Dir = ""
	b, err := json.MarshalIndent(e, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, entryFile), b, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(c.dir, key))
	}
	if err != nil {
		os.RemoveAll(tmp)
		if errors.Is(err, fs.ErrExist) || errors.Is(err, syscall.ENOTEMPTY) {
			return nil // another process saved the same desktop first
		}
		return fmt.Errorf("snapshot cache: %w", err)
	}
	c.evict(key)
	return nil
}

// remove removes key's entry.
func (c *SnapshotCache) remove(key string) {
	_ = os.RemoveAll(filepath.Join(c.dir, key))
}

// Usage counts the cache's entries and their bytes.
func (c *SnapshotCache) Usage() (entries int, bytes int64) {
	for _, e := range c.entries() {
		entries++
		bytes += e.bytes
	}
	return entries, bytes
}

type cacheUse struct {
	key   string
	bytes int64
	used  time.Time
}

// entries lists the cache's entries; a folder being written and left
// for an hour (its writer died) is removed.
func (c *SnapshotCache) entries() []cacheUse {
	des, _ := os.ReadDir(c.dir)
	var out []cacheUse
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, newPrefix) {
			if info, err := de.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.RemoveAll(filepath.Join(c.dir, name))
			}
			continue
		}
		path := filepath.Join(c.dir, name, entryFile)
		info, err := os.Stat(path)
		if err != nil {
			continue
		}
		var e cacheEntry
		if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &e) != nil {
			continue
		}
		out = append(out, cacheUse{key: name, bytes: e.Bytes, used: info.ModTime()})
	}
	return out
}

// evict removes the entries used longest ago, keep aside, until the
// cache holds at most its bound.
func (c *SnapshotCache) evict(keep string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	es := c.entries()
	var total int64
	for _, e := range es {
		total += e.bytes
	}
	slices.SortFunc(es, func(a, b cacheUse) int { return a.used.Compare(b.used) })
	for _, e := range es {
		if total <= c.max {
			return
		}
		if e.key == keep {
			continue
		}
		c.remove(e.key)
		total -= e.bytes
	}
}

// snapshots is a run's use of its [SnapshotCache]: the keys its trials
// are saving, and what stopped saving.
type snapshots struct {
	cache *SnapshotCache

	mu     sync.Mutex
	basis  string                   // the run's sandboxes' basis, once known
	off    string                   // why no task of the run can be saved, once known
	making map[string]chan struct{} // keys a trial of the run is saving
	failed map[string]string        // keys whose saving failed, and why
}

func newSnapshots(c *SnapshotCache) *snapshots {
	return &snapshots{cache: c, making: map[string]chan struct{}{}, failed: map[string]string{}}
}

// snapPlan is how an attempt gets its set-up desktop: restored from
// saved; or set up, then saved under key (release says how that went);
// or set up alone, for reason.
type snapPlan struct {
	saved   *runner.Saved
	key     string
	release func(error)
	reason  string
}

// done releases the plan's key, saved when err is nil (later calls do
// nothing).
func (p snapPlan) done(err error) {
	if p.release != nil {
		p.release(err)
	}
}

// errNotSaved releases a key whose attempt did not get to save (its
// start or setup failed): another trial may try.
var errNotSaved = errors.New("not saved")

// plan decides how an attempt at t gets its set-up desktop. A trial that
// finds another trial of the run saving t's desktop waits for it.
func (s *snapshots) plan(ctx context.Context, f *farm, t *task.Task) snapPlan {
	none := func(reason string) snapPlan { return snapPlan{reason: reason, release: func(error) {}} }
	if t.SHA256 == "" {
		return none("snapshots: the task has no file to key its snapshot by")
	}
	basis, reason := s.basisOf(ctx, f)
	if reason != "" {
		return none(reason)
	}
	key := snapshotKey(basis, t)
	for {
		if saved, ok := s.cache.get(key); ok {
			return snapPlan{saved: &saved, key: key, release: func(error) {}}
		}
		s.mu.Lock()
		if why, ok := s.failed[key]; ok {
			s.mu.Unlock()
			return none(why)
		}
		if s.off != "" {
			s.mu.Unlock()
			return none(s.off)
		}
		if ch, busy := s.making[key]; busy {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return none("snapshots: " + ctx.Err().Error())
			}
		}
		ch := make(chan struct{})
		s.making[key] = ch
		s.mu.Unlock()
		var once sync.Once
		return snapPlan{key: key, release: func(err error) {
			once.Do(func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				delete(s.making, key)
				switch {
				case err == nil, errors.Is(err, errNotSaved):
				case errdefs.IsNotImplemented(err):
					s.off = "save: " + err.Error()
				default:
					s.failed[key] = "save: " + err.Error()
				}
				close(ch)
			})
		}}
	}
}

// basisOf is what the run's sandboxes' snapshots depend on, asked of
// the Manager once; reason says why there are none.
func (s *snapshots) basisOf(ctx context.Context, f *farm) (basis, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off != "" || s.basis != "" {
		return s.basis, s.off
	}
	cfg := f.cfg
	b, err := cfg.Manager.SnapshotBasis(ctx, api.CreateSessionRequest{
		Provider: cfg.Provider, Image: cfg.Image, Screen: cfg.Screen, Runtime: cfg.Runtime})
	if err != nil {
		if errdefs.IsNotImplemented(err) || errdefs.IsInvalidArgument(err) || errdefs.IsNotFound(err) {
			s.off = "snapshots: " + err.Error()
			return "", s.off
		}
		return "", "snapshots: " + err.Error() // perhaps better on the next attempt
	}
	s.basis = b
	return b, ""
}

// save writes the snapshot of key through save into the cache.
func (s *snapshots) save(ctx context.Context, key string, t *task.Task, save func(dir string) (runner.Saved, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.cache.put(key, t, save)
}

// drop removes key's entry, whose restore failed.
func (s *snapshots) drop(key string) {
	s.cache.remove(key)
}

// snapshotKey names t's set-up desktop on sandboxes of basis: a hash of
// the basis, the task file's SHA-256 and deskrun's build.
func snapshotKey(basis string, t *task.Task) string {
	h := sha256.New()
	fmt.Fprintf(h, "deskrun snapshot 1\n%s\n%s\n%s\n", basis, t.SHA256, buildID())
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// buildID names the deskrun build keying snapshots: the SHA-256 of its
// executable, so that a rebuilt deskrun (its setup steps perhaps
// changed) never restores a desktop an older one set up.
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err == nil {
		var f *os.File
		if f, err = os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err = io.Copy(h, f); err == nil {
				return hex.EncodeToString(h.Sum(nil))
			}
		}
	}
	return "unknown " + rand.Text() // no snapshot of this process is reused
})
