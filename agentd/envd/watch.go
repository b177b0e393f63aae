package envd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/agentd/internal/sandboxfs"
	pb "github.com/deskrun/deskrun/api/e2b/envd/filesystem"
	"golang.org/x/sys/unix"
)

// maxPolled bounds the events a polled watcher keeps between two reads;
// older ones are dropped.
const maxPolled = 10_000

// watchMask is what a watch reports: entries made, written, removed,
// moved, their attributes changed.
const watchMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_DELETE | unix.IN_MOVED_FROM |
	unix.IN_MOVED_TO | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// watch is one inotify instance watching a folder (and, recursive, the
// folders below it), handing its events to emit.
type watch struct {
	root         string
	recursive    bool
	includeEntry bool
	f            *os.File
	emit         func(*pb.FilesystemEvent)

	mu   sync.Mutex
	dirs map[int32]string // watch descriptor -> folder
	done chan struct{}
}

// startWatch watches root, a folder, until close.
func startWatch(root string, recursive, includeEntry bool, emit func(*pb.FilesystemEvent)) (*watch, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, sandboxfs.Classify(root, err)
	}
	if !st.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path: %s is not a directory", root))
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	w := &watch{root: root, recursive: recursive, includeEntry: includeEntry,
		f: os.NewFile(uintptr(fd), "inotify"), emit: emit, dirs: map[int32]string{}, done: make(chan struct{})}
	if err := w.add(root); err != nil {
		w.f.Close()
		return nil, sandboxfs.Classify(root, err)
	}
	if recursive {
		w.addBelow(root)
	}
	go w.read()
	return w, nil
}

func (w *watch) add(dir string) error {
	rc, err := w.f.SyscallConn()
	if err != nil {
		return err
	}
	var wd int
	var addErr error
	if err := rc.Control(func(fd uintptr) {
		wd, addErr = unix.InotifyAddWatch(int(fd), dir, watchMask)
	}); err != nil {
		return err
	}
	if addErr != nil {
		return addErr
	}
	w.mu.Lock()
	w.dirs[int32(wd)] = dir
	w.mu.Unlock()
	return nil
}

// addBelow watches the folders below dir (not following links).
func (w *watch) addBelow(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			w.add(p)
		}
		return nil
	})
}

func (w *watch) close() {
	w.f.Close()
	<-w.done
}

// read turns inotify's records into events until the watch closes.
func (w *watch) read() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := string(buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)])
			off += unix.SizeofInotifyEvent + int(raw.Len)
			w.handle(raw.Wd, raw.Mask, strings.TrimRight(name, "\x00"))
		}
	}
}

func (w *watch) handle(wd int32, mask uint32, name string) {
	w.mu.Lock()
	dir, ok := w.dirs[wd]
	if mask&unix.IN_IGNORED != 0 {
		delete(w.dirs, wd)
	}
	w.mu.Unlock()
	if !ok || mask&unix.IN_IGNORED != 0 {
		return
	}
	full := dir
	if name != "" {
		full = filepath.Join(dir, name)
	}
	if w.recursive && mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		w.add(full)
		w.addBelow(full)
	}
	var t pb.EventType
	switch {
	case mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		t = pb.EventType_EVENT_TYPE_CREATE
	case mask&unix.IN_MODIFY != 0:
		t = pb.EventType_EVENT_TYPE_WRITE
	case mask&(unix.IN_DELETE|unix.IN_DELETE_SELF) != 0:
		t = pb.EventType_EVENT_TYPE_REMOVE
	case mask&(unix.IN_MOVED_FROM|unix.IN_MOVE_SELF) != 0:
		t = pb.EventType_EVENT_TYPE_RENAME
	case mask&unix.IN_ATTRIB != 0:
		t = pb.EventType_EVENT_TYPE_CHMOD
	default:
		return
	}
	rel, err := filepath.Rel(w.root, full)
	if err != nil {
		rel = full
	}
	ev := &pb.FilesystemEvent{Name: rel, Type: t}
	if w.includeEntry && t != pb.EventType_EVENT_TYPE_REMOVE && t != pb.EventType_EVENT_TYPE_RENAME {
		if e, err := entryInfo(full); err == nil {
			ev.Entry = e
		}
	}
	w.emit(ev)
}

// watchers are the polled watchers (CreateWatcher), by id.
type watchers struct {
	mu   sync.Mutex
	byID map[string]*polled
}

