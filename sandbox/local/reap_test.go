package local

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
)

// reapChildEnv makes the test binary a runner that starts a sandbox with
// a program in the background, prints the sandbox's home, and waits to
// be killed.
const reapChildEnv = "DESKRUN_TEST_REAP_CHILD"

func reapChild() {
	agentd, dir := os.Getenv(reapChildEnv), os.Getenv("DESKRUN_TEST_REAP_DIR")
	p, err := NewWithConfig(Config{AgentdPath: agentd, TempDir: dir})
	if err != nil {
		panic(err)
	}
	inst, err := p.Start(context.Background(), sandbox.Spec{})
	if err != nil {
		panic(err)
	}
	c := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	if _, err := c.Exec(context.Background(), api.ExecRequest{Cmd: []string{"sh", "-c", "setsid sleep 1234 </dev/null >/dev/null 2>&1 &"}}); err != nil {
		panic(err)
	}
	home, _ := p.Marker(inst.ID)
	os.Stdout.WriteString(home + "\n")
	select {}
}

// TestReapAfterKilledRunner: a runner killed with SIGKILL leaves its
// sandbox's background programs and its folders; Reap, as a restarted
// server or deskrun reap runs it, removes them, and leaves the sandboxes
// of live runners alone.
func TestReapAfterKilledRunner(t *testing.T) {
	agentd := needAgentd(t)
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), reapChildEnv+"="+agentd, "DESKRUN_TEST_REAP_DIR="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	marker, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		child.Process.Kill()
		t.Fatalf("the runner did not start its sandbox: %v", err)
	}
	marker = strings.TrimSpace(marker)

	// A live runner's sandbox is not reaped.
	mine := newProvider(t, Config{TempDir: dir})
	if removed, err := mine.Reap(t.Context()); err != nil || len(removed) != 0 {
		t.Fatalf("reap with the runner alive: %v %v", removed, err)
	}

	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	time.Sleep(200 * time.Millisecond)
	if len(Marked(marker)) == 0 {
		t.Fatal("nothing of the killed runner's sandbox is left: the test shows nothing")
	}
	homes, _ := filepath.Glob(filepath.Join(dir, "deskrun-sandbox-*"))
	if len(homes) != 1 {
		t.Fatalf("homes %v", homes)
	}
	removed, err := mine.Reap(t.Context())
	if err != nil || len(removed) != 1 || removed[0] != homes[0] {
		t.Errorf("reap: %v %v, want %v", removed, err, homes)
	}
	if left := Marked(marker); len(left) != 0 {
		t.Errorf("processes left: %v", left)
	}
	if _, err := os.Stat(homes[0]); !os.IsNotExist(err) {
		t.Errorf("home %s: %v, want removed", homes[0], err)
	}
}
