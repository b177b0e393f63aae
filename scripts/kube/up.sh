#!/usr/bin/env bash
# Brings up a single-node Kubernetes cluster on this machine for the kube
# provider's tests: etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and a kubelet on a containerd of its own (runc, the CNI
# bridge plugin), everything under one folder. Needs root, Debian's
# etcd-server, containerd, runc and containernetworking-plugins
# (scripts/install-deps.sh), and the binaries scripts/kube/build.sh builds.
#
#   scripts/kube/up.sh [DIR]      prints DIR; DIR/env holds KUBECONFIG etc.
#   scripts/kube/down.sh DIR      stops it all and removes DIR
#
# Images: the deskrun images Docker holds (IMAGES, default deskrun/minimal)
# are imported into the cluster's containerd; pods run them with
# imagePullPolicy Never. Nothing is pulled.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-$(mktemp -d /tmp/deskrun-kube.XXXXXX)}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$("$here/build.sh")
log() { echo "kube-up: $*" >&2; }
fail() { log "$*"; "$here/down.sh" "$dir" >&2 || true; exit 1; }

for cmd in etcd containerd containerd-shim-runc-v2 runc ctr openssl iptables; do
	command -v "$cmd" >/dev/null || { log "$cmd is missing (scripts/install-deps.sh installs it)"; exit 1; }
done
cni_bin=/usr/lib/cni
[[ -x $cni_bin/bridge ]] || { log "$cni_bin/bridge is missing (apt-get install containernetworking-plugins)"; exit 1; }
[[ $(id -u) == 0 ]] || { log "needs root (containerd and the kubelet)"; exit 1; }

etcd_port=${KUBE_ETCD_PORT:-12379}
api_port=${KUBE_API_PORT:-16443}
kubelet_port=${KUBE_KUBELET_PORT:-10250}
pod_cidr=${KUBE_POD_CIDR:-10.244.0.0/24}
svc_cidr=${KUBE_SERVICE_CIDR:-10.245.0.0/24}
bridge=${KUBE_BRIDGE:-dkube0}
node=deskrun-node
ip=$(hostname -I | awk '{print $1}')
images=${IMAGES:-deskrun/minimal}

cat >"$dir/env" <<EOF
KUBE_DIR=$dir
KUBECONFIG=$dir/admin.kubeconfig
KUBE_BIN=$bin
KUBE_BRIDGE=$bridge
KUBE_POD_CIDR=$pod_cidr
EOF

# Certificates: one CA; a serving certificate for the API server; one
# client certificate in system:masters that the admin, the controller
# manager, the scheduler and the kubelet all use (a test cluster, one
# trust domain); the service-account signing key.
pki=$dir/pki
mkdir -p "$pki"
(
	cd "$pki"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=deskrun-kube-ca 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,IP:%s,IP:%s,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' \
		"$ip" "${svc_cidr%.*}.1" >apiserver.ext
	openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 2 -extfile apiserver.ext 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=kube-admin" 2>/dev/null
	openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt -days 2 2>/dev/null
	openssl genrsa -out sa.key 2048 2>/dev/null
	openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
)
b64() { base64 -w0 <"$1"; }
cat >"$dir/admin.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: deskrun
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(b64 "$pki/admin.crt")
    client-key-data: $(b64 "$pki/admin.key")
contexts:
- name: deskrun
  context: {cluster: deskrun, user: admin}
current-context: deskrun
EOF

start() { # name, command...: runs it in the background, logs to DIR/NAME.log
	local name=$1
	shift
	"$@" >"$dir/$name.log" 2>&1 &
	echo $! >"$dir/$name.pid"
}
wait_for() { # what, seconds, command...
	local what=$1 secs=$2
	shift 2
	for _ in $(seq $((secs * 5))); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	fail "$what did not come up in ${secs}s (logs in $dir)"
}

# etcd
start etcd etcd --name deskrun --data-dir "$dir/etcd" \
	--listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
	--listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
	--initial-cluster "deskrun=http://127.0.0.1:$((etcd_port + 1))" --log-level warn
wait_for etcd 30 curl -fsS "http://127.0.0.1:$etcd_port/health"

