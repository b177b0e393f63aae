//go:build e2e && kube

package e2e

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/kube"
	"github.com/deskrun/deskrun/server/e2b/e2btest"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The Kubernetes tests run against the cluster scripts/kube/up.sh brings
// up (make e2e-kube does, and tears it down after): DESKRUN_KUBE_DIR names
// its folder. Build tags e2e and kube select them.

// kubeCluster is the cluster's client configuration.
func kubeCluster(tb testing.TB) (*rest.Config, kubernetes.Interface) {
	tb.Helper()
	dir := os.Getenv("DESKRUN_KUBE_DIR")
	if dir == "" {
		tb.Fatal("DESKRUN_KUBE_DIR is not set: run make e2e-kube, which brings up the cluster (scripts/kube/up.sh)")
	}
	rc, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		tb.Fatalf("kubeconfig: %v", err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return rc, cs
}

// newKubeProvider returns a kube provider whose sandboxes carry an owner
// label unique to the test, and checks when the test ends that nothing of
// that owner is left.
func newKubeProvider(tb testing.TB, reach kube.Reach, cfg kube.Config) (*kube.Provider, string) {
	tb.Helper()
	rc, cs := kubeCluster(tb)
	owner := "e2e-" + randomHex(tb, 6)
	cfg.REST, cfg.Reach = rc, reach
	cfg.Image = minimalImage
	cfg.PullPolicy = corev1.PullNever // the images are imported, not pulled
	cfg.Labels = map[string]string{sandbox.LabelOwner: owner}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(tb.Output(), nil))
	}
	p, err := kube.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := p.Reap(ctx, map[string]string{sandbox.LabelOwner: owner}); err != nil {
			tb.Errorf("reap: %v", err)
		}
		p.Close(ctx)
		eventually(tb, 60*time.Second, "nothing left of "+owner, func() error {
			if left := kubeObjects(tb, cs, owner); len(left) > 0 {
				return fmt.Errorf("left: %q", left)
			}
			return nil
		})
	})
	return p, owner
}

// kubeObjects lists the Pods, Secrets and NetworkPolicies of owner.
func kubeObjects(tb testing.TB, cs kubernetes.Interface, owner string) []string {
	tb.Helper()
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: sandbox.LabelOwner + "=" + owner}
	var out []string
	pods, err := cs.CoreV1().Pods("default").List(ctx, sel)
	if err != nil {
		tb.Fatalf("list pods: %v", err)
	}
	for _, p := range pods.Items {
		out = append(out, "pod/"+p.Name+" "+string(p.Status.Phase))
	}
	secrets, err := cs.CoreV1().Secrets("default").List(ctx, sel)
	if err != nil {
		tb.Fatalf("list secrets: %v", err)
	}
	for _, s := range secrets.Items {
		out = append(out, "secret/"+s.Name)
	}
	nps, err := cs.NetworkingV1().NetworkPolicies("default").List(ctx, sel)
	if err != nil {
		tb.Fatalf("list network policies: %v", err)
	}
	for _, n := range nps.Items {
		out = append(out, "networkpolicy/"+n.Name)
	}
	return out
}

var reaches = map[string]kube.Reach{"pod-ip": kube.ReachPodIP, "port-forward": kube.ReachPortForward}

