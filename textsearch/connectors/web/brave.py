"""``BraveTextSearch``: the Brave Search API (web), ``GET /res/v1/web/search``.

The key goes in the ``X-Subscription-Token`` header. Two traps of this API are handled here:
``offset`` counts *pages* of ``count`` results (0-9), not results, so ``skip`` must be a
multiple of ``top``; and a bad key is answered with HTTP 422, not 401. Brave answers 429
both for its per-second limit (``RATE_LIMITED``, retried) and for a spent monthly quota
(``QUOTA_LIMITED``, a :class:`~textsearch.errors.QuotaExceededError`, never retried).

Filters: the portable fields (``site``, ``exclude_site``, ``freshness``, ``language``,
``country``, ``safe_search``; see :mod:`textsearch.connectors.web._portable`). Domains become
``site:``/``-site:`` operators in ``q``; the others are query parameters (``freshness``,
``search_lang``, ``country``, ``safesearch``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, ClassVar, Final

import httpx
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from textsearch._http import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT,
    BodyStatusError,
    ErrorDetail,
    HttpRequest,
    HttpResponse,
    VerifyTypes,
)
from textsearch._types import SearchOptions, SearchResults, TextSearchFilter, TextSearchResult
from textsearch.base import trusted_text_search_result
from textsearch.connectors.web._base import (
    WebSearchConnector,
    as_text,
    check_url,
    clean_text,
    load_json_body,
    load_json_object,
    object_field,
    text_items,
    unescaped_text,
    validate_body,
    validate_items,
)
from textsearch.connectors.web._portable import (
    PORTABLE_FIELDS,
    PortableFilter,
    site_operators,
    split_filter,
    url_allowed,
)
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
)

__all__ = ["BraveTextSearch", "BraveWebResult"]

DEFAULT_ENDPOINT: Final = "https://api.search.brave.com/res/v1/web/search"
ENV_VAR: Final = "BRAVE_SEARCH_API_KEY"
SUPPORTED_FILTER_FIELDS: Final = frozenset(PORTABLE_FIELDS)
#: ``offset`` is a page number from 0 to 9.
MAX_OFFSET: Final = 9
#: Brave refuses longer queries (400 characters, 50 words).
MAX_QUERY_CHARS: Final = 400
MAX_QUERY_WORDS: Final = 50
_FRESHNESS: Final = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
# Brave's own codes where they differ from ISO 639-1.
_LANGUAGES: Final = {"ja": "jp", "zh": "zh-hans", "pt": "pt-br"}


class _Snake(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, use_attribute_docstrings=True)


def _text(value: str | None) -> str | None:
    # A plain after-validator: cheaper per field than a field_validator (see bing.py).
    return clean_text(value, unescape=True) if value is not None else None


def _lenient_date(value: Any) -> Any:
    # A date Brave writes in a shape we do not know is an unknown date, not a bad answer.
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    return value if isinstance(value, datetime) else None


def _snippets(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, list):
        return [clean_text(v, unescape=True) for v in value if isinstance(v, str)]
    return value


#: Text without markup: Brave's <strong> highlights and HTML entities removed.
_Text = Annotated[str | None, AfterValidator(_text)]
_Date = Annotated[datetime | None, BeforeValidator(_lenient_date)]


class BraveMetaUrl(_Snake):
    """Parts of a result's URL as Brave splits them."""

    scheme: str | None = None
    netloc: str | None = None
    hostname: str | None = None
    favicon: str | None = None
    path: str | None = None
    """The path as Brave displays it (e.g. ``› docs › intro``)."""


class BraveProfile(_Snake):
    """The site that published a result."""

    name: str | None = None
    url: str | None = None
    long_name: str | None = None
    img: str | None = None


class BraveThumbnail(_Snake):
    """A result's thumbnail image."""

    src: str | None = None
    original: str | None = None
    logo: bool | None = None


