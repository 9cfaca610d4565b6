"""``TavilyTextSearch``: Tavily Search, ``POST {base_url}/search``.

The key goes in ``Authorization: Bearer tvly-...`` (never in the JSON body). Tavily has no
paging: ``skip`` is served by asking for ``top + skip`` results (at most 20) and slicing.
Tavily's plan and pay-as-you-go limits are HTTP 432 and 433, raised as
`QuotaExceededError` and never retried; 429 is a rate limit,
retried with ``Retry-After``.

Filters: ``site``/``exclude_site`` (``include_domains``/``exclude_domains``), ``freshness``
(``time_range`` or ``start_date``/``end_date``) and ``country`` (sent as the English country
name Tavily expects; ``topic="general"`` only). Tavily has no language or safe-search
parameter, so ``language`` and ``safe_search`` are an
`UnsupportedFilterError` before any request.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import Unpack

from textsearch._http import ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import load_json_object
from textsearch._types import SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.connectors.web import _base as web
from textsearch.connectors.web._connector import Page, WebSearchConnector, WebSettings, WebSpec
from textsearch.connectors.web._portable import (
    COUNTRY,
    EXCLUDE_SITE,
    FRESHNESS,
    SITE,
    domain_lists,
    split_filter,
)
from textsearch.errors import (
    InvalidRequestError,
    QuotaExceededError,
    UnsupportedFilterError,
)

__all__ = ["TavilyResult", "TavilyTextSearch"]

DEFAULT_BASE_URL: Final = "https://api.tavily.com"
ENV_VAR: Final = "TAVILY_API_KEY"
SUPPORTED_FILTER_FIELDS: Final = frozenset({SITE, EXCLUDE_SITE, FRESHNESS, COUNTRY})
MAX_RESULTS: Final = 20
SEARCH_DEPTHS: Final = ("basic", "advanced", "fast", "ultra-fast")
TOPICS: Final = ("general", "news", "finance")
# "<ISO 3166-1 alpha-2 code> <the English name Tavily takes>", comma-separated.
_COUNTRY_TABLE = """
AE united arab emirates, AF afghanistan, AL albania, AM armenia, AO angola, AR argentina,
AT austria, AU australia, AZ azerbaijan, BA bosnia and herzegovina, BD bangladesh, BE belgium,
BG bulgaria, BH bahrain, BO bolivia, BR brazil, BY belarus, CA canada, CH switzerland, CL chile,
CM cameroon, CN china, CO colombia, CR costa rica, CU cuba, CY cyprus, CZ czech republic,
DE germany, DK denmark, DO dominican republic, DZ algeria, EC ecuador, EE estonia, EG egypt,
ES spain, ET ethiopia, FI finland, FR france, GB united kingdom, GE georgia, GH ghana,
GR greece, GT guatemala, HN honduras, HR croatia, HU hungary, ID indonesia, IE ireland,
IL israel, IN india, IQ iraq, IR iran, IS iceland, IT italy, JM jamaica, JO jordan, JP japan,
KE kenya, KG kyrgyzstan, KH cambodia, KR south korea, KW kuwait, KZ kazakhstan, LB lebanon,
LK sri lanka, LT lithuania, LU luxembourg, LV latvia, LY libya, MA morocco, MD moldova,
ME montenegro, MK north macedonia, MM myanmar, MN mongolia, MT malta, MX mexico, MY malaysia,
MZ mozambique, NG nigeria, NI nicaragua, NL netherlands, NO norway, NP nepal, NZ new zealand,
OM oman, PA panama, PE peru, PH philippines, PK pakistan, PL poland, PT portugal, PY paraguay,
QA qatar, RO romania, RS serbia, RU russia, RW rwanda, SA saudi arabia, SE sweden, SG singapore,
SI slovenia, SK slovakia, SN senegal, SV el salvador, SY syria, TH thailand, TN tunisia,
TR turkey, TW taiwan, TZ tanzania, UA ukraine, UG uganda, US united states, UY uruguay,
UZ uzbekistan, VE venezuela, VN vietnam, YE yemen, ZA south africa, ZM zambia, ZW zimbabwe
"""
#: Tavily takes ``country`` as a lower-case English name; ISO 3166-1 alpha-2 -> that name.
COUNTRY_NAMES: Final = {
    entry[:2]: entry[3:] for entry in (part.strip() for part in _COUNTRY_TABLE.split(","))
}


class _Snake(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, use_attribute_docstrings=True)


class TavilyResult(_Snake):
    """One result of Tavily Search (``results[]``)."""

    title: web.PlainText = None
    """Title of the page."""
    url: str | None = None
    """URL of the page."""
    content: web.PlainText = None
    """The passage of the page that answers the query best."""
    score: float | None = None
    """Tavily's relevance score (0-1)."""
    raw_content: str | None = None
    """The whole page as text, when ``include_raw_content`` was asked."""
    favicon: str | None = None
    """URL of the site's icon, when ``include_favicon`` was asked."""
    published_date: str | None = None
    """Publication date as Tavily writes it (``news`` topic)."""

    @field_validator("published_date", mode="before")
    @classmethod
    def _date_text(cls, value: Any) -> Any:
        return value if isinstance(value, str) and value.strip() else None


