"""What of the OpenAPI document (api/openapi.yaml) the client implements, and where.

``tests/test_contract.py`` holds this table against the document both ways:
every operation and schema of the document is here (implemented, or left out
with the reason), every row here is in the document, the methods named exist
on the synchronous and the asynchronous classes, and their keyword parameters
and the wire classes' fields are the document's parameters and properties.
"""

from __future__ import annotations

from typing import Dict, Tuple

OPERATIONS: Dict[str, Tuple[str, str, str]] = {
    # operationId: (method, path, the client's method as Class.method, sync names)
    "health": ("GET", "/healthz", "Client.health"),
    "mcpMessage": ("POST", "/mcp", "MCP.tools"),
    "mcpEnd": ("DELETE", "/mcp", "MCP.call"),
    "createSession": ("POST", "/v1/sessions", "Sessions.create"),
    "listSessions": ("GET", "/v1/sessions", "Sessions.list"),
    "getSession": ("GET", "/v1/sessions/{id}", "Sessions.get"),
    "setSessionTTL": ("POST", "/v1/sessions/{id}/ttl", "Session.set_ttl"),
    "forkSession": ("POST", "/v1/sessions/{id}/fork", "Session.fork"),
    "pauseSession": ("POST", "/v1/sessions/{id}/pause", "Session.pause"),
    "resumeSession": ("POST", "/v1/sessions/{id}/resume", "Session.resume"),
    "deleteSession": ("DELETE", "/v1/sessions/{id}", "Session.delete"),
    "screenshot": ("GET", "/v1/sessions/{id}/screenshot", "Screen.screenshot"),
    "input": ("POST", "/v1/sessions/{id}/input", "Session.input"),
    "cursor": ("GET", "/v1/sessions/{id}/cursor", "Mouse.position"),
    "createTicket": ("POST", "/v1/sessions/{id}/tickets", "Session.ticket"),
    "vnc": ("GET", "/v1/sessions/{id}/vnc", "Session.vnc_url"),
    "view": ("GET", "/v1/sessions/{id}/view", "Session.viewer_page"),
    "recording": ("GET", "/v1/sessions/{id}/recording", "Recording.read"),
    "exec": ("POST", "/v1/sessions/{id}/exec", "Commands.run"),
    "killProcesses": ("POST", "/v1/sessions/{id}/kill", "Commands.kill_all"),
    "readFile": ("GET", "/v1/sessions/{id}/files", "Files.read"),
    "writeFile": ("PUT", "/v1/sessions/{id}/files", "Files.write"),
    "readClipboard": ("GET", "/v1/sessions/{id}/clipboard", "Clipboard.get"),
    "writeClipboard": ("PUT", "/v1/sessions/{id}/clipboard", "Clipboard.set"),
    "windows": ("GET", "/v1/sessions/{id}/windows", "Windows.list"),
    "activateWindow": ("POST", "/v1/sessions/{id}/windows/{wid}/activate", "Windows.activate"),
    "closeWindow": ("POST", "/v1/sessions/{id}/windows/{wid}/close", "Windows.close"),
    "window": ("GET", "/v1/sessions/{id}/windows/{wid}", "Windows.get"),
    "changeWindow": ("POST", "/v1/sessions/{id}/windows/{wid}/{action}", "Windows.move_resize"),
    "callTool": ("POST", "/v1/sessions/{id}/tools/{name}", "Session.call_tool"),
    "portProxyRoot": ("GET", "/v1/sessions/{id}/ports/{port}", "Ports.url"),
    "portProxyGet": ("GET", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyPost": ("POST", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyPut": ("PUT", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyPatch": ("PATCH", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyDelete": ("DELETE", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyHead": ("HEAD", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "portProxyOptions": ("OPTIONS", "/v1/sessions/{id}/ports/{port}/{path}", "Ports.request"),
    "tools": ("GET", "/v1/tools", "ToolCatalog.list"),
    "toolInfo": ("GET", "/v1/tools/{name}", "ToolCatalog.info"),
    "metrics": ("GET", "/metrics", "Client.metrics"),
    "createRun": ("POST", "/v1/runs", "Runs.start"),
    "listRuns": ("GET", "/v1/runs", "Runs.list"),
    "getRun": ("GET", "/v1/runs/{id}", "Runs.get"),
    "deleteRun": ("DELETE", "/v1/runs/{id}", "Run.cancel"),
    "createRunTicket": ("POST", "/v1/runs/{id}/tickets", "Run.ticket"),
    "runResults": ("GET", "/v1/runs/{id}/results", "Run.results"),
    "runReport": ("GET", "/v1/runs/{id}/report", "Run.report"),
    "runWatch": ("GET", "/v1/runs/{id}/watch", "Run.watch_url"),
    "runLive": ("GET", "/v1/runs/{id}/live", "Run.live"),
    "runLiveScreen": ("GET", "/v1/runs/{id}/live/{task}/screen", "Run.live_screen"),
    "runLiveView": ("GET", "/v1/runs/{id}/live/{task}/view", "Run.live_view_url"),
    "runTaskFile": ("GET", "/v1/runs/{id}/{task}/{file}", "Run.file"),
}
"""The operations the client implements: operationId to method, path and
the synchronous class's method (the asynchronous one is ``Async`` + Class)."""

LEFT_OUT: Dict[str, str] = {
    "mcpStream": "the server-to-client event stream of MCP; the client's MCP calls are request and answer",
}
"""Operations of the document the client does not implement, with the reason."""

PARAMS: Dict[str, Dict[str, str]] = {
    # operationId: {query or path parameter: the method's keyword (empty: implied by the method)}
    "screenshot": {"format": "format", "max_width": "max_width", "region": "region", "quality": "quality",
                   "settle_ms": "settle_ms", "timeout_ms": "timeout_ms", "id": ""},
    "readClipboard": {"selection": "selection", "type": "", "id": ""},
    "writeClipboard": {"selection": "selection", "type": "", "id": ""},
    "readFile": {"path": "path", "id": ""},
    "writeFile": {"path": "path", "id": ""},
    "vnc": {"ticket": "", "view_only": "view_only", "id": ""},
    "view": {"ticket": "", "view_only": "view_only", "id": ""},
    "recording": {"ticket": "", "id": ""},
    "callTool": {"name": "name", "dialect": "dialect", "id": ""},
    "tools": {"dialect": "dialect"},
    "toolInfo": {"name": "name", "dialect": "dialect", "format": ""},
    "changeWindow": {"action": "", "wid": "wid", "id": ""},
    "activateWindow": {"wid": "wid", "id": ""},
    "closeWindow": {"wid": "wid", "id": ""},
    "window": {"wid": "wid", "id": ""},
    "portProxyRoot": {"port": "port", "id": ""},
    **{op: {"port": "port", "path": "path", "id": ""} for op in (
        "portProxyGet", "portProxyPost", "portProxyPut", "portProxyPatch", "portProxyDelete", "portProxyHead",
        "portProxyOptions")},
    "runLiveScreen": {"task": "task", "max_width": "max_width", "id": ""},
    "runLiveView": {"task": "task", "id": ""},
    "runTaskFile": {"task": "task", "file": "name", "ticket": "", "id": ""},
}
"""The parameters of operations whose method takes them, by the method's
keyword. Operations not named take none but the path's ids (``id`` is the
session's or run's handle), and a ``ticket`` stands in for the token only in
browser URLs."""

REQUESTS: Dict[str, Tuple[str, Dict[str, str]]] = {
    # schema: (the method taking its properties as keywords, renames property -> keyword)
    "CreateSessionRequest": ("Sessions.create", {"ttl_s": "ttl"}),
    "TTLRequest": ("Session.set_ttl", {"ttl_s": "ttl"}),
    "ForkRequest": ("Session.fork", {}),
    "CreateRunRequest": ("Runs.start", {}),
    "ExecRequest": ("Commands.run", {"timeout_ms": "timeout", "dir": "cwd"}),
    "WindowPlacement": ("Windows.move_resize", {}),
    "InputRequest": ("Session.input", {}),
}
"""Request bodies the client builds from a method's keywords."""

ACTIONS: Dict[str, str] = {
    "move": "Mouse.move",
    "button_down": "Mouse.down",
    "button_up": "Mouse.up",
    "click": "Mouse.click",
    "key_down": "Keyboard.down",
    "key_up": "Keyboard.up",
    "key": "Keyboard.press",
    "type": "Keyboard.type",
    "scroll": "Mouse.scroll",
    "drag": "Mouse.drag",
    "wait": "Session.wait",
    "wait_idle": "Session.wait_idle",
}
"""The core actions (the ``Action`` schema's titles) and the method sending each."""

ENUMS: Dict[str, str] = {
    "ErrorDetail.code": "deskrun._errors.ERRORS",
    "DialectName": "deskrun._dialects.VENDORS",
    "Button": "deskrun._async.client.BUTTONS",
}
"""Enumerations of the document and the client's collection holding every value."""

LEFT_OUT_SCHEMAS: Dict[str, str] = {
    "JSONSchema": "a tool's argument schema, kept as the dict it is",
    "Action": "one core action; see ACTIONS",
    "Button": "an enumeration; see ENUMS",
    "DialectName": "an enumeration; see ENUMS",
}
"""Schemas with no wire class of their own, with the reason."""
