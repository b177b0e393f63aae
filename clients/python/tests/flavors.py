"""Running one test body against both clients.

``both(server)`` yields a ``deskrun.Client`` and an ``AsyncClient`` seen
through :class:`Blocking`, which runs every coroutine the asynchronous
client returns on an event loop in a thread of its own and waits for it.
So each test that takes the ``api`` fixture drives the synchronous client
and, through the same lines, every method of the asynchronous one.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any, Iterator

import deskrun._async.client as _asyncmod


class Loop:
    """An event loop running in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        async def wrap() -> Any:
            return await coro
        return asyncio.run_coroutine_threadsafe(wrap(), self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def _unwrap(v: Any) -> Any:
    return object.__getattribute__(v, "_obj") if isinstance(v, Blocking) else v


class Blocking:
    """An object of the asynchronous client whose methods block."""

    def __init__(self, obj: Any, loop: Loop) -> None:
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_loop", loop)

    def _wrap(self, v: Any) -> Any:
        if inspect.isawaitable(v):
            v = self._loop.run(v)
        if hasattr(v, "__anext__"):
            return self._iter(v)
        if isinstance(v, list):
            return [self._wrap(x) for x in v]
        if type(v).__module__ == _asyncmod.__name__:
            return Blocking(v, self._loop)
        return v

    def _iter(self, it: Any) -> Iterator[Any]:
        while True:
            try:
                yield self._loop.run(it.__anext__())
            except StopAsyncIteration:
                return

    def __getattr__(self, name: str) -> Any:
        v = getattr(self._obj, name)
        if callable(v) and not isinstance(v, type):
            return lambda *a, **k: self._wrap(v(*map(_unwrap, a), **{n: _unwrap(x) for n, x in k.items()}))
        return self._wrap(v)

    def __enter__(self) -> Any:
        return self._wrap(self._obj.__aenter__())

    def __exit__(self, *exc: Any) -> None:
        self._loop.run(self._obj.__aexit__(*exc))

    def __repr__(self) -> str:
        return f"Blocking({self._obj!r})"
