// Package agentdtest is the shared harness of the tests that run
// desktops:
// the gate of the local X tier ([NeedX]: skipped under -short, failed
// when Xvfb is missing), agentd and other commands built once per test
// binary ([Build], [Agentd]: a failed build fails the test, never skips
// it), and an agentd started on its own Xvfb ([StartAgentd]). It lives
// beside agentd, what it starts, and imports only agentd's client, so
// the tests of every floor may use it; no non-test package may (the
// dependency test in the module's root checks it).
package agentdtest

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sync"
	"testing"
)

// The binaries Build made in this test process, one folder for all,
// removed by [Main].
var built struct {
	mu   sync.Mutex
	dir  string
	bins map[string]*buildResult
}

type buildResult struct {
	once sync.Once
	path string
	err  error
}

// AgentdPkg is the import path of agentd's command.
const AgentdPkg = "github.com/deskrun/deskrun/cmd/agentd"

// Main runs m and then removes what [Build] made; a package whose tests
// build binaries or start [Spin] children calls it from its TestMain:
// os.Exit(agentdtest.Main(m)). In a [Spin] child it spins instead.
func Main(m *testing.M) int {
	if child, err := spinning(); child {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return 0
	}
	code := m.Run()
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.bins = "", nil
	}
	return code
}

// Build builds the command pkg (an import path of this module) once per
// test binary and returns the path of the binary; later calls, also from
// parallel tests, wait for that one build. A failed build fails t (every
// test that asks), never skips it: a broken build must show.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	built.mu.Lock()
	if built.bins == nil {
		built.bins = map[string]*buildResult{}
	}
	r := built.bins[pkg]
	if r == nil {
		r = &buildResult{}
		built.bins[pkg] = r
	}
	built.mu.Unlock()
	r.once.Do(func() {
		built.mu.Lock()
		if built.dir == "" {
			built.dir, r.err = os.MkdirTemp("", "deskrun-test-bin-")
		}
		dir := built.dir
		built.mu.Unlock()
		if r.err != nil {
			return
		}
		bin := filepath.Join(dir, path.Base(pkg))
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			r.err = fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
			return
		}
		r.path = bin
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.path
}

// Agentd checks the machine can run desktops ([NeedX]) and returns the
// agentd binary built once per test binary ([Build]).
func Agentd(t testing.TB) string {
	t.Helper()
	NeedX(t)
	return Build(t, AgentdPkg)
}

// NeedX is the gate of the local X tier: it skips t in -short mode (so
// `go test -short ./...` needs no X server), and otherwise fails t when
// Xvfb or one of programs is not installed (scripts/install-deps.sh
// installs them).
func NeedX(t testing.TB, programs ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Xvfb; skipped in -short mode")
	}
	for _, p := range append([]string{"Xvfb"}, programs...) {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (scripts/install-deps.sh installs it)", p)
		}
	}
}
