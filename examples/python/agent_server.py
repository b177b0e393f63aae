"""An agent server for ``deskrun eval --agent http://HOST:PORT/step``, with
Python's standard library only.

deskrun POSTs one JSON request per step (tasks/README.md, the agent
protocol): ``task_id``, ``instruction``, ``step``, ``observation``
(``screenshot`` as base64 PNG, ``width``, ``height``), ``history`` (earlier
steps' ``calls`` and their ``results``: ``text``, ``is_error``) and
``state`` (what this server answered last step). The answer names the tool
calls to make in a deskrun dialect, or ``done``/``fail``, and a ``state``
handed back next step, so the server itself keeps nothing per episode.

The policy here is a Claude computer-use loop: the conversation lives in
``state``; each step adds the tool results of the last calls (from
``history``) and the new screenshot, asks the model (``call_model``, a
POST to Anthropic's Messages API with urllib; needs ``ANTHROPIC_API_KEY``
and network access), and turns its ``tool_use`` blocks into calls of
deskrun's ``anthropic`` dialect, which takes them as the model wrote them.
A model answer without a tool call ends the episode. Tests pass a scripted
model in place of ``call_model``.

    python3 examples/python/agent_server.py --port 9000 &
    deskrun eval --tasks tasks --agent http://127.0.0.1:9000/step --out runs/claude
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

Model = Callable[[List[Dict[str, Any]], List[Dict[str, Any]]], Dict[str, Any]]

SYSTEM = ("You operate a Linux desktop (X11, openbox) through your tools to carry out the user's task. "
          "When it is done, answer with a short summary and no tool call. If it cannot be done, "
          "explain why and end with INFEASIBLE.")


def call_model(messages: List[Dict[str, Any]], tools: List[Dict[str, Any]]) -> Dict[str, Any]:
    """One turn of Anthropic's Messages API (computer-use beta) through urllib."""
    body = json.dumps({"model": os.environ.get("AGENT_MODEL", "claude-sonnet-4-5"), "max_tokens": 4096,
                       "system": SYSTEM, "tools": tools, "messages": messages}).encode()
    req = urllib.request.Request(
        os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com") + "/v1/messages", data=body,
        headers={"x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""), "anthropic-version": "2023-06-01",
                 "anthropic-beta": "computer-use-2025-01-24", "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def tools_for(width: int, height: int) -> List[Dict[str, Any]]:
    """Anthropic's computer, bash and text editor tools at the screenshot's size."""
    return [{"type": "computer_20250124", "name": "computer", "display_width_px": width, "display_height_px": height},
            {"type": "bash_20250124", "name": "bash"},
            {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}]


class ClaudePolicy:
    """Decides a step from deskrun's request with a model, keeping the
    conversation in the answer's ``state``."""

    def __init__(self, model: Model = call_model) -> None:
        self.model = model

    def __call__(self, req: Dict[str, Any]) -> Dict[str, Any]:
        obs = req.get("observation") or {}
        state = req.get("state") or {"messages": [], "pending": []}
        messages: List[Dict[str, Any]] = state["messages"]
        shot = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": obs.get("screenshot", "")}}
        if not messages:
            messages.append({"role": "user", "content": [{"type": "text", "text": req["instruction"]}, shot]})
        else:
            # Answer the last turn's tool_use blocks with what deskrun reported.
            last = (req.get("history") or [{}])[-1]
            results = last.get("results") or []
            blocks: List[Dict[str, Any]] = []
            for i, tid in enumerate(state["pending"]):
                r = results[i] if i < len(results) else {"text": "not run", "is_error": True}
                block: Dict[str, Any] = {"type": "tool_result", "tool_use_id": tid,
                                         "content": [{"type": "text", "text": r.get("text") or "(no output)"}]}
                if r.get("is_error"):
                    block["is_error"] = True
                blocks.append(block)
            blocks.append({"type": "text", "text": "The screen now:"})
            blocks.append(shot)
            messages.append({"role": "user", "content": blocks})
        resp = self.model(messages, tools_for(int(obs.get("width") or 1280), int(obs.get("height") or 800)))
        content = resp.get("content") or []
        messages.append({"role": "assistant", "content": content})
        uses = [b for b in content if b.get("type") == "tool_use"]
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        out: Dict[str, Any] = {"dialect": "anthropic", "text": text}
        if not uses:
            out["fail" if "INFEASIBLE" in text else "done"] = True
            return out
        out["calls"] = [{"tool": u["name"], "args": u.get("input") or {}} for u in uses]
        out["state"] = {"messages": messages, "pending": [u["id"] for u in uses]}
        usage = resp.get("usage")
        if usage:
            out["usage"] = {"model": resp.get("model", ""), "input_tokens": usage.get("input_tokens", 0),
                            "output_tokens": usage.get("output_tokens", 0)}
        return out


Policy = Callable[[Dict[str, Any]], Dict[str, Any]]


def make_server(policy: Policy, host: str = "127.0.0.1", port: int = 9000,
                token: Optional[str] = None) -> ThreadingHTTPServer:
    """An HTTP server answering POST /step with ``policy(request)``; with a
    ``token``, requests must carry ``Authorization: Bearer <token>``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?")[0] != "/step":
                return self._answer(404, {"error": "POST /step"})
            if token and self.headers.get("Authorization") != "Bearer " + token:
                return self._answer(401, {"error": "bad token"})
            try:
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            except ValueError as e:
                return self._answer(400, {"error": f"body: {e}"})
            try:
                return self._answer(200, policy(req))
            except Exception as e:  # the task fails as an agent error
                return self._answer(500, {"error": f"{type(e).__name__}: {e}"})

        def _answer(self, status: int, doc: Dict[str, Any]) -> None:
            b = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer((host, port), Handler)


def serve_in_thread(policy: Policy, token: Optional[str] = None) -> ThreadingHTTPServer:
    """Starts the server on a free loopback port in a daemon thread; its URL
    is ``http://127.0.0.1:{srv.server_address[1]}/step``."""
    srv = make_server(policy, port=0, token=token)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=9000)
    ap.add_argument("--token", default=os.environ.get("DESKRUN_AGENT_TOKEN"))
    a = ap.parse_args(argv[1:])
    srv = make_server(ClaudePolicy(), a.host, a.port, a.token)
    print(f"agent server on http://{a.host}:{srv.server_address[1]}/step", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
