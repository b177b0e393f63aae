package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/api/client"
)

// server is a deskrun serve child process.
type serveProc struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}

	mu  sync.Mutex
	log []map[string]any // its JSON log lines
}

// startServe runs bin/deskrun serve with args on a free port and waits
// for its "serving" log line.
func startServe(t *testing.T, args ...string) *serveProc {
	t.Helper()
	return startServeLogging(t, func(line string) { t.Logf("serve: %s", line) }, args...)
}

// startServeLogging is startServe with each line the server logs given
// to logf.
func startServeLogging(t *testing.T, logf func(line string), args ...string) *serveProc {
	t.Helper()
	agentdtest.NeedX(t, "openbox", "xterm")
	cmd := exec.Command(filepath.Join(binDir(t), "deskrun"), append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "DESKRUN_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serveProc{cmd: cmd, done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logf(sc.Text())
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			s.mu.Lock()
			s.log = append(s.log, line)
			s.mu.Unlock()
			if line["msg"] == "serving" {
				ready <- line["addr"].(string)
			}
		}
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-s.done
	})
	select {
	case addr := <-ready:
		s.url = "http://" + addr
	case <-s.done:
		t.Fatalf("deskrun serve exited before serving: %v", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		t.Fatal("deskrun serve did not log that it serves")
	}
	return s
}

// logged returns the first log line with msg.
func (s *serveProc) logged(msg string) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.log {
		if l["msg"] == msg {
			return l
		}
	}
	return nil
}

