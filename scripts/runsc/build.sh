#!/usr/bin/env bash
# Builds runsc (gVisor) from the gVisor Go module named in scripts/runsc/go.mod,
# once per version, into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/deskrun/runsc/<version>/runsc
# and prints that path. Nothing is downloaded but Go modules. This is the
# runsc snapshots need (checkpoint and restore of a whole sandbox into new
# containers); Debian's runsc is too old for it (docs/snapshots.md).
# Set RUNSC_BIN to a runsc that already exists to skip the build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(awk '$1=="require" && $2=="gvisor.dev/gvisor" {print $3}' "$here/go.mod")
if [[ -n "${RUNSC_BIN:-}" ]]; then echo "$RUNSC_BIN"; exit 0; fi
out="${XDG_CACHE_HOME:-$HOME/.cache}/deskrun/runsc/$version"
if [[ -x "$out/runsc" ]]; then echo "$out/runsc"; exit 0; fi
mkdir -p "$out.tmp"
start=$(date +%s)
# gVisor's own release builds are static (CGO_ENABLED=0) and stripped.
# nice: the build takes minutes of both cores of a small machine.
(cd "$here" && CGO_ENABLED=0 nice -n 19 go build -trimpath -ldflags=-s -o "$out.tmp/runsc" gvisor.dev/gvisor/runsc) >&2
rm -rf "$out" && mv "$out.tmp" "$out"
echo "built runsc $version in $(( $(date +%s) - start ))s into $out" >&2
echo "$out/runsc"
