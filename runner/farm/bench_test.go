package farm

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deskrun/deskrun/runner/agent"
)

// timedProvider measures the time sandboxes take to stop.
type timedProvider struct {
	*testProvider
	stopNS atomic.Int64
	stops  atomic.Int64
}

func (p *timedProvider) Stop(ctx context.Context, id string) error {
	start := time.Now()
	err := p.testProvider.Stop(ctx, id)
	p.stopNS.Add(int64(time.Since(start)))
	p.stops.Add(1)
	return err
}

// BenchmarkSuite runs the shipped suite with the replay agent on local
// sandboxes at several parallelisms:
//
//	go test -run '^$' -bench Suite -benchtime 1x ./runner/farm/
//
// Besides the wall time per suite (s/suite) and the throughput
// (tasks/min), it reports per task, in milliseconds: the sandbox start
// (start-ms), everything after it up to the result (beyond-start-ms),
// which splits into the task's own work (setup, tool calls, grading),
// the screenshots taken for the agent (observe-ms), the settle pauses
// (settle-ms) and what remains, the farm's own bookkeeping (harness-ms:
// trajectory and results files, scheduling); and the sandbox stop after
// the result (stop-ms).
//
// The settle is either a settled wait (wait=settled: until the screen is
// quiet for 100ms, at most 2s, the default) or the fixed pause of 500ms
// (wait=pause500ms).
func BenchmarkSuite(b *testing.B) {
	waits := []struct {
		name          string
		settle, quiet time.Duration
	}{{"settled", 0, 0}, {"pause500ms", 500 * time.Millisecond, -1}}
	for _, w := range waits {
		for _, parallel := range []int{1, 4, 8} {
			benchSuite(b, w.name, parallel, w.settle, w.quiet)
		}
	}
}

func benchSuite(b *testing.B, wait string, parallel int, settle, quiet time.Duration) {
	{
		b.Run(fmt.Sprintf("wait=%s/parallel=%d", wait, parallel), func(b *testing.B) {
			p := &timedProvider{testProvider: newTestProvider(b)}
			m := newManager(b, p)
			tasks := loadSuite(b)
			var all []Result
			var wall time.Duration
			runs := 0
			for b.Loop() {
				start := time.Now()
				results, err := Run(b.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: b.TempDir(), Parallel: parallel, Settle: settle, Quiet: quiet}, tasks)
				wall += time.Since(start)
				runs++
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range results {
					if r.Status != StatusPassed {
						b.Errorf("%s: %s %s", r.ID, r.Status, r.Error)
					}
				}
				all = append(all, results...)
			}
			var startMS, beyond, observe, pauses, harness float64
			for _, r := range all {
				startMS += float64(r.SandboxMS)
				beyond += float64(r.DurationMS - r.SandboxMS)
				observe += float64(r.ObserveMS)
				pauses += float64(r.SettleMS)
				harness += float64(r.DurationMS - r.SandboxMS - r.SetupMS - r.AgentMS - r.ToolsMS - r.ObserveMS - r.SettleMS - r.EvalMS)
			}
			n := float64(len(all))
			b.ReportMetric(wall.Seconds()/float64(runs), "s/suite")
			b.ReportMetric(n/wall.Minutes(), "tasks/min")
			b.ReportMetric(startMS/n, "start-ms")
			b.ReportMetric(beyond/n, "beyond-start-ms")
			b.ReportMetric(observe/n, "observe-ms")
			b.ReportMetric(pauses/n, "settle-ms")
			b.ReportMetric(harness/n, "harness-ms")
			if s := p.stops.Load(); s > 0 {
				b.ReportMetric(float64(p.stopNS.Load())/float64(s)/1e6, "stop-ms")
			}
			b.ReportMetric(0, "ns/op") // the wall time is s/suite
		})
	}
}
