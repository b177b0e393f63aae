package envd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	envdapi "github.com/deskrun/deskrun/api/e2b/envd"
)

// cgroupRoot is where the kernel's cgroup file systems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// meter reads the sandbox's resources for GET /metrics from the cgroup
// envd runs in (version 2, or version 1's cpu, cpuacct and memory
// controllers), and the machine's where the cgroup sets no limit or
// cannot be read (a local sandbox, gVisor).
type meter struct {
	mu       sync.Mutex
	lastAt   time.Time
	lastUsed time.Duration // CPU time used by the cgroup, or the machine's busy time
}

func newMeter() *meter {
	m := &meter{}
	m.lastAt, m.lastUsed = time.Now(), cpuUsed()
	return m
}

func (m *meter) read() envdapi.Metrics {
	now := time.Now()
	out := envdapi.Metrics{TS: now.Unix(), CPUCount: cpuCount()}
	used := cpuUsed()
	m.mu.Lock()
	if wall := now.Sub(m.lastAt); wall > 0 && used >= m.lastUsed {
		pct := 100 * float64(used-m.lastUsed) / (float64(wall) * float64(out.CPUCount))
		out.CPUUsedPct = math.Round(min(pct, 100)*100) / 100
	}
	m.lastAt, m.lastUsed = now, used
	m.mu.Unlock()
	out.MemTotal, out.MemUsed, out.MemCache = memory()
	out.MemTotalMiB, out.MemUsedMiB = out.MemTotal>>20, out.MemUsed>>20
	var st syscall.Statfs_t
	if syscall.Statfs("/", &st) == nil {
		out.DiskTotal = int64(st.Blocks) * st.Bsize
		out.DiskUsed = int64(st.Blocks-st.Bfree) * st.Bsize
	}
	return out
}

func (s *Service) metrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(s.meter.read())
}

// cgroupFile reads a file of envd's cgroup: under version 2 (controller
// ""), or version 1's controller. It looks where /proc/self/cgroup says
// the process is, then at the mount's root (a container's own cgroup is
// mounted there).
func cgroupFile(controller, name string) (string, bool) {
	self, _ := os.ReadFile("/proc/self/cgroup")
	var dirs []string
	for _, l := range strings.Split(string(self), "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case controller == "" && parts[0] == "0" && parts[1] == "":
			dirs = append(dirs, filepath.Join(cgroupRoot, parts[2]))
		case controller != "" && strings.Contains(","+parts[1]+",", ","+controller+","):
			dirs = append(dirs, filepath.Join(cgroupRoot, parts[1], parts[2]), filepath.Join(cgroupRoot, controller, parts[2]))
		}
	}
	if controller == "" {
		dirs = append(dirs, cgroupRoot)
	} else {
		dirs = append(dirs, filepath.Join(cgroupRoot, controller))
	}
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, name)); err == nil {
			return strings.TrimSpace(string(b)), true
		}
	}
	return "", false
}

// cpuCount is the cores the cgroup's quota allows (rounded up), at most
// the cores envd may run on.
func cpuCount() int {
	n := runtime.NumCPU()
	quota, period := int64(-1), int64(0)
	if v, ok := cgroupFile("", "cpu.max"); ok {
		f := strings.Fields(v)
		if len(f) == 2 && f[0] != "max" {
			quota, _ = strconv.ParseInt(f[0], 10, 64)
			period, _ = strconv.ParseInt(f[1], 10, 64)
		}
	} else if v, ok := cgroupFile("cpu", "cpu.cfs_quota_us"); ok {
		quota, _ = strconv.ParseInt(v, 10, 64)
		p, _ := cgroupFile("cpu", "cpu.cfs_period_us")
		period, _ = strconv.ParseInt(p, 10, 64)
	}
	if quota > 0 && period > 0 {
		n = min(n, int((quota+period-1)/period))
	}
	return max(n, 1)
}

// cpuUsed is the CPU time the cgroup has used, or, where it cannot be
// read, the machine's busy time from /proc/stat.
func cpuUsed() time.Duration {
	if v, ok := cgroupFile("", "cpu.stat"); ok {
		if us, ok := statField(v, "usage_usec"); ok {
			return time.Duration(us) * time.Microsecond
		}
	}
	if v, ok := cgroupFile("cpuacct", "cpuacct.usage"); ok {
		if ns, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Duration(ns)
		}
	}
	b, _ := os.ReadFile("/proc/stat")
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, s := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		v, _ := strconv.ParseInt(s, 10, 64)
		busy += v
	}
	return time.Duration(busy) * time.Second / 100 // USER_HZ
}

// memoryFiles name the memory controller's files: cgroup version 2's,
// then version 1's (cache is the page cache's line of memory.stat).
var memoryFiles = []struct{ controller, limit, usage, cache string }{
	{"", "memory.max", "memory.current", "file"},
	{"memory", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_cache"},
}

// memory is the cgroup's limit, use and page cache in bytes; the
// machine's total and use where the cgroup has no limit below it.
func memory() (total, used, cache int64) {
	info := meminfo()
	total = info["MemTotal"]
	used = total - info["MemAvailable"]
	cache = info["Cached"]
	limit, cur := int64(-1), int64(-1)
	for _, f := range memoryFiles {
		v, ok := cgroupFile(f.controller, f.limit)
		if !ok {
			continue
		}
		limit = parseLimit(v)
		c, _ := cgroupFile(f.controller, f.usage)
		cur = parseLimit(c)
		stat, _ := cgroupFile(f.controller, "memory.stat")
		if n, ok := statField(stat, f.cache); ok {
			cache = n
		}
		break
	}
	if limit > 0 && (total == 0 || limit < total) {
		total = limit
	}
	if cur >= 0 {
		used = cur
	}
	return total, used, cache
}

// parseLimit reads a cgroup byte count; "max" and junk are -1.
func parseLimit(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// statField finds "name value" in a cgroup's stat file.
func statField(stat, name string) (int64, bool) {
	sc := bufio.NewScanner(strings.NewReader(stat))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == name {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// meminfo is /proc/meminfo in bytes.
func meminfo() map[string]int64 {
	out := map[string]int64{}
	b, _ := os.ReadFile("/proc/meminfo")
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		if len(f) > 1 && f[1] == "kB" {
			n <<= 10
		}
		out[k] = n
	}
	return out
}
