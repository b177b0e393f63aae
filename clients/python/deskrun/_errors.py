"""Errors of the deskrun host API, one exception class per code of the contract.

Every error answer of ``deskrun serve`` is ``{"error": {"code", "message"}}`` with
a status; :func:`error_from_response` turns it into the class named after its
code, so ``except deskrun.NotFound`` reads as the contract does.
"""

from __future__ import annotations

import json
import re
from typing import Dict, Optional, Type


class DeskrunError(Exception):
    """Base class of every error this client raises.

    ``status`` is the HTTP status (0 when no answer came), ``code`` the
    contract's error code (``"not_found"``, ...), ``message`` the server's text.
    """

    code: str = ""
    status: int = 0
    retryable: bool = False

    def __init__(self, message: str, *, status: int = 0, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        if status:
            self.status = status
        if code:
            self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class InvalidRequest(DeskrunError):
    """400 ``invalid_argument``: bad input. ``field`` names the field the
    server's message starts with (``"actions[0].x"``, ``"path"``), or is None."""

    code = "invalid_argument"
    status = 400

    @property
    def field(self) -> Optional[str]:
        """The field the message names: the text before the first ``": "``."""
        m = _FIELD.match(self.message)
        return m.group(1) if m else None


class Unauthorized(DeskrunError):
    """401 ``unauthorized``: a missing or wrong token."""

    code = "unauthorized"
    status = 401


class PermissionDenied(DeskrunError):
    """403 ``permission_denied``."""

    code = "permission_denied"
    status = 403


class NotFound(DeskrunError):
    """404 ``not_found``: unknown session, window, tool, file, run or route."""

    code = "not_found"
    status = 404


class MethodNotAllowed(DeskrunError):
    """405 ``method_not_allowed``."""

    code = "method_not_allowed"
    status = 405


class Conflict(DeskrunError):
    """409 ``conflict``: the request conflicts with the state of what it names."""

    code = "conflict"
    status = 409


class TooLarge(DeskrunError):
    """413 ``too_large``: a body or file over the limit."""

    code = "too_large"
    status = 413


class FailedPrecondition(DeskrunError):
    """422 ``failed_precondition``: a valid request the desktop refused."""

    code = "failed_precondition"
    status = 422


class Canceled(DeskrunError):
    """499 ``canceled``."""

    code = "canceled"
    status = 499


class Internal(DeskrunError):
    """500 ``internal``: a bug in the server; the message carries an id for its log."""

    code = "internal"
    status = 500


class NotImplemented_(DeskrunError):
    """501 ``not_implemented``: the provider or sandbox cannot do it (exported as
    ``deskrun.NotImplementedError_`` too)."""

    code = "not_implemented"
    status = 501


class Unavailable(DeskrunError):
    """503 ``unavailable``: the provider or the sandbox is unavailable, or the
    server did not answer. Retried by the client where the call is safe to repeat."""

    code = "unavailable"
    status = 503
    retryable = True


class DeadlineExceeded(DeskrunError):
    """504 ``deadline_exceeded``, or the client's own timeout passed."""

    code = "deadline_exceeded"
    status = 504


_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.\[\]-]*): ")

ERRORS: Dict[str, Type[DeskrunError]] = {
    c.code: c
    for c in (
        InvalidRequest, Unauthorized, PermissionDenied, NotFound, MethodNotAllowed, Conflict,
        TooLarge, FailedPrecondition, Canceled, Internal, NotImplemented_, Unavailable,
        DeadlineExceeded,
    )
}
"""The exception class of each error code of the contract (ErrorDetail.code)."""

_BY_STATUS: Dict[int, Type[DeskrunError]] = {c.status: c for c in ERRORS.values()}


def error_from_response(status: int, body: bytes) -> DeskrunError:
    """The exception for a non-2xx answer: by the envelope's code, else by the
    status (a proxy's or a program's answer that is not the contract's envelope)."""
    code, message = "", ""
    try:
        doc = json.loads(body)
        if isinstance(doc, dict) and isinstance(doc.get("error"), dict):
            code = str(doc["error"].get("code", ""))
            message = str(doc["error"].get("message", ""))
    except ValueError:
        pass
    if not code:
        text = body[:200].decode("utf-8", "replace")
        message = f"status {status}: {text}" if text else f"status {status}"
    cls = ERRORS.get(code) or _BY_STATUS.get(status)
    if cls is None:
        cls = Unavailable if status >= 500 else DeskrunError
    return cls(message, status=status, code=code or cls.code)
