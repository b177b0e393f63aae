//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/internal/soak"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// killInside sends SIGKILL to the processes named name in container id,
// as the desktop's user, who owns them.
func killInside(ctx context.Context, cli *client.Client, id, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ex, err := cli.ExecCreate(ctx, id, client.ExecCreateOptions{
		User: "user", Cmd: []string{"pkill", "-KILL", "-x", name}, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return err
	}
	att, err := cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return err
	}
	defer att.Close()
	var out strings.Builder
	if _, err := stdcopy.StdCopy(&out, &out, att.Reader); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	ins, err := cli.ExecInspect(ctx, ex.ID, client.ExecInspectOptions{})
	if err != nil {
		return err
	}
	// pkill answers 0 for a process signalled; killing agentd ends the
	// container, which may end the exec with it.
	if ins.ExitCode != 0 && name != "agentd" {
		return fmt.Errorf("pkill %s: exit %d %s", name, ins.ExitCode, out.String())
	}
	return nil
}

// dockerFaults are the faults on containers: agentd killed (the
// container ends with it), Xvfb killed (agentd starts another), the
// container paused then unpaused, the container killed.
func dockerFaults(cli *client.Client) []soak.Fault {
	return []soak.Fault{
		{Name: "kill agentd", Inject: func(ctx context.Context, s api.Session) (func() error, error) {
			return nil, killInside(ctx, cli, s.SandboxID, "agentd")
		}},
		{Name: "kill Xvfb", Recovers: true, Inject: func(ctx context.Context, s api.Session) (func() error, error) {
			return nil, killInside(ctx, cli, s.SandboxID, "Xvfb")
		}},
		{Name: "pause", Pauses: true, Inject: func(ctx context.Context, s api.Session) (func() error, error) {
			_, err := cli.ContainerPause(ctx, s.SandboxID, client.ContainerPauseOptions{})
			return func() error {
				_, err := cli.ContainerUnpause(context.Background(), s.SandboxID, client.ContainerUnpauseOptions{})
				return err
			}, err
		}},
		{Name: "kill container", Inject: func(ctx context.Context, s api.Session) (func() error, error) {
			_, err := cli.ContainerKill(ctx, s.SandboxID, client.ContainerKillOptions{Signal: "KILL"})
			return nil, err
		}},
	}
}

// networks lists the engine's networks by name.
func networks(t *testing.T, cli *client.Client) []string {
	t.Helper()
	res, err := cli.NetworkList(context.WithoutCancel(t.Context()), client.NetworkListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range res.Items {
		names = append(names, n.Name)
	}
	return names
}

// TestSoakDocker is cmd/deskrun's TestSoak on Docker: deskrun serve with
// the docker provider holds 16 sandboxes under load for 45 s
// ($DESKRUN_SOAK for longer; make soak PROVIDER=docker) with task suite
// runs beside them, while agentd or Xvfb inside a sandbox or the whole
// container is killed, or a container paused, at random every few
// seconds (package internal/soak says what is checked). After it the
// server stops cleanly and leaves no container and no network of its
// own.
func TestSoakDocker(t *testing.T) {
	cli := engine(t, minimalImage)
	d := 45 * time.Second
	if v := os.Getenv("DESKRUN_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d < 30*time.Second {
			t.Fatalf("DESKRUN_SOAK=%q: want a duration of at least 30s", v)
		}
	}
	bin := buildDeskrun(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	owner := "e2e-soak-" + randomHex(t, 6)
	before := networks(t, cli)
	const callTimeout = 10 * time.Second
	cmd := exec.Command(bin, "serve", "--addr", addr, "--provider", "docker", "--image", minimalImage, "--owner", owner,
		"--call-timeout", callTimeout.String(), "--runs", filepath.Join(t.TempDir(), "runs"), "--log-level", "error")
	cmd.Env = append(os.Environ(), "DESKRUN_TOKEN=soak")
	var logged strings.Builder
	cmd.Stdout, cmd.Stderr = t.Output(), &logged
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { // after a failure: what the server left
		_ = cmd.Process.Kill()
		f := make(client.Filters).Add("label", sandbox.LabelOwner+"="+owner)
		if res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: f}); err == nil {
			for _, c := range res.Items {
				_, _ = cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true})
			}
		}
	})
	url := "http://" + addr
	eventually(t, 30*time.Second, "deskrun serve healthy", func() error {
		resp, err := http.Get(url + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})

	faultEvery, pause := 3*time.Second, [2]time.Duration{3 * time.Second, 12 * time.Second}
	if d > 2*time.Minute {
		faultEvery, pause = 5*time.Second, [2]time.Duration{3 * time.Second, 20 * time.Second}
	}
	rep, err := soak.Run(t.Context(), soak.Config{
		URL: url, Token: "soak", Sessions: 16, Duration: d,
		Create:      api.CreateSessionRequest{Provider: "docker", Image: minimalImage, Screen: api.Screen{Width: 1024, Height: 768}},
		CallTimeout: callTimeout, FaultEvery: faultEvery, Pause: pause, Faults: dockerFaults(cli),
		Tasks: filepath.Join(repoRoot(), "tasks", "files"), RunOnly: []string{"files-copy-notes", "files-move-todo"},
		Logf: t.Logf,
		Seed: uint64(time.Now().UnixNano()),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("soak of %v on docker: %v", d, rep)
	for _, p := range rep.Problems {
		t.Error(p)
	}
	if rep.Runs == 0 {
		t.Error("no task suite run finished during the soak")
	}

	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("deskrun serve after SIGTERM: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("deskrun serve did not end within a minute of SIGTERM")
	}
	if s := logged.String(); s != "" {
		t.Errorf("deskrun serve logged errors:\n%s", s)
	}
	if left := managedContainers(t, cli, owner); len(left) > 0 {
		t.Errorf("containers left: %v", left)
	}
	// The provider's two networks stay, for the next server; no other.
	for _, n := range networks(t, cli) {
		if !slices.Contains(before, n) && n != docker.DefaultNetwork && n != docker.DefaultEgressNetwork {
			t.Errorf("network %s left", n)
		}
	}
}