// TestServe runs deskrun serve as a process with the local provider (its
// agentd found beside it), drives a session through the sessions
// subcommand, and checks that SIGTERM deletes the sessions, leaving no
// process of theirs behind, and ends the server with status 0.
func TestServe(t *testing.T) {
	srv := startServe(t, "--provider", "local", "--token", "tok")
	cli := func(args ...string) (int, string, string) {
		t.Helper()
		return runCLI(t, append([]string{"sessions", "--server", srv.url, "--token", "tok"}, args...)...)
	}

	resp, err := http.Get(srv.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var h api.Health
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Status != "ok" || strings.Join(h.Providers, ",") != "local" {
		t.Errorf("healthz: %d %+v", resp.StatusCode, h)
	}
	if code, _, stderr := runCLI(t, "sessions", "--server", srv.url, "list"); code != 1 || !strings.Contains(stderr, "bearer token") {
		t.Errorf("without the token: %d %q", code, stderr)
	}

	code, stdout, stderr := cli("create", "-q", "--screen", "800x600", "--label", "who=cli")
	id := strings.TrimSpace(stdout)
	if code != 0 || id == "" {
		t.Fatalf("create: %d %q %q", code, stdout, stderr)
	}
	code, stdout, _ = cli("list", "--json")
	var l api.SessionList
	if err := json.Unmarshal([]byte(stdout), &l); code != 0 || err != nil || len(l.Sessions) != 1 || l.Sessions[0].ID != id ||
		l.Sessions[0].Screen != (api.Screen{Width: 800, Height: 600}) || l.Sessions[0].Labels["who"] != "cli" {
		t.Errorf("list: %d %s %v", code, stdout, err)
	}
	if code, stdout, _ := cli("list"); code != 0 || !strings.Contains(stdout, id+"  local     800x600") {
		t.Errorf("list table: %d\n%s", code, stdout)
	}
	code, stdout, _ = cli("get", id)
	var s api.Session
	if err := json.Unmarshal([]byte(stdout), &s); code != 0 || err != nil || s.ID != id {
		t.Errorf("get: %d %s", code, stdout)
	}

	// exec passes the command's output and exit status through.
	code, stdout, stderr = cli("exec", id, "--env", "WHO=cli", "--", "sh", "-c", `xsetroot -solid '#ff8000'; echo "out $WHO"; echo err >&2; exit 7`)
	if code != 7 || stdout != "out cli\n" || stderr != "err\n" {
		t.Errorf("exec: %d %q %q", code, stdout, stderr)
	}
	stdin := writeFile(t, "in.txt", "fed\n")
	if code, stdout, _ := cli("exec", id, "--stdin", stdin, "--", "cat"); code != 0 || stdout != "fed\n" {
		t.Errorf("exec --stdin: %d %q", code, stdout)
	}
	if code, _, stderr := cli("exec", id, "--timeout", "200ms", "--", "sleep", "5"); code != 124 || !strings.Contains(stderr, "timed out") {
		t.Errorf("exec --timeout: %d %q", code, stderr)
	}

	// screenshot saves the image; the pixels are what xsetroot painted.
	shot := filepath.Join(t.TempDir(), "shot.png")
	if code, _, stderr := cli("screenshot", id, "-o", shot, "--max-width", "400"); code != 0 || !strings.Contains(stderr, "400x300 (scale 0.5 of the 800x600 screen)") {
		t.Errorf("screenshot: %d %q", code, stderr)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(200, 150).RGBA(); r>>8 != 0xff || g>>8 != 0x80 || b>>8 != 0 {
		t.Errorf("pixel %02x%02x%02x, want ff8000", r>>8, g>>8, b>>8)
	}

	// input, then cursor.
	if code, stdout, _ := cli("input", id, `[{"type":"move","x":321,"y":123}]`); code != 0 || !strings.Contains(stdout, `"ok": true`) {
		t.Errorf("input: %d %s", code, stdout)
	}
	code, stdout, _ = cli("cursor", id)
	var p api.Point
	if err := json.Unmarshal([]byte(stdout), &p); code != 0 || err != nil || p != (api.Point{X: 321, Y: 123}) {
		t.Errorf("cursor: %d %s", code, stdout)
	}
	if code, stdout, stderr := cli("input", id, `{"actions":[{"type":"move","x":900,"y":0}]}`); code != 1 || stdout != "" || !strings.Contains(stderr, "actions[0].x: 900 is off the screen") {
		t.Errorf("bad input: %d %q %q", code, stdout, stderr)
	}

	// write and read a file.
	src := writeFile(t, "src.txt", "über\x00bytes")
	dst := filepath.Join(t.TempDir(), "dst.txt")
	if code, _, stderr := cli("write", id, dst, src); code != 0 {
		t.Errorf("write: %d %q", code, stderr)
	}
	if code, stdout, _ := cli("read", id, dst); code != 0 || stdout != "über\x00bytes" {
		t.Errorf("read: %d %q", code, stdout)
	}
	if code, _, stderr := cli("read", id, dst+".missing"); code != 1 || !strings.Contains(stderr, "missing") {
		t.Errorf("read missing: %d %q", code, stderr)
	}

	// tool: a screenshot's image goes to a file, not the terminal; a
	// refused call is printed and exits 1.
	dir := t.TempDir()
	code, stdout, _ = cli("tool", id, "computer", `{"action":"screenshot"}`, "--images", dir)
	if code != 0 || strings.Contains(stdout, `"data"`) || !strings.Contains(stdout, `"mime_type": "image/png"`) {
		t.Errorf("tool screenshot: %d %s", code, stdout)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "computer-*.png")); len(m) != 1 {
		t.Errorf("saved images: %v", m)
	}
	if code, stdout, _ := cli("tool", id, "computer", `{"action":"fly"}`); code != 1 || !strings.Contains(stdout, `"is_error": true`) {
		t.Errorf("refused tool call: %d %s", code, stdout)
	}

	// A second session, recorded, with a process of its own, left running.
	code, stdout, _ = cli("create", "-q", "--record")
	id2 := strings.TrimSpace(stdout)
	if code != 0 || id2 == "" {
		t.Fatalf("create 2: %d", code)
	}
	// The encoder writes the file's head with its first frame, within a
	// second.
	video := filepath.Join(t.TempDir(), "rec.webm")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		code, _, stderr := cli("recording", id2, "-o", video)
		if code != 0 {
			t.Fatalf("recording: %d %q", code, stderr)
		}
		b, _ := os.ReadFile(video)
		if bytes.HasPrefix(b, []byte("\x1a\x45\xdf\xa3")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recording so far is not a WebM file: % x", b[:min(len(b), 8)])
		}
	}
	if code, _, stderr := cli("recording", id); code != 1 || !strings.Contains(stderr, "not recorded") {
		t.Errorf("recording of a session without: %d %q", code, stderr)
	}
	code, stdout, _ = cli("exec", id2, "--", "sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $!")
	pid, err := strconv.Atoi(strings.TrimSpace(stdout))
	if code != 0 || err != nil {
		t.Fatalf("background sleep: %d %q", code, stdout)
	}
	if code, _, stderr := cli("delete", id); code != 0 {
		t.Errorf("delete: %d %q", code, stderr)
	}
	if code, _, stderr := cli("get", id); code != 1 || !strings.Contains(stderr, "not found") {
		t.Errorf("get after delete: %d %q", code, stderr)
	}

	// SIGTERM: the server deletes the remaining session and exits 0.
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
	case <-time.After(60 * time.Second):
		t.Fatal("deskrun serve did not stop within 60s of SIGTERM")
	}
	if c := srv.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit status %d after SIGTERM", c)
	}
	if l := srv.logged("stopped"); l == nil || l["sessions_deleted"] != float64(1) {
		t.Errorf("stopped log line: %v", l)
	}
	if alive(pid) {
		t.Errorf("process %d of the deleted session still runs", pid)
	}
}

