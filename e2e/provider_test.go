//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/docker"
	"github.com/moby/moby/client"
)

// dial is a python3 one-liner run inside a sandbox: exit 0 when a TCP
// connection to host:port opens within 3s.
const dial = `import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), 3).close()`

func TestProviderLockdown(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	other := startSandbox(t, p, sandbox.Spec{Image: minimalImage})

	// The runner reaches agentd.
	resp, err := http.Get(inst.AgentURL + "/healthz")
	if err != nil {
		t.Fatalf("host to agentd: %v", err)
	}
	resp.Body.Close()

	info, err := cli.ContainerInspect(t.Context(), inst.ID, client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc := info.Container.HostConfig
	var capAdd []string
	for _, c := range hc.CapAdd {
		capAdd = append(capAdd, strings.TrimPrefix(c, "CAP_"))
	}
	slices.Sort(capAdd)
	if hc.Privileged || !slices.Equal(capAdd, []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}) || hc.PidsLimit == nil || *hc.PidsLimit <= 0 || hc.Memory <= 0 || hc.NanoCPUs <= 0 {
		t.Errorf("host config: privileged %v, cap add %v, pids %v, memory %d, cpus %d", hc.Privileged, hc.CapAdd, hc.PidsLimit, hc.Memory, hc.NanoCPUs)
	}
	if len(info.Container.NetworkSettings.Ports) != 0 {
		for port, b := range info.Container.NetworkSettings.Ports {
			if len(b) != 0 {
				t.Errorf("port %v published on the host: %v", port, b)
			}
		}
	}

	otherIP := strings.TrimPrefix(strings.TrimSuffix(other.AgentURL, ":7000"), "http://")
	publicIP := ""
	if addrs, err := net.LookupHost("deb.debian.org"); err == nil && len(addrs) > 0 {
		publicIP = addrs[0]
	}
	for _, tt := range []struct {
		name string
		cmd  []string
		want int // exit code; -1: any non-zero
	}{
		{"runs as user", []string{"sh", "-c", `test "$(id -un):$(id -u)" = user:1000`}, 0},
		{"no capabilities", []string{"sh", "-c", `grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status`}, 0},
		{"no permitted capabilities", []string{"sh", "-c", `grep -q '^CapPrm:[[:space:]]*0000000000000000$' /proc/self/status`}, 0},
		// The bounding set holds the admin channel's capabilities
		// (chown, dac_override, fowner, kill, setgid, setuid = 0xeb),
		// which no process of the user can take up.
		{"bounding set is the admin channel's", []string{"sh", "-c", `grep -q '^CapBnd:[[:space:]]*00000000000000eb$' /proc/self/status`}, 0},
		{"agentd has no capabilities", []string{"sh", "-c", `grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/$(pgrep -x agentd)/status && test "$(stat -c %U /proc/$(pgrep -x agentd))" = user`}, 0},
		{"no new privileges", []string{"sh", "-c", `grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status`}, 0},
		// agentd's token is in agentd alone: not in the environment of
		// what runs on the desktop, not readable from agentd's /proc.
		{"no token in agentd's environ", []string{"sh", "-c", `cat /proc/$(pgrep -x agentd)/environ | tr '\0' '\n' | grep -q AGENTD_TOKEN`}, -1},
		{"agentd's environ is closed", []string{"sh", "-c", `cat /proc/$(pgrep -x agentd)/environ >/dev/null`}, -1},
		{"sudo refused", []string{"sh", "-c", `echo password | sudo -S true`}, -1},
		{"no docker socket", []string{"sh", "-c", `test -e /var/run/docker.sock || test -e /run/docker.sock`}, -1},
		{"no DNS", []string{"timeout", "5", "getent", "hosts", "deb.debian.org"}, -1},
		{"no route to the other sandbox", []string{"python3", "-c", dial, otherIP, "7000"}, -1},
		{"no route to the docker0 gateway's docker port", []string{"python3", "-c", dial, "172.17.0.1", "2375"}, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// As the desktop user, whose processes are the agent's.
			res := dockerExec(t, cli, inst.ID, "user", nil, tt.cmd...)
			if (tt.want == 0) != (res.ExitCode == 0) {
				t.Errorf("%q: exit %d (stderr %q), want %d", tt.cmd, res.ExitCode, res.Stderr, tt.want)
			}
		})
	}
	// What the agent runs (through agentd) sees no token, and pyautogui
	// still drives the desktop.
	r, err := agentdclient.NewClient(inst.AgentURL, inst.Token, nil).Exec(t.Context(), api.ExecRequest{Cmd: []string{"sh", "-c",
		`env; python3 -c "import pyautogui; pyautogui.moveTo(5, 6); print('at', tuple(pyautogui.position()))"`}})
	if err != nil || strings.Contains(r.Stdout, "AGENTD_TOKEN") || strings.Contains(r.Stdout, inst.Token) || !strings.Contains(r.Stdout, "at (5, 6)") {
		t.Errorf("agentd exec: %v\n%s\n%s", err, r.Stdout, r.Stderr)
	}
	if publicIP != "" {
		res := dockerExec(t, cli, inst.ID, "", nil, "python3", "-c", dial, publicIP, "80")
		if res.ExitCode == 0 {
			t.Errorf("sandbox reached %s:80 on the internet", publicIP)
		}
	}
}

