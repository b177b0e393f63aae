"""The asynchronous client of deskrun serve's host API.

This file is the one source of both clients: ``scripts/unasync.py`` writes
``deskrun/_sync/client.py`` from it (``async def`` becomes ``def``, ``Async``
names lose the prefix, ``# async-only`` blocks go, ``# sync-only`` blocks
come in), and ``make python-check`` fails when the two differ from that.
"""

from __future__ import annotations

import json
import os
import posixpath
import shlex
import urllib.parse
from typing import Any, AsyncIterator, BinaryIO, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import httpx

from .._compat import async_sleep as _sleep
from .._compat import async_transport as _transport
from .._dialects import VENDORS, ToolCall, declare, model_size, parse_call, shape_result
from .._errors import (
    DeadlineExceeded,
    DeskrunError,
    InvalidRequest,
    NotFound,
    Unavailable,
    error_from_response,
)
from .._types import (
    Element,
    ExecResult,
    FileInfo,
    ForkResult,
    Health,
    InputResult,
    KillResult,
    Point,
    RunEvent,
    RunInfo,
    RunList,
    RunLive,
    Screenshot,
    SessionInfo,
    SessionList,
    Shell,
    TaskResult,
    Ticket,
    ToolDefinition,
    ToolList,
    ToolResult,
    Window,
    WindowList,
    dumps,
)

DEFAULT_URL = "http://127.0.0.1:8080"
BUTTONS = ("left", "middle", "right")
"""The mouse buttons the core actions take."""
_IDEMPOTENT = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}
_CHUNK = 1 << 20
Source = Union[bytes, str, "os.PathLike[str]", BinaryIO]


def _q(v: str) -> str:
    return urllib.parse.quote(v, safe="")


