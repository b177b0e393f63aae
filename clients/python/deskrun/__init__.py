"""deskrun: the Python client of deskrun serve's host API (contract v1).

``deskrun.Client`` and ``deskrun.AsyncClient`` have the same surface::

    import deskrun

    client = deskrun.Client()          # DESKRUN_URL, DESKRUN_TOKEN
    with client.sessions.create(screen=(1280, 800)) as s:
        s.mouse.click(100, 200)
        s.keyboard.type("hello")
        png = s.screen.screenshot(max_width=1024).data
        print(s.commands.run("uname -a").stdout)

Errors are exceptions named after the contract's codes (``NotFound``,
``InvalidRequest`` with ``.field``, ``Unavailable``, ...), all subclasses of
``DeskrunError``.
"""

from __future__ import annotations

from typing import Sequence

from ._async.client import (
    AsyncAccessibility,
    AsyncBrowser,
    AsyncClient,
    AsyncClipboard,
    AsyncCommands,
    AsyncDialectTools,
    AsyncFiles,
    AsyncKeyboard,
    AsyncMCP,
    AsyncMouse,
    AsyncNamedShell,
    AsyncPorts,
    AsyncRecording,
    AsyncRun,
    AsyncRuns,
    AsyncScreen,
    AsyncSession,
    AsyncSessions,
    AsyncToolCatalog,
    AsyncWindows,
)
from ._dialects import ToolCall, declare, model_size, parse_call, shape_result
from ._errors import (
    ERRORS,
    Canceled,
    Conflict,
    DeadlineExceeded,
    DeskrunError,
    FailedPrecondition,
    Internal,
    InvalidRequest,
    MethodNotAllowed,
    NotFound,
    NotImplemented_,
    PermissionDenied,
    TooLarge,
    Unauthorized,
    Unavailable,
    error_from_response,
)
from ._runs import compare_results
from ._sync.client import (
    Accessibility,
    Browser,
    Client,
    Clipboard,
    Commands,
    DialectTools,
    Files,
    Keyboard,
    MCP,
    Mouse,
    NamedShell,
    Ports,
    Recording,
    Run,
    Runs,
    Screen,
    Session,
    Sessions,
    ToolCatalog,
    Windows,
)
from ._types import (
    ActionResult,
    ContentPart,
    DomainSummary,
    Element,
    ExecResult,
    FileInfo,
    ForkResult,
    Health,
    InputResult,
    LiveTask,
    RunEvent,
    RunInfo,
    RunLive,
    Screenshot,
    SessionInfo,
    Shell,
    TaskResult,
    Ticket,
    ToolDefinition,
    ToolList,
    ToolResult,
    ToolSummary,
    Window,
)

__version__ = "1.0.0"

NotImplementedError_ = NotImplemented_
Timeout = DeadlineExceeded
InvalidArgument = InvalidRequest


class CommandFailed(DeskrunError):
    """A command run with ``check=True`` exited non-zero or timed out; ``result``
    is its :class:`ExecResult`, ``cmd`` its argv."""

    code = "command_failed"

    def __init__(self, cmd: Sequence[str], result: ExecResult) -> None:
        why = "timed out" if result.timed_out else f"exited {result.exit_code}"
        super().__init__(f"{' '.join(cmd)}: {why}: {result.stderr.strip()[:500]}", status=200)
        self.cmd = list(cmd)
        self.result = result


__all__ = [
    "Client", "AsyncClient", "Session", "AsyncSession", "Sessions", "AsyncSessions",
    "Mouse", "AsyncMouse", "Keyboard", "AsyncKeyboard", "Screen", "AsyncScreen", "Clipboard", "AsyncClipboard",
    "Accessibility", "AsyncAccessibility", "Windows", "AsyncWindows", "Commands", "AsyncCommands",
    "NamedShell", "AsyncNamedShell", "Files", "AsyncFiles", "Browser", "AsyncBrowser", "Recording",
    "AsyncRecording", "Ports", "AsyncPorts", "DialectTools", "AsyncDialectTools", "ToolCatalog",
    "AsyncToolCatalog", "Runs", "AsyncRuns", "Run", "AsyncRun", "MCP", "AsyncMCP",
    "DeskrunError", "InvalidRequest", "InvalidArgument", "Unauthorized", "PermissionDenied", "NotFound",
    "MethodNotAllowed", "Conflict", "TooLarge", "FailedPrecondition", "Canceled", "Internal",
    "NotImplemented_", "NotImplementedError_", "Unavailable", "DeadlineExceeded", "Timeout", "CommandFailed",
    "ERRORS", "error_from_response",
    "ActionResult", "ContentPart", "DomainSummary", "Element", "ExecResult", "FileInfo", "ForkResult", "Health", "InputResult",
    "LiveTask", "RunEvent", "RunInfo", "RunLive", "Screenshot", "SessionInfo", "Shell", "TaskResult", "Ticket",
    "ToolDefinition", "ToolList", "ToolResult", "ToolSummary", "Window",
    "ToolCall", "declare", "model_size", "parse_call", "shape_result", "compare_results",
]
