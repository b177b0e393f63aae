package envd_test

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/agentd/agentdtest"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
)

// BenchmarkRoundTrip compares, on one agentd, a command round trip
// (echo, run as E2B's SDKs run commands: /bin/bash -l -c) and a 1 MiB
// file round trip (written, then read back) through envd with the same
// through agentd's own /v1/exec and /v1/files. Each reports the median
// of its round trips (median-ms) beside Go's mean.
func BenchmarkRoundTrip(b *testing.B) {
	d := agentdtest.StartAgentd(b)
	own := agentdclient.NewClient(d.URL, d.Token, nil)
	argv := []string{"/bin/bash", "-l", "-c", "echo hi"}
	blob := make([]byte, 1<<20)
	rand.Read(blob)

	// timed runs op b.N times and reports the median duration.
	timed := func(b *testing.B, op func(b *testing.B)) {
		op(b) // once untimed: connections, caches
		var took []time.Duration
		b.ResetTimer()
		for b.Loop() {
			start := time.Now()
			op(b)
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	}

	for _, c := range codecs {
		b.Run("echo/envd-"+c.name, func(b *testing.B) {
			sb := clients(d, "", c.opts...)
			req := bash("echo hi")
			timed(b, func(b *testing.B) {
				stream, err := sb.proc.Start(b.Context(), connect.NewRequest(req))
				if err != nil {
					b.Fatal(err)
				}
				var out []byte
				for stream.Receive() {
					out = append(out, stream.Msg().GetEvent().GetData().GetStdout()...)
				}
				if err := stream.Err(); err != nil || string(out) != "hi\n" {
					b.Fatalf("%q %v", out, err)
				}
				stream.Close()
			})
		})
	}
	b.Run("echo/v1-exec", func(b *testing.B) {
		timed(b, func(b *testing.B) {
			res, err := own.Exec(b.Context(), api.ExecRequest{Cmd: argv})
			if err != nil || res.Stdout != "hi\n" {
				b.Fatalf("%+v %v", res, err)
			}
		})
	})

	b.Run("file-1MiB/envd", func(b *testing.B) {
		sb := clients(d, "")
		u := filesURL(d, url.Values{"path": {d.Home + "/bench-envd.bin"}})
		timed(b, func(b *testing.B) {
			res, err := sb.http.Post(u, "application/octet-stream", bytes.NewReader(blob))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Fatalf("upload: %d", res.StatusCode)
			}
			res, err = sb.http.Get(u)
			if err != nil {
				b.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || !bytes.Equal(got, blob) {
				b.Fatalf("download: %d bytes, %v", len(got), err)
			}
		})
	})
	b.Run("file-1MiB/v1-files", func(b *testing.B) {
		p := d.Home + "/bench-v1.bin"
		timed(b, func(b *testing.B) {
			if err := own.WriteFile(b.Context(), p, blob); err != nil {
				b.Fatal(err)
			}
			got, err := own.ReadFile(b.Context(), p)
			if err != nil || !bytes.Equal(got, blob) {
				b.Fatalf("read: %d bytes, %v", len(got), err)
			}
		})
	})
}
