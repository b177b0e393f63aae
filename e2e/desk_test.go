//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// labelTest marks every sandbox a test starts, whichever way it starts it,
// so leaks can be found and reaped.
const labelTest = "dev.deskrun.e2e"

// desk starts and ends sessions: directly on the provider (driving agentd)
// or through the host API of a `deskrun serve`.
type desk interface {
	open(t *testing.T, screen api.Screen) *session
	close(t *testing.T, s *session) error
}

// desks returns the ways to reach a desktop this machine supports, each
// with a label value that marks its sandboxes.
func desks(t *testing.T, cli *client.Client) map[string]func(t *testing.T) (desk, string) {
	return map[string]func(t *testing.T) (desk, string){
		"agentd": func(t *testing.T) (desk, string) {
			id := "e2e-" + randomHex(t, 6)
			p, _ := newProvider(t, cli, docker.Config{Labels: map[string]string{labelTest: id}})
			reapOnCleanup(t, cli, id)
			return &providerDesk{p: p, label: id}, id
		},
		"api": func(t *testing.T) (desk, string) {
			id := "e2e-" + randomHex(t, 6)
			reapOnCleanup(t, cli, id)
			d := startServer(t)
			d.label = id
			return d, id
		},
	}
}

func reapOnCleanup(t *testing.T, cli *client.Client, id string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		docker.New(cli, docker.Config{}).Reap(ctx, map[string]string{labelTest: id})
	})
}

type providerDesk struct {
	p     *docker.Provider
	label string
}

func (d *providerDesk) open(t *testing.T, screen api.Screen) *session {
	inst, err := d.p.Start(t.Context(), sandbox.Spec{Image: minimalImage, Screen: screen, Labels: map[string]string{labelTest: d.label}})
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	return agentSession(inst)
}

func (d *providerDesk) close(t *testing.T, s *session) error {
	err := d.p.Stop(context.WithoutCancel(t.Context()), s.sandboxID)
	if errdefs.IsNotFound(err) {
		return nil
	}
	return err
}

// apiDesk is a `deskrun serve` child process with the docker provider.
type apiDesk struct {
	url, token string
	hc         *http.Client
	label      string
}

// startServer builds cmd/deskrun and runs `deskrun serve` on a free
// loopback port.
func startServer(t *testing.T) *apiDesk {
	t.Helper()
	return serveDeskrun(t, 30*time.Second, 60*time.Second, "--provider", "docker")
}

// serveDeskrun runs `deskrun serve --addr A args...` on a free loopback
// port A with a token of its own, waits until it is healthy, and stops
// it with SIGTERM when the test ends, failing the test when it takes
// longer than stopWait. Calls to it time out after callTimeout.
func serveDeskrun(t *testing.T, stopWait, callTimeout time.Duration, args ...string) *apiDesk {
	t.Helper()
	bin := buildDeskrun(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	token := randomHex(t, 16)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Env = append(os.Environ(), "DESKRUN_TOKEN="+token)
	cmd.Stdout, cmd.Stderr = t.Output(), t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(stopWait):
			cmd.Process.Kill()
			<-done
			t.Errorf("deskrun serve did not stop within %v of SIGTERM", stopWait)
		}
	})
	d := &apiDesk{url: "http://" + addr, token: token, hc: &http.Client{Timeout: callTimeout}}
	if ca := flagValue(args, "--tls-self-signed"); ca != "" {
		// HTTPS under the certificate authority the server writes at start.
		d.url = "https://" + addr
		eventually(t, 30*time.Second, "deskrun serve's certificate authority", func() error {
			b, err := os.ReadFile(ca)
			if err != nil {
				return err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(b) {
				return fmt.Errorf("%s holds no certificate yet", ca)
			}
			d.hc.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
			return nil
		})
	}
	eventually(t, 30*time.Second, "deskrun serve healthy", func() error {
		resp, err := d.hc.Get(d.url + "/healthz")
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})
	return d
}

// flagValue is the value of flag in args ("--flag", "value"), or "".
func flagValue(args []string, flag string) string {
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func (d *apiDesk) call(ctx context.Context, method, path string, in, out any) error {
	var body bytes.Buffer
	if in != nil {
		json.NewEncoder(&body).Encode(in)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.url+path, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode/100 != 2 {
		return &httpError{Status: resp.StatusCode, Body: buf.String()}
	}
	if out != nil {
		return json.Unmarshal(buf.Bytes(), out)
	}
	return nil
}

func (d *apiDesk) open(t *testing.T, screen api.Screen) *session {
	var sess api.Session
	err := d.call(t.Context(), http.MethodPost, "/v1/sessions", api.CreateSessionRequest{
		Provider: "docker", Image: minimalImage, Screen: screen, Labels: map[string]string{labelTest: d.label},
	}, &sess)
	if err != nil {
		t.Fatalf("create session: %v", err)
	}
	return &session{base: d.url + "/v1/sessions/" + sess.ID, token: d.token, hc: d.hc, sandboxID: sess.SandboxID}
}

func (d *apiDesk) close(t *testing.T, s *session) error {
	_, err := s.do(context.WithoutCancel(t.Context()), http.MethodDelete, "", nil, nil)
	return err
}

// sandboxesLabelled lists containers, running or not, with labelTest=id.
func sandboxesLabelled(t *testing.T, cli *client.Client, id string) []string {
	t.Helper()
	f := make(client.Filters).Add("label", labelTest+"="+id)
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

// clientT is the Docker client the tests use.
type clientT = *client.Client

func containerKillOptions(signal string) client.ContainerKillOptions {
	return client.ContainerKillOptions{Signal: signal}
}
