package agentd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
)

// recordFor is how long each op of BenchmarkRecordingCPU records.
const recordFor = 15 * time.Second

// BenchmarkRecordingCPU measures what recording a 1280x800 sandbox costs
// in CPU, per minute of video, on two scenes: an idle desktop (an xterm
// showing a prompt) and a typing one (a character appears in an xterm
// every 100 ms, as a fast typist's). Each op records for 15 s and
// reports the CPU seconds per minute of the encoder (ffmpeg), of
// agentd's frame loop and capture (this process), of the X server
// (serving the captures) and their sum, and the file's bytes per minute.
// Run with -benchtime=1x -count=3 and take the medians.
func BenchmarkRecordingCPU(b *testing.B) {
	agentdtest.NeedProgram(b, "ffmpeg")
	for _, scene := range []struct{ name, xterm string }{
		{"idle", "xterm -geometry 80x24+0+0 >/dev/null 2>&1 &"},
		{"typing", "xterm -geometry 80x24+0+0 -e sh -c 'while :; do printf x; sleep 0.1; done' >/dev/null 2>&1 &"},
	} {
		b.Run(scene.name, func(b *testing.B) {
			s, c := start(b)
			sh(b, c, scene.xterm)
			waitFor(b, "the xterm", func() bool {
				ws, err := c.Windows(b.Context())
				return err == nil && len(ws) > 0
			})
			time.Sleep(time.Second)
			s.desk.mu.RLock()
			xvfb := s.desk.xvfb.Process.Pid
			s.desk.mu.RUnlock()
			var enc, self, x, size float64
			for b.Loop() {
				self0, x0 := selfCPU(), procCPU(xvfb)
				if _, err := s.StartRecording(api.RecordingRequest{}); err != nil {
					b.Fatal(err)
				}
				time.Sleep(recordFor)
				rec, err := s.StopRecording()
				if err != nil || rec.Error != "" {
					b.Fatal(err, rec.Error)
				}
				ps := s.rec.cmd.ProcessState
				enc += (ps.UserTime() + ps.SystemTime()).Seconds()
				self += selfCPU() - self0
				x += procCPU(xvfb) - x0
				size += float64(rec.Bytes)
			}
			perMin := float64(b.N) * recordFor.Minutes()
			b.ReportMetric(enc/perMin, "ffmpeg-cpu-s/min")
			b.ReportMetric(self/perMin, "agentd-cpu-s/min")
			b.ReportMetric(x/perMin, "xvfb-cpu-s/min")
			b.ReportMetric((enc+self+x)/perMin, "cpu-s/min")
			b.ReportMetric(size/perMin/1e6, "MB/min")
		})
	}
}

// selfCPU is this process's CPU time so far, in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// procCPU is process pid's CPU time so far, in seconds (/proc/pid/stat).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // clock ticks (USER_HZ 100)
}
