"""``BraveTextSearch``: the Brave Search API (web), ``GET /res/v1/web/search``.

The key goes in the ``X-Subscription-Token`` header. Two traps of this API are handled here:
``offset`` counts *pages* of ``count`` results (0-9), not results, so ``skip`` must be a
multiple of ``top``; and a bad key is answered with HTTP 422, not 401. Brave answers 429
both for its per-second limit (``RATE_LIMITED``, retried) and for a spent monthly quota
(``QUOTA_LIMITED``, a `QuotaExceededError`, never retried).

Filters: the portable fields (``site``, ``exclude_site``, ``freshness``, ``language``,
``country``, ``safe_search``; see `textsearch.connectors.web._portable`). Domains become
``site:``/``-site:`` operators in ``q``; the others are query parameters (``freshness``,
``search_lang``, ``country``, ``safesearch``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Final

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from typing_extensions import Self, Unpack

from textsearch._http import BodyStatusError, ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import check_url, clean_text, load_json_object
from textsearch._types import SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.connectors.web._base import (
    AnyDate,
    PlainText,
    as_text,
    check_flag,
    load_json_body,
    object_field,
    page_index,
)
from textsearch.connectors.web._connector import (
    Page,
    SiteFilter,
    WebSearchConnector,
    WebSettings,
    WebSpec,
)
from textsearch.connectors.web._portable import (
    PORTABLE_FIELDS,
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
#: Hosted Goggles `BraveTextSearch.from_env` applies, separated by white space.
GOGGLES_ENV: Final = "BRAVE_SEARCH_GOGGLES"
SUPPORTED_FILTER_FIELDS: Final = frozenset(PORTABLE_FIELDS)
#: ``offset`` is a page number from 0 to 9.
MAX_OFFSET: Final = 9
#: Brave refuses longer queries (400 characters, 50 words).
MAX_QUERY_CHARS: Final = 400
MAX_QUERY_WORDS: Final = 50
#: Goggles travel in the query string: room for hosted ones and short inline definitions
#: within the URL sizes servers accept (a longer definition is hosted and passed by URL).
MAX_GOGGLES_CHARS: Final = 4096
_FRESHNESS: Final = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
# Brave's own codes where they differ from ISO 639-1.
_LANGUAGES: Final = {"ja": "jp", "zh": "zh-hans", "pt": "pt-br"}


def _check_goggles(goggles: object) -> tuple[str, ...]:
    """The Goggles as a tuple of texts, each a hosted Goggle's URL or a definition."""
    if goggles is None:
        return ()
    items = [goggles] if isinstance(goggles, str) else goggles
    if not isinstance(items, (list, tuple)):
        raise ConfigurationError(
            "BraveTextSearch: goggles= must be a string or a list of strings, got "
            f"{type(goggles).__name__}"
        )
    checked: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ConfigurationError(
                f"BraveTextSearch: each of goggles= must be a non-empty string, got {item!r:.40}"
            )
        text = item.strip()
        if any(ord(c) < 32 and c not in "\n\r\t" for c in text):
            raise ConfigurationError("BraveTextSearch: a Goggle may not hold control characters")
        # One word with a scheme is a hosted Goggle's address; instructions take "$" options
        # ("/docs/$boost=2") and a definition spans lines.
        if "://" in text and "$" not in text and len(text.split()) == 1:
            if check_url(text, "goggles=", "BraveTextSearch").scheme != "https":
                raise ConfigurationError(
                    "BraveTextSearch: a hosted Goggle is given by its https:// URL"
                )
        checked.append(text)
    size = sum(len(item) for item in checked)
    if size > MAX_GOGGLES_CHARS:
        raise ConfigurationError(
            f"BraveTextSearch: goggles= hold {size} characters in all, more than the "
            f"{MAX_GOGGLES_CHARS} a request carries; host a long Goggle and pass its URL"
        )
    return tuple(checked)


class _Snake(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, use_attribute_docstrings=True)


