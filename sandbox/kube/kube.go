// Package kube runs sandboxes as Kubernetes Pods: one Pod per sandbox,
// from the same images as the docker provider (Xvfb, a window manager,
// apps and agentd), locked down as on Docker and cut off from the network
// unless the sandbox asks for egress.
//
// It talks to the API server through client-go (k8s.io/client-go), the
// Kubernetes project's own Go client, released with every Kubernetes
// version: typed clients for Pods, Secrets and NetworkPolicies, kubeconfig
// and in-cluster configuration, and the exec and port-forward
// subresources over WebSocket with the SPDY fallback that kubectl uses.
// Nothing else speaks those subresources correctly across server versions.
//
// What a sandbox is made of, all in one namespace and all carrying the
// sandbox's labels (so [Provider.Reap] finds them) and an owner reference
// to the Pod (so the cluster's garbage collector removes them with it):
//
//   - a Secret holding agentd's token, given to the container as
//     AGENTD_TOKEN (agentd reads and clears it; the desktop never sees it);
//   - a NetworkPolicy that lets only port 7000 in and, unless the Spec
//     asks for network, nothing out; the cluster's network plugin must
//     enforce NetworkPolicies (Calico, Cilium and most managed clusters
//     do; the plain CNI bridge plugin does not);
//   - the Pod: restartPolicy Never, no service-account token, no service
//     links, its own process namespace shared with the pod's pause
//     process (which reaps the apps' orphans, as Docker's init does), a
//     readiness probe on agentd's /healthz, requests and limits for CPU,
//     memory and ephemeral storage, memory-backed /tmp, /var/tmp and
//     /dev/shm of bounded size, and the security context of the docker
//     provider: the container starts as root only to drop to the desktop
//     user at once (setpriv, before the image's entrypoint), every
//     capability is dropped but the admin channel's, seccomp is the
//     runtime's default, and allowPrivilegeEscalation is false (no
//     setuid, no sudo) unless the Spec asks for sudo.
//
// Reaching agentd: in the cluster (the runner in a Pod, or on a node)
// the runner connects to the Pod's IP ([ReachPodIP]); outside it, with a
// kubeconfig, through a port-forward of the API server that the provider
// holds open on a loopback port for each sandbox ([ReachPortForward]).
// The forward speaks the subresource's protocol itself (forward.go) on
// client-go's SPDY and WebSocket dialers: client-go's PortForwarder ends
// its whole session at the first connection the Pod refuses, which a
// health check made before agentd listens is.
//
// The admin channel ([Provider.AdminExec]) is the Pod's exec subresource:
// the command runs as the container's user, root, with the admin
// channel's capabilities, and only holders of pods/exec in the namespace
// can use it, never the agent.
package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/containerd/errdefs"
	agentdclient "github.com/deskrun/deskrun/agentd/client"
	"github.com/deskrun/deskrun/sandbox"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Names and ports shared with the images.
const (
	// DefaultImage is the image a Spec without one runs.
	DefaultImage = "deskrun/minimal:latest"
	// AgentPort is the port agentd listens on inside the images.
	AgentPort = 7000
	// TokenEnv is the environment variable agentd reads its token from.
	TokenEnv = "AGENTD_TOKEN"
	// LabelSandbox names the sandbox (its Pod) on each of its objects.
	LabelSandbox = "dev.deskrun.sandbox"
	// container is the name of the sandbox's container in its Pod.
	container = "desktop"
)

// Reach says how the runner connects to a sandbox's agentd.
type Reach int

const (
	// ReachPodIP connects to the Pod's IP: the runner runs in the cluster
	// (in a Pod, or on a node whose routes reach Pods).
	ReachPodIP Reach = iota
	// ReachPortForward connects through the API server's port-forward of
	// the Pod, listening on a loopback port for each sandbox: the runner
	// runs outside the cluster with a kubeconfig.
	ReachPortForward
)

// agentdEntrypoint is the entrypoint of images/minimal, and of an image
// not named in DefaultEntrypoints.
var agentdEntrypoint = []string{"/usr/local/bin/agentd", "--addr", "0.0.0.0:7000", "--xvfb", "--wm", "openbox"}

// DefaultEntrypoints are the entrypoints of deskrun's images, by the
// image's name without tag or registry. The API server cannot read an
// image's entrypoint, and the provider must run it behind setpriv.
var DefaultEntrypoints = map[string][]string{
	"minimal": agentdEntrypoint,
	// desktop names display :0, where E2B's desktop SDK looks for it.
	"desktop": {"/usr/local/bin/agentd", "--addr", "0.0.0.0:7000", "--xvfb", "--display", ":0", "--wm", "openbox"},
	"osworld": {"/usr/local/bin/deskrun-session", "/usr/local/bin/agentd", "--addr", "0.0.0.0:7000", "--xvfb", "--display", ":0", "--wm", "deskrun-gnome"},
}

