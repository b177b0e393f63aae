package client_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
)

// BenchmarkSessionLoop drives DESKRUN_LOOP_SESSIONS sessions (default 16)
// of the server at DESKRUN_URL at once, each DESKRUN_LOOP_ROUNDS rounds
// (default 20) of a pointer move, a screenshot at most 512 pixels wide and
// an exec of echo, and reports the calls per second: the Go side of the
// Python client's throughput comparison (clients/python/bench/overhead.py
// runs both on the same server, rounds alternating). It skips without
// DESKRUN_URL.
func BenchmarkSessionLoop(b *testing.B) {
	url := os.Getenv("DESKRUN_URL")
	if url == "" {
		b.Skip("DESKRUN_URL is not set")
	}
	sessions := envInt("DESKRUN_LOOP_SESSIONS", 16)
	rounds := envInt("DESKRUN_LOOP_ROUNDS", 20)
	c := client.NewClient(url, os.Getenv("DESKRUN_TOKEN"), nil)
	ctx := context.Background()
	ids := make([]string, sessions)
	for i := range ids {
		s, err := c.CreateSession(ctx, api.CreateSessionRequest{Screen: api.Screen{Width: 640, Height: 480}})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = s.ID
		defer c.DeleteSession(context.Background(), s.ID)
	}
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, sessions)
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range rounds {
					if _, err := c.Input(ctx, id, []api.Action{{Type: api.ActionMove, X: api.Int(10 + r), Y: api.Int(10 + i)}}); err != nil {
						errs <- err
						return
					}
					if _, err := c.Screenshot(ctx, id, api.ScreenshotOptions{MaxWidth: 512}); err != nil {
						errs <- err
						return
					}
					if _, err := c.Exec(ctx, id, api.ExecRequest{Cmd: []string{"echo", strconv.Itoa(r)}}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		took := time.Since(start)
		b.ReportMetric(float64(sessions*rounds*3)/took.Seconds(), "calls/s")
		fmt.Fprintf(os.Stderr, "go loop: %d sessions x %d rounds x 3 calls in %.2f s: %.1f calls/s\n",
			sessions, rounds, took.Seconds(), float64(sessions*rounds*3)/took.Seconds())
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
