package deskrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/deskrun/deskrun"

// listed is a package as `go list -json` gives it.
type listed struct {
	ImportPath string
	Deps       []string
}

// goList lists the packages matching patterns with their dependencies
// (the non-test imports, transitively).
func goList(t *testing.T, patterns ...string) []listed {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go list; skipped in -short mode")
	}
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Deps"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestDeps guards the floors (README, "Layout"): an import only goes
// down, as Tailscale's deptest guards its binaries. It fails as well
// when a package it names no longer exists.
func TestDeps(t *testing.T) {
	// Test harnesses: packages only tests may import.
	harness := []string{module + "/agentd/agentdtest", module + "/agentd/rfb/rfbtest", module + "/sandbox/local/localtest", module + "/x11/internal/xvfbtest"}
	isHarness := func(dep string) bool {
		for _, h := range harness {
			if dep == h {
				return true
			}
		}
		return false
	}
	// The host: everything but agentd's side. It never links X11 (xgb,
	// the x11 package; x11/keysym is generated tables, no X), agentd's
	// server or its parts (agentd/client, which imports only the
	// contract, is how the host talks to it).
	for _, p := range goList(t, "./api/...", "./runner/...", "./sandbox/...", "./server/...", "./cmd/deskrun", "./internal/...", "./integrations/...") {
		if isHarness(p.ImportPath) {
			continue
		}
		for _, d := range p.Deps {
			switch {
			case strings.HasPrefix(d, "github.com/jezek/xgb"),
				d == module+"/x11", strings.HasPrefix(d, module+"/x11/internal"),
				d == module+"/agentd", strings.HasPrefix(d, module+"/agentd/") && d != module+"/agentd/client",
				d == module+"/cmd/agentd":
				t.Errorf("host package %s depends on %s", p.ImportPath, d)
			case isHarness(d):
				t.Errorf("%s depends on the test harness %s", p.ImportPath, d)
			}
		}
	}
	// No package but a harness itself depends on a harness.
	all := goList(t, "./...")
	for _, p := range all {
		if isHarness(p.ImportPath) {
			continue
		}
		for _, d := range p.Deps {
			if isHarness(d) {
				t.Errorf("%s depends on the test harness %s", p.ImportPath, d)
			}
		}
	}
	// The contract depends on nothing of deskrun outside api/.
	for _, p := range goList(t, "./api/...") {
		for _, d := range p.Deps {
			if strings.HasPrefix(d, module+"/") && !strings.HasPrefix(d, module+"/api/") && d != module+"/api" {
				t.Errorf("contract package %s depends on %s", p.ImportPath, d)
			}
		}
	}
	// The OSWorld port's floors: metrics and the guest server never
	// depend on the task executor, readers and primitives on neither,
	// Python semantics on nothing of deskrun.
	below := map[string][]string{
		module + "/runner/task/metric":          {module + "/runner/task", module + "/runner/task/vm"},
		module + "/runner/task/vm":              {module + "/runner/task", module + "/runner/task/metric"},
		module + "/runner/task/internal/office": {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
		module + "/runner/task/internal/atree":  {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
		module + "/runner/task/internal/pil":    {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
		module + "/runner/task/internal/dsp":    {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
		module + "/runner/task/internal/id3":    {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
		module + "/runner/task/internal/lxml":   {module + "/runner/task", module + "/runner/task/metric", module + "/runner/task/vm"},
	}
	for _, p := range goList(t, "./runner/task/...", "./internal/py") {
		for _, d := range p.Deps {
			for _, no := range below[p.ImportPath] {
				if d == no {
					t.Errorf("%s depends on %s, a floor above it", p.ImportPath, d)
				}
			}
			if p.ImportPath == module+"/internal/py" && strings.HasPrefix(d, module+"/") {
				t.Errorf("internal/py depends on %s", d)
			}
		}
	}
	// Every package the rules above name exists: a rename must carry the
	// rule along, not leave it guarding nothing.
	exists := map[string]bool{}
	for _, p := range all {
		exists[p.ImportPath] = true
	}
	named := append([]string{module + "/x11", module + "/agentd", module + "/agentd/client", module + "/cmd/agentd", module + "/api", module + "/internal/py"}, harness...)
	for p, floors := range below {
		named = append(append(named, p), floors...)
	}
	for _, p := range named {
		if !exists[p] {
			t.Errorf("TestDeps names %s, which is not a package of the module (renamed or removed: update the rule)", p)
		}
	}
}

// TestNoInit checks that nothing under runner/ registers itself: no
// init function, so every table is a literal a reader can find.
func TestNoInit(t *testing.T) {
	err := filepath.WalkDir("runner", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if strings.HasPrefix(sc.Text(), "func init()") {
				t.Errorf("%s:%d: an init function", path, n)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}