class AsyncClient:
    """A client of a deskrun server (``deskrun serve``).

    ``url`` defaults to ``$DESKRUN_URL``, then ``http://127.0.0.1:8080``;
    ``token`` to ``$DESKRUN_TOKEN`` (sent as a bearer token when set).
    ``timeout`` (seconds) bounds every call that names no timeout of its own;
    starting a sandbox and commands with a long ``timeout_ms`` get theirs.
    ``retries`` is how many more times a call is sent after the server did not
    answer or answered ``unavailable`` (503), for calls that are safe to repeat
    (GET, PUT, DELETE, and any call whose connection was never made), with a
    doubling pause from ``backoff`` seconds. Errors are subclasses of
    :class:`deskrun.DeskrunError` named after the contract's codes.

    Use it as a context manager, or call ``close`` when done. Safe for
    concurrent use (the synchronous client by threads, the asynchronous one
    by the tasks of its event loop).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, timeout: float = 60.0,
                 retries: int = 2, backoff: float = 0.25, http: Optional[httpx.AsyncClient] = None) -> None:
        self.url = (url or os.environ.get("DESKRUN_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else (os.environ.get("DESKRUN_TOKEN") or None)
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        headers = {"User-Agent": "deskrun-python"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        self._own = http is None
        limits = httpx.Limits(max_connections=256, max_keepalive_connections=64)
        self._http = http or httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits,
                                               transport=_transport(limits))
        if http is not None and self.token:
            self._http.headers["Authorization"] = "Bearer " + self.token
        self.sessions = AsyncSessions(self)
        """Start, list and find sessions."""
        self.tools = AsyncToolCatalog(self)
        """The dialects' tool definitions."""
        self.runs = AsyncRuns(self)
        """Task suite runs on the server."""
        self.mcp = AsyncMCP(self)
        """The server's MCP endpoint."""

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def close(self) -> None:
        """Closes the connections (not the sessions)."""
        if self._own:
            await self._http.aclose()

    async def health(self) -> Health:
        """``GET /healthz``: the server is up, with the providers it can use."""
        return Health.from_json(await self._json("GET", "/healthz"))

    async def metrics(self) -> str:
        """``GET /metrics``: the server's Prometheus metrics as text."""
        r = await self._request("GET", "/metrics")
        return r.text

    def abs_url(self, path: str) -> str:
        """The server's URL of ``path`` (``/v1/...``)."""
        return self.url + path

    # -- transport ---------------------------------------------------------

    async def _request(self, method: str, path: str, *, params: Optional[Mapping[str, Any]] = None,
                       body: Any = None, content: Any = None, headers: Optional[Dict[str, str]] = None,
                       timeout: Optional[float] = None, retry: Optional[bool] = None) -> httpx.Response:
        """Sends one call and answers its response, raising the contract's
        error for a non-2xx answer; retries as the client's doc says."""
        if body is not None:
            content = dumps(body)
            headers = dict(headers or {}, **{"Content-Type": "application/json"})
        q = {k: (str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (params or {}).items() if v is not None}
        t = self.timeout if timeout is None else timeout
        safe = method in _IDEMPOTENT if retry is None else retry
        attempt = 0
        while True:
            try:
                r = await self._http.request(method, self.url + path, params=q or None, content=content,
                                             headers=headers, timeout=t)
            except httpx.TimeoutException as e:
                if isinstance(e, httpx.ConnectTimeout) and attempt < self.retries:
                    attempt += 1
                    await _sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise DeadlineExceeded(f"{method} {path}: no answer within {t} s", status=0) from e
            except httpx.TransportError as e:
                # A refused connection never sent the request: safe to repeat.
                if (safe or isinstance(e, httpx.ConnectError)) and attempt < self.retries and _replayable(content):
                    attempt += 1
                    await _sleep(self.backoff * 2 ** (attempt - 1))
                    continue
                raise Unavailable(f"deskrun server unreachable: {method} {path}: {e}", status=0) from e
            if r.status_code < 300:
                return r
            err = error_from_response(r.status_code, r.content)
            err.response = r  # type: ignore[attr-defined]
            if err.retryable and safe and attempt < self.retries and _replayable(content):
                attempt += 1
                await _sleep(self.backoff * 2 ** (attempt - 1))
                continue
            raise err

    async def _json(self, method: str, path: str, **kw: Any) -> Any:
        r = await self._request(method, path, **kw)
        if r.status_code == 204 or not r.content:
            return None
        return r.json()


def _replayable(content: Any) -> bool:
    return content is None or isinstance(content, (bytes, str))


class AsyncSessions:
    """The sessions of a server: ``create``, ``list``, ``get``."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def _create(self, *, image: Optional[str] = None, screen: Optional[Tuple[int, int]] = None,
                      provider: Optional[str] = None, dialect: Optional[str] = None,
                      env: Optional[Dict[str, str]] = None, network: Optional[bool] = None,
                      sudo: Optional[bool] = None, runtime: Optional[str] = None,
                      labels: Optional[Dict[str, str]] = None, osworld: Optional[bool] = None,
                      record: Optional[bool] = None, ttl: Optional[int] = None,
                      timeout: float = 300.0) -> "AsyncSession":
        body: Dict[str, Any] = {"provider": provider, "image": image, "dialect": dialect, "env": env,
                                "network": network, "sudo": sudo, "runtime": runtime, "labels": labels,
                                "osworld": osworld, "record": record, "ttl_s": ttl}
        if screen is not None:
            body["screen"] = {"width": int(screen[0]), "height": int(screen[1])}
        body = {k: v for k, v in body.items() if v is not None}
        doc = await self._c._json("POST", "/v1/sessions", body=body, timeout=timeout, retry=False)
        return AsyncSession(self._c, SessionInfo.from_json(doc))

    # async-only {
    def create(self, *, image: Optional[str] = None, screen: Optional[Tuple[int, int]] = None,
               provider: Optional[str] = None, dialect: Optional[str] = None,
               env: Optional[Dict[str, str]] = None, network: Optional[bool] = None,
               sudo: Optional[bool] = None, runtime: Optional[str] = None,
               labels: Optional[Dict[str, str]] = None, osworld: Optional[bool] = None,
               record: Optional[bool] = None, ttl: Optional[int] = None, timeout: float = 300.0) -> "_Creating":
        """Starts a sandbox (``POST /v1/sessions``) and returns its session once the
        desktop answers. Use ``async with client.sessions.create(...) as s:`` to
        delete it on exit, or ``s = await client.sessions.create(...)``.

        ``image`` (docker), ``screen`` as ``(width, height)`` (default 1280x800),
        ``provider`` (``local``, ``docker``; default the server's), ``dialect``
        (of tool calls naming none), ``env``, ``network`` (egress), ``sudo``,
        ``runtime`` (e.g. ``runsc``), ``labels``, ``osworld`` (also serve OSWorld's
        routes), ``record`` (a video of the desktop), ``ttl`` (seconds after which
        the server deletes it; see ``set_ttl``). Bad fields raise
        :class:`deskrun.InvalidRequest` naming the field; a provider that cannot
        start one raises :class:`deskrun.Unavailable`. Not retried.
        """
        return _Creating(self._create(image=image, screen=screen, provider=provider, dialect=dialect, env=env,
                                      network=network, sudo=sudo, runtime=runtime, labels=labels,
                                      osworld=osworld, record=record, ttl=ttl, timeout=timeout))
    # }
    # sync-only {
    # def create(self, *, image: Optional[str] = None, screen: Optional[Tuple[int, int]] = None,
    #            provider: Optional[str] = None, dialect: Optional[str] = None,
    #            env: Optional[Dict[str, str]] = None, network: Optional[bool] = None,
    #            sudo: Optional[bool] = None, runtime: Optional[str] = None,
    #            labels: Optional[Dict[str, str]] = None, osworld: Optional[bool] = None,
    #            record: Optional[bool] = None, ttl: Optional[int] = None, timeout: float = 300.0) -> "Session":
    #     """Starts a sandbox (``POST /v1/sessions``) and returns its session once the
    #     desktop answers. Use ``with client.sessions.create(...) as s:`` to delete
    #     it on exit.
    #
    #     ``image`` (docker), ``screen`` as ``(width, height)`` (default 1280x800),
    #     ``provider`` (``local``, ``docker``; default the server's), ``dialect``
    #     (of tool calls naming none), ``env``, ``network`` (egress), ``sudo``,
    #     ``runtime`` (e.g. ``runsc``), ``labels``, ``osworld`` (also serve OSWorld's
    #     routes), ``record`` (a video of the desktop), ``ttl`` (seconds after which
    #     the server deletes it; see ``set_ttl``). Bad fields raise
    #     :class:`deskrun.InvalidRequest` naming the field; a provider that cannot
    #     start one raises :class:`deskrun.Unavailable`. Not retried.
    #     """
    #     return self._create(image=image, screen=screen, provider=provider, dialect=dialect, env=env,
    #                         network=network, sudo=sudo, runtime=runtime, labels=labels,
    #                         osworld=osworld, record=record, ttl=ttl, timeout=timeout)
    # }

    async def list(self) -> List["AsyncSession"]:
        """``GET /v1/sessions``: the sessions, by creation time."""
        doc = await self._c._json("GET", "/v1/sessions")
        return [AsyncSession(self._c, i) for i in SessionList.from_json(doc).sessions]

    async def get(self, id: str) -> "AsyncSession":
        """``GET /v1/sessions/{id}``: the session ``id``; :class:`deskrun.NotFound` if none."""
        return AsyncSession(self._c, SessionInfo.from_json(await self._c._json("GET", f"/v1/sessions/{_q(id)}")))

    def attach(self, id: str) -> "AsyncSession":
        """A handle on the session ``id`` without asking the server (its ``info`` is
        a stub until ``refresh``)."""
        return AsyncSession(self._c, SessionInfo(id=id))


# async-only {
class _Creating:
    """What ``AsyncSessions.create`` returns: awaitable for the session, or an
    async context manager deleting it on exit."""

    def __init__(self, coro: Any) -> None:
        self._coro = coro
        self._s: Optional[AsyncSession] = None

    def __await__(self) -> Any:
        return self._coro.__await__()

    async def __aenter__(self) -> "AsyncSession":
        s: AsyncSession = await self._coro
        self._s = s
        return s

    async def __aexit__(self, *exc: Any) -> None:
        if self._s is not None:
            await self._s.__aexit__(*exc)
# }


class AsyncSession:
    """A running session: a sandboxed desktop and its devices.

    ``mouse``, ``keyboard``, ``screen``, ``clipboard``, ``accessibility``,
    ``windows``, ``commands`` (also ``shell``), ``files``, ``browser``,
    ``recording`` and ``ports`` act on it; ``tools(dialect)`` speaks a model
    vendor's tool calls; ``ticket``/``viewer_url`` open its live view. As a
    context manager it deletes the session on exit.
    """

    def __init__(self, client: AsyncClient, info: SessionInfo) -> None:
        self._c = client
        self.info = info
        """The session as the server last described it."""
        self.id = info.id
        """The session's id."""
        self._path = f"/v1/sessions/{_q(info.id)}"
        self.mouse = AsyncMouse(self)
        self.keyboard = AsyncKeyboard(self)
        self.screen = AsyncScreen(self)
        self.clipboard = AsyncClipboard(self)
        self.accessibility = AsyncAccessibility(self)
        self.windows = AsyncWindows(self)
        self.commands = AsyncCommands(self)
        self.shell = self.commands
        self.files = AsyncFiles(self)
        self.browser = AsyncBrowser(self)
        self.recording = AsyncRecording(self)
        self.ports = AsyncPorts(self)
        self.last_fork: Optional[ForkResult] = None
        """The server's answer to this session's last ``fork``."""

    def __repr__(self) -> str:
        return f"<deskrun session {self.id}>"

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.delete()
        except NotFound:
            pass

    async def refresh(self) -> SessionInfo:
        """``GET /v1/sessions/{id}``: reads the session's state again into ``info``."""
        self.info = SessionInfo.from_json(await self._c._json("GET", self._path))
        return self.info

    async def delete(self) -> None:
        """``DELETE /v1/sessions/{id}``: stops the sandbox; :class:`deskrun.NotFound` if gone."""
        await self._c._request("DELETE", self._path, timeout=max(self._c.timeout, 120.0))

    async def fork(self, count: int = 1) -> List["AsyncSession"]:
        """``POST .../fork``: ``count`` (1 to 16) new sessions from this one's current
        state, each with its own id, sandbox and token (``info.fork_of`` names
        this one); they are deleted like any session. The checkpoint's figures
        are in ``last_fork``. A provider that cannot snapshot raises
        :class:`deskrun.NotImplemented_` naming the one that can."""
        res = ForkResult.from_json(await self._c._json("POST", self._path + "/fork", body={"count": count},
                                                       timeout=max(self._c.timeout, 300.0), retry=False))
        self.last_fork = res
        return [AsyncSession(self._c, i) for i in res.sessions]

    async def pause(self) -> SessionInfo:
        """``POST .../pause``: saves the session to disk and frees its memory; its
        calls answer :class:`deskrun.Conflict` until ``resume``. Needs a provider
        that snapshots, as ``fork`` does."""
        self.info = SessionInfo.from_json(await self._c._json("POST", self._path + "/pause",
                                                              timeout=max(self._c.timeout, 300.0), retry=False))
        return self.info

    async def resume(self) -> SessionInfo:
        """``POST .../resume``: restores a paused session as it was;
        :class:`deskrun.Conflict` for a session not paused."""
        self.info = SessionInfo.from_json(await self._c._json("POST", self._path + "/resume",
                                                              timeout=max(self._c.timeout, 300.0), retry=False))
        return self.info

    async def set_ttl(self, ttl: int) -> SessionInfo:
        """``POST .../ttl``: the session now ends ``ttl`` seconds from this call (the
        server deletes it then); answers the session with its new ``expires_at``."""
        self.info = SessionInfo.from_json(await self._c._json("POST", self._path + "/ttl", body={"ttl_s": ttl},
                                                              retry=False))
        return self.info

    async def input(self, actions: Sequence[Mapping[str, Any]], *, timeout: Optional[float] = None) -> InputResult:
        """``POST .../input``: runs core actions in order (each a dict whose ``type``
        names it, as in the contract), stopping at the first the desktop refuses
        (:class:`deskrun.FailedPrecondition`, with the report as ``.result``).
        Every action is checked first: :class:`deskrun.InvalidRequest` names the
        field (``actions[0].x``)."""
        try:
            doc = await self._c._json("POST", self._path + "/input", body={"actions": list(actions)},
                                      timeout=timeout, retry=False)
        except DeskrunError as e:
            r = getattr(e, "response", None)
            if r is not None and r.content.startswith(b"{") and b'"results"' in r.content:
                e.result = InputResult.from_json(r.json())  # type: ignore[attr-defined]
            raise
        return InputResult.from_json(doc)

    async def wait(self, ms: int) -> None:
        """Waits ``ms`` milliseconds on the desktop's side (the ``wait`` action, at most 60000)."""
        await self.input([{"type": "wait", "ms": ms}], timeout=ms / 1000 + self._c.timeout)

    async def wait_idle(self, ms: int = 300, *, timeout_ms: int = 2000, commands: bool = False,
                        processes: bool = False) -> bool:
        """Waits until nothing on the screen changed for ``ms`` (and, with
        ``commands``, no command typed into a terminal still runs; with
        ``processes``, the desktop's programs have first taken in their input),
        at most ``timeout_ms``; True when the screen settled."""
        act: Dict[str, Any] = {"type": "wait_idle", "ms": ms, "timeout_ms": timeout_ms}
        if commands:
            act["commands"] = True
        if processes:
            act["processes"] = True
        r = await self.input([act], timeout=timeout_ms / 1000 + self._c.timeout)
        return bool(r.results and r.results[0].settled)

    async def call_tool(self, name: str, args: Optional[Mapping[str, Any]] = None, *,
                        dialect: Optional[str] = None, timeout: Optional[float] = None) -> ToolResult:
        """``POST .../tools/{name}``: calls a tool of a dialect (default the
        session's) with its arguments as the model writes them. Arguments the
        dialect refuses and actions the desktop refused are a result with
        ``is_error`` set, not an exception."""
        doc = await self._c._json("POST", f"{self._path}/tools/{_q(name)}", params={"dialect": dialect},
                                  body=dict(args or {}), timeout=timeout, retry=False)
        return ToolResult.from_json(doc)

    def tools(self, dialect: Optional[str] = None) -> "AsyncDialectTools":
        """The tools of a dialect on this session, in a model vendor's shapes:
        ``anthropic``, ``anthropic_normalized``, ``openai``, ``osworld``,
        ``hermes``, ``pyautogui``, ``sandbox``, or ``mcp`` (the session's dialect
        in MCP's shapes). ``definitions()`` gives the tool list to hand the model,
        ``call(item)`` runs a model's tool call and answers the vendor's result."""
        name = dialect or self.info.dialect or "anthropic"
        if name not in VENDORS:
            raise InvalidRequest(f"dialect: {name!r} is not one of {', '.join(VENDORS)}")
        return AsyncDialectTools(self, name)

    async def ticket(self) -> Ticket:
        """``POST .../tickets``: a single-use ticket (60 s) for the live view's and
        the recording's browser URLs."""
        return Ticket.from_json(await self._c._json("POST", self._path + "/tickets", retry=False))

    async def viewer_url(self, *, view_only: bool = False) -> str:
        """The live viewer page's URL (``GET .../view``) with a fresh ticket, for a
        browser: open it within 60 s."""
        t = await self.ticket()
        q = {"ticket": t.ticket}
        if view_only:
            q["view_only"] = "1"
        return self._c.abs_url(self._path + "/view?" + urllib.parse.urlencode(q))

    async def vnc_url(self, *, view_only: bool = False) -> str:
        """The live view's WebSocket URL (``GET .../vnc``, RFB over WebSocket,
        subprotocol ``binary``) with a fresh ticket, for noVNC and websockify clients."""
        t = await self.ticket()
        q = {"ticket": t.ticket}
        if view_only:
            q["view_only"] = "1"
        base = "ws" + self._c.url[len("http"):] if self._c.url.startswith("http") else self._c.url
        return base + self._path + "/vnc?" + urllib.parse.urlencode(q)

    async def viewer_page(self, *, view_only: bool = False) -> str:
        """``GET .../view`` with the token: the viewer page's HTML."""
        return (await self._c._request("GET", self._path + "/view",
                                       params={"view_only": "1" if view_only else None})).text


class AsyncMouse:
    """The pointer: ``move``, ``click``, ``double_click``, ``drag``, ``scroll``,
    ``down``/``up``, ``position``. Coordinates are screen pixels; buttons are
    ``left``, ``middle``, ``right``."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def move(self, x: int, y: int) -> None:
        """Moves the pointer to (x, y)."""
        await self._s.input([{"type": "move", "x": x, "y": y}])

    async def click(self, x: Optional[int] = None, y: Optional[int] = None, *, button: str = "left",
                    count: int = 1) -> None:
        """Clicks ``button`` ``count`` times, at (x, y) when given, else where the pointer is."""
        a: Dict[str, Any] = {"type": "click", "button": button, "count": count}
        if x is not None and y is not None:
            a["x"], a["y"] = x, y
        await self._s.input([a])

    async def double_click(self, x: Optional[int] = None, y: Optional[int] = None, *, button: str = "left") -> None:
        """Double-clicks, at (x, y) when given."""
        await self.click(x, y, button=button, count=2)

    async def right_click(self, x: Optional[int] = None, y: Optional[int] = None) -> None:
        """Clicks the right button, at (x, y) when given."""
        await self.click(x, y, button="right")

    async def drag(self, path: Sequence[Tuple[int, int]], *, button: str = "left") -> None:
        """Presses ``button`` at the first point, moves through the others and
        releases it at the last (at least two points)."""
        await self._s.input([{"type": "drag", "path": [[int(x), int(y)] for x, y in path], "button": button}])

    async def scroll(self, dy: int = 0, dx: int = 0, *, x: Optional[int] = None, y: Optional[int] = None) -> None:
        """Turns the wheel ``dy`` notches (positive: down) and ``dx`` (positive:
        right), first moving to (x, y) when given."""
        a: Dict[str, Any] = {"type": "scroll", "dx": dx, "dy": dy}
        if x is not None and y is not None:
            a["x"], a["y"] = x, y
        await self._s.input([a])

    async def down(self, button: str = "left") -> None:
        """Presses ``button`` and holds it."""
        await self._s.input([{"type": "button_down", "button": button}])

    async def up(self, button: str = "left") -> None:
        """Releases ``button``."""
        await self._s.input([{"type": "button_up", "button": button}])

    async def position(self) -> Tuple[int, int]:
        """``GET .../cursor``: the pointer's position."""
        p = Point.from_json(await self._s._c._json("GET", self._s._path + "/cursor"))
        return p.x, p.y


class AsyncKeyboard:
    """The keyboard: ``type`` any Unicode text, ``press`` a key or a chord,
    ``hotkey``, ``down``/``up``. Key names are X keysym names (``Return``,
    ``Control_L``, ``a``, ``F5``) or the usual aliases (``ctrl``, ``enter``,
    ``cmd``, ``pgdn``)."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def type(self, text: str) -> None:
        """Types ``text`` exactly (any Unicode)."""
        await self._s.input([{"type": "type", "text": text}])

    async def press(self, keys: Union[str, Sequence[str]], *, repeat: int = 1) -> None:
        """Presses a key, or a chord given as a list or as ``"ctrl+shift+t"``,
        ``repeat`` times."""
        ks = keys.split("+") if isinstance(keys, str) and len(keys) > 1 and "+" in keys else (
            [keys] if isinstance(keys, str) else list(keys))
        await self._s.input([{"type": "key", "keys": ks, "repeat": repeat}])

    async def hotkey(self, *keys: str) -> None:
        """Presses the keys in order and releases them in reverse: ``hotkey("ctrl", "s")``."""
        await self._s.input([{"type": "key", "keys": list(keys)}])

    async def down(self, key: str) -> None:
        """Presses ``key`` and holds it."""
        await self._s.input([{"type": "key_down", "key": key}])

    async def up(self, key: str) -> None:
        """Releases ``key``."""
        await self._s.input([{"type": "key_up", "key": key}])


class AsyncScreen:
    """Screenshots of the desktop."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def screenshot(self, *, format: str = "png", max_width: Optional[int] = None,
                         region: Optional[Tuple[int, int, int, int]] = None, quality: Optional[int] = None,
                         settle_ms: Optional[int] = None, timeout_ms: Optional[int] = None) -> Screenshot:
        """``GET .../screenshot``: the screen as PNG or JPEG (``quality`` 1-100).
        ``region`` ``(x0, y0, x1, y1)`` crops first (x1, y1 exclusive);
        ``max_width`` scales down keeping the aspect ratio (``Screenshot.scale``
        says by how much, ``to_screen`` maps a point back). ``settle_ms`` waits
        until the screen was quiet that long, at most ``timeout_ms`` (a settled
        observation; ``Screenshot.settled`` says which came first)."""
        params: Dict[str, Any] = {"format": format, "max_width": max_width, "quality": quality,
                                  "settle_ms": settle_ms, "timeout_ms": timeout_ms}
        if region is not None:
            params["region"] = ",".join(str(int(v)) for v in region)
        t = None if timeout_ms is None else timeout_ms / 1000 + self._s._c.timeout
        r = await self._s._c._request("GET", self._s._path + "/screenshot", params=params, timeout=t)
        return _screenshot(r)

    async def image(self, **kw: Any) -> Any:
        """The screenshot as a ``PIL.Image.Image`` (needs Pillow); takes
        ``screenshot``'s keywords."""
        return (await self.screenshot(**kw)).image()

    async def png(self, **kw: Any) -> bytes:
        """The screenshot's bytes; takes ``screenshot``'s keywords."""
        return (await self.screenshot(**kw)).data

    async def size(self) -> Tuple[int, int]:
        """The screen's size in pixels."""
        info = await self._s.refresh()
        return info.screen.width, info.screen.height


def _screenshot(r: httpx.Response) -> Screenshot:
    mime = r.headers.get("content-type", "image/png").split(";")[0]
    sw, _, sh = r.headers.get("x-deskrun-screen", "0x0").partition("x")
    scale = float(r.headers.get("x-deskrun-scale", "1") or 1)
    w, h = _image_size(r.content, mime)
    settled = r.headers.get("x-deskrun-settled")
    sms = r.headers.get("x-deskrun-settle-ms")
    return Screenshot(data=r.content, mime_type=mime, width=w, height=h, scale=scale,
                      screen=(int(sw or 0), int(sh or 0)),
                      settled=None if settled is None else settled == "true",
                      settle_ms=None if sms is None else int(sms))


def _image_size(b: bytes, mime: str) -> Tuple[int, int]:
    if b[:8] == b"\x89PNG\r\n\x1a\n" and len(b) >= 24:
        return int.from_bytes(b[16:20], "big"), int.from_bytes(b[20:24], "big")
    i = 2
    while i + 9 < len(b):  # JPEG: the first SOFn marker holds the size
        if b[i] != 0xFF:
            i += 1
            continue
        m = b[i + 1]
        if m in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            return int.from_bytes(b[i + 7:i + 9], "big"), int.from_bytes(b[i + 5:i + 7], "big")
        i += 2 + int.from_bytes(b[i + 2:i + 4], "big")
    return 0, 0


class AsyncClipboard:
    """The clipboard (an X selection: ``clipboard`` or ``primary``) as text or a PNG image."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def get(self, *, selection: str = "clipboard") -> str:
        """``GET .../clipboard``: the selection's text (empty when nobody owns it)."""
        r = await self._s._c._request("GET", self._s._path + "/clipboard", params={"selection": selection, "type": "text"})
        return r.content.decode("utf-8")

    async def set(self, text: str, *, selection: str = "clipboard") -> None:
        """``PUT .../clipboard``: makes the selection hold ``text``."""
        await self._s._c._request("PUT", self._s._path + "/clipboard", params={"selection": selection, "type": "text"},
                                  content=text.encode("utf-8"), headers={"Content-Type": "text/plain; charset=utf-8"})

    async def get_image(self, *, selection: str = "clipboard") -> bytes:
        """The selection's content as a PNG image; :class:`deskrun.NotFound` when it holds none."""
        r = await self._s._c._request("GET", self._s._path + "/clipboard", params={"selection": selection, "type": "image/png"})
        return r.content

    async def set_image(self, png: bytes, *, selection: str = "clipboard") -> None:
        """Makes the selection hold a PNG image."""
        await self._s._c._request("PUT", self._s._path + "/clipboard", params={"selection": selection, "type": "image/png"},
                                  content=png, headers={"Content-Type": "image/png"})


class AsyncAccessibility:
    """The desktop's accessibility tree (AT-SPI): the element list, finding by
    name and role, clicking and typing into an element without coordinates.

    The element list and the element actions go through the dialects' tools
    (hermes' ``ax`` capture, Anthropic's ``click_element`` and
    ``type_into_element``); the whole tree in OSWorld's XML comes from the
    OSWorld routes of a session created with ``osworld=True``.
    """

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def elements(self, *, app: Optional[str] = None, max_elements: int = 1000) -> List[Element]:
        """The interactable elements, numbered from 1 in reading order, of the
        whole desktop or of the application ``app``."""
        args: Dict[str, Any] = {"action": "capture", "mode": "ax", "max_elements": max_elements}
        if app:
            args["app"] = app
        r = await self._s.call_tool("computer_use", args, dialect="hermes")
        if r.is_error:
            raise _tool_error(r)
        doc = json.loads(r.text) if r.text.startswith("{") else {}
        out = []
        for e in doc.get("elements") or []:
            b = e.get("bounds") or [0, 0, 0, 0]
            out.append(Element(index=e.get("index", 0), id=e.get("id", ""), role=e.get("role", ""),
                               name=e.get("name", ""), bounds=(b[0], b[1], b[2], b[3]), value=e.get("value"),
                               states=e.get("states") or [], app=e.get("app")))
        return out

    async def find(self, name: Optional[str] = None, role: Optional[str] = None, *,
                   app: Optional[str] = None, exact: bool = False) -> List[Element]:
        """The elements whose name matches ``name`` (case-insensitive; a part of
        it unless ``exact``) and whose role is ``role`` (case-insensitive, e.g.
        ``push button``), in reading order."""
        out = []
        for e in await self.elements(app=app):
            if name is not None:
                n, want = e.name.lower(), name.lower()
                if (n != want) if exact else (want not in n):
                    continue
            if role is not None and e.role.lower() != role.lower():
                continue
            out.append(e)
        return out

    async def click(self, name: Optional[str] = None, role: Optional[str] = None, *, id: Optional[str] = None) -> str:
        """Runs the default action of the element found by ``name`` (partial,
        exact names first), ``role`` or ``id`` (its ``Element.id``): a press, a
        link's jump; its box's centre is clicked where it has none. Answers the
        dialect's text; :class:`deskrun.FailedPrecondition` when nothing matches."""
        args = {k: v for k, v in {"name": name, "role": role, "automationId": id}.items() if v}
        r = await self._s.call_tool("click_element", args, dialect="anthropic")
        if r.is_error:
            raise _tool_error(r)
        return r.text

    async def type_into(self, text: str, name: Optional[str] = None, role: Optional[str] = None, *,
                        id: Optional[str] = None) -> str:
        """Sets the text of the element found as ``click`` finds it (a field's
        text, a combo box's option); where it takes no value, clicks it and types."""
        args = {k: v for k, v in {"name": name, "role": role, "automationId": id}.items() if v}
        args["text"] = text
        r = await self._s.call_tool("type_into_element", args, dialect="anthropic")
        if r.is_error:
            raise _tool_error(r)
        return r.text

    async def tree(self) -> str:
        """The desktop's whole tree in OSWorld's XML, from the OSWorld routes of a
        session created with ``osworld=True`` (a loopback address: the client
        must run on the server's host). :class:`deskrun.FailedPrecondition`
        for a session without them."""
        info = self._s.info if self._s.info.osworld else await self._s.refresh()
        if not info.osworld or not info.osworld.server:
            from .._errors import FailedPrecondition
            raise FailedPrecondition("accessibility tree: the session was not created with osworld=True")
        async with httpx.AsyncClient(timeout=self._s._c.timeout) as h:
            r = await h.get(f"http://{info.osworld.server}/accessibility")
        if r.status_code != 200:
            raise error_from_response(r.status_code, r.content)
        doc = r.json()
        return str(doc.get("AT", "")) if isinstance(doc, dict) else r.text


def _tool_error(r: ToolResult) -> DeskrunError:
    from .._errors import FailedPrecondition
    return FailedPrecondition(r.text or "tool call refused", status=200)


class AsyncWindows:
    """The window manager's top-level windows (EWMH)."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    def _w(self, wid: int, rest: str = "") -> str:
        return f"{self._s._path}/windows/{int(wid)}{rest}"

    async def list(self) -> List[Window]:
        """``GET .../windows``: the windows, in the window manager's order."""
        return WindowList.from_json(await self._s._c._json("GET", self._s._path + "/windows")).windows

    async def get(self, wid: int) -> Window:
        """``GET .../windows/{wid}``: one window with its client area (``bounds``) and state."""
        return Window.from_json(await self._s._c._json("GET", self._w(wid)))

    async def find(self, title: str) -> Optional[Window]:
        """The first window whose title holds ``title`` (case-insensitive), or None."""
        for w in await self.list():
            if title.lower() in w.title.lower():
                return w
        return None

    async def active(self) -> Optional[Window]:
        """The active window, or None."""
        for w in await self.list():
            if w.active:
                return w
        return None

    async def activate(self, wid: int) -> None:
        """Raises and focuses the window."""
        await self._s._c._request("POST", self._w(wid, "/activate"))

    async def close(self, wid: int) -> None:
        """Asks the window to close."""
        await self._s._c._request("POST", self._w(wid, "/close"))

    async def minimize(self, wid: int) -> None:
        """Minimizes the window."""
        await self._s._c._request("POST", self._w(wid, "/minimize"))

    async def maximize(self, wid: int) -> None:
        """Maximizes the window."""
        await self._s._c._request("POST", self._w(wid, "/maximize"))

    async def restore(self, wid: int) -> None:
        """Restores a minimized or maximized window."""
        await self._s._c._request("POST", self._w(wid, "/restore"))

    async def move_resize(self, wid: int, *, x: Optional[int] = None, y: Optional[int] = None,
                          width: Optional[int] = None, height: Optional[int] = None) -> None:
        """Moves and resizes the window's client area; a value left None keeps its own."""
        body = {k: v for k, v in {"x": x, "y": y, "width": width, "height": height}.items() if v is not None}
        await self._s._c._request("POST", self._w(wid, "/move_resize"), body=body)


class AsyncCommands:
    """Commands in the sandbox: ``run`` (exit code, stdout, stderr, timeout),
    ``kill_all``, and named shells (``shell(name)``) that keep their directory
    and a running process between calls."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def run(self, cmd: Union[str, Sequence[str]], *, timeout: Optional[float] = None,
                  env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
                  stdin: Optional[str] = None, check: bool = False) -> ExecResult:
        """``POST .../exec``: runs ``cmd`` (a list: the program and its arguments;
        a string: run by ``sh -c``) with the desktop's ``DISPLAY``, ``env`` added,
        in ``cwd`` (absolute; default the home), ``stdin`` written to it. At
        ``timeout`` seconds (default 30, at most 3600) its process group is
        killed and ``timed_out`` set. A failing command is not an error unless
        ``check``, which raises :class:`deskrun.CommandFailed`."""
        argv = ["sh", "-c", cmd] if isinstance(cmd, str) else list(cmd)
        body: Dict[str, Any] = {"cmd": argv}
        if timeout is not None:
            body["timeout_ms"] = int(timeout * 1000)
        if env:
            body["env"] = env
        if cwd:
            body["dir"] = cwd
        if stdin is not None:
            body["stdin"] = stdin
        limit = (timeout if timeout is not None else 30.0) + max(self._s._c.timeout, 30.0)
        res = ExecResult.from_json(await self._s._c._json("POST", self._s._path + "/exec", body=body,
                                                          timeout=limit, retry=False))
        if check and not res.ok:
            from .. import CommandFailed
            raise CommandFailed(argv, res)
        return res

    async def kill_all(self) -> int:
        """``POST .../kill``: kills every process the session's commands and shells
        left running (the desktop excepted); answers how many."""
        return KillResult.from_json(await self._s._c._json("POST", self._s._path + "/kill", retry=False)).killed

    def shell(self, name: str = "main") -> "AsyncNamedShell":
        """The named shell ``name``, created by its first ``exec``."""
        return AsyncNamedShell(self._s, name)


class AsyncNamedShell:
    """A named, long-lived shell in the sandbox (the sandbox dialect's shell
    tools): it keeps its working directory, environment and running process
    between calls."""

    def __init__(self, s: AsyncSession, name: str) -> None:
        self._s = s
        self.name = name

    async def _call(self, tool: str, args: Dict[str, Any], timeout: Optional[float] = None) -> Shell:
        r = await self._s.call_tool(tool, dict(args, id=self.name), dialect="sandbox", timeout=timeout)
        if r.is_error or not isinstance(r.structured, dict):
            raise _tool_error(r)
        d = r.structured
        return Shell(id=d.get("id", self.name), running=bool(d.get("running")), output=d.get("output", ""),
                     dir=d.get("dir"), command=d.get("command"), exit_code=d.get("exit_code"))

    async def exec(self, command: str, *, cwd: str = "/tmp") -> Shell:
        """Runs a command line in the shell, in ``cwd`` (absolute); answers once it
        finished or after 30 s with the output so far (``running`` then set)."""
        return await self._call("shell_exec", {"command": command, "exec_dir": cwd}, timeout=60 + self._s._c.timeout)

    async def view(self) -> Shell:
        """The shell's last command, its output so far and its state."""
        return await self._call("shell_view", {})

    async def wait(self, seconds: int = 30) -> Shell:
        """Waits up to ``seconds`` for the running command to finish."""
        return await self._call("shell_wait", {"seconds": seconds}, timeout=seconds + self._s._c.timeout)

    async def write(self, text: str, *, enter: bool = True) -> Shell:
        """Writes ``text`` to the running command's standard input (and a newline)."""
        return await self._call("shell_write_to_process", {"input": text, "press_enter": enter})

    async def kill(self) -> Shell:
        """Stops the running command."""
        return await self._call("shell_kill_process", {})


class AsyncFiles:
    """Files in the sandbox: ``read``, ``write``, ``list``, ``exists``, ``remove``,
    and streamed ``upload``/``download`` of large files (up to 64 MiB a file)."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def read(self, path: str) -> bytes:
        """``GET .../files``: the file's bytes; :class:`deskrun.NotFound` if missing."""
        return (await self._s._c._request("GET", self._s._path + "/files", params={"path": path})).content

    async def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The file's text."""
        return (await self.read(path)).decode(encoding)

    async def write(self, path: str, data: Union[bytes, str]) -> None:
        """``PUT .../files``: writes the file (text as UTF-8), creating its parent folders."""
        b = data.encode("utf-8") if isinstance(data, str) else data
        await self._s._c._request("PUT", self._s._path + "/files", params={"path": path}, content=b,
                                  headers={"Content-Type": "application/octet-stream"})

    async def upload(self, src: Source, path: str, *, chunk: int = _CHUNK) -> int:
        """Streams a local file (a path or a binary file object) to ``path`` in the
        sandbox without holding it in memory; answers the bytes sent."""
        if isinstance(src, bytes):
            await self.write(path, src)
            return len(src)
        f: BinaryIO = open(src, "rb") if isinstance(src, (str, os.PathLike)) else src  # noqa: SIM115
        sent = [0]

        async def body() -> AsyncIterator[bytes]:
            while True:
                b = f.read(chunk)
                if not b:
                    return
                sent[0] += len(b)
                yield b
        try:
            size = os.fstat(f.fileno()).st_size - f.tell()
            await self._s._c._request("PUT", self._s._path + "/files", params={"path": path}, content=body(),
                                      headers={"Content-Type": "application/octet-stream",
                                               "Content-Length": str(size)},
                                      timeout=max(self._s._c.timeout, 600.0))
        finally:
            if f is not src:
                f.close()
        return sent[0]

    async def download(self, path: str, dst: Union[str, "os.PathLike[str]", BinaryIO], *, chunk: int = _CHUNK) -> int:
        """Streams the sandbox's file ``path`` into ``dst`` (a local path or a
        binary file object) without holding it in memory; answers the bytes written."""
        c = self._s._c
        own = isinstance(dst, (str, os.PathLike))
        f: BinaryIO = open(dst, "wb") if isinstance(dst, (str, os.PathLike)) else dst  # noqa: SIM115
        n = 0
        try:
            async with c._http.stream("GET", c.url + self._s._path + "/files", params={"path": path},
                                      timeout=max(c.timeout, 600.0)) as r:
                if r.status_code >= 300:
                    await r.aread()
                    raise error_from_response(r.status_code, r.content)
                async for b in r.aiter_bytes(chunk):
                    f.write(b)
                    n += len(b)
        except httpx.TransportError as e:
            raise Unavailable(f"deskrun server unreachable: GET {self._s._path}/files: {e}", status=0) from e
        finally:
            if own:
                f.close()
        return n

    async def list(self, path: str) -> List[FileInfo]:
        """The entries of the folder ``path`` (not recursive), sorted by name;
        :class:`deskrun.NotFound` when it is not a folder. Runs ``find`` in the
        sandbox (the host API has no listing call)."""
        if not path.startswith("/"):
            raise InvalidRequest(f"path: {path!r} is not an absolute path")
        r = await self._s.commands.run(["find", path, "-mindepth", "1", "-maxdepth", "1",
                                        "-printf", "%y\\t%s\\t%T@\\t%f\\0"])
        if r.exit_code != 0:
            raise NotFound(f"path: {path}: {r.stderr.strip() or 'not a folder'}")
        out = []
        kinds = {"f": "file", "d": "dir", "l": "link"}
        for rec in r.stdout.split("\0"):
            if not rec:
                continue
            y, size, mtime, name = rec.split("\t", 3)
            out.append(FileInfo(path=posixpath.join(path, name), name=name, kind=kinds.get(y, "other"),
                                size=int(size), mtime=float(mtime)))
        return sorted(out, key=lambda e: e.name)

    async def exists(self, path: str) -> bool:
        """Whether ``path`` exists in the sandbox."""
        return (await self._s.commands.run(["test", "-e", path])).exit_code == 0

    async def remove(self, path: str, *, recursive: bool = False) -> None:
        """Removes a file (a folder tree with ``recursive``)."""
        r = await self._s.commands.run(["rm", "-rf" if recursive else "-f", "--", path])
        if r.exit_code != 0:
            raise InvalidRequest(f"path: {r.stderr.strip()}")


class AsyncBrowser:
    """The sandbox's browser driven over DevTools (the sandbox dialect's
    ``browser_*`` tools): each method answers the tool's result (``text``
    holds what a model reads: the page with numbered elements for ``view``)."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def _call(self, action: str, args: Dict[str, Any]) -> ToolResult:
        r = await self._s.call_tool("browser_" + action, {k: v for k, v in args.items() if v is not None},
                                    dialect="sandbox", timeout=self._s._c.timeout + 60)
        if r.is_error:
            raise _tool_error(r)
        return r

    async def view(self) -> ToolResult:
        """The current page as text with its interactive elements numbered, and a screenshot."""
        return await self._call("view", {})

    async def navigate(self, url: str) -> ToolResult:
        """Opens ``url`` (http, https, file or about) and shows the page."""
        return await self._call("navigate", {"url": url})

    async def click(self, index: Optional[int] = None, *, x: Optional[float] = None, y: Optional[float] = None) -> ToolResult:
        """Clicks the element numbered ``index`` in the last view, or the viewport point (x, y)."""
        return await self._call("click", {"index": index, "coordinate_x": x, "coordinate_y": y})

    async def input(self, text: str, index: Optional[int] = None, *, x: Optional[float] = None,
                    y: Optional[float] = None, press_enter: bool = False) -> ToolResult:
        """Replaces the text of the editable element ``index`` (or at (x, y)), then presses Enter if asked."""
        return await self._call("input", {"text": text, "index": index, "coordinate_x": x, "coordinate_y": y,
                                          "press_enter": press_enter})

    async def move_mouse(self, x: float, y: float) -> ToolResult:
        """Moves the pointer to the viewport point (x, y)."""
        return await self._call("move_mouse", {"coordinate_x": x, "coordinate_y": y})

    async def press_key(self, key: str) -> ToolResult:
        """Presses a key or combination such as ``Control+Enter``."""
        return await self._call("press_key", {"key": key})

    async def select_option(self, index: int, option: int) -> ToolResult:
        """Chooses option number ``option`` (from 0) of the select element ``index``."""
        return await self._call("select_option", {"index": index, "option": option})

    async def scroll_up(self, *, to_top: bool = False) -> ToolResult:
        """Scrolls a screen up (to the top with ``to_top``)."""
        return await self._call("scroll_up", {"to_top": to_top})

    async def scroll_down(self, *, to_bottom: bool = False) -> ToolResult:
        """Scrolls a screen down (to the bottom with ``to_bottom``)."""
        return await self._call("scroll_down", {"to_bottom": to_bottom})

    async def console_exec(self, javascript: str) -> Any:
        """Evaluates JavaScript in the page and answers its value (decoded JSON)."""
        r = await self._call("console_exec", {"javascript": javascript})
        return r.structured if r.structured is not None else r.text

    async def console_view(self, max_lines: Optional[int] = None) -> ToolResult:
        """The page's console lines, oldest first."""
        return await self._call("console_view", {"max_lines": max_lines})

    async def save_image(self, x: float, y: float, save_dir: str, base_name: str) -> str:
        """Saves the image at the viewport point (x, y) under ``save_dir``; answers its path."""
        r = await self._call("save_image", {"coordinate_x": x, "coordinate_y": y, "save_dir": save_dir,
                                            "base_name": base_name})
        return str((r.structured or {}).get("path", "")) if isinstance(r.structured, dict) else r.text

    async def restart(self) -> ToolResult:
        """Restarts the browser."""
        return await self._call("restart", {})


class AsyncRecording:
    """The video of a session created with ``record=True`` (VP8 in WebM)."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    async def read(self) -> bytes:
        """``GET .../recording``: the video as far as written (final once the
        session ended); :class:`deskrun.NotFound` for a session not recorded."""
        return (await self._s._c._request("GET", self._s._path + "/recording")).content

    async def download(self, dst: Union[str, "os.PathLike[str]", BinaryIO]) -> int:
        """Streams the video into ``dst`` (a path or a binary file object); answers the bytes written."""
        c = self._s._c
        own = isinstance(dst, (str, os.PathLike))
        f: BinaryIO = open(dst, "wb") if isinstance(dst, (str, os.PathLike)) else dst  # noqa: SIM115
        n = 0
        try:
            async with c._http.stream("GET", c.url + self._s._path + "/recording", timeout=max(c.timeout, 600.0)) as r:
                if r.status_code >= 300:
                    await r.aread()
                    raise error_from_response(r.status_code, r.content)
                async for b in r.aiter_bytes(_CHUNK):
                    f.write(b)
                    n += len(b)
        finally:
            if own:
                f.close()
        return n

    async def url(self) -> str:
        """The video's URL with a fresh ticket, for a browser or a video player."""
        t = await self._s.ticket()
        return self._s._c.abs_url(self._s._path + "/recording?" + urllib.parse.urlencode({"ticket": t.ticket}))


class AsyncPorts:
    """HTTP to a TCP port on the sandbox's loopback, through the server's proxy."""

    def __init__(self, s: AsyncSession) -> None:
        self._s = s

    def url(self, port: int, path: str = "/") -> str:
        """The proxy URL of ``path`` on ``port`` (the bearer token is needed)."""
        return self._s._c.abs_url(f"{self._s._path}/ports/{int(port)}/{path.lstrip('/')}")

    async def request(self, method: str, port: int, path: str = "/", *, content: Optional[bytes] = None,
                      headers: Optional[Dict[str, str]] = None) -> httpx.Response:
        """Sends ``method`` to ``http://127.0.0.1:{port}{path}`` inside the
        sandbox; answers the program's response whatever its status, or
        :class:`deskrun.Unavailable` when nothing listens (502)."""
        c = self._s._c
        r = await c._http.request(method, self.url(port, path), content=content, headers=headers)
        if r.status_code == 502 and r.headers.get("content-type", "").startswith("application/json"):
            raise error_from_response(503, r.content)
        return r


class AsyncDialectTools:
    """A dialect's tools on a session, in a model vendor's shapes.

    ``definitions()`` is the tool list to hand the model; ``call(item)`` runs
    the model's tool call item (an Anthropic ``tool_use`` block, an OpenAI
    ``computer_call`` or ``function_call``, a hermes or OSWorld call, MCP's
    ``tools/call`` params) and answers the item the vendor's API takes next
    (``tool_result``, ``computer_call_output``, ...).
    """

    def __init__(self, s: AsyncSession, vendor: str) -> None:
        self._s = s
        self.vendor = vendor
        """The vendor's name as ``Session.tools`` took it."""
        self.dialect: Optional[str] = None if vendor == "mcp" else vendor
        """The deskrun dialect the calls go to (None: the session's)."""

    async def list(self) -> ToolList:
        """``GET /v1/tools?dialect=``: the dialect's tools at level 1."""
        return await self._s._c.tools.list(self.dialect or self._s.info.dialect)

    async def definitions(self, *, only: Optional[Iterable[str]] = None,
                          screen: Optional[Tuple[int, int]] = None) -> List[Dict[str, Any]]:
        """The tools in the vendor's tool-list format. For anthropic the default
        is Anthropic's own computer, bash and text editor tools, for openai its
        computer tool; ``only`` names the tools to declare instead (all of the
        others' by default). ``screen`` is the display size the computer tool
        declares: by default the size of the screenshots the dialect shows the
        model (the session's screen, scaled down for anthropic past 1568 pixels
        or 1.15 megapixels; see :func:`deskrun.model_size`)."""
        tl = await self.list()
        names = set(only) if only is not None else (
            {"computer", "bash", "str_replace_based_edit_tool"} if self.vendor.startswith("anthropic") else
            {"computer"} if self.vendor == "openai" else None)
        if names is not None:
            tl = ToolList(dialect=tl.dialect, tools=[t for t in tl.tools if t.name in names])
        size = screen or model_size(self.vendor, (self._s.info.screen.width, self._s.info.screen.height))
        return declare(self.vendor, tl, size)

    async def run(self, name: str, args: Optional[Mapping[str, Any]] = None) -> ToolResult:
        """Calls the tool ``name`` with ``args``; answers deskrun's neutral result."""
        return await self._s.call_tool(name, args, dialect=self.dialect)

    async def call(self, item: Any) -> Dict[str, Any]:
        """Runs the model's tool call ``item`` and answers the vendor's result item
        for it (see :func:`deskrun.shape_result`). A call the dialect refuses is
        a result marked as an error, as the model must read it."""
        tc: ToolCall = parse_call(self.vendor, item)
        r = await self.run(tc.name, tc.args)
        return shape_result(self.vendor, tc, r)


class AsyncToolCatalog:
    """The dialects' tool definitions (``GET /v1/tools``, ``GET /v1/tools/{name}``)."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def list(self, dialect: Optional[str] = None) -> ToolList:
        """Level 1 of a dialect's tools (default the server's)."""
        return ToolList.from_json(await self._c._json("GET", "/v1/tools", params={"dialect": dialect}))

    async def info(self, name: str, dialect: Optional[str] = None) -> ToolDefinition:
        """Level 2: the whole definition of the tool ``name``."""
        return ToolDefinition.from_json(await self._c._json("GET", f"/v1/tools/{_q(name)}", params={"dialect": dialect}))

    async def markdown(self, name: str, dialect: Optional[str] = None) -> str:
        """The tool's definition as the text a model reads."""
        r = await self._c._request("GET", f"/v1/tools/{_q(name)}", params={"dialect": dialect, "format": "markdown"})
        return r.text


