"""The shapes of the model vendors' tool calls and tool results.

deskrun's dialects (``anthropic``, ``openai``, ``osworld``, ``hermes``, ...)
take a tool's arguments as the vendor's model writes them and answer a
neutral :class:`~deskrun.ToolResult`. This module is the other half: it
reads the tool call out of the vendor's message item and writes the result
back in the item the vendor's API expects next, and declares the tools in
the vendor's tool list format. Pure functions; no I/O.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ._types import ContentPart, ToolList, ToolResult

VENDORS = ("anthropic", "anthropic_normalized", "openai", "osworld", "hermes", "pyautogui", "sandbox", "mcp")
"""The names ``Session.tools`` takes: deskrun's dialects, and ``mcp`` (the
session's default dialect, declared and answered in MCP's shapes)."""


@dataclass
class ToolCall:
    """A tool call as deskrun runs it: the tool's name, its arguments, and the
    vendor's id of the call (to answer it), if any."""

    name: str
    args: Dict[str, Any]
    call_id: Optional[str] = None
    kind: str = ""


def _b64(p: ContentPart) -> str:
    return base64.b64encode(p.data or b"").decode()


def parse_call(vendor: str, call: Any) -> ToolCall:
    """Reads a tool call out of a vendor's item.

    anthropic: a ``tool_use`` block ``{"type": "tool_use", "id", "name", "input"}``.
    openai: a ``computer_call`` item (``action`` or ``actions``, ``call_id``) or a
    ``function_call`` item (``name``, ``arguments`` as a JSON string, ``call_id``).
    hermes, osworld and the others: ``{"name", "arguments"}`` (arguments a dict or
    a JSON string), or the OpenAI chat form ``{"id", "function": {"name", "arguments"}}``.
    mcp: ``tools/call`` params ``{"name", "arguments"}``. Anything else raises ValueError.
    """
    c = _as_dict(call)
    if vendor in ("anthropic", "anthropic_normalized") and c.get("type", "tool_use") == "tool_use":
        if "name" not in c:
            raise ValueError("tool_use: name missing")
        return ToolCall(str(c["name"]), dict(c.get("input") or {}), c.get("id"), "tool_use")
    if vendor == "openai":
        t = c.get("type")
        if t == "computer_call":
            if c.get("actions"):
                args: Dict[str, Any] = {"actions": c["actions"]}
            elif c.get("action"):
                args = dict(c["action"])
            else:
                raise ValueError("computer_call: no action")
            return ToolCall("computer", args, c.get("call_id"), "computer_call")
        if t == "function_call":
            return ToolCall(str(c["name"]), _args(c.get("arguments")), c.get("call_id"), "function_call")
    if isinstance(c.get("function"), dict):
        f = c["function"]
        return ToolCall(str(f["name"]), _args(f.get("arguments")), c.get("id"), "function")
    if "name" in c:
        return ToolCall(str(c["name"]), _args(c.get("arguments", c.get("input"))), c.get("id") or c.get("call_id"), "call")
    raise ValueError(f"{vendor}: not a tool call: {sorted(c)}")


def _as_dict(v: Any) -> Dict[str, Any]:
    if isinstance(v, Mapping):
        return dict(v)
    if hasattr(v, "model_dump"):  # the vendors' SDK objects
        d = v.model_dump()
        if isinstance(d, dict):
            return d
    if hasattr(v, "__dict__"):
        return dict(vars(v))
    raise ValueError(f"not a tool call: {type(v).__name__}")


def _args(a: Any) -> Dict[str, Any]:
    if a is None or a == "":
        return {}
    if isinstance(a, str):
        v = json.loads(a)
        if not isinstance(v, dict):
            raise ValueError("arguments: want a JSON object")
        return v
    return dict(a)


