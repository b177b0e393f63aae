//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// needSnapshots skips unless the engine has the snapshot runtime
// (scripts/runsc/install.sh, run by scripts/install-deps.sh as root) and
// the test runs as root (the provider runs runsc checkpoint itself).
func needSnapshots(t *testing.T, cli *client.Client) {
	t.Helper()
	info, err := cli.Info(t.Context(), client.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.Info.Runtimes[docker.SnapshotRuntime]; !ok {
		t.Skipf("the engine has no %s runtime (scripts/runsc/install.sh installs it)", docker.SnapshotRuntime)
	}
}

// screenPNG is the screen of the agentd c talks to, decoded.
func screenPNG(t *testing.T, c *agentdclient.Client) image.Image {
	t.Helper()
	shot, err := c.Screenshot(t.Context(), api.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

func snapExec(t *testing.T, c *agentdclient.Client, script string) string {
	t.Helper()
	r, err := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c", script}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("exec %q: %v %+v", script, err, r)
	}
	return r.Stdout
}

// TestSnapshotRestoreIntoNewSandboxes: a running desktop under the
// snapshot runtime, checkpointed while it runs on, restored into two NEW
// sandboxes. Each copy has its own container, address and agentd token
// (the source's token no longer opens it), the source's files and screen
// (pixel for pixel), typed text read back by xdotool's view of the
// focused window and by the file an xterm's shell wrote, the host's
// clock, and random bytes of its own; the source runs on unchanged.
func TestSnapshotRestoreIntoNewSandboxes(t *testing.T) {
	cli := engine(t, desktopImage)
	needSnapshots(t, cli)
	p, owner := newProvider(t, cli, docker.Config{Runtime: docker.SnapshotRuntime})
	src := startSandbox(t, p, sandbox.Spec{Image: desktopImage})
	sc := agentdclient.NewClient(src.AgentURL, src.Token, nil)
	snapExec(t, sc, "xsetroot -solid '#2a7f3c'; echo before-checkpoint > /home/user/marker; head -c 16 /dev/urandom | od -An -tx1 > /tmp/rand")
	want := screenPNG(t, sc)

	dir := filepath.Join(t.TempDir(), "snap")
	snap, err := p.Checkpoint(t.Context(), src.ID, sandbox.CheckpointOptions{Dir: dir, Token: src.Token})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checkpoint %v, %d bytes", snap.Took, snap.Bytes)

	var copies []sandbox.Instance
	for i := range 2 {
		start := time.Now()
		inst, err := p.Restore(t.Context(), snap, sandbox.RestoreOptions{Labels: map[string]string{sandbox.LabelOwner: owner}})
		if inst.ID != "" {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_ = p.Stop(ctx, inst.ID)
			})
		}
		if err != nil {
			t.Fatalf("restore %d: %v", i, err)
		}
		t.Logf("restore %d: %v", i, time.Since(start))
		copies = append(copies, inst)
	}
	seen := map[string]bool{src.ID: true, src.AgentURL: true, src.Token: true}
	for i, inst := range copies {
		for _, v := range []string{inst.ID, inst.AgentURL, inst.Token} {
			if seen[v] {
				t.Errorf("copy %d: %q is not its own (id, address or token repeated)", i, v)
			}
			seen[v] = true
		}
		c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
		old := agentdclient.NewClient(inst.AgentURL, src.Token, nil)
		var re *api.RemoteError
		if _, err := old.Cursor(t.Context()); !errors.As(err, &re) || re.Status != http.StatusUnauthorized {
			t.Errorf("copy %d: the source's token: got %v, want 401", i, err)
		}
		if got := strings.TrimSpace(snapExec(t, c, "cat /home/user/marker")); got != "before-checkpoint" {
			t.Errorf("copy %d: the source's file reads %q", i, got)
		}
		if got := screenPNG(t, c); !samePixels(got, want) {
			t.Errorf("copy %d: the screen differs from the source's at the checkpoint", i)
		}
		// The clock: the host's, not the checkpoint's.
		if got := strings.TrimSpace(snapExec(t, c, "date +%s")); got == "" || absDiff(got, time.Now().Unix()) > 5 {
			t.Errorf("copy %d: clock %s, host %d", i, got, time.Now().Unix())
		}
		// Input reaches the copy's display: typed text read back from
		// an xterm's shell, a program of its own.
		snapExec(t, c, "rm -f /tmp/typed; xterm -e sh -c 'read l; echo \"$l\" > /tmp/typed' & sleep 1.5")
		if _, err := c.Input(t.Context(), []api.Action{{Type: "type", Text: "copy-typed"}, {Type: "key", Keys: []string{"Return"}}}); err != nil {
			t.Fatalf("copy %d: input: %v", i, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			r, _ := c.Exec(t.Context(), api.ExecRequest{Cmd: []string{"cat", "/tmp/typed"}})
			if strings.TrimSpace(r.Stdout) == "copy-typed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("copy %d: typed text not read back: %q", i, r.Stdout)
			}
			time.Sleep(200 * time.Millisecond)
		}
		// Fresh randomness: the kernel's reads differ per copy.
		a := snapExec(t, c, "head -c 16 /dev/urandom | od -An -tx1")
		if seen[a] {
			t.Errorf("copy %d: /dev/urandom repeated %q", i, a)
		}
		seen[a] = true
	}
	// The source runs on, with its own token.
	if _, err := sc.Cursor(t.Context()); err != nil {
		t.Errorf("the source after the checkpoint: %v", err)
	}
}

func absDiff(s string, n int64) int64 {
	var v int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 1 << 62
		}
		v = v*10 + int64(c-'0')
	}
	if v > n {
		return v - n
	}
	return n - v
}

// TestSnapshotPauseResume: a paused sandbox is stopped (its memory
// freed: the engine reports it not running) and resumes into the same
// container with the screen pixel for pixel as it was and a new token.
func TestSnapshotPauseResume(t *testing.T) {
	cli := engine(t, desktopImage)
	needSnapshots(t, cli)
	p, _ := newProvider(t, cli, docker.Config{Runtime: docker.SnapshotRuntime})
	src := startSandbox(t, p, sandbox.Spec{Image: desktopImage})
	sc := agentdclient.NewClient(src.AgentURL, src.Token, nil)
	snapExec(t, sc, "xsetroot -solid '#7a2f9c'; echo paused > /home/user/marker")
	want := screenPNG(t, sc)
	mem, err := memoryUsage(t.Context(), cli, src.ID)
	if err != nil {
		t.Fatal(err)
	}

	snap, err := p.Checkpoint(t.Context(), src.ID, sandbox.CheckpointOptions{Dir: filepath.Join(t.TempDir(), "pause"), Token: src.Token, Stop: true})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cli.ContainerInspect(t.Context(), src.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Container.State.Running {
		t.Fatalf("paused sandbox still running")
	}
	t.Logf("paused: %d bytes on disk, the container held %d bytes of memory and now none (stopped), took %v", snap.Bytes, mem, snap.Took)
	inst, err := p.Restore(t.Context(), snap, sandbox.RestoreOptions{Into: src.ID})
	if err != nil {
		t.Fatal(err)
	}
	if inst.ID != src.ID || inst.Token == src.Token {
		t.Errorf("resume: id %s token new %v, want the same id and a new token", inst.ID, inst.Token != src.Token)
	}
	c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	if got := screenPNG(t, c); !samePixels(got, want) {
		t.Errorf("the screen after resume differs from before pause")
	}
	if got := strings.TrimSpace(snapExec(t, c, "cat /home/user/marker")); got != "paused" {
		t.Errorf("the file after resume reads %q", got)
	}
}
