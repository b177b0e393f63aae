package kube

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/sandbox"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// The fake clientset checks the provider's logic: what it asks the API
// server for and how it reads the answers. The real cluster is in
// e2e/kube_test.go (make e2e-kube).

func fakeProvider(t *testing.T, cfg Config) (*Provider, *fake.Clientset) {
	t.Helper()
	cs := fake.NewClientset()
	p, err := newProvider(cs, nil, cfg.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return p, cs
}

func TestPodLockdown(t *testing.T) {
	p, _ := fakeProvider(t, Config{})
	pod := p.pod(sandbox.Spec{Image: "reg.example/deskrun/osworld:v2"}.WithDefaults(), "deskrun-x", map[string]string{"a": "b"})
	c := pod.Spec.Containers[0]
	sc := c.SecurityContext
	if *pod.Spec.AutomountServiceAccountToken || *sc.AllowPrivilegeEscalation || *sc.Privileged ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("security context %+v", sc)
	}
	if c.Command[0] != "setpriv" || !slices.Contains(c.Command, "/usr/local/bin/deskrun-session") {
		t.Errorf("command %q: want setpriv before the osworld entrypoint", c.Command)
	}
	if c.Resources.Limits.StorageEphemeral().Value() != 2<<30 || c.Resources.Limits.Memory().Value() != 2<<30 || c.Resources.Limits.Cpu().MilliValue() != 1000 {
		t.Errorf("limits %v", c.Resources.Limits)
	}
	sudo := p.pod(sandbox.Spec{Sudo: true}.WithDefaults(), "deskrun-y", nil)
	if !*sudo.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation {
		t.Error("a sandbox with sudo may not escalate")
	}
}

func TestStartRejectsBadInput(t *testing.T) {
	p, cs := fakeProvider(t, Config{})
	for _, spec := range []sandbox.Spec{
		{Labels: map[string]string{"dev.deskrun.session": "not a label value!"}},
		{Labels: map[string]string{"bad key!": "x"}},
		{Runtime: "Not_A_Name"},
		{MemoryBytes: -1},
	} {
		_, err := p.Start(t.Context(), spec)
		if !errdefs.IsInvalidArgument(err) {
			t.Errorf("Start(%+v) = %v, want invalid argument", spec, err)
		}
	}
	if n := len(cs.Actions()); n != 0 {
		t.Errorf("%d API calls for bad input", n)
	}
}

// A Pod whose image is missing fails Start at once, and Start deletes
// the Secret, the NetworkPolicy and the Pod it made.
func TestStartFailureDeletesWhatItMade(t *testing.T) {
	p, cs := fakeProvider(t, Config{})
	// The Pod is stored as the kubelet would report it.
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pod := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: container, State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: "image not present"},
		}}}
		return false, nil, nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := p.Start(ctx, sandbox.Spec{})
	if err == nil || !strings.Contains(err.Error(), "ErrImageNeverPull") || !errdefs.IsUnavailable(err) {
		t.Fatalf("Start = %v, want an unavailable error naming ErrImageNeverPull", err)
	}
	pods, _ := cs.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{})
	secrets, _ := cs.CoreV1().Secrets("default").List(t.Context(), metav1.ListOptions{})
	nps, _ := cs.NetworkingV1().NetworkPolicies("default").List(t.Context(), metav1.ListOptions{})
	if len(pods.Items)+len(secrets.Items)+len(nps.Items) != 0 {
		t.Errorf("left: %d pods, %d secrets, %d policies", len(pods.Items), len(secrets.Items), len(nps.Items))
	}
}

func TestStopUnknown(t *testing.T) {
	p, cs := fakeProvider(t, Config{})
	if err := p.Stop(t.Context(), "deskrun-nosuch"); !errdefs.IsNotFound(err) {
		t.Errorf("Stop(unknown) = %v, want not found", err)
	}
	cs.CoreV1().Pods("default").Create(t.Context(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "someone-else"}}, metav1.CreateOptions{})
	if err := p.Stop(t.Context(), "someone-else"); !errdefs.IsNotFound(err) {
		t.Errorf("Stop(a pod not deskrun's) = %v, want not found", err)
	}
	if err := p.Stop(t.Context(), "../x"); !errdefs.IsNotFound(err) {
		t.Errorf("Stop(bad name) = %v, want not found", err)
	}
}
