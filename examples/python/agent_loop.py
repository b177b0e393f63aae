"""A complete computer-use agent loop on a deskrun session, for Anthropic's
and for OpenAI's computer-use tools.

The model call is one function each (``call_anthropic``, ``call_openai``):
a POST of the vendor's request with ``httpx``, which needs the vendor's API
key and network access. Everything else is deskrun's Python client: the
tool definitions to declare (``s.tools(vendor).definitions()``) and the
model's tool calls run on the desktop and answered in the vendor's shape
(``s.tools(vendor).call(item)``). Tests pass a scripted model in place of
the call.

    DESKRUN_URL=http://127.0.0.1:8080 DESKRUN_TOKEN=... ANTHROPIC_API_KEY=... \\
        python3 examples/python/agent_loop.py anthropic "Open a terminal and run uname -a"
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, List, Optional

import httpx

import deskrun

Model = Callable[..., Dict[str, Any]]

SYSTEM = ("You operate a Linux desktop (X11, openbox) through your tools to carry out the user's task. "
          "Check the screen after acting. When the task is done, answer with a short summary and no tool call.")


def call_anthropic(*, messages: List[Dict[str, Any]], tools: List[Dict[str, Any]],
                   model: str = "claude-sonnet-4-5", max_tokens: int = 4096) -> Dict[str, Any]:
    """One turn of Anthropic's Messages API with the computer-use beta; answers the
    response as JSON (``content`` holding ``text`` and ``tool_use`` blocks)."""
    r = httpx.post(os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com") + "/v1/messages",
                   headers={"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01",
                            "anthropic-beta": "computer-use-2025-01-24"},
                   json={"model": model, "max_tokens": max_tokens, "system": SYSTEM, "tools": tools,
                         "messages": messages}, timeout=600)
    r.raise_for_status()
    return r.json()  # type: ignore[no-any-return]


def call_openai(*, input: List[Dict[str, Any]], tools: List[Dict[str, Any]], previous_response_id: Optional[str],
                model: str = "computer-use-preview") -> Dict[str, Any]:
    """One turn of OpenAI's Responses API; answers the response as JSON
    (``output`` holding ``computer_call`` and ``message`` items)."""
    body: Dict[str, Any] = {"model": model, "input": input, "tools": tools, "truncation": "auto",
                            "instructions": SYSTEM}
    if previous_response_id:
        body["previous_response_id"] = previous_response_id
    r = httpx.post(os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1") + "/responses",
                   headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}, json=body, timeout=600)
    r.raise_for_status()
    return r.json()  # type: ignore[no-any-return]


def anthropic_loop(s: deskrun.Session, task: str, *, model: Model = call_anthropic, max_steps: int = 30) -> str:
    """Runs Anthropic's loop on the session until the model answers without a
    tool call (its text is returned) or ``max_steps`` turns have passed."""
    tools = s.tools("anthropic")
    defs = tools.definitions()
    messages: List[Dict[str, Any]] = [{"role": "user", "content": task}]
    for _ in range(max_steps):
        resp = model(messages=messages, tools=defs)
        messages.append({"role": "assistant", "content": resp["content"]})
        uses = [b for b in resp["content"] if b.get("type") == "tool_use"]
        if not uses:
            return "".join(b.get("text", "") for b in resp["content"] if b.get("type") == "text")
        messages.append({"role": "user", "content": [tools.call(u) for u in uses]})
    raise RuntimeError(f"no answer after {max_steps} steps")


def openai_loop(s: deskrun.Session, task: str, *, model: Model = call_openai, max_steps: int = 30) -> str:
    """Runs OpenAI's loop on the session: each ``computer_call`` is run and
    answered with a ``computer_call_output`` carrying the new screenshot,
    chained to the previous response, until a response has no call."""
    tools = s.tools("openai")
    defs = tools.definitions()
    items: List[Dict[str, Any]] = [{"role": "user", "content": task}]
    previous: Optional[str] = None
    for _ in range(max_steps):
        resp = model(input=items, tools=defs, previous_response_id=previous)
        previous = resp["id"]
        calls = [o for o in resp["output"] if o.get("type") in ("computer_call", "function_call")]
        if not calls:
            return "".join(p.get("text", "") for o in resp["output"] if o.get("type") == "message"
                           for p in o.get("content", []))
        items = []
        for c in calls:
            out = tools.call(c)
            if c.get("pending_safety_checks"):
                out["acknowledged_safety_checks"] = c["pending_safety_checks"]
            items.append(out)
    raise RuntimeError(f"no answer after {max_steps} steps")


def main(argv: List[str]) -> int:
    vendor, task = argv[1], " ".join(argv[2:])
    with deskrun.Client() as client, client.sessions.create(screen=(1280, 800)) as s:
        print("watch it:", s.viewer_url(view_only=True))
        loop = anthropic_loop if vendor == "anthropic" else openai_loop
        print(loop(s, task))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
