#!/usr/bin/env bash
# make e2e-kube: builds the Kubernetes binaries if not cached
# (scripts/kube/build.sh), brings up a one-node cluster (up.sh), runs the
# kube provider's end-to-end tests against it and tears it all down
# (down.sh), even when the tests fail. Prints how long each part took.
# Extra arguments go to go test (e.g. -run TestKubeLockdown).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
t0=$(date +%s)
"$here/build.sh" >/dev/null
# The sandbox image and the runner's (TestKubeDeployment), rebuilt only
# when their inputs changed.
(cd "$root" && images/build.sh minimal deskrun) >&2
t1=$(date +%s)
dir=$(IMAGES="deskrun/minimal deskrun/deskrun" "$here/up.sh")
trap '"$here/down.sh" "$dir"' EXIT
t2=$(date +%s)
rc=0
(cd "$root" && DESKRUN_KUBE_DIR=$dir TESTCONTAINERS_RYUK_DISABLED=true \
	go test -tags e2e,kube -count=1 -timeout 30m -run '^TestKube' "$@" ./e2e/) || rc=$?
t3=$(date +%s)
echo "e2e-kube: binaries and images $((t1 - t0))s, cluster up $((t2 - t1))s, tests $((t3 - t2))s" >&2
exit $rc