# containerd, with its own root, state and socket, and runc's state under
# DIR too, so down.sh can find everything it started.
cdir=$dir/containerd
mkdir -p "$cdir" "$dir/cni"
cat >"$cdir/config.toml" <<EOF
version = 2
root = "$cdir/root"
state = "$cdir/state"
[grpc]
  address = "$cdir/containerd.sock"
[ttrpc]
  address = "$cdir/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$cdir/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/deskrun/pause:1"
  enable_selinux = false
  netns_mounts_under_state_dir = true
  # Pod sandboxes ask for an oom_score_adj below containerd's own, which
  # needs CAP_SYS_RESOURCE; machines (and CI runners) without it refuse.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$cdir/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$cni_bin"
    conf_dir = "$dir/cni"
EOF
cat >"$dir/cni/10-deskrun.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "deskrun-kube",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": true,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$pod_cidr"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$dir/cni-ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF
# Where Docker runs, the FORWARD policy is DROP, and with br_netfilter
# traffic between two Pods on the bridge passes FORWARD: let Pods reach
# each other (the runner's Pod its sandboxes), as network plugins do.
iptables -I FORWARD -s "$pod_cidr" -d "$pod_cidr" -m comment --comment deskrun-kube -j ACCEPT
start containerd containerd --config "$cdir/config.toml"
ctr_() { ctr --address "$cdir/containerd.sock" -n k8s.io "$@"; }
wait_for containerd 30 ctr_ version

# Images: the pause image is built here (nothing can be pulled); the
# sandbox images come from Docker.
if ! docker image inspect deskrun/pause:1 >/dev/null 2>&1; then
	pb=$(mktemp -d)
	(cd "$here" && CGO_ENABLED=0 go build -trimpath -ldflags=-s -o "$pb/pause" ./pause)
	printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' >"$pb/Dockerfile"
	docker build -q -t deskrun/pause:1 "$pb" >/dev/null
	rm -rf "$pb"
fi
for img in deskrun/pause:1 $images; do
	docker save "$img" | ctr_ images import - >/dev/null || fail "import $img into containerd"
done

# API server
common=(--kubeconfig "$dir/admin.kubeconfig")
start kube-apiserver "$bin/kube-apiserver" \
	--etcd-servers "http://127.0.0.1:$etcd_port" \
	--bind-address 0.0.0.0 --secure-port "$api_port" --advertise-address "$ip" \
	--tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
	--client-ca-file "$pki/ca.crt" \
	--service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
	--service-account-issuer https://kubernetes.default.svc \
	--service-cluster-ip-range "$svc_cidr" \
	--authorization-mode Node,RBAC \
	--kubelet-client-certificate "$pki/admin.crt" --kubelet-client-key "$pki/admin.key" \
	--kubelet-preferred-address-types InternalIP \
	--allow-privileged=false --v=1
kc() { "$bin/kubectl" --kubeconfig "$dir/admin.kubeconfig" "$@"; }
wait_for kube-apiserver 120 curl -fsS --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$api_port/readyz"

start kube-controller-manager "$bin/kube-controller-manager" "${common[@]}" \
	--service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
	--use-service-account-credentials=false --leader-elect=false --secure-port 0 \
	--cluster-cidr "$pod_cidr" --allocate-node-cidrs=false --v=1
start kube-scheduler "$bin/kube-scheduler" "${common[@]}" --leader-elect=false --secure-port 0 --v=1

# kubelet
kdir=$dir/kubelet
mkdir -p "$kdir"
cat >"$kdir/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$pki/ca.crt"}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: "unix://$cdir/containerd.sock"
port: $kubelet_port
readOnlyPort: 0
healthzPort: 0
podPidsLimit: 512
serializeImagePulls: false
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
EOF
start kubelet "$bin/kubelet" --config "$kdir/config.yaml" --kubeconfig "$dir/admin.kubeconfig" \
	--root-dir "$kdir/root" --cert-dir "$kdir/pki" --hostname-override "$node" --node-ip "$ip" --v=1
node_ready() { [[ $(kc get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') == True ]]; }
wait_for "node $node" 120 node_ready
wait_for "service account default/default" 60 kc -n default get serviceaccount default
log "cluster up in $dir (KUBECONFIG=$dir/admin.kubeconfig)"
echo "$dir"
