"""The one exception tree of textsearch.

Every error the SDK raises on purpose is a `TextSearchError`. Mistakes by the
caller (`ConfigurationError`, `InvalidRequestError`) are kept apart from
errors reported by a backend (`ProviderError` and its subclasses) and from
failures to reach the backend at all (`SearchTransportError`).

Exceptions carry data (``provider``, ``status_code``, ``code``, ``sub_code``,
``retry_after``, ``hints``) so that callers can react without parsing messages.
No message ever contains an API key: connectors build messages from the parsed
error body and from configuration that is not secret.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AllProvidersFailedError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "InvalidRequestError",
    "NotFoundError",
    "PermissionDeniedError",
    "ProviderError",
    "ProviderRetiredError",
    "QuotaExceededError",
    "RateLimitError",
    "ResponseFormatError",
    "SearchTimeoutError",
    "SearchTransportError",
    "ServiceUnavailableError",
    "TextSearchError",
    "UnsupportedFilterError",
]


class TextSearchError(Exception):
    """Root of every error raised by textsearch."""


class ConfigurationError(TextSearchError):
    """A connector is missing a key or endpoint, or got a bad constructor argument."""


class InvalidRequestError(TextSearchError, ValueError):
    """The query or the search options are not valid; raised before any network call."""


class UnsupportedFilterError(InvalidRequestError):
    """A filter names a field this connector cannot honour.

    Attributes:
        field_name: The field that cannot be honoured.
        supported_fields: The fields the connector does support (may be empty when the
            connector accepts open-ended field names that follow a pattern).
    """

    def __init__(
        self,
        message: str,
        *,
        field_name: str | None = None,
        supported_fields: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.field_name = field_name
        self.supported_fields: tuple[str, ...] = tuple(supported_fields)


class _ReportedError(TextSearchError):
    """What a backend's error and a failure to reach it share: who, what, and hints."""

    def __init__(
        self, message: str, *, provider: str | None = None, hints: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.hints: tuple[str, ...] = tuple(hints)

    def __str__(self) -> str:
        text = self.message
        if self.hints:
            text += " (hint: " + "; ".join(self.hints) + ")"
        return text


class ProviderError(_ReportedError):
    """The backend answered, and its answer was an error.

    Attributes:
        provider: Short name of the backend (``"bing"``, ``"bocha"``, ``"azure_ai_search"``...).
        status_code: HTTP status of the answer, when there was one.
        code: The provider's own error code, when it sent one.
        sub_code: The provider's sub-code, where it has such a thing.
        retry_after: Seconds the provider asked us to wait, or ``None`` when it did not say.
        hints: Short, actionable suggestions for the developer.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        code: str | None = None,
        sub_code: str | None = None,
        retry_after: float | None = None,
        hints: Sequence[str] = (),
    ) -> None:
        super().__init__(message, provider=provider, hints=hints)
        self.status_code = status_code
        self.code = code
        self.sub_code = sub_code
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, provider={self.provider!r}, "
            f"status_code={self.status_code!r}, code={self.code!r})"
        )


class BadRequestError(ProviderError, InvalidRequestError):
    """The backend rejected the request as malformed (HTTP 400); carries its message."""


class AuthenticationError(ProviderError):
    """The key or credential is missing, wrong or expired (HTTP 401 or the equivalent)."""


class PermissionDeniedError(ProviderError):
    """The credential is valid but not allowed to do this (HTTP 403 not about money)."""


class QuotaExceededError(ProviderError):
    """Out of credit or past a monthly quota; retrying soon will not help."""


class NotFoundError(ProviderError):
    """The addressed resource does not exist (for example an Azure AI Search index)."""


class RateLimitError(ProviderError):
    """Too many requests (HTTP 429) after the configured retries; see ``retry_after``."""


class ServiceUnavailableError(ProviderError):
    """The backend failed on its side (HTTP 5xx) after the configured retries."""


class ProviderRetiredError(ProviderError):
    """The service behind this endpoint has been retired (HTTP 410), e.g. Bing Web Search v7."""


class ResponseFormatError(ProviderError):
    """The backend answered with success, but not in the documented shape."""


class AllProvidersFailedError(ProviderError):
    """Every provider of a composed search failed (``FallbackTextSearch``, ``FusedTextSearch``).

    Attributes:
        errors: Each provider's failure, in provider order (a provider skipped while cooling
            down contributes the failure that started its cooldown).
        retry_after: The shortest wait any failure asked for, when one did.
    """

    def __init__(
        self,
        message: str,
        *,
        errors: Sequence[Exception] = (),
        provider: str | None = None,
        retry_after: float | None = None,
        hints: Sequence[str] = (),
    ) -> None:
        super().__init__(message, provider=provider, retry_after=retry_after, hints=hints)
        self.errors: list[Exception] = list(errors)


class SearchTransportError(_ReportedError):
    """The backend could not be reached (connection, TLS, protocol) after the configured retries.

    Attributes:
        provider: Short name of the backend.
        hints: Short, actionable suggestions (for example the endpoint that was tried).
    """


class SearchTimeoutError(SearchTransportError, TimeoutError):
    """The backend did not answer within the configured timeout, after the configured retries."""
