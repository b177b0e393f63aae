//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"strings"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// needRunsc skips unless the engine has gVisor's runtime (scripts/
// install-deps.sh registers it where runsc is installed).
func needRunsc(t *testing.T, cli *client.Client) {
	t.Helper()
	info, err := cli.Info(t.Context(), client.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.Info.Runtimes["runsc"]; !ok {
		t.Skip("the engine has no runsc runtime (gVisor)")
	}
}

// TestGVisorSandbox: a sandbox under gVisor (runsc) with the usual
// lockdown: the desktop starts, a screenshot shows known pixels, input
// reaches the display, exec runs, and the kernel the sandbox sees is
// gVisor's.
func TestGVisorSandbox(t *testing.T) {
	cli := engine(t, minimalImage)
	needRunsc(t, cli)
	p, _ := newProvider(t, cli, docker.Config{Runtime: "runsc"})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	ctx := t.Context()
	r, err := c.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "xsetroot -solid '#0a64c8'; dmesg 2>/dev/null | head -1; uname -r"}})
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("exec: %v %+v", err, r)
	}
	if !strings.Contains(r.Stdout, "gVisor") && !strings.Contains(r.Stdout, "4.4.0") {
		t.Errorf("the sandbox's kernel is not gVisor's: %q", r.Stdout)
	}
	shot, err := c.Screenshot(ctx, api.ScreenshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatal(err)
	}
	if cr, cg, cb, _ := img.At(5, 5).RGBA(); cr>>8 != 0x0a || cg>>8 != 0x64 || cb>>8 != 0xc8 {
		t.Errorf("pixel (5,5) = %02x%02x%02x, want 0a64c8", cr>>8, cg>>8, cb>>8)
	}
	if _, err := c.Input(ctx, []api.Action{{Type: api.ActionMove, X: api.Int(321), Y: api.Int(123)}}); err != nil {
		t.Fatal(err)
	}
	r, err = c.Exec(ctx, api.ExecRequest{Cmd: []string{"xdotool", "getmouselocation"}})
	if err != nil || !strings.HasPrefix(r.Stdout, "x:321 y:123") {
		t.Errorf("pointer after the move: %v %q", err, r.Stdout)
	}
}

// BenchmarkRuntimes: cold start to the first screenshot and the median
// screenshot of a running sandbox, under runc and under gVisor (runsc)
// in the same run, median of 5 starts and of 20 screenshots each.
func BenchmarkRuntimes(b *testing.B) {
	cli := engine(b, minimalImage)
	info, err := cli.Info(b.Context(), client.InfoOptions{})
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	for _, rt := range []string{"runc", "runsc"} {
		if _, ok := info.Info.Runtimes[rt]; !ok {
			b.Logf("the engine has no %s runtime", rt)
			continue
		}
		b.Run(rt, func(b *testing.B) {
			p, _ := newProvider(b, cli, docker.Config{Runtime: rt})
			startSandbox(b, p, sandbox.Spec{Image: minimalImage}) // network exists, image cached
			for b.Loop() {
				var starts, shots []time.Duration
				for range 5 {
					t0 := time.Now()
					inst, err := p.Start(b.Context(), sandbox.Spec{Image: minimalImage})
					if err != nil {
						b.Fatal(err)
					}
					_, err = screenshot(b.Context(), hc, inst)
					starts = append(starts, time.Since(t0))
					for range 4 {
						t1 := time.Now()
						if _, err = screenshot(b.Context(), hc, inst); err != nil {
							break
						}
						shots = append(shots, time.Since(t1))
					}
					p.Stop(context.WithoutCancel(b.Context()), inst.ID)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(ms(median(starts)), "ms-cold-start-median")
				b.ReportMetric(ms(median(shots)), "ms-screenshot-median")
				b.Logf("%s: cold start %v, screenshots %v", rt, starts, shots)
			}
		})
	}
}
