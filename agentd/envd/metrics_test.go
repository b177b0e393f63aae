package envd

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestMeterCgroups reads a sandbox's limits and use from cgroup trees
// laid out as version 2 and version 1 mount them in a container.
func TestMeterCgroups(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"v2": {
			"cpu.max": "150000 100000\n", "cpu.stat": "usage_usec 0\nuser_usec 0\n",
			"memory.max": "536870912\n", "memory.current": "104857600\n", "memory.stat": "anon 1\nfile 1048576\n",
		},
		"v1": {
			"cpu/cpu.cfs_quota_us": "150000\n", "cpu/cpu.cfs_period_us": "100000\n", "cpuacct/cpuacct.usage": "0\n",
			"memory/memory.limit_in_bytes": "536870912\n", "memory/memory.usage_in_bytes": "104857600\n",
			"memory/memory.stat": "cache 5\ntotal_cache 1048576\n",
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			write := func(f, v string) {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for f, v := range files {
				write(f, v)
			}
			old := cgroupRoot
			cgroupRoot = root
			t.Cleanup(func() { cgroupRoot = old })

			m := newMeter()
			if name == "v2" {
				write("cpu.stat", "usage_usec 4000000\n")
			} else {
				write("cpuacct/cpuacct.usage", "4000000000\n")
			}
			got := m.read()
			if want := min(2, runtime.NumCPU()); got.CPUCount != want {
				t.Errorf("cpu_count %d, want %d (a quota of 1.5 cores, rounded up)", got.CPUCount, want)
			}
			if got.MemTotal != 512<<20 || got.MemTotalMiB != 512 || got.MemUsed != 100<<20 || got.MemUsedMiB != 100 || got.MemCache != 1<<20 {
				t.Errorf("memory: total %d (%d MiB), used %d (%d MiB), cache %d; want 512 MiB, 100 MiB, 1 MiB",
					got.MemTotal, got.MemTotalMiB, got.MemUsed, got.MemUsedMiB, got.MemCache)
			}
			if got.CPUUsedPct <= 0 || got.CPUUsedPct > 100 {
				t.Errorf("cpu_used_pct %v after 4 s of CPU, want in (0, 100]", got.CPUUsedPct)
			}
			if got.DiskTotal <= 0 || got.DiskUsed <= 0 || got.TS == 0 {
				t.Errorf("disk %d of %d, ts %d", got.DiskUsed, got.DiskTotal, got.TS)
			}
		})
	}
}

// TestMeterNoCgroup falls back to the machine's figures.
func TestMeterNoCgroup(t *testing.T) {
	old := cgroupRoot
	cgroupRoot = t.TempDir()
	t.Cleanup(func() { cgroupRoot = old })
	got := newMeter().read()
	if got.CPUCount != runtime.NumCPU() || got.MemTotal <= 0 || got.MemUsed <= 0 || got.MemUsed > got.MemTotal {
		t.Errorf("without a cgroup: %+v", got)
	}
}