class AsyncRuns:
    """Task suite runs kept by the server (``/v1/runs``), as ``deskrun eval`` runs them."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def start(self, tasks: str, *, agent: Optional[str] = None, parallel: Optional[int] = None,
                    trials: Optional[int] = None, max_steps: Optional[int] = None,
                    timeout_ms: Optional[int] = None, retries: Optional[int] = None,
                    provider: Optional[str] = None, image: Optional[str] = None,
                    screen: Optional[Tuple[int, int]] = None, runtime: Optional[str] = None,
                    snapshots: Optional[bool] = None, fork_trials: Optional[bool] = None,
                    only: Optional[Sequence[str]] = None,
                    record: Optional[bool] = None, cache: Optional[str] = None, url_map: Optional[str] = None,
                    offline: Optional[bool] = None, agent_token: Optional[str] = None) -> "AsyncRun":
        """``POST /v1/runs``: starts a run of the task file or folder ``tasks`` (on
        the server) against ``agent`` (``replay``, an ``http(s)://`` agent server,
        ``anthropic[:MODEL]``, ``openai[:MODEL]``), ``parallel`` tasks at once,
        each ``trials`` times; ``only`` keeps the tasks whose id matches a glob.
        ``snapshots`` (default on) starts a task's further trials from its saved
        set-up desktop where the provider and ``runtime`` (``runsc-snap``) can
        save sandboxes; ``fork_trials`` forks them from the first trial.
        Bad fields raise :class:`deskrun.InvalidRequest` naming the field."""
        body: Dict[str, Any] = {"tasks": tasks, "agent": agent, "parallel": parallel, "trials": trials,
                                "max_steps": max_steps, "timeout_ms": timeout_ms, "retries": retries,
                                "provider": provider, "image": image, "runtime": runtime,
                                "snapshots": snapshots, "fork_trials": fork_trials,
                                "only": list(only) if only else None,
                                "record": record, "cache": cache, "url_map": url_map, "offline": offline,
                                "agent_token": agent_token}
        if screen is not None:
            body["screen"] = {"width": screen[0], "height": screen[1]}
        body = {k: v for k, v in body.items() if v is not None}
        return AsyncRun(self._c, RunInfo.from_json(await self._c._json("POST", "/v1/runs", body=body, retry=False)))

    async def list(self) -> List["AsyncRun"]:
        """``GET /v1/runs``: the runs, by creation time."""
        return [AsyncRun(self._c, i) for i in RunList.from_json(await self._c._json("GET", "/v1/runs")).runs]

    async def get(self, id: str) -> "AsyncRun":
        """``GET /v1/runs/{id}``: the run ``id``; :class:`deskrun.NotFound` if none."""
        return AsyncRun(self._c, RunInfo.from_json(await self._c._json("GET", f"/v1/runs/{_q(id)}")))

    async def compare(self, base: Union[str, "AsyncRun"], new: Union[str, "AsyncRun"]) -> Dict[str, Any]:
        """Compares two runs' results per task and per domain (see
        :func:`deskrun.compare_results`)."""
        from .._runs import compare_results
        b = base if isinstance(base, AsyncRun) else await self.get(base)
        n = new if isinstance(new, AsyncRun) else await self.get(new)
        return compare_results(await b.results(), await n.results())


class AsyncRun:
    """A task suite run: its state (``info``), progress as events, results,
    summary, report, live tasks."""

    def __init__(self, client: AsyncClient, info: RunInfo) -> None:
        self._c = client
        self.info = info
        """The run as the server last described it."""
        self.id = info.id
        """The run's id."""
        self._path = f"/v1/runs/{_q(info.id)}"

    def __repr__(self) -> str:
        return f"<deskrun run {self.id} {self.info.status} {self.info.done}/{self.info.total}>"

    async def refresh(self) -> RunInfo:
        """``GET /v1/runs/{id}``: reads the run's state again into ``info``."""
        self.info = RunInfo.from_json(await self._c._json("GET", self._path))
        return self.info

    async def results(self) -> List[TaskResult]:
        """``GET .../results``: the results so far, one per task attempt graded."""
        r = await self._c._request("GET", self._path + "/results")
        return [TaskResult.from_json(json.loads(line)) for line in r.text.splitlines() if line.strip()]

    async def events(self, *, interval: float = 0.5, progress: Optional[bool] = None) -> AsyncIterator[RunEvent]:
        """The run's progress as events, until it ends: ``result`` for each task
        result as it arrives, ``progress`` when the counts change, ``end`` last.
        Polls every ``interval`` seconds. With tqdm installed and ``progress``
        not False, a progress bar follows the run on standard error."""
        bar = _bar(self.info.total, self.id) if progress is not False else None
        seen, last = 0, (-1, -1)
        try:
            while True:
                info = await self.refresh()
                res = await self.results()
                for r in res[seen:]:
                    if bar is not None:
                        bar.update(1)
                    yield RunEvent("result", info, r)
                seen = max(seen, len(res))
                if (info.done, info.total) != last:
                    last = (info.done, info.total)
                    if bar is not None:
                        bar.total = info.total
                        bar.set_postfix(passed=info.passed, failed=info.failed, errors=info.errors)
                    yield RunEvent("progress", info)
                if info.ended:
                    res = await self.results()
                    for r in res[seen:]:
                        yield RunEvent("result", info, r)
                    yield RunEvent("end", info)
                    return
                await _sleep(interval)
        finally:
            if bar is not None:
                bar.close()

    async def wait(self, *, interval: float = 0.5, progress: Optional[bool] = False) -> RunInfo:
        """Waits for the run to end; answers its final state (``summary`` set)."""
        async for _ in self.events(interval=interval, progress=progress):
            pass
        return self.info

    async def summary(self) -> List[Any]:
        """The per-domain summary (``DomainSummary``, ``all`` last) once the run ended; empty before."""
        return list((await self.refresh()).summary or [])

    async def report(self) -> str:
        """``GET .../report``: the HTML report; :class:`deskrun.Conflict` while the run goes on."""
        return (await self._c._request("GET", self._path + "/report")).text

    async def live(self) -> RunLive:
        """``GET .../live``: the run and the tasks it runs now."""
        return RunLive.from_json(await self._c._json("GET", self._path + "/live"))

    async def live_screen(self, task: str, *, max_width: Optional[int] = None) -> bytes:
        """``GET .../live/{task}/screen``: a running task's desktop as a JPEG thumbnail."""
        return (await self._c._request("GET", f"{self._path}/live/{_q(task)}/screen",
                                       params={"max_width": max_width})).content

    async def live_view_url(self, task: str) -> str:
        """``GET .../live/{task}/view``: the URL of the running task's viewer (the
        server's redirect, with a fresh session ticket)."""
        r = await self._c._http.get(self._c.url + f"{self._path}/live/{_q(task)}/view", follow_redirects=False)
        if r.status_code >= 400:
            raise error_from_response(r.status_code, r.content)
        return self._c.abs_url(r.headers.get("location", ""))

    async def file(self, task: str, name: str) -> bytes:
        """``GET .../{task}/{file}``: a file of a task's folder (``trajectory.jsonl``,
        ``step-000.png``, ``final.png``, ``recording.webm``)."""
        return (await self._c._request("GET", f"{self._path}/{_q(task)}/{_q(name)}")).content

    async def ticket(self) -> Ticket:
        """``POST .../tickets``: a single-use ticket for the report, results and files in a browser."""
        return Ticket.from_json(await self._c._json("POST", self._path + "/tickets", retry=False))

    async def report_url(self) -> str:
        """The report's URL with a fresh ticket, for a browser."""
        t = await self.ticket()
        return self._c.abs_url(self._path + "/report?" + urllib.parse.urlencode({"ticket": t.ticket}))

    async def watch_url(self) -> str:
        """``GET .../watch``: the live page's URL with a fresh ticket, for a browser."""
        t = await self.ticket()
        return self._c.abs_url(self._path + "/watch?" + urllib.parse.urlencode({"ticket": t.ticket}))

    async def cancel(self) -> RunInfo:
        """``DELETE /v1/runs/{id}``: cancels a run under way (answering its final
        state once its tasks stopped) or forgets one that ended (its folder removed)."""
        doc = await self._c._json("DELETE", self._path, timeout=max(self._c.timeout, 300.0), retry=False)
        if doc:
            self.info = RunInfo.from_json(doc)
        return self.info


