"""The few calls that differ between the asynchronous client and the
synchronous one generated from it (``scripts/unasync.py``)."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any, Optional

import httpx


async def async_sleep(seconds: float) -> None:
    """Sleeps without blocking the event loop."""
    await asyncio.sleep(seconds)


def sync_sleep(seconds: float) -> None:
    """Sleeps."""
    time.sleep(seconds)


def async_transport(limits: httpx.Limits) -> Optional[httpx.AsyncBaseTransport]:
    """The asynchronous client's transport: httpx's own (asyncio already sets
    TCP_NODELAY on its sockets)."""
    return None


def sync_transport(limits: httpx.Limits) -> Optional[httpx.BaseTransport]:
    """The synchronous client's transport: httpx's, with TCP_NODELAY set on its
    sockets. Without it a POST's body waits for the ACK of its headers, which
    the server delays by 40 ms (Nagle's algorithm meeting delayed ACKs): a
    pointer move took 47 ms instead of 2.5."""
    opt = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    try:
        transport: Any = httpx.HTTPTransport  # socket_options: httpx >= 0.24
        return transport(limits=limits, socket_options=opt)  # type: ignore[no-any-return]
    except TypeError:
        pass
    t = httpx.HTTPTransport(limits=limits)
    try:  # httpx 0.23 (Debian 12): give its connection pool a backend that sets the option
        import importlib

        import httpcore

        base: Any = importlib.import_module("httpcore.backends.sync").SyncBackend

        class NoDelay(base):  # type: ignore[misc]
            def connect_tcp(self, *a: Any, **k: Any) -> Any:
                stream = super().connect_tcp(*a, **k)
                stream.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return stream

        pool: Any = httpcore.ConnectionPool
        t._pool = pool(
            max_connections=limits.max_connections, max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry, network_backend=NoDelay())
    except (ImportError, AttributeError):
        pass
    return t
