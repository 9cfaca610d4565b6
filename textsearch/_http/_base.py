"""The data an HTTP connector and the engine exchange, and the I/O-free rules around it.

Request and response descriptions, the error body a connector reads, the status -> error
class table, ``Retry-After`` parsing and the settings checks. `textsearch._http._engine`
re-exports the public names.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping, Sized
from dataclasses import dataclass
from datetime import timezone
from typing import Final, NamedTuple, TypeVar

import httpx

from textsearch._http._redact import scrub_exception
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    ServiceUnavailableError,
)

#: Connect 5 s; read, write and pool 20 s.
DEFAULT_TIMEOUT: Final = httpx.Timeout(20.0, connect=5.0)
DEFAULT_MAX_RETRIES: Final = 2
#: Longest single wait between two attempts, whatever ``Retry-After`` or the backoff says.
DEFAULT_MAX_RETRY_WAIT: Final = 10.0
#: First backoff ceiling; doubled at each retry (full jitter picks uniformly below it).
BACKOFF_BASE: Final = 0.5
#: Statuses worth another try: throttling and transient server failures.
RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
#: Failures worth another try: timeouts, refused/reset connections, a server that hung up.
#: Others (an unsupported scheme, a bad proxy, a broken gzip stream) will not get better.
RETRY_EXCEPTIONS: Final = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)

ResultT = TypeVar("ResultT", bound=Sized)


@dataclass(frozen=True)
class HttpResponse:
    """What a connector's parser gets: status, headers and the whole (capped) body.

    ``url`` is the full URL that was asked (query included), set for error answers only.
    """

    status_code: int
    headers: Mapping[str, str]
    content: bytes
    url: str = ""


@dataclass(frozen=True)
class ErrorDetail:
    """A provider's error body, as read by the connector.

    Attributes:
        code: The provider's error code, if any.
        sub_code: Its sub-code, if any.
        message: The provider's message (never the raw body of an unknown shape).
        error_class: Overrides the class the status alone would give (e.g. 403 by code).
        hints: Extra actionable hints for the developer.
        retryable: Whether another attempt could succeed, decided from the body (Brave
            answers 429 both for a rate limit and for a spent quota). ``None`` leaves it to
            the status and class: 429/5xx retry, a `QuotaExceededError` never does.
        retry_after: Seconds to wait before another attempt, read from the provider's own
            headers or body (Brave's ``X-RateLimit-Reset``); used only when there is no
            ``Retry-After`` header, and under the same rules (capped by ``max_retry_wait``
            and the deadline; longer means the error at once, with ``retry_after`` set).
    """

    code: str | None = None
    sub_code: str | None = None
    message: str | None = None
    error_class: type[ProviderError] | None = None
    hints: tuple[str, ...] = ()
    retryable: bool | None = None
    retry_after: float | None = None


class BodyStatusError(Exception):
    """Raised by a parser when a 2xx body reports an error status of its own."""

    def __init__(self, status_code: int, detail: ErrorDetail) -> None:
        super().__init__(status_code)
        self.status_code = status_code
        self.detail = detail


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date).

    Returns ``None`` when the header is absent or unreadable; never a negative number.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN is unreadable
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


_STATUS_CLASSES: Final[dict[int, type[ProviderError]]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    410: ProviderRetiredError,
    429: RateLimitError,
}


def _retryable(status: int | None, detail: ErrorDetail | None) -> bool:
    """Whether an error answer is worth another attempt (the body may overrule the status)."""
    if detail is not None:
        if detail.retryable is not None:
            return detail.retryable
        if detail.error_class is not None and issubclass(detail.error_class, QuotaExceededError):
            return False  # a spent quota does not come back in a few seconds
    return status in RETRY_STATUSES


def error_class_for_status(status: int) -> type[ProviderError]:
    """The documented error for an HTTP status a provider's own reader did not classify."""
    cls = _STATUS_CLASSES.get(status)
    if cls is not None:
        return cls
    if status >= 500:
        return ServiceUnavailableError
    return ProviderError


def _where(url: str) -> str:
    """Scheme, host and path of a URL: what may appear in logs and messages."""
    cut = url.find("?")
    return url if cut < 0 else url[:cut]


def _reason(status: int) -> str:
    try:
        from http import HTTPStatus

        return HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _check_timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ConfigurationError(
            f"timeout= must be a positive number of seconds or an httpx.Timeout, got {timeout!r}"
        )
    return httpx.Timeout(float(timeout))


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name}= must be a whole number >= {minimum}, got {value!r}")
    return value


def check_positive_seconds(name: str, value: object) -> float:
    """``value`` as a positive number of seconds (``deadline=``, a per-call ``timeout=``).

    Raises:
        ConfigurationError: Not a number (a bool is not), or not above 0.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigurationError(f"{name}= must be a positive number of seconds, got {value!r}")
    return float(value)


class Limits(NamedTuple):
    """The checked limits of a connector's calls: the one policy of every HTTP path."""

    max_retries: int
    max_retry_wait: float
    max_response_bytes: int
    deadline: float


def check_limits(
    max_retries: object, max_retry_wait: object, max_response_bytes: object, deadline: object
) -> Limits:
    """The retry, size and deadline settings, checked as the HTTP engine checks them.

    Used by the engine and by the connectors that talk through another stack (Azure's
    pipeline), so that every connector accepts and refuses the same values.

    Raises:
        ConfigurationError: A value of the wrong type or out of range.
    """
    return Limits(
        _check_int("max_retries", max_retries, 0),
        check_seconds("max_retry_wait", max_retry_wait),
        _check_int("max_response_bytes", max_response_bytes, 1),
        check_positive_seconds("deadline", deadline),
    )


def _check_transport(value: object) -> str:
    from textsearch._http._transports._httpx import TRANSPORTS, aiohttp_installed, urllib3_installed

    if value not in TRANSPORTS:
        raise ConfigurationError(
            f"transport= must be one of {', '.join(TRANSPORTS)}, got {value!r}"
        )
    if value in ("aiohttp", "fast") and not aiohttp_installed():
        raise ConfigurationError(
            f'transport="{value}" needs aiohttp: pip install "textsearch-sdk[fast]"'
        )
    if value in ("urllib3", "fast") and not urllib3_installed():
        raise ConfigurationError(
            f'transport="{value}" needs urllib3: pip install "textsearch-sdk[fast]"'
        )
    return str(value)


def check_seconds(name: str, value: object) -> float:
    """``value`` as a number of seconds, 0 allowed (a wait, a backoff factor).

    Raises:
        ConfigurationError: Not a number (a bool is not), or below 0.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigurationError(f"{name}= must be a number of seconds >= 0, got {value!r}")
    return float(value)


def bearer_or_plain(header: str, key: str) -> str:
    """The header value for ``key``: ``Bearer <key>`` for ``Authorization``, else the key."""
    if header.lower() == "authorization" and not key.lower().startswith("bearer "):
        return f"Bearer {key}"
    return key


def _detached(error: BaseException) -> BaseException:
    """The cause to chain: the error's type and scrubbed message, without request or frames."""
    return scrub_exception(error)
