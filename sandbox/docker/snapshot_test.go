package docker

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/sandbox"
)

// TestCheckpointRefusals: what Checkpoint refuses before it runs
// anything: a sandbox under another runtime (501 naming runsc-snap), an
// unknown id, no folder, a folder that exists; and the runtime's
// wrapper gets the engine's state folder, the image folder and
// --leave-running for a fork, not for a pause.
func TestCheckpointRefusals(t *testing.T) {
	p, _, _ := newTestProvider(t, Config{RuntimeRoot: "/state"}, nil)
	var calls [][]string
	p.runscFunc = func(_ context.Context, args ...string) error {
		calls = append(calls, args)
		return nil
	}
	runc, err := p.Start(t.Context(), sandbox.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snap")
	if _, err := p.Checkpoint(t.Context(), runc.ID, sandbox.CheckpointOptions{Dir: dir}); !errdefs.IsNotImplemented(err) || !strings.Contains(err.Error(), SnapshotRuntime) {
		t.Errorf("a runc sandbox: got %v, want not implemented naming %s", err, SnapshotRuntime)
	}
	if _, err := p.Checkpoint(t.Context(), "nope", sandbox.CheckpointOptions{Dir: dir}); !errdefs.IsNotFound(err) {
		t.Errorf("an unknown id: got %v, want not found", err)
	}
	snap, err := p.Start(t.Context(), sandbox.Spec{Runtime: SnapshotRuntime})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Checkpoint(t.Context(), snap.ID, sandbox.CheckpointOptions{}); !errdefs.IsInvalidArgument(err) {
		t.Errorf("no folder: got %v, want invalid argument", err)
	}
	for _, stop := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "snap")
		_, err := p.Checkpoint(t.Context(), snap.ID, sandbox.CheckpointOptions{Dir: dir, Token: snap.Token, Stop: stop})
		if err != nil {
			t.Fatalf("checkpoint (stop %v): %v", stop, err)
		}
		last := strings.Join(calls[len(calls)-1], " ")
		want := "--root /state checkpoint --image-path " + filepath.Join(dir, "image")
		if !strings.HasPrefix(last, want) || strings.Contains(last, "--leave-running") == stop {
			t.Errorf("stop %v: the wrapper ran %q", stop, last)
		}
		if fi, err := os.Stat(filepath.Join(dir, metaFile)); err != nil || fi.Mode().Perm() != filePerm {
			t.Errorf("the snapshot's %s: %v %v, want mode %o", metaFile, fi, err, filePerm)
		}
		if _, err := p.Checkpoint(t.Context(), snap.ID, sandbox.CheckpointOptions{Dir: dir}); !errdefs.IsAlreadyExists(err) && !errdefs.IsConflict(err) {
			t.Errorf("an existing folder: got %v, want already exists", err)
		}
	}
}
