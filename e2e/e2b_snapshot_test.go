//go:build e2e

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
)

// TestE2BSnapshotsOnDocker drives E2B's pause, connect, fork and
// snapshots through deskrun serve's E2B front on desktop sandboxes under
// runsc-snap: a paused sandbox is listed as paused and comes back on
// connect (201) with its files and envd token; a snapshot is a template
// new sandboxes start from; a fork of two gives two sandboxes of their
// own with the source's files; deleting the snapshot's template ends it.
func TestE2BSnapshotsOnDocker(t *testing.T) {
	cli := engine(t, desktopImage)
	needSnapshots(t, cli)
	d := serveDeskrun(t, 60*time.Second, 2*time.Minute, "--provider", "docker", "--image", desktopImage, "--runtime", docker.SnapshotRuntime)
	c := &e2btest.Client{Base: d.url + "/e2b", Key: d.token, HTTP: d.hc}
	ctx := t.Context()
	sandboxURL := d.url + "/e2b"
	kill := func(id string) {
		t.Cleanup(func() {
			if err := c.Kill(context.WithoutCancel(ctx), id); err != nil && e2btest.StatusOf(err) != 404 {
				t.Errorf("kill %s: %v", id, err)
			}
		})
	}
	read := func(sb e2btest.Sandbox, path string) string {
		t.Helper()
		b, err := e2btest.NewEnvd(sandboxURL, sb, "user", d.hc).Read(ctx, path)
		if err != nil {
			t.Fatalf("%s: read %s: %v", sb.SandboxID, path, err)
		}
		return string(b)
	}

	src, err := c.Create(ctx, map[string]any{"templateID": "desktop", "timeout": 600, "metadata": map[string]string{"test": t.Name()}})
	if err != nil {
		t.Fatal(err)
	}
	kill(src.SandboxID)
	if err := e2btest.NewEnvd(sandboxURL, src, "user", d.hc).Write(ctx, "/home/user/state", strings.NewReader("before")); err != nil {
		t.Fatal(err)
	}

	// Pause: 204, listed as paused, not as running; connect resumes it.
	if _, err := c.Do(ctx, "POST", "/sandboxes/"+src.SandboxID+"/pause", map[string]any{}, nil, 204); err != nil {
		t.Fatal(err)
	}
	if g, err := c.Get(ctx, src.SandboxID); err != nil || g.State != "paused" {
		t.Errorf("after pause: state %q, %v; want paused", g.State, err)
	}
	if _, err := c.Do(ctx, "POST", "/sandboxes/"+src.SandboxID+"/pause", map[string]any{}, nil, 204); e2btest.StatusOf(err) != 409 {
		t.Errorf("pause of a paused sandbox: %v, want 409", err)
	}
	for q, want := range map[string]int{"state=paused": 1, "state=running": 0} {
		v, _ := url.ParseQuery(q)
		got, _, err := c.List(ctx, map[string]string{"test": t.Name()}, v)
		if err != nil || len(got) != want {
			t.Errorf("list %s: %d sandboxes, %v; want %d", q, len(got), err, want)
		}
	}
	var resumed e2btest.Sandbox
	if _, err := c.Do(ctx, "POST", "/sandboxes/"+src.SandboxID+"/connect", map[string]any{"timeout": 600}, &resumed, 201); err != nil {
		t.Fatalf("connect to the paused sandbox: %v, want 201", err)
	}
	if resumed.State != "running" || resumed.EnvdAccessToken != src.EnvdAccessToken {
		t.Errorf("resumed: state %q, envd token kept %v", resumed.State, resumed.EnvdAccessToken == src.EnvdAccessToken)
	}
	if got := read(src, "/home/user/state"); got != "before" {
		t.Errorf("after resume: the file holds %q", got)
	}

	// A snapshot is a template.
	var info struct {
		SnapshotID string   `json:"snapshotID"`
		Names      []string `json:"names"`
	}
	if _, err := c.Do(ctx, "POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{"name": "saved-state"}, &info, 201); err != nil {
		t.Fatal(err)
	}
	if info.SnapshotID != "saved-state:default" {
		t.Errorf("snapshot: %+v, want saved-state:default", info)
	}
	from, err := c.Create(ctx, map[string]any{"templateID": "saved-state", "timeout": 600})
	if err != nil {
		t.Fatalf("create from the snapshot: %v", err)
	}
	kill(from.SandboxID)
	if from.SandboxID == src.SandboxID || from.EnvdAccessToken == src.EnvdAccessToken {
		t.Errorf("a sandbox from the snapshot shares the source's id or envd token")
	}
	if got := read(from, "/home/user/state"); got != "before" {
		t.Errorf("from the snapshot: the file holds %q", got)
	}

	// Fork: two sandboxes of their own, the source's files, the source
	// unharmed by what they write.
	var forks []struct {
		Sandbox *e2btest.Sandbox `json:"sandbox"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if _, err := c.Do(ctx, "POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 2, "timeout": 600}, &forks, 201); err != nil {
		t.Fatal(err)
	}
	if len(forks) != 2 {
		t.Fatalf("fork of 2: %d entries", len(forks))
	}
	for i, f := range forks {
		if f.Sandbox == nil {
			t.Fatalf("fork %d: %+v", i, f.Error)
		}
		kill(f.Sandbox.SandboxID)
		if got := read(*f.Sandbox, "/home/user/state"); got != "before" {
			t.Errorf("fork %d: the file holds %q", i, got)
		}
		if err := e2btest.NewEnvd(sandboxURL, *f.Sandbox, "user", d.hc).Write(ctx, "/home/user/state", strings.NewReader("fork")); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(src, "/home/user/state"); got != "before" {
		t.Errorf("the source after its forks wrote: %q", got)
	}

	// The snapshot's template, deleted, starts nothing more.
	if _, err := c.Do(ctx, "DELETE", "/templates/saved-state", nil, nil, 204); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, map[string]any{"templateID": "saved-state"}); e2btest.StatusOf(err) != 400 {
		t.Errorf("create from a deleted snapshot: %v, want 400", err)
	}
}
