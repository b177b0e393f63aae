"""Fixtures: a real ``deskrun serve --provider local`` started for the test run.

The binaries come from ``$DESKRUN_BIN`` (a folder holding deskrun and agentd)
or the repository's ``bin/`` (``make build``). Local sandboxes need Xvfb,
openbox and xterm (scripts/install-deps.sh).
"""

from __future__ import annotations

import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any, AsyncIterator, Iterator

import httpx
import pytest

import deskrun

REPO = pathlib.Path(__file__).resolve().parents[3]


class Server:
    """A running deskrun serve: its URL, token and log."""

    def __init__(self, url: str, token: str, proc: "subprocess.Popen[bytes]", log: pathlib.Path, runs: str) -> None:
        self.url, self.token, self.proc, self.log, self.runs = url, token, proc, log, runs

    def client(self, **kw: Any) -> deskrun.Client:
        return deskrun.Client(self.url, self.token, **kw)

    def async_client(self, **kw: Any) -> deskrun.AsyncClient:
        return deskrun.AsyncClient(self.url, self.token, **kw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    bindir = pathlib.Path(os.environ.get("DESKRUN_BIN", REPO / "bin"))
    exe, agentd = bindir / "deskrun", bindir / "agentd"
    if not exe.exists() or not agentd.exists():
        pytest.fail(f"no deskrun and agentd in {bindir}: run make build (or set DESKRUN_BIN)")
    for prog in ("Xvfb", "openbox", "xterm"):
        if shutil.which(prog) is None:
            pytest.fail(f"{prog} is not installed: run scripts/install-deps.sh")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="deskrun-py-"))
    token = secrets.token_hex(16)
    port = _free_port()
    log = tmp / "serve.log"
    env = dict(os.environ, DESKRUN_TOKEN=token)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(exe), "serve", "--addr", f"127.0.0.1:{port}", "--provider", "local", "--agentd", str(agentd),
             "--runs", str(tmp / "runs"), "--tasks-root", str(REPO)],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=str(REPO))
    url = f"http://127.0.0.1:{port}"
    # The server is up when /healthz answers; bounded by the process itself
    # (it exits on a bad flag or a port taken) rather than by a guess.
    while True:
        if proc.poll() is not None:
            pytest.fail(f"deskrun serve exited {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    srv = Server(url, token, proc, log, str(tmp / "runs"))
    yield srv
    with srv.client() as c:
        for s in c.sessions.list():
            try:
                s.delete()
            except deskrun.NotFound:
                pass
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def client(server: Server) -> Iterator[deskrun.Client]:
    with server.client() as c:
        yield c


@pytest.fixture
async def aclient(server: Server) -> AsyncIterator[deskrun.AsyncClient]:
    async with server.async_client() as c:
        yield c


@pytest.fixture(scope="module")
def session(server: Server) -> Iterator[deskrun.Session]:
    """A session shared by a module's tests (1024x768)."""
    with server.client() as c, c.sessions.create(screen=(1024, 768)) as s:
        yield s


@pytest.fixture(scope="session")
def loop() -> Iterator[Any]:
    from flavors import Loop

    lp = Loop()
    yield lp
    lp.close()


@pytest.fixture(params=["sync", "async"])
def api(request: Any, server: Server, loop: Any) -> Iterator[Any]:
    """The synchronous client, then the asynchronous one behind blocking calls."""
    from flavors import Blocking

    if request.param == "sync":
        with server.client() as c:
            yield c
    else:
        c = Blocking(server.async_client(), loop)
        yield c
        c.close()


@pytest.fixture(scope="module", params=["sync", "async"])
def sess(request: Any, server: Server, loop: Any) -> Iterator[Any]:
    """A session (1024x768) shared by a module's tests, once per client."""
    from flavors import Blocking

    if request.param == "sync":
        with server.client() as c, c.sessions.create(screen=(1024, 768)) as s:
            yield s
    else:
        c = Blocking(server.async_client(), loop)
        with c.sessions.create(screen=(1024, 768)) as s:
            yield s
        c.close()


@pytest.fixture(scope="session")
def docker_server() -> Iterator[Server]:
    """A deskrun serve --provider docker of the image $DESKRUN_TEST_DOCKER_IMAGE
    (make e2e sets it); the tests using it are skipped without it. Its owner
    label is its own, so its start removes no other server's containers."""
    image = os.environ.get("DESKRUN_TEST_DOCKER_IMAGE")
    if not image:
        pytest.skip("DESKRUN_TEST_DOCKER_IMAGE is not set (make e2e sets it)")
    bindir = pathlib.Path(os.environ.get("DESKRUN_BIN", REPO / "bin"))
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="deskrun-py-docker-"))
    token = secrets.token_hex(16)
    port = _free_port()
    log = tmp / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(bindir / "deskrun"), "serve", "--addr", f"127.0.0.1:{port}", "--provider", "docker", "--image", image,
             "--owner", "deskrun-python-" + secrets.token_hex(4), "--runs", str(tmp / "runs")],
            stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, DESKRUN_TOKEN=token), cwd=str(REPO))
    url = f"http://127.0.0.1:{port}"
    while True:
        if proc.poll() is not None:
            pytest.fail(f"deskrun serve exited {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    srv = Server(url, token, proc, log, str(tmp / "runs"))
    yield srv
    with srv.client() as c:
        for s in c.sessions.list():
            try:
                s.delete()
            except deskrun.NotFound:
                pass
    proc.terminate()
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)
