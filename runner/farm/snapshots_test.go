package farm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner/agent"
	"github.com/deskrun/deskrun/runner/task"
	"github.com/deskrun/deskrun/sandbox"
)

// fileSnapshots is a test double of a provider that snapshots: local
// sandboxes whose "snapshot" is a copy of their home folder, restored
// into a new local sandbox. It keeps the files a setup wrote, not the
// processes (the docker provider's runsc checkpoints keep both; the e2e
// tests run those): enough for the file tasks of the shipped suite, and
// for what the farm does around snapshots, which these tests check.
type fileSnapshots struct {
	*testProvider

	mu   sync.Mutex
	inst map[string]sandbox.Instance
}

var _ sandbox.Snapshotter = (*fileSnapshots)(nil)

func newFileSnapshots(t *testing.T) *fileSnapshots {
	return &fileSnapshots{testProvider: newTestProvider(t), inst: map[string]sandbox.Instance{}}
}

func (p *fileSnapshots) Start(ctx context.Context, spec sandbox.Spec) (sandbox.Instance, error) {
	inst, err := p.testProvider.Start(ctx, spec)
	if err == nil {
		p.mu.Lock()
		p.inst[inst.ID] = inst
		p.mu.Unlock()
	}
	return inst, err
}

// home is the home folder of sandbox id, as its agentd says.
func (p *fileSnapshots) home(ctx context.Context, id string) (string, error) {
	p.mu.Lock()
	inst, ok := p.inst[id]
	p.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("no sandbox %s", id)
	}
	res, err := agentdclient.NewClient(inst.AgentURL, inst.Token, nil).Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", "echo $HOME"}})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(res.Stdout), nil
}

func (p *fileSnapshots) Basis(_ context.Context, spec sandbox.Spec) (string, error) {
	return "files " + spec.Image, nil
}

func (p *fileSnapshots) Checkpoint(ctx context.Context, id string, opts sandbox.CheckpointOptions) (sandbox.Snapshot, error) {
	home, err := p.home(ctx, id)
	if err != nil {
		return sandbox.Snapshot{}, err
	}
	if err := os.Mkdir(opts.Dir, 0o700); err != nil {
		return sandbox.Snapshot{}, err
	}
	if out, err := exec.CommandContext(ctx, "cp", "-a", home+"/.", opts.Dir).CombinedOutput(); err != nil {
		return sandbox.Snapshot{}, fmt.Errorf("copy home: %v: %s", err, out)
	}
	return sandbox.Snapshot{Dir: opts.Dir, Source: id, Bytes: 1000}, nil
}

func (p *fileSnapshots) Restore(ctx context.Context, snap sandbox.Snapshot, opts sandbox.RestoreOptions) (sandbox.Instance, error) {
	inst, err := p.Provider.Start(ctx, sandbox.Spec{Labels: opts.Labels})
	if err != nil {
		return inst, err
	}
	p.mu.Lock()
	p.inst[inst.ID] = inst
	p.mu.Unlock()
	home, err := p.home(ctx, inst.ID)
	if err == nil {
		var out []byte
		if out, err = exec.CommandContext(ctx, "cp", "-a", snap.Dir+"/.", home).CombinedOutput(); err != nil {
			err = fmt.Errorf("copy home: %v: %s", err, out)
		}
	}
	if err != nil {
		p.Stop(context.WithoutCancel(ctx), inst.ID)
		return sandbox.Instance{}, err
	}
	return inst, nil
}

// byKey maps results by Key.
func byKey(results []Result) map[string]Result {
	m := map[string]Result{}
	for _, r := range results {
		m[r.Key()] = r
	}
	return m
}