// Config holds the settings of the Kubernetes provider. REST is required;
// every other field has a useful zero value.
type Config struct {
	// REST is how to reach the API server (rest.InClusterConfig, or a
	// kubeconfig through clientcmd).
	REST *rest.Config
	// Namespace holds the sandboxes (default "default").
	Namespace string
	// Reach says how to connect to agentd (default [ReachPodIP]).
	Reach Reach
	// Image is the image of a Spec that names none (default
	// [DefaultImage]).
	Image string
	// Entrypoints maps an image's name (its last path element, without
	// tag) to its entrypoint, besides [DefaultEntrypoints]; an image not
	// found runs agentd's.
	Entrypoints map[string][]string
	// PullPolicy is the Pods' image pull policy (default IfNotPresent;
	// Never where images are loaded onto the nodes by hand).
	PullPolicy corev1.PullPolicy
	// User runs the sandbox's processes (default "user", the images'
	// desktop user), as setpriv drops to it.
	User string
	// MemoryBytes limits a sandbox's memory when its Spec sets none
	// (default 2 GiB); MemoryRequest is what the scheduler reserves for
	// it (default 512 MiB).
	MemoryBytes, MemoryRequest int64
	// NanoCPUs limits a sandbox's CPU when its Spec sets none, in
	// billionths of a core (default 1e9); CPURequest is what the scheduler
	// reserves, in the same unit (default 1e8, a tenth of a core).
	NanoCPUs, CPURequest int64
	// DiskBytes limits a sandbox's ephemeral storage (its writable layer
	// and logs) and the size of its /tmp and /var/tmp (default 2 GiB; the
	// tmpfs at most half the memory limit).
	DiskBytes int64
	// ShmSize is the size of /dev/shm (default 512 MiB).
	ShmSize int64
	// RuntimeClass is the RuntimeClass of sandboxes whose Spec names no
	// runtime (empty: the cluster's default), e.g. "gvisor".
	RuntimeClass string
	// RunnerLabels select the Pods allowed to connect to agentd when the
	// runner runs in the cluster (default
	// {"app.kubernetes.io/name": "deskrun"}, as deploy/kube labels it);
	// connections through the API server's port-forward do not cross the
	// Pod network.
	RunnerLabels map[string]string
	// StartTimeout bounds Start from the moment the scheduler places the
	// Pod to agentd's first answer (default 5m). The wait before, for room
	// in the namespace's ResourceQuota or on the nodes, is a queue, not a
	// failure: only ctx ends it.
	StartTimeout time.Duration
	// HealthInterval is the pause between health checks of a starting
	// agentd (default 25ms).
	HealthInterval time.Duration
	// Labels are set on every object the provider creates, besides the
	// Spec's, e.g. {sandbox.LabelOwner: "runner-1"}.
	Labels map[string]string
	// Logger receives start and stop events. Nil discards them.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	c.Namespace = cmp.Or(c.Namespace, "default")
	c.Image = cmp.Or(c.Image, DefaultImage)
	c.PullPolicy = cmp.Or(c.PullPolicy, corev1.PullIfNotPresent)
	c.User = cmp.Or(c.User, "user")
	c.MemoryBytes = cmp.Or(c.MemoryBytes, 2<<30)
	c.MemoryRequest = cmp.Or(c.MemoryRequest, 512<<20)
	c.NanoCPUs = cmp.Or(c.NanoCPUs, 1e9)
	c.CPURequest = cmp.Or(c.CPURequest, 1e8)
	c.DiskBytes = cmp.Or(c.DiskBytes, 2<<30)
	c.ShmSize = cmp.Or(c.ShmSize, 512<<20)
	if c.RunnerLabels == nil {
		c.RunnerLabels = map[string]string{"app.kubernetes.io/name": "deskrun"}
	}
	c.StartTimeout = cmp.Or(c.StartTimeout, 5*time.Minute)
	c.HealthInterval = cmp.Or(c.HealthInterval, 25*time.Millisecond)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Provider starts sandboxes as Pods. It is safe for concurrent use.
type Provider struct {
	cs   kubernetes.Interface
	rest *rest.Config
	cfg  Config
	log  *slog.Logger
	hc   *http.Client

	mu       sync.Mutex
	forwards map[string]*forward // by sandbox, with ReachPortForward
}

var (
	_ sandbox.Provider    = (*Provider)(nil)
	_ sandbox.Lister      = (*Provider)(nil)
	_ sandbox.AdminExecer = (*Provider)(nil)
)

// New returns a provider that runs sandboxes in the cluster cfg.REST
// reaches.
func New(cfg Config) (*Provider, error) {
	if cfg.REST == nil {
		return nil, errdefs.ErrInvalidArgument.WithMessage("kube: Config.REST is required")
	}
	cfg = cfg.withDefaults()
	rc := rest.CopyConfig(cfg.REST)
	// The farm starts and stops many sandboxes at once; client-go's
	// default of 5 requests per second would queue them.
	if rc.QPS == 0 {
		rc.QPS, rc.Burst = 100, 200
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	return newProvider(cs, rc, cfg)
}

// newProvider is New on the client cs; tests pass a fake one.
func newProvider(cs kubernetes.Interface, rc *rest.Config, cfg Config) (*Provider, error) {
	for k, v := range cfg.Labels {
		if err := checkLabel(k, v); err != nil {
			return nil, err
		}
	}
	return &Provider{
		cs: cs, rest: rc, cfg: cfg,
		log:      cfg.Logger.With("provider", "kube"),
		hc:       &http.Client{Timeout: time.Second},
		forwards: map[string]*forward{},
	}, nil
}

// Close closes the port-forwards of the sandboxes still running; it
// stops no sandbox.
func (p *Provider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, f := range p.forwards {
		f.close()
		delete(p.forwards, id)
	}
	return nil
}

// checkLabel reports a label the API server would refuse, naming it.
func checkLabel(k, v string) error {
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("labels: key %q: %s", k, strings.Join(errs, "; ")))
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		return errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("labels: value of %q: %s", k, strings.Join(errs, "; ")))
	}
	return nil
}

