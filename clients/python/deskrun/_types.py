"""Wire types of the deskrun host API (contract v1), as dataclasses.

Each class names the OpenAPI schema it mirrors in ``__schema__``; its fields
are the schema's properties with the same names (``class_`` for ``class``).
``from_json`` builds one from a decoded answer and keeps properties this
version of the client does not know in ``extra``, so a newer server never
breaks an older client.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import json
import sys
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar, Union

T = TypeVar("T", bound="Wire")


def _parse_time(s: str) -> _dt.datetime:
    # Go writes RFC 3339 with nanoseconds; fromisoformat takes microseconds.
    s = s.replace("Z", "+00:00")
    if "." in s:
        head, rest = s.split(".", 1)
        i = 0
        while i < len(rest) and rest[i].isdigit():
            i += 1
        s = head + "." + rest[:i][:6].ljust(6, "0") + rest[i:]
    return _dt.datetime.fromisoformat(s)


def _convert(tp: Any, v: Any) -> Any:
    if v is None:
        return None
    origin = typing.get_origin(tp)
    if origin is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(args[0], v) if len(args) == 1 else v
    if origin in (list, List):
        (item,) = typing.get_args(tp)
        return [_convert(item, x) for x in v]
    if origin in (dict, Dict):
        _, val = typing.get_args(tp)
        return {k: _convert(val, x) for k, x in v.items()}
    if isinstance(tp, type) and issubclass(tp, Wire):
        return tp.from_json(v)
    if tp is _dt.datetime:
        return _parse_time(v)
    if tp is bytes:
        return base64.b64decode(v)
    if tp is float and isinstance(v, int):
        return float(v)
    return v


_SHAPES: Dict[type, Tuple[Dict[str, Any], Dict[str, str]]] = {}


def _shape(cls: Type["Wire"]) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """A wire class's field types and JSON names, read once per class."""
    got = _SHAPES.get(cls)
    if got is None:
        got = _SHAPES[cls] = (typing.get_type_hints(cls, vars(sys.modules[cls.__module__])), cls.json_names())
    return got


@dataclass
class Wire:
    """Base of the wire types: ``from_json`` and ``to_json`` by field name."""

    __schema__: typing.ClassVar[str] = ""

    @classmethod
    def json_names(cls) -> Dict[str, str]:
        """Field name to JSON property name (they differ only for Python keywords)."""
        return {f.name: f.metadata.get("json", f.name) for f in dataclasses.fields(cls) if f.name != "extra"}

    @classmethod
    def from_json(cls: Type[T], doc: Any) -> T:
        """Builds the value from a decoded JSON object; unknown properties go to ``extra``."""
        if not isinstance(doc, dict):
            raise TypeError(f"{cls.__name__}: want a JSON object, got {type(doc).__name__}")
        hints, names = _shape(cls)
        kw: Dict[str, Any] = {}
        for name, wire in names.items():
            if wire in doc:
                kw[name] = _convert(hints[name], doc[wire])
        obj = cls(**kw)
        setattr(obj, "extra", {k: v for k, v in doc.items() if k not in names.values()} if len(doc) > len(kw) else {})
        return obj

    def to_json(self) -> Dict[str, Any]:
        """The value as a JSON object, without fields left at None."""
        out: Dict[str, Any] = {}
        for name, wire in self.json_names().items():
            v = getattr(self, name)
            if v is None:
                continue
            out[wire] = _to_json(v)
        return out


def _to_json(v: Any) -> Any:
    if isinstance(v, Wire):
        return v.to_json()
    if isinstance(v, list):
        return [_to_json(x) for x in v]
    if isinstance(v, dict):
        return {k: _to_json(x) for k, x in v.items()}
    if isinstance(v, _dt.datetime):
        return v.isoformat()
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    return v


def _extra() -> Any:
    return field(default_factory=dict, repr=False, compare=False)


@dataclass
class ErrorDetail(Wire):
    """An error answer's detail: its code and message."""

    __schema__ = "ErrorDetail"
    code: str = ""
    message: str = ""
    extra: Dict[str, Any] = _extra()


@dataclass
class Error(Wire):
    """The error envelope ``{"error": {...}}``."""

    __schema__ = "Error"
    error: Optional[ErrorDetail] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class Health(Wire):
    """The answer of ``GET /healthz``: ``status`` "ok" and the providers the server can use."""

    __schema__ = "Health"
    status: str = ""
    providers: Optional[List[str]] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class Screen(Wire):
    """A desktop size in pixels."""

    __schema__ = "Screen"
    width: int = 0
    height: int = 0
    extra: Dict[str, Any] = _extra()


