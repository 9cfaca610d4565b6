"""``BingTextSearch``: the Bing Web Search v7 wire format, and v7-compatible gateways.

Microsoft retired the public Bing Search v7 API on 2025-08-11. The wire format lives on in
gateways that re-host it; point ``endpoint=`` at one (and ``auth_header=`` at the header it
reads the key from). The retired endpoint answers HTTP 410, which is raised as
`ProviderRetiredError` with that explanation.

Filters:

* advanced operators (``site``, ``intitle``, ``inbody``, ``filetype``, ``language``, ``loc``,
  ``contains``, ``ext``, ``inanchor``, ``ip``, ``location``, ``prefer``, ``feed``, ``hasfeed``,
  ``url``) are written into ``q`` as ``operator:value`` (quoted when the value has spaces);
* query parameters (``mkt``, ``cc``, ``setLang``, ``safeSearch``, ``freshness``,
  ``responseFilter``, ``answerCount``, ``promote``, ``textDecorations``, ``textFormat``) are
  sent as such;
* the portable fields (DESIGN 10.3): ``site``/``exclude_site`` (``"a.com|b.com"`` is either
  domain, written ``(site:a.com OR site:b.com)``; ``-site:`` excludes), ``freshness``
  (``day|week|month`` as Bing's words, ``year`` as a date range, or ``A..B``), ``language``
  (the ``language:`` operator), ``country`` (``cc``) and ``safe_search`` (``safeSearch``);
* any other field is an `UnsupportedFilterError` before any request.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any, ClassVar, Final, NamedTuple, TypeVar

import httpx
from pydantic import Field
from typing_extensions import Unpack

from textsearch._http import (
    BodyStatusError,
    ErrorDetail,
    HttpRequest,
    HttpResponse,
)
from textsearch._http._checks import check_header_name, clean_text, load_json_object
from textsearch._types import (
    AnyTagEqualTo,
    EqualTo,
    SearchOptions,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.connectors.web._base import (
    CleanText,
    LenientDatetime,
    NullableList,
    WireModel,
    as_text,
    load_json_body,
    object_field,
    unescaped_text,
)
from textsearch.connectors.web._connector import (
    Page,
    WebSearchConnector,
    WebSettings,
    WebSpec,
    web_pages,
)
from textsearch.connectors.web._portable import (
    country_code,
    fold_ranges,
    intersect_domains,
    is_date_range,
    parse_domains,
    site_operators,
)
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    ResponseFormatError,
    UnsupportedFilterError,
)

__all__ = ["BingDeepLink", "BingTextSearch", "BingWebPage"]

DEFAULT_ENDPOINT: Final = "https://api.bing.microsoft.com/v7.0/search"
ENV_VAR: Final = "BING_SEARCH_API_KEY"

#: Advanced operators written into ``q``.
QUERY_OPERATORS: Final = frozenset(
    {
        "site",
        "intitle",
        "inbody",
        "filetype",
        "language",
        "loc",
        "contains",
        "ext",
        "inanchor",
        "ip",
        "location",
        "prefer",
        "feed",
        "hasfeed",
        "url",
    }
)
#: Query parameters a filter may set (the names are matched case-insensitively).
QUERY_PARAMETERS: Final = (
    "mkt",
    "cc",
    "setLang",
    "safeSearch",
    "freshness",
    "responseFilter",
    "answerCount",
    "promote",
    "textDecorations",
    "textFormat",
)
_PARAM_BY_LOWER: Final = {name.lower(): name for name in QUERY_PARAMETERS}
#: Portable fields (DESIGN 10.3) beyond those Bing names alike (site, language, freshness).
_PORTABLE_PARAMS: Final = {"country": "cc", "safe_search": "safeSearch"}
_PARAM_BY_LOWER.update(_PORTABLE_PARAMS)
_SITE_FIELDS: Final = ("site", "exclude_site")
SUPPORTED_FILTER_FIELDS: Final = frozenset(
    QUERY_OPERATORS | set(QUERY_PARAMETERS) | set(_PORTABLE_PARAMS) | set(_SITE_FIELDS)
)

_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "safeSearch": ("Off", "Moderate", "Strict"),
    "textFormat": ("Raw", "HTML"),
}
_FRESHNESS_WORDS: Final = ("Day", "Week", "Month")
_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
# Whitespace or Bing's boolean syntax (| & parentheses, and their full-width forms, which
# a search engine may fold to ASCII): such a value must be quoted, else "site:a.com|b.com"
# would read as "site:a.com OR b.com" and loosen the filter.
_NEEDS_QUOTES: Final = re.compile("[\\s|&()\uff5c\uff06\uff08\uff09]")
# Invisible characters (zero-width spaces and joiners, soft hyphen, BOM, bidi controls) that
# an engine may read as a word break: "a\u200bOR\u200bb" could be "a OR b".
_INVISIBLE: Final = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
# OR as a token: not between two letters or digits ("a OR\"b\"" and "a+OR+b" count;
# "ORACLE" does not), or a bar in either width.
_BOOLEAN_OR: Final = re.compile("(?<![^\\W_])OR(?![^\\W_])|[|\uff5c]")
# Bing answers 404 beyond 2,048 URL characters; its docs advise < 1,500 for the parameters.
_MAX_QUERY_CHARS: Final = 1500
_MAX_URL_CHARS: Final = 2048


class _Filter(NamedTuple):
    """A Bing filter in wire form.

    Operators for ``q``, query parameters, and whether the answer comes decorated (HTML
    entities and tags asked for).
    """

    operators: tuple[str, ...]
    params: tuple[tuple[str, str], ...]
    decorated: bool


_NO_FILTER: Final = _Filter((), (), False)

_RETIRED_MESSAGE: Final = (
    "the public Bing Search v7 API was retired by Microsoft on 2025-08-11 (HTTP 410 Gone); "
    "to keep using this connector, point it at a Bing-v7-compatible gateway with "
    "endpoint='https://<gateway>/v7.0/search' and, if the gateway reads the key from another "
    "header, auth_header='Authorization' (sent as 'Bearer <key>') or that header's name"
)


def _unescaped_unmarked(value: str) -> str:
    # Asked-for decorations (textFormat=HTML): entities undone, then the markup they spelled
    # (``&lt;b&gt;``) removed too.
    return clean_text(unescaped_text(value))


class BingDeepLink(WireModel):
    """A link to a page inside a result's site."""

    name: CleanText = None
    """Title of the linked page, highlight markers and decorations removed."""
    url: str | None = None
    """URL of the linked page."""
    snippet: CleanText = None
    """Text from the linked page, when Bing sends one."""
    deep_links: NullableList[BingDeepLink] = Field(default_factory=list)
    """Nested deep links (rare)."""


