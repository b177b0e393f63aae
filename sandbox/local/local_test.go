package local

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deskrun/deskrun/agentd"
	"github.com/deskrun/deskrun/sandbox"
)

func build(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if testing.Short() {
			t.Skip("Xvfb is not installed")
		}
		t.Fatal("Xvfb is not installed (scripts/install-deps.sh installs it)")
	}
	bin := filepath.Join(t.TempDir(), "agentd")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/agentd").CombinedOutput(); err != nil {
		t.Fatalf("build agentd: %v\n%s", err, out)
	}
	return bin
}

// group lists the live processes in agentd's process group and its
// children (Xvfb and the window manager run in groups of their own).
func group(pgid int) []string {
	var out []string
	ents, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range ents {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		st := string(b)
		c := strings.LastIndexByte(st, ')')
		var state string
		var ppid, pg int
		fmt.Sscanf(st[c+2:], "%s %d %d", &state, &ppid, &pg)
		if (pg == pgid || ppid == pgid) && state != "Z" {
			out = append(out, st[:c+1])
		}
	}
	return out
}

func TestStartStopLeavesNothing(t *testing.T) {
	p, err := New(build(t), "openbox")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := p.Start(ctx, sandbox.Spec{Labels: map[string]string{"k": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Start(ctx, sandbox.Spec{Labels: map[string]string{"k": "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.AgentURL == b.AgentURL || a.Token == b.Token || a.Token == "" {
		t.Errorf("sandboxes share an address or token: %+v %+v", a, b)
	}
	ha, err := agentd.NewClient(a.AgentURL, a.Token, nil).Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := agentd.NewClient(b.AgentURL, b.Token, nil).Health(ctx)
	if err != nil || ha.Display == hb.Display {
		t.Errorf("displays %q %q (%v)", ha.Display, hb.Display, err)
	}
	if _, err := agentd.NewClient(a.AgentURL, b.Token, nil).Screen(ctx); err == nil {
		t.Error("sandbox a accepted b's token")
	}
	if l, _ := p.List(ctx, map[string]string{"k": "b"}); len(l) != 1 || l[0].ID != b.ID {
		t.Errorf("List by label: %+v", l)
	}
	var pgid int
	fmt.Sscan(a.ID, &pgid)
	if n := len(group(pgid)); n < 2 {
		t.Fatalf("sandbox a runs %d processes, want agentd and Xvfb at least", n)
	}
	before := group(pgid)
	if err := p.Stop(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, pr := range before {
		var pid int
		fmt.Sscan(pr, &pid)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("after Stop, %s remains", pr)
		}
	}
	if err := p.Stop(ctx, a.ID); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if _, err := agentd.NewClient(b.AgentURL, b.Token, nil).Health(ctx); err != nil {
		t.Errorf("b died with a: %v", err)
	}
	fmt.Sscan(b.ID, &pgid)
	before = group(pgid)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, pr := range before {
		var pid int
		fmt.Sscan(pr, &pid)
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && !strings.Contains(string(b), ") Z ") {
			t.Errorf("after Close, %s remains", pr)
		}
	}
}

func TestFailedStartLeavesNothing(t *testing.T) {
	if _, err := New("/no/such/agentd", ""); err == nil {
		t.Error("New with a missing binary: want an error")
	}
	// A program that exits at once in agentd's place.
	p, err := New("false", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(context.Background(), sandbox.Spec{}); err == nil || !strings.Contains(err.Error(), "agentd did not start") {
		t.Errorf("start of a failing agentd: %v", err)
	}
	if l, _ := p.List(context.Background(), nil); len(l) != 0 {
		t.Errorf("a failed start is listed: %+v", l)
	}
}
