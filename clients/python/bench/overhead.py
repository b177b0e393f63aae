"""What the Python client costs over raw HTTP, and its 16-session throughput
beside the Go client's, on one deskrun serve.

Per call (screenshot, move, exec; synchronous and asynchronous): the same
request sent by a bare httpx client and by deskrun's, alternating one and
the other ROUNDS times on one session so both see the same load; the
medians and their difference are printed. Throughput: 16 sessions at once,
each LOOP rounds of a move, a screenshot at most 512 wide and an exec of
echo, driven by the asynchronous client, by a bare httpx.AsyncClient (which
of the two goes first alternates) and by the Go client (go test -bench
SessionLoop ./api/client/), REPEAT rounds; the median calls per second of
each.

    make build && /usr/bin/python3 clients/python/bench/overhead.py

Uses DESKRUN_URL and DESKRUN_TOKEN when set, else starts deskrun serve
--provider local from bin/ (DESKRUN_BIN).
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Awaitable, Callable, Dict, List, Tuple

import httpx

ROOT = pathlib.Path(__file__).resolve().parents[1]
REPO = ROOT.parents[1]
sys.path.insert(0, str(ROOT))

import deskrun  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "200"))
LOOP = int(os.environ.get("LOOP", "20"))
REPEAT = int(os.environ.get("REPEAT", "4"))


def start_server() -> Tuple[str, str, Any]:
    if os.environ.get("DESKRUN_URL"):
        return os.environ["DESKRUN_URL"], os.environ.get("DESKRUN_TOKEN", ""), None
    bindir = pathlib.Path(os.environ.get("DESKRUN_BIN", REPO / "bin"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(8)
    tmp = tempfile.mkdtemp(prefix="deskrun-bench-")
    proc = subprocess.Popen([str(bindir / "deskrun"), "serve", "--addr", f"127.0.0.1:{port}", "--provider", "local",
                             "--agentd", str(bindir / "agentd"), "--runs", tmp + "/runs"],
                            env=dict(os.environ, DESKRUN_TOKEN=token), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None:
            raise SystemExit("deskrun serve exited")
        try:
            if httpx.get(url + "/healthz").status_code == 200:
                return url, token, proc
        except httpx.TransportError:
            time.sleep(0.05)


def ms(xs: List[float]) -> str:
    return f"{statistics.median(xs) * 1000:.2f}"


def sync_overhead(url: str, token: str) -> List[Tuple[str, List[float], List[float]]]:
    out = []
    h = {"Authorization": "Bearer " + token}
    # The raw client gets the transport deskrun's has (TCP_NODELAY; see
    # deskrun._compat.sync_transport), so the difference is the client's code.
    from deskrun._compat import sync_transport

    tr = sync_transport(httpx.Limits(max_connections=10))
    with deskrun.Client(url, token) as c, httpx.Client(headers=h, transport=tr) as raw, \
            c.sessions.create(screen=(1280, 800)) as s:
        base = f"{url}/v1/sessions/{s.id}"
        calls: Dict[str, Tuple[Callable[[], Any], Callable[[], Any]]] = {
            "screenshot": (lambda: raw.get(base + "/screenshot").content, lambda: s.screen.screenshot()),
            "move": (lambda: raw.post(base + "/input", json={"actions": [{"type": "move", "x": 10, "y": 10}]}).json(),
                     lambda: s.mouse.move(10, 10)),
            "exec": (lambda: raw.post(base + "/exec", json={"cmd": ["true"]}).json(), lambda: s.commands.run(["true"])),
        }
        for name, (r, d) in calls.items():
            r(), d()
            xr: List[float] = []
            xd: List[float] = []
            for _ in range(ROUNDS):
                t = time.perf_counter(); r(); xr.append(time.perf_counter() - t)
                t = time.perf_counter(); d(); xd.append(time.perf_counter() - t)
            out.append((name, xr, xd))
    return out


async def async_overhead(url: str, token: str) -> List[Tuple[str, List[float], List[float]]]:
    out = []
    h = {"Authorization": "Bearer " + token}
    async with deskrun.AsyncClient(url, token) as c, httpx.AsyncClient(headers=h) as raw:
        async with c.sessions.create(screen=(1280, 800)) as s:
            base = f"{url}/v1/sessions/{s.id}"

            async def rshot() -> Any:
                return (await raw.get(base + "/screenshot")).content

            async def rmove() -> Any:
                return (await raw.post(base + "/input", json={"actions": [{"type": "move", "x": 10, "y": 10}]})).json()

            async def rexec() -> Any:
                return (await raw.post(base + "/exec", json={"cmd": ["true"]})).json()

            calls: Dict[str, Tuple[Callable[[], Awaitable[Any]], Callable[[], Awaitable[Any]]]] = {
                "screenshot": (rshot, lambda: s.screen.screenshot()),
                "move": (rmove, lambda: s.mouse.move(10, 10)),
                "exec": (rexec, lambda: s.commands.run(["true"])),
            }
            for name, (r, d) in calls.items():
                await r(), await d()
                tr, td = [], []
                for _ in range(ROUNDS):
                    t = time.perf_counter(); await r(); tr.append(time.perf_counter() - t)
                    t = time.perf_counter(); await d(); td.append(time.perf_counter() - t)
                out.append((name, tr, td))
    return out


async def python_loops(url: str, token: str, raw_first: bool) -> Tuple[float, float, float, float]:
    """The loop driven by deskrun's AsyncClient and by a bare httpx.AsyncClient
    on the same 16 sessions, in the order asked (the first after the sessions'
    start runs on a busier machine): calls per second and CPU milliseconds per
    call of this process, deskrun's then bare httpx's."""
    h = {"Authorization": "Bearer " + token}
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
    async with deskrun.AsyncClient(url, token, timeout=300) as c, \
            httpx.AsyncClient(headers=h, limits=limits, timeout=300) as raw:
        sessions = await asyncio.gather(*(c.sessions.create(screen=(640, 480)) for _ in range(16)))
        try:
            async def drive(i: int, s: deskrun.AsyncSession) -> None:
                for r in range(LOOP):
                    await s.mouse.move(10 + r, 10 + i)
                    await s.screen.screenshot(max_width=512)
                    await s.commands.run(["echo", str(r)])

            async def drive_raw(i: int, s: deskrun.AsyncSession) -> None:
                b = f"{url}/v1/sessions/{s.id}"
                for r in range(LOOP):
                    (await raw.post(b + "/input", json={"actions": [{"type": "move", "x": 10 + r, "y": 10 + i}]})).raise_for_status()
                    (await raw.get(b + "/screenshot", params={"max_width": 512})).raise_for_status()
                    (await raw.post(b + "/exec", json={"cmd": ["echo", str(r)]})).raise_for_status()

            out: Dict[str, Tuple[float, float]] = {}
            for name, f in (("raw", drive_raw), ("deskrun", drive)) if raw_first else (("deskrun", drive), ("raw", drive_raw)):
                t, cpu = time.perf_counter(), time.process_time()
                await asyncio.gather(*(f(i, s) for i, s in enumerate(sessions)))
                n = 16 * LOOP * 3
                out[name] = (n / (time.perf_counter() - t), (time.process_time() - cpu) * 1000 / n)
            return out["deskrun"][0], out["deskrun"][1], out["raw"][0], out["raw"][1]
        finally:
            await asyncio.gather(*(s.delete() for s in sessions))


def go_loop(url: str, token: str) -> float:
    env = dict(os.environ, DESKRUN_URL=url, DESKRUN_TOKEN=token, DESKRUN_LOOP_ROUNDS=str(LOOP))
    r = subprocess.run(["go", "test", "-run", "^$", "-bench", "^BenchmarkSessionLoop$", "-benchtime", "1x", "-count", "1",
                        "./api/client/"], cwd=str(REPO), env=env, capture_output=True, text=True)
    m = re.search(r"([\d.]+) calls/s", r.stdout)
    if not m:
        raise SystemExit("go benchmark: " + r.stdout + r.stderr)
    return float(m.group(1))


def main() -> int:
    url, token, proc = start_server()
    try:
        print(f"per call, median of {ROUNDS} alternating with raw httpx {httpx.__version__} (ms):")
        print("| call | client | raw httpx | deskrun | overhead |")
        print("|---|---|---|---|---|")
        for flavor, rows in (("sync", sync_overhead(url, token)), ("async", asyncio.run(async_overhead(url, token)))):
            for name, tr, td in rows:
                over = (statistics.median(td) - statistics.median(tr)) * 1000
                print(f"| {name} | {flavor} | {ms(tr)} | {ms(td)} | {over:+.2f} |", flush=True)
        py, raw, go, cpu, rawcpu = [], [], [], [], []
        go_loop(url, token)  # builds the test binary once, outside the timing
        for k in range(REPEAT):
            p, pc, r, rc = asyncio.run(python_loops(url, token, raw_first=k % 2 == 1))
            py.append(p); cpu.append(pc); raw.append(r); rawcpu.append(rc)
            go.append(go_loop(url, token))
            print(f"  round: deskrun async {p:.1f} calls/s ({pc:.2f} CPU ms a call), bare httpx async {r:.1f} "
                  f"({rc:.2f}), go {go[-1]:.1f} calls/s", flush=True)
        med = statistics.median
        print(f"16 sessions x {LOOP} rounds x 3 calls, median of {REPEAT}: deskrun async {med(py):.1f} calls/s "
              f"({med(cpu):.2f} CPU ms a call), bare httpx async {med(raw):.1f} ({med(rawcpu):.2f}), "
              f"go {med(go):.1f} calls/s; deskrun/go {med(py) / med(go):.2f}x")
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