// TestKubeDesktop drives a Pod's desktop through agentd, reached by pod IP
// and through the API server's port-forward: screenshot, input, cursor,
// exec, files, and agentd's token.
func TestKubeDesktop(t *testing.T) {
	for name, reach := range reaches {
		t.Run(name, func(t *testing.T) {
			p, _ := newKubeProvider(t, reach, kube.Config{})
			screen := api.Screen{Width: 1024, Height: 768}
			start := time.Now()
			inst := startSandbox(t, p, sandbox.Spec{Screen: screen})
			s := agentSession(inst)
			ctx := t.Context()
			img, err := s.screenshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("pod start to first screenshot (%s): %v", name, time.Since(start))
			if b := img.Bounds(); b != image.Rect(0, 0, screen.Width, screen.Height) {
				t.Errorf("screenshot is %v, want %dx%d", b, screen.Width, screen.Height)
			}
			if err := s.input(ctx, api.Action{Type: api.ActionMove, X: api.Int(321), Y: api.Int(123)}); err != nil {
				t.Fatal(err)
			}
			if at, err := s.cursor(ctx); err != nil || at != (api.Point{X: 321, Y: 123}) {
				t.Errorf("cursor = %+v, %v; want (321, 123)", at, err)
			}
			res, err := s.exec(ctx, "sh", "-c", "id -un; echo $DISPLAY")
			if err != nil || res.ExitCode != 0 || !strings.HasPrefix(res.Stdout, "user\n:") {
				t.Errorf("exec = %+v, %v", res, err)
			}
			const path = "/home/user/Desktop/kube.txt"
			if err := s.writeFile(ctx, path, []byte("from the runner")); err != nil {
				t.Fatal(err)
			}
			if got, err := s.readFile(ctx, path); err != nil || string(got) != "from the runner" {
				t.Errorf("read back %q, %v", got, err)
			}
			// agentd wants the sandbox's token.
			_, err = agentdclient.NewClient(inst.AgentURL, "wrong", nil).Exec(ctx, api.ExecRequest{Cmd: []string{"true"}})
			if err == nil {
				t.Error("agentd ran a command for a wrong token")
			}
		})
	}
}

// TestKubeLateAgentd starts a sandbox whose agentd listens 3 s after its
// Pod runs, reached through the port-forward: the health checks that
// reach the Pod before it listens are refused, and the sandbox must
// start anyway and serve through the same URL.
func TestKubeLateAgentd(t *testing.T) {
	late := append([]string{"sh", "-c", `sleep 3; exec "$0" "$@"`}, kube.DefaultEntrypoints["minimal"]...)
	p, _ := newKubeProvider(t, kube.ReachPortForward, kube.Config{Entrypoints: map[string][]string{"minimal": late}})
	start := time.Now()
	inst := startSandbox(t, p, sandbox.Spec{})
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("started in %v, before agentd listened", d)
	}
	s := agentSession(inst)
	for i := range 3 {
		if _, err := s.screenshot(t.Context()); err != nil {
			t.Fatalf("screenshot %d: %v", i, err)
		}
	}
}

