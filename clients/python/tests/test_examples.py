"""examples/python against real sessions and a real task suite, with scripted
models in place of the model APIs (which cannot be reached here)."""

from __future__ import annotations

import base64
import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Dict, List

import pytest

import deskrun

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "examples" / "python"))

import agent_loop  # noqa: E402
import agent_server  # noqa: E402


class ScriptedAnthropic:
    """Answers the Messages API's turns from a script of content lists, and
    keeps what it was sent."""

    def __init__(self, turns: List[List[Dict[str, Any]]]) -> None:
        self.turns, self.seen = list(turns), []  # type: ignore[var-annotated]

    def __call__(self, *, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        self.seen.append((json.loads(json.dumps(messages)), tools))
        return {"role": "assistant", "content": self.turns.pop(0)}


def test_anthropic_loop(session: deskrun.Session) -> None:
    home = session.commands.run("printf %s $HOME").stdout
    model = ScriptedAnthropic([
        [{"type": "tool_use", "id": "u1", "name": "computer", "input": {"action": "screenshot"}}],
        [{"type": "text", "text": "I will write the file."},
         {"type": "tool_use", "id": "u2", "name": "bash", "input": {"command": "echo loop > ~/loop.txt"}},
         {"type": "tool_use", "id": "u3", "name": "computer", "input": {"action": "mouse_move", "coordinate": [30, 40]}}],
        [{"type": "text", "text": "Done: the file holds loop."}],
    ])
    assert agent_loop.anthropic_loop(session, "Write loop into ~/loop.txt", model=model) == "Done: the file holds loop."
    assert session.files.read_text(home + "/loop.txt") == "loop\n" and session.mouse.position() == (30, 40)
    tools = model.seen[0][1]
    assert tools[0]["type"] == "computer_20250124" and tools[0]["display_width_px"] == 1024
    first = model.seen[1][0][-1]["content"][0]
    assert first["type"] == "tool_result" and first["tool_use_id"] == "u1" and first["content"][0]["type"] == "image"
    second = model.seen[2][0][-1]["content"]
    assert [b["tool_use_id"] for b in second] == ["u2", "u3"]


def test_openai_loop(session: deskrun.Session) -> None:
    sent: List[Any] = []
    script = [
        {"id": "r1", "output": [{"type": "computer_call", "call_id": "c1", "action": {"type": "screenshot"}}]},
        {"id": "r2", "output": [{"type": "reasoning", "summary": []},
                                {"type": "computer_call", "call_id": "c2", "action": {"type": "move", "x": 55, "y": 66},
                                 "pending_safety_checks": [{"id": "s1", "code": "x", "message": "m"}]}]},
        {"id": "r3", "output": [{"type": "message", "content": [{"type": "output_text", "text": "moved"}]}]},
    ]

    def model(*, input: List[Dict[str, Any]], tools: List[Dict[str, Any]], previous_response_id: Any) -> Dict[str, Any]:
        sent.append((input, tools, previous_response_id))
        return script.pop(0)

    assert agent_loop.openai_loop(session, "Move the pointer", model=model) == "moved"
    assert session.mouse.position() == (55, 66)
    assert [p for _, _, p in sent] == [None, "r1", "r2"]
    out = sent[1][0][0]
    assert out["type"] == "computer_call_output" and out["call_id"] == "c1"
    png = base64.b64decode(out["output"]["image_url"].split(",", 1)[1])
    assert png[:4] == b"\x89PNG"
    assert sent[2][0][0]["acknowledged_safety_checks"][0]["id"] == "s1"


TASKS = ["files-copy-notes", "shell-permissions", "terminal-echo-file", "infeasible-bluetooth"]


def solutions() -> Dict[str, List[Dict[str, Any]]]:
    """Each task's reference solution as the tool_use blocks a model would
    write, keyed by the task's instruction (all the scripted model sees)."""
    out: Dict[str, List[Dict[str, Any]]] = {}
    for f in REPO.glob("tasks/*/*.json"):
        t = json.loads(f.read_text())
        if t["id"] not in TASKS:
            continue
        uses = []
        for c in t["solution"]:
            a = c["args"]
            if c["tool"] == "desktop_control":
                uses.append({"end": "INFEASIBLE" if a["action"] == "fail" else "done"})
            elif c["tool"] == "desktop_type":
                uses.append({"name": "computer", "input": {"action": "type", "text": a["text"]}})
            elif c["tool"] == "desktop_key_press":
                uses.append({"name": "computer", "input": {"action": "key", "text": "Return" if a["key"] == "enter" else a["key"]}})
            else:
                assert c["dialect"] == "anthropic", c
                uses.append({"name": c["tool"], "input": a})
        out[t["instruction"]] = uses
    assert len(out) == len(TASKS)
    return out


def test_agent_server_runs_a_task_suite(tmp_path: pathlib.Path) -> None:
    script = solutions()
    steps: List[int] = []

    def model(messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
        instruction = messages[0]["content"][0]["text"]
        assert messages[0]["content"][1]["type"] == "image" and tools[0]["name"] == "computer"
        turn = (len(messages) - 1) // 2
        steps.append(turn)
        u = script[instruction][turn]
        if "end" in u:
            return {"content": [{"type": "text", "text": f"Finished: {u['end']}"}]}
        if turn > 0:  # the last call's result came back as a tool_result
            assert messages[-1]["content"][0]["type"] == "tool_result"
        return {"content": [{"type": "tool_use", "id": f"t{turn}", "name": u["name"], "input": u["input"]}],
                "model": "scripted", "usage": {"input_tokens": 10, "output_tokens": 5}}

    token = "agent-secret"
    srv = agent_server.serve_in_thread(agent_server.ClaudePolicy(model), token=token)
    try:
        bindir = pathlib.Path(os.environ.get("DESKRUN_BIN", REPO / "bin"))
        out = tmp_path / "run"
        r = subprocess.run(
            [str(bindir / "deskrun"), "eval", "--tasks", "tasks", "--only", ",".join(TASKS), "--provider", "local",
             "--agentd", str(bindir / "agentd"), "--parallel", "2", "--out", str(out),
             "--agent", f"http://127.0.0.1:{srv.server_address[1]}/step", "--agent-token", token],
            cwd=str(REPO), capture_output=True, text=True, timeout=1200)
    finally:
        srv.shutdown()
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(x["id"] for x in results) == sorted(TASKS), r.stderr[-2000:]
    assert all(x["status"] == "passed" for x in results), (results, r.stderr[-2000:])
    assert r.returncode == 0, r.stderr[-2000:]
    assert max(steps) >= 2


def test_agent_server_refuses_a_wrong_token() -> None:
    import urllib.error
    import urllib.request

    srv = agent_server.serve_in_thread(lambda req: {"done": True}, token="right")
    try:
        url = f"http://127.0.0.1:{srv.server_address[1]}/step"
        req = urllib.request.Request(url, data=b"{}", headers={"Authorization": "Bearer wrong"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req)
        assert e.value.code == 401
        ok = urllib.request.Request(url, data=b"{}", headers={"Authorization": "Bearer right"})
        assert json.loads(urllib.request.urlopen(ok).read()) == {"done": True}
    finally:
        srv.shutdown()
