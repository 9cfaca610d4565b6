"""The HTTP subsystem: one engine, its transports and the guards every path shares.

Connectors describe requests (`HttpRequest`) and parse responses
(`HttpResponse`) with pure code; `HttpEngine` sends them. See
`textsearch._http._engine` for what the engine guarantees.
"""

from __future__ import annotations

# The engine's public names are listed once, in its __all__.
from textsearch._http import _engine
from textsearch._http._base import Limits, check_limits, check_positive_seconds, check_seconds
from textsearch._http._engine import *  # noqa: F403
from textsearch._http._settings import HttpSettings

__all__ = [
    *_engine.__all__,
    "HttpSettings",
    "Limits",
    "check_limits",
    "check_positive_seconds",
    "check_seconds",
]
