#!/usr/bin/env bash
# install-deps.sh installs the Debian packages deskrun's tests, benchmarks
# and local sandboxes use, skipping the ones already present. Idempotent;
# needs root (or sudo) only when something is missing.
set -euo pipefail

pkgs=(
	xvfb
	openbox
	xterm
	xdotool
	xclip
	xsel
	scrot
	imagemagick
	x11-xserver-utils
	x11-utils
	fonts-dejavu-core
	fonts-wqy-microhei
	debootstrap
	python3
	python3-requests
	python3-tk
	runsc
	chromium
	poppler-utils
	dbus-x11
	at-spi2-core
	python3-gi
	gir1.2-gtk-3.0
	ffmpeg
	tesseract-ocr
	# the live view's tests drive real viewers: noVNC (in Chromium) and
	# TigerVNC's vncviewer
	novnc
	tigervnc-viewer
	# make e2e-kube: the test cluster's etcd, containerd, runc and CNI plugins,
	# and what scripts/kube/up.sh and down.sh call
	etcd-server
	containerd
	runc
	containernetworking-plugins
	curl
	openssl
	iptables
	iproute2
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# gVisor for Docker sandboxes (serve/eval --runtime runsc): register
# Debian's runsc with the engine when it runs here and lacks it, then
# make the engine reload its configuration (SIGHUP; running containers
# are untouched). runsc runs with --network=host: gVisor then uses the
# network namespace Docker made for the container instead of its own
# network stack (which cannot set up its interfaces in every VM), and
# --platform=ptrace, which needs no KVM.
if command -v runsc >/dev/null && docker info >/dev/null 2>&1 &&
	! docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
	conf=/etc/docker/daemon.json
	$sudo python3 - "$conf" "$(command -v runsc)" <<'PY'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
conf = json.load(open(path)) if os.path.exists(path) else {}
conf.setdefault("runtimes", {})["runsc"] = {"path": runsc, "runtimeArgs": ["--network=host", "--platform=ptrace"]}
json.dump(conf, open(path, "w"), indent=2)
PY
	if pid=$(pidof dockerd); then
		$sudo kill -HUP $pid
		for _ in $(seq 50); do
			docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"' && break
			sleep 0.1
		done
	fi
	echo "registered runsc (gVisor) with the Docker engine"
fi