// TestKubeLockdown checks the Pod's lockdown from inside it, as the
// desktop user (what the agent runs) and through the admin channel, and
// the objects the API server holds.
func TestKubeLockdown(t *testing.T) {
	p, owner := newKubeProvider(t, kube.ReachPodIP, kube.Config{})
	_, cs := kubeCluster(t)
	inst := startSandbox(t, p, sandbox.Spec{})
	ctx := t.Context()
	agent := agentdclient.NewClient(inst.AgentURL, inst.Token, nil)
	for _, tt := range []struct {
		name string
		cmd  string
		ok   bool
	}{
		{"runs as user", `test "$(id -un):$(id -u)" = user:1000`, true},
		{"no capabilities", `grep -q '^CapEff:[[:space:]]*0000000000000000$' /proc/self/status`, true},
		{"no permitted capabilities", `grep -q '^CapPrm:[[:space:]]*0000000000000000$' /proc/self/status`, true},
		{"bounding set is the admin channel's", `grep -q '^CapBnd:[[:space:]]*00000000000000eb$' /proc/self/status`, true},
		{"no new privileges", `grep -q '^NoNewPrivs:[[:space:]]*1$' /proc/self/status`, true},
		{"seccomp filter", `grep -q '^Seccomp:[[:space:]]*2$' /proc/self/status`, true},
		{"agentd runs as user", `test "$(stat -c %U /proc/$(pgrep -x agentd))" = user`, true},
		{"no token in the environment", `env | grep -q AGENTD_TOKEN`, false},
		{"no service-account token", `test -e /var/run/secrets/kubernetes.io/serviceaccount/token`, false},
		{"sudo refused", `echo password | sudo -S true`, false},
		{"memory-backed /tmp", `grep -q ' /tmp tmpfs ' /proc/mounts && test -w /tmp`, true},
		{"pause reaps orphans (PID 1 is not agentd)", `test "$(cat /proc/1/comm)" != agentd`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := agent.Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", tt.cmd}})
			if err != nil {
				t.Fatal(err)
			}
			if (res.ExitCode == 0) != tt.ok {
				t.Errorf("%s: exit %d (stderr %q), want success %v", tt.cmd, res.ExitCode, res.Stderr, tt.ok)
			}
		})
	}
	t.Run("admin channel", func(t *testing.T) {
		res, err := sandbox.AdminExec(ctx, p, inst.ID, api.ExecRequest{
			Cmd: []string{"sh", "-c", `id -u; pwd; echo $GREETING; cat; grep ^CapEff /proc/self/status; exit 3`},
			Dir: "/home/user", Env: map[string]string{"GREETING": "hello"}, Stdin: "from stdin",
		})
		if err != nil {
			t.Fatal(err)
		}
		want := "0\n/home/user\nhello\nfrom stdin"
		if res.ExitCode != 3 || !strings.HasPrefix(res.Stdout, want) || !strings.Contains(res.Stdout, "00000000000000eb") {
			t.Errorf("admin exec = %+v, want exit 3 and %q with CapEff eb", res, want)
		}
		res, err = sandbox.AdminExec(ctx, p, inst.ID, api.ExecRequest{Cmd: []string{"sleep", "10"}, TimeoutMS: 500})
		if err != nil || !res.TimedOut {
			t.Errorf("admin exec past its timeout = %+v, %v; want TimedOut", res, err)
		}
		if _, err := sandbox.AdminExec(ctx, p, "deskrun-nosuch", api.ExecRequest{Cmd: []string{"true"}}); !errdefs.IsNotFound(err) {
			t.Errorf("admin exec in an unknown sandbox = %v, want not found", err)
		}
	})
	t.Run("objects", func(t *testing.T) {
		pod, err := cs.CoreV1().Pods("default").Get(ctx, inst.ID, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c := pod.Spec.Containers[0]
		lim := c.Resources.Limits
		if pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken ||
			lim.Cpu().IsZero() || lim.Memory().IsZero() || lim.StorageEphemeral().IsZero() ||
			c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation ||
			c.SecurityContext.SeccompProfile == nil || c.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
			pod.Labels[sandbox.LabelOwner] != owner || pod.Labels[sandbox.LabelManaged] != "true" {
			t.Errorf("pod spec not locked down: %+v %+v labels %v", pod.Spec, c, pod.Labels)
		}
		for _, e := range c.Env {
			if e.Name == kube.TokenEnv && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
				t.Errorf("token not from a Secret: %+v", e)
			}
		}
		np, err := cs.NetworkingV1().NetworkPolicies("default").Get(ctx, inst.ID, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		egressDenied := len(np.Spec.Egress) == 0 && len(np.Spec.PolicyTypes) == 2 && np.Spec.PolicyTypes[1] == networkingv1.PolicyTypeEgress
		if !egressDenied || len(np.OwnerReferences) != 1 || np.OwnerReferences[0].UID != pod.UID {
			t.Errorf("network policy %+v, owners %+v", np.Spec, np.OwnerReferences)
		}
	})
	t.Run("sudo", func(t *testing.T) {
		s := startSandbox(t, p, sandbox.Spec{Sudo: true})
		res, err := agentdclient.NewClient(s.AgentURL, s.Token, nil).Exec(ctx, api.ExecRequest{Cmd: []string{"sh", "-c", `grep '^NoNewPrivs' /proc/self/status`}})
		if err != nil || !strings.Contains(res.Stdout, "0") {
			t.Errorf("sandbox with sudo: %+v, %v; want NoNewPrivs 0", res, err)
		}
	})
}

// TestKubeStopAndReap stops one sandbox, lists, and reaps the other as a
// restarted runner would; nothing of the owner is left.
func TestKubeStopAndReap(t *testing.T) {
	p, owner := newKubeProvider(t, kube.ReachPortForward, kube.Config{})
	_, cs := kubeCluster(t)
	var a, b sandbox.Instance
	var wg sync.WaitGroup
	wg.Go(func() { a = startSandbox(t, p, sandbox.Spec{}) })
	wg.Go(func() { b = startSandbox(t, p, sandbox.Spec{}) })
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
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
	rc, _ := kubeCluster(t)
	fresh, err := kube.New(kube.Config{REST: rc})
	if err != nil {
		t.Fatal(err)
	}
	removed, err := fresh.Reap(t.Context(), map[string]string{sandbox.LabelOwner: owner})
	if err != nil || len(removed) != 1 || removed[0] != b.ID {
		t.Errorf("Reap = %q, %v; want [%s]", removed, err, b.ID)
	}
	eventually(t, 60*time.Second, "pods, secrets and policies gone", func() error {
		if left := kubeObjects(t, cs, owner); len(left) > 0 {
			return fmt.Errorf("left: %q", left)
		}
		return nil
	})
}

