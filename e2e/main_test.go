//go:build e2e

package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// The sandbox images under test, named as images/build.sh names them
// (DESKRUN_IMAGE_PREFIX, default "deskrun/").
var (
	minimalImage = imagePrefix() + "minimal:latest"
	desktopImage = imagePrefix() + "desktop:latest"
	osworldImage = imagePrefix() + "osworld:latest"
)

func imagePrefix() string {
	if p := os.Getenv("DESKRUN_IMAGE_PREFIX"); p != "" {
		return p
	}
	return "deskrun/"
}

func TestMain(m *testing.M) {
	// The reaper image cannot be pulled without a registry; the tests
	// remove what they start themselves.
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// testcontainers-go takes a /.dockerenv file to mean "inside a
	// container" and then looks for published ports at the default
	// gateway. Machines whose root file system was made from an image have
	// that file too; with a local engine the ports are on this machine's
	// loopback. (Inside a container, set the variable to the right host.)
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" && !strings.HasPrefix(os.Getenv("DOCKER_HOST"), "tcp://") {
		os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "localhost")
	}
	// agentdtest.Main runs the busy children of agentdtest.Spin.
	os.Exit(agentdtest.Main(m))
}

// engine returns a Docker client, skipping the test when no engine
// answers or an image it needs is missing.
func engine(tb testing.TB, images ...string) *client.Client {
	tb.Helper()
	cli, err := client.New(client.FromEnv)
	if err != nil {
		tb.Skipf("docker client: %v", err)
	}
	tb.Cleanup(func() { cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		tb.Skipf("no docker engine: %v", err)
	}
	for _, img := range images {
		if _, err := cli.ImageInspect(ctx, img); err != nil {
			tb.Skipf("image %s missing (run images/build.sh): %v", img, err)
		}
	}
	return cli
}

// newProvider returns a docker provider whose sandboxes carry an owner
// label unique to the test, and reaps them all when the test ends.
func newProvider(tb testing.TB, cli *client.Client, cfg docker.Config) (*docker.Provider, string) {
	tb.Helper()
	owner := "e2e-" + randomHex(tb, 6)
	cfg.Labels = map[string]string{sandbox.LabelOwner: owner}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p := docker.New(cli, cfg)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := p.Reap(ctx, map[string]string{sandbox.LabelOwner: owner}); err != nil {
			tb.Errorf("reap: %v", err)
		}
	})
	return p, owner
}

// startSandbox starts a sandbox and registers its Stop before the caller
// checks anything.
func startSandbox(tb testing.TB, p sandbox.Provider, spec sandbox.Spec) sandbox.Instance {
	tb.Helper()
	inst, err := p.Start(tb.Context(), spec)
	if inst.ID != "" {
		tb.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := p.Stop(ctx, inst.ID); err != nil && !errdefs.IsNotFound(err) {
				tb.Errorf("stop %s: %v", inst.ID, err)
			}
		})
	}
	if err != nil {
		tb.Fatalf("start sandbox: %v", err)
	}
	return inst
}

// execResult is what a command run with docker exec printed.
type execResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// dockerExec runs cmd in container id as user (empty: the container's),
// through the engine, independently of agentd.
func dockerExec(tb testing.TB, cli *client.Client, id, user string, env []string, cmd ...string) execResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), 30*time.Second)
	defer cancel()
	ex, err := cli.ExecCreate(ctx, id, client.ExecCreateOptions{
		User: user, Env: env, Cmd: cmd, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		tb.Fatalf("exec %q: %v", cmd, err)
	}
	att, err := cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		tb.Fatalf("exec %q: attach: %v", cmd, err)
	}
	defer att.Close()
	var out, errOut strings.Builder
	if _, err := stdcopy.StdCopy(&out, &errOut, att.Reader); err != nil && !errors.Is(err, io.EOF) {
		tb.Fatalf("exec %q: read: %v", cmd, err)
	}
	ins, err := cli.ExecInspect(ctx, ex.ID, client.ExecInspectOptions{})
	if err != nil {
		tb.Fatalf("exec %q: inspect: %v", cmd, err)
	}
	return execResult{Stdout: out.String(), Stderr: errOut.String(), ExitCode: ins.ExitCode}
}

// managedContainers lists the containers, running or not, that carry
// owner's label.
func managedContainers(tb testing.TB, cli *client.Client, owner string) []string {
	tb.Helper()
	f := make(client.Filters).Add("label", sandbox.LabelOwner+"="+owner)
	res, err := cli.ContainerList(tb.Context(), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		tb.Fatalf("list containers: %v", err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.ID)
	}
	return ids
}

// runOwner is the owner label deskrun eval gave the sandboxes of the
// run in out (its sandbox-owner file).
func runOwner(tb testing.TB, out string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(out, "sandbox-owner"))
	if err != nil {
		tb.Fatalf("the run's owner label: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func randomHex(tb testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// eventually polls cond every 20ms until it holds or d passes.
func eventually(tb testing.TB, d time.Duration, what string, cond func() error) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within %v: %v", what, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// repoRoot is the repository's top folder.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// buildDeskrun builds a static cmd/deskrun from the current source into
// a temporary folder of tb and returns its path.
func buildDeskrun(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "deskrun")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/deskrun")
	build.Dir = repoRoot()
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("cmd/deskrun does not build: %v\n%s", err, out)
	}
	return bin
}

// osworldManager is a runner manager of docker sessions whose default
// image is the osworld image, closed when the test ends.
func osworldManager(tb testing.TB) *runner.Manager {
	tb.Helper()
	cli := engine(tb, osworldImage)
	p, _ := newProvider(tb, cli, docker.Config{})
	return managerOf(tb, p)
}

// managerOf is a runner manager of p's sessions as provider "docker",
// the osworld image its default, closed when the test ends.
func managerOf(tb testing.TB, p sandbox.Provider) *runner.Manager {
	tb.Helper()
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"docker": p}, DefaultImage: osworldImage, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		m.Close(ctx)
	})
	return m
}