// Start creates a Secret, a NetworkPolicy and a Pod for spec and returns
// once agentd in the Pod answers its health check. A Pod the scheduler
// cannot place yet, or one the namespace's ResourceQuota has no room
// for, waits for room until ctx ends; once placed, it has
// Config.StartTimeout to serve. A Pod that cannot run (an image missing,
// a container that exits) fails at once. On any failure Start deletes
// what it created.
func (p *Provider) Start(ctx context.Context, spec sandbox.Spec) (inst sandbox.Instance, err error) {
	spec = spec.WithDefaults()
	if spec.Screen.Width < 0 || spec.Screen.Height < 0 {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage("screen: width and height must be positive")
	}
	if spec.MemoryBytes < 0 || spec.NanoCPUs < 0 {
		return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage("memory and cpu limits must not be negative")
	}
	for k, v := range spec.Labels {
		if err := checkLabel(k, v); err != nil {
			return sandbox.Instance{}, err
		}
	}
	if spec.Runtime != "" {
		if errs := validation.IsDNS1123Subdomain(spec.Runtime); len(errs) > 0 {
			return sandbox.Instance{}, errdefs.ErrInvalidArgument.WithMessage(fmt.Sprintf("runtime: %q is not a RuntimeClass name: %s", spec.Runtime, strings.Join(errs, "; ")))
		}
	}
	token := sandbox.RandomHex(32)
	name := "deskrun-" + sandbox.RandomHex(6)
	lbls := p.labels(spec, name)
	ns := p.cfg.Namespace
	t0 := time.Now()

	var created []func(context.Context) error
	defer func() {
		if err == nil {
			return
		}
		// Undo on any failure, even when ctx is done.
		rmCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		p.dropForward(name)
		for _, undo := range slices.Backward(created) {
			if rmErr := undo(rmCtx); rmErr != nil && !apierrors.IsNotFound(rmErr) {
				err = errors.Join(err, rmErr)
			}
		}
	}()
	now := metav1.DeleteOptions{GracePeriodSeconds: new(int64)}

	// Each object's removal is registered before it is created, and a
	// create request runs to its answer though ctx ends (Ctrl-C): one cut
	// short on the client may still be carried out by the API server after
	// the undo's delete found nothing, and leave a Pod no one deletes.
	// After the answer, an ended ctx undoes what the request made.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
	defer ccancel()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{TokenEnv: []byte(token)},
	}
	created = append(created, func(ctx context.Context) error {
		return p.cs.CoreV1().Secrets(ns).Delete(ctx, name, now)
	})
	if _, err := p.cs.CoreV1().Secrets(ns).Create(cctx, secret, metav1.CreateOptions{}); err != nil {
		return sandbox.Instance{}, fmt.Errorf("create secret %s/%s: %w", ns, name, classify(err))
	}
	if err := ctx.Err(); err != nil {
		return sandbox.Instance{}, err
	}
	policy := p.networkPolicy(name, lbls, spec.Network)
	created = append(created, func(ctx context.Context) error {
		return p.cs.NetworkingV1().NetworkPolicies(ns).Delete(ctx, name, now)
	})
	if _, err := p.cs.NetworkingV1().NetworkPolicies(ns).Create(cctx, policy, metav1.CreateOptions{}); err != nil {
		return sandbox.Instance{}, fmt.Errorf("create network policy %s/%s: %w", ns, name, classify(err))
	}
	if err := ctx.Err(); err != nil {
		return sandbox.Instance{}, err
	}
	created = append(created, func(ctx context.Context) error {
		return p.cs.CoreV1().Pods(ns).Delete(ctx, name, now)
	})
	pod, err := p.createPod(ctx, p.pod(spec, name, lbls))
	if err != nil {
		err = classify(err)
		if apierrors.IsInvalid(err) || apierrors.IsForbidden(err) {
			err = fmt.Errorf("%w: %w", errdefs.ErrInvalidArgument, err)
		}
		return sandbox.Instance{}, fmt.Errorf("create pod %s/%s: %w", ns, name, err)
	}
	// The Secret and the NetworkPolicy go with the Pod, whoever deletes it.
	if err := p.own(ctx, pod); err != nil {
		return sandbox.Instance{}, err
	}
	tCreated := time.Now()
	ip, scheduled, err := p.waitRunning(ctx, name)
	if err != nil {
		return sandbox.Instance{}, err
	}
	ctx, cancel := context.WithDeadline(ctx, scheduled.Add(p.cfg.StartTimeout))
	defer cancel()
	tRunning := time.Now()
	url := "http://" + net.JoinHostPort(ip, strconv.Itoa(AgentPort))
	if p.cfg.Reach == ReachPortForward {
		f, err := p.openForward(ctx, name)
		if err != nil {
			return sandbox.Instance{}, err
		}
		url = f.url
	}
	if err := p.waitHealthy(ctx, name, url); err != nil {
		return sandbox.Instance{}, err
	}
	p.log.InfoContext(ctx, "sandbox started", "sandbox", name, "image", pod.Spec.Containers[0].Image,
		"agent_url", url, "egress", spec.Network, "sudo", spec.Sudo,
		"create", tCreated.Sub(t0).Round(time.Millisecond), "running", tRunning.Sub(tCreated).Round(time.Millisecond),
		"healthy", time.Since(tRunning).Round(time.Millisecond))
	return sandbox.Instance{ID: name, AgentURL: url, Token: token, Labels: lbls}, nil
}

