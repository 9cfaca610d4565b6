"""Azure AI Search failures: azure-core exceptions mapped to the textsearch error tree, and logs.

One place translates every SDK failure (`map_error`), for the async and the blocking
path alike; the key is scrubbed from whatever the service echoes back.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import traceback
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from textsearch._types import SearchResults
from textsearch.connectors.azure._parse import PROVIDER
from textsearch.connectors.azure._transport import (
    DeadlineExceeded,
    ResponseTooLarge,
    current_tokens,
    in_search,
)
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearchError,
)

logger = logging.getLogger("textsearch")

ENV_ENDPOINT = "AZURE_SEARCH_ENDPOINT"
ENV_INDEX = "AZURE_SEARCH_INDEX"
ENV_KEY = "AZURE_SEARCH_API_KEY"
#: The index's vector field(s) to query, comma-separated (`AzureAISearchTextSearch.from_env`).
ENV_VECTOR_FIELDS = "AZURE_SEARCH_VECTOR_FIELDS"


@dataclass(frozen=True)
class ErrorContext:
    """What an error message may say about the connector (never the key itself)."""

    endpoint: str | None
    index_name: str | None
    timeout: float
    max_retries: int
    secret: str | None = None
    deadline: float = 60.0
    #: Bearer tokens sent by this connector's searches (a credential refreshes them).
    tokens: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return f"endpoint {self.endpoint or '(injected client)'}"

    def redact(self, text: str) -> str:
        """``text`` with the key and every bearer token sent replaced by ``***``."""
        return _scrub(text, (self.secret, *self.tokens))


# azure-core's network trace logs the request headers, Authorization included, before the
# request reaches the transport that records the token: any bearer credential is masked too.
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9\-._~+/]+=*")


def _scrub(text: str, secrets: Any) -> str:
    # Longest first, so that a secret containing another is replaced whole.
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, "***")
    if "earer" in text:
        text = _BEARER.sub(r"\1***", text)
    return text


def _retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1000.0), ("x-ms-retry-after-ms", 1000.0)):
        raw = lowered.get(name)
        if raw:
            try:
                return max(0.0, float(raw) / scale)
            except ValueError:
                pass
    raw = lowered.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


_ErrorT = TypeVar("_ErrorT", bound="ProviderError | SearchTransportError")


def _failed(cls: type[_ErrorT], ctx: ErrorContext, message: str, *hints: str) -> _ErrorT:
    """An error without an HTTP status: it names the provider, and its first hint where."""
    return cls(message, provider=PROVIDER, hints=[ctx.where, *hints])


def _retried(cls: type[_ErrorT], ctx: ErrorContext, message: str, hint: str) -> _ErrorT:
    """`_failed`, for a failure that outlasted the SDK's retries."""
    return _failed(cls, ctx, f"{message} (after {ctx.max_retries} retries)", hint)


def translate(
    exc: BaseException, ctx: ErrorContext, *, past_deadline: bool = False
) -> BaseException:
    """The documented error for anything a search through the SDK raised (or ``exc`` itself).

    Args:
        exc: What the SDK call raised.
        ctx: What messages may say about the connector.
        past_deadline: The search's deadline has passed: a failure other than a complete
            HTTP error answer is then the deadline cutting the connection.
    """
    from azure.core.exceptions import AzureError, HttpResponseError

    answered = isinstance(exc, HttpResponseError) and exc.status_code is not None
    if isinstance(exc, (DeadlineExceeded, asyncio.TimeoutError)) or (
        # Past the deadline the watchdog cut the connection: whatever broke after that
        # (a read, or parsing the half-read answer) broke because of the deadline.
        past_deadline and isinstance(exc, Exception) and not answered
    ):
        return _failed(
            SearchTimeoutError,
            ctx,
            f"Azure AI Search did not complete the search within its {ctx.deadline:g} s "
            "deadline (attempts and waits included)",
            "raise deadline= or check the service's health",
        )
    if isinstance(exc, ResponseTooLarge):
        return _failed(
            ResponseFormatError,
            ctx,
            f"Azure AI Search answered with more than {exc.limit} bytes (after "
            "decompression); the rest was not read",
            "raise max_response_bytes= or ask for fewer results (top)",
        )
    if isinstance(exc, AzureError):
        return map_error(exc, ctx)
    if isinstance(exc, (ValueError, TypeError, LookupError, AttributeError, RecursionError)):
        # Only SDK calls run inside the guarded block: these come from the SDK choking on
        # a 2xx body that is not a search result (empty, not JSON, wrong shapes, nested
        # deeper than the JSON parser goes).
        return _failed(
            ResponseFormatError,
            ctx,
            "Azure AI Search answered, but not with a search result the SDK could read "
            f"({type(exc).__name__})",
        )
    return exc