def _bar(total: int, name: str) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=f"run {name}", unit="task", leave=False)


class AsyncMCP:
    """The server's MCP endpoint (``/mcp``, streamable HTTP): the tool list and
    tool calls as an MCP client sees them, over a connection that attaches to
    a session or gets one of its own."""

    def __init__(self, client: AsyncClient) -> None:
        self._c = client

    async def _rpc(self, params: Dict[str, str], sid: Optional[str], method: str, args: Optional[Dict[str, Any]],
                   id: Optional[int]) -> Tuple[Optional[str], Any]:
        msg: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if args is not None:
            msg["params"] = args
        if id is not None:
            msg["id"] = id
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if sid:
            h["Mcp-Session-Id"] = sid
        r = await self._c._request("POST", "/mcp", params=params, content=json.dumps(msg).encode(), headers=h,
                                   timeout=max(self._c.timeout, 300.0), retry=False)
        sid = r.headers.get("mcp-session-id", sid)
        if id is None:
            return sid, None
        doc: Any = None
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            for line in r.text.splitlines():
                if line.startswith("data:"):
                    d = json.loads(line[5:])
                    if d.get("id") == id:
                        doc = d
        else:
            doc = r.json()
        if not isinstance(doc, dict):
            raise Unavailable(f"mcp {method}: no answer")
        if "error" in doc:
            raise InvalidRequest(f"mcp {method}: {doc['error'].get('message')}", status=200)
        return sid, doc.get("result")

    async def _session(self, session: Optional[str], dialect: Optional[str]) -> Tuple[Dict[str, str], Optional[str]]:
        params = {k: v for k, v in {"session": session, "dialect": dialect}.items() if v}
        sid, _ = await self._rpc(params, None, "initialize", {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "deskrun-python", "version": "1"}}, 1)
        await self._rpc(params, sid, "notifications/initialized", None, None)
        return params, sid

    async def _end(self, params: Dict[str, str], sid: Optional[str]) -> None:
        if sid:
            try:
                await self._c._request("DELETE", "/mcp", params=params, headers={"Mcp-Session-Id": sid})
            except DeskrunError:
                pass

    async def tools(self, *, session: Optional[str] = None, dialect: Optional[str] = None) -> List[Dict[str, Any]]:
        """MCP's ``tools/list``: ``{"name", "description", "inputSchema"}`` for each
        tool of ``dialect`` on the session ``session`` (a new one for the
        connection when None, deleted when it ends)."""
        params, sid = await self._session(session, dialect)
        try:
            _, res = await self._rpc(params, sid, "tools/list", {}, 2)
            return list(res.get("tools", []))
        finally:
            await self._end(params, sid)

    async def call(self, name: str, arguments: Optional[Dict[str, Any]] = None, *, session: str,
                   dialect: Optional[str] = None) -> Dict[str, Any]:
        """MCP's ``tools/call`` of ``name`` on the session ``session``: the
        ``CallToolResult`` (``content``, ``isError``, ``structuredContent``)."""
        params, sid = await self._session(session, dialect)
        try:
            _, res = await self._rpc(params, sid, "tools/call", {"name": name, "arguments": arguments or {}}, 2)
            return dict(res)
        finally:
            await self._end(params, sid)