// TestKubeNodeCapacity starts three sandboxes at once that each reserve
// three quarters of the node's CPU: one runs, the others wait in Pending
// (unschedulable for lack of CPU) and start, one after the other, as the
// one before is stopped. Waiting for room is not a failure.
func TestKubeNodeCapacity(t *testing.T) {
	_, cs := kubeCluster(t)
	nodes, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 {
		t.Fatalf("want one node: %v", err)
	}
	cpu := nodes.Items[0].Status.Allocatable.Cpu().MilliValue() * 1e6 * 3 / 4
	p, owner := newKubeProvider(t, kube.ReachPodIP, kube.Config{NanoCPUs: cpu, CPURequest: cpu})
	type started struct {
		inst sandbox.Instance
		err  error
	}
	out := make(chan started, 3)
	for range 3 {
		go func() {
			inst, err := p.Start(t.Context(), sandbox.Spec{})
			out <- started{inst, err}
		}()
	}
	sawUnschedulable := false
	for i := range 3 {
		var got started
	wait:
		for {
			select {
			case got = <-out:
				break wait
			case <-time.After(300 * time.Millisecond):
			}
			pods, err := cs.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{LabelSelector: sandbox.LabelOwner + "=" + owner})
			if err != nil {
				t.Fatal(err)
			}
			for _, pod := range pods.Items {
				for _, c := range pod.Status.Conditions {
					if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable && strings.Contains(c.Message, "cpu") {
						sawUnschedulable = true
					}
				}
			}
		}
		if got.err != nil {
			t.Fatalf("sandbox %d: %v", i+1, got.err)
		}
		if _, err := agentSession(got.inst).screenshot(t.Context()); err != nil {
			t.Fatalf("sandbox %d: screenshot: %v", i+1, err)
		}
		if err := p.Stop(t.Context(), got.inst.ID); err != nil {
			t.Fatalf("stop sandbox %d: %v", i+1, err)
		}
	}
	if !sawUnschedulable {
		t.Error("no Pod was ever unschedulable for lack of CPU; the test proves nothing")
	}
}

// TestKubeStartFailureLeavesNothing: an image the node does not have, and
// one without setpriv and agentd, fail Start at once and leave nothing.
func TestKubeStartFailureLeavesNothing(t *testing.T) {
	p, owner := newKubeProvider(t, kube.ReachPodIP, kube.Config{})
	_, cs := kubeCluster(t)
	for _, img := range []string{"deskrun/no-such-image:latest", "deskrun/pause:1"} {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		start := time.Now()
		inst, err := p.Start(ctx, sandbox.Spec{Image: img})
		cancel()
		if err == nil {
			p.Stop(t.Context(), inst.ID)
			t.Errorf("Start(%s) succeeded, want an error", img)
			continue
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Start(%s) waited for its deadline: %v", img, err)
		}
		t.Logf("Start(%s) failed after %v: %v", img, time.Since(start), err)
		if left := kubeObjects(t, cs, owner); len(left) > 0 {
			t.Errorf("left after a failed start of %s: %q", img, left)
		}
	}
}

