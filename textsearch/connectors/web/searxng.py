"""``SearxngTextSearch``: a SearXNG instance's JSON API, ``GET {base_url}/search?format=json``.

SearXNG is an open-source metasearch engine that you host yourself; it needs no key. Its JSON
format works only when the instance enables it (``search: formats: [html, json]`` in its
``settings.yml``); otherwise it answers 403, raised as
`PermissionDeniedError` with that hint. An HTML page answered with
200 (a bot check of a public instance) is a `ResponseFormatError`.

SearXNG has no result-count parameter: its page size is fixed by the instance. ``top`` and
``skip`` are served by fetching pages (``pageno`` 1, 2, ...) until ``skip + top`` distinct
results are in hand, the instance runs out, or ``max_pages`` pages were read.

Filters: ``site``/``exclude_site`` become ``site:``/``-site:`` in ``q``; engines that do not
understand the operator ignore it, so every result's host is checked too and rows outside the
filter are dropped (a filter is never loosened); ``freshness`` (``day|week|month|year``) becomes
``time_range``; ``language`` and ``safe_search`` (``safesearch`` 0/1/2) are sent as such. A
date range or ``country`` cannot be expressed, so they are an
`UnsupportedFilterError` before any request. SearXNG's own
``categories`` and ``engines`` (comma lists) are accepted as filter fields too.
"""

from __future__ import annotations

import os
import re
from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import Unpack

