"""Keys out of everything a developer or a log can see.

A server may echo the key back: in an error message, an error code, a response header that
ends up in a hint, or a header that httpcore logs at DEBUG. The engine scrubs its own
messages with `scrub`; `SecretFilter`, installed on the loggers of textsearch,
httpx and httpcore (and their ``httpx2``/``httpcore2`` twins), aiohttp and urllib3, scrubs
every record they emit. The registry holds each key once, for as long as the process runs
(the connectors hold the same strings anyway).
"""

from __future__ import annotations

import logging
import threading
from typing import Final

__all__ = ["MASK", "SecretFilter", "register_secret", "scrub", "scrub_exception"]

MASK: Final = "***"
#: Keys shorter than this are not scrubbed: a two-letter "key" would mangle every message.
MIN_SECRET_LENGTH: Final = 8

# Filters apply only to records created by the logger they are attached to, not to those
# of its children, so every logger that may carry headers is listed.
_LOGGERS: Final = (
    "textsearch",
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "httpx2",
    "httpcore2",
    "httpcore2.connection",
    "httpcore2.http11",
    "httpcore2.http2",
    "httpcore2.proxy",
    "httpcore2.socks",
    "aiohttp.client",
    "aiohttp.internal",
    "urllib3",
    "urllib3.connectionpool",
    "urllib3.connection",
    "urllib3.poolmanager",
    "urllib3.response",
    "urllib3.util.retry",
)

_secrets: tuple[str, ...] = ()
_lock = threading.Lock()
_installed = False


def scrub(text: str) -> str:
    """``text`` with every registered key replaced by ``***``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def has_secret(text: str) -> bool:
    """Whether ``text`` holds a registered key."""
    return any(secret in text for secret in _secrets)


class SecretFilter(logging.Filter):
    """Rewrites a log record that holds a registered key (message, arguments, traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not _secrets:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a broken record is the logging module's problem, not ours
            return True
        if has_secret(message):
            record.msg, record.args = scrub(message), ()
        if record.exc_info and not record.exc_text:
            # Formatted now, scrubbed once; handlers reuse ``exc_text``.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text and has_secret(record.exc_text):
            record.exc_text = scrub(record.exc_text)
        if record.stack_info and has_secret(record.stack_info):
            record.stack_info = scrub(record.stack_info)
        for name, value in list(record.__dict__.items()):
            if isinstance(value, str) and name not in ("msg", "exc_text", "stack_info"):
                if has_secret(value):
                    record.__dict__[name] = scrub(value)
        return True


_FILTER: Final = SecretFilter()


def register_secret(secret: str | None) -> str | None:
    """Remember ``secret`` for scrubbing; returns it, or ``None`` when too short to scrub."""
    global _secrets, _installed
    if not secret or len(secret) < MIN_SECRET_LENGTH:
        return None
    with _lock:
        if secret not in _secrets:
            # Longest first: a key that contains another one is masked whole.
            _secrets = tuple(sorted({*_secrets, secret}, key=len, reverse=True))
        if not _installed:
            for name in _LOGGERS:
                logging.getLogger(name).addFilter(_FILTER)
            _installed = True
    return secret


def scrub_exception(error: BaseException) -> BaseException:
    """A copy of ``error`` safe to chain: its type and scrubbed message, no traceback.

    The original may hold the request (whose headers carry the key) and frames that hold it;
    the copy keeps what helps debugging. A type that cannot be rebuilt from a message becomes
    a plain ``Exception`` carrying the type's name.
    """
    text = scrub(str(error))
    try:
        copy = type(error)(text)
    except Exception:
        copy = Exception(f"{type(error).__name__}: {text}")
    if str(copy) != text or has_secret(repr(copy)):
        copy = Exception(f"{type(error).__name__}: {text}")
    return copy
