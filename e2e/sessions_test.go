//go:build e2e

package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"golang.org/x/sync/errgroup"
)

// TestSessions runs the desktop checks, ten concurrent isolated sessions
// and the fault cases, once straight against agentd and once through the
// host API.
func TestSessions(t *testing.T) {
	cli := engine(t, minimalImage)
	for name, newDesk := range desks(t, cli) {
		t.Run(name, func(t *testing.T) {
			t.Run("desktop", func(t *testing.T) {
				d, _ := newDesk(t)
				screen := api.Screen{Width: 1024, Height: 768}
				s := d.open(t, screen)
				t.Cleanup(func() { d.close(t, s) })
				checkDesktop(t, cli, s, screen)
			})
			t.Run("ten at once", func(t *testing.T) { testTenSessions(t, cli, newDesk) })
			t.Run("faults", func(t *testing.T) { testFaults(t, cli, newDesk) })
		})
	}
}

func testTenSessions(t *testing.T, cli clientT, newDesk func(*testing.T) (desk, string)) {
	const n = 10
	d, label := newDesk(t)
	screen := api.Screen{Width: 800, Height: 600}
	sessions := make([]*session, n)
	var mu sync.Mutex
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range sessions {
			if s != nil {
				d.close(t, s)
			}
		}
	})
	start := time.Now()
	var g errgroup.Group
	for i := range n {
		g.Go(func() error {
			s := d.open(t, screen)
			mu.Lock()
			sessions[i] = s
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d sessions started in %v", n, time.Since(start))

	// Each session, concurrently: its own file, pointer and screenshot.
	for i, s := range sessions {
		g.Go(func() error {
			ctx := t.Context()
			path := fmt.Sprintf("/home/user/Desktop/session-%d.txt", i)
			if err := s.writeFile(ctx, path, []byte(fmt.Sprint(i))); err != nil {
				return fmt.Errorf("session %d: write: %w", i, err)
			}
			pt := api.Point{X: 10 + 50*i, Y: 20 + 40*i}
			if err := s.input(ctx, api.Action{Type: api.ActionMove, X: api.Int(pt.X), Y: api.Int(pt.Y)}); err != nil {
				return fmt.Errorf("session %d: %w", i, err)
			}
			if c, err := s.cursor(ctx); err != nil || c != pt {
				return fmt.Errorf("session %d: cursor %v, %v; want %v", i, c, err, pt)
			}
			if img, err := s.screenshot(ctx); err != nil || img.Bounds().Dx() != screen.Width {
				return fmt.Errorf("session %d: screenshot: %v", i, err)
			}
			// No other session's file, no network, no Docker socket.
			res, err := s.exec(ctx, "sh", "-c", `ls /home/user/Desktop; test -e /var/run/docker.sock && echo docker-socket; timeout 3 getent hosts deb.debian.org && echo dns; true`)
			if err != nil {
				return fmt.Errorf("session %d: exec: %w", i, err)
			}
			if got, want := strings.TrimSpace(res.Stdout), fmt.Sprintf("session-%d.txt", i); got != want {
				return fmt.Errorf("session %d sees %q, want only %q", i, got, want)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Error(err)
	}
	for i, s := range sessions {
		if err := d.close(t, s); err != nil {
			t.Errorf("close session %d: %v", i, err)
		}
	}
	mu.Lock()
	clear(sessions)
	mu.Unlock()
	eventually(t, 30*time.Second, "no sandboxes left", func() error {
		if left := sandboxesLabelled(t, cli, label); len(left) != 0 {
			return fmt.Errorf("left: %q", left)
		}
		return nil
	})
}

func testFaults(t *testing.T, cli clientT, newDesk func(*testing.T) (desk, string)) {
	d, label := newDesk(t)
	screen := api.Screen{Width: 800, Height: 600}
	var sessions []*session
	for range 3 {
		s := d.open(t, screen)
		t.Cleanup(func() { d.close(t, s) })
		sessions = append(sessions, s)
	}
	killed, noX, healthy := sessions[0], sessions[1], sessions[2]

	// A container dies mid-session.
	if _, err := cli.ContainerKill(t.Context(), killed.sandboxID, containerKillOptions("KILL")); err != nil {
		t.Fatal(err)
	}
	// Xvfb dies inside another.
	if r := dockerExec(t, cli, noX.sandboxID, "user", nil, "pkill", "-x", "Xvfb"); r.ExitCode != 0 {
		t.Fatalf("pkill Xvfb: exit %d %s", r.ExitCode, r.Stderr)
	}

	eventually(t, 15*time.Second, "killed container: screenshot fails", func() error {
		_, err := killed.screenshot(t.Context())
		if err == nil {
			return errors.New("screenshot still works")
		}
		t.Logf("killed container: %v", err)
		var he *httpError
		if errors.As(err, &he) && (he.Status < 400 || he.Status == 500 || !strings.Contains(he.Body, `"error"`)) {
			return fmt.Errorf("unclear error: %v", err)
		}
		return nil
	})
	// agentd restarts a dead Xvfb: until it is back, calls fail with a
	// clear error (never a 500); then the session works again.
	eventually(t, 15*time.Second, "killed Xvfb: the desktop comes back", func() error {
		_, err := noX.screenshot(t.Context())
		var he *httpError
		if errors.As(err, &he) && (he.Status == 500 || !strings.Contains(he.Body, `"error"`)) {
			t.Errorf("killed Xvfb: unclear error: %v", err)
			return nil
		}
		return err
	})
	// The others keep working.
	if _, err := healthy.screenshot(t.Context()); err != nil {
		t.Errorf("healthy session: %v", err)
	}
	if err := healthy.input(t.Context(), api.Action{Type: api.ActionMove, X: api.Int(7), Y: api.Int(9)}); err != nil {
		t.Errorf("healthy session: %v", err)
	}
	if ad, ok := d.(*apiDesk); ok {
		resp, err := ad.hc.Get(ad.url + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("server health after faults: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
	}
	for _, s := range sessions {
		d.close(t, s) // errors for the broken ones are fine; nothing may stay behind
	}
	eventually(t, 30*time.Second, "no sandboxes left", func() error {
		if left := sandboxesLabelled(t, cli, label); len(left) != 0 {
			return fmt.Errorf("left: %q", left)
		}
		return nil
	})
}