class BingCompatiblePage(WireModel):
    """The fields of Bing Web Search v7's ``Webpage`` that Bing-compatible APIs send too.

    The base of `BingWebPage` and of Bocha's ``BochaWebPage``, whose ``data`` object
    is Bing-compatible. Text fields come without hit-highlight markers (U+E000/U+E001) or
    HTML decorations.
    """

    id: str | None = None
    """The result's id, when one is sent (Bing's ``rankingResponse`` refers to it)."""
    name: CleanText = None
    """Title of the page."""
    url: str | None = None
    """URL of the page."""
    display_url: CleanText = None
    """The URL as displayed (may omit the scheme), without decoration tags."""
    snippet: CleanText = None
    """Text from the page describing its content."""
    date_last_crawled: LenientDatetime = None
    """When the page was last crawled."""
    date_published: LenientDatetime = None
    """When the page was published, if known (Bing sends no time zone)."""
    language: str | None = None
    """Main language of the page, when known."""
    is_family_friendly: bool | None = None
    """Whether the page is family friendly, when known."""
    is_navigational: bool | None = None
    """Whether the page is a navigational result, when known."""


class BingWebPage(BingCompatiblePage):
    """One web page of a Bing result (the ``Webpage`` object of Bing Web Search v7).

    Text fields come without hit-highlight markers (U+E000/U+E001) or HTML decorations.
    """

    deep_links: NullableList[BingDeepLink] = Field(default_factory=list)
    """Links to pages inside the same site."""