from textsearch._http import ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import check_header_name, load_json_object, resolve_api_key
from textsearch._types import (
    EqualTo,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.connectors.web._base import (
    AnyDate,
    PlainText,
    StatusTable,
    as_text,
    by_status,
    no_results,
    validate_body,
)
from textsearch.connectors.web._connector import (
    Page,
    SiteFilter,
    Step,
    WebSearchConnector,
    WebSettings,
    WebSpec,
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
    title: PlainText = None
    """Title of the page."""
    content: PlainText = None
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
    published_date: AnyDate = Field(default=None, alias="publishedDate")
    """When it was published, when an engine says so."""
    thumbnail: str | None = None
    """URL of a thumbnail, when there is one."""
    img_src: str | None = None
    """URL of an image, for image results."""
    parsed_url: list[str] = Field(default_factory=list)
    """The URL split into scheme, host, path, params, query and fragment."""
    template: str | None = None
    """The HTML template the instance would render it with."""

    @field_validator("engines", "parsed_url", "positions", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        if value is None:
            return []
        return [v for v in value if v is not None] if isinstance(value, list) else value

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


_BY_STATUS: Final[StatusTable] = {
    403: (
        PermissionDeniedError,
        (_JSON_OFF_HINT, "a proxy in front of the instance may also refuse the request"),
    ),
    429: (None, ("the instance's limiter refused the request; a self-hosted instance avoids it",)),
    401: (None, ("the proxy in front of the instance wants credentials: set api_key=",)),
}


def read_searxng_error(status: int, response: HttpResponse) -> ErrorDetail:
    """SearXNG answers errors as HTML or plain text; only the status and a hint are kept."""
    body = load_json_object(response.content) or {}
    message = as_text(body.get("error")) or as_text(body.get("message"))
    if status == 403:
        message = message or "forbidden (is the JSON format enabled on this instance?)"
    error_class, hints = by_status(status, _BY_STATUS)
    return ErrorDetail(message=message, error_class=error_class, hints=hints)


class SearxngTextSearch(WebSearchConnector[SearxngResult]):
    """Search the web through a SearXNG instance (self-hosted metasearch, no key needed).

    `from_env()` reads ``SEARXNG_URL``.

    Args:
        base_url: The instance's URL (``https://searx.example.org``); defaults to the
            ``SEARXNG_URL`` variable. ``/search`` is appended.
        api_key: A token for a proxy in front of the instance, if it wants one.
        auth_header: Header that carries ``api_key`` (default ``Authorization``, sent as
            ``Bearer <key>``).
        max_pages: Most pages read for one search (SearXNG's page size is fixed by the
            instance, so ``skip + top`` results may take several pages).
        **settings: The mappers (of `SearxngResult`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No base URL, or a bad URL, header name or setting.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "searxng", "", SUPPORTED_FILTER_FIELDS, read_searxng_error, SearxngResult,
        path="/search", headers=(("Accept", "application/json"),),
        shown=("base_url", "auth_header"),
        env_settings=((ENV_VAR, "base_url"),))  # fmt: skip

    def __init__(
        self,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        auth_header: str | None = None,
        max_pages: int = DEFAULT_MAX_PAGES,
        **settings: Unpack[WebSettings[SearxngResult]],
    ) -> None:
        owner = type(self).__name__
        if base_url is None:
            base_url = os.environ.get(ENV_VAR, "").strip() or None
        if base_url is None:
            raise ConfigurationError(
                f"{owner} needs the URL of a SearXNG instance: pass base_url=... or set the "
                f"{ENV_VAR} environment variable"
            )
        header = check_header_name(auth_header, owner) if auth_header is not None else None
        if header is not None and api_key is None:
            raise ConfigurationError(f"{owner}: auth_header= is set but api_key= is not")
        if isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 1:
            raise ConfigurationError(f"{owner}: max_pages= must be a whole number of at least 1")
        self.max_pages = max_pages
        super().__init__(api_key, base_url, settings, auth=header)
        self.auth_header = header or ("Authorization" if self._api_key else None)

    def _resolve_key(self, api_key: str | None, owner: str) -> str:
        # No key by default: only a proxy in front of the instance may want one.
        if api_key is None or (isinstance(api_key, str) and not api_key.strip()):
            return ""
        return resolve_api_key(api_key, "SEARXNG_API_KEY", owner)

    def _translate(self, search_filter: TextSearchFilter | None) -> SiteFilter:
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
            assert isinstance(clause, EqualTo)  # split_filter leaves equalities only
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
        return SiteFilter(site_operators(site, exclude), tuple(params.items()), site, exclude)

    def _request(self, query: str, options: SearchOptions, translated: SiteFilter) -> HttpRequest:
        return self._page_request(query, 1, translated)

    def _page_request(self, query: str, page: int, translated: SiteFilter) -> HttpRequest:
        operators = translated.operators
        q = f"{query} {operators}" if operators else query
        params = [("q", q), ("format", "json")]
        if page > 1:
            params.append(("pageno", str(page)))
        params.extend(translated.params)
        return self._get(params)

    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        provider = self.provider_name
        try:
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
            raise no_results(response, provider)
        metadata: dict[str, Any] = {}
        if body.unresponsive_engines:
            metadata["unresponsive_engines"] = body.unresponsive_engines
        if body.suggestions:
            metadata["suggestions"] = body.suggestions
        if body.corrections:
            metadata["corrections"] = body.corrections
        return Page(body.results, metadata)

    def _plan(self, query: str, options: SearchOptions, text: bool) -> _Paging:
        return _Paging(self, query, options, self._translated(options.filter))

    def _to_text_search_result(self, item: SearxngResult) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=item.content, link=item.url)

    get_web_results = WebSearchConnector.get_search_results
    get_web_results_sync = WebSearchConnector.get_search_results_sync


class _Paging:
    """One search over pages ``pageno`` 1, 2, ...

    Until ``skip + top`` distinct results that pass the site check are in hand, the
    instance runs out, or ``max_pages`` pages were read.
    """

    def __init__(
        self, owner: SearxngTextSearch, query: str, options: SearchOptions, translated: SiteFilter
    ) -> None:
        self.owner, self.query, self.options, self.translated = owner, query, options, translated
        self.collected: list[SearxngResult] = []
        self.seen: set[str] = set()
        self.metadata: dict[str, Any] = {}
        self.page = 0
        self.done = False

    def step(self) -> Step | None:
        options, owner = self.options, self.owner
        if self.done or self.page >= owner.max_pages:
            return None
        if len(self.collected) >= options.skip + options.top:
            return None
        self.page += 1
        return owner._page_request(self.query, self.page, self.translated), self._parse

    def _parse(self, response: HttpResponse) -> SearchResults[Any]:
        page = self.owner._read_page(response, self.options, self.translated)
        # Every result of a page is validated: the next page may be needed anyway.
        top = max(1, len(page.items)) if isinstance(page.items, list) else 1
        return self.owner._map_page(page, top, self.translated, False, response.status_code)

    def take(self, page: SearchResults[Any]) -> None:
        """Add a page's new results that pass the site check; stop when none is new."""
        site, exclude = self.translated.site, self.translated.exclude
        metadata, added = self.metadata, 0
        for item in page.results:
            key = item.url or f"#{item.title}"
            if key in self.seen:
                continue  # engines and pages overlap
            self.seen.add(key)
            added += 1
            # Engines that do not understand site:/-site: ignore them: check every URL.
            if url_allowed(item.url, site, exclude):
                self.collected.append(item)
            else:
                metadata["filtered_out"] = metadata.get("filtered_out", 0) + 1
        for name, value in page.metadata.items():
            if name == "unresponsive_engines":
                known = metadata.setdefault(name, [])
                known.extend(v for v in value if v not in known)
            else:
                metadata.setdefault(name, value)
        if not added:
            self.done = True  # the instance has nothing more

    def result(self) -> SearchResults[Any]:
        skip, top = self.options.skip, self.options.top
        self.metadata["pages"] = self.page
        return SearchResults(self.collected[skip : skip + top], None, self.metadata)
