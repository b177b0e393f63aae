package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestOSWorldProvider runs the Python tests of the OSWorld provider
// (integrations/osworld) against deskrun serve with local sandboxes:
// start, the address in OSWorld's form, /screenshot, /execute, upload and
// file through it, revert and stop.
func TestOSWorldProvider(t *testing.T) {
	srv := startServe(t, "--provider", "local", "--token", "tok")
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, with python3-requests
	}
	if out, err := exec.Command(python, "-c", "import requests").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import requests (scripts/install-deps.sh installs python3-requests): %v\n%s", python, err, out)
	}
	cmd := exec.Command(python, "../../integrations/osworld/test_deskrun_provider.py")
	cmd.Env = append(os.Environ(), "DESKRUN_URL="+srv.url, "DESKRUN_TOKEN=tok", "DESKRUN_SANDBOX_PROVIDER=local")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python tests: %v", err)
	}
	if !strings.Contains(string(out), "OK") {
		t.Errorf("python tests did not report OK")
	}
}