class BraveWebResult(_Snake):
    """One web result of the Brave Search API (``web.results[]``).

    Text fields come without markup: Brave's ``<strong>`` highlights and HTML entities are
    removed (the connector also asks for ``text_decorations=false``).
    """

    title: _Text = None
    """Title of the page."""
    url: str | None = None
    """URL of the page."""
    description: _Text = None
    """A passage of the page."""
    age: str | None = None
    """How old the page is, as Brave words it (``2 days ago``, ``March 3, 2025``)."""
    page_age: _Date = None
    """When the page was published or last changed, when Brave knows it."""
    page_fetched: _Date = None
    """When Brave last fetched the page."""
    language: str | None = None
    """Main language of the page."""
    family_friendly: bool | None = None
    """Whether Brave considers the page family friendly."""
    type: str | None = None
    """Result type (``search_result``)."""
    subtype: str | None = None
    """Result subtype (``generic``, ``article``, ``faq``, ...)."""
    is_live: bool | None = None
    is_source_local: bool | None = None
    is_source_both: bool | None = None
    meta_url: BraveMetaUrl | None = None
    """The URL split into its parts."""
    profile: BraveProfile | None = None
    """The publishing site."""
    thumbnail: BraveThumbnail | None = None
    """A thumbnail, when there is one."""
    extra_snippets: Annotated[list[str], BeforeValidator(_snippets)] = Field(default_factory=list)
    """Up to five more passages of the page (``extra_snippets=True``)."""


class _Query(_Snake):
    original: str | None = None
    altered: str | None = None
    more_results_available: bool | None = None


class _Web(_Snake):
    # Each result is validated on its own (validate_items): one odd result is skipped and
    # counted, it does not fail the page.
    results: list[Any] = Field(default_factory=list)

    @field_validator("results", mode="before")
    @classmethod
    def _drop_nulls(cls, value: Any) -> Any:
        if value is None:
            return []
        return [v for v in value if v is not None] if isinstance(value, list) else value


class _SearchResponse(_Snake):
    type: str | None = None
    query: _Query | None = None
    web: _Web | None = None


def _error_object(body: dict[str, Any]) -> dict[str, Any]:
    error = body.get("error")
    if isinstance(error, dict):
        return error
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return errors[0]
    return {}


def _validation_message(error: dict[str, Any]) -> tuple[str | None, bool]:
    """The first ``meta.errors`` entry as text, and whether it is about the key header."""
    meta = error.get("meta")
    items = meta.get("errors") if isinstance(meta, dict) else None
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return None, False
    first = items[0]
    loc = first.get("loc")
    where = ".".join(str(p) for p in loc) if isinstance(loc, list) else as_text(loc) or ""
    msg = as_text(first.get("msg")) or "invalid value"
    return f"{where}: {msg}" if where else msg, "subscription-token" in where.lower()


def read_brave_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read Brave's ``ErrorResponse`` (``error`` object or ``errors`` list)."""
    error = _error_object(load_json_object(response.content) or {})
    code = as_text(error.get("code"))
    message = as_text(error.get("detail"))
    error_class: type[ProviderError] | None = None
    retryable: bool | None = None
    hints: tuple[str, ...] = ()
    if code == "QUOTA_LIMITED":
        error_class, retryable = QuotaExceededError, False
        hints = ("the monthly quota of this key is spent; upgrade the plan or wait for the reset",)
    elif code == "RATE_LIMITED" or status == 429:
        error_class, retryable = RateLimitError, True
        hints = ("too many requests per second for this plan; slow down",)
    elif code == "SUBSCRIPTION_TOKEN_INVALID":
        # Brave answers a bad key with 422, which the status alone would call a bad request.
        error_class = AuthenticationError
        hints = (f"check api_key= / {ENV_VAR} (Brave answers a bad key with HTTP 422)",)
    elif code == "SUBSCRIPTION_NOT_FOUND":
        error_class = PermissionDeniedError
        hints = ("this key has no active Brave Search API subscription for this endpoint",)
    elif code == "OPTION_NOT_IN_PLAN":
        error_class = PermissionDeniedError
        hints = ("a parameter of this request needs a higher Brave plan",)
    elif code == "VALIDATION" or status == 422:
        detail, about_key = _validation_message(error)
        if about_key:
            error_class = AuthenticationError
            hints = (f"the key header is missing: set api_key= or {ENV_VAR}",)
        else:
            error_class = BadRequestError
        if detail:
            message = f"{message or 'invalid request'} ({detail})"
    retry_after: float | None = None
    if status == 429:
        reset = response.headers.get("x-ratelimit-reset")
        if reset:
            hints = (*hints, f"X-RateLimit-Reset: {reset} (seconds per window)")
            if error_class is RateLimitError:
                retry_after = _first_reset(reset)
    error_id = as_text(error.get("id"))
    if error_id:
        hints = (*hints, f"error id: {error_id}")
    return ErrorDetail(
        code=code,
        message=message,
        error_class=error_class,
        hints=hints,
        retryable=retryable,
        retry_after=retry_after,
    )


