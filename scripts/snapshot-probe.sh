#!/bin/bash
# snapshot-probe.sh: measures whether a whole deskrun sandbox (Xvfb, the
# window manager, the session and accessibility buses, agentd and
# LibreOffice Calc with a spreadsheet open) can be checkpointed once and
# restored into new sandboxes fast enough to replace a task's reset
# (issue 29). It is a measurement, not part of deskrun: run it as root
# on a machine with Docker, the deskrun/osworld image and a runsc newer
# than Debian's.
#
#   RUNSC=/path/to/runsc scripts/snapshot-probe.sh [IMAGE] [COPIES]
#
# IMAGE defaults to deskrun/osworld:latest, COPIES (the parallel fork) to 8.
# SNAPSHOT is where the checkpoint goes ($WORK/snapshot; /dev/shm/... keeps
# it in memory), CHECKPOINT_FLAGS are added to `runsc checkpoint` (e.g.
# -exclude-committed-zero-pages).
# A runsc that can checkpoint this sandbox is built from gVisor's Go module:
#
#   GOBIN=/var/tmp/runsc CGO_ENABLED=0 go install \
#       gvisor.dev/gvisor/runsc@v0.0.0-20260905035102-160fafc42237
#
# Debian bookworm's runsc (0.0~20221219) cannot: its checkpoint panics on
# agentd's listening TCP socket ("endpoint still has waiters upon save"),
# and its statx makes `ls` fail with EINVAL, so LibreOffice's launcher
# script does not start. Debian's criu 3.17 fails `criu check` on kernels
# whose vDSO layout it does not know ("Unexpected rt vDSO area bounds").
#
# What it does, each step timed:
#   1. exports IMAGE's file system once into $WORK/rootfs (an OCI bundle;
#      the root stays read-only, every write goes to a memory overlay that
#      the checkpoint saves with the processes);
#   2. starts a sandbox as the docker provider's entrypoint does (network
#      none: the probe reaches agentd through `runsc exec`), waits for
#      agentd's /healthz;
#   3. the Calc task's setup through agentd's /v1/exec (apps started by
#      agentd survive a restore; processes started by `runsc exec`, like
#      the docker provider's admin channel, do not: they have no parent
#      inside the sandbox and are gone in restored copies);
#   4. checkpoints it (--leave-running: the source keeps running, as a
#      fork needs);
#   5. restores one copy into a new container id, then COPIES copies at
#      once, and reports for each: restore (runsc restore returned),
#      healthy (agentd answered /healthz inside the copy; this includes a
#      python3 started by `runsc exec`, 0.1-0.3 s), window (Calc's window
#      is on the copy's X server).
# Everything it starts is removed at exit.
set -euo pipefail

image=${1:-deskrun/osworld:latest}
copies=${2:-8}
runsc=${RUNSC:-runsc}
work=${WORK:-/var/tmp/deskrun-snapshot-probe}
xlsx=$(cd "$(dirname "$0")/.." && pwd)/runner/task/testdata/metrics/table_bold.xlsx
token=probe-$RANDOM$RANDOM

[ "$(id -u)" = 0 ] || { echo "snapshot-probe: needs root (runsc without rootless mode)" >&2; exit 1; }
command -v "$runsc" >/dev/null || { echo "snapshot-probe: no runsc at $runsc" >&2; exit 1; }

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
R() { "$runsc" --root "$work/state" --network=none --overlay2=all:memory "$@"; }

ids=()
cleanup() {
	for id in "${ids[@]}"; do
		R kill "$id" KILL >/dev/null 2>&1 || true
		R delete -force "$id" >/dev/null 2>&1 || true
	done
}
trap cleanup EXIT

mkdir -p "$work/state" "$work/bundle"
imgid=$(docker image inspect --format '{{.Id}}' "$image")
if [ ! -d "$work/rootfs/usr" ] || [ "$(cat "$work/rootfs.id" 2>/dev/null)" != "$imgid" ]; then
	t=$(now)
	rm -rf "$work/rootfs" && mkdir -p "$work/rootfs"
	cid=$(docker create "$image")
	docker export "$cid" | tar -x -C "$work/rootfs"
	docker rm "$cid" >/dev/null
	echo "$imgid" >"$work/rootfs.id"
	echo "bundle: exported $image in $(since "$t") s ($(du -sh "$work/rootfs" | cut -f1))"
fi

# The image's environment and entrypoint, as the docker provider runs them.
python3 - "$image" "$work" "$token" <<'PY'
import json, subprocess, sys
image, work, token = sys.argv[1:]
cfg = json.loads(subprocess.check_output(["docker", "image", "inspect", "--format", "{{json .Config}}", image]))
caps = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL", "CAP_SETUID", "CAP_SETGID"]
spec = {
    "ociVersion": "1.0.0",
    "process": {
        "user": {"uid": 1000, "gid": 1000},
        "args": cfg["Entrypoint"] + ["--screen", "1920x1080x24"],
        "env": cfg["Env"] + ["AGENTD_TOKEN=" + token],
        "cwd": "/home/user",
        "capabilities": {k: caps for k in ("bounding", "effective", "permitted")},
        "noNewPrivileges": True,
    },
    "root": {"path": work + "/rootfs", "readonly": False},
    "hostname": "sandbox",
    "mounts": [
        {"destination": "/proc", "type": "proc", "source": "proc"},
        {"destination": "/dev", "type": "tmpfs", "source": "tmpfs"},
        {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs"},
        {"destination": "/dev/shm", "type": "tmpfs", "source": "shm"},
        {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["ro"]},
    ],
    "linux": {"namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")]},
}
json.dump(spec, open(work + "/bundle/config.json", "w"), indent=1)
PY

