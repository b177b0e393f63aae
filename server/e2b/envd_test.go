package e2b_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/deskrun/deskrun/api/e2b/envd/filesystem"
	"github.com/deskrun/deskrun/server/e2b"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
)

// TestEnvdRouting reaches sandboxes' envd through the front as the SDKs
// do, by the E2b-Sandbox-Id header and by the Host 49983-ID.DOMAIN, with
// deskrun's own Connect client: commands with env, cwd and output
// streamed as it comes, files of over a MiB both ways, and the tokens
// (another sandbox's is refused); then the other ports of a sandbox by
// Host and header, behind the sandbox's tokens or its traffic token.
func TestEnvdRouting(t *testing.T) {
	fr := newFront(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	a, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "envVars": map[string]string{"GREETING": "hi there"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "network": map[string]any{"allowPublicTraffic": false}})
	if err != nil {
		t.Fatal(err)
	}
	sandboxURL := fr.base + e2b.Prefix
	ea := e2btest.NewEnvd(sandboxURL, a, "user", testClient)

	// Health, and a command with the sandbox's env, the call's env and a
	// cwd.
	if st, err := ea.Health(ctx); err != nil || st != http.StatusNoContent {
		t.Fatalf("health: %d %v", st, err)
	}
	res, err := ea.Run(ctx, `echo "$GREETING/$EXTRA"; pwd; echo oops >&2; exit 3`, map[string]string{"EXTRA": "x"}, "/tmp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "hi there/x\n/tmp\n" || res.Stderr != "oops\n" || res.ExitCode != 3 || res.PID == 0 {
		t.Errorf("run: %+v", res)
	}

	// Output streams as it comes: the command waits for a file the test
	// writes once the first line has arrived.
	flag := fmt.Sprintf("/tmp/e2b-stream-%s", a.SandboxID)
	first := make(chan struct{})
	var wrote error
	res, err = ea.Run(ctx, fmt.Sprintf(`echo first; while [ ! -e %s ]; do sleep 0.05; done; echo second; rm -f %s`, flag, flag), nil, "",
		func(stdout, _ []byte) {
			if bytes.Contains(stdout, []byte("first")) {
				close(first)
				wrote = ea.Write(ctx, flag, strings.NewReader("go"))
			}
		})
	if err != nil || wrote != nil || res.Stdout != "first\nsecond\n" {
		t.Errorf("streamed run: %+v %v (write %v)", res, err, wrote)
	}

	// Files over a MiB both ways, a listing, a missing file.
	blob := make([]byte, 1<<20+12345)
	rand.Read(blob)
	path := "/tmp/e2b-blob-" + a.SandboxID
	if err := ea.Write(ctx, path, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	back, err := ea.Read(ctx, path)
	if err != nil || !bytes.Equal(back, blob) {
		t.Fatalf("read back %d bytes, equal %v: %v", len(back), bytes.Equal(back, blob), err)
	}
	st, err := ea.Filesystem.Stat(ctx, connect.NewRequest(&filesystem.StatRequest{Path: path}))
	if err != nil || st.Msg.GetEntry().GetSize() != int64(len(blob)) {
		t.Errorf("stat: %v %v", st, err)
	}
	if _, err := ea.Read(ctx, "/tmp/no-such-file-"+a.SandboxID); e2btest.StatusOf(err) != 404 {
		t.Errorf("missing file: %v, want 404", err)
	}
	if _, err := ea.Filesystem.Remove(ctx, connect.NewRequest(&filesystem.RemoveRequest{Path: path})); err != nil {
		t.Errorf("remove: %v", err)
	}

	// Tokens: none, another sandbox's, and an unknown sandbox.
	for name, tok := range map[string]string{"no token": "", "b's token": b.EnvdAccessToken} {
		sb := a
		sb.EnvdAccessToken = tok
		_, err := e2btest.NewEnvd(sandboxURL, sb, "user", testClient).Run(ctx, "echo no", nil, "", nil)
		if connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Errorf("%s: %v, want unauthenticated", name, err)
		}
		if err := e2btest.NewEnvd(sandboxURL, sb, "user", testClient).Write(ctx, "/tmp/nope", strings.NewReader("x")); e2btest.StatusOf(err) != 401 {
			t.Errorf("%s: write %v, want 401", name, err)
		}
	}
	gone := a
	gone.SandboxID = "0000000000000000"
	if st, err := e2btest.NewEnvd(sandboxURL, gone, "", testClient).Health(ctx); err != nil || st != http.StatusBadGateway {
		t.Errorf("unknown sandbox: %d %v, want 502", st, err)
	}

	// By Host 49983-ID.DOMAIN, as without E2B_SANDBOX_URL.
	code, body := raw(t, "GET", fr.base+"/files?path="+flag+"x", "", map[string]string{
		"Host": fmt.Sprintf("%d-%s.%s", e2b.EnvdPort, a.SandboxID, fr.domain), "X-Access-Token": a.EnvdAccessToken})
	checkE2BError(t, "missing file by host", code, body, 404, "")

	// Other ports: a server on the sandbox's loopback (the local
	// provider's is the host's), by Host and by header.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "port %s %s auth=%q", r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization")+r.Header.Get("X-Access-Token"))
	}))
	defer web.Close()
	port := web.Listener.Addr().(*net.TCPAddr).Port
	hostA := fmt.Sprintf("%d-%s.%s", port, a.SandboxID, fr.domain)
	hostB := fmt.Sprintf("%d-%s.%s", port, b.SandboxID, fr.domain)
	for _, tc := range []struct {
		name   string
		h      map[string]string
		status int
		want   string
	}{
		{"a with its envd token", map[string]string{"Host": hostA, "X-Access-Token": a.EnvdAccessToken}, 200, `port /page q=1 auth=""`},
		{"a with the server's key", map[string]string{"Host": hostA, "X-API-KEY": testKey}, 200, "port /page"},
		{"a with nothing", map[string]string{"Host": hostA}, 401, ""},
		{"a with b's token", map[string]string{"Host": hostA, "X-Access-Token": b.EnvdAccessToken}, 401, ""},
		{"b with its traffic token", map[string]string{"Host": hostB, "E2b-Traffic-Access-Token": *b.TrafficAccessToken}, 200, "port /page"},
		{"b with its envd token", map[string]string{"Host": hostB, "X-Access-Token": b.EnvdAccessToken}, 401, ""},
		{"a by header", map[string]string{"E2b-Sandbox-Id": a.SandboxID, "E2b-Sandbox-Port": strconv.Itoa(port), "X-Access-Token": a.EnvdAccessToken}, 200, "port /page"},
	} {
		u := fr.base + "/page?q=1"
		if tc.h["E2b-Sandbox-Id"] != "" {
			u = fr.base + e2b.Prefix + "/page?q=1"
		}
		code, body := raw(t, "GET", u, "", tc.h)
		if tc.status != 200 {
			checkE2BError(t, tc.name, code, body, tc.status, "")
			continue
		}
		if code != 200 || !strings.HasPrefix(string(body), tc.want) {
			t.Errorf("%s: %d %s, want %s", tc.name, code, body, tc.want)
		}
	}

	// A killed sandbox's envd answers 502, as E2B's proxy does.
	if err := fr.c.Kill(ctx, a.SandboxID); err != nil {
		t.Fatal(err)
	}
	if st, err := ea.Health(ctx); err != nil || st != http.StatusBadGateway {
		t.Errorf("killed sandbox: %d %v, want 502", st, err)
	}
	var ce *connect.Error
	if _, err := ea.Run(ctx, "true", nil, "", nil); !errors.As(err, &ce) {
		t.Errorf("run on a killed sandbox: %v", err)
	}
}