_Decorated = TypeVar("_Decorated", BingDeepLink, BingWebPage)


def _undecorate(page: _Decorated) -> _Decorated:
    """Remove the HTML decorations Bing adds with textFormat=HTML / textDecorations=true.

    A page and its deep links (which may hold deep links of their own) alike.
    """
    return page.model_copy(
        update={
            "name": clean_text(page.name, unescape=True),
            "snippet": clean_text(page.snippet, unescape=True),
            "deep_links": [_undecorate(d) for d in page.deep_links],
        }
    )


def read_bing_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read either Bing error body: ``ErrorResponse`` or the gateway's ``{"error": {...}}``."""
    body = load_json_object(response.content) or {}
    code = sub_code = message = None
    errors = body.get("errors")
    gateway = body.get("error")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        first = errors[0]
        code, sub_code = as_text(first.get("code")), as_text(first.get("subCode"))
        message = as_text(first.get("message"))
        parameter, value = as_text(first.get("parameter")), as_text(first.get("value"))
        if parameter:
            message = f"{message or 'invalid parameter'} (parameter {parameter}"
            message += f"={value!r})" if value is not None else ")"
    elif isinstance(gateway, dict):
        code, message = as_text(gateway.get("code")), as_text(gateway.get("message"))
    elif isinstance(body.get("message"), str):
        message = as_text(body.get("message"))

    error_class: type[ProviderError] | None = None
    hints: tuple[str, ...] = ()
    trace = response.headers.get("bingapis-traceid")
    if status == 403:
        words = f"{code} {sub_code} {message}".lower()
        if code == "RateLimitExceeded" or "quota" in words:
            error_class = QuotaExceededError
            hints = ("the monthly quota of this key is used up; retrying soon will not help",)
        else:
            error_class = PermissionDeniedError
    elif status == 401:
        hints = (f"check api_key= / {ENV_VAR} and that the endpoint matches the key",)
    elif status == 404:
        if len(response.url) > _MAX_URL_CHARS:
            hints = (
                f"the URL was {len(response.url)} characters long; Bing answers 404 beyond "
                f"{_MAX_URL_CHARS}: shorten the query or the filter",
            )
        else:
            hints = (
                "check endpoint=: the full URL of the search endpoint, e.g. "
                "https://<gateway>/v7.0/search",
            )
    elif status == 410:
        error_class = ProviderRetiredError
        original = message
        message = _RETIRED_MESSAGE
        if sub_code == "HttpNotAllowed" or (original and "https" in original.lower()):
            hints = ("this endpoint was called over plain HTTP; Bing v7 requires https://",)
    if trace:
        hints = (*hints, f"BingAPIs-TraceId: {trace}")
    return ErrorDetail(
        code=code, sub_code=sub_code, message=message, error_class=error_class, hints=hints
    )


#: Bing's error codes and the HTTP status that normally carries each one.
_CODE_STATUS: Final = {
    "InvalidRequest": 400,
    "InvalidAuthorization": 401,
    "InsufficientAuthorization": 403,
    "RateLimitExceeded": 429,
    "ServerError": 500,
}


def _raise_for_error_body(response: HttpResponse, provider: str) -> None:
    """Raise when a 2xx body is an error envelope (either shape) rather than a search."""
    raw = load_json_object(response.content) or {}
    errors, gateway = raw.get("errors"), raw.get("error")
    if isinstance(errors, list):
        first = errors[0] if errors and isinstance(errors[0], dict) else {}
    elif isinstance(gateway, dict):
        first = gateway
    elif raw.get("_type") == "ErrorResponse":
        first = {}
    else:
        return
    code = as_text(first.get("code")) or ""
    status = _CODE_STATUS.get(code)
    if status is None and code.isdigit() and 400 <= int(code) <= 599:
        status = int(code)  # the gateway shape: {"error": {"code": "401", ...}}
    if status is None:
        raise ResponseFormatError(
            f"{provider}: HTTP {response.status_code} with an error body instead of a "
            "search response",
            provider=provider,
            status_code=response.status_code,
        )
    raise BodyStatusError(status, read_bing_error(status, response))