// alive reports whether the process pid runs (a zombie does not), waiting
// a little for one being killed.
func alive(pid int) bool {
	for range 50 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(b, ')'); i > 0 && len(b) > i+2 && (b[i+2] == 'Z' || b[i+2] == 'X') {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
	return true
}

// TestServeAuto: with --provider auto, the server offers docker exactly
// when an engine answers and its sandbox image exists, and local beside
// it.
func TestServeAuto(t *testing.T) {
	// An owner of its own, so that the leftovers reaped at start can only
	// be this test's.
	srv := startServe(t, "--provider", "auto", "--owner", "deskrun-test-"+strconv.Itoa(os.Getpid()))
	h, err := client.NewClient(srv.url, "", nil).Health(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := "local"
	if out, err := exec.Command("docker", "image", "inspect", "--format", "ok", "deskrun/minimal:latest").Output(); err == nil && strings.TrimSpace(string(out)) == "ok" {
		want = "docker,local"
	}
	if got := strings.Join(h.Providers, ","); got != want {
		t.Errorf("providers %s, want %s", got, want)
	}
	if l := srv.logged("serving"); l == nil || l["default_provider"] != strings.Split(want, ",")[0] {
		t.Errorf("serving log line %v, want default provider %s", l, strings.Split(want, ",")[0])
	}
	_ = srv.cmd.Process.Signal(syscall.SIGINT)
	<-srv.done
	if c := srv.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit status %d after SIGINT", c)
	}
}

// childAgentds returns the pids of the agentd processes whose parent is
// pid.
func childAgentds(t *testing.T, pid int) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || !bytes.HasSuffix(b[:i], []byte("(agentd")) {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			out[filepath.Base(filepath.Dir(p))] = true
		}
	}
	return out
}

// TestServeWarm: with --warm 2 the server keeps two local sandboxes
// started ahead, hands one to the next session that fits and starts a
// replacement; SIGTERM stops the warm ones with the rest.
func TestServeWarm(t *testing.T) {
	srv := startServe(t, "--provider", "local", "--warm", "2")
	pid := srv.cmd.Process.Pid
	var warm map[string]bool
	deadline := time.Now().Add(30 * time.Second)
	for warm = childAgentds(t, pid); len(warm) != 2; warm = childAgentds(t, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%d warm agentd processes, want 2", len(warm))
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := client.NewClient(srv.url, "", nil)
	s, err := c.CreateSession(t.Context(), api.CreateSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// A local sandbox's id is its agentd's pid and start time.
	sbPID, _, _ := strings.Cut(s.SandboxID, "-")
	if !warm[sbPID] {
		t.Errorf("session's sandbox %s is not one of the warm ones %v", s.SandboxID, warm)
	}
	// The pool starts a replacement: three agentd, the session's among
	// them.
	deadline = time.Now().Add(30 * time.Second)
	for now := childAgentds(t, pid); len(now) != 3 || !now[sbPID]; now = childAgentds(t, pid) {
		if time.Now().After(deadline) {
			t.Fatalf("agentd processes %v, want 3 with %s", now, sbPID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	all := childAgentds(t, pid)
	_ = srv.cmd.Process.Signal(syscall.SIGTERM)
	<-srv.done
	if c := srv.cmd.ProcessState.ExitCode(); c != 0 {
		t.Errorf("exit status %d after SIGTERM", c)
	}
	for p := range all {
		n, _ := strconv.Atoi(p)
		if alive(n) {
			t.Errorf("agentd %d still runs after the server stopped", n)
		}
	}
}

// TestServeTLSSelfSigned: with --tls-self-signed the server speaks HTTPS
// under a certificate authority it writes for clients to trust, with a
// certificate for the address clients dial and for each name they ask
// for, a sandbox's port P-ID.DOMAIN included.
func TestServeTLSSelfSigned(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	srv := startServe(t, "--provider", "local", "--token", "tok", "--tls-self-signed", ca)
	pemBytes, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no certificate", ca)
	}
	addr := strings.TrimPrefix(srv.url, "http://")
	for _, name := range []string{"", "localhost", "6080-0123456789abcdef.localhost"} {
		c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name}, ForceAttemptHTTP2: true,
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			},
		}}
		host := cmp.Or(name, addr)
		resp, err := c.Get("https://" + host + "/healthz")
		if err != nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		resp.Body.Close()
		// A sandbox's host reaches the E2B front (no such sandbox: 502),
		// the others the server (healthz: 200).
		want := 200
		if strings.HasPrefix(name, "6080-") {
			want = 502
		}
		if resp.StatusCode != want {
			t.Errorf("%q: status %d, want %d", name, resp.StatusCode, want)
		}
		if resp.ProtoMajor != 2 {
			t.Errorf("%q: %s, want HTTP/2 (E2B's SDKs ask for it)", name, resp.Proto)
		}
	}
	// Plain HTTP is not served.
	if resp, err := http.Get(srv.url + "/healthz"); err == nil && resp.StatusCode == 200 {
		resp.Body.Close()
		t.Error("plain HTTP answered 200")
	}
	if code, _, stderr := runCLI(t, "serve", "--tls-cert", ca); code != 2 || !strings.Contains(stderr, "--tls-key") {
		t.Errorf("--tls-cert alone: %d %q", code, stderr)
	}
}
