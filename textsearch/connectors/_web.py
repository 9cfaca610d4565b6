"""Shared plumbing of the web-search connectors (Bing, Bocha): keys, URLs, parsing, cleanup.

Everything here is I/O-free; the sending lives in :mod:`textsearch._http`.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from textsearch._http import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT,
    ErrorDetail,
    HttpEngine,
    HttpRequest,
    HttpResponse,
    VerifyTypes,
)
from textsearch._types import SearchResults, TextSearchResult
from textsearch.base import BaseTextSearch
from textsearch.errors import ConfigurationError, ResponseFormatError

NativeT = TypeVar("NativeT")
ModelT = TypeVar("ModelT", bound=BaseModel)

_HIGHLIGHT = re.compile("[\ue000\ue001]")
# Inline decorations Bing adds with textDecorations/textFormat=HTML; nothing else is touched,
# so that a raw snippet such as "a < b" keeps its text.
_DECORATION = re.compile(r"</?(?:b|strong|i|em|u|mark|span|sup|sub|br|wbr)\b[^<>]*>", re.I)
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


class WireModel(BaseModel):
    """Base of the provider payload models: camelCase aliases, unknown fields ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
        use_attribute_docstrings=True,
    )


def resolve_api_key(api_key: str | None, env_var: str, owner: str) -> str:
    """The key from ``api_key=`` or the environment; a clear error when neither is set."""
    if api_key is not None and not isinstance(api_key, str):
        raise ConfigurationError(f"{owner}: api_key= must be a string")
    key = (api_key or os.environ.get(env_var) or "").strip()
    if not key:
        raise ConfigurationError(
            f"{owner} needs an API key: pass api_key=... or set the {env_var} environment variable"
        )
    if any(ch in key for ch in "\r\n\x00"):
        raise ConfigurationError(f"{owner}: the API key contains a line break or NUL character")
    if not key.isascii() or not key.isprintable():
        # An HTTP header cannot carry it: httpx would fail on every request, key in the repr.
        raise ConfigurationError(
            f"{owner}: the API key must be printable ASCII text (check for a pasted "
            "non-ASCII or invisible character)"
        )
    return key


def check_url(value: object, argument: str, owner: str) -> httpx.URL:
    """Parse an endpoint or base URL; http(s) with a host, or a :class:`ConfigurationError`."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{owner}: {argument} must be a non-empty URL string")
    try:
        url = httpx.URL(value.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ConfigurationError(f"{owner}: {argument} {value!r} is not a valid URL") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(
            f"{owner}: {argument} must be an http(s) URL with a host, got {value!r}"
        )
    if url.userinfo:
        raise ConfigurationError(f"{owner}: {argument} must not carry credentials")
    return url


def check_header_name(value: object, owner: str) -> str:
    """A valid HTTP header name, or a :class:`ConfigurationError`."""
    if not isinstance(value, str) or not _HEADER_NAME.fullmatch(value):
        raise ConfigurationError(f"{owner}: auth_header= must be an HTTP header name")
    return value


def clean_text(value: str | None, *, unescape: bool = False) -> str | None:
    """Remove hit-highlight markers (U+E000/U+E001) and inline HTML decorations."""
    if value is None:
        return None
    if "\ue000" in value or "\ue001" in value:
        value = _HIGHLIGHT.sub("", value)
    if "<" in value:
        value = _DECORATION.sub("", value)
    if unescape and "&" in value:
        value = html.unescape(value)
    return value


def load_json_object(content: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or ``None`` (error bodies of any shape must not crash)."""
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def as_text(value: object) -> str | None:
    """A string field of an error body, whatever JSON type it came as."""
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def validate_body(
    model: type[ModelT],
    response: HttpResponse,
    provider: str,
    *,
    content: bytes | None = None,
    what: str = "search response",
) -> ModelT:
    """Validate a 2xx body against ``model``; any surprise is a :class:`ResponseFormatError`.

    ``content`` replaces the response body (e.g. after a connector's byte-level cleanup).
    """
    if content is None:
        content = response.content
    if not content.strip():
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} with an empty body instead of a {what}",
            provider=provider,
            status_code=response.status_code,
            hints=("an empty 200 answer can mean the service suspects abuse; retry later",),
        )
    try:
        return model.model_validate_json(content)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        first = errors[0] if errors else {"type": "", "loc": (), "msg": ""}
        if first["type"] == "json_invalid":
            reason = "the body is not JSON"
        else:
            where = ".".join(str(p) for p in first["loc"]) or "body"
            reason = f"unexpected shape at {where}: {first['msg']}"
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} but not a valid {what} ({reason})",
            provider=provider,
            status_code=response.status_code,
        ) from None


class WebSearchConnector(BaseTextSearch[NativeT]):
    """Base of the HTTP connectors: owns the :class:`HttpEngine` and the client lifecycle."""

    env_var: ClassVar[str] = ""

    def __init__(
        self,
        *,
        api_key: str | None,
        read_error: Callable[[int, HttpResponse], ErrorDetail],
        http_client: httpx.AsyncClient | httpx.Client | None,
        timeout: float | httpx.Timeout | None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        string_mapper: Callable[[NativeT], str] | None = None,
        text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        verify: VerifyTypes = True,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        owner = type(self).__name__
        self._api_key = resolve_api_key(api_key, self.env_var, owner)
        try:
            self._engine = HttpEngine(
                provider=self.provider_name,
                read_error=read_error,
                http_client=http_client,
                timeout=timeout,
                max_retries=max_retries,
                max_retry_wait=max_retry_wait,
                secret=self._api_key,
                deadline=deadline,
                verify=verify,
            )
        except ConfigurationError as exc:
            raise ConfigurationError(f"{owner}: {exc}") from None

    @property
    def timeout(self) -> httpx.Timeout:
        """The timeout applied to each request."""
        return self._engine.timeout

    @property
    def deadline(self) -> float:
        """Total seconds per search: every attempt, wait and redirect included."""
        return self._engine.deadline

    @property
    def max_retries(self) -> int:
        """Retries after the first attempt."""
        return self._engine.max_retries

    @property
    def max_retry_wait(self) -> float:
        """Longest single wait between attempts, in seconds."""
        return self._engine.max_retry_wait

    async def _send(
        self, request: HttpRequest, parse: Callable[[HttpResponse], SearchResults[NativeT]]
    ) -> SearchResults[NativeT]:
        return await self._engine.send(request, parse)

    def _send_sync(
        self, request: HttpRequest, parse: Callable[[HttpResponse], SearchResults[NativeT]]
    ) -> SearchResults[NativeT]:
        return self._engine.send_sync(request, parse)

    def close(self) -> None:
        """Close the blocking HTTP client this connector created (never an injected one).

        An async client it created is closed by :meth:`aclose` (or ``async with``).
        """
        self._engine.close()

    async def aclose(self) -> None:
        """Close every HTTP client this connector created (never an injected one)."""
        await self._engine.aclose()