// createTimeout bounds one create request, which ctx's end does not cut
// short (see Start).
const createTimeout = time.Minute

// createPod creates pod, waiting while the namespace's ResourceQuota
// has no room for it (as a Pod the nodes have no room for waits in
// Pending): lack of capacity makes a sandbox wait for another to end,
// not fail. The wait ends with ctx; each create request runs to its
// answer (see Start), after which an ended ctx is the error.
func (p *Provider) createPod(ctx context.Context, pod *corev1.Pod) (*corev1.Pod, error) {
	delay := 250 * time.Millisecond
	said := time.Now()
	for {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		created, err := p.cs.CoreV1().Pods(p.cfg.Namespace).Create(cctx, pod, metav1.CreateOptions{})
		cancel()
		if err == nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil || !overQuota(err) {
			return created, err
		}
		if time.Since(said) > 30*time.Second {
			p.log.InfoContext(ctx, "sandbox waits for room in the quota", "sandbox", pod.Name, "reason", err)
			said = time.Now()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no room in the namespace's quota (%v): %w", err, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// overQuota reports the API server's refusal of an object that would
// exceed a ResourceQuota.
func overQuota(err error) bool {
	return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota")
}

// labels are the labels of every object of sandbox name.
func (p *Provider) labels(spec sandbox.Spec, name string) map[string]string {
	l := map[string]string{}
	maps.Copy(l, spec.Labels)
	maps.Copy(l, p.cfg.Labels)
	l[sandbox.LabelManaged] = "true"
	l[LabelSandbox] = name
	return l
}

// own makes pod the owner of the sandbox's Secret and NetworkPolicy.
func (p *Provider) own(ctx context.Context, pod *corev1.Pod) error {
	patch := fmt.Appendf(nil, `{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":%q,"uid":%q}]}}`, pod.Name, pod.UID)
	ns := p.cfg.Namespace
	if _, err := p.cs.CoreV1().Secrets(ns).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("secret %s/%s: set owner: %w", ns, pod.Name, classify(err))
	}
	if _, err := p.cs.NetworkingV1().NetworkPolicies(ns).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("network policy %s/%s: set owner: %w", ns, pod.Name, classify(err))
	}
	return nil
}

// adminCaps are the only capabilities a sandbox's processes can ever
// hold, and only the commands the runner starts as root through
// [Provider.AdminExec] hold them (see the docker provider's adminCaps):
// the desktop user's processes have none, setpriv having dropped to the
// user before the image's entrypoint.
var adminCaps = []corev1.Capability{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID"}

// entrypoint is image's entrypoint, from Config.Entrypoints or
// [DefaultEntrypoints] by the image's base name.
func (p *Provider) entrypoint(image string) []string {
	base := image
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.IndexAny(base, ":@"); i >= 0 {
		base = base[:i]
	}
	if e, ok := p.cfg.Entrypoints[base]; ok {
		return e
	}
	if e, ok := DefaultEntrypoints[base]; ok {
		return e
	}
	return agentdEntrypoint
}

// pod is the Pod of sandbox name.
func (p *Provider) pod(spec sandbox.Spec, name string, lbls map[string]string) *corev1.Pod {
	image := cmp.Or(spec.Image, p.cfg.Image)
	memory := cmp.Or(spec.MemoryBytes, p.cfg.MemoryBytes)
	cpu := cmp.Or(spec.NanoCPUs, p.cfg.NanoCPUs)
	env := make([]corev1.EnvVar, 0, len(spec.Env)+1)
	for _, k := range slices.Sorted(maps.Keys(spec.Env)) {
		if k == TokenEnv {
			continue // the provider's token is the only one
		}
		env = append(env, corev1.EnvVar{Name: k, Value: spec.Env[k]})
	}
	env = append(env, corev1.EnvVar{Name: TokenEnv, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}, Key: TokenEnv},
	}}, corev1.EnvVar{Name: sandbox.SoleDesktopEnv, Value: "1"})
	grace := int64((spec.StopTimeout + time.Second - 1) / time.Second)
	tmpSize := resource.NewQuantity(min(p.cfg.DiskBytes, memory/2), resource.BinarySI)
	memVolume := func(name string, size *resource.Quantity) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: size},
		}}
	}
	root := int64(0)
	var runtimeClass *string
	if rc := cmp.Or(spec.Runtime, p.cfg.RuntimeClass); rc != "" {
		runtimeClass = &rc
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  new(false),
			EnableServiceLinks:            new(false),
			TerminationGracePeriodSeconds: &grace,
			// The pause process is PID 1 and reaps the apps' orphans.
			ShareProcessNamespace: new(true),
			RuntimeClassName:      runtimeClass,
			Volumes: []corev1.Volume{
				memVolume("tmp", tmpSize),
				memVolume("var-tmp", tmpSize),
				memVolume("shm", resource.NewQuantity(p.cfg.ShmSize, resource.BinarySI)),
			},
			Containers: []corev1.Container{{
				Name:            container,
				Image:           image,
				ImagePullPolicy: p.cfg.PullPolicy,
				// Root only until setpriv: it drops to the desktop user
				// with its groups, clears the inheritable set, and runs
				// the image's entrypoint. Root in the process spec is what
				// gives AdminExec's commands the adminCaps.
				Command: append([]string{"setpriv", "--reuid=" + p.cfg.User, "--regid=" + p.cfg.User,
					"--init-groups", "--inh-caps=-all", "--"}, p.entrypoint(image)...),
				Args:  []string{"--screen", fmt.Sprintf("%dx%dx24", spec.Screen.Width, spec.Screen.Height)},
				Env:   env,
				Ports: []corev1.ContainerPort{{Name: "agentd", ContainerPort: AgentPort, Protocol: corev1.ProtocolTCP}},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
						Path: "/healthz", Port: intstr.FromInt32(AgentPort),
					}},
					PeriodSeconds: 2, TimeoutSeconds: 2, FailureThreshold: 3,
				},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:              *resource.NewMilliQuantity(min(p.cfg.CPURequest, cpu)/1e6, resource.DecimalSI),
						corev1.ResourceMemory:           *resource.NewQuantity(min(p.cfg.MemoryRequest, memory), resource.BinarySI),
						corev1.ResourceEphemeralStorage: *resource.NewQuantity(min(256<<20, p.cfg.DiskBytes), resource.BinarySI),
					},
					Limits: corev1.ResourceList{
						corev1.ResourceCPU:              *resource.NewMilliQuantity(cpu/1e6, resource.DecimalSI),
						corev1.ResourceMemory:           *resource.NewQuantity(memory, resource.BinarySI),
						corev1.ResourceEphemeralStorage: *resource.NewQuantity(p.cfg.DiskBytes, resource.BinarySI),
					},
				},
				VolumeMounts: []corev1.VolumeMount{
					{Name: "tmp", MountPath: "/tmp"},
					{Name: "var-tmp", MountPath: "/var/tmp"},
					{Name: "shm", MountPath: "/dev/shm"},
				},
				SecurityContext: &corev1.SecurityContext{
					RunAsUser:    &root,
					RunAsNonRoot: new(false),
					Privileged:   new(false),
					// A sandbox that opts in to sudo may gain privileges
					// through setuid; root then holds what adminCaps
					// leaves in the bounding set, no more.
					AllowPrivilegeEscalation: new(spec.Sudo),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: adminCaps},
					SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
		},
	}
}

