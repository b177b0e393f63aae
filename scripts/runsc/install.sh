#!/usr/bin/env bash
# Installs the runtime of deskrun's snapshots (docs/snapshots.md) on this
# machine: runsc built from gVisor's Go module (build.sh, cached by
# version) and its wrapper runsc-snap, both into /usr/local/lib/deskrun/,
# registered with the Docker engine as the runtime "runsc-snap" (the
# engine reloads its configuration on SIGHUP; running containers are
# untouched). Idempotent; needs root and a Docker engine. Debian's runsc
# and its registration as "runsc" are left as they are.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=${DESKRUN_LIB:-/usr/local/lib/deskrun}
name=runsc-snap
bin=$("$here/build.sh")
mkdir -p "$lib"
cmp -s "$bin" "$lib/runsc" || install -m 0755 "$bin" "$lib/runsc"
cmp -s "$here/runsc-snap" "$lib/runsc-snap" || install -m 0755 "$here/runsc-snap" "$lib/runsc-snap"
if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q "\"$name\""; then
	exit 0
fi
conf=/etc/docker/daemon.json
python3 - "$conf" "$name" "$lib/runsc-snap" <<'PY'
import json, os, sys
path, name, wrapper = sys.argv[1:]
conf = json.load(open(path)) if os.path.exists(path) else {}
conf.setdefault("runtimes", {})[name] = {"path": wrapper}
json.dump(conf, open(path, "w"), indent=2)
PY
if pid=$(pidof dockerd); then
	kill -HUP $pid
	for _ in $(seq 50); do
		docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q "\"$name\"" && break
		sleep 0.1
	done
fi
echo "registered $name (gVisor $(basename "$(dirname "$bin")"), snapshots) with the Docker engine"
