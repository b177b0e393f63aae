//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/api/e2b/envd/filesystem"
	"github.com/deskrun/deskrun/api/e2b/envd/process"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
	"github.com/moby/moby/client"
	"golang.org/x/sync/errgroup"
)

// e2bServer is `deskrun serve` on docker sandboxes, reached through its
// E2B front with deskrun's own client of E2B's protocol.
type e2bServer struct {
	*apiDesk
	c          *e2btest.Client
	sandboxURL string // E2B_SANDBOX_URL
	domain     string // E2B_DOMAIN
}

func startE2B(t *testing.T) *e2bServer {
	t.Helper()
	engine(t, minimalImage)
	d := serveDeskrun(t, 60*time.Second, 2*time.Minute, "--provider", "docker", "--image", minimalImage)
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	return &e2bServer{
		apiDesk: d, c: &e2btest.Client{Base: d.url + "/e2b", Key: d.token, HTTP: d.hc},
		sandboxURL: d.url + "/e2b", domain: "localhost:" + u.Port(),
	}
}

// create creates a sandbox of the base template (the minimal image) and
// kills it when the test ends.
func (s *e2bServer) create(t *testing.T, body map[string]any) e2btest.Sandbox {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["templateID"] = "base"
	if body["timeout"] == nil {
		body["timeout"] = 600
	}
	sb, err := s.c.Create(t.Context(), body)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() {
		if err := s.c.Kill(context.WithoutCancel(t.Context()), sb.SandboxID); err != nil && e2btest.StatusOf(err) != 404 {
			t.Errorf("kill %s: %v", sb.SandboxID, err)
		}
	})
	return sb
}

// TestE2B drives docker sandboxes through deskrun serve's E2B front as
// E2B's SDKs do: commands, files, ports, tokens, bad input, set_timeout,
// and sixteen sandboxes at once.
func TestE2B(t *testing.T) {
	s := startE2B(t)
	t.Run("commands", func(t *testing.T) { testE2BCommands(t, s) })
	t.Run("files", func(t *testing.T) { testE2BFiles(t, s) })
	t.Run("ports and tokens", func(t *testing.T) { testE2BPorts(t, s) })
	t.Run("bad input", func(t *testing.T) { testE2BBadInput(t, s) })
	t.Run("set_timeout", func(t *testing.T) { testE2BTimeout(t, s) })
	t.Run("sixteen at once", func(t *testing.T) { testE2BSixteen(t, s) })
}

