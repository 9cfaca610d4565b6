"""``ExaTextSearch``: Exa search, ``POST {base_url}/search``.

The key goes in the ``x-api-key`` header. Exa has no paging: ``skip`` is served by asking for
``top + skip`` results (at most 100) and slicing. HTTP 402 (``NO_MORE_CREDITS``,
``API_KEY_BUDGET_EXCEEDED``) is a `QuotaExceededError`, never
retried; 429 is a rate limit (its body is only ``{"error": ...}``), retried with
``Retry-After``; 503 ``SERVICE_OVERLOADED`` is retried too.

Filters: ``site``/``exclude_site`` (``includeDomains``/``excludeDomains``), ``freshness``
(``startPublishedDate``/``endPublishedDate``; a relative word starts that span before now),
``country`` (``userLocation``) and ``safe_search`` (``moderation``: on for ``moderate`` and
``strict``). Exa has no language parameter, so ``language`` is an
`UnsupportedFilterError` before any request.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any, ClassVar, Final

from pydantic import Field, field_validator
from typing_extensions import Unpack

from textsearch._http import ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import clean_text, load_json_object
from textsearch._types import SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.connectors.web._base import (
    AnyDate,
    PlainText,
    StatusTable,
    WireModel,
    as_text,
    by_status,
    check_choice,
    no_results,
    unpaged_count,
    validate_body,
)
from textsearch.connectors.web._connector import Page, WebSearchConnector, WebSettings, WebSpec
from textsearch.connectors.web._portable import (
    COUNTRY,
    EXCLUDE_SITE,
    FRESHNESS,
    FRESHNESS_DAYS,
    SAFE_SEARCH,
    SITE,
    domain_lists,
    split_filter,
)
from textsearch.errors import (
    AuthenticationError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitError,
)

__all__ = ["ExaResult", "ExaTextSearch"]

DEFAULT_BASE_URL: Final = "https://api.exa.ai"
ENV_VAR: Final = "EXA_API_KEY"
SUPPORTED_FILTER_FIELDS: Final = frozenset({SITE, EXCLUDE_SITE, FRESHNESS, COUNTRY, SAFE_SEARCH})
MAX_RESULTS: Final = 100
SEARCH_TYPES: Final = ("auto", "neural", "keyword", "fast", "deep")
CONTENTS: Final = ("highlights", "summary", "text", "none")
DEFAULT_CONTENTS: Final = "highlights"
#: Characters of page text asked for with ``contents="text"``: a passage, not a whole page.
TEXT_CHARACTERS: Final = 2000
#: The ``contents`` object of the request for each ``contents=`` choice.
_CONTENTS: Final[dict[str, dict[str, Any] | None]] = {
    "highlights": {"highlights": True},
    "summary": {"summary": True},
    "text": {"text": {"maxCharacters": TEXT_CHARACTERS}},
    "none": None,
}


class ExaResult(WireModel):
    """One result of Exa search (``results[]``)."""

    id: str | None = None
    """Exa's id of the document (usually its URL)."""
    url: str | None = None
    """URL of the page."""
    title: PlainText = None
    """Title of the page; Exa sends ``null`` when it has none."""
    published_date: AnyDate = None
    """When the page was published, when Exa knows it."""
    author: str | None = None
    """Author of the page, when known."""
    score: float | None = None
    """Exa's relevance score (some search types send none)."""
    text: PlainText = None
    """Page text (``contents="text"``)."""
    highlights: list[str] = Field(default_factory=list)
    """The passages that match the query best (``contents="highlights"``)."""
    highlight_scores: list[float] = Field(default_factory=list)
    """A score for each highlight."""
    summary: PlainText = None
    """A summary of the page (``contents="summary"``)."""
    image: str | None = None
    """URL of the page's main image."""
    favicon: str | None = None
    """URL of the site's icon."""

    @field_validator("highlights", "highlight_scores", mode="before")
    @classmethod
    def _list(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, list):
            return [
                clean_text(v, unescape=True) if isinstance(v, str) else v
                for v in value
                if v is not None
            ]
        return value


class _SearchResponse(WireModel):
    request_id: str | None = None
    resolved_search_type: str | None = None
    search_type: str | None = None
    # Each result is validated on its own (validate_items): one odd result is skipped and
    # counted, it does not fail the page.
    results: list[Any] | None = None
    cost_dollars: dict[str, Any] | None = None

    @field_validator("results", mode="before")
    @classmethod
    def _drop_nulls(cls, value: Any) -> Any:
        return [v for v in value if v is not None] if isinstance(value, list) else value


_BY_STATUS: Final[StatusTable] = {
    402: (
        QuotaExceededError,
        ("the Exa account has no credits left or this key's budget is spent",),
    ),
    401: (AuthenticationError, (f"check api_key= / {ENV_VAR}",)),
    403: (PermissionDeniedError, ()),
    429: (RateLimitError, ("too many requests per second for this key; slow down",)),
}
_FEATURE_OFF: Final[StatusTable] = {
    **_BY_STATUS,
    403: (PermissionDeniedError, ("this feature is not enabled for the Exa account",)),
}


