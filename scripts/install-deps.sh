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
	# the Python client (clients/python), its tests and type check
	python3-httpx
	python3-pytest
	python3-pytest-asyncio
	python3-yaml
	python3-pil
	python3-tqdm
	python3-setuptools
	python3-pip
	python3-venv
	mypy
	runsc
	chromium
	poppler-utils
	# mutool: compare_pdfs reads PDF text with MuPDF, as OSWorld's PyMuPDF does
	mupdf-tools
	# djpeg: the image metrics decode JPEG as Pillow does (libjpeg-turbo)
	libjpeg-turbo-progs
	dbus-x11
	at-spi2-core
	python3-gi
	gir1.2-gtk-3.0
	ffmpeg
	tesseract-ocr
	# go generate of api/e2b/envd: the envd services' Go code from their .proto
	# (libprotobuf-dev has the well-known types they import, such as
	# google/protobuf/timestamp.proto: only recommended by protobuf-compiler)
	protobuf-compiler
	libprotobuf-dev
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

# Snapshots, fork and pause (docs/snapshots.md): runsc built from gVisor's
# Go module at the version scripts/runsc/go.mod pins (cached by version,
# about 4 CPU-minutes once), installed with its wrapper as the engine's
# runtime runsc-snap. As root with an engine only: the docker provider runs
# runsc checkpoint itself. DESKRUN_NO_SNAPSHOTS=1 skips it.
if [ "$(id -u)" -eq 0 ] && [ "${DESKRUN_NO_SNAPSHOTS:-}" != 1 ] && docker info >/dev/null 2>&1; then
	"$(dirname "$0")/runsc/install.sh"
fi