def map_error(exc: Exception, ctx: ErrorContext) -> TextSearchError:
    """Translate one azure-core exception into the textsearch error tree (the one place)."""
    from azure.core.exceptions import (
        ClientAuthenticationError,
        DecodeError,
        DeserializationError,
        HttpResponseError,
        ResourceNotFoundError,
        ServiceRequestError,
        ServiceRequestTimeoutError,
        ServiceResponseError,
        ServiceResponseTimeoutError,
    )

    where = ctx.where
    index = ctx.index_name or "(unknown)"
    if isinstance(exc, (ServiceRequestTimeoutError, ServiceResponseTimeoutError)):
        message = f"Azure AI Search did not answer within {ctx.timeout:g} s"
        hint = "raise timeout= or check the service's health"
        return _retried(SearchTimeoutError, ctx, message, hint)
    if isinstance(exc, (ServiceRequestError, ServiceResponseError)):
        message = f"could not reach Azure AI Search: {type(exc).__name__}"
        hint = "check the endpoint URL and the network"
        return _retried(SearchTransportError, ctx, message, hint)
    status_of = getattr(exc, "status_code", None)
    if isinstance(exc, (DecodeError, DeserializationError)) and (
        status_of is None or status_of < 400
    ):
        return _failed(
            ResponseFormatError,
            ctx,
            "Azure AI Search answered, but not with a search result the SDK could read",
        )
    if isinstance(exc, HttpResponseError):
        status = exc.status_code
        error = getattr(exc, "error", None)
        code = getattr(error, "code", None) or None
        if code is not None:
            code = ctx.redact(str(code))
        service_message = getattr(error, "message", None) or exc.reason or ""
        service_message = ctx.redact(" ".join(str(service_message).split()))
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        retry_after = _retry_after_seconds(headers)
        common: dict[str, Any] = {"provider": PROVIDER, "status_code": status, "code": code}
        suffix = f": {service_message}" if service_message else ""
        if status is not None and 300 <= status < 400:
            return ProviderError(
                f"Azure AI Search answered with a redirect (HTTP {status}) that was not "
                "followed: it leads to another origin, and the key stays with the "
                "configured endpoint",
                hints=[where, "check the endpoint URL (use the service's own URL)"],
                **common,
            )
        if status == 401 or (isinstance(exc, ClientAuthenticationError) and status is None):
            return AuthenticationError(
                f"Azure AI Search rejected the credentials (HTTP {status or 'n/a'}){suffix}",
                hints=[
                    f"check the api key ({ENV_KEY}) or the token credential",
                    where,
                ],
                **common,
            )
        if status == 403:
            return PermissionDeniedError(
                f"Azure AI Search refused access to index {index!r} (HTTP 403){suffix}",
                hints=[
                    "check the key (a query key can search; is it for this service?) or "
                    "the role assignment (Search Index Data Reader) of the credential",
                    where,
                ],
                **common,
            )
        if status == 404 or isinstance(exc, ResourceNotFoundError):
            return NotFoundError(
                f"Azure AI Search index {index!r} was not found (HTTP 404){suffix}",
                hints=[f"check index_name / {ENV_INDEX}", where],
                **common,
            )
        if status == 400:
            return BadRequestError(
                f"Azure AI Search rejected the request (HTTP 400){suffix}",
                hints=["check filter field names and types, select and search_fields"],
                **common,
            )
        if status == 402:
            return QuotaExceededError(
                f"Azure AI Search quota exhausted (HTTP 402){suffix}",
                hints=["the free semantic ranker quota may be used up"],
                **common,
            )
        if status == 429:
            return RateLimitError(
                f"Azure AI Search is throttling requests (HTTP 429){suffix}",
                retry_after=retry_after,
                hints=[f"retried {ctx.max_retries} times; slow down or scale the service"],
                **common,
            )
        if status is not None and status >= 500:
            return ServiceUnavailableError(
                f"Azure AI Search failed (HTTP {status}){suffix}",
                retry_after=retry_after,
                hints=[f"retried {ctx.max_retries} times", where],
                **common,
            )
        return ProviderError(
            f"Azure AI Search answered HTTP {status}{suffix}", hints=[where], **common
        )
    return ProviderError(
        f"Azure AI Search request failed: {type(exc).__name__}",
        provider=PROVIDER,
        hints=[where],
    )


