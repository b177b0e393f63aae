package x11

import (
	"os"
	"os/exec"
	"testing"
)

// Windows gives both parts of WM_CLASS: the instance and the class.
func TestWindowsClassAndInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Xvfb")
	}
	d := startXvfb(t, "640x480x24")
	c := dial(t, d)
	cmd := exec.Command("xterm", "-name", "deskrun-inst", "-class", "DeskrunClass", "-e", "sleep", "30")
	cmd.Env = append(os.Environ(), "DISPLAY="+d)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var got []Window
	waitFor(t, "the xterm among the windows", func() bool {
		got, _ = c.Windows()
		for _, w := range got {
			if w.Instance == "deskrun-inst" && w.Class == "DeskrunClass" {
				return true
			}
		}
		return false
	})
}
