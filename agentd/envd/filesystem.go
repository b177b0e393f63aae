package envd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/agentd/internal/sandboxfs"
	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
	pb "github.com/deskrun/deskrun/api/e2b/envd/filesystem"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// filesystemService is the filesystem.Filesystem service.
type filesystemService struct{ s *Service }

// actor is who a file call acts as.
func (fs *filesystemService) actor(h interface{ Get(string) string }) (actor, error) {
	return fs.s.fileActor(h.Get(envdapi.UserHeader))
}

// entryInfo describes the entry at p (a clean absolute path) as envd
// does: a symbolic link is described by what it points to, with its
// target in symlink_target.
func entryInfo(p string) (*pb.EntryInfo, error) {
	lst, err := os.Lstat(p)
	if err != nil {
		return nil, sandboxfs.Classify(p, err)
	}
	return describe(p, lst), nil
}

// describe is [entryInfo] of an entry already read.
func describe(p string, lst os.FileInfo) *pb.EntryInfo {
	st := lst
	var target *string
	if lst.Mode()&os.ModeSymlink != 0 {
		if t, err := os.Readlink(p); err == nil {
			target = &t
		}
		if s, err := os.Stat(p); err == nil {
			st = s
		}
	}
	e := &pb.EntryInfo{
		Name:          filepath.Base(p),
		Type:          fileType(st),
		Path:          p,
		Size:          st.Size(),
		Mode:          uint32(st.Mode().Perm()),
		Permissions:   st.Mode().String(),
		ModifiedTime:  timestamppb.New(st.ModTime()),
		SymlinkTarget: target,
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		e.Owner = ownerName(sys.Uid)
		e.Group = groupName(sys.Gid)
	}
	return e
}

func fileType(st os.FileInfo) pb.FileType {
	switch {
	case st.IsDir():
		return pb.FileType_FILE_TYPE_DIRECTORY
	case st.Mode()&os.ModeSymlink != 0: // a link that leads nowhere
		return pb.FileType_FILE_TYPE_SYMLINK
	}
	return pb.FileType_FILE_TYPE_FILE
}

func ownerName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return id
}

func groupName(gid uint32) string {
	id := strconv.FormatUint(uint64(gid), 10)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name
	}
	return id
}

func (fs *filesystemService) Stat(ctx context.Context, req *connect.Request[pb.StatRequest]) (*connect.Response[pb.StatResponse], error) {
	a, err := fs.actor(req.Header())
	if err != nil {
		return nil, connectErr(err)
	}
	p, err := a.resolve("path", req.Msg.GetPath())
	if err != nil {
		return nil, connectErr(err)
	}
	e, err := entryInfo(p)
	if err != nil {
		return nil, connectErr(err)
	}
	return connect.NewResponse(&pb.StatResponse{Entry: e}), nil
}

func (fs *filesystemService) MakeDir(ctx context.Context, req *connect.Request[pb.MakeDirRequest]) (*connect.Response[pb.MakeDirResponse], error) {
	a, err := fs.actor(req.Header())
	if err != nil {
		return nil, connectErr(err)
	}
	p, err := a.resolve("path", req.Msg.GetPath())
	if err != nil {
		return nil, connectErr(err)
	}
	if st, err := os.Stat(p); err == nil {
		if st.IsDir() {
			return nil, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("path: the directory %s already exists", p))
		}
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path: %s exists and is not a directory", p))
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return nil, connectErr(sandboxfs.Classify(p, err))
	}
	e, err := entryInfo(p)
	if err != nil {
		return nil, connectErr(err)
	}
	return connect.NewResponse(&pb.MakeDirResponse{Entry: e}), nil
}

func (fs *filesystemService) Move(ctx context.Context, req *connect.Request[pb.MoveRequest]) (*connect.Response[pb.MoveResponse], error) {
	a, err := fs.actor(req.Header())
	if err != nil {
		return nil, connectErr(err)
	}
	src, err := a.resolve("source", req.Msg.GetSource())
	if err != nil {
		return nil, connectErr(err)
	}
	dst, err := a.resolve("destination", req.Msg.GetDestination())
	if err != nil {
		return nil, connectErr(err)
	}
	srcSt, err := os.Lstat(src)
	if err != nil {
		return nil, connectErr(sandboxfs.Classify(src, err))
	}
	if dstSt, err := os.Lstat(dst); err == nil && dstSt.IsDir() != srcSt.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("destination: %s cannot be replaced by %s (one is a directory, the other not)", dst, src))
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, connectErr(sandboxfs.Classify(dst, err))
	}
	if err := os.Rename(src, dst); err != nil {
		switch {
		case errors.Is(err, syscall.EXDEV):
			return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("destination: %s is on another file system than %s", dst, src))
		case errors.Is(err, syscall.EEXIST), errors.Is(err, syscall.ENOTEMPTY):
			return nil, connect.NewError(connect.CodeAlreadyExists, fmt.Errorf("destination: %s is a directory that is not empty", dst))
		case errors.Is(err, syscall.EINVAL):
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("destination: %s is inside %s", dst, src))
		}
		return nil, connectErr(sandboxfs.Classify(dst, err))
	}
	e, err := entryInfo(dst)
	if err != nil {
		return nil, connectErr(err)
	}
	return connect.NewResponse(&pb.MoveResponse{Entry: e}), nil
}

func (fs *filesystemService) Remove(ctx context.Context, req *connect.Request[pb.RemoveRequest]) (*connect.Response[pb.RemoveResponse], error) {
	a, err := fs.actor(req.Header())
	if err != nil {
		return nil, connectErr(err)
	}
	p, err := a.resolve("path", req.Msg.GetPath())
	if err != nil {
		return nil, connectErr(err)
	}
	if p == "/" {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("path: / cannot be removed"))
	}
	// As envd: removing what is not there succeeds.
	if err := os.RemoveAll(p); err != nil {
		return nil, connectErr(sandboxfs.Classify(p, err))
	}
	return connect.NewResponse(&pb.RemoveResponse{}), nil
}

// ListDir lists a folder's entries down to depth levels (1, the
// folder's own entries, when unset), following a symbolic link at the
// folder itself but none below it.
func (fs *filesystemService) ListDir(ctx context.Context, req *connect.Request[pb.ListDirRequest]) (*connect.Response[pb.ListDirResponse], error) {
	a, err := fs.actor(req.Header())
	if err != nil {
		return nil, connectErr(err)
	}
	p, err := a.resolve("path", req.Msg.GetPath())
	if err != nil {
		return nil, connectErr(err)
	}
	depth := int(max(req.Msg.GetDepth(), 1))
	root, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, connectErr(sandboxfs.Classify(p, err))
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, connectErr(sandboxfs.Classify(p, err))
	}
	if !st.IsDir() {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("path: %s is not a directory", p))
	}
	res := &pb.ListDirResponse{}
	err = filepath.WalkDir(root, func(q string, d os.DirEntry, err error) error {
		if err != nil {
			if q == root {
				return err
			}
			return nil // an entry that went, or a folder it cannot read
		}
		if q == root {
			return nil
		}
		rel, _ := filepath.Rel(root, q)
		level := strings.Count(rel, string(filepath.Separator)) + 1
		if level > depth {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		// Paths as asked, under p rather than where a link at p leads.
		res.Entries = append(res.Entries, describe(filepath.Join(p, rel), info))
		if d.IsDir() && level == depth {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, connectErr(sandboxfs.Classify(p, err))
	}
	return connect.NewResponse(res), nil
}