def _first_reset(value: str) -> float | None:
    """Seconds until the first (shortest, per-second) window resets: ``"1, 1419704"`` -> 1.

    Brave sends no ``Retry-After``; this is what tells the engine how long to wait.
    """
    first = value.split(",", 1)[0].strip()
    try:
        seconds = float(first)
    except ValueError:
        return None
    return seconds if 0.0 <= seconds < float("inf") else None


class BraveTextSearch(WebSearchConnector[BraveWebResult]):
    """Search the web through the Brave Search API.

    Args:
        api_key: The subscription token; defaults to the ``BRAVE_SEARCH_API_KEY`` variable.
        endpoint: Full URL of the web search endpoint.
        extra_snippets: Ask for up to five extra passages per result (some plans only).
        http_client: An ``httpx.AsyncClient`` or ``httpx.Client`` to use; it is never closed
            by this connector. The other kind is created when needed and owned.
        timeout: Seconds or an ``httpx.Timeout`` (default: 5 s connect, 20 s read).
        max_retries: Retries on rate limits, 5xx, timeouts and connection failures
            (0 disables). A spent quota is never retried.
        max_retry_wait: Longest single wait between attempts, in seconds.
        string_mapper: Turns a :class:`BraveWebResult` into the string :meth:`search` returns.
        text_search_result_mapper: Turns a :class:`BraveWebResult` into a ``TextSearchResult``.
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
        ConfigurationError: No key, or a bad endpoint or setting.
    """

    provider_name: ClassVar[str] = "brave"
    open_world: ClassVar[bool] = True
    env_var: ClassVar[str] = ENV_VAR
    max_top: ClassVar[int] = 20
    supported_filter_fields: ClassVar[frozenset[str] | None] = SUPPORTED_FILTER_FIELDS

    def __init__(
        self,
        api_key: str | None = None,
        *,
        endpoint: str = DEFAULT_ENDPOINT,
        extra_snippets: bool = False,
        http_client: httpx.AsyncClient | httpx.Client | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        string_mapper: Callable[[BraveWebResult], str] | None = None,
        text_search_result_mapper: Callable[[BraveWebResult], TextSearchResult] | None = None,
        deadline: float = DEFAULT_DEADLINE,
        verify: VerifyTypes = True,
        transport: str = "auto",
    ) -> None:
        owner = type(self).__name__
        url = check_url(endpoint, "endpoint=", owner)
        if not isinstance(extra_snippets, bool):
            raise ConfigurationError(f"{owner}: extra_snippets= must be True or False")
        super().__init__(
            api_key=api_key,
            read_error=read_brave_error,
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
        self.endpoint = str(url)
        self.extra_snippets = extra_snippets
        self._fixed_params = tuple(url.params.multi_items())
        self._url = str(url.copy_with(query=None))
        self._headers = {"X-Subscription-Token": self._api_key, "Accept": "application/json"}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(endpoint={self.endpoint!r})"

    # -- filters and request (pure) ----------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise for unsupported fields and bad values before any request."""
        self._translate_filter(search_filter)

    def _portable(self, search_filter: TextSearchFilter | None) -> PortableFilter:
        return split_filter(search_filter, type(self).__name__, SUPPORTED_FILTER_FIELDS)[0]

    def _translate_filter(
        self, search_filter: TextSearchFilter | None
    ) -> tuple[str, list[tuple[str, str]]]:
        portable = self._portable(search_filter)
        params: list[tuple[str, str]] = []
        if portable.country:
            params.append(("country", portable.country))
        if portable.language:
            params.append(("search_lang", _LANGUAGES.get(portable.language, portable.language)))
        if portable.safe_search:
            params.append(("safesearch", portable.safe_search))
        fresh = portable.freshness
        if fresh is not None:
            if fresh.word is not None:
                params.append(("freshness", _FRESHNESS[fresh.word]))
            else:
                start, end = fresh.dates()
                params.append(("freshness", f"{start.isoformat()}to{end.isoformat()}"))
        return site_operators(portable.site, portable.exclude_site), params

    def _build_request(self, query: str, options: SearchOptions) -> HttpRequest:
        top, skip = options.top, options.skip
        if skip % top:
            raise InvalidRequestError(
                f"Brave pages by page number (offset counts pages of top results), so skip "
                f"must be a multiple of top (got skip={skip}, top={top}); e.g. "
                f"skip={skip - skip % top} or skip={skip - skip % top + top}"
            )
        page = skip // top
        if page > MAX_OFFSET:
            raise InvalidRequestError(
                f"Brave serves at most {MAX_OFFSET + 1} pages (offset 0-{MAX_OFFSET}); "
                f"skip={skip} with top={top} asks for page {page + 1}"
            )
        operators, filter_params = self._translate_filter(options.filter)
        q = f"{query} {operators}" if operators else query
        if len(q) > MAX_QUERY_CHARS or len(q.split()) > MAX_QUERY_WORDS:
            raise InvalidRequestError(
                f"Brave accepts queries of at most {MAX_QUERY_CHARS} characters and "
                f"{MAX_QUERY_WORDS} words (site filters included); this one has {len(q)} "
                f"characters and {len(q.split())} words"
            )
        params = [*self._fixed_params, ("q", q), ("count", str(top))]
        if page:
            params.append(("offset", str(page)))
        # Without this Brave wraps matches in <strong>: markup a model should never see.
        params.append(("text_decorations", "false"))
        if self.extra_snippets:
            params.append(("extra_snippets", "true"))
        params.extend(filter_params)
        return HttpRequest("GET", self._url, tuple(params), None, self._headers)

    def _parser(
        self, options: SearchOptions
    ) -> Callable[[HttpResponse], SearchResults[BraveWebResult]]:
        top = options.top
        provider = self.provider_name
        portable = self._portable(options.filter)
        site, exclude = portable.site, portable.exclude_site

        def parse(response: HttpResponse) -> SearchResults[BraveWebResult]:
            # validate_body skips a leading BOM (which some gateways add).
            body = validate_body(_SearchResponse, response, provider)
            if body.type == "ErrorResponse":
                raw = load_json_object(response.content) or {}
                status = _error_object(raw).get("status")
                code = status if isinstance(status, int) and 400 <= status <= 599 else 500
                raise BodyStatusError(code, read_brave_error(code, response))
            if body.type != "search" and body.web is None and body.query is None:
                raise ResponseFormatError(
                    f"{provider}: HTTP {response.status_code} but not a Brave search response "
                    "(no 'type': 'search', 'query' or 'web')",
                    provider=provider,
                    status_code=response.status_code,
                )
            metadata: dict[str, Any] = {}
            if body.query is not None:
                if body.query.altered:
                    metadata["altered_query"] = body.query.altered
                if body.query.more_results_available is not None:
                    metadata["more_results_available"] = body.query.more_results_available
            items = body.web.results if body.web is not None else []
            results, skipped = validate_items(
                items, BraveWebResult, top=max(1, len(items)), provider=provider,
                status=response.status_code,
            )  # fmt: skip
            if skipped:
                metadata["skipped"] = skipped
            if site or exclude:
                # site:/-site: live in the query text, where Brave reads them as operators;
                # checking each host keeps them from ever being loosened.
                kept = [r for r in results if url_allowed(r.url, site, exclude)]
                if len(kept) < len(results):
                    metadata["filtered_out"] = len(results) - len(kept)
                results = kept
            results = results[:top]
            # Brave gives no estimate of the total, so it is unknown (None) even if asked.
            return SearchResults(results, None, metadata)

        return parse

    def _text_parser(
        self, options: SearchOptions
    ) -> Callable[[HttpResponse], SearchResults[TextSearchResult]]:
        """The page parser for the text shapes: reads and checks only title, text and link.

        Same answers as :meth:`_parser` mapped to ``TextSearchResult``s (error bodies, site
        checks, ``top``), without validating every field of :class:`BraveWebResult` that the
        text shapes never use (profile, meta URL, dates...).
        """
        top = options.top
        provider = self.provider_name
        portable = self._portable(options.filter)
        site, exclude = portable.site, portable.exclude_site

        def parse(response: HttpResponse) -> SearchResults[TextSearchResult]:
            status = response.status_code
            body = load_json_body(response, provider)
            kind = body.get("type")
            if kind == "ErrorResponse":
                error_status = _error_object(body).get("status")
                code = (
                    error_status
                    if isinstance(error_status, int) and 400 <= error_status <= 599
                    else 500
                )
                raise BodyStatusError(code, read_brave_error(code, response))
            web = object_field(body, "web", provider, status)
            query = object_field(body, "query", provider, status)
            if kind != "search" and web is None and query is None:
                raise ResponseFormatError(
                    f"{provider}: HTTP {status} but not a Brave search response "
                    "(no 'type': 'search', 'query' or 'web')",
                    provider=provider,
                    status_code=status,
                )
            metadata: dict[str, Any] = {}
            if query is not None:
                altered = as_text(query.get("altered"))
                if altered:
                    metadata["altered_query"] = altered
                more = query.get("more_results_available")
                if isinstance(more, bool):
                    metadata["more_results_available"] = more
            items = web.get("results") if web is not None else None
            if (site or exclude) and isinstance(items, list):
                kept = [
                    item
                    for item in items
                    if not isinstance(item, dict)  # left for text_items to count as skipped
                    or url_allowed(as_text(item.get("url")), site, exclude)
                ]
                if len(kept) < len(items):
                    metadata["filtered_out"] = len(items) - len(kept)
                items = kept
            results, skipped = text_items(
                items, ("title", "description", "url"), unescaped_text, top=top,
                provider=provider, status=status, ignore_nulls=True,
            )  # fmt: skip
            if skipped:
                metadata["skipped"] = skipped
            return SearchResults(results, None, metadata)

        return parse

    # -- hooks ---------------------------------------------------------------------------

    def _text_request(
        self, query: str, options: SearchOptions
    ) -> tuple[HttpRequest, Callable[[HttpResponse], SearchResults[TextSearchResult]]]:
        return self._build_request(query, options), self._text_parser(options)

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[BraveWebResult]:
        return await self._send(self._build_request(query, options), self._parser(options))

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[BraveWebResult]:
        return self._send_sync(self._build_request(query, options), self._parser(options))

    def _to_text_search_result(self, item: BraveWebResult) -> TextSearchResult:
        return trusted_text_search_result(item.title, item.description, item.url)

    # -- provider-specific names ---------------------------------------------------------

    async def get_web_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[BraveWebResult]:
        """Search and return Brave's web results (same as :meth:`get_search_results`).

        Raises:
            InvalidRequestError: Empty or too long query, invalid options, ``skip`` not a
                multiple of ``top`` or beyond page 10 (before any request).
            UnsupportedFilterError: The filter names a field Brave cannot honour.
            ProviderError: Brave answered with an error (see ``textsearch.errors``).
            SearchTransportError: Brave could not be reached.
        """
        return await self.get_search_results(query, options, **kwargs)

    def get_web_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[BraveWebResult]:
        """Blocking twin of :meth:`get_web_results`; raises the same errors."""
        return self.get_search_results_sync(query, options, **kwargs)