def shape_result(vendor: str, call: ToolCall, r: ToolResult) -> Dict[str, Any]:
    """Writes a tool result as the vendor's API takes it next.

    anthropic: a ``tool_result`` block (text and base64 image parts, ``is_error``).
    openai: ``computer_call_output`` with the screenshot as a data URL for a
    computer call, ``function_call_output`` with the text for a function call.
    mcp: a ``CallToolResult`` (``content``, ``isError``, ``structuredContent``).
    hermes, osworld and the others: ``{"role": "tool", "tool_call_id", "name",
    "content"}`` with the text (a JSON object for a structured result) and the
    images as ``images`` (base64 PNG or JPEG with their MIME types).
    """
    if vendor in ("anthropic", "anthropic_normalized"):
        content: List[Dict[str, Any]] = []
        for p in r.content:
            if p.type == "text" and p.text:
                content.append({"type": "text", "text": p.text})
            elif p.type == "image":
                content.append({"type": "image", "source": {"type": "base64", "media_type": p.mime_type or "image/png", "data": _b64(p)}})
        if not content:
            content = [{"type": "text", "text": "(no output)"}]
        out: Dict[str, Any] = {"type": "tool_result", "tool_use_id": call.call_id or "", "content": content}
        if r.is_error:
            out["is_error"] = True
        return out
    if vendor == "openai" and call.kind == "computer_call":
        imgs = r.images
        if imgs:
            p = imgs[-1]
            return {"type": "computer_call_output", "call_id": call.call_id or "",
                    "output": {"type": "computer_screenshot", "image_url": f"data:{p.mime_type or 'image/png'};base64,{_b64(p)}"}}
        return {"type": "computer_call_output", "call_id": call.call_id or "",
                "output": {"type": "input_text", "text": r.text or "(no output)"}}
    if vendor == "openai":
        return {"type": "function_call_output", "call_id": call.call_id or "", "output": r.text or "(no output)"}
    if vendor == "mcp":
        parts: List[Dict[str, Any]] = []
        for p in r.content:
            if p.type == "text":
                parts.append({"type": "text", "text": p.text or ""})
            elif p.type == "image":
                parts.append({"type": "image", "data": _b64(p), "mimeType": p.mime_type or "image/png"})
        res: Dict[str, Any] = {"content": parts, "isError": bool(r.is_error)}
        if r.structured is not None:
            res["structuredContent"] = r.structured
        return res
    text = r.text
    if r.structured is not None and not text:
        text = json.dumps(r.structured)
    msg: Dict[str, Any] = {"role": "tool", "name": call.name, "content": text}
    if call.call_id:
        msg["tool_call_id"] = call.call_id
    if r.is_error:
        msg["is_error"] = True
    pics = [{"mime_type": p.mime_type or "image/png", "data": _b64(p)} for p in r.images]
    if pics:
        msg["images"] = pics
    return msg


MAX_SHOT_EDGE = 1568
MAX_SHOT_PIXELS = 1_150_000


def model_size(vendor: str, screen: Tuple[int, int]) -> Tuple[int, int]:
    """The size of the screenshots a dialect shows its model for a screen:
    ``anthropic`` scales them to a long edge of at most 1568 pixels and at
    most 1.15 megapixels (what vision models take without resizing), and its
    coordinates are pixels of that image; the others show the screen as it is."""
    w, h = screen
    if not vendor.startswith("anthropic") or w <= 0 or h <= 0:
        return w, h
    scale = min(1.0, MAX_SHOT_EDGE / max(w, h), math.sqrt(MAX_SHOT_PIXELS / (w * h)))
    if scale >= 1:
        return w, h
    nw = max(1, int(math.floor(w * scale)))
    return nw, max(1, int(h * (nw / w) + 0.5))


def declare(vendor: str, tools: ToolList, screen: Tuple[int, int]) -> List[Dict[str, Any]]:
    """The dialect's tools in the vendor's tool-list format.

    anthropic: Anthropic's built-in computer, bash and text editor tools where the
    dialect has them (the computer tool with the display size ``screen``: pass
    the size of the screenshots the model sees, :func:`model_size`), the
    others as custom tools ``{"name", "description", "input_schema"}``.
    openai: the ``computer_use_preview`` tool with the display size, the others
    as ``{"type": "function", "name", "description", "parameters"}``.
    mcp: ``{"name", "description", "inputSchema"}`` as ``tools/list`` answers.
    hermes, osworld and the others: the OpenAI chat form
    ``{"type": "function", "function": {"name", "description", "parameters"}}``.
    """
    w, h = screen
    out: List[Dict[str, Any]] = []
    for t in tools.tools:
        if t.name == "get_tool_info":
            continue
        if vendor in ("anthropic", "anthropic_normalized"):
            if t.name == "computer":
                out.append({"type": "computer_20250124", "name": "computer", "display_width_px": w, "display_height_px": h})
            elif t.name == "bash":
                out.append({"type": "bash_20250124", "name": "bash"})
            elif t.name == "str_replace_based_edit_tool":
                out.append({"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"})
            else:
                out.append({"name": t.name, "description": t.description, "input_schema": t.input_schema})
        elif vendor == "openai":
            if t.name == "computer":
                out.append({"type": "computer_use_preview", "display_width": w, "display_height": h, "environment": "linux"})
            else:
                out.append({"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema})
        elif vendor == "mcp":
            out.append({"name": t.name, "description": t.description, "inputSchema": t.input_schema})
        else:
            out.append({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}})
    return out