// TestKubeDeletedPod deletes a sandbox's Pod while a command runs in it:
// the call fails as the infrastructure's (unavailable, which the farm
// retries), not as the agent's, and Stop then finds nothing.
func TestKubeDeletedPod(t *testing.T) {
	for name, reach := range reaches {
		t.Run(name, func(t *testing.T) {
			p, _ := newKubeProvider(t, reach, kube.Config{})
			_, cs := kubeCluster(t)
			inst := startSandbox(t, p, sandbox.Spec{})
			agent := agentdclient.NewClient(inst.AgentURL, inst.Token, &http.Client{Timeout: 90 * time.Second})
			done := make(chan error, 1)
			go func() {
				_, err := agent.Exec(t.Context(), api.ExecRequest{Cmd: []string{"sleep", "60"}, TimeoutMS: 70000})
				done <- err
			}()
			time.Sleep(time.Second)
			if err := cs.CoreV1().Pods("default").Delete(t.Context(), inst.ID, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("the task's call succeeded in a deleted pod")
				}
				if !errdefs.IsUnavailable(api.NetworkError(err)) {
					t.Errorf("call in a deleted pod: %v (%T), want an infrastructure failure (unavailable)", err, errors.Unwrap(err))
				}
				t.Logf("call in a deleted pod: %v", err)
			case <-time.After(80 * time.Second):
				t.Fatal("the call did not end after its pod was deleted")
			}
			// The next call fails the same way, at once.
			if _, err := agentdclient.NewClient(inst.AgentURL, inst.Token, &http.Client{Timeout: 10 * time.Second}).Health(t.Context()); !errdefs.IsUnavailable(api.NetworkError(err)) {
				t.Errorf("health after deletion: %v, want unavailable", err)
			}
			eventually(t, 60*time.Second, "pod gone", func() error {
				if err := p.Stop(t.Context(), inst.ID); !errdefs.IsNotFound(err) {
					return fmt.Errorf("Stop = %v, want not found", err)
				}
				return nil
			})
		})
	}
}

// TestKubeServe runs sessions through `deskrun serve --provider kube
// --kubeconfig`, as a runner outside the cluster does: create, screenshot,
// input, exec, delete; then nothing of the server's is left.
func TestKubeServe(t *testing.T) {
	_, cs := kubeCluster(t)
	owner := "e2e-serve-" + randomHex(t, 4)
	d := startKubeServer(t, owner)
	driveSession(t, d, api.CreateSessionRequest{Image: minimalImage}, nil)
	eventually(t, 60*time.Second, "session's objects gone", func() error {
		if left := kubeObjects(t, cs, owner); len(left) > 0 {
			return fmt.Errorf("left: %q", left)
		}
		return nil
	})
}

// driveSession creates a session of 800x600 on the server d, runs check
// on it (if not nil), takes a screenshot, moves the pointer, runs a
// command through the admin channel, and deletes the session.
func driveSession(t *testing.T, d *apiDesk, req api.CreateSessionRequest, check func(api.Session)) api.Session {
	t.Helper()
	req.Screen = api.Screen{Width: 800, Height: 600}
	var sess api.Session
	if err := d.call(t.Context(), http.MethodPost, "/v1/sessions", req, &sess); err != nil {
		t.Fatalf("create session: %v", err)
	}
	if check != nil {
		check(sess)
	}
	s := &session{base: d.url + "/v1/sessions/" + sess.ID, token: d.token, hc: d.hc, sandboxID: sess.SandboxID}
	ctx := t.Context()
	img, err := s.screenshot(ctx)
	if err != nil || img.Bounds().Dx() != 800 {
		t.Fatalf("screenshot: %v", err)
	}
	if err := s.input(ctx, api.Action{Type: api.ActionMove, X: api.Int(10), Y: api.Int(20)}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.exec(ctx, "echo", "hi"); err != nil || res.Stdout != "hi\n" {
		t.Errorf("exec = %+v, %v", res, err)
	}
	if _, err := s.do(ctx, http.MethodDelete, "", nil, nil); err != nil {
		t.Fatalf("delete session: %v", err)
	}
	return sess
}

// startKubeServer runs `deskrun serve --provider kube` on the test
// cluster with its own owner label.
func startKubeServer(t *testing.T, owner string) *apiDesk {
	t.Helper()
	kubeconfig := filepath.Join(os.Getenv("DESKRUN_KUBE_DIR"), "admin.kubeconfig")
	return serveDeskrun(t, 60*time.Second, 120*time.Second, "--provider", "kube", "--kubeconfig", kubeconfig, "--owner", owner)
}

// TestKubeRunnerRole runs a sandbox as deploy/kube's ServiceAccount (the
// API server impersonates it) in a namespace of its own: the Role must
// cover everything the provider does, the admin channel included.
func TestKubeRunnerRole(t *testing.T) {
	rc, cs := kubeCluster(t)
	ns := "e2e-role-" + randomHex(t, 4)
	kubectl := filepath.Join(kubeEnv(t, "KUBE_BIN"), "kubectl")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", filepath.Join(os.Getenv("DESKRUN_KUBE_DIR"), "admin.kubeconfig")}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kubectl %q: %v\n%s", args, err, out)
		}
	}
	run("create", "namespace", ns)
	t.Cleanup(func() {
		cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	run("-n", ns, "apply", "-f", "../deploy/kube/serviceaccount.yaml", "-f", "../deploy/kube/role.yaml")
	as := rest.CopyConfig(rc)
	as.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":deskrun"}
	p, err := kube.New(kube.Config{REST: as, Namespace: ns, Image: minimalImage, PullPolicy: corev1.PullNever,
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	inst := startSandbox(t, p, sandbox.Spec{})
	res, err := sandbox.AdminExec(t.Context(), p, inst.ID, api.ExecRequest{Cmd: []string{"id", "-u"}})
	if err != nil || res.Stdout != "0\n" {
		t.Errorf("admin exec as the runner's ServiceAccount = %+v, %v", res, err)
	}
	if _, err := p.List(t.Context(), nil); err != nil {
		t.Errorf("List: %v", err)
	}
	if err := p.Stop(t.Context(), inst.ID); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if _, err := p.Reap(t.Context(), nil); err != nil {
		t.Errorf("Reap: %v", err)
	}
	// And nothing beyond its namespace.
	other := rest.CopyConfig(as)
	if _, err := kubernetes.NewForConfigOrDie(other).CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("the runner's ServiceAccount lists Pods of another namespace")
	}
}

// kubeEnv is a variable of the cluster's env file (scripts/kube/up.sh).
func kubeEnv(t *testing.T, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(os.Getenv("DESKRUN_KUBE_DIR"), "env"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v
		}
	}
	t.Fatalf("%s not in the cluster's env file", key)
	return ""
}