@dataclass
class Point(Wire):
    """A position in screen pixels."""

    __schema__ = "Point"
    x: int = 0
    y: int = 0
    extra: Dict[str, Any] = _extra()


@dataclass
class Ticket(Wire):
    """A single-use ticket standing in for the token in browser URLs, valid until ``expires_at``."""

    __schema__ = "Ticket"
    ticket: str = ""
    expires_at: Optional[_dt.datetime] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class OSWorldAddrs(Wire):
    """Loopback addresses at which a session created with ``osworld=True`` answers as OSWorld's VM."""

    __schema__ = "OSWorldAddrs"
    server: str = ""
    chromium: str = ""
    vlc: str = ""
    extra: Dict[str, Any] = _extra()


@dataclass
class SessionInfo(Wire):
    """A session as the server describes it (schema ``Session``)."""

    __schema__ = "Session"
    id: str = ""
    provider: str = ""
    image: Optional[str] = None
    screen: Screen = field(default_factory=Screen)
    dialect: Optional[str] = None
    network: bool = False
    sudo: Optional[bool] = None
    runtime: Optional[str] = None
    labels: Optional[Dict[str, str]] = None
    created_at: Optional[_dt.datetime] = None
    sandbox_id: str = ""
    fork_of: Optional[str] = None
    state: str = ""
    unreachable: Optional[str] = None
    osworld: Optional[OSWorldAddrs] = None
    record: Optional[bool] = None
    recording_started_at: Optional[_dt.datetime] = None
    expires_at: Optional[_dt.datetime] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class SessionList(Wire):
    """The answer of ``GET /v1/sessions``."""

    __schema__ = "SessionList"
    sessions: List[SessionInfo] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class ForkResult(Wire):
    """The answer of a fork: the new sessions, how long saving the source took
    (it ran on meanwhile) and the size of the checkpoint they came from."""

    __schema__ = "ForkResult"
    sessions: List[SessionInfo] = field(default_factory=list)
    checkpoint_ms: int = 0
    snapshot_bytes: int = 0
    extra: Dict[str, Any] = _extra()


@dataclass
class KillResult(Wire):
    """How many processes ``commands.kill_all`` killed."""

    __schema__ = "KillResult"
    killed: int = 0
    extra: Dict[str, Any] = _extra()


@dataclass
class ActionResult(Wire):
    """The report of one core action: ``ok``, its time in microseconds, its error."""

    __schema__ = "ActionResult"
    index: int = 0
    type: str = ""
    ok: bool = False
    us: int = 0
    settled: Optional[bool] = None
    error: Optional[ErrorDetail] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class InputResult(Wire):
    """The answer of an input call: one result per action attempted."""

    __schema__ = "InputResult"
    results: List[ActionResult] = field(default_factory=list)
    error: Optional[ErrorDetail] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class InputRequest(Wire):
    """The body of an input call: core actions, each a dict whose ``type`` names it."""

    __schema__ = "InputRequest"
    actions: List[Dict[str, Any]] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class ExecResult(Wire):
    """A command's outcome: exit code, output, whether it timed out or was cut."""

    __schema__ = "ExecResult"
    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    timed_out: Optional[bool] = None
    truncated: Optional[bool] = None
    duration_ms: int = 0
    extra: Dict[str, Any] = _extra()

    @property
    def ok(self) -> bool:
        """True when the command exited 0 within its timeout."""
        return self.exit_code == 0 and not self.timed_out


@dataclass
class Box(Wire):
    """A box in screen pixels: top-left corner and size."""

    __schema__ = ""
    x: int = 0
    y: int = 0
    w: int = 0
    h: int = 0
    extra: Dict[str, Any] = _extra()


@dataclass
class Window(Wire):
    """A top-level window; ``bounds``, ``minimized`` and ``maximized`` only from ``windows.get``."""

    __schema__ = "Window"
    id: int = 0
    title: str = ""
    class_: Optional[str] = field(default=None, metadata={"json": "class"})
    instance: Optional[str] = None
    pid: Optional[int] = None
    active: bool = False
    bounds: Optional[Box] = None
    minimized: Optional[bool] = None
    maximized: Optional[bool] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class WindowList(Wire):
    """The answer of the window list."""

    __schema__ = "WindowList"
    windows: List[Window] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class WindowPlacement(Wire):
    """A window's new top-left corner and size; a field left None keeps its value."""

    __schema__ = "WindowPlacement"
    x: Optional[int] = None
    y: Optional[int] = None
    width: Optional[int] = None
    height: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class ToolSummary(Wire):
    """Level 1 of a tool's definition: name, description, category, argument schema."""

    __schema__ = "ToolSummary"
    name: str = ""
    description: str = ""
    category: Optional[str] = None
    input_schema: Dict[str, Any] = field(default_factory=dict)
    extra: Dict[str, Any] = _extra()


