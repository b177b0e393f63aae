//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/deskrun/deskrun/server/osworld"
	"github.com/moby/moby/client"
)

// TestEvalSnapshotsOnDocker runs shipped tasks (files, a terminal and
// windows: their setups start programs) with deskrun eval under
// runsc-snap, two trials each: every trial passes as without snapshots
// (TestSuiteOnDocker), each task's first trial saves its set-up desktop
// and its second starts from it without a setup; a second eval with the
// same cache restores every trial; --fork-trials forks the second trial
// from the first; nothing is left behind.
func TestEvalSnapshotsOnDocker(t *testing.T) {
	cli := engine(t, desktopImage)
	needSnapshots(t, cli)
	repo := repoRoot()
	bin := buildDeskrun(t)
	cache := filepath.Join(t.TempDir(), "snapshots")
	only := "files-copy-notes,files-count-lines,gui-close-scratch,gui-keep-one-terminal,terminal-*"
	eval := func(extra ...string) (string, []evalResult) {
		out := filepath.Join(t.TempDir(), "run")
		args := append([]string{"eval", "--provider", "docker", "--image", desktopImage, "--runtime", docker.SnapshotRuntime,
			"--tasks", filepath.Join(repo, "tasks"), "--only", only, "--agent", "replay", "--parallel", "2", "--trials", "2",
			"--snapshot-cache", cache, "--out", out}, extra...)
		cmd := exec.CommandContext(t.Context(), bin, args...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("deskrun eval %s: %v\n%s", strings.Join(extra, " "), err, b)
		}
		rs := readResults(t, out)
		if len(rs) < 8 {
			t.Fatalf("%d results, want at least 8", len(rs))
		}
		for _, r := range rs {
			if r.Status != "passed" {
				t.Errorf("%s#%d: %s, score %v: %s%s (snapshot %q %s)", r.ID, r.Trial, r.Status, r.Score, r.Detail, r.Error, r.Snapshot, r.SnapshotError)
			}
		}
		if left := managedContainers(t, cli, runOwner(t, out)); len(left) != 0 {
			t.Errorf("sandboxes left by deskrun eval: %q", left)
		}
		return out, rs
	}

	_, rs := eval()
	how := map[string][]string{}
	for _, r := range rs {
		how[r.ID] = append(how[r.ID], r.Snapshot)
		if r.Snapshot == "restored" && r.SetupMS != 0 {
			t.Errorf("%s#%d restored, yet its setup took %d ms", r.ID, r.Trial, r.SetupMS)
		}
		if r.Snapshot == "" {
			t.Errorf("%s#%d: no snapshot: %s", r.ID, r.Trial, r.SnapshotError)
		}
	}
	for id, hs := range how {
		slices.Sort(hs)
		if !slices.Equal(hs, []string{"restored", "saved"}) {
			t.Errorf("%s: trials %q, want one saved and one restored", id, hs)
		}
	}

	_, rs = eval()
	for _, r := range rs {
		if r.Snapshot != "restored" {
			t.Errorf("second eval: %s#%d: snapshot %q (%s), want restored", r.ID, r.Trial, r.Snapshot, r.SnapshotError)
		}
	}

	_, rs = eval("--fork-trials", "--snapshots=false")
	for _, r := range rs {
		want := "forked"
		if r.Trial == 1 {
			want = ""
		}
		if r.Snapshot != want {
			t.Errorf("--fork-trials: %s#%d: snapshot %q (%s), want %q", r.ID, r.Trial, r.Snapshot, r.SnapshotError, want)
		}
	}
}

// calcTask is the "calc" reset task of BenchmarkOSWorldReset (a
// spreadsheet downloaded and opened in LibreOffice Calc, its window
// activated), its input in a folder of its own.
func calcTask(tb testing.TB) *task.Task {
	tb.Helper()
	input := tb.TempDir()
	xlsx, err := os.ReadFile("../runner/task/metric/testdata/metrics/table_bold.xlsx")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(input, "table.xlsx"), xlsx, 0o644); err != nil {
		tb.Fatal(err)
	}
	i := slices.IndexFunc(resetTasks, func(r struct{ name, body string }) bool { return r.name == "calc" })
	tk, err := task.Parse([]byte(strings.ReplaceAll(resetTasks[i].body, "INPUT", input)), task.FormatJSON)
	if err != nil {
		tb.Fatal(err)
	}
	tk.Dir = input
	return tk
}

var calcSession = api.CreateSessionRequest{Provider: "docker", Image: osworldImage, Runtime: docker.SnapshotRuntime, Screen: api.Screen{Width: 1920, Height: 1080}}