type polled struct {
	w      *watch
	mu     sync.Mutex
	events []*pb.FilesystemEvent
}

func newWatchers() *watchers { return &watchers{byID: map[string]*polled{}} }

func (ws *watchers) closeAll() {
	ws.mu.Lock()
	all := ws.byID
	ws.byID = map[string]*polled{}
	ws.mu.Unlock()
	for _, p := range all {
		p.w.close()
	}
}

func (fs *filesystemService) watchRoot(h interface{ Get(string) string }, path string) (string, error) {
	a, err := fs.actor(h)
	if err != nil {
		return "", err
	}
	return a.resolve("path", path)
}

func (fs *filesystemService) WatchDir(ctx context.Context, req *connect.Request[pb.WatchDirRequest], stream *connect.ServerStream[pb.WatchDirResponse]) error {
	root, err := fs.watchRoot(req.Header(), req.Msg.GetPath())
	if err != nil {
		return connectErr(err)
	}
	events := make(chan *pb.FilesystemEvent, subBuffer)
	stop := make(chan struct{})
	w, err := startWatch(root, req.Msg.GetRecursive(), req.Msg.GetIncludeEntry(), func(ev *pb.FilesystemEvent) {
		select {
		case events <- ev:
		case <-stop:
		}
	})
	if err != nil {
		return connectErr(err)
	}
	defer func() {
		close(stop)
		w.close()
	}()
	if err := stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Start{Start: &pb.WatchDirResponse_StartEvent{}}}); err != nil {
		return err
	}
	interval := keepaliveOf(req.Header())
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case ev := <-events:
			if err := stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Filesystem{Filesystem: ev}}); err != nil {
				return err
			}
			t.Reset(interval)
		case <-t.C:
			if err := stream.Send(&pb.WatchDirResponse{Event: &pb.WatchDirResponse_Keepalive{Keepalive: &pb.WatchDirResponse_KeepAlive{}}}); err != nil {
				return err
			}
		case <-ctx.Done():
			return connectErr(ctx.Err())
		}
	}
}

func (fs *filesystemService) CreateWatcher(ctx context.Context, req *connect.Request[pb.CreateWatcherRequest]) (*connect.Response[pb.CreateWatcherResponse], error) {
	root, err := fs.watchRoot(req.Header(), req.Msg.GetPath())
	if err != nil {
		return nil, connectErr(err)
	}
	p := &polled{}
	w, err := startWatch(root, req.Msg.GetRecursive(), req.Msg.GetIncludeEntry(), func(ev *pb.FilesystemEvent) {
		p.mu.Lock()
		if len(p.events) >= maxPolled {
			p.events = p.events[1:]
		}
		p.events = append(p.events, ev)
		p.mu.Unlock()
	})
	if err != nil {
		return nil, connectErr(err)
	}
	p.w = w
	b := make([]byte, 8)
	rand.Read(b)
	id := hex.EncodeToString(b)
	ws := fs.s.watchers
	ws.mu.Lock()
	ws.byID[id] = p
	ws.mu.Unlock()
	return connect.NewResponse(&pb.CreateWatcherResponse{WatcherId: id}), nil
}

func (ws *watchers) get(id string) (*polled, error) {
	if id == "" {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("watcher_id: required"))
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	p := ws.byID[id]
	if p == nil {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("watcher_id: no watcher %q", id))
	}
	return p, nil
}

func (fs *filesystemService) GetWatcherEvents(ctx context.Context, req *connect.Request[pb.GetWatcherEventsRequest]) (*connect.Response[pb.GetWatcherEventsResponse], error) {
	p, err := fs.s.watchers.get(req.Msg.GetWatcherId())
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	events := p.events
	p.events = nil
	p.mu.Unlock()
	return connect.NewResponse(&pb.GetWatcherEventsResponse{Events: events}), nil
}

func (fs *filesystemService) RemoveWatcher(ctx context.Context, req *connect.Request[pb.RemoveWatcherRequest]) (*connect.Response[pb.RemoveWatcherResponse], error) {
	ws := fs.s.watchers
	p, err := ws.get(req.Msg.GetWatcherId())
	if err != nil {
		return nil, err
	}
	ws.mu.Lock()
	delete(ws.byID, req.Msg.GetWatcherId())
	ws.mu.Unlock()
	p.w.close()
	return connect.NewResponse(&pb.RemoveWatcherResponse{}), nil
}