// networkPolicy lets the runner's Pods reach agentd and, unless egress,
// nothing leave the sandbox.
func (p *Provider) networkPolicy(name string, lbls map[string]string, egress bool) *networkingv1.NetworkPolicy {
	port := intstr.FromInt32(AgentPort)
	tcp := corev1.ProtocolTCP
	np := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelSandbox: name}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}},
				From: []networkingv1.NetworkPolicyPeer{{
					NamespaceSelector: &metav1.LabelSelector{},
					PodSelector:       &metav1.LabelSelector{MatchLabels: p.cfg.RunnerLabels},
				}},
			}},
		},
	}
	if !egress {
		// Egress listed with no rule: nothing leaves, not even DNS.
		np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	}
	return np
}

// waitRunning waits until Pod name runs and has an IP, and returns it
// with the time the Pod was found scheduled. A Pod that cannot be
// scheduled yet keeps waiting (saying why every 30 s), until ctx ends;
// once scheduled it has Config.StartTimeout to run; one that cannot run
// fails at once. It watches the Pod (client-go's UntilWithSync: a watch
// that lists again when it breaks) rather than polling it, so a farm of
// hundreds of waiting Pods costs the API server a watch each, and a
// change is seen as it happens.
func (p *Provider) waitRunning(ctx context.Context, name string) (ip string, scheduled time.Time, err error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ns := p.cfg.Namespace
	byName := func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
	// The wrapper tells the reflector whether the client can stream its
	// first list in the watch (a real API server can; the fake of the
	// unit tests cannot).
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			byName(&o)
			return p.cs.CoreV1().Pods(ns).List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			byName(&o)
			return p.cs.CoreV1().Pods(ns).Watch(ctx, o)
		},
	}, p.cs)
	var last atomic.Pointer[corev1.Pod]
	waiting := time.NewTicker(30 * time.Second)
	defer waiting.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-waiting.C:
				if pod := last.Load(); pod != nil && pod.Spec.NodeName == "" {
					p.log.InfoContext(ctx, "sandbox waits for room", "sandbox", name, "reason", pending(pod))
				}
			}
		}
	}()
	var deadline *time.Timer
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	_, err = watchtools.UntilWithSync(ctx, lw, &corev1.Pod{}, nil, func(ev watch.Event) (bool, error) {
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok || pod.Name != name {
			return false, nil
		}
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("deleted: %w", errdefs.ErrUnavailable)
		}
		last.Store(pod)
		if err := podFailure(pod); err != nil {
			return false, err
		}
		if scheduled.IsZero() && pod.Spec.NodeName != "" {
			scheduled = time.Now()
			deadline = time.AfterFunc(p.cfg.StartTimeout, func() {
				cancel(fmt.Errorf("not running %s after it was scheduled: %w", p.cfg.StartTimeout, context.DeadlineExceeded))
			})
		}
		ip = pod.Status.PodIP
		return pod.Status.Phase == corev1.PodRunning && ip != "", nil
	})
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		why := "not created"
		if pod := last.Load(); pod != nil {
			why = pending(pod)
		}
		return "", scheduled, fmt.Errorf("pod %s: %s: %w", name, why, classify(err))
	}
	return ip, scheduled, nil
}

