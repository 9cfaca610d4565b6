"""``SearxngTextSearch``: a SearXNG instance's JSON API, ``GET {base_url}/search?format=json``.

SearXNG is an open-source metasearch engine that you host yourself; it needs no key. Its JSON
format works only when the instance enables it (``search: formats: [html, json]`` in its
``settings.yml``); otherwise it answers 403, raised as
:class:`~textsearch.errors.PermissionDeniedError` with that hint. An HTML page answered with
200 (a bot check of a public instance) is a :class:`~textsearch.errors.ResponseFormatError`.

SearXNG has no result-count parameter: its page size is fixed by the instance. ``top`` and
``skip`` are served by fetching pages (``pageno`` 1, 2, ...) until ``skip + top`` distinct
results are in hand, the instance runs out, or ``max_pages`` pages were read.

Filters: ``site``/``exclude_site`` become ``site:``/``-site:`` in ``q``; engines that do not
understand the operator ignore it, so every result's host is checked too and rows outside the
filter are dropped (a filter is never loosened); ``freshness`` (``day|week|month|year``) becomes
``time_range``; ``language`` and ``safe_search`` (``safesearch`` 0/1/2) are sent as such. A
date range or ``country`` cannot be expressed, so they are an
:class:`~textsearch.errors.UnsupportedFilterError` before any request. SearXNG's own
``categories`` and ``engines`` (comma lists) are accepted as filter fields too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, Final

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator

from textsearch._http import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT,
    ErrorDetail,
    HttpRequest,
    HttpResponse,
    VerifyTypes,
    bearer_or_plain,
)
from textsearch._types import SearchOptions, SearchResults, TextSearchFilter, TextSearchResult
from textsearch.connectors.web._base import (
    WebSearchConnector,
    as_text,
    check_header_name,
    check_url,
    clean_text,
    load_json_object,
    resolve_api_key,
    validate_body,
    validate_items,
)
from textsearch.connectors.web._portable import (
    EXCLUDE_SITE,
    FRESHNESS,
    LANGUAGE,
    SAFE_SEARCH,
    SITE,
    site_operators,
    split_filter,
    url_allowed,
)
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    ProviderError,
    ResponseFormatError,
    UnsupportedFilterError,
)

__all__ = ["SearxngResult", "SearxngTextSearch"]

ENV_VAR: Final = "SEARXNG_URL"
PORTABLE_FILTER_FIELDS: Final = frozenset({SITE, EXCLUDE_SITE, FRESHNESS, LANGUAGE, SAFE_SEARCH})
NATIVE_FILTER_FIELDS: Final = frozenset({"categories", "engines"})
SUPPORTED_FILTER_FIELDS: Final = PORTABLE_FILTER_FIELDS | NATIVE_FILTER_FIELDS
DEFAULT_MAX_PAGES: Final = 5
_SAFESEARCH: Final = {"off": "0", "moderate": "1", "strict": "2"}
_NAMES: Final = re.compile(r"^[a-z0-9 _.\-]+(,[a-z0-9 _.\-]+)*$", re.I)
_JSON_OFF_HINT: Final = (
    "SearXNG answers 403 when its JSON format is off: add json to search.formats in the "
    "instance's settings.yml (formats: [html, json]) and restart it"
)


class _Snake(BaseModel):
    model_config = ConfigDict(
        extra="ignore", frozen=True, use_attribute_docstrings=True, populate_by_name=True
    )


class SearxngResult(_Snake):
    """One result of a SearXNG instance (``results[]`` of the JSON format)."""

    url: str | None = None
    """URL of the page."""
    title: str | None = None
    """Title of the page."""
    content: str | None = None
    """A passage of the page, as the engines gave it."""
    engine: str | None = None
    """The engine that ranked it best."""
    engines: list[str] = Field(default_factory=list)
    """Every engine that returned it."""
    positions: list[int] = Field(default_factory=list)
    """Its rank in each engine's list."""
    score: float | None = None
    """SearXNG's merged score."""
    category: str | None = None
    """The category it was found in (``general``, ``news``, ...)."""
    published_date: datetime | None = Field(default=None, alias="publishedDate")
    """When it was published, when an engine says so."""
    thumbnail: str | None = None
    """URL of a thumbnail, when there is one."""
    img_src: str | None = None
    """URL of an image, for image results."""
    parsed_url: list[str] = Field(default_factory=list)
    """The URL split into scheme, host, path, params, query and fragment."""
    template: str | None = None
    """The HTML template the instance would render it with."""

    @field_validator("title", "content", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        return clean_text(value, unescape=True) if isinstance(value, str) else value

    @field_validator("engines", "parsed_url", "positions", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        if value is None:
            return []
        return [v for v in value if v is not None] if isinstance(value, list) else value

    @field_validator("published_date", mode="before")
    @classmethod
    def _lenient_date(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            except ValueError:
                return None  # engines write dates in many shapes: unknown, not malformed
        return value if isinstance(value, datetime) else None

    @field_validator("score", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class _SearchResponse(_Snake):
    query: str | int | float | None = None
    number_of_results: float | None = None
    # Each result is validated on its own (validate_items): one odd result is skipped and
    # counted, it does not fail the page.
    results: list[Any] | None = None
    suggestions: list[Any] = Field(default_factory=list)
    corrections: list[Any] = Field(default_factory=list)
    unresponsive_engines: list[Any] = Field(default_factory=list)

    @field_validator("results", mode="before")
    @classmethod
    def _drop_nulls(cls, value: Any) -> Any:
        return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else value

    @field_validator("suggestions", "corrections", "unresponsive_engines", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        return value if isinstance(value, list) else []


def read_searxng_error(status: int, response: HttpResponse) -> ErrorDetail:
    """SearXNG answers errors as HTML or plain text; only the status and a hint are kept."""
    body = load_json_object(response.content) or {}
    message = as_text(body.get("error")) or as_text(body.get("message"))
    error_class: type[ProviderError] | None = None
    hints: tuple[str, ...] = ()
    if status == 403:
        error_class = PermissionDeniedError
        hints = (_JSON_OFF_HINT, "a proxy in front of the instance may also refuse the request")
        message = message or "forbidden (is the JSON format enabled on this instance?)"
    elif status == 429:
        hints = ("the instance's limiter refused the request; a self-hosted instance avoids it",)
    elif status == 401:
        hints = ("the proxy in front of the instance wants credentials: set api_key=",)
    return ErrorDetail(message=message, error_class=error_class, hints=hints)


class SearxngTextSearch(WebSearchConnector[SearxngResult]):
    """Search the web through a SearXNG instance (self-hosted metasearch, no key needed).

    Args:
        base_url: The instance's URL (``https://searx.example.org``); defaults to the
            ``SEARXNG_URL`` variable. ``/search`` is appended.
        api_key: A token for a proxy in front of the instance, if it wants one.
        auth_header: Header that carries ``api_key`` (default ``Authorization``, sent as
            ``Bearer <key>``).
        max_pages: Most pages read for one search (SearXNG's page size is fixed by the
            instance, so ``skip + top`` results may take several pages).
        http_client: An ``httpx.AsyncClient`` or ``httpx.Client`` to use; it is never closed
            by this connector. The other kind is created when needed and owned.
        timeout: Seconds or an ``httpx.Timeout`` (default: 5 s connect, 20 s read).
        max_retries: Retries on 429, 5xx, timeouts and connection failures (0 disables).
        max_retry_wait: Longest single wait between attempts, in seconds.
        string_mapper: Turns a :class:`SearxngResult` into the string :meth:`search` returns.
        text_search_result_mapper: Turns a :class:`SearxngResult` into a ``TextSearchResult``.
        deadline: Total seconds per search, every attempt, wait and redirect included
            (default 60); past it, ``SearchTimeoutError``. ``timeout=`` stays per phase.
        verify: TLS verification for the clients this connector creates: ``True``
            (default), a CA bundle path, an ``ssl.SSLContext`` (e.g. a corporate CA), or
            ``False`` (warns). No need to inject a client for a private CA.
        transport: How async searches are sent: ``"httpx"``, or ``"aiohttp"`` (the fast path
            for long-running processes, several times less CPU per search; needs
            ``textsearch-sdk[fast]``). ``"auto"`` (default) is httpx unless the
            ``TEXTSEARCH_TRANSPORT=aiohttp`` environment variable is set. Blocking
            searches use httpx, or urllib3 with ``"urllib3"`` (async ones on httpx) or
            ``"fast"`` (async ones on aiohttp), also as ``TEXTSEARCH_TRANSPORT`` values.
            An injected client is always used as given for its kind.

    Raises:
        ConfigurationError: No base URL, or a bad URL, header name or setting.
    """

    provider_name: ClassVar[str] = "searxng"
    open_world: ClassVar[bool] = True
    env_var: ClassVar[str] = ""
    max_top: ClassVar[int] = 50
    supported_filter_fields: ClassVar[frozenset[str] | None] = SUPPORTED_FILTER_FIELDS

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        auth_header: str | None = None,
        max_pages: int = DEFAULT_MAX_PAGES,
        http_client: httpx.AsyncClient | httpx.Client | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        string_mapper: Callable[[SearxngResult], str] | None = None,
        text_search_result_mapper: Callable[[SearxngResult], TextSearchResult] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        verify: VerifyTypes = True,
        transport: str = "auto",
    ) -> None:
        owner = type(self).__name__
        if base_url is None:
            base_url = os.environ.get(ENV_VAR, "").strip() or None
        if base_url is None:
            raise ConfigurationError(
                f"{owner} needs the URL of a SearXNG instance: pass base_url=... or set the "
                f"{ENV_VAR} environment variable"
            )
        url = check_url(base_url, "base_url=", owner)
        header = check_header_name(auth_header, owner) if auth_header is not None else None
        if header is not None and api_key is None:
            raise ConfigurationError(f"{owner}: auth_header= is set but api_key= is not")
        if isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1:
            raise ConfigurationError(f"{owner}: max_pages= must be a whole number of at least 1")
        super().__init__(
            api_key=api_key,
            read_error=read_searxng_error,
            http_client=http_client,
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            string_mapper=string_mapper,
            text_search_result_mapper=text_search_result_mapper,
            deadline=deadline,
            verify=verify,
            transport=transport,
        )
        self.base_url = str(url).rstrip("/")
        self.auth_header = header or ("Authorization" if self._api_key else None)
        self.max_pages = max_pages
        self._url = str(url.copy_with(query=None)).rstrip("/") + "/search"
        self._headers = {"Accept": "application/json"}
        if self._api_key and self.auth_header:
            self._headers[self.auth_header] = bearer_or_plain(self.auth_header, self._api_key)

    def _resolve_key(self, api_key: str | None, owner: str) -> str:
        # No key by default: only a proxy in front of the instance may want one.
        if api_key is None or (isinstance(api_key, str) and not api_key.strip()):
            return ""
        return resolve_api_key(api_key, "SEARXNG_API_KEY", owner)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, auth_header={self.auth_header!r})"
        )

    # -- filters and request (pure) ----------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise for unsupported fields and bad values before any request."""
        self._translate_filter(search_filter)

    def _translate_filter(
        self, search_filter: TextSearchFilter | None
    ) -> tuple[str, list[tuple[str, str]], Callable[[SearxngResult], bool]]:
        owner = type(self).__name__
        portable, native = split_filter(
            search_filter, owner, PORTABLE_FILTER_FIELDS, NATIVE_FILTER_FIELDS
        )
        params: dict[str, str] = {}
        fresh = portable.freshness
        if fresh is not None:
            if fresh.word is None:
                raise UnsupportedFilterError(
                    f"{owner}: SearXNG filters by time only with day, week, month or year "
                    "(its time_range); a date range cannot be honoured",
                    field_name=FRESHNESS,
                    supported_fields=sorted(SUPPORTED_FILTER_FIELDS),
                )
            params["time_range"] = fresh.word
        if portable.language:
            params["language"] = portable.language
        if portable.safe_search:
            params["safesearch"] = _SAFESEARCH[portable.safe_search]
        for clause in native:
            value = clause.value
            text = value.strip() if isinstance(value, str) else ""
            if not _NAMES.match(text):
                raise InvalidRequestError(
                    f"{owner}: filter {clause.field_name!r} must be a comma list of names, "
                    f"not {value!r}"
                )
            previous = params.get(clause.field_name)
            if previous is not None and previous != text:
                raise InvalidRequestError(
                    f"{owner}: filter {clause.field_name!r} is given twice with different values"
                )
            params[clause.field_name] = text
        site, exclude = portable.site, portable.exclude_site

        def keep(item: SearxngResult) -> bool:
            # Engines that do not understand site:/-site: ignore them: check every URL.
            return url_allowed(item.url, site, exclude)

        return site_operators(site, exclude), list(params.items()), keep

    def _build_request(
        self, query: str, page: int, operators: str, extra: list[tuple[str, str]]
    ) -> HttpRequest:
        q = f"{query} {operators}" if operators else query
        params = [("q", q), ("format", "json")]
        if page > 1:
            params.append(("pageno", str(page)))
        params.extend(extra)
        return HttpRequest("GET", self._url, tuple(params), None, self._headers)

    def _parser(self) -> Callable[[HttpResponse], SearchResults[SearxngResult]]:
        provider = self.provider_name

        def parse(response: HttpResponse) -> SearchResults[SearxngResult]:
            try:
                # validate_body skips a leading BOM (which some gateways add).
                body = validate_body(_SearchResponse, response, provider)
            except ResponseFormatError as exc:
                raise ResponseFormatError(
                    str(exc),
                    provider=provider,
                    status_code=response.status_code,
                    hints=(
                        "the instance answered something other than its JSON format: check "
                        "that json is in search.formats and that no bot check answered",
                    ),
                ) from None
            if body.results is None:
                raise ResponseFormatError(
                    f"{provider}: HTTP {response.status_code} but the body has no 'results'",
                    provider=provider,
                    status_code=response.status_code,
                )
            metadata: dict[str, Any] = {}
            if body.unresponsive_engines:
                metadata["unresponsive_engines"] = body.unresponsive_engines
            if body.suggestions:
                metadata["suggestions"] = body.suggestions
            if body.corrections:
                metadata["corrections"] = body.corrections
            results, skipped = validate_items(
                body.results, SearxngResult, top=max(1, len(body.results)), provider=provider,
                status=response.status_code,
            )  # fmt: skip
            if skipped:
                metadata["skipped"] = skipped
            return SearchResults(results, None, metadata)

        return parse

    @staticmethod
    def _merge(
        collected: list[SearxngResult],
        seen: set[str],
        metadata: dict[str, Any],
        page: SearchResults[SearxngResult],
        keep: Callable[[SearxngResult], bool],
    ) -> int:
        """Add a page's new results that pass ``keep``; return how many were new."""
        added = 0
        for item in page.results:
            key = item.url or f"#{item.title}"
            if key in seen:
                continue  # engines and pages overlap
            seen.add(key)
            added += 1
            if keep(item):
                collected.append(item)
            else:
                metadata["filtered_out"] = metadata.get("filtered_out", 0) + 1
        for name, value in page.metadata.items():
            if name == "unresponsive_engines":
                known = metadata.setdefault(name, [])
                known.extend(v for v in value if v not in known)
            else:
                metadata.setdefault(name, value)
        return added

    @staticmethod
    def _window(
        collected: list[SearxngResult], metadata: dict[str, Any], options: SearchOptions, pages: int
    ) -> SearchResults[SearxngResult]:
        metadata["pages"] = pages
        return SearchResults(collected[options.skip : options.skip + options.top], None, metadata)

    # -- hooks ---------------------------------------------------------------------------

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[SearxngResult]:
        operators, extra, keep = self._translate_filter(options.filter)
        wanted = options.skip + options.top
        collected: list[SearxngResult] = []
        seen: set[str] = set()
        metadata: dict[str, Any] = {}
        page = 0
        while page < self.max_pages and len(collected) < wanted:
            page += 1
            request = self._build_request(query, page, operators, extra)
            result = await self._send(request, self._parser())
            if not self._merge(collected, seen, metadata, result, keep):
                break  # the instance has nothing more
        return self._window(collected, metadata, options, page)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[SearxngResult]:
        operators, extra, keep = self._translate_filter(options.filter)
        wanted = options.skip + options.top
        collected: list[SearxngResult] = []
        seen: set[str] = set()
        metadata: dict[str, Any] = {}
        page = 0
        while page < self.max_pages and len(collected) < wanted:
            page += 1
            request = self._build_request(query, page, operators, extra)
            result = self._send_sync(request, self._parser())
            if not self._merge(collected, seen, metadata, result, keep):
                break
        return self._window(collected, metadata, options, page)

    def _to_text_search_result(self, item: SearxngResult) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=item.content, link=item.url)

    # -- provider-specific names ---------------------------------------------------------

    async def get_web_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[SearxngResult]:
        """Search and return the instance's results (same as :meth:`get_search_results`).

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: The filter names a field SearXNG cannot honour.
            ProviderError: The instance answered with an error (see ``textsearch.errors``).
            SearchTransportError: The instance could not be reached.
        """
        return await self.get_search_results(query, options, **kwargs)

    def get_web_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[SearxngResult]:
        """Blocking twin of :meth:`get_web_results`; raises the same errors."""
        return self.get_search_results_sync(query, options, **kwargs)
