package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrajectoryLimit: a trajectory stops at its limit, screenshots
// counted, with a last line that says so, and records nothing more.
func TestTrajectoryLimit(t *testing.T) {
	dir := t.TempDir()
	tr, err := openTrajectory(dir, "s1", 4000)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1500)
	for i := range 20 {
		big[0] = byte(i) // a new picture each time
		tr.append("screenshot", "", map[string]int{"i": i}, nil, nil, time.Now(), &image{data: append([]byte(nil), big...), format: "png"}, nil)
	}
	tr.append("exec", "", map[string]string{"cmd": strings.Repeat("x", 100)}, nil, errors.New("late"), time.Now(), nil, nil)
	f, err := os.Open(filepath.Join(dir, "s1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []TrajectoryLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l TrajectoryLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) < 2 || len(lines) > 4 {
		t.Fatalf("%d lines, want the 2 that fit and the cut", len(lines))
	}
	last := lines[len(lines)-1]
	if last.Call != "trajectory_cut" || !strings.Contains(last.Error, "limit") || last.N != len(lines) {
		t.Errorf("last line %+v", last)
	}
	var total int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	if total > 4000+400 {
		t.Errorf("the trajectory takes %d bytes, over its 4000-byte limit and a cut line", total)
	}
}
