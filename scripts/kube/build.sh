#!/usr/bin/env bash
# Builds the Kubernetes binaries the kube provider's tests run (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kubectl) from the Kubernetes Go
# modules named in scripts/kube/go.mod, once per version, into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/deskrun/kube/<version>/
# and prints that folder. Nothing is downloaded but Go modules.
# Set KUBE_BIN to a folder that already holds the binaries to skip the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$here/go.mod")
if [[ -n "${KUBE_BIN:-}" ]]; then echo "$KUBE_BIN"; exit 0; fi
out="${XDG_CACHE_HOME:-$HOME/.cache}/deskrun/kube/$version"
tools=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
missing=0
for t in "${tools[@]}"; do [[ -x "$out/$t" ]] || missing=1; done
if [[ $missing == 0 ]]; then echo "$out"; exit 0; fi
mkdir -p "$out.tmp"
start=$(date +%s)
pkgs=()
for t in "${tools[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$t"); done
# The version the components report (kubectl version, the Node's
# kubeletVersion); without it they say v0.0.0-master.
v=k8s.io/component-base/version
minor=${version#v1.}
ldflags="-s -X $v.gitVersion=$version -X $v.gitMajor=1 -X $v.gitMinor=${minor%%.*} -X $v.gitTreeState=clean"
# nice: the build takes minutes of both cores of a small machine.
(cd "$here" && CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags="$ldflags" -o "$out.tmp/" "${pkgs[@]}") >&2
rm -rf "$out" && mv "$out.tmp" "$out"
echo "built Kubernetes $version in $(( $(date +%s) - start ))s into $out" >&2
echo "$out"