func TestProviderEgress(t *testing.T) {
	cli := engine(t, minimalImage)
	addrs, err := net.LookupHost("deb.debian.org")
	if err != nil {
		t.Skipf("host has no route out: %v", err)
	}
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage, Network: true})
	res := dockerExec(t, cli, inst.ID, "", nil, "python3", "-c", dial, addrs[0], "80")
	if res.ExitCode != 0 {
		t.Errorf("sandbox with egress cannot reach %s:80: %s", addrs[0], res.Stderr)
	}
}

func TestProviderStopAndReap(t *testing.T) {
	cli := engine(t, minimalImage)
	p, owner := newProvider(t, cli, docker.Config{})
	a := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	b := startSandbox(t, p, sandbox.Spec{Image: minimalImage})

	start := time.Now()
	if err := p.Stop(t.Context(), a.ID); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	t.Logf("stop took %v", time.Since(start))
	if err := p.Stop(t.Context(), a.ID); !errdefs.IsNotFound(err) {
		t.Errorf("second Stop = %v, want not found", err)
	}

	list, err := p.List(t.Context(), map[string]string{sandbox.LabelOwner: owner})
	if err != nil || len(list) != 1 || list[0].ID != b.ID {
		t.Errorf("List = %+v, %v; want only %s", list, err, b.ID)
	}

	// A runner that crashed leaves b behind; a new one reaps it by owner.
	if _, err := cli.ContainerKill(t.Context(), b.ID, client.ContainerKillOptions{Signal: "KILL"}); err != nil {
		t.Fatal(err)
	}
	fresh := docker.New(cli, docker.Config{})
	removed, err := fresh.Reap(t.Context(), map[string]string{sandbox.LabelOwner: owner})
	if err != nil || len(removed) != 1 || removed[0] != b.ID {
		t.Errorf("Reap = %q, %v; want [%s]", removed, err, b.ID)
	}
	if left := managedContainers(t, cli, owner); len(left) != 0 {
		t.Errorf("containers left: %q", left)
	}
}

func TestProviderStartFailureLeavesNothing(t *testing.T) {
	cli := engine(t, minimalImage)
	p, owner := newProvider(t, cli, docker.Config{StartTimeout: 20 * time.Second})
	for _, spec := range []sandbox.Spec{
		{Image: "deskrun/no-such-image:latest"},
		{Image: "debian:bookworm-slim"}, // no user "user", no agentd
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		inst, err := p.Start(ctx, spec)
		cancel()
		if err == nil {
			p.Stop(t.Context(), inst.ID)
			t.Errorf("Start(%s) succeeded, want an error", spec.Image)
			continue
		}
		t.Logf("Start(%s): %v", spec.Image, err)
	}
	if left := managedContainers(t, cli, owner); len(left) != 0 {
		t.Errorf("containers left after failed starts: %q", left)
	}
}