def _snippets(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, list):
        return [clean_text(v, unescape=True) for v in value if isinstance(v, str)]
    return value


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

    title: PlainText = None
    """Title of the page."""
    url: str | None = None
    """URL of the page."""
    description: PlainText = None
    """A passage of the page."""
    age: str | None = None
    """How old the page is, as Brave words it (``2 days ago``, ``March 3, 2025``)."""
    page_age: AnyDate = None
    """When the page was published or last changed, when Brave knows it."""
    page_fetched: AnyDate = None
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
        goggles: Brave Goggles that re-rank every search: the ``https://`` URL of a hosted
            Goggle, an inline definition (its instructions, one per line), or a sequence of
            them. They boost, demote or discard results; they never widen a ``site``
            filter (each result's host is still checked).
        **settings: The mappers (of `BraveWebResult`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No key, a bad endpoint or setting, ``extra_snippets`` not a
            bool, or a Goggle that is empty, not text, a non-https URL, or too long in all.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "brave", ENV_VAR, SUPPORTED_FILTER_FIELDS, read_brave_error, BraveWebResult, max_top=20,
        text_fields=("title", "description", "url"), auth="X-Subscription-Token",
        headers=(("Accept", "application/json"),), shown=("endpoint",),
        env_settings=(("BRAVE_SEARCH_ENDPOINT", "endpoint"),))  # fmt: skip

    def __init__(
        self,
        api_key: str | None = None,
        *,
        endpoint: str = DEFAULT_ENDPOINT,
        extra_snippets: bool = False,
        goggles: str | Sequence[str] | None = None,
        **settings: Unpack[WebSettings[BraveWebResult]],
    ) -> None:
        self.extra_snippets = check_flag(extra_snippets, "extra_snippets=", self)
        self.goggles = _check_goggles(goggles)
        super().__init__(api_key, endpoint, settings)

    @classmethod
    def from_env(cls, **settings: Any) -> Self:
        """Build the connector from the environment.

        Reads ``BRAVE_SEARCH_API_KEY`` (the key), ``BRAVE_SEARCH_ENDPOINT`` (a compatible
        endpoint) and ``BRAVE_SEARCH_GOGGLES`` (hosted Goggles' URLs separated by white
        space: every search is re-ranked with them, and a model calling a tool cannot
        change them). Keywords given here win over the environment.

        Raises:
            ConfigurationError: ``BRAVE_SEARCH_API_KEY`` is not set, or a setting is invalid.
        """
        goggles = os.environ.get(GOGGLES_ENV, "").split()
        if goggles and "goggles" not in settings:
            settings["goggles"] = goggles
        return super().from_env(**settings)

    def _translate(self, search_filter: TextSearchFilter | None) -> SiteFilter:
        portable = split_filter(search_filter, type(self).__name__, SUPPORTED_FILTER_FIELDS)[0]
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
        site, exclude = portable.site, portable.exclude_site
        return SiteFilter(site_operators(site, exclude), tuple(params), site, exclude)

    def _request(self, query: str, options: SearchOptions, translated: SiteFilter) -> HttpRequest:
        top, skip = options.top, options.skip
        page = page_index(options, "Brave", " (offset counts pages of top results)")
        if page > MAX_OFFSET:
            raise InvalidRequestError(
                f"Brave serves at most {MAX_OFFSET + 1} pages (offset 0-{MAX_OFFSET}); "
                f"skip={skip} with top={top} asks for page {page + 1}"
            )
        operators = translated.operators
        q = f"{query} {operators}" if operators else query
        if len(q) > MAX_QUERY_CHARS or len(q.split()) > MAX_QUERY_WORDS:
            raise InvalidRequestError(
                f"Brave accepts queries of at most {MAX_QUERY_CHARS} characters and "
                f"{MAX_QUERY_WORDS} words (site filters included); this one has {len(q)} "
                f"characters and {len(q.split())} words"
            )
        params = [("q", q), ("count", str(top))]
        if page:
            params.append(("offset", str(page)))
        # Without this Brave wraps matches in <strong>: markup a model should never see.
        params.append(("text_decorations", "false"))
        if self.extra_snippets:
            params.append(("extra_snippets", "true"))
        params.extend(("goggles", goggle) for goggle in self.goggles)
        params.extend(translated.params)
        return self._get(params)

    def _read_page(
        self, response: HttpResponse, options: SearchOptions, translated: SiteFilter
    ) -> Page:
        provider, status = self.provider_name, response.status_code
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
        if isinstance(items, list):
            # Brave's nulls are no results (neither shape counts them as skipped).
            items = [item for item in items if item is not None]
            site, exclude = translated.site, translated.exclude
            if site or exclude:
                # site:/-site: live in the query text, where Brave reads them as operators;
                # checking each host keeps them from ever being loosened.
                kept = [
                    item
                    for item in items
                    if not isinstance(item, dict)  # left to be counted as skipped
                    or url_allowed(as_text(item.get("url")), site, exclude)
                ]
                if len(kept) < len(items):
                    metadata["filtered_out"] = len(items) - len(kept)
                items = kept
        # Brave gives no estimate of the total, so it is unknown (None) even if asked.
        return Page(items, metadata)

    def _to_text_search_result(self, item: BraveWebResult) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=item.description, link=item.url)

    get_web_results = WebSearchConnector.get_search_results
    get_web_results_sync = WebSearchConnector.get_search_results_sync
