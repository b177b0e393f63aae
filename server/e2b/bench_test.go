package e2b_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
	"github.com/deskrun/deskrun/server/e2b"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
)

// report prints the median and p95 of took and reports them as
// NAME-p50-ms and NAME-p95-ms.
func report(b *testing.B, name, what string, took []time.Duration) {
	slices.Sort(took)
	p50, p95 := took[len(took)/2], took[min(len(took)-1, (len(took)*95+99)/100-1)]
	b.ReportMetric(float64(p50.Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(p95.Microseconds())/1000, name+"-p95-ms")
	b.ReportMetric(0, "ns/op")
	fmt.Fprintf(os.Stderr, "%s (local provider, %d runs): p50 %s, p95 %s, min %s, max %s\n", what, len(took),
		p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond), took[0].Round(10*time.Microsecond), took[len(took)-1].Round(10*time.Microsecond))
}

// BenchmarkCreateToFirstCommand measures, in the same run, the time from
// a create to the first command's output through the E2B front (POST
// /e2b/sandboxes, then envd's Process.Start of echo) and through
// deskrun's own API (POST /v1/sessions, then .../exec of echo), the two
// alternating. -benchtime Nx, at least 5 of each.
func BenchmarkCreateToFirstCommand(b *testing.B) {
	if testing.Short() {
		b.Skip("starts local sandboxes; skipped in -short mode")
	}
	fr := newFront(b)
	own := client.NewClient(fr.base, testKey, testClient)
	n := max(b.N, 5)
	var viaE2B, viaOwn []time.Duration
	b.ResetTimer()
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		start := time.Now()
		sb, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 300})
		if err != nil {
			b.Fatal(err)
		}
		res, err := e2btest.NewEnvd(fr.base+e2b.Prefix, sb, "", testClient).Run(ctx, "echo hi", nil, "", nil)
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("first command: %+v %v", res, err)
		}
		viaE2B = append(viaE2B, time.Since(start))
		if err := fr.c.Kill(ctx, sb.SandboxID); err != nil {
			b.Fatal(err)
		}

		start = time.Now()
		s, err := own.CreateSession(ctx, api.CreateSessionRequest{Provider: "local"})
		if err != nil {
			b.Fatal(err)
		}
		out, err := own.Exec(ctx, s.ID, api.ExecRequest{Cmd: []string{"/bin/bash", "-l", "-c", "echo hi"}})
		if err != nil || out.Stdout != "hi\n" {
			b.Fatalf("first exec: %+v %v", out, err)
		}
		viaOwn = append(viaOwn, time.Since(start))
		if err := own.DeleteSession(ctx, s.ID); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	b.StopTimer()
	report(b, "e2b", "create to first command, E2B front", viaE2B)
	report(b, "deskrun", "create to first command, deskrun's API", viaOwn)
}

// BenchmarkRoundTrip measures through the E2B front, on one sandbox: a
// command (echo through /bin/bash -l -c, to its end event) and a 1 MiB
// file written and read back over /files. -benchtime Nx, at least 20.
func BenchmarkRoundTrip(b *testing.B) {
	if testing.Short() {
		b.Skip("starts a local sandbox; skipped in -short mode")
	}
	fr := newFront(b)
	ctx := context.Background()
	sb, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 3600})
	if err != nil {
		b.Fatal(err)
	}
	e := e2btest.NewEnvd(fr.base+e2b.Prefix, sb, "", &http.Client{Timeout: time.Minute})
	blob := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	path := "/tmp/e2b-bench-" + sb.SandboxID
	defer os.Remove(path)
	n := max(b.N, 20)
	var cmd, file []time.Duration
	b.ResetTimer()
	for range n {
		start := time.Now()
		res, err := e.Run(ctx, "echo hi", nil, "", nil)
		if err != nil || res.Stdout != "hi\n" {
			b.Fatalf("echo: %+v %v", res, err)
		}
		cmd = append(cmd, time.Since(start))
		start = time.Now()
		if err := e.Write(ctx, path, bytes.NewReader(blob)); err != nil {
			b.Fatal(err)
		}
		back, err := e.Read(ctx, path)
		if err != nil || !bytes.Equal(back, blob) {
			b.Fatalf("read back %d bytes: %v", len(back), err)
		}
		file = append(file, time.Since(start))
	}
	b.StopTimer()
	report(b, "echo", "command round trip (echo), E2B front", cmd)
	report(b, "file-1MiB", "1 MiB file round trip, E2B front", file)
}