class _SearchResponse(_Snake):
    query: str | None = None
    answer: str | None = None
    # Each result is validated on its own (validate_items): one odd result is skipped and
    # counted, it does not fail the page.
    results: list[Any] = Field(default_factory=list)
    response_time: float | str | None = None
    request_id: str | None = None

    @field_validator("results", mode="before")
    @classmethod
    def _drop_nulls(cls, value: Any) -> Any:
        if value is None:
            return []
        # Anything but a list is left to the type check (a ResponseFormatError); iterating
        # it here could raise a TypeError, which pydantic would let escape as it is.
        return [v for v in value if v is not None] if isinstance(value, list) else value


_BY_STATUS: Final[web.StatusTable] = {
    432: (
        QuotaExceededError,
        ("the plan's monthly credit limit is reached; upgrade the plan or wait",),
    ),
    433: (
        QuotaExceededError,
        ("the pay-as-you-go spending limit is reached; raise it in the Tavily dashboard",),
    ),
    401: (None, (f"check api_key= / {ENV_VAR} (keys start with 'tvly-')",)),
    429: (None, ("too many requests for this key; slow down",)),
}


def read_tavily_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read ``{"detail": {"error": "..."}}`` (or a plain ``detail`` string)."""
    body = load_json_object(response.content) or {}
    detail = body.get("detail")
    if isinstance(detail, dict):
        message = web.as_text(detail.get("error")) or web.as_text(detail.get("message"))
    else:
        message = web.as_text(detail) or web.as_text(body.get("error"))
    request_id = web.as_text(body.get("request_id"))
    error_class, hints = web.by_status(
        status, _BY_STATUS, request_id and f"request_id: {request_id}"
    )
    return ErrorDetail(message=message, error_class=error_class, hints=hints)


class TavilyTextSearch(WebSearchConnector[TavilyResult]):
    """Search the web through Tavily Search.

    `from_env()` reads ``TAVILY_API_KEY`` and ``TAVILY_BASE_URL``.

    Args:
        api_key: The key (``tvly-...``); defaults to the ``TAVILY_API_KEY`` variable.
        base_url: Scheme and host of the API; ``/search`` is appended.
        search_depth: ``basic`` (1 credit), ``advanced`` (2 credits), ``fast`` or
            ``ultra-fast``.
        topic: ``general``, ``news`` or ``finance``.
        **settings: The mappers (of `TavilyResult`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No key, or a bad base URL, search depth, topic or setting.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "tavily", ENV_VAR, SUPPORTED_FILTER_FIELDS, read_tavily_error, TavilyResult,
        max_top=MAX_RESULTS, path="/search",
        shown=("base_url", "search_depth", "topic"),
        env_settings=(("TAVILY_BASE_URL", "base_url"),))  # fmt: skip

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str = DEFAULT_BASE_URL,
        search_depth: str = "basic",
        topic: str = "general",
        **settings: Unpack[WebSettings[TavilyResult]],
    ) -> None:
        self.search_depth = web.check_choice(search_depth, SEARCH_DEPTHS, "search_depth=", self)
        self.topic = web.check_choice(topic, TOPICS, "topic=", self)
        super().__init__(api_key, base_url, settings)

    def _translate(self, search_filter: TextSearchFilter | None) -> dict[str, Any]:
        owner = type(self).__name__
        portable, _ = split_filter(search_filter, owner, SUPPORTED_FILTER_FIELDS)
        body = domain_lists(portable, "include_domains", "exclude_domains")
        fresh = portable.freshness
        if fresh is not None:
            if fresh.word is not None:
                body["time_range"] = fresh.word
            else:
                start, end = fresh.dates()
                body["start_date"], body["end_date"] = start.isoformat(), end.isoformat()
        if portable.country:
            if self.topic != "general":
                raise UnsupportedFilterError(
                    f"{owner}: Tavily honours 'country' only with topic='general' "
                    f"(this connector uses topic={self.topic!r})",
                    field_name=COUNTRY,
                    supported_fields=sorted(SUPPORTED_FILTER_FIELDS - {COUNTRY}),
                )
            name = COUNTRY_NAMES.get(portable.country)
            if name is None:
                raise InvalidRequestError(
                    f"{owner}: Tavily has no country name for {portable.country!r}; "
                    "known codes: " + ", ".join(sorted(COUNTRY_NAMES))
                )
            body["country"] = name
        return body

    def _request(
        self, query: str, options: SearchOptions, translated: dict[str, Any]
    ) -> HttpRequest:
        body: dict[str, Any] = {
            "query": query,
            "max_results": web.unpaged_count(options, MAX_RESULTS, "Tavily"),
            "search_depth": self.search_depth,
            "topic": self.topic,
        }
        body.update(translated)
        return self._post(body)

    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        body = web.validate_body(_SearchResponse, response, self.provider_name)
        if "results" not in body.model_fields_set:
            raise web.no_results(response, self.provider_name)
        metadata: dict[str, Any] = {}
        if body.request_id:
            metadata["request_id"] = body.request_id
        if body.answer:
            metadata["answer"] = body.answer
        if body.response_time is not None:
            metadata["response_time"] = body.response_time
        # Tavily gives no total; the window is sliced out of top + skip results.
        return Page(body.results, metadata, None, options.skip)

    def _to_text_search_result(self, item: TavilyResult) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=item.content, link=item.url)

    get_web_results = WebSearchConnector.get_search_results
    get_web_results_sync = WebSearchConnector.get_search_results_sync
