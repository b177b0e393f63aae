"""The client on docker sandboxes (make e2e): a session of the desktop image
driven through both clients, its devices checked inside the container."""

from __future__ import annotations

import time
from typing import Any

import pytest

import deskrun
from flavors import Blocking


@pytest.mark.parametrize("flavor", ["sync", "async"])
def test_a_docker_session(docker_server: Any, loop: Any, flavor: str) -> None:
    c: Any = docker_server.client(timeout=120) if flavor == "sync" else Blocking(docker_server.async_client(timeout=120), loop)
    try:
        with c.sessions.create(screen=(1024, 768), labels={"suite": "python"}) as s:
            assert s.info.provider == "docker" and s.info.image
            assert s.commands.run("id -un").stdout.strip() == "user"
            shot = s.screen.screenshot(max_width=512)
            assert (shot.width, shot.height, shot.screen) == (512, 384, (1024, 768))
            s.mouse.move(100, 120)
            assert s.mouse.position() == (100, 120)
            s.files.write("/home/user/py.txt", "héllo")
            assert s.commands.run("cat /home/user/py.txt").stdout == "héllo"
            assert [e.name for e in s.files.list("/home/user") if e.name == "py.txt"] == ["py.txt"]
            s.clipboard.set("from python")
            assert s.clipboard.get() == "from python"
            # The image's ~/.bashrc retitles an xterm at its first prompt:
            # xterm is told to keep its title.
            s.commands.run("xterm -title pydocker -xrm 'XTerm*allowTitleOps: false' >/dev/null 2>&1 &")
            for _ in range(600):
                w = s.windows.find("pydocker")
                if w:
                    break
                time.sleep(0.05)
            assert w is not None
            s.windows.activate(w.id)
            s.keyboard.type("echo typed > /home/user/typed.txt\n")
            for _ in range(600):
                if s.files.exists("/home/user/typed.txt") and s.files.read_text("/home/user/typed.txt"):
                    break
                time.sleep(0.05)
            assert s.files.read_text("/home/user/typed.txt") == "typed\n"
            out = s.tools("anthropic").call({"type": "tool_use", "id": "u", "name": "bash", "input": {"command": "uname -s"}})
            assert "Linux" in out["content"][0]["text"]
            with pytest.raises(deskrun.InvalidRequest) as e:
                s.mouse.move(5000, 1)
            assert e.value.field == "actions[0].x"
        with pytest.raises(deskrun.NotFound):
            c.sessions.get(s.id)
    finally:
        c.close()