// TestKubeColdStart logs, three times, how long a Pod takes from Start to
// agentd's first screenshot, by pod IP and through the port-forward.
func TestKubeColdStart(t *testing.T) {
	for _, name := range []string{"pod-ip", "port-forward"} {
		p, _ := newKubeProvider(t, reaches[name], kube.Config{})
		startSandbox(t, p, sandbox.Spec{}) // caches warm
		for range 3 {
			start := time.Now()
			inst := startSandbox(t, p, sandbox.Spec{})
			if _, err := agentSession(inst).screenshot(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: start to first screenshot %v", name, time.Since(start))
		}
	}
}

// TestKubeDeployment deploys deskrun in the cluster from deploy/kube
// (kubectl apply -k, through an overlay that only names the test's
// namespace): the runner runs as its ServiceAccount with the Role's
// rights, reaches its sandboxes by pod IP, and serves sessions on its
// Pod's port 8080. The cluster runs no kube-proxy, so the Pod is told
// the API server's address directly (KUBERNETES_SERVICE_HOST and _PORT,
// which rest.InClusterConfig reads instead of the kubernetes Service).
func TestKubeDeployment(t *testing.T) {
	rc, cs := kubeCluster(t)
	ns := "e2e-deploy-" + randomHex(t, 4)
	kubectl := filepath.Join(kubeEnv(t, "KUBE_BIN"), "kubectl")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", filepath.Join(os.Getenv("DESKRUN_KUBE_DIR"), "admin.kubeconfig")}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("create", "namespace", ns)
	t.Cleanup(func() {
		cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	token := randomHex(t, 16)
	run("-n", ns, "create", "secret", "generic", "deskrun", "--from-literal=token="+token)
	apiServer, err := url.Parse(rc.Host)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(apiServer.Host)
	if host == "127.0.0.1" {
		host = kubeNodeIP(t, cs)
	}
	// kustomize takes bases by relative path only: deploy/kube is copied
	// beside the overlay.
	overlay := t.TempDir()
	if err := os.CopyFS(filepath.Join(overlay, "base"), os.DirFS(filepath.Join(repoRoot(), "deploy", "kube"))); err != nil {
		t.Fatal(err)
	}
	overlay = filepath.Join(overlay, "overlay")
	if err := os.Mkdir(overlay, 0o755); err != nil {
		t.Fatal(err)
	}
	kust := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %s
resources: [../base]
patches:
  - target: {kind: Deployment, name: deskrun}
    patch: |
      - op: add
        path: /spec/template/spec/containers/0/env/-
        value: {name: KUBERNETES_SERVICE_HOST, value: %q}
      - op: add
        path: /spec/template/spec/containers/0/env/-
        value: {name: KUBERNETES_SERVICE_PORT, value: %q}
`, ns, host, port)
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kust), 0o644); err != nil {
		t.Fatal(err)
	}
	run("apply", "-k", overlay)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("runner's log:\n%s", run("-n", ns, "logs", "deployment/deskrun", "--tail", "100"))
		}
	})
	var podIP string
	eventually(t, 2*time.Minute, "the runner's Pod ready", func() error {
		pods, err := cs.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=deskrun"})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			if podReady(&p) {
				podIP = p.Status.PodIP
				return nil
			}
			return fmt.Errorf("pod %s: %s", p.Name, p.Status.Phase)
		}
		return fmt.Errorf("no pod")
	})
	d := &apiDesk{url: "http://" + net.JoinHostPort(podIP, "8080"), token: token, hc: &http.Client{Timeout: 2 * time.Minute}}
	// The admin channel (exec) goes through the exec subresource with the
	// Role's pods/exec.
	sess := driveSession(t, d, api.CreateSessionRequest{}, func(sess api.Session) {
		pod, err := cs.CoreV1().Pods(ns).Get(t.Context(), sess.SandboxID, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the session's sandbox is not a Pod of the runner's namespace: %v", err)
		}
		if pod.Labels[sandbox.LabelOwner] != "deskrun-serve" {
			t.Errorf("sandbox labels %v, want the runner's owner", pod.Labels)
		}
	})
	ctx := t.Context()
	eventually(t, 60*time.Second, "the session's Pod gone", func() error {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, sess.SandboxID, metav1.GetOptions{})
		if err == nil {
			return fmt.Errorf("pod %s still there", sess.SandboxID)
		}
		return nil
	})
}

// kubeNodeIP is the InternalIP of the cluster's node.
func kubeNodeIP(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	nodes, err := cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				return a.Address
			}
		}
	}
	t.Fatal("no node with an InternalIP")
	return ""
}

// TestKubeE2B drives a kube sandbox through deskrun serve's E2B front, as
// E2B's SDKs do against a runner outside the cluster: create (template
// base), a command through envd (output, exit code), a file written and
// read back, the list filtered by metadata, kill; then nothing of the
// server's is left.
func TestKubeE2B(t *testing.T) {
	_, cs := kubeCluster(t)
	owner := "e2e-e2b-" + randomHex(t, 4)
	d := startKubeServer(t, owner)
	c := &e2btest.Client{Base: d.url + "/e2b", Key: d.token, HTTP: d.hc}
	ctx := t.Context()
	sb, err := c.Create(ctx, map[string]any{"templateID": "base", "timeout": 600, "metadata": map[string]string{"test": t.Name()}})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	e := e2btest.NewEnvd(d.url+"/e2b", sb, "user", d.hc)
	res, err := e.Run(ctx, `echo "$((6*7))"; whoami; exit 3`, nil, "", nil)
	if err != nil || res.Stdout != "42\nuser\n" || res.ExitCode != 3 {
		t.Errorf("command: %+v, %v; want 42, user, exit 3", res, err)
	}
	if err := e.Write(ctx, "/home/user/from-e2b.txt", strings.NewReader("through the front")); err != nil {
		t.Fatal(err)
	}
	if b, err := e.Read(ctx, "/home/user/from-e2b.txt"); err != nil || string(b) != "through the front" {
		t.Errorf("read back: %q, %v", b, err)
	}
	if got, _, err := c.List(ctx, map[string]string{"test": t.Name()}, nil); err != nil || len(got) != 1 || got[0].SandboxID != sb.SandboxID {
		t.Errorf("list by metadata: %+v, %v", got, err)
	}
	if err := c.Kill(ctx, sb.SandboxID); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the sandbox's objects gone", func() error {
		if left := kubeObjects(t, cs, owner); len(left) > 0 {
			return fmt.Errorf("left: %q", left)
		}
		return nil
	})
}