@dataclass
class ToolList(Wire):
    """A dialect's tools at level 1."""

    __schema__ = "ToolList"
    dialect: str = ""
    tools: List[ToolSummary] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class ToolDefinition(Wire):
    """A tool's whole definition (level 2, the OpenAkita format)."""

    __schema__ = "ToolDefinition"
    name: str = ""
    category: Optional[str] = None
    description: str = ""
    detail: Optional[str] = None
    triggers: Optional[List[str]] = None
    prerequisites: Optional[List[str]] = None
    examples: Optional[List[Dict[str, Any]]] = None
    warnings: Optional[List[str]] = None
    related_tools: Optional[List[Dict[str, Any]]] = None
    workflow: Optional[Dict[str, Any]] = None
    input_schema: Dict[str, Any] = field(default_factory=dict)
    extra: Dict[str, Any] = _extra()


@dataclass
class ContentPart(Wire):
    """One part of a tool result: text, or an image (``data`` holds its bytes)."""

    __schema__ = "ContentPart"
    type: str = ""
    text: Optional[str] = None
    mime_type: Optional[str] = None
    data: Optional[bytes] = None
    width: Optional[int] = None
    height: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class ToolResult(Wire):
    """A tool call's result in deskrun's neutral shape; the dialect helpers turn
    it into a vendor's shape."""

    __schema__ = "ToolResult"
    content: List[ContentPart] = field(default_factory=list)
    is_error: Optional[bool] = None
    structured: Any = None
    done: Optional[bool] = None
    extra: Dict[str, Any] = _extra()

    @property
    def text(self) -> str:
        """The text parts, one per line."""
        return "\n".join(p.text or "" for p in self.content if p.type == "text")

    @property
    def images(self) -> List[ContentPart]:
        """The image parts."""
        return [p for p in self.content if p.type == "image"]


@dataclass
class DomainSummary(Wire):
    """A run's figures for one domain (``all`` is the whole run)."""

    __schema__ = "DomainSummary"
    domain: str = ""
    tasks: int = 0
    passed: int = 0
    errors: int = 0
    skipped: Optional[int] = None
    success_rate: float = 0.0
    mean_score: float = 0.0
    p50_ms: int = 0
    p95_ms: int = 0
    p50_steps: int = 0
    p95_steps: int = 0
    trials: Optional[int] = None
    distinct_tasks: Optional[int] = None
    pass_at_k: Optional[float] = None
    pass_hat_k: Optional[float] = None
    mean_score_ci: Optional[List[float]] = None
    input_tokens: Optional[int] = None
    output_tokens: Optional[int] = None
    cache_read_tokens: Optional[int] = None
    cache_write_tokens: Optional[int] = None
    cost_usd: Optional[float] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class CreateRunRequest(Wire):
    """The request that started a run, defaults applied (``Run.request``)."""

    __schema__ = "CreateRunRequest"
    tasks: str = ""
    agent: Optional[str] = None
    agent_token: Optional[str] = None
    trials: Optional[int] = None
    parallel: Optional[int] = None
    max_steps: Optional[int] = None
    timeout_ms: Optional[int] = None
    retries: Optional[int] = None
    provider: Optional[str] = None
    image: Optional[str] = None
    screen: Optional[Screen] = None
    runtime: Optional[str] = None
    snapshots: Optional[bool] = None
    fork_trials: Optional[bool] = None
    only: Optional[List[str]] = None
    record: Optional[bool] = None
    cache: Optional[str] = None
    url_map: Optional[str] = None
    offline: Optional[bool] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class RunInfo(Wire):
    """A run's state (schema ``Run``): counts while it goes, ``summary`` once it ended."""

    __schema__ = "Run"
    id: str = ""
    status: str = ""
    created_at: Optional[_dt.datetime] = None
    finished_at: Optional[_dt.datetime] = None
    out: str = ""
    request: CreateRunRequest = field(default_factory=CreateRunRequest)
    total: int = 0
    done: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: Optional[int] = None
    summary: Optional[List[DomainSummary]] = None
    osworld: Optional[str] = None
    tasks_sha256: Optional[str] = None
    error: Optional[str] = None
    extra: Dict[str, Any] = _extra()

    @property
    def ended(self) -> bool:
        """True once the run is no longer running."""
        return self.status != "running"


