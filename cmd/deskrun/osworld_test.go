package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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

// TestOSWorldDesktopEnv builds OSWorld's own DesktopEnv with
// provider_name "deskrun" (integrations/osworld/test_desktop_env.py) from
// the checkout DESKRUN_OSWORLD_DIR names, against deskrun serve with
// docker sandboxes of deskrun/osworld: the name accepted, DesktopEnv's
// screen size, sudo on by default, and a task of OSWorld's whose setup
// runs sudo -S scored 0 unsolved and 1 solved by OSWorld's evaluate.
func TestOSWorldDesktopEnv(t *testing.T) {
	dir := os.Getenv("DESKRUN_OSWORLD_DIR")
	if dir == "" {
		t.Skip("DESKRUN_OSWORLD_DIR is not set: no OSWorld checkout to import DesktopEnv from")
	}
	if _, err := os.Stat(filepath.Join(dir, "desktop_env", "desktop_env.py")); err != nil {
		t.Fatalf("DESKRUN_OSWORLD_DIR=%s is not an OSWorld checkout: %v", dir, err)
	}
	const image = "deskrun/osworld"
	if out, err := exec.Command("docker", "image", "inspect", "--format", "{{.Id}}", image).CombinedOutput(); err != nil {
		t.Skipf("no image %s (make images builds it): %v: %s", image, err, bytes.TrimSpace(out))
	}
	python := "python3"
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		python = "/usr/bin/python3" // Debian's, with OSWorld's Debian-packaged dependencies
	}
	srv := startServe(t, "--provider", "docker", "--token", "tok")
	cmd := exec.Command(python, "../../integrations/osworld/test_desktop_env.py")
	cmd.Env = append(os.Environ(), "DESKRUN_URL="+srv.url, "DESKRUN_TOKEN=tok", "DESKRUN_IMAGE="+image,
		"DESKRUN_OSWORLD_DIR="+dir, "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("python tests: %v", err)
	}
	if !strings.Contains(string(out), "OK") || strings.Contains(string(out), "skipped") {
		t.Errorf("python tests did not all run and pass")
	}
}
