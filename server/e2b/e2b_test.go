package e2b_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/deskrun/deskrun/agentd/agentdtest"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/runner"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/local"
	"github.com/deskrun/deskrun/server"
	"github.com/deskrun/deskrun/server/e2b"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
)

func TestMain(m *testing.M) { os.Exit(agentdtest.Main(m)) }

// testKey is the server's token, shaped as E2B's keys are.
const testKey = "e2b_00112233445566778899aabbccddeeff"

// testClient bounds every call of a test, so that a hang fails the test
// instead of stalling it.
var testClient = &http.Client{Timeout: 2 * time.Minute}

// front is deskrun serve's handler with the E2B front, over local
// sandboxes.
type front struct {
	m      *runner.Manager
	base   string // http://127.0.0.1:PORT
	domain string // localhost:PORT
	c      *e2btest.Client
}

func newFront(t testing.TB, opts ...func(*e2b.Config)) front {
	t.Helper()
	agentdtest.NeedX(t, "openbox")
	log := slog.New(slog.NewTextHandler(t.Output(), nil))
	p, err := local.NewWithConfig(local.Config{AgentdPath: agentdtest.Agentd(t), WM: "openbox", TempDir: t.TempDir(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": p}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	domain := "localhost:" + strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	srv := server.NewServer(server.Config{Manager: m, Token: testKey, Logger: log})
	cfg := e2b.Config{Manager: m, Token: testKey, Domain: domain, Ports: srv, Logger: log}
	for _, o := range opts {
		o(&cfg)
	}
	f, err := e2b.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(f.Handler(srv))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Errorf("close manager: %v", err)
		}
		if err := p.Close(ctx); err != nil {
			t.Errorf("close provider: %v", err)
		}
	})
	return front{m: m, base: ts.URL, domain: domain, c: &e2btest.Client{Base: ts.URL + e2b.Prefix, Key: testKey, HTTP: testClient}}
}