def _operator_value(name: str, value: object) -> str:
    if value is None or isinstance(value, bool):
        raise InvalidRequestError(f"Bing filter {name!r} needs a text value, got {value!r}")
    text = str(value).strip()
    if not text:
        raise InvalidRequestError(f"Bing filter {name!r} needs a non-empty value")
    if '"' in text or _CONTROL.search(text):
        # A quote could close our quoting and smuggle operators (e.g. OR) into the query.
        raise InvalidRequestError(
            f"Bing filter {name!r}: the value may not contain double quotes or control characters"
        )
    if _NEEDS_QUOTES.search(text) or (not text.isascii() and _has_separator(text)):
        text = '"' + " ".join(text.split()) + '"'
    return f"{name}:{text}"


def _has_separator(text: str) -> bool:
    """Whether ``text`` holds an invisible or separator character (quoted like a space)."""
    if _INVISIBLE.search(text):
        return True
    return any(unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp") for ch in text)


def _param_value(name: str, value: object) -> str:
    if value is None:
        raise InvalidRequestError(f"Bing filter {name!r} needs a value, got None")
    if name == "textDecorations":
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower()
        raise InvalidRequestError(
            f"Bing filter 'textDecorations' must be true or false, not {value!r}"
        )
    if name == "answerCount":
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise InvalidRequestError("Bing filter 'answerCount' must be a whole number >= 0")
        text = str(value).strip()
        if not text.isdigit():
            raise InvalidRequestError("Bing filter 'answerCount' must be a whole number >= 0")
        return text
    if isinstance(value, bool):
        raise InvalidRequestError(f"Bing filter {name!r} needs a text value, got {value!r}")
    text = str(value).strip()
    if not text or _CONTROL.search(text):
        raise InvalidRequestError(f"Bing filter {name!r} needs a non-empty single-line value")
    choices = _CHOICES.get(name)
    if choices is not None:
        for choice in choices:
            if text.lower() == choice.lower():
                return choice
        raise InvalidRequestError(
            f"Bing filter {name!r} must be one of {', '.join(choices)}, not {text!r}"
        )
    if name == "freshness":
        return _freshness(text)
    if name == "cc":
        return country_code(text, "BingTextSearch")
    return text


def _freshness(text: str) -> str:
    for word in _FRESHNESS_WORDS:
        if text.lower() == word.lower():
            return word
    if text.lower() == "year":
        # Portable "year": Bing has no such word, but takes a date range.
        today = date.today()
        return f"{(today - timedelta(days=365)).isoformat()}..{today.isoformat()}"
    if is_date_range(text):
        return text
    raise InvalidRequestError(
        "Bing filter 'freshness' must be Day, Week, Month, Year, YYYY-MM-DD or "
        f"YYYY-MM-DD..YYYY-MM-DD (start <= end), not {text!r}"
    )


def _guard_query(query: str) -> str:
    """Keep operators from being loosened by the user's own boolean syntax.

    Without this, ``a OR b`` followed by ``site:x`` could read as ``a OR (b site:x)``, and an
    unbalanced quote could turn the operators into a phrase. Parentheses are dropped and
    unbalanced quotes removed (ASCII and full-width forms); a query with an OR token (also
    next to a quote, or around invisible characters) or a bar (``|``, ``｜``) is then
    wrapped in parentheses.
    """
    text = query
    for bracket in "()\uff08\uff09":
        if bracket in text:
            text = text.replace(bracket, " ")
    if (text.count('"') + text.count("\uff02")) % 2:
        text = text.replace('"', " ").replace("\uff02", " ")
    text = " ".join(text.split())
    probe = text if text.isascii() else _INVISIBLE.sub(" ", text)
    if _BOOLEAN_OR.search(probe):
        text = f"({text})"
    return text


class BingTextSearch(WebSearchConnector[BingWebPage]):
    """Search the web through the Bing Web Search v7 API or a v7-compatible gateway.

    `from_env()` reads ``BING_SEARCH_API_KEY``, ``BING_SEARCH_ENDPOINT`` (a compatible
    gateway; the public v7 API is retired) and ``BING_SEARCH_AUTH_HEADER``.

    Args:
        api_key: The subscription key; defaults to the ``BING_SEARCH_API_KEY`` variable.
        endpoint: Full URL of the search endpoint.
        custom_config: A Bing Custom Search configuration id; the ``/v7.0/custom/search``
            endpoint is then used (derived from ``endpoint`` when it ends in ``/v7.0/search``).
        auth_header: Header that carries the key. ``Authorization`` sends ``Bearer <key>``.
        **settings: The mappers (of `BingWebPage`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No key, or a bad endpoint, header name, ``custom_config`` or
            setting.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "bing", ENV_VAR, SUPPORTED_FILTER_FIELDS, read_bing_error, BingWebPage,
        text_fields=("name", "snippet", "url"),
        shown=("endpoint", "custom_config", "auth_header"),
        env_settings=(("BING_SEARCH_ENDPOINT", "endpoint"),
                      ("BING_SEARCH_AUTH_HEADER", "auth_header")))  # fmt: skip

    def __init__(
        self,
        api_key: str | None = None,
        *,
        endpoint: str = DEFAULT_ENDPOINT,
        custom_config: str | None = None,
        auth_header: str = "Ocp-Apim-Subscription-Key",
        **settings: Unpack[WebSettings[BingWebPage]],
    ) -> None:
        owner = type(self).__name__
        self.auth_header = check_header_name(auth_header, owner)
        if custom_config is not None:
            if isinstance(custom_config, bool) or not isinstance(custom_config, (str, int)):
                raise ConfigurationError(f"{owner}: custom_config= must be a string id")
            custom_config = str(custom_config).strip()
            if not custom_config:
                raise ConfigurationError(f"{owner}: custom_config= must not be empty")
        self.custom_config = custom_config
        super().__init__(api_key, endpoint, settings, auth=auth_header)
        if custom_config is not None:
            # The Custom Search endpoint beside the one given, and its configuration id.
            url = httpx.URL(self._url)
            if url.path.rstrip("/").endswith("/v7.0/search"):
                path = url.path.rstrip("/")[: -len("search")] + "custom/search"
                self._url = str(url.copy_with(path=path))
            fixed = [(k, v) for k, v in self._fixed_params if k != "customConfig"]
            self._fixed_params = (*fixed, ("customConfig", custom_config))

    # -- filters and request (pure) ----------------------------------------------------

    def _translate(self, search_filter: TextSearchFilter | None) -> _Filter:
        operators: list[str] = []
        params: dict[str, str] = {}
        # date bounds on freshness become its date range; other new clauses are refused
        search_filter = fold_ranges(search_filter, "BingTextSearch")
        if not search_filter:
            return _NO_FILTER
        sites: tuple[str, ...] | None = None
        excluded: list[str] = []
        for clause in search_filter.clauses:
            name = clause.field_name
            if isinstance(clause, AnyTagEqualTo):
                raise UnsupportedFilterError(
                    f"BingTextSearch cannot filter with any_tag_equal_to ({name!r}); "
                    "use equal_to with one of: " + ", ".join(sorted(SUPPORTED_FILTER_FIELDS)),
                    field_name=name,
                    supported_fields=sorted(SUPPORTED_FILTER_FIELDS),
                )
            assert isinstance(clause, EqualTo)  # fold_ranges leaves equalities only
            if name.lower() in _SITE_FIELDS and self.custom_config is None:
                # Portable domains: "a.com|b.com" is either domain, several clauses intersect.
                domains = parse_domains(name.lower(), clause.value, "BingTextSearch")
                if name.lower() == "exclude_site":
                    excluded.extend(d for d in domains if d not in excluded)
                    continue
                sites = domains if sites is None else intersect_domains(sites, domains)
                if not sites:
                    raise InvalidRequestError(
                        "Bing filters 'site' have no domain in common; clauses are AND-ed, so "
                        "no page could match"
                    )
                continue
            if name.lower() in QUERY_OPERATORS or name.lower() == "exclude_site":
                if self.custom_config is not None:
                    raise UnsupportedFilterError(
                        f"Bing Custom Search does not accept query operators such as {name!r}; "
                        "supported filter fields there: " + ", ".join(QUERY_PARAMETERS),
                        field_name=name,
                        supported_fields=QUERY_PARAMETERS,
                    )
                term = _operator_value(name.lower(), clause.value)
                if term not in operators:
                    operators.append(term)
                continue
            param = _PARAM_BY_LOWER.get(name.lower())
            if param is None:
                raise UnsupportedFilterError(
                    f"BingTextSearch cannot filter on {name!r}; supported filter fields: "
                    + ", ".join(sorted(SUPPORTED_FILTER_FIELDS)),
                    field_name=name,
                    supported_fields=sorted(SUPPORTED_FILTER_FIELDS),
                )
            value = _param_value(param, clause.value)
            previous = params.get(param)
            if previous is not None and previous != value:
                # Clauses are AND-ed; two different values of one parameter cannot both hold.
                raise InvalidRequestError(
                    f"Bing filter {param!r} is given twice with different values "
                    f"({previous!r} and {value!r})"
                )
            params[param] = value
        domain_terms = site_operators(sites, tuple(excluded))
        if domain_terms:
            operators.insert(0, domain_terms)
        if "mkt" in params and "cc" in params:
            raise InvalidRequestError("Bing filters 'mkt' and 'cc' cannot be used together")
        decorated = params.get("textFormat") == "HTML" or params.get("textDecorations") == "true"
        return _Filter(tuple(operators), tuple(params.items()), decorated)

    def _request(self, query: str, options: SearchOptions, translated: _Filter) -> HttpRequest:
        operators = translated.operators
        if operators:
            # Operators first: Bing reads only the first 10 terms of a query.
            q = " ".join(operators) + " " + _guard_query(query)
        else:
            q = query
        if len(q) > _MAX_QUERY_CHARS:
            raise InvalidRequestError(
                f"the Bing query is {len(q)} characters long (with filter operators); "
                f"keep it under {_MAX_QUERY_CHARS}"
            )
        offset = (("offset", str(options.skip)),) if options.skip else ()
        return self._get((("q", q), ("count", str(options.top)), *offset, *translated.params))

    def _read_page(
        self, response: HttpResponse, options: SearchOptions, translated: _Filter
    ) -> Page:
        provider, status = self.provider_name, response.status_code
        body = load_json_body(response, provider)
        metadata: dict[str, Any] = {}
        trace = response.headers.get("bingapis-traceid")
        if trace:
            metadata["trace_id"] = trace
        market = response.headers.get("bingapis-market")
        if market:
            metadata["market"] = market
        context = object_field(body, "queryContext", provider, status)
        altered = as_text(context.get("alteredQuery")) if context else None
        if altered:
            metadata["altered_query"] = altered
        answer = object_field(body, "webPages", provider, status)
        if answer is None:
            # No web pages is an empty result, unless the body is an error in disguise.
            _raise_for_error_body(response, provider)
        return web_pages(answer, metadata, options.include_total_count)

    def _clean(self, translated: _Filter) -> Callable[[str], str]:
        return _unescaped_unmarked if translated.decorated else clean_text

    def _finish(self, results: list[BingWebPage], translated: _Filter) -> list[BingWebPage]:
        return [_undecorate(p) for p in results] if translated.decorated else results

    def _to_text_search_result(self, item: BingWebPage) -> TextSearchResult:
        return TextSearchResult(name=item.name, value=item.snippet, link=item.url)

    get_web_pages = WebSearchConnector.get_search_results
    get_web_pages_sync = WebSearchConnector.get_search_results_sync