# agentd's API from inside a sandbox: GET /healthz, or POST /v1/exec of a
# shell command.
health='import sys, urllib.request as u
u.urlopen(u.Request("http://127.0.0.1:7000/healthz", headers={"Authorization": "Bearer " + sys.argv[1]}), timeout=5)'
agentexec='import json, sys, urllib.request as u
b = json.dumps({"cmd": ["sh", "-c", sys.argv[2]]}).encode()
r = u.urlopen(u.Request("http://127.0.0.1:7000/v1/exec", data=b, headers={"Authorization": "Bearer " + sys.argv[1], "Content-Type": "application/json"}), timeout=60)
sys.exit(json.load(r)["exit_code"])'
healthy() { R exec --user 1000:1000 "$1" python3 -c "$health" "$token" >/dev/null 2>&1; }
calc() { R exec --user 1000:1000 "$1" xdotool search --name 'table.xlsx - LibreOffice Calc' >/dev/null 2>&1; }
wait_for() { # wait_for SECONDS CHECK ID
	local end=$(($(date +%s) + $1))
	until "$2" "$3"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

cd "$work/bundle"
src=src-$$
ids+=("$src")
t=$(now)
R run --detach "$src" >"$work/$src.log" 2>&1
wait_for 60 healthy "$src" || { echo "snapshot-probe: agentd did not answer" >&2; exit 1; }
echo "fresh sandbox: agentd healthy in $(since "$t") s"
t=$(now)
R exec --user 1000:1000 "$src" python3 -c "$agentexec" "$token" \
	"echo $(base64 -w0 "$xlsx") | base64 -d >/home/user/table.xlsx && cd /home/user && { setsid libreoffice --calc /home/user/table.xlsx >/dev/null 2>&1 </dev/null & }"
wait_for 120 calc "$src" || { echo "snapshot-probe: Calc's window did not appear" >&2; exit 1; }
echo "setup: Calc's window in $(since "$t") s"
sleep 2 # Calc settles

snap=${SNAPSHOT:-$work/snapshot}
rm -rf "$snap" && mkdir -p "$snap"
t=$(now)
R checkpoint --leave-running ${CHECKPOINT_FLAGS:-} -image-path "$snap" "$src" >"$work/checkpoint.log" 2>&1 ||
	{ tail -5 "$work/checkpoint.log" >&2; exit 1; }
echo "checkpoint (source keeps running): $(since "$t") s, $(du -sh "$snap" | cut -f1) on disk"

restore() { # restore ID: one copy, timed; prints restore, healthy, window
	local id=$1 t r h
	t=$(now)
	R restore --detach -image-path "$snap" "$id" >"$work/$id.log" 2>&1 || { echo "$id: restore failed"; return 1; }
	r=$(since "$t")
	wait_for 60 healthy "$id" || { echo "$id: agentd did not answer"; return 1; }
	h=$(since "$t")
	calc "$id" || { echo "$id: Calc's window is gone"; return 1; }
	echo "$id: restore $r s, healthy $h s, window $(since "$t") s"
}

# A reset from the snapshot: RESETS copies one after the other, each
# removed before the next, as a farm's trials would use them.
resets=${RESETS:-10}
: >"$work/resets"
for i in $(seq 1 "$resets"); do
	id=reset$i-$$
	ids+=("$id")
	t=$(now)
	R restore --detach -image-path "$snap" "$id" >"$work/$id.log" 2>&1 || { echo "$id: restore failed" >&2; exit 1; }
	wait_for 60 healthy "$id" || { echo "$id: agentd did not answer" >&2; exit 1; }
	calc "$id" || { echo "$id: Calc's window is gone" >&2; exit 1; }
	since "$t" >>"$work/resets" && echo >>"$work/resets"
	R kill "$id" KILL >/dev/null 2>&1 || true
	R delete -force "$id" >/dev/null 2>&1 || true
done
sort -n "$work/resets" | awk '{ v[NR] = $1 } END { p95 = int((NR * 95 + 99) / 100); printf "reset from the snapshot (%d, one at a time, to agentd healthy and Calc on screen): p50 %s s, p95 %s s, min %s s, max %s s\n", NR, v[int(NR / 2) + 1], v[p95], v[1], v[NR] }'

echo "fork of 1:"
ids+=(copy1-$$)
restore copy1-$$
echo "fork of $copies (at once):"
t=$(now)
pids=()
for i in $(seq 1 "$copies"); do
	ids+=(copy$i-par-$$)
	restore copy$i-par-$$ &
	pids+=($!)
done
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "fork of $copies: all healthy in $(since "$t") s"
exit $fail
