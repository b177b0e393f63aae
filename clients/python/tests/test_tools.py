"""The dialects in the vendors' shapes, the tool catalogue and MCP, on both clients."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import deskrun


def test_catalogue(api: Any) -> None:
    tl = api.tools.list("anthropic")
    assert tl.dialect == "anthropic" and "computer" in [t.name for t in tl.tools]
    d = api.tools.info("computer", "anthropic")
    assert d.name == "computer" and d.input_schema.get("type") == "object" and d.description
    assert "computer" in api.tools.markdown("computer", "anthropic")
    assert [t.name for t in api.tools.list("sandbox").tools][:1] == ["shell_exec"]


def test_anthropic(sess: Any) -> None:
    tools = sess.tools("anthropic")
    defs = tools.definitions()
    assert defs[0] == {"type": "computer_20250124", "name": "computer", "display_width_px": 1024, "display_height_px": 768}
    assert {d["name"] for d in defs} == {"computer", "bash", "str_replace_based_edit_tool"}
    shot = tools.call({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "screenshot"}})
    assert shot["type"] == "tool_result" and shot["tool_use_id"] == "toolu_1" and "is_error" not in shot
    img = [c for c in shot["content"] if c["type"] == "image"][0]
    assert img["source"]["media_type"] == "image/png" and base64.b64decode(img["source"]["data"])[:4] == b"\x89PNG"
    move = tools.call({"type": "tool_use", "id": "toolu_2", "name": "computer", "input": {"action": "mouse_move", "coordinate": [40, 50]}})
    assert "is_error" not in move
    assert sess.mouse.position() == (40, 50)
    bash = tools.call({"type": "tool_use", "id": "toolu_3", "name": "bash", "input": {"command": "echo from-bash"}})
    assert "from-bash" in bash["content"][0]["text"]
    bad = tools.call({"type": "tool_use", "id": "toolu_4", "name": "computer", "input": {"action": "left_click", "coordinate": [99999, 1]}})
    assert bad["is_error"] is True and "coordinate" in bad["content"][0]["text"]
    every = tools.definitions(only=["left_click", "zoom"])
    assert {d["name"] for d in every} == {"left_click", "zoom"} and "input_schema" in every[0]


def test_anthropic_declares_the_size_of_what_the_model_sees(server: Any) -> None:
    assert deskrun.model_size("anthropic", (1920, 1080)) == (1429, 804)
    assert deskrun.model_size("anthropic", (1280, 800)) == (1280, 800)
    assert deskrun.model_size("openai", (1920, 1080)) == (1920, 1080)
    with server.client() as c, c.sessions.create(screen=(1920, 1080)) as s:
        tools = s.tools("anthropic")
        d = tools.definitions()[0]
        shot = tools.run("computer", {"action": "screenshot"}).images[0]
        assert (d["display_width_px"], d["display_height_px"]) == (shot.width, shot.height) == (1429, 804)
        tools.run("computer", {"action": "mouse_move", "coordinate": [1428, 803]})
        x, y = s.mouse.position()
        assert abs(x - 1919) <= 2 and abs(y - 1079) <= 2


def test_openai(sess: Any) -> None:
    tools = sess.tools("openai")
    assert tools.definitions() == [{"type": "computer_use_preview", "display_width": 1024, "display_height": 768, "environment": "linux"}]
    out = tools.call({"type": "computer_call", "call_id": "call_1", "action": {"type": "move", "x": 33, "y": 44}})
    assert out["type"] == "computer_call_output" and out["call_id"] == "call_1"
    assert out["output"]["type"] == "computer_screenshot" and out["output"]["image_url"].startswith("data:image/png;base64,")
    assert sess.mouse.position() == (33, 44)
    batch = tools.call({"type": "computer_call", "call_id": "call_2", "actions": [{"type": "move", "x": 5, "y": 6}, {"type": "move", "x": 7, "y": 8}]})
    assert batch["call_id"] == "call_2" and sess.mouse.position() == (7, 8)


def test_hermes_osworld_and_others(sess: Any) -> None:
    h = sess.tools("hermes")
    defs = h.definitions()
    assert defs[0]["type"] == "function" and defs[0]["function"]["name"] == "computer_use"
    cap = h.call({"name": "computer_use", "arguments": json.dumps({"action": "capture", "mode": "vision"})})
    assert cap["role"] == "tool" and cap["name"] == "computer_use" and cap["images"][0]["mime_type"] == "image/png"
    chat = h.call({"id": "c1", "function": {"name": "computer_use", "arguments": {"action": "click", "coordinate": [12, 13]}}})
    assert chat["tool_call_id"] == "c1" and "is_error" not in chat and sess.mouse.position() == (12, 13)
    o = sess.tools("osworld")
    assert "desktop_mouse_move" in [d["function"]["name"] for d in o.definitions()]
    o.call({"name": "desktop_mouse_move", "arguments": {"x": 21, "y": 22}})
    assert sess.mouse.position() == (21, 22)
    sb = sess.tools("sandbox").call({"name": "shell_exec", "arguments": {"id": "t", "exec_dir": "/tmp", "command": "echo sb"}})
    assert "sb" in sb["content"]
    r = sess.tools("pyautogui").run("pyautogui", {"code": "pyautogui.moveTo(61, 62)"})
    assert not r.is_error and sess.mouse.position() == (61, 62)


def test_mcp(api: Any, sess: Any) -> None:
    listed = api.mcp.tools(session=sess.id, dialect="anthropic")
    assert "computer" in [t["name"] for t in listed] and "inputSchema" in listed[0]
    res = api.mcp.call("computer", {"action": "mouse_move", "coordinate": [70, 71]}, session=sess.id, dialect="anthropic")
    assert res.get("isError") in (None, False) and sess.mouse.position() == (70, 71)
    m = sess.tools("mcp")
    assert all("inputSchema" in d for d in m.definitions())
    got = m.call({"name": "computer", "arguments": {"action": "screenshot"}})
    assert got["isError"] is False and got["content"][0]["type"] == "image" and got["content"][0]["mimeType"] == "image/png"


def test_shapes_without_a_server() -> None:
    r = deskrun.ToolResult(content=[deskrun.ContentPart(type="text", text="hi")], is_error=True)
    call = deskrun.parse_call("anthropic", {"type": "tool_use", "id": "x", "name": "bash", "input": {"command": "ls"}})
    assert (call.name, call.args, call.call_id) == ("bash", {"command": "ls"}, "x")
    assert deskrun.shape_result("anthropic", call, r) == {"type": "tool_result", "tool_use_id": "x", "content": [{"type": "text", "text": "hi"}], "is_error": True}
    fc = deskrun.parse_call("openai", {"type": "function_call", "call_id": "f", "name": "bash", "arguments": "{\"command\": \"ls\"}"})
    assert deskrun.shape_result("openai", fc, r) == {"type": "function_call_output", "call_id": "f", "output": "hi"}
    with pytest.raises(ValueError):
        deskrun.parse_call("openai", {"type": "message"})
