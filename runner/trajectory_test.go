package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
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
	tr, err := openTrajectory(dir, "s1", 4000, nil)
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

func dirSize(dir string) int64 {
	var total int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	return total
}

func readLines(t *testing.T, path string) []TrajectoryLine {
	t.Helper()
	f, err := os.Open(path)
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
	return lines
}

// TestTrajectoryTotal: the trajectories of a directory stay within its
// total across sessions, an earlier server's included: ended ones are
// removed oldest first to make room, and a running session is cut when
// the running ones alone fill the total.
func TestTrajectoryTotal(t *testing.T) {
	dir := t.TempDir()
	// What an earlier server left: 3000 bytes.
	os.WriteFile(filepath.Join(dir, "old.jsonl"), make([]byte, 1000), 0o600)
	os.MkdirAll(filepath.Join(dir, "old"), 0o700)
	os.WriteFile(filepath.Join(dir, "old", "1.png"), make([]byte, 2000), 0o600)
	st, err := newTrajStore(dir, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if st.used != 3000 {
		t.Fatalf("counted %d bytes of the earlier server's, want 3000", st.used)
	}
	img := make([]byte, 1500)
	shots := func(tr *trajectory, n int) {
		for i := range n {
			img[0], img[1] = byte(i), byte(len(tr.session))
			tr.append("screenshot", "", nil, nil, nil, time.Now(), &image{data: append([]byte(nil), img...), format: "png"}, nil)
		}
	}
	// Sessions one after the other: each ended one makes room for the next.
	for i := range 10 {
		tr, err := openTrajectory(dir, fmt.Sprintf("s%d", i), -1, st)
		if err != nil {
			t.Fatal(err)
		}
		shots(tr, 3)
		tr.close()
		if got := dirSize(dir); got > 10000 {
			t.Fatalf("after session %d the directory holds %d bytes, over its 10000-byte total", i, got)
		}
		if lines := readLines(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))); len(lines) != 3 {
			t.Errorf("session %d: %d lines, want its 3 screenshots", i, len(lines))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "old.jsonl")); !os.IsNotExist(err) {
		t.Errorf("the oldest trajectory is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "s9.jsonl")); err != nil {
		t.Errorf("the newest trajectory was removed: %v", err)
	}
	// Two running sessions fill the total: the one writing is cut.
	a, _ := openTrajectory(dir, "a", -1, st)
	b, _ := openTrajectory(dir, "b", -1, st)
	shots(a, 3)
	shots(b, 3)
	shots(a, 3)
	la := readLines(t, filepath.Join(dir, "a.jsonl"))
	if last := la[len(la)-1]; last.Call != "trajectory_cut" || !strings.Contains(last.Error, "trajectory-total") {
		t.Errorf("a's last line %+v, want the cut naming the total", last)
	}
	a.close()
	b.close()
	if got := dirSize(dir); got > 10000+400 {
		t.Errorf("the directory holds %d bytes, over its total and a cut line", got)
	}
}
