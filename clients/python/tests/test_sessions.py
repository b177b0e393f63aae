"""Sessions, errors and the server-wide calls, on both clients (the ``api`` fixture)."""

from __future__ import annotations

import threading
from typing import Any, Dict

import httpx
import pytest

import deskrun


def test_health_and_metrics(api: Any) -> None:
    h = api.health()
    assert h.status == "ok" and "local" in (h.providers or [])
    assert "deskrun_sessions_open" in api.metrics()


def test_defaults_from_the_environment(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DESKRUN_URL", server.url)
    monkeypatch.setenv("DESKRUN_TOKEN", server.token)
    with deskrun.Client() as c:
        assert c.health().status == "ok" and c.sessions.list() is not None
    monkeypatch.setenv("DESKRUN_TOKEN", "wrong")
    with deskrun.Client() as c, pytest.raises(deskrun.Unauthorized):
        c.sessions.list()


def test_a_session_is_deleted_when_its_block_ends(api: Any) -> None:
    with api.sessions.create(screen=(800, 600), labels={"suite": "python"}) as s:
        assert s.info.screen.width == 800 and s.info.screen.height == 600
        assert s.info.state == "running" and s.info.provider == "local"
        assert s.info.labels == {"suite": "python"} and s.info.created_at is not None
        assert s.id in [x.id for x in api.sessions.list()]
        assert api.sessions.get(s.id).info.sandbox_id == s.info.sandbox_id
        assert s.refresh().id == s.id
        assert api.sessions.attach(s.id).screen.size() == (800, 600)
    with pytest.raises(deskrun.NotFound):
        api.sessions.get(s.id)
    with pytest.raises(deskrun.NotFound):
        s.delete()


def test_bad_input_raises_invalid_request_naming_the_field(api: Any, sess: Any) -> None:
    cases = [
        (lambda: api.sessions.create(screen=(10, 10)), "screen.width"),
        (lambda: api.sessions.create(provider="nope"), "provider"),
        (lambda: api.runs.start(""), "tasks"),
        (lambda: api.tools.list("nope"), "dialect"),
        (lambda: sess.mouse.move(5000, 1), "actions[0].x"),
        (lambda: sess.keyboard.press("nosuchkey"), "actions[0].keys[0]"),
        (lambda: sess.commands.run([]), "cmd"),
        (lambda: sess.commands.run("true", timeout=99999), "timeout_ms"),
        (lambda: sess.files.read("relative/path"), "path"),
        (lambda: sess.screen.screenshot(quality=500), "quality"),
        (lambda: sess.screen.screenshot(region=(0, 0, 5000, 5000)), "region"),
        (lambda: sess.tools("klingon"), "dialect"),
    ]
    for call, field in cases:
        with pytest.raises(deskrun.InvalidRequest) as e:
            call()
        assert e.value.field == field, f"{e.value!r}: want field {field}"
        assert e.value.status in (0, 400) and e.value.code == "invalid_argument"


def test_errors_carry_the_contract_code(api: Any, sess: Any) -> None:
    with pytest.raises(deskrun.NotFound) as e:
        sess.files.read("/nonexistent/file")
    assert e.value.status == 404 and e.value.code == "not_found"
    with pytest.raises(deskrun.NotFound):
        sess.windows.get(999999)
    with pytest.raises(deskrun.NotFound):
        api.tools.info("nope")
    with pytest.raises(deskrun.Unavailable):
        sess.ports.request("GET", 8799, "/")
    r = sess.call_tool("computer", {"action": "left_click", "coordinate": [99999, 1]}, dialect="anthropic")
    assert r.is_error and "coordinate" in r.text, "a refused tool call is a result the model reads"


def test_a_session_deleted_under_a_call(server: Any, api: Any) -> None:
    s = api.sessions.create()
    got: Dict[str, Any] = {}

    def run() -> None:
        try:
            got["result"] = s.commands.run("sleep 21.37", timeout=25)
        except deskrun.DeskrunError as e:
            got["error"] = e

    th = threading.Thread(target=run)
    th.start()
    with server.client() as other:
        # Delete once the command runs.
        while "sleep 21.37" not in other.sessions.get(s.id).commands.run("ps -eo args").stdout:
            pass
        other.sessions.get(s.id).delete()
    th.join()
    assert "result" not in got, "the command finished although its session was deleted"
    assert isinstance(got["error"], (deskrun.Unavailable, deskrun.NotFound, deskrun.Canceled)), got["error"]
    with pytest.raises(deskrun.NotFound):
        s.mouse.move(1, 1)


def test_retries_on_unavailable_then_gives_up(server: Any) -> None:
    calls = []

    def handler(req: httpx.Request) -> httpx.Response:
        calls.append(req.method)
        return httpx.Response(503, json={"error": {"code": "unavailable", "message": "provider down"}})

    c = deskrun.Client("http://deskrun.test", "t", retries=2, backoff=0.001,
                       http=httpx.Client(transport=httpx.MockTransport(handler)))
    with pytest.raises(deskrun.Unavailable) as e:
        c.sessions.list()
    assert calls == ["GET"] * 3 and e.value.message == "provider down"
    calls.clear()
    with pytest.raises(deskrun.Unavailable):
        c.sessions.attach("x").input([{"type": "move", "x": 1, "y": 1}])
    assert calls == ["POST"], "an input call is not repeated"


def test_timeouts(server: Any) -> None:
    with server.client() as c, c.sessions.create() as s:
        # The desktop waits 3 s; the call's own timeout is a tenth of it.
        with pytest.raises(deskrun.DeadlineExceeded):
            s.input([{"type": "wait", "ms": 3000}], timeout=0.3)
        r = s.commands.run("sleep 30", timeout=0.5)
        assert r.timed_out and not r.ok


def test_unreachable_server() -> None:
    with deskrun.Client("http://127.0.0.1:9", "t", retries=1, backoff=0.001) as c, pytest.raises(deskrun.Unavailable):
        c.health()


def test_fork_pause_resume_where_the_provider_cannot_snapshot(sess: Any) -> None:
    """Local sandboxes cannot be checkpointed: fork and pause answer 501
    naming what can, resume of a session not paused 409, a bad count 400."""
    with pytest.raises(deskrun.InvalidRequest) as bad:
        sess.fork(17)
    assert bad.value.field == "count"
    with pytest.raises(deskrun.NotImplemented_) as e:
        sess.fork(2)
    assert e.value.status == 501 and "docker" in e.value.message
    with pytest.raises(deskrun.NotImplemented_):
        sess.pause()
    with pytest.raises(deskrun.Conflict):
        sess.resume()
    assert sess.refresh().state == "running" and sess.refresh().fork_of is None
