"""The asynchronous client in its own idiom: ``async with``, ``async for``,
and 16 sessions driven at once from one event loop."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any, List

import pytest

import deskrun


async def test_async_with_and_await(server: Any) -> None:
    async with server.async_client() as c:
        async with c.sessions.create(screen=(640, 480)) as s:
            assert (await s.screen.screenshot()).width == 640
        with pytest.raises(deskrun.NotFound):
            await c.sessions.get(s.id)
        s2 = await c.sessions.create()
        try:
            assert (await s2.commands.run("echo ok")).stdout == "ok\n"
        finally:
            await s2.delete()


async def test_events_as_an_async_iterator(server: Any) -> None:
    async with server.async_client() as c:
        run = await c.runs.start("tasks/files", agent="replay", only=["files-delete-tmp"])
        kinds = [e.kind async for e in run.events(interval=0.2, progress=False)]
        assert kinds[-1] == "end" and "result" in kinds


async def test_sixteen_sessions_at_once(server: Any) -> None:
    """16 sessions, each started, driven (move, type, exec, screenshot) and
    deleted concurrently; every one answers for itself."""
    n = 16

    async def drive(c: deskrun.AsyncClient, i: int) -> List[Any]:
        async with c.sessions.create(screen=(640, 480)) as s:
            await s.mouse.move(10 + i, 20 + i)
            pos = await s.mouse.position()
            await s.keyboard.press("shift")
            r = await s.commands.run(f"echo session-{i}")
            shot = await s.screen.screenshot(max_width=320)
            await s.files.write("/tmp/deskrun-py-%s.txt" % s.id, str(i))
            back = await s.files.read("/tmp/deskrun-py-%s.txt" % s.id)
            await s.commands.run(["rm", "-f", "/tmp/deskrun-py-%s.txt" % s.id])
            return [s.id, pos, r.stdout, shot.width, back]

    async with server.async_client(timeout=300) as c:
        t0 = time.monotonic()
        out = await asyncio.gather(*(drive(c, i) for i in range(n)))
        took = time.monotonic() - t0
    assert len({o[0] for o in out}) == n
    for i, (sid, pos, stdout, width, back) in enumerate(out):
        assert pos == (10 + i, 20 + i) and stdout == f"session-{i}\n" and width == 320 and back == str(i).encode()
    print(f"16 sessions started, driven and deleted at once in {took:.1f} s")


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[1]
    r = subprocess.run([sys.executable, str(root / "scripts" / "unasync.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert hashlib.sha256((root / "deskrun" / "_sync" / "client.py").read_bytes()).hexdigest()
