#!/usr/bin/env bash
# build.sh builds deskrun's images on a machine with a Docker engine, with
# or without an image registry:
#
#   images/build.sh [--force] [IMAGE...]
#
# IMAGE is minimal, desktop, osworld or deskrun (default: all four, in that
# order). An image is rebuilt only when what it is built from changed: its
# folder (Dockerfile and configuration files; not its README.md and
# screenshots/), the agentd binary and the
# pyautogui module it copies, its build arguments and the base image.
# build.sh stages that build context and hashes it; the image built from
# it is tagged both NAME:latest and NAME:in-HASH (16 hex digits), and a
# NAME:latest that is the same image as NAME:in-HASH of the current inputs
# is kept (--force rebuilds it anyway). A tag rather than a label: with
# the legacy builder on fuse-overlayfs, a --label is one more build step,
# and every step on a large image costs a commit that reads its whole file
# system (about a minute on osworld's 2 GB). Each Dockerfile starts FROM
# debian:bookworm-slim with its settings, then a single apt layer, and
# copies agentd and pyautogui last in one COPY, so a rebuild for a new
# agentd reuses everything else from Docker's build cache. The base image is
# made locally when it cannot be pulled (images/base.sh), and the Go
# binaries are built on the host (static, CGO_ENABLED=0), so no build stage
# needs an image from a registry.
#
# Build networking: on the project's machines `RUN apt-get` inside
# `docker build` (legacy builder, engine 20.10) reaches the Debian archive
# from the default bridge network: containers get the host's resolver and
# the mirror answers. Hosts whose bridge has no route out (firewalled
# FORWARD chain, resolver on 127.0.0.1) need --network host instead, so a
# build whose apt step cannot reach the archive is retried once with
# --network host. DESKRUN_BUILD_NETWORK=host (or default) skips the probing.
#
# Environment: GO (go binary), DESKRUN_IMAGE_PREFIX (default "deskrun/"),
# AGENTD and DESKRUN (prebuilt static binaries to use instead of building),
# VSCODE=1 (osworld: add Visual Studio Code from Microsoft's apt
# repository, which the build must reach; default 0).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
prefix=${DESKRUN_IMAGE_PREFIX:-deskrun/}
go=${GO:-go}
force=0
vscode=${VSCODE:-0}
case $vscode in
0 | 1) ;;
*)
	echo "$0: VSCODE must be 0 or 1, not $vscode" >&2
	exit 2
	;;
esac
images=()
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	minimal | desktop | osworld | deskrun) images+=("$a") ;;
	*)
		echo "usage: $0 [--force] [minimal|desktop|osworld|deskrun]..." >&2
		exit 2
		;;
	esac
done
if [ ${#images[@]} -eq 0 ]; then
	images=(minimal desktop osworld deskrun)
fi

log() { echo "images: $*" >&2; }

work=$(mktemp -d /tmp/deskrun-images.XXXXXX)
trap 'rm -rf "$work"' EXIT

# docker_build TAG CONTEXT [ARGS...] builds with the default network and
# falls back to the host network when apt could not reach the archive.
docker_build() {
	local tag=$1 ctx=$2
	shift 2
	local net=${DESKRUN_BUILD_NETWORK:-}
	if [ -n "$net" ]; then
		docker build --network "$net" -t "$tag" "$@" "$ctx"
		return
	fi
	# pipefail: the pipeline fails when docker build does.
	if docker build -t "$tag" "$@" "$ctx" 2>&1 | tee "$work/build.log"; then
		return 0
	fi
	if grep -qE "Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|Network is unreachable|Connection timed out" "$work/build.log"; then
		log "apt could not reach the archive from the bridge network; retrying $tag with --network host"
		docker build --network host -t "$tag" "$@" "$ctx"
		return
	fi
	return 1
}

# build_go OUT PKG builds a static binary that depends on the source alone
# (-trimpath, no VCS stamp), so that a new commit which leaves agentd's code
# as it was does not rebuild the images.
build_go() {
	(cd "$repo" && CGO_ENABLED=0 GOOS=linux "$go" build -trimpath -buildvcs=false -ldflags "-s -w" -o "$1" "$2")
}

"$here/base.sh"
base_id=$(docker image inspect -f '{{.Id}}' debian:bookworm-slim)

# inputs_sum CONTEXT ARGS... hashes a staged build context (names, modes,
# link targets and contents, in a fixed order, without times or owners)
# with the build arguments and the base image's id.
inputs_sum() {
	local ctx=$1
	shift
	{
		tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$ctx" -cf - . | sha256sum
		printf '%s\n' "base=$base_id" "$@"
	} | sha256sum | cut -c1-64
}

# stage_agent CONTEXT puts the agentd binary (built once) and the
# pyautogui module under CONTEXT/agent/ where the sandbox images' last
# COPY takes them from: agent/usr/local/bin/agentd and
# agent/usr/lib/python3/dist-packages/pyautogui.
agentd_bin=""
stage_agent() {
	local ctx=$1
	if [ -z "$agentd_bin" ]; then
		agentd_bin=$work/agentd
		if [ -n "${AGENTD:-}" ]; then
			cp "$AGENTD" "$agentd_bin"
		else
			build_go "$agentd_bin" ./cmd/agentd
		fi
	fi
	mkdir -p "$ctx/agent/usr/local/bin" "$ctx/agent/usr/lib/python3/dist-packages"
	install -m 755 "$agentd_bin" "$ctx/agent/usr/local/bin/agentd"
	cp -r "$repo/agentd/python/pyautogui" "$ctx/agent/usr/lib/python3/dist-packages/pyautogui"
	find "$ctx/agent" -name __pycache__ -prune -exec rm -rf {} +
}

# image_id REF is the id of image REF, empty when there is none.
image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }

for img in "${images[@]}"; do
	tag="${prefix}${img}:latest"
	ctx="$work/$img"
	mkdir -p "$ctx"
	args=()
	case $img in
	minimal | desktop | osworld)
		# The folder but its documentation (README.md, the screenshots
		# of screenshots/), which no image holds.
		tar -C "$here/$img" --exclude=./screenshots --exclude='./*.md' -cf - . | tar -C "$ctx" -xf -
		stage_agent "$ctx"
		if [ "$img" = osworld ]; then
			args=(--build-arg "VSCODE=$vscode")
		fi
		;;
	deskrun)
		cp "$repo/Dockerfile" "$ctx/"
		mkdir -p "$ctx/bin"
		if [ -n "${DESKRUN:-}" ]; then
			cp "$DESKRUN" "$ctx/bin/deskrun"
		else
			build_go "$ctx/bin/deskrun" ./cmd/deskrun
		fi
		;;
	esac
	sum=$(inputs_sum "$ctx" "${args[@]}")
	stamp="${prefix}${img}:in-${sum:0:16}"
	current=$(image_id "$tag")
	if [ $force = 0 ] && [ -n "$current" ] && [ "$current" = "$(image_id "$stamp")" ]; then
		log "$tag up to date ($stamp)"
		continue
	fi
	t0=$(date +%s)
	docker_build "$tag" "$ctx" "${args[@]}"
	docker tag "$tag" "$stamp"
	# Earlier stamps of this image name go: the images they held are
	# superseded (and freed when nothing else names them).
	docker image ls --format '{{.Repository}}:{{.Tag}}' "${prefix}${img}" |
		grep -F ":in-" | grep -vxF "$stamp" | xargs -r docker image rm >/dev/null || true
	log "$tag built in $(($(date +%s) - t0)) s ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}')), $stamp"
done
