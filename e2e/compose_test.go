//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
)

// composeCommand returns the compose CLI this machine has: the plugin
// (`docker compose`) or the standalone `docker-compose`.
func composeCommand() ([]string, bool) {
	if exec.Command("docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}, true
	}
	if p, err := exec.LookPath("docker-compose"); err == nil && exec.Command(p, "version").Run() == nil {
		return []string{p}, true
	}
	return nil, false
}

// TestCompose brings up docker-compose.yml, creates a session through the
// composed API, takes a screenshot and brings it down again.
func TestCompose(t *testing.T) {
	cli := engine(t, minimalImage)
	compose, ok := composeCommand()
	if !ok {
		t.Skip("neither `docker compose` nor `docker-compose` works here")
	}
	repo := repoRoot()

	// The deskrun image from the current source.
	bin := buildDeskrun(t)
	img := exec.Command(filepath.Join(repo, "images", "build.sh"), "--force", "deskrun")
	img.Env = append(os.Environ(), "DESKRUN="+bin)
	if out, err := img.CombinedOutput(); err != nil {
		t.Fatalf("build the deskrun image: %v\n%s", err, out)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	token := randomHex(t, 16)
	project := "deskrun-e2e-" + randomHex(t, 4)
	run := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, compose[0], append(append(compose[1:], "-p", project, "-f", filepath.Join(repo, "docker-compose.yml")), args...)...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "DESKRUN_TOKEN="+token, "DESKRUN_PORT="+itoa(port))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	label := "e2e-" + randomHex(t, 6)
	reapOnCleanup(t, cli, label)
	t.Cleanup(func() { // registered before up, so a failed up is taken down too
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if out, err := run(ctx, "down", "--volumes", "--remove-orphans", "--timeout", "20"); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
	})
	if out, err := run(t.Context(), "up", "-d", "--no-build"); err != nil {
		t.Fatalf("compose up: %v\n%s", err, out)
	}

	d := &apiDesk{url: "http://127.0.0.1:" + itoa(port), token: token, hc: &http.Client{Timeout: 60 * time.Second}, label: label}
	eventually(t, 60*time.Second, "composed deskrun healthy", func() error {
		resp, err := d.hc.Get(d.url + "/healthz")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	})
	// Without the token the API refuses.
	resp, err := d.hc.Post(d.url+"/v1/sessions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("create session without token: status %d, want 401", resp.StatusCode)
	}

	s := d.open(t, api.Screen{Width: 800, Height: 600})
	img2, err := s.screenshot(t.Context())
	if err != nil {
		t.Fatalf("screenshot through the composed API: %v", err)
	}
	if got := img2.Bounds().Dx(); got != 800 {
		t.Errorf("screenshot width %d, want 800", got)
	}
	if err := d.close(t, s); err != nil {
		t.Errorf("delete session: %v", err)
	}

	// A task run through the composed API: the shipped tasks are mounted
	// at /tasks and the run's results land in the runs volume.
	var r api.Run
	if err := d.call(t.Context(), http.MethodPost, "/v1/runs", api.CreateRunRequest{
		Tasks: "/tasks/files/files-copy-notes.json", Agent: "replay",
	}, &r); err != nil {
		t.Fatalf("start a run: %v", err)
	}
	eventually(t, 2*time.Minute, "run finished", func() error {
		if err := d.call(t.Context(), http.MethodGet, "/v1/runs/"+r.ID, nil, &r); err != nil {
			return err
		}
		if r.Status == api.RunRunning {
			return fmt.Errorf("%d of %d tasks done", r.Done, r.Total)
		}
		return nil
	})
	if r.Status != api.RunFinished || r.Total != 1 || r.Passed != 1 {
		t.Errorf("run: status %s, %d of %d passed (errors %d): %s", r.Status, r.Passed, r.Total, r.Errors, r.Error)
	}
	if left := sandboxesLabelled(t, cli, label); len(left) != 0 {
		t.Errorf("sandboxes left after delete: %q", left)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
