"""The HTTP subsystem: one engine, its transports and the guards every path shares.

Connectors describe requests (:class:`HttpRequest`) and parse responses
(:class:`HttpResponse`) with pure code; :class:`HttpEngine` sends them. See
:mod:`textsearch._http._engine` for what the engine guarantees.
"""

from __future__ import annotations

from textsearch._http._engine import (
    DEFAULT_DEADLINE,
    DEFAULT_LIMITS,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT,
    DEFAULT_TIMEOUT,
    BodyStatusError,
    ErrorDetail,
    HttpEngine,
    HttpRequest,
    HttpResponse,
    VerifyTypes,
    bearer_or_plain,
    parse_retry_after,
)

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_WAIT",
    "DEFAULT_TIMEOUT",
    "BodyStatusError",
    "ErrorDetail",
    "HttpEngine",
    "HttpRequest",
    "HttpResponse",
    "VerifyTypes",
    "bearer_or_plain",
    "parse_retry_after",
]

# The HTTP settings every HTTP connector takes (appended: the engine's exports stay above).
from textsearch._http._settings import HttpSettings

__all__ += ["HttpSettings"]
