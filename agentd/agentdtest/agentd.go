package agentdtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	agentdclient "github.com/deskrun/deskrun/agentd/client"
)

// Desktop is an agentd running on its own Xvfb, started by [StartAgentd].
type Desktop struct {
	// URL is agentd's address ("http://127.0.0.1:port").
	URL string
	// Token is the bearer token agentd requires.
	Token string
	// Display is the X display of its Xvfb (":99").
	Display string
	// Home is the HOME of agentd and what it starts: a folder of the test.
	Home string
	// PID is agentd's process id.
	PID int
}

// KillUsing kills the processes whose command line names dir or a path
// under it, looking again until it finds none three times in a row (a process
// may fork as its parent dies), for at most 5 s.
func KillUsing(dir string) {
	deadline := time.Now().Add(5 * time.Second)
	for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && (bytes.Contains(b, []byte(dir+"/")) || bytes.Contains(b, []byte(dir+"\x00"))) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// StartAgentd starts the agentd [Agentd] built, on its own Xvfb of
// 1280x800 with HOME in a folder of the test, plus args (for example
// "--wm", "openbox"), and returns once it answers its health check. The
// test's cleanup stops it. It skips under -short ([NeedX]).
func StartAgentd(t testing.TB, args ...string) Desktop {
	t.Helper()
	bin := Agentd(t)
	d := Desktop{Token: "test-token", Home: t.TempDir()}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"--addr", "127.0.0.1:0", "--xvfb", "--screen", "1280x800x24"}, args...)...)
	cmd.Env = append(os.Environ(), "AGENTD_TOKEN="+d.Token, "HOME="+d.Home)
	cmd.Stderr = os.Stderr
	// agentd stops what it started on SIGTERM (its browser among them)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		// Before the test's folders go: a browser's helpers (its
		// network service, its zygote) can outlive the browser for a
		// moment and write in its profile under Home.
		KillUsing(d.Home)
	})
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var ready struct{ Addr, Display string }
	select {
	case l := <-line:
		if err := json.Unmarshal([]byte(l), &ready); err != nil || ready.Addr == "" {
			t.Fatalf("agentd printed %q, want {\"addr\":...}", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("agentd did not report its address within 30s")
	}
	d.URL, d.Display, d.PID = "http://"+ready.Addr, ready.Display, cmd.Process.Pid
	hctx, hcancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer hcancel()
	if err := agentdclient.WaitHealthy(hctx, d.URL, nil, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return d
}