// TestSnapshotCalcServesOSWorld: the osworld desktop with a spreadsheet
// open in Calc, saved and restored into a new session, is served as
// OSWorld's VM as a fresh one is: its screenshot, its accessibility tree
// (AT-SPI, with Calc in it, once the restored applications answer) and a
// command.
func TestSnapshotCalcServesOSWorld(t *testing.T) {
	cli := engine(t, osworldImage)
	needSnapshots(t, cli)
	p, _ := newProvider(t, cli, docker.Config{Runtime: docker.SnapshotRuntime})
	m := managerOf(t, p)
	tk := calcTask(t)
	sess, err := m.Create(t.Context(), calcSession)
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Setup(t.Context(), sess, tk, task.Options{}); err != nil {
		t.Fatal(err)
	}
	saved, err := m.Save(t.Context(), sess.ID(), filepath.Join(t.TempDir(), "calc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(t.Context(), sess.ID()); err != nil {
		t.Fatal(err)
	}
	restored, err := m.CreateFrom(t.Context(), saved, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := osworld.Start(restored, osworld.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	get := func(path string) string {
		resp, err := http.Get("http://" + srv.Addrs().Server + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s: %.300s", path, resp.Status, b)
		}
		return string(b)
	}
	if shot := get("/screenshot"); !strings.HasPrefix(shot, "\x89PNG") {
		t.Errorf("GET /screenshot: not a PNG (%d bytes)", len(shot))
	}
	// Right after a restore the applications answer AT-SPI slowly (their
	// memory is paged in as they run): the first reads come back without
	// Calc, and the tree is whole some seconds later (12 s measured).
	t0 := time.Now()
	for {
		at := get("/accessibility")
		if strings.Contains(at, "Calc") {
			t.Logf("the accessibility tree holds Calc %v after the restore (%d bytes)", time.Since(t0).Round(time.Millisecond), len(at))
			break
		}
		if time.Since(t0) > 2*time.Minute {
			t.Errorf("GET /accessibility: no Calc in the tree %v after the restore (%d bytes): %.600s", time.Since(t0), len(at), at)
			break
		}
		time.Sleep(2 * time.Second)
	}
	resp, err := http.Post("http://"+srv.Addrs().Server+"/execute", "application/json", strings.NewReader(`{"command": ["sh", "-c", "pgrep -c soffice.bin"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ReturnCode int    `json:"returncode"`
		Output     string `json:"output"`
	}
	err = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if err != nil || r.ReturnCode != 0 {
		t.Errorf("POST /execute pgrep soffice.bin: %+v, %v; want Calc running", r, err)
	}
}

// BenchmarkSnapshotCalcReset: a task's reset the way a trial gets it,
// side by side in one run on the osworld image under runsc-snap: today's
// (a new sandbox, then the setup: download a spreadsheet, open it in
// Calc, activate its window) against a restore of the desktop saved once
// that setup was done (what every trial after the first gets with
// --snapshots), each to the first screenshot through OSWorld's routes.
// Median and p95 over DESKRUN_SNAPSHOT_RUNS (5) of each, and their ratio.
func BenchmarkSnapshotCalcReset(b *testing.B) {
	cli := engine(b, osworldImage)
	info, err := cli.Info(b.Context(), client.InfoOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, ok := info.Info.Runtimes[docker.SnapshotRuntime]; !ok {
		b.Skipf("the engine has no %s runtime", docker.SnapshotRuntime)
	}
	runs := 5
	if v := os.Getenv("DESKRUN_SNAPSHOT_RUNS"); v != "" {
		fmt.Sscan(v, &runs)
	}
	p, _ := newProvider(b, cli, docker.Config{Runtime: docker.SnapshotRuntime})
	m := managerOf(b, p)
	tk := calcTask(b)
	firstShot := func(sess *runner.Session) {
		srv, err := osworld.Start(sess, osworld.Config{})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		resp, err := http.Get("http://" + srv.Addrs().Server + "/screenshot")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for b.Loop() {
		b.Logf("load average at start: %s", loadAverage())
		var today, restored []time.Duration
		var saved runner.Saved
		for i := range runs {
			t0 := time.Now()
			sess, err := m.Create(b.Context(), calcSession)
			if err != nil {
				b.Fatal(err)
			}
			if err := task.Setup(b.Context(), sess, tk, task.Options{}); err != nil {
				b.Fatal(err)
			}
			firstShot(sess)
			today = append(today, time.Since(t0))
			if i == 0 {
				if saved, err = m.Save(b.Context(), sess.ID(), filepath.Join(b.TempDir(), "calc")); err != nil {
					b.Fatal(err)
				}
				b.Logf("save after the setup: %v, %.0f MB", saved.Snapshot.Took.Round(time.Millisecond), float64(saved.Snapshot.Bytes)/1e6)
			}
			_ = m.Delete(b.Context(), sess.ID())

			t0 = time.Now()
			cp, err := m.CreateFrom(b.Context(), saved, nil)
			if err != nil {
				b.Fatal(err)
			}
			firstShot(cp)
			restored = append(restored, time.Since(t0))
			_ = m.Delete(b.Context(), cp.ID())
		}
		report(b, "Calc task reset today (new sandbox, setup, first screenshot)", today)
		report(b, "Calc task reset from its snapshot (restore, first screenshot)", restored)
		slices.Sort(today)
		slices.Sort(restored)
		b.Logf("ratio of medians: %.1fx", float64(today[len(today)/2])/float64(restored[len(restored)/2]))
		b.Logf("load average at end: %s", loadAverage())
	}
}