// pending says why pod is not running yet.
func pending(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
			return "not scheduled: " + c.Message
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil {
			return "waiting: " + w.Reason + " " + w.Message
		}
	}
	return "phase " + string(pod.Status.Phase)
}

// fatalWaits are the reasons a container waits that will not resolve by
// themselves.
var fatalWaits = []string{"ErrImageNeverPull", "InvalidImageName", "CreateContainerConfigError",
	"CreateContainerError", "ImageInspectError", "ErrImagePull", "ImagePullBackOff", "RunContainerError"}

// podFailure is the reason pod will not serve, of class
// errdefs.ErrUnavailable, or nil.
func podFailure(pod *corev1.Pod) error {
	if pod.DeletionTimestamp != nil {
		return fmt.Errorf("being deleted: %w", errdefs.ErrUnavailable)
	}
	switch pod.Status.Phase {
	case corev1.PodFailed, corev1.PodSucceeded:
		return fmt.Errorf("%s %s %s: %w", pod.Status.Phase, pod.Status.Reason, strings.TrimSpace(pod.Status.Message+" "+terminated(pod)), errdefs.ErrUnavailable)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && slices.Contains(fatalWaits, w.Reason) {
			return fmt.Errorf("container %s: %s: %w", w.Reason, w.Message, errdefs.ErrUnavailable)
		}
		if t := cs.State.Terminated; t != nil {
			return fmt.Errorf("container exited (code %d, %s): %s: %w", t.ExitCode, t.Reason, strings.TrimSpace(t.Message), errdefs.ErrUnavailable)
		}
	}
	return nil
}