// TestPublicPorts: with Config.PublicPorts a sandbox's other ports by
// Host PORT-ID.DOMAIN answer a request without a token, as a browser
// sends them (e2b_desktop's stream URL), and a sandbox that asked for a
// traffic token still needs it; envd still needs its access token.
func TestPublicPorts(t *testing.T) {
	fr := newFront(t, func(c *e2b.Config) { c.PublicPorts = true })
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	a, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "network": map[string]any{"allowPublicTraffic": false}})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "port %s", r.URL.Path)
	}))
	defer web.Close()
	port := web.Listener.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name   string
		h      map[string]string
		status int
	}{
		{"a with nothing", map[string]string{"Host": fmt.Sprintf("%d-%s.%s", port, a.SandboxID, fr.domain)}, 200},
		{"b with nothing", map[string]string{"Host": fmt.Sprintf("%d-%s.%s", port, b.SandboxID, fr.domain)}, 401},
		{"b with its traffic token", map[string]string{"Host": fmt.Sprintf("%d-%s.%s", port, b.SandboxID, fr.domain), "E2b-Traffic-Access-Token": *b.TrafficAccessToken}, 200},
		{"a's envd with nothing", map[string]string{"Host": fmt.Sprintf("%d-%s.%s", e2b.EnvdPort, a.SandboxID, fr.domain)}, 401},
	} {
		path := "/page"
		if strings.HasPrefix(tc.name, "a's envd") {
			path = "/files?path=/etc/hostname"
		}
		code, body := raw(t, "GET", fr.base+path, "", tc.h)
		if tc.status != 200 {
			checkE2BError(t, tc.name, code, body, tc.status, "")
			continue
		}
		if code != 200 || string(body) != "port /page" {
			t.Errorf("%s: %d %s, want port /page", tc.name, code, body)
		}
	}
}