func testE2BCommands(t *testing.T, s *e2bServer) {
	ctx := t.Context()
	sb := s.create(t, map[string]any{"envVars": map[string]string{"FROM_CREATE": "created"}, "metadata": map[string]string{"test": t.Name()}})
	e := e2btest.NewEnvd(s.sandboxURL, sb, "user", s.hc)

	// Foreground: output, exit code, env of the create and of the call,
	// cwd, the desktop user.
	res, err := e.Run(ctx, `echo "$FROM_CREATE $FROM_CALL"; pwd; whoami; echo err >&2; exit 7`, map[string]string{"FROM_CALL": "call"}, "/tmp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "created call\n/tmp\nuser\n" || res.Stderr != "err\n" || res.ExitCode != 7 {
		t.Errorf("foreground: %+v", res)
	}

	// What the sandbox has: the docker provider's default limits (1 core,
	// 2 GiB), as its envd reads them from the container's cgroup.
	if sb.CPUCount == nil || *sb.CPUCount != 1 || sb.MemoryMB == nil || *sb.MemoryMB != 2048 {
		t.Errorf("cpuCount %v, memoryMB %v; want 1 and 2048", deref(sb.CPUCount), deref(sb.MemoryMB))
	}
	var ms []map[string]any
	if _, err := s.c.Do(ctx, "GET", "/sandboxes/"+sb.SandboxID+"/metrics", nil, &ms, 200); err != nil || len(ms) != 1 ||
		ms[0]["cpuCount"] != 1.0 || ms[0]["memTotal"] != float64(2<<30) || ms[0]["memUsed"].(float64) <= 0 {
		t.Errorf("metrics: %v %v; want one sample of 1 core and 2 GiB", ms, err)
	}
	if res, err := e.Run(ctx, "true", nil, "", nil); err != nil || res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("true: %+v %v", res, err)
	}

	// Streamed output: the second line waits for the test to see the
	// first.
	var wrote error
	res, err = e.Run(ctx, `echo first; while [ ! -e /tmp/go ]; do sleep 0.05; done; echo second`, nil, "", func(out, _ []byte) {
		if bytes.Contains(out, []byte("first")) {
			wrote = e.Write(ctx, "/tmp/go", strings.NewReader("1"))
		}
	})
	if err != nil || wrote != nil || res.Stdout != "first\nsecond\n" {
		t.Errorf("streamed: %+v %v %v", res, err, wrote)
	}

	// Stdin: cat echoes what SendInput sends until CloseStdin.
	stdin := true
	tag := "cat-" + randomHex(t, 4)
	stream, err := e.Process.Start(ctx, connect.NewRequest(&process.StartRequest{
		Process: &process.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "cat"}}, Stdin: &stdin, Tag: &tag}))
	if err != nil {
		t.Fatal(err)
	}
	if !stream.Receive() || stream.Msg().GetEvent().GetStart() == nil {
		t.Fatalf("cat: no start event: %v", stream.Err())
	}
	sel := &process.ProcessSelector{Selector: &process.ProcessSelector_Tag{Tag: tag}}
	if _, err := e.Process.SendInput(ctx, connect.NewRequest(&process.SendInputRequest{Process: sel,
		Input: &process.ProcessInput{Input: &process.ProcessInput_Stdin{Stdin: []byte("hello stdin\n")}}})); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Process.CloseStdin(ctx, connect.NewRequest(&process.CloseStdinRequest{Process: sel})); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var end *process.ProcessEvent_EndEvent
	for stream.Receive() {
		ev := stream.Msg().GetEvent()
		out.Write(ev.GetData().GetStdout())
		if ev.GetEnd() != nil {
			end = ev.GetEnd()
		}
	}
	stream.Close()
	if out.String() != "hello stdin\n" || end == nil || end.GetExitCode() != 0 {
		t.Errorf("stdin: %q end %v %v", out.String(), end, stream.Err())
	}

	// Background: a process left running when its stream is closed is
	// listed, and SendSignal kills it.
	bg := "bg-" + randomHex(t, 4)
	stream, err = e.Process.Start(ctx, connect.NewRequest(&process.StartRequest{
		Process: &process.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "sleep 600"}}, Tag: &bg}))
	if err != nil {
		t.Fatal(err)
	}
	if !stream.Receive() {
		t.Fatalf("background: no start event: %v", stream.Err())
	}
	pid := stream.Msg().GetEvent().GetStart().GetPid()
	stream.Close()
	listed := func() bool {
		l, err := e.Process.List(ctx, connect.NewRequest(&process.ListRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range l.Msg.GetProcesses() {
			if p.GetPid() == pid && p.GetTag() == bg {
				return true
			}
		}
		return false
	}
	if !listed() {
		t.Fatalf("background process %d (%s) not listed", pid, bg)
	}
	if _, err := e.Process.SendSignal(ctx, connect.NewRequest(&process.SendSignalRequest{
		Process: &process.ProcessSelector{Selector: &process.ProcessSelector_Pid{Pid: pid}}, Signal: process.Signal_SIGNAL_SIGKILL})); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "killed process unlisted", func() error {
		if listed() {
			return errors.New("still listed")
		}
		return nil
	})

	// Kill of a foreground process: its stream ends with a signal.
	kctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	stream, err = e.Process.Start(kctx, connect.NewRequest(&process.StartRequest{
		Process: &process.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "sleep 600"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if !stream.Receive() {
		t.Fatalf("no start event: %v", stream.Err())
	}
	pid = stream.Msg().GetEvent().GetStart().GetPid()
	if _, err := e.Process.SendSignal(ctx, connect.NewRequest(&process.SendSignalRequest{
		Process: &process.ProcessSelector{Selector: &process.ProcessSelector_Pid{Pid: pid}}, Signal: process.Signal_SIGNAL_SIGKILL})); err != nil {
		t.Fatal(err)
	}
	end = nil
	for stream.Receive() {
		if ev := stream.Msg().GetEvent(); ev.GetEnd() != nil {
			end = ev.GetEnd()
		}
	}
	stream.Close()
	if end == nil || end.GetExited() && end.GetExitCode() == 0 || !strings.Contains(end.GetStatus(), "kill") {
		t.Errorf("killed: end %v (%v)", end, stream.Err())
	}
}

func testE2BFiles(t *testing.T, s *e2bServer) {
	ctx := t.Context()
	sb := s.create(t, nil)
	e := e2btest.NewEnvd(s.sandboxURL, sb, "user", s.hc)

	if err := e.Write(ctx, "/home/user/notes.txt", strings.NewReader("a line\n")); err != nil {
		t.Fatal(err)
	}
	if b, err := e.Read(ctx, "/home/user/notes.txt"); err != nil || string(b) != "a line\n" {
		t.Errorf("text: %q %v", b, err)
	}
	blob := make([]byte, 1<<20+777)
	rand.Read(blob)
	if err := e.Write(ctx, "/tmp/blob.bin", bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	if b, err := e.Read(ctx, "/tmp/blob.bin"); err != nil || !bytes.Equal(b, blob) {
		t.Errorf("1 MiB: %d bytes back, equal %v, %v", len(b), bytes.Equal(b, blob), err)
	}
	if res, err := e.Run(ctx, "sha256sum /tmp/blob.bin | cut -c1-8; stat -c %s /tmp/blob.bin", nil, "", nil); err != nil || !strings.HasSuffix(res.Stdout, fmt.Sprintf("%d\n", len(blob))) {
		t.Errorf("the blob in the sandbox: %+v %v", res, err)
	}
	st, err := e.Filesystem.Stat(ctx, connect.NewRequest(&filesystem.StatRequest{Path: "/tmp/blob.bin"}))
	if err != nil || st.Msg.GetEntry().GetSize() != int64(len(blob)) || st.Msg.GetEntry().GetType() != filesystem.FileType_FILE_TYPE_FILE {
		t.Errorf("stat: %v %v", st, err)
	}
	ls, err := e.Filesystem.ListDir(ctx, connect.NewRequest(&filesystem.ListDirRequest{Path: "/home/user", Depth: 1}))
	found := false
	for _, en := range ls.Msg.GetEntries() {
		found = found || en.GetName() == "notes.txt"
	}
	if err != nil || !found {
		t.Errorf("list /home/user: notes.txt found %v, %v", found, err)
	}
	if _, err := e.Filesystem.Remove(ctx, connect.NewRequest(&filesystem.RemoveRequest{Path: "/tmp/blob.bin"})); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Filesystem.Stat(ctx, connect.NewRequest(&filesystem.StatRequest{Path: "/tmp/blob.bin"})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("stat removed: %v, want not_found", err)
	}
	if _, err := e.Read(ctx, "/tmp/missing.txt"); e2btest.StatusOf(err) != 404 {
		t.Errorf("missing: %v, want 404", err)
	}
}

func testE2BPorts(t *testing.T, s *e2bServer) {
	ctx := t.Context()
	a := s.create(t, nil)
	b := s.create(t, map[string]any{"network": map[string]any{"allowPublicTraffic": false}})
	ea := e2btest.NewEnvd(s.sandboxURL, a, "user", s.hc)
	if err := ea.Write(ctx, "/tmp/site/index.html", strings.NewReader("hello from the sandbox")); err != nil {
		t.Fatal(err)
	}
	// A server started in the sandbox, left running.
	stream, err := ea.Process.Start(ctx, connect.NewRequest(&process.StartRequest{
		Process: &process.ProcessConfig{Cmd: "/bin/bash", Args: []string{"-l", "-c", "cd /tmp/site && exec python3 -m http.server --bind 127.0.0.1 8000"}}}))
	if err != nil {
		t.Fatal(err)
	}
	stream.Receive()
	stream.Close()
	get := func(host string, h map[string]string) (int, string, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/index.html", nil)
		req.Host = host
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := s.hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	// get_host(8000) is 8000-ID.DOMAIN.
	host := fmt.Sprintf("8000-%s.%s", a.SandboxID, s.domain)
	eventually(t, 30*time.Second, "the sandbox's server answers through the front", func() error {
		st, body, err := get(host, map[string]string{"X-Access-Token": a.EnvdAccessToken})
		if err != nil || st != 200 || body != "hello from the sandbox" {
			return fmt.Errorf("%d %q %v", st, body, err)
		}
		return nil
	})
	for name, h := range map[string]map[string]string{"none": {}, "b's envd token": {"X-Access-Token": b.EnvdAccessToken}} {
		if st, body, err := get(host, h); err != nil || st != 401 {
			t.Errorf("port with %s: %d %s %v, want 401", name, st, body, err)
		}
	}
	// b asked for a traffic token: only it opens b's ports.
	hostB := fmt.Sprintf("8000-%s.%s", b.SandboxID, s.domain)
	if st, body, err := get(hostB, map[string]string{"X-Access-Token": b.EnvdAccessToken}); err != nil || st != 401 {
		t.Errorf("b's port with its envd token: %d %s %v, want 401", st, body, err)
	}
	if st, body, err := get(hostB, map[string]string{"E2b-Traffic-Access-Token": *b.TrafficAccessToken}); err != nil || st != 502 {
		t.Errorf("b's port (nothing listens) with its traffic token: %d %s %v, want 502", st, body, err)
	}
	// envd by Host 49983-ID.DOMAIN; another sandbox's token is refused.
	if st, _, err := get(fmt.Sprintf("49983-%s.%s", a.SandboxID, s.domain), map[string]string{"X-Access-Token": b.EnvdAccessToken}); err != nil || st != 401 {
		t.Errorf("a's envd with b's token: %d %v", st, err)
	}
	other := a
	other.EnvdAccessToken = b.EnvdAccessToken
	if _, err := e2btest.NewEnvd(s.sandboxURL, other, "user", s.hc).Run(ctx, "true", nil, "", nil); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("a's envd with b's token: %v, want unauthenticated", err)
	}
	// The server's key is no envd token either.
	other.EnvdAccessToken = s.token
	if _, err := e2btest.NewEnvd(s.sandboxURL, other, "user", s.hc).Run(ctx, "true", nil, "", nil); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("a's envd with the server's key: %v, want unauthenticated", err)
	}
}

func testE2BBadInput(t *testing.T, s *e2bServer) {
	ctx := t.Context()
	for _, tc := range []struct {
		body   map[string]any
		status int
		field  string
	}{
		{map[string]any{}, 400, "templateID"},
		{map[string]any{"templateID": "nope"}, 400, "templateID"},
		{map[string]any{"templateID": "base", "timeout": -5}, 400, "timeout"},
		{map[string]any{"templateID": "base", "envVars": map[string]any{"X": 1}}, 400, "envVars"},
		{map[string]any{"templateID": "base", "autoPause": true}, 501, "autoPause"},
	} {
		_, err := s.c.Create(ctx, tc.body)
		var e *e2btest.Error
		if !errors.As(err, &e) || e.Status != tc.status || e.Code != tc.status || !strings.Contains(e.Message, tc.field) {
			t.Errorf("create %v: %v, want %d naming %s", tc.body, err, tc.status, tc.field)
		}
	}
	wrong := *s.c
	wrong.Key = "e2b_0123"
	if _, err := wrong.Create(ctx, map[string]any{"templateID": "base"}); e2btest.StatusOf(err) != 401 {
		t.Errorf("wrong key: %v, want 401", err)
	}
	if _, err := s.c.Get(ctx, "0123456789abcdef"); e2btest.StatusOf(err) != 404 {
		t.Errorf("unknown sandbox: %v, want 404", err)
	}
	if err := s.c.SetTimeout(ctx, "0123456789abcdef", 5); e2btest.StatusOf(err) != 404 {
		t.Errorf("set_timeout of an unknown sandbox: %v, want 404", err)
	}
}

func testE2BTimeout(t *testing.T, s *e2bServer) {
	ctx := t.Context()
	sb := s.create(t, map[string]any{"timeout": 300})
	cli := engine(t)
	before := time.Now()
	if err := s.c.SetTimeout(ctx, sb.SandboxID, 2); err != nil {
		t.Fatal(err)
	}
	got, err := s.c.Get(ctx, sb.SandboxID)
	if err != nil || got.EndAt.Before(before.Add(2*time.Second-time.Millisecond)) || got.EndAt.After(time.Now().Add(2*time.Second)) {
		t.Errorf("endAt %v after set_timeout(2) at %v (%v)", got.EndAt, before, err)
	}
	eventually(t, 2*time.Minute, "the sandbox ended by its timeout", func() error {
		if _, err := s.c.Get(ctx, sb.SandboxID); e2btest.StatusOf(err) != 404 {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
	if time.Since(before) < 2*time.Second {
		t.Errorf("ended %v after set_timeout(2)", time.Since(before))
	}
	e := e2btest.NewEnvd(s.sandboxURL, sb, "user", s.hc)
	if st, err := e.Health(ctx); err != nil || st != http.StatusBadGateway {
		t.Errorf("envd of the ended sandbox: %d %v, want 502", st, err)
	}
	// Its container is gone too.
	eventually(t, time.Minute, "no container left of the sandbox", func() error {
		if ids := sandboxesOfSession(t, cli, sb.SandboxID); len(ids) > 0 {
			return fmt.Errorf("containers %v", ids)
		}
		return nil
	})
}

// sandboxesOfSession lists containers, running or not, of session id.
func sandboxesOfSession(t *testing.T, cli *client.Client, id string) []string {
	t.Helper()
	f := make(client.Filters).Add("label", sandbox.LabelSession+"="+id)
	res, err := cli.ContainerList(context.WithoutCancel(t.Context()), client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	var ids []string
	for _, c := range res.Items {
		ids = append(ids, c.ID[:12]+" "+string(c.State))
	}
	return ids
}

func testE2BSixteen(t *testing.T, s *e2bServer) {
	const n = 16
	ctx := t.Context()
	start := time.Now()
	var mu sync.Mutex
	var firsts []time.Duration
	var g errgroup.Group
	for i := range n {
		g.Go(func() error {
			began := time.Now()
			sb, err := s.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "metadata": map[string]string{"batch": t.Name()}})
			if err != nil {
				return fmt.Errorf("create %d: %w", i, err)
			}
			defer s.c.Kill(context.WithoutCancel(ctx), sb.SandboxID)
			e := e2btest.NewEnvd(s.sandboxURL, sb, "user", s.hc)
			res, err := e.Run(ctx, fmt.Sprintf("echo sandbox-%d", i), nil, "", nil)
			if err != nil || res.Stdout != fmt.Sprintf("sandbox-%d\n", i) {
				return fmt.Errorf("sandbox %d: %+v %v", i, res, err)
			}
			mu.Lock()
			firsts = append(firsts, time.Since(began))
			mu.Unlock()
			data := bytes.Repeat([]byte{byte(i)}, 64<<10)
			if err := e.Write(ctx, "/tmp/mine", bytes.NewReader(data)); err != nil {
				return fmt.Errorf("sandbox %d: write: %w", i, err)
			}
			back, err := e.Read(ctx, "/tmp/mine")
			if err != nil || !bytes.Equal(back, data) {
				return fmt.Errorf("sandbox %d: read back %d bytes: %v", i, len(back), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	l, _, err := s.c.List(ctx, map[string]string{"batch": t.Name()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d sandboxes created, each ran a command and a file round trip, in %v (create to first command: %v)", n, time.Since(start).Round(time.Millisecond), firsts)
	if len(l) != 0 {
		t.Errorf("%d sandboxes of the batch still listed after their kills", len(l))
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
