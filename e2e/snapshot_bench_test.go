//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// BenchmarkSnapshot, side by side in one run on the desktop image under
// runsc-snap: a cold start against a restore of the bare desktop (each
// to agentd answering with its own token), a checkpoint (the source runs
// on) and its size, a fork of 1 and of 8 at once, pause and resume, and
// the memory of N copies of one snapshot against N fresh sandboxes.
// Medians and p95 over DESKRUN_SNAPSHOT_RUNS (5) runs; the load average is
// printed beside them.
func BenchmarkSnapshot(b *testing.B) {
	cli := engine(b, desktopImage)
	info, err := cli.Info(b.Context(), client.InfoOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, ok := info.Info.Runtimes[docker.SnapshotRuntime]; !ok {
		b.Skipf("the engine has no %s runtime (scripts/runsc/install.sh installs it)", docker.SnapshotRuntime)
	}
	runs := 5
	if v := os.Getenv("DESKRUN_SNAPSHOT_RUNS"); v != "" {
		fmt.Sscan(v, &runs)
	}
	p, owner := newProvider(b, cli, docker.Config{Runtime: docker.SnapshotRuntime})
	spec := sandbox.Spec{Image: desktopImage}
	labels := map[string]string{sandbox.LabelOwner: owner}
	stop := func(id string) { _ = p.Stop(b.Context(), id) }
	for b.Loop() {
		b.Logf("load average at start: %s", loadAverage())
		var cold, restore, pauseT, resumeT []time.Duration
		src := startSandbox(b, p, spec)
		snap, err := p.Checkpoint(b.Context(), src.ID, sandbox.CheckpointOptions{Dir: filepath.Join(b.TempDir(), "snap"), Token: src.Token})
		if err != nil {
			b.Fatal(err)
		}
		for range runs {
			t0 := time.Now()
			inst, err := p.Start(b.Context(), spec)
			if err != nil {
				b.Fatal(err)
			}
			cold = append(cold, time.Since(t0))
			stop(inst.ID)
			t0 = time.Now()
			inst, err = p.Restore(b.Context(), snap, sandbox.RestoreOptions{Labels: labels})
			if err != nil {
				b.Fatal(err)
			}
			restore = append(restore, time.Since(t0))
			stop(inst.ID)
		}
		report(b, "cold start (to agentd healthy)", cold)
		report(b, "restore of the bare desktop (to agentd healthy, own token)", restore)
		b.Logf("checkpoint (source runs on): %v, %.1f MB", snap.Took.Round(time.Millisecond), float64(snap.Bytes)/1e6)

		for _, n := range []int{1, 8} {
			t0 := time.Now()
			var wg sync.WaitGroup
			ids := make([]string, n)
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() {
					inst, err := p.Restore(b.Context(), snap, sandbox.RestoreOptions{Labels: labels})
					ids[i], errs[i] = inst.ID, err
				})
			}
			wg.Wait()
			took := time.Since(t0)
			for i := range n {
				if errs[i] != nil {
					b.Fatal(errs[i])
				}
			}
			var mem uint64
			for _, id := range ids {
				m, _ := memoryUsage(b.Context(), cli, id)
				mem += m
			}
			b.Logf("fork of %d at once: all healthy in %v; memory of the %d copies %.0f MiB (docker stats)", n, took.Round(time.Millisecond), n, float64(mem)/(1<<20))
			for _, id := range ids {
				stop(id)
			}
			if n == 8 {
				fresh := make([]string, n)
				for i := range n {
					wg.Go(func() {
						inst, err := p.Start(b.Context(), spec)
						fresh[i], errs[i] = inst.ID, err
					})
				}
				wg.Wait()
				var fm uint64
				for i, id := range fresh {
					if errs[i] != nil {
						b.Fatal(errs[i])
					}
					m, _ := memoryUsage(b.Context(), cli, id)
					fm += m
					defer stop(id)
				}
				b.Logf("8 fresh sandboxes: memory %.0f MiB (docker stats)", float64(fm)/(1<<20))
			}
		}

		for i := range runs {
			dir := filepath.Join(b.TempDir(), fmt.Sprint("pause", i))
			t0 := time.Now()
			ps, err := p.Checkpoint(b.Context(), src.ID, sandbox.CheckpointOptions{Dir: dir, Token: src.Token, Stop: true})
			if err != nil {
				b.Fatal(err)
			}
			pauseT = append(pauseT, time.Since(t0))
			t0 = time.Now()
			inst, err := p.Restore(b.Context(), ps, sandbox.RestoreOptions{Into: src.ID})
			if err != nil {
				b.Fatal(err)
			}
			resumeT = append(resumeT, time.Since(t0))
			src.Token = inst.Token
			os.RemoveAll(dir)
		}
		report(b, "pause (checkpoint to disk, sandbox stopped)", pauseT)
		report(b, "resume (into the same container, healthy, new token)", resumeT)
		b.Logf("load average at end: %s", loadAverage())
	}
}

func report(b *testing.B, what string, d []time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	p95 := s[min(len(s)-1, (len(s)*95+99)/100-1)]
	b.Logf("%s: median %v, p95 %v (n=%d)", what, s[len(s)/2].Round(time.Millisecond), p95.Round(time.Millisecond), len(s))
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return string(b[:min(len(b), 14)])
}