// raw sends a request with the headers given and returns the status
// and body.
func raw(t *testing.T, method, u, body string, h map[string]string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// checkE2BError checks an answer is E2B's error: the status, a body of
// exactly {"code": status, "message": ...} with msg in the message.
func checkE2BError(t *testing.T, what string, status int, body []byte, want int, msg string) {
	t.Helper()
	if status != want {
		t.Errorf("%s: status %d, want %d (%s)", what, status, want, body)
	}
	var shape map[string]any
	if err := json.Unmarshal(body, &shape); err != nil || len(shape) != 2 {
		t.Errorf("%s: body %s is not {\"code\",\"message\"}", what, body)
		return
	}
	if code, _ := shape["code"].(float64); int(code) != want {
		t.Errorf("%s: code %v, want %d", what, shape["code"], want)
	}
	if m, _ := shape["message"].(string); !strings.Contains(m, msg) {
		t.Errorf("%s: message %q, want it to contain %q", what, m, msg)
	}
}

// TestControlPlane drives E2B's control plane as the SDKs call it:
// create, get, list with the metadata filter and pages, connect,
// set_timeout ending a sandbox by the reaper, kill; wrong keys, unknown
// sandboxes and bad input answered in E2B's error shape.
func TestControlPlane(t *testing.T) {
	fr := newFront(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	api := fr.base + e2b.Prefix
	key := map[string]string{"X-API-KEY": testKey, "Content-Type": "application/json"}

	// Keys: none or a wrong one is a 401; a bearer token works too.
	for name, h := range map[string]map[string]string{
		"no key": {}, "wrong key": {"X-API-KEY": "e2b_ff"}, "key as bearer of another": {"Authorization": "Bearer e2b_ff"},
	} {
		st, b := raw(t, "GET", api+"/v2/sandboxes", "", h)
		checkE2BError(t, name, st, b, 401, "X-API-KEY")
	}
	if st, b := raw(t, "GET", api+"/v2/sandboxes", "", map[string]string{"Authorization": "Bearer " + testKey}); st != 200 {
		t.Errorf("bearer token: %d %s", st, b)
	}

	// Bad input names the field; nothing is started.
	for body, want := range map[string]struct {
		status int
		msg    string
	}{
		`{}`:                                                           {400, "templateID"},
		`{"templateID":"nope"}`:                                        {400, "templateID"},
		`{"templateID":"base","timeout":"x"}`:                          {400, "timeout"},
		`{"templateID":"base","timeout":0}`:                            {400, "timeout"},
		`{"templateID":"base","timeout":86401}`:                        {400, "timeout"},
		`{"templateID":"base","envVars":{"A=B":"x"}}`:                  {400, "envVars"},
		`{"templateID":"base","metadata":{"":"x"}}`:                    {400, "metadata"},
		`{"templateID":"base","metadata":{"a":1}}`:                     {400, "metadata"},
		`{"templateID":"base","autoPause":true}`:                       {501, "autoPause"},
		`{"templateID":"base","autoResume":{"enabled":true}}`:          {501, "autoResume"},
		`{"templateID":"base","network":{"allowOut":["example.com"]}}`: {501, "network.allowOut"},
		`{"templateID":"base","allow_internet_access":true,"network":{"denyOut":["10.0.0.0/8"]}}`: {501, "network.denyOut"},
		`{"templateID":"base","network":{"denyOut":["example.com"]}}`:                             {400, "network.denyOut[0]"},
		`{"templateID":"base","network":{"egressProxy":{"url":"http://p:3128"}}}`:                 {501, "network.egressProxy"},
		`[1,2]`: {400, "body"},
		``:      {400, "body"},
	} {
		st, b := raw(t, "POST", api+"/sandboxes", body, key)
		checkE2BError(t, body, st, b, want.status, want.msg)
	}
	if n := len(fr.m.List()); n != 0 {
		t.Fatalf("bad creates left %d sessions", n)
	}

	// Create: 201 with every field the SDKs read; unknown fields ignored.
	a, err := fr.c.Create(ctx, map[string]any{
		"templateID": "base", "timeout": 300, "metadata": map[string]string{"user": "a b&c=d", "app": "x"},
		"envVars": map[string]string{"GREETING": "hi"}, "secure": true, "allow_internet_access": false,
		"somethingNew": map[string]any{"x": 1}, "mcp": nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.SandboxID == "" || a.TemplateID != "base" || a.ClientID == "" || a.EnvdVersion == "" || a.EnvdAccessToken == "" ||
		a.Domain == nil || *a.Domain != fr.domain || a.TrafficAccessToken != nil {
		t.Errorf("created %+v", a)
	}
	if d := a.EndAt.Sub(a.StartedAt); d != 300*time.Second {
		t.Errorf("endAt - startedAt = %v, want the timeout, 300 s", d)
	}
	sess, err := fr.m.Get(a.SandboxID)
	if err != nil {
		t.Fatalf("the sandbox is no session: %v", err)
	}
	if info := sess.Info(); info.Labels["user"] != "a b&c=d" || info.Labels["app"] != "x" || info.Network {
		t.Errorf("session %+v: want metadata as labels, no network", info)
	}
	b, err := fr.c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "metadata": map[string]string{"user": "b"},
		"network": map[string]any{"allowPublicTraffic": false}})
	if err != nil {
		t.Fatal(err)
	}
	if b.TrafficAccessToken == nil || *b.TrafficAccessToken == "" || b.EnvdAccessToken == a.EnvdAccessToken {
		t.Errorf("second sandbox's tokens: traffic %v, envd the same as the first's: %v", b.TrafficAccessToken, b.EnvdAccessToken == a.EnvdAccessToken)
	}

	// Get: the detail, with the envd token; unknown is 404.
	got, err := fr.c.Get(ctx, a.SandboxID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SandboxID != a.SandboxID || got.EnvdAccessToken != a.EnvdAccessToken || got.State != "running" ||
		got.Metadata["user"] != "a b&c=d" || !got.EndAt.Equal(a.EndAt) || got.CPUCount == nil || got.MemoryMB == nil ||
		got.AllowInternetAccess == nil || *got.AllowInternetAccess {
		t.Errorf("get %+v", got)
	}
	st, body := raw(t, "GET", api+"/sandboxes/nope", "", key)
	checkE2BError(t, "get unknown", st, body, 404, `"nope"`)
	if got.CPUCount != nil && got.MemoryMB != nil && (*got.CPUCount < 1 || *got.MemoryMB <= 0) {
		t.Errorf("cpuCount %d, memoryMB %d: want what the sandbox has", *got.CPUCount, *got.MemoryMB)
	}

	// Metrics: one sample read now from the sandbox's envd, none outside
	// start..end; many sandboxes at once, unknown ones left out.
	var ms []map[string]any
	if _, err := fr.c.Do(ctx, "GET", "/sandboxes/"+a.SandboxID+"/metrics", nil, &ms, 200); err != nil || len(ms) != 1 {
		t.Fatalf("metrics: %+v %v", ms, err)
	}
	for _, k := range []string{"timestamp", "timestampUnix", "cpuCount", "cpuUsedPct", "memUsed", "memTotal", "memCache", "diskUsed", "diskTotal"} {
		if _, ok := ms[0][k]; !ok {
			t.Errorf("metrics: no %s in %v", k, ms[0])
		}
	}
	if ms[0]["cpuCount"] != float64(*got.CPUCount) || ms[0]["memTotal"].(float64) <= 0 || ms[0]["diskTotal"].(float64) <= 0 {
		t.Errorf("metrics %v, want cpuCount %d and totals", ms[0], *got.CPUCount)
	}
	if _, err := fr.c.Do(ctx, "GET", "/sandboxes/"+a.SandboxID+"/metrics?start=1&end=2", nil, &ms, 200); err != nil || len(ms) != 0 {
		t.Errorf("metrics in 1970: %+v %v, want none", ms, err)
	}
	for q, field := range map[string]string{"/sandboxes/" + a.SandboxID + "/metrics?start=x": "start",
		"/sandboxes/" + a.SandboxID + "/metrics?start=5&end=4": "start", "/sandboxes/metrics": "sandbox_ids"} {
		st, body := raw(t, "GET", api+q, "", key)
		checkE2BError(t, q, st, body, 400, field)
	}
	st, body = raw(t, "GET", api+"/sandboxes/nope/metrics", "", key)
	checkE2BError(t, "metrics of unknown", st, body, 404, `"nope"`)
	var many struct {
		Sandboxes map[string]map[string]any `json:"sandboxes"`
	}
	if _, err := fr.c.Do(ctx, "GET", "/sandboxes/metrics?sandbox_ids="+a.SandboxID+",nope", nil, &many, 200); err != nil ||
		len(many.Sandboxes) != 1 || many.Sandboxes[a.SandboxID] == nil {
		t.Errorf("metrics of %s and nope: %+v %v", a.SandboxID, many, err)
	}

	// List: the metadata filter as the SDKs encode it, pages, states.
	l, next, err := fr.c.List(ctx, map[string]string{"user": "a b&c=d"}, nil)
	if err != nil || len(l) != 1 || l[0].SandboxID != a.SandboxID || next != "" || l[0].EnvdAccessToken != "" {
		t.Errorf("list user=a: %+v next %q %v", l, next, err)
	}
	l, _, err = fr.c.List(ctx, map[string]string{"user": "b", "app": "x"}, nil)
	if err != nil || len(l) != 0 {
		t.Errorf("list user=b app=x: %+v %v", l, err)
	}
	first, next, err := fr.c.List(ctx, nil, url.Values{"limit": {"1"}})
	if err != nil || len(first) != 1 || first[0].SandboxID != b.SandboxID || next == "" {
		t.Fatalf("first page: %+v next %q %v (want the newest, %s)", first, next, err, b.SandboxID)
	}
	second, next2, err := fr.c.List(ctx, nil, url.Values{"limit": {"1"}, "nextToken": {next}})
	if err != nil || len(second) != 1 || second[0].SandboxID != a.SandboxID || next2 != "" {
		t.Errorf("second page: %+v next %q %v", second, next2, err)
	}
	if l, _, err := fr.c.List(ctx, nil, url.Values{"state": {"paused"}}); err != nil || len(l) != 0 {
		t.Errorf("paused: %+v %v", l, err)
	}
	if l, _, err := fr.c.List(ctx, nil, url.Values{"state": {"running,paused"}}); err != nil || len(l) != 2 {
		t.Errorf("running,paused: %d %v", len(l), err)
	}
	for q, field := range map[string]string{"state=sleeping": "state", "limit=0": "limit", "limit=101": "limit",
		"nextToken=zz": "nextToken", "order=up": "order", "metadata=a": "metadata"} {
		st, body := raw(t, "GET", api+"/v2/sandboxes?"+q, "", key)
		checkE2BError(t, q, st, body, 400, field)
	}
	var v1 []e2btest.Sandbox
	if _, err := fr.c.Do(ctx, "GET", "/sandboxes?metadata="+url.QueryEscape("user=b"), nil, &v1, 200); err != nil || len(v1) != 1 || v1[0].SandboxID != b.SandboxID {
		t.Errorf("GET /sandboxes user=b: %+v %v", v1, err)
	}

	// Connect: the sandbox with its tokens; the deadline only moves
	// later.
	c, err := fr.c.Connect(ctx, a.SandboxID, 10)
	if err != nil || c.EnvdAccessToken != a.EnvdAccessToken || !c.EndAt.Equal(a.EndAt) {
		t.Errorf("connect 10 s: %+v %v (endAt want %v)", c, err, a.EndAt)
	}
	if c, err = fr.c.Connect(ctx, a.SandboxID, 3600); err != nil || !c.EndAt.After(a.EndAt) {
		t.Errorf("connect 3600 s: endAt %v, want after %v (%v)", c.EndAt, a.EndAt, err)
	}
	if _, err := fr.c.Connect(ctx, "nope", 10); e2btest.StatusOf(err) != 404 {
		t.Errorf("connect unknown: %v", err)
	}
	// The older resume of a running sandbox is a conflict (E2B's).
	st, body = raw(t, "POST", api+"/sandboxes/"+a.SandboxID+"/resume", "{}", key)
	checkE2BError(t, "resume running", st, body, 409, "is running, not paused")

	// Pause, fork and snapshots need a provider that snapshots: the
	// local one answers 501 naming the one that can (the docker e2e
	// tests run them under runsc-snap); an unknown sandbox is 404.
	for _, p := range []string{"/pause", "/fork", "/snapshots"} {
		st, body = raw(t, "POST", api+"/sandboxes/"+a.SandboxID+p, "{}", key)
		checkE2BError(t, p, st, body, 501, "runsc-snap")
		st, body = raw(t, "POST", api+"/sandboxes/nope"+p, "{}", key)
		checkE2BError(t, p+" unknown", st, body, 404, "nope")
	}
	st, body = raw(t, "POST", api+"/sandboxes/"+a.SandboxID+"/fork", `{"count": 101}`, key)
	checkE2BError(t, "fork 101", st, body, 400, "count")
	st, body = raw(t, "POST", api+"/sandboxes/"+a.SandboxID+"/pause", `{"memory": false}`, key)
	checkE2BError(t, "pause without memory", st, body, 501, "memory")
	st, body = raw(t, "POST", api+"/sandboxes/"+a.SandboxID+"/snapshots", `{"name": "a/b"}`, key)
	checkE2BError(t, "snapshot a/b", st, body, 400, "name")
	st, body = raw(t, "GET", api+"/snapshots", "", key)
	if st != 200 || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("GET /snapshots: %d %s, want 200 []", st, body)
	}
	st, body = raw(t, "DELETE", api+"/templates/nope", "", key)
	checkE2BError(t, "delete template nope", st, body, 404, "nope")
	st, body = raw(t, "GET", api+"/templates", "", key)
	checkE2BError(t, "unknown route", st, body, 404, "no route")

	// A wrong key harms nothing.
	st, body = raw(t, "DELETE", api+"/sandboxes/"+a.SandboxID, "", map[string]string{"X-API-KEY": "e2b_00"})
	checkE2BError(t, "kill with a wrong key", st, body, 401, "X-API-KEY")
	if _, err := fr.c.Get(ctx, a.SandboxID); err != nil {
		t.Fatalf("after a refused kill: %v", err)
	}

	// set_timeout: bad bodies name the field; 1 s ends the sandbox.
	for _, bad := range []string{`{}`, `{"timeout":-1}`, `{"timeout":"1"}`} {
		st, body := raw(t, "POST", api+"/sandboxes/"+b.SandboxID+"/timeout", bad, key)
		checkE2BError(t, "timeout "+bad, st, body, 400, "timeout")
	}
	set := time.Now()
	if err := fr.c.SetTimeout(ctx, b.SandboxID, 1); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := fr.c.Get(ctx, b.SandboxID)
		if e2btest.StatusOf(err) == 404 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(set) > time.Minute {
			t.Fatal("the sandbox still answers a minute after its 1 s timeout")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if time.Since(set) < time.Second {
		t.Errorf("the sandbox went %v after set_timeout(1)", time.Since(set))
	}

	// Kill: 204, then 404.
	if err := fr.c.Kill(ctx, a.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := fr.c.Kill(ctx, a.SandboxID); e2btest.StatusOf(err) != 404 {
		t.Errorf("second kill: %v, want 404", err)
	}
	if n := len(fr.m.List()); n != 0 {
		t.Errorf("%d sessions left", n)
	}
}

// TestEnvLines: the lines deskrun serve prints; a key not shaped
// e2b_<hex> needs E2B_VALIDATE_API_KEY=false.
func TestEnvLines(t *testing.T) {
	m, err := runner.NewManager(runner.Config{Providers: map[string]sandbox.Provider{"local": &local.Provider{}}, HealthInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]string{
		testKey:  "E2B_API_URL=http://127.0.0.1:8080/e2b\nE2B_SANDBOX_URL=http://127.0.0.1:8080/e2b\nE2B_DOMAIN=localhost:8080\nE2B_API_KEY=" + testKey,
		"s3cret": "E2B_API_URL=http://127.0.0.1:8080/e2b\nE2B_SANDBOX_URL=http://127.0.0.1:8080/e2b\nE2B_DOMAIN=localhost:8080\nE2B_API_KEY=s3cret\nE2B_VALIDATE_API_KEY=false",
	} {
		f, err := e2b.New(e2b.Config{Manager: m, Token: token, Domain: "localhost:8080"})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(f.EnvLines("http://127.0.0.1:8080"), "\n"); got != want {
			t.Errorf("token %q:\n%s\nwant\n%s", token, got, want)
		}
	}
}

// TestDesktopTemplateScreen: a sandbox of the desktop template is
// 1024x768, e2b_desktop's default resolution; the base template gets the
// server's default.
func TestDesktopTemplateScreen(t *testing.T) {
	fr := newFront(t)
	for tmpl, want := range map[string]api.Screen{"desktop": {Width: 1024, Height: 768}, "base": sandbox.DefaultScreen} {
		sb, err := fr.c.Create(t.Context(), map[string]any{"templateID": tmpl, "timeout": 60})
		if err != nil {
			t.Fatal(err)
		}
		s, err := fr.m.Get(sb.SandboxID)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Info().Screen; got != want {
			t.Errorf("template %s: screen %v, want %v", tmpl, got, want)
		}
	}
}