func terminated(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			return fmt.Sprintf("(exit code %d) %s", t.ExitCode, strings.TrimSpace(t.Message))
		}
	}
	return ""
}

// waitHealthy waits for agentd's health check while making sure the Pod
// still runs, so a sandbox whose agentd exits at start fails at once.
func (p *Provider) waitHealthy(ctx context.Context, name, url string) error {
	hctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- agentdclient.WaitHealthy(hctx, url, p.hc, p.cfg.HealthInterval) }()
	watch := time.NewTicker(500 * time.Millisecond)
	defer watch.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if cause := context.Cause(hctx); cause != nil && !errors.Is(cause, err) {
					err = cause
				}
				return fmt.Errorf("wait for agentd of %s: %w", name, err)
			}
			return nil
		case <-watch.C:
			pod, err := p.cs.CoreV1().Pods(p.cfg.Namespace).Get(ctx, name, metav1.GetOptions{})
			switch {
			case err != nil:
				cancel(fmt.Errorf("get pod: %w", classify(err)))
			default:
				if err := podFailure(pod); err != nil {
					cancel(fmt.Errorf("pod %s: %w", name, err))
				}
			}
		}
	}
}

// managed returns the Pod id if it is a sandbox of deskrun's, else an
// error for which errdefs.IsNotFound holds.
func (p *Provider) managed(ctx context.Context, id string) (*corev1.Pod, error) {
	if errs := validation.IsDNS1123Subdomain(id); len(errs) > 0 {
		return nil, fmt.Errorf("sandbox %q: %w", id, errdefs.ErrNotFound)
	}
	pod, err := p.cs.CoreV1().Pods(p.cfg.Namespace).Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", id, classify(err))
	}
	if pod.Labels[sandbox.LabelManaged] != "true" {
		return nil, fmt.Errorf("sandbox %s: not a deskrun sandbox: %w", id, errdefs.ErrNotFound)
	}
	return pod, nil
}

// Stop deletes sandbox id's Pod, giving agentd the Pod's grace period
// (the Spec's StopTimeout) to exit, with its Secret and NetworkPolicy, and
// waits until the Pod is gone. An id that is not a sandbox of deskrun's
// yields an error for which errdefs.IsNotFound holds; stopping a sandbox
// that is already being deleted waits for it.
func (p *Provider) Stop(ctx context.Context, id string) error {
	pod, err := p.managed(ctx, id)
	if err != nil {
		return fmt.Errorf("stop %w", err)
	}
	p.dropForward(id)
	if err := p.delete(ctx, pod, nil); err != nil {
		return fmt.Errorf("stop sandbox %s: %w", id, err)
	}
	// A Pod whose node is lost never finishes terminating: past its grace
	// period and a margin, it is deleted at once.
	grace := 30 * time.Second
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		grace += time.Duration(*g) * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, grace)
	err = p.waitGone(wctx, pod)
	cancel()
	if err != nil && ctx.Err() == nil {
		p.log.WarnContext(ctx, "pod did not terminate; deleting it at once", "sandbox", id, "err", err)
		err = p.delete(ctx, pod, new(int64))
	}
	if err != nil {
		return fmt.Errorf("stop sandbox %s: %w", id, err)
	}
	p.log.InfoContext(ctx, "sandbox stopped", "sandbox", id)
	return nil
}