func TestProviderColdStart(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	startSandbox(t, p, sandbox.Spec{Image: minimalImage}) // network created, caches warm
	for range 3 {
		start := time.Now()
		startSandbox(t, p, sandbox.Spec{Image: minimalImage})
		t.Logf("start to healthy: %v", time.Since(start))
	}
}

func TestProviderReadOnlyRootfs(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{ReadOnlyRootfs: true})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	for _, tt := range []struct {
		cmd  string
		want int
	}{
		{"touch /home/user/Desktop/x && touch /tmp/x", 0},
		{"touch /usr/local/x", 1},
	} {
		res := dockerExec(t, cli, inst.ID, "", nil, "sh", "-c", tt.cmd)
		if (res.ExitCode == 0) != (tt.want == 0) {
			t.Errorf("%q: exit %d (%s), want %d", tt.cmd, res.ExitCode, res.Stderr, tt.want)
		}
	}
}

// TestProviderAdminExec: the runner's admin channel runs commands as root
// with the admin capabilities (system files, files of the user's, sudo,
// standard input, a timeout), and what it makes root's stays out of the
// user's reach.
func TestProviderAdminExec(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	ctx := t.Context()

	admin := func(t *testing.T, req api.ExecRequest) api.ExecResult {
		t.Helper()
		res, err := p.AdminExec(ctx, inst.ID, req)
		if err != nil {
			t.Fatalf("AdminExec %q: %v", req.Cmd, err)
		}
		return res
	}
	t.Run("root with the admin capabilities", func(t *testing.T) {
		res := admin(t, api.ExecRequest{Cmd: []string{"sh", "-c", "id -u; grep CapEff /proc/self/status"}})
		if res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "0\n") || !strings.Contains(res.Stdout, "00000000000000eb") {
			t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
	t.Run("system and user files", func(t *testing.T) {
		res := admin(t, api.ExecRequest{Cmd: []string{"sh", "-c",
			"echo secret > /etc/deskrun-secret && chmod 600 /etc/deskrun-secret && " +
				"echo given > /home/user/Desktop/given.txt && chown user:user /home/user/Desktop/given.txt"}})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
		}
		// As the user, through the engine: the file given is theirs, the
		// secret is not readable.
		if r := dockerExec(t, cli, inst.ID, "user", nil, "sh", "-c", "echo more >> ~/Desktop/given.txt && cat ~/Desktop/given.txt"); r.ExitCode != 0 || r.Stdout != "given\nmore\n" {
			t.Errorf("user appends to the file given: exit %d, %q %q", r.ExitCode, r.Stdout, r.Stderr)
		}
		if r := dockerExec(t, cli, inst.ID, "user", nil, "cat", "/etc/deskrun-secret"); r.ExitCode == 0 {
			t.Errorf("user read root's 0600 file: %q", r.Stdout)
		}
	})
	t.Run("sudo with the client password", func(t *testing.T) {
		res := admin(t, api.ExecRequest{Cmd: []string{"sh", "-c", "echo password | sudo -S id -un"}})
		if res.ExitCode != 0 || res.Stdout != "root\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
	t.Run("stdin, env and dir", func(t *testing.T) {
		res := admin(t, api.ExecRequest{Cmd: []string{"sh", "-c", "pwd; echo $GREETING; cat"}, Stdin: "from stdin", Dir: "/etc", Env: map[string]string{"GREETING": "grüße"}})
		if res.ExitCode != 0 || res.Stdout != "/etc\ngrüße\nfrom stdin" {
			t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		res := admin(t, api.ExecRequest{Cmd: []string{"sleep", "30"}, TimeoutMS: 500})
		if !res.TimedOut || res.DurationMS > 5000 {
			t.Errorf("sleep 30 with a 500ms timeout: %+v", res)
		}
		if r := dockerExec(t, cli, inst.ID, "", nil, "sh", "-c", "pgrep -x sleep"); r.ExitCode == 0 {
			t.Errorf("sleep still running after its timeout: %s", r.Stdout)
		}
	})
	t.Run("unknown sandbox", func(t *testing.T) {
		_, err := p.AdminExec(ctx, "0123456789ab", api.ExecRequest{Cmd: []string{"true"}})
		if !errdefs.IsNotFound(err) {
			t.Errorf("AdminExec on an unknown sandbox: %v, want not found", err)
		}
	})
	t.Run("no program", func(t *testing.T) {
		_, err := p.AdminExec(ctx, inst.ID, api.ExecRequest{})
		if !errdefs.IsInvalidArgument(err) {
			t.Errorf("AdminExec without cmd: %v, want invalid argument", err)
		}
	})
}

// TestProviderDiskBound: what a sandbox writes to /tmp is bounded and
// never reaches the host's disk.
func TestProviderDiskBound(t *testing.T) {
	cli := engine(t, minimalImage)
	p, _ := newProvider(t, cli, docker.Config{DiskBytes: 64 << 20})
	inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage})
	res := dockerExec(t, cli, inst.ID, "user", nil, "sh", "-c", `df -k /tmp | tail -1; dd if=/dev/zero of=/tmp/fill bs=1M count=100 2>&1; ls -l /tmp/fill`)
	if !strings.Contains(res.Stdout, "No space left") {
		t.Errorf("writing 100 MiB into a 64 MiB /tmp did not fail for want of space:\n%s%s", res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "tmpfs") || !strings.Contains(res.Stdout, "65536") {
		t.Errorf("/tmp is not a 64 MiB tmpfs:\n%s", res.Stdout)
	}
	// The sandbox still answers.
	if r := dockerExec(t, cli, inst.ID, "user", nil, "true"); r.ExitCode != 0 {
		t.Errorf("after filling /tmp: exit %d %s", r.ExitCode, r.Stderr)
	}
}

// TestProviderHostClosed: a service of the host listening on all
// interfaces is out of reach of a sandbox (through its bridge's gateway
// address and the host's other addresses), while the runner still
// reaches agentd.
func TestProviderHostClosed(t *testing.T) {
	cli := engine(t, minimalImage)
	l, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	p, _ := newProvider(t, cli, docker.Config{})
	for _, egress := range []bool{false, true} {
		inst := startSandbox(t, p, sandbox.Spec{Image: minimalImage, Network: egress})
		if _, err := agentdclient.NewClient(inst.AgentURL, inst.Token, nil).Health(t.Context()); err != nil {
			t.Fatalf("runner to agentd: %v", err)
		}
		gw := dockerExec(t, cli, inst.ID, "user", nil, "sh", "-c", `ip route 2>/dev/null | awk '/default/ {print $3}'; awk '$2 == "00000000" {print $3}' /proc/net/route`)
		targets := strings.Fields(gw.Stdout)
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
					targets = append(targets, ipn.IP.String())
				}
			}
		}
		for _, ip := range targets {
			if len(ip) == 8 { // /proc/net/route's hex, little-endian
				var b [4]byte
				fmt.Sscanf(ip, "%02x%02x%02x%02x", &b[3], &b[2], &b[1], &b[0])
				ip = net.IP(b[:]).String()
			}
			if res := dockerExec(t, cli, inst.ID, "user", nil, "python3", "-c", dial, ip, port); res.ExitCode == 0 {
				t.Errorf("sandbox (egress %v) reached the host's service at %s:%s", egress, ip, port)
			}
		}
	}
}
