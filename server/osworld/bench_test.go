package osworld_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/server/osworld"
)

// resetTask is an OSWorld-format task of our own whose setup does what
// OSWorld's tasks typically do: put an input file in place, run a
// command, launch an application and bring its window to the front.
const resetTask = `{
  "id": "reset-bench",
  "instruction": "Edit the notes.",
  "config": [
    {"type": "download", "parameters": {"files": [{"url": %q, "path": "/tmp/reset-bench/notes.txt"}]}},
    {"type": "execute", "parameters": {"command": ["sh", "-c", "mkdir -p ~/Desktop && cp /tmp/reset-bench/notes.txt ~/Desktop/"]}},
    {"type": "launch", "parameters": {"command": ["xterm", "-T", "notes"]}},
    {"type": "activate_window", "parameters": {"window_name": "notes"}}
  ],
  "evaluator": {"func": "infeasible"}
}`

// BenchmarkReset measures OSWorld's reset on deskrun with the local
// provider: a fresh session served as OSWorld's VM (session start plus
// the OSWorld server), the task's setup steps, and the first observation
// (GET /screenshot through the OSWorld routes). It reports the median and
// p95 over the resets it makes (-benchtime Nx, at least 10).
func BenchmarkReset(b *testing.B) {
	if testing.Short() {
		b.Skip("needs Xvfb and openbox; skipped in -short mode")
	}
	dir := b.TempDir()
	input := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(input, []byte("a line of notes\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	tk, err := task.Parse(fmt.Appendf(nil, resetTask, "file://"+input), task.FormatJSON)
	if err != nil {
		b.Fatal(err)
	}
	p, err := local.New(agentdtest.Agentd(b), "openbox")
	if err != nil {
		b.Fatal(err)
	}
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		m.Close(ctx)
		p.Close(ctx)
	})
	n := max(b.N, 10)
	var took []time.Duration
	b.ResetTimer()
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		sess, err := m.Create(ctx, api.CreateSessionRequest{Provider: "local", Screen: api.Screen{Width: 1920, Height: 1080}})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := osworld.Start(sess, osworld.Config{})
		if err != nil {
			b.Fatal(err)
		}
		if err := task.Setup(ctx, sess, tk, task.Options{}); err != nil {
			b.Fatal(err)
		}
		resp, err := http.Get("http://" + srv.Addrs().Server + "/screenshot")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("screenshot: %s", resp.Status)
		}
		took = append(took, time.Since(start))
		srv.Close()
		if err := m.Delete(ctx, sess.ID()); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.StopTimer()
	slices.Sort(took)
	p50, p95 := took[len(took)/2], took[min(len(took)-1, (len(took)*95+99)/100-1)]
	b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
	b.ReportMetric(float64(p95.Milliseconds()), "p95-ms")
	b.ReportMetric(0, "ns/op")
	fmt.Fprintf(os.Stderr, "osworld reset (local provider, %d resets): p50 %s, p95 %s, min %s, max %s\n",
		len(took), p50.Round(time.Millisecond), p95.Round(time.Millisecond), took[0].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
}