def read_exa_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read ``{"requestId", "error", "tag"}`` (the 429 body has only ``error``).

    Exa's tags are open-ended, so the class is decided by the status first.
    """
    body = load_json_object(response.content) or {}
    message = as_text(body.get("error")) or as_text(body.get("message"))
    tag = as_text(body.get("tag"))
    request_id = as_text(body.get("requestId"))
    table = _FEATURE_OFF if tag == "FEATURE_DISABLED" else _BY_STATUS
    error_class, hints = by_status(status, table, request_id and f"requestId: {request_id}")
    return ErrorDetail(code=tag, message=message, error_class=error_class, hints=hints)


def _day_start(day: date) -> str:
    return f"{day.isoformat()}T00:00:00.000Z"


def _day_end(day: date) -> str:
    return f"{day.isoformat()}T23:59:59.999Z"


class ExaTextSearch(WebSearchConnector[ExaResult]):
    """Search the web through Exa.

    `from_env()` reads ``EXA_API_KEY`` and ``EXA_BASE_URL``.

    Args:
        api_key: The key; defaults to the ``EXA_API_KEY`` variable.
        base_url: Scheme and host of the API; ``/search`` is appended.
        search_type: Exa's ``type``: ``auto``, ``neural``, ``keyword``, ``fast`` or ``deep``.
        contents: What Exa returns as each result's text: ``highlights`` (the passages
            that match best), ``summary``, ``text`` (the start of the page, 2,000
            characters) or ``none``.
        **settings: The mappers (of `ExaResult`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No key, or a bad base URL, search type, contents or setting.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "exa", ENV_VAR, SUPPORTED_FILTER_FIELDS, read_exa_error, ExaResult, max_top=MAX_RESULTS,
        shown=("base_url", "search_type", "contents"),
        path="/search", auth="x-api-key",
        env_settings=(("EXA_BASE_URL", "base_url"),))  # fmt: skip

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = DEFAULT_BASE_URL,
        search_type: str = "auto",
        contents: str = DEFAULT_CONTENTS,
        **settings: Unpack[WebSettings[ExaResult]],
    ) -> None:
        self.search_type = check_choice(search_type, SEARCH_TYPES, "search_type=", self)
        self.contents = check_choice(contents, CONTENTS, "contents=", self)
        super().__init__(api_key, base_url, settings)

    def _request(
        self, query: str, options: SearchOptions, translated: dict[str, Any]
    ) -> HttpRequest:
        wanted = unpaged_count(options, MAX_RESULTS, "Exa")
        body: dict[str, Any] = {"query": query, "type": self.search_type, "numResults": wanted}
        contents = _CONTENTS[self.contents]
        if contents is not None:
            body["contents"] = contents
        body.update(translated)
        return self._post(body)

    def _translate(self, search_filter: TextSearchFilter | None) -> dict[str, Any]:
        portable, _ = split_filter(search_filter, type(self).__name__, SUPPORTED_FILTER_FIELDS)
        body = domain_lists(portable, "includeDomains", "excludeDomains")
        fresh = portable.freshness
        if fresh is not None and fresh.word is not None:
            # Exa takes instants: counting whole calendar days back would let "day" reach up
            # to 48 hours into the past, a looser filter than the one asked for.
            since = datetime.now(timezone.utc) - timedelta(days=FRESHNESS_DAYS[fresh.word])
            body["startPublishedDate"] = since.isoformat(timespec="milliseconds").replace(
                "+00:00", "Z"
            )
        elif fresh is not None:
            start, end = fresh.dates()
            body["startPublishedDate"] = _day_start(start)
            body["endPublishedDate"] = _day_end(end)
        if portable.country:
            body["userLocation"] = portable.country
        if portable.safe_search:
            body["moderation"] = portable.safe_search != "off"
        return body

    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        body = validate_body(_SearchResponse, response, self.provider_name)
        if body.results is None:
            raise no_results(response, self.provider_name)
        metadata: dict[str, Any] = {}
        if body.request_id:
            metadata["request_id"] = body.request_id
        resolved = body.resolved_search_type or body.search_type
        if resolved:
            metadata["resolved_search_type"] = resolved
        if body.cost_dollars and isinstance(body.cost_dollars.get("total"), (int, float)):
            metadata["cost_dollars"] = body.cost_dollars["total"]
        return Page(body.results, metadata, None, options.skip)

    def _to_text_search_result(self, item: ExaResult) -> TextSearchResult:
        if item.highlights:
            value: str | None = " … ".join(h.strip() for h in item.highlights if h.strip())
        else:
            value = item.summary or item.text
        return TextSearchResult(name=item.title, value=value or None, link=item.url)

    get_web_results = WebSearchConnector.get_search_results
    get_web_results_sync = WebSearchConnector.get_search_results_sync