// TestSnapshotTrials runs file tasks with three trials each: the first
// trial of each task sets it up and saves it, the other two start from
// it without a setup, and all score as without snapshots; a later run
// with the same cache restores every trial; a changed task file is set
// up anew; a cache bounded to one entry keeps only the newest.
func TestSnapshotTrials(t *testing.T) {
	p := newFileSnapshots(t)
	m := newManager(t, p)
	tasks := loadSuite(t, "files-copy-notes", "files-count-lines")
	cache, err := OpenSnapshotCache(filepath.Join(t.TempDir(), "snapshots"), 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Manager: m, Agent: agent.Replay{}, Parallel: 2, Trials: 3, Snapshots: cache}

	cfg.Out = t.TempDir()
	results, err := Run(t.Context(), cfg, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 {
		t.Fatalf("%d results, want 6", len(results))
	}
	for _, tk := range tasks {
		saved, restored := 0, 0
		for n := 1; n <= 3; n++ {
			r := byKey(results)[Result{ID: tk.ID, Trial: n}.Key()]
			if r.Status != StatusPassed || r.Score != 1 {
				t.Errorf("%s: %s score %v (%s), want passed", r.Key(), r.Status, r.Score, r.Error)
			}
			switch r.Snapshot {
			case SnapshotSaved:
				saved++
				if r.SetupMS == 0 || r.SnapshotError != "" {
					t.Errorf("%s saved: setup %d ms, snapshot error %q", r.Key(), r.SetupMS, r.SnapshotError)
				}
			case SnapshotRestored:
				restored++
				if r.SetupMS != 0 {
					t.Errorf("%s restored, yet its setup took %d ms", r.Key(), r.SetupMS)
				}
			default:
				t.Errorf("%s: snapshot %q (%s), want saved or restored", r.Key(), r.Snapshot, r.SnapshotError)
			}
		}
		if saved != 1 || restored != 2 {
			t.Errorf("%s: %d trials saved and %d restored, want 1 and 2", tk.ID, saved, restored)
		}
	}
	if n, _ := cache.Usage(); n != 2 {
		t.Errorf("the cache holds %d entries, want 2 (a task each)", n)
	}

	// A later run restores every trial, starting no sandbox of its own.
	before := p.startsOf(tasks[0].ID + ".trial-1")
	cfg.Out = t.TempDir()
	results, err = Run(t.Context(), cfg, tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status != StatusPassed || r.Snapshot != SnapshotRestored {
			t.Errorf("rerun %s: %s, snapshot %q (%s); want passed, restored", r.Key(), r.Status, r.Snapshot, r.SnapshotError)
		}
	}
	if after := p.startsOf(tasks[0].ID + ".trial-1"); after != before {
		t.Errorf("the rerun started %d sandboxes for %s's first trial, want none", after-before, tasks[0].ID)
	}

	// A changed task file is another key: set up anew. The cache,
	// bounded below one entry's size, keeps only that newest entry.
	changed := *tasks[0]
	changed.SHA256 = strings.Repeat("0", 64)
	small, err := OpenSnapshotCache(cache.Dir(), 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Out, cfg.Trials, cfg.Snapshots = t.TempDir(), 1, small
	results, err = Run(t.Context(), cfg, []*task.Task{&changed})
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; r.Status != StatusPassed || r.Snapshot != SnapshotSaved {
		t.Errorf("changed task: %s, snapshot %q (%s); want passed, saved", r.Status, r.Snapshot, r.SnapshotError)
	}
	if n, _ := small.Usage(); n != 1 {
		t.Errorf("the bounded cache holds %d entries, want 1", n)
	}
}

// TestSnapshotFallback: where the provider cannot save sandboxes, every
// trial runs its setup and scores as it would, and its result says why.
func TestSnapshotFallback(t *testing.T) {
	p := newTestProvider(t)
	m := newManager(t, p)
	tasks := loadSuite(t, "files-copy-notes")
	cache, err := OpenSnapshotCache(filepath.Join(t.TempDir(), "snapshots"), 0)
	if err != nil {
		t.Fatal(err)
	}
	results, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir(), Trials: 2, Snapshots: cache}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status != StatusPassed || r.Snapshot != "" || !strings.Contains(r.SnapshotError, "cannot snapshot") {
			t.Errorf("%s: %s, snapshot %q, error %q; want passed with the reason", r.Key(), r.Status, r.Snapshot, r.SnapshotError)
		}
	}
	if n, _ := cache.Usage(); n != 0 {
		t.Errorf("the cache holds %d entries, want none", n)
	}
}

// TestForkTrials runs a task's four trials from one set-up sandbox: the
// first sets it up, three are forks of it, each graded on its own.
func TestForkTrials(t *testing.T) {
	p := newFileSnapshots(t)
	m := newManager(t, p)
	tasks := loadSuite(t, "files-copy-notes")
	results, err := Run(t.Context(), Config{Manager: m, Agent: agent.Replay{}, Out: t.TempDir(), Trials: 4, ForkTrials: true}, tasks)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4 {
		t.Fatalf("%d results, want 4", len(results))
	}
	forked := 0
	for _, r := range results {
		if r.Status != StatusPassed {
			t.Errorf("%s: %s (%s), want passed", r.Key(), r.Status, r.Error)
		}
		if r.Snapshot == SnapshotForked {
			forked++
			if r.SetupMS != 0 {
				t.Errorf("%s forked, yet its setup took %d ms", r.Key(), r.SetupMS)
			}
		}
	}
	if forked != 3 {
		t.Errorf("%d trials forked, want 3", forked)
	}
	if n := p.startsOf(tasks[0].ID + ".trial-1"); n != 1 {
		t.Errorf("the first trial started %d sandboxes, want 1", n)
	}
}