def log_success(
    index_name: str | None, query: str, started: float, results: SearchResults[Any]
) -> None:
    latency_ms = (time.perf_counter() - started) * 1000
    extra = {
        "textsearch_provider": PROVIDER,
        "textsearch_index": index_name,
        "textsearch_latency_ms": round(latency_ms, 1),
        "textsearch_result_count": len(results),
    }
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "azure_ai_search search index=%s results=%d total=%s latency_ms=%.1f query=%r",
            index_name,
            len(results),
            results.total_count,
            latency_ms,
            query,
            extra=extra,
        )
    else:
        logger.info(
            "azure_ai_search search index=%s results=%d total=%s latency_ms=%.1f",
            index_name,
            len(results),
            results.total_count,
            latency_ms,
            extra=extra,
        )


def log_failure(index_name: str | None, query: str, started: float, error: Exception) -> None:
    latency_ms = (time.perf_counter() - started) * 1000
    status = getattr(error, "status_code", None)
    extra = {
        "textsearch_provider": PROVIDER,
        "textsearch_index": index_name,
        "textsearch_latency_ms": round(latency_ms, 1),
        "textsearch_error": type(error).__name__,
    }
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "azure_ai_search search failed index=%s error=%s status=%s latency_ms=%.1f query=%r",
            index_name,
            type(error).__name__,
            status,
            latency_ms,
            query,
            extra=extra,
        )
    else:
        logger.warning(
            "azure_ai_search search failed index=%s error=%s status=%s latency_ms=%.1f",
            index_name,
            type(error).__name__,
            status,
            latency_ms,
            extra=extra,
        )


# -- keys in other libraries' log records -----------------------------------------------------

#: Loggers that may write what the service echoed back (azure-core's network trace logs
#: request headers and response bodies with ``logging_enable=True``), or tracebacks of errors
#: that carry it.
SCRUBBED_LOGGERS = (
    "textsearch",
    "azure.core.pipeline.policies._universal",
    "azure.core.pipeline.policies.http_logging_policy",
    "azure.core.pipeline.transport._base",
    "azure.core.pipeline.transport._aiohttp",
    "azure.core.pipeline.transport._requests_basic",
    "azure.search.documents._utils.model_base",
    "azure.search.documents._utils.serialization",
    "urllib3.connectionpool",
    "urllib3.connection",
    "aiohttp.client",
)

_KEY_HOLDERS: weakref.WeakSet[Any] = weakref.WeakSet()


def _has_secret(text: str, secrets: list[str]) -> bool:
    return any(s in text for s in secrets) or bool(_BEARER.search(text))


def _live_secrets() -> list[str]:
    secrets: list[str] = []
    for holder in list(_KEY_HOLDERS):
        secret = getattr(holder, "_secret", None)
        if secret:
            secrets.append(secret)
        secrets.extend(t for t in getattr(holder, "_tokens", ()) or () if t)
    secrets.extend(t for t in current_tokens() or () if t)  # an injected client's search
    return secrets


class _KeyScrubber(logging.Filter):
    """Replaces the key and bearer tokens of any live connector in a record and its traceback.

    During a search of the connector it also keeps azure-core's WARNING records (e.g. "Ran
    into a deserialization error" with a traceback) away from Python's last-resort handler:
    the connector maps that failure to one documented error itself, so the record is
    demoted to DEBUG (and dropped where DEBUG is not enabled).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING and record.name.startswith("azure.") and in_search():
            if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
                return False
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        secrets = _live_secrets()

        def scrub(text: str) -> str:
            return _scrub(text, secrets)

        try:
            message = record.getMessage()
        except Exception:  # a broken record: leave it to the handler's own error path
            return True
        if _has_secret(message, secrets):
            record.msg, record.args = scrub(message), None
        if record.exc_info:
            text = "".join(traceback.format_exception(*record.exc_info))
            if _has_secret(text, secrets):
                record.exc_info, record.exc_text = None, scrub(text).rstrip("\n")
        elif record.exc_text and _has_secret(record.exc_text, secrets):
            record.exc_text = scrub(record.exc_text)
        return True


_SCRUBBER = _KeyScrubber()


def protect_logs(holder: Any) -> None:
    """Keep ``holder._secret`` and ``holder._tokens`` out of the records of
    `SCRUBBED_LOGGERS` while the holder lives."""
    _KEY_HOLDERS.add(holder)
    for name in SCRUBBED_LOGGERS:
        log = logging.getLogger(name)
        if _SCRUBBER not in log.filters:
            log.addFilter(_SCRUBBER)