// delete deletes pod (with grace seconds, nil for the Pod's own) and the
// sandbox's other objects, which the garbage collector would remove too,
// later.
func (p *Provider) delete(ctx context.Context, pod *corev1.Pod, grace *int64) error {
	ns := p.cfg.Namespace
	opts := metav1.DeleteOptions{GracePeriodSeconds: grace, Preconditions: &metav1.Preconditions{UID: &pod.UID}}
	var errs []error
	if err := p.cs.CoreV1().Pods(ns).Delete(ctx, pod.Name, opts); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		errs = append(errs, fmt.Errorf("delete pod: %w", classify(err)))
	}
	if err := p.cs.CoreV1().Secrets(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete secret: %w", classify(err)))
	}
	if err := p.cs.NetworkingV1().NetworkPolicies(ns).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("delete network policy: %w", classify(err)))
	}
	return errors.Join(errs...)
}

// waitGone waits until pod no longer exists.
func (p *Provider) waitGone(ctx context.Context, pod *corev1.Pod) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		cur, err := p.cs.CoreV1().Pods(p.cfg.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cur.UID != pod.UID) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("wait for pod deletion: %w", classify(err))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for pod deletion: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// selector selects deskrun's objects whose labels include all of lbls.
func selector(lbls map[string]string) string {
	l := map[string]string{sandbox.LabelManaged: "true"}
	maps.Copy(l, lbls)
	return labels.SelectorFromSet(l).String()
}

// List returns the running sandboxes of this provider's namespace whose
// labels include all of labels. Instances carry ID, AgentURL (the Pod's
// IP, or the open port-forward of a sandbox this provider started) and
// Labels; Token is empty (it is known only to whoever started the
// sandbox).
func (p *Provider) List(ctx context.Context, lbls map[string]string) ([]sandbox.Instance, error) {
	pods, err := p.cs.CoreV1().Pods(p.cfg.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector(lbls)})
	if err != nil {
		return nil, fmt.Errorf("list pods: %w", classify(err))
	}
	var out []sandbox.Instance
	for _, pod := range pods.Items {
		if pod.Status.Phase != corev1.PodRunning || pod.DeletionTimestamp != nil {
			continue
		}
		inst := sandbox.Instance{ID: pod.Name, Labels: pod.Labels}
		if pod.Status.PodIP != "" {
			inst.AgentURL = "http://" + net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(AgentPort))
		}
		p.mu.Lock()
		if f := p.forwards[pod.Name]; f != nil {
			inst.AgentURL = f.url
		}
		p.mu.Unlock()
		out = append(out, inst)
	}
	return out, nil
}

// Reap deletes, at once, every sandbox of deskrun's in the namespace
// whose labels include all of labels, running or not, e.g.
// {sandbox.LabelOwner: owner} for the leftovers of a runner that
// crashed, with their Secrets and NetworkPolicies (those of Pods already
// gone too). It returns the Pods it deleted; a failure to delete one does
// not stop the others and is reported in the joined error.
func (p *Provider) Reap(ctx context.Context, lbls map[string]string) ([]string, error) {
	ns := p.cfg.Namespace
	sel := metav1.ListOptions{LabelSelector: selector(lbls)}
	pods, err := p.cs.CoreV1().Pods(ns).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("reap: list pods: %w", classify(err))
	}
	var removed []string
	var errs []error
	for _, pod := range pods.Items {
		p.dropForward(pod.Name)
		if err := p.delete(ctx, &pod, new(int64)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", pod.Name, err))
			continue
		}
		removed = append(removed, pod.Name)
		p.log.InfoContext(ctx, "sandbox reaped", "sandbox", pod.Name)
	}
	if err := p.cs.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		errs = append(errs, fmt.Errorf("delete secrets: %w", classify(err)))
	}
	if err := p.cs.NetworkingV1().NetworkPolicies(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
		errs = append(errs, fmt.Errorf("delete network policies: %w", classify(err)))
	}
	if err := errors.Join(errs...); err != nil {
		return removed, fmt.Errorf("reap: %w", err)
	}
	return removed, nil
}

// classify gives an API error the errdefs class the runner tells
// failures apart by: not found, a conflict, refused input, or (the API
// server unreachable, overloaded or timing out) unavailable.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("%w: %w", errdefs.ErrNotFound, err)
	case apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
		return fmt.Errorf("%w: %w", errdefs.ErrConflict, err)
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		return fmt.Errorf("%w: %w", errdefs.ErrInvalidArgument, err)
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return fmt.Errorf("%w: %w", errdefs.ErrPermissionDenied, err)
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), apierrors.IsTooManyRequests(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err), apierrors.IsUnexpectedServerError(err):
		return fmt.Errorf("%w: %w", errdefs.ErrUnavailable, err)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return fmt.Errorf("%w: %w", errdefs.ErrUnavailable, err)
	}
	return err
}
