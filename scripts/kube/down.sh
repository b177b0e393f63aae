#!/usr/bin/env bash
# Stops the cluster scripts/kube/up.sh started in DIR and removes all it
# made: its pods (through the kubelet while it runs, then whatever
# containerd still holds), the processes, mounts, the CNI bridge and its
# NAT rules, the kubelet's cgroups, and DIR itself.
set -uo pipefail
dir=${1:?usage: down.sh DIR}
[[ -f $dir/env ]] || { echo "kube-down: $dir is not a cluster folder" >&2; exit 1; }
# shellcheck disable=SC1091
source "$dir/env"
cdir=$dir/containerd
kc() { "$KUBE_BIN/kubectl" --kubeconfig "$dir/admin.kubeconfig" --request-timeout 10s "$@"; }
ctr_() { timeout 20 ctr --address "$cdir/containerd.sock" -n k8s.io "$@"; }
alive() { [[ -f $dir/$1.pid ]] && kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; }
stop() { # name: SIGTERM, then SIGKILL after 10 s
	alive "$1" || return 0
	local pid
	pid=$(cat "$dir/$1.pid")
	kill "$pid" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
	kill -9 "$pid" 2>/dev/null
}

# Pods first, so the kubelet tears down their sandboxes and networks.
if alive kube-apiserver && alive kubelet; then
	kc delete pods --all --all-namespaces --grace-period 0 --force --wait=false >/dev/null 2>&1
	for _ in $(seq 60); do
		[[ -z $(ctr_ containers ls -q 2>/dev/null) ]] && break
		sleep 0.5
	done
fi
stop kubelet
# What the kubelet left: stop the pod sandboxes through the CRI's tasks.
if alive containerd; then
	for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s KILL "$t" >/dev/null 2>&1; done
	sleep 0.5
	for t in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks rm -f "$t" >/dev/null 2>&1; done
	for c in $(ctr_ containers ls -q 2>/dev/null); do ctr_ containers rm "$c" >/dev/null 2>&1; done
fi
for name in kube-scheduler kube-controller-manager kube-apiserver containerd etcd; do stop "$name"; done
# Shims outlive containerd; ours name its socket.
for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $cdir/containerd.sock" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
# Network namespaces the CNI plugin still holds, the bridge, NAT rules.
for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
	if ip netns exec "$ns" ip -o addr 2>/dev/null | grep -q "inet ${KUBE_POD_CIDR%.*}\."; then ip netns delete "$ns"; fi
done
ip link delete "$KUBE_BRIDGE" 2>/dev/null
iptables -t nat -S POSTROUTING 2>/dev/null | grep -- "deskrun-kube" | sed 's/^-A/-D/' | while read -r rule; do
	eval "iptables -t nat $rule" 2>/dev/null
done
iptables -S FORWARD 2>/dev/null | grep -- "deskrun-kube" | sed 's/^-A/-D/' | while read -r rule; do
	eval "iptables $rule" 2>/dev/null
done
iptables -t nat -S 2>/dev/null | awk '/^-N CNI-/ {print $2}' | while read -r chain; do
	if iptables -t nat -S "$chain" 2>/dev/null | grep -q "deskrun-kube"; then
		iptables -t nat -F "$chain" && iptables -t nat -X "$chain"
	fi
done
# Mounts under DIR (the kubelet's volumes, containerd's snapshots and
# shm), deepest first.
awk -v d="$dir/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
# The kubelet's cgroups.
for ctl in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
	[[ -d $ctl ]] && find "$ctl" -depth -type d -exec rmdir {} + 2>/dev/null
done
rm -rf "$dir"
echo "kube-down: removed $dir" >&2