@dataclass
class RunList(Wire):
    """The answer of ``GET /v1/runs``."""

    __schema__ = "RunList"
    runs: List[RunInfo] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class LiveTask(Wire):
    """A task a run has under way."""

    __schema__ = "LiveTask"
    task: str = ""
    id: str = ""
    instruction: str = ""
    session: Optional[str] = None
    phase: str = ""
    step: int = 0
    started_at: Optional[_dt.datetime] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class RunLive(Wire):
    """A run and the tasks it runs now."""

    __schema__ = "RunLive"
    run: RunInfo = field(default_factory=RunInfo)
    tasks: List[LiveTask] = field(default_factory=list)
    extra: Dict[str, Any] = _extra()


@dataclass
class TaskResult(Wire):
    """One line of a run's results.jsonl: a task's score and status (``passed``,
    ``failed``, ``error``, ``skipped``, ...). Fields beyond these are in ``extra``."""

    __schema__ = ""
    id: str = ""
    domain: str = ""
    score: float = 0.0
    status: str = ""
    error: Optional[str] = None
    duration_ms: int = 0
    steps: int = 0
    attempts: int = 0
    trial: Optional[int] = None
    extra: Dict[str, Any] = _extra()


@dataclass
class Screenshot:
    """A screenshot: the image's bytes and what the server said of it.

    ``scale`` is the factor applied to the screen (1 unscaled), ``screen`` the
    real screen size, ``settled``/``settle_ms`` the settle wait's outcome when
    one was asked for.
    """

    data: bytes
    mime_type: str
    width: int
    height: int
    scale: float
    screen: Tuple[int, int]
    settled: Optional[bool] = None
    settle_ms: Optional[int] = None

    def image(self) -> Any:
        """The screenshot as a ``PIL.Image.Image`` (needs Pillow)."""
        try:
            from PIL import Image
        except ImportError as e:  # pragma: no cover - Pillow is optional
            raise RuntimeError("Screenshot.image needs Pillow (apt-get install python3-pil)") from e
        import io

        img = Image.open(io.BytesIO(self.data))
        img.load()
        return img

    def to_screen(self, x: float, y: float) -> Tuple[int, int]:
        """Maps a point of this image to screen pixels (undoes ``max_width`` scaling)."""
        if self.scale <= 0:
            return int(x), int(y)
        return int(round(x / self.scale)), int(round(y / self.scale))


@dataclass
class FileInfo:
    """An entry of a folder listing: its path, kind (``file``, ``dir``, ``link``,
    ``other``), size in bytes and modification time."""

    path: str
    name: str
    kind: str
    size: int
    mtime: float


@dataclass
class Element:
    """An interactable accessible element: ``index`` counts from 1 as in
    set-of-marks, ``id`` names it while its application runs, ``bounds`` is
    ``(x, y, w, h)`` in screen pixels."""

    index: int
    id: str
    role: str
    name: str
    bounds: Tuple[int, int, int, int]
    value: Optional[str] = None
    states: List[str] = field(default_factory=list)
    app: Optional[str] = None

    @property
    def center(self) -> Tuple[int, int]:
        """The centre of the element's box."""
        x, y, w, h = self.bounds
        return x + w // 2, y + h // 2


@dataclass
class Shell:
    """The state of a named shell: its working directory, last command, whether
    it still runs, its exit code once it finished and its output so far."""

    id: str
    running: bool
    output: str
    dir: Optional[str] = None
    command: Optional[str] = None
    exit_code: Optional[int] = None


@dataclass
class RunEvent:
    """A run's progress, as ``Run.events()`` yields it: ``kind`` is ``"result"``
    (a task's result arrived; ``result`` is set), ``"progress"`` (the counts
    changed) or ``"end"`` (the run ended; last event). ``run`` is the run's
    state at that moment."""

    kind: str
    run: RunInfo
    result: Optional[TaskResult] = None


def dumps(v: Any) -> bytes:
    """Encodes a request body as compact JSON."""
    return json.dumps(_to_json(v), separators=(",", ":")).encode()


_WIRE: Tuple[Type[Wire], ...] = (
        ErrorDetail, Error, Health, Screen, Point, Ticket, OSWorldAddrs, SessionInfo, SessionList, ForkResult,
        KillResult, ActionResult, InputResult, InputRequest, ExecResult, Window, WindowList,
        WindowPlacement, ToolSummary, ToolList, ToolDefinition, ContentPart, ToolResult,
        DomainSummary, CreateRunRequest, RunInfo, RunList, LiveTask, RunLive,
)

SCHEMAS: Dict[str, Type[Wire]] = {c.__schema__: c for c in _WIRE}
"""The wire class of each OpenAPI schema the client decodes or encodes as a whole."""
