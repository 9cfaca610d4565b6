"""``BochaTextSearch``: Bocha Web Search (博查), ``POST {base_url}/v1/web-search``.

The default base URL is ``https://api.bochaai.com``; ``https://api.bocha.cn`` serves the same
API. The key goes in ``Authorization: Bearer <key>``.

Filters: ``freshness`` (the portable ``day``, ``week``, ``month``, ``year``; Bocha's own
``noLimit``, ``oneDay``, ``oneWeek``, ``oneMonth``, ``oneYear``; ``YYYY-MM-DD`` or
``YYYY-MM-DD..YYYY-MM-DD``), ``site``/``include`` (only these domains) and
``exclude_site``/``exclude`` (not these domains). Bocha has no language, country or
safe-search parameter, so those portable fields (and any other field) are an
`UnsupportedFilterError` before any request.

Bocha reports some errors inside an HTTP 200 body (``{"code": 403, ...}``); the body code is
checked on every answer, and both of its error envelopes (``msg``/``message``, numeric or
string ``code``) are read.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar, Final

from pydantic import field_validator
from typing_extensions import Unpack

from textsearch._http import BodyStatusError, ErrorDetail, HttpRequest, HttpResponse
from textsearch._http._checks import load_json_object
from textsearch._types import (
    AnyTagEqualTo,
    EqualTo,
    SearchOptions,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.connectors.web import _base as web
from textsearch.connectors.web._connector import (
    Page,
    WebSearchConnector,
    WebSettings,
    WebSpec,
    web_pages,
)
from textsearch.connectors.web._portable import fold_ranges, is_date_range, unsupported_field
from textsearch.connectors.web.bing import BingCompatiblePage
from textsearch.errors import (
    AuthenticationError,
    InvalidRequestError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    ResponseFormatError,
)

__all__ = ["BochaTextSearch", "BochaWebPage"]

DEFAULT_BASE_URL: Final = "https://api.bochaai.com"
ENV_VAR: Final = "BOCHA_API_KEY"
SUPPORTED_FILTER_FIELDS: Final = frozenset(
    {"freshness", "site", "include", "exclude", "exclude_site"}
)
#: Bocha accepts at most 20 domains in ``include`` and in ``exclude``.
MAX_DOMAINS: Final = 20
FRESHNESS_WORDS: Final = ("noLimit", "oneDay", "oneWeek", "oneMonth", "oneYear")
#: The portable freshness words (DESIGN 10.3) in Bocha's own terms.
_PORTABLE_FRESHNESS: Final = {
    "day": "oneDay",
    "week": "oneWeek",
    "month": "oneMonth",
    "year": "oneYear",
}
_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DOMAIN: Final = re.compile(
    r"^[A-Za-z0-9\u00a1-\uffff]([A-Za-z0-9\u00a1-\uffff\-.]*[A-Za-z0-9\u00a1-\uffff])?$"
)
_SPLIT: Final = re.compile(r"[|,]")
_BEIJING: Final = timezone(timedelta(hours=8))


class BochaWebPage(BingCompatiblePage):
    """One web page of a Bocha result (Bing-compatible field names).

    Bocha writes unknown strings as ``""``: an unknown date, not a malformed response.
    ``date_published`` keeps the offset Bocha sends (usually +08:00). ``date_last_crawled``
    is Bocha's compatibility alias of the publish time, written with a ``Z`` suffix although
    it is Beijing time, so a ``Z`` value is read as UTC+08:00.
    """

    summary: web.CleanText = None
    """A longer summary of the page (sent when ``summary=True``)."""
    site_name: str | None = None
    """Name of the site."""
    site_icon: str | None = None
    """URL of the site's icon."""
    cached_page_url: str | None = None
    """Cached copy of the page, when Bocha has one."""

    @field_validator("date_last_crawled")
    @classmethod
    def _beijing(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.utcoffset() == timedelta(0):
            return value.replace(tzinfo=_BEIJING)
        return value

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _status_of(code: object) -> int | None:
    if isinstance(code, bool):
        return None
    if isinstance(code, int):
        return code
    if isinstance(code, str) and code.strip().isdigit():
        return int(code.strip())
    return None


def _classify(
    status: int, message: str | None
) -> tuple[type[ProviderError] | None, tuple[str, ...]]:
    text = (message or "").lower()
    if "api key" in text and "missing" in text:
        # Bocha answers a missing Authorization header with 400, not 401.
        return AuthenticationError, (f"set api_key= or the {ENV_VAR} environment variable",)
    if status == 401:
        if "权限" in (message or ""):
            # "no permission for this API": still a 401, so AuthenticationError (issue #3).
            return AuthenticationError, (
                "this key may not call this API (some Bocha APIs need to be enabled per key)",
            )
        return AuthenticationError, (f"check api_key= / {ENV_VAR}",)
    if status == 403:
        if "money" in text or "balance" in text or "余额" in (message or ""):
            return QuotaExceededError, ("top up the Bocha account; retrying will not help",)
        return PermissionDeniedError, ()
    return None, ()


def _detail(status: int, body: dict[str, Any]) -> ErrorDetail:
    message = web.as_text(body.get("message")) or web.as_text(body.get("msg"))
    code = web.as_text(body.get("code"))
    error_class, hints = _classify(status, message)
    log_id = web.as_text(body.get("log_id"))
    if log_id:
        hints = (*hints, f"log_id: {log_id}")
    return ErrorDetail(code=code, message=message, error_class=error_class, hints=hints)


def read_bocha_error(status: int, response: HttpResponse) -> ErrorDetail:
    """Read either Bocha error envelope (``message`` or ``msg``; string or numeric ``code``)."""
    return _detail(status, load_json_object(response.content) or {})


def _freshness(value: object) -> str:
    text = str(value).strip() if isinstance(value, str) else ""
    if text.lower() in _PORTABLE_FRESHNESS:
        return _PORTABLE_FRESHNESS[text.lower()]
    for word in FRESHNESS_WORDS:
        if text.lower() == word.lower():
            return word
    if is_date_range(text):
        return text
    raise InvalidRequestError(
        "Bocha filter 'freshness' must be one of "
        + ", ".join(FRESHNESS_WORDS)
        + f", YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD (start <= end), not {value!r}"
    )


def _domains(name: str, value: object) -> list[str]:
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequestError(f"Bocha filter {name!r} needs a domain, got {value!r}")
    result: list[str] = []
    for part in _SPLIT.split(value):
        domain = part.strip().lower()
        if domain.startswith(("http://", "https://")):
            domain = domain.split("://", 1)[1]
        domain = domain.rstrip("/")
        if not domain:
            continue
        if not _DOMAIN.fullmatch(domain):
            raise InvalidRequestError(
                f"Bocha filter {name!r}: {part.strip()!r} is not a domain name"
            )
        if domain not in result:
            result.append(domain)
    if not result:
        raise InvalidRequestError(f"Bocha filter {name!r} needs a domain, got {value!r}")
    return result


def _within(domain: str, parent: str) -> bool:
    return domain == parent or domain.endswith("." + parent)


def _intersect(first: list[str], second: list[str]) -> list[str]:
    """Domains allowed by both lists (a subdomain of an allowed domain is allowed)."""
    result: list[str] = []
    for a in first:
        for b in second:
            narrower = a if _within(a, b) else b if _within(b, a) else None
            if narrower is not None and narrower not in result:
                result.append(narrower)
    return result


class BochaTextSearch(WebSearchConnector[BochaWebPage]):
    """Search the web through Bocha Web Search.

    `from_env()` reads ``BOCHA_API_KEY`` and ``BOCHA_BASE_URL``.

    Args:
        api_key: The key (``sk-...``); defaults to the ``BOCHA_API_KEY`` variable.
        base_url: Scheme and host of the API (``https://api.bochaai.com`` or
            ``https://api.bocha.cn``); ``/v1/web-search`` is appended.
        summary: Ask Bocha for a long summary of each page and use it as the result's
            value (else the snippet is used).
        **settings: The mappers (of `BochaWebPage`) and the HTTP settings: see
            `WebSettings`.

    Raises:
        ConfigurationError: No key, a bad base URL or setting, or ``summary`` not a bool.
    """

    spec: ClassVar[WebSpec] = WebSpec(
        "bocha", ENV_VAR, SUPPORTED_FILTER_FIELDS, read_bocha_error, BochaWebPage,
        path="/v1/web-search", shown=("base_url", "summary"),
        env_settings=(("BOCHA_BASE_URL", "base_url"),))  # fmt: skip

    def __init__(
        self,
        api_key: str | None = None,
        *,
        summary: bool = True,
        base_url: str = DEFAULT_BASE_URL,
        **settings: Unpack[WebSettings[BochaWebPage]],
    ) -> None:
        self.summary = web.check_flag(summary, "summary=", self)
        super().__init__(api_key, base_url, settings)

    def _translate(self, search_filter: TextSearchFilter | None) -> dict[str, str]:
        body: dict[str, str] = {}
        # date bounds on freshness become its date range; other new clauses are refused
        search_filter = fold_ranges(search_filter, "BochaTextSearch")
        if not search_filter:
            return body
        include: list[str] | None = None
        exclude: list[str] = []
        for clause in search_filter.clauses:
            name = clause.field_name
            if name not in SUPPORTED_FILTER_FIELDS or isinstance(clause, AnyTagEqualTo):
                how = "with any_tag_equal_to " if isinstance(clause, AnyTagEqualTo) else ""
                raise unsupported_field("BochaTextSearch", name, SUPPORTED_FILTER_FIELDS, how)
            assert isinstance(clause, EqualTo)  # fold_ranges leaves equalities only
            if name == "freshness":
                value = _freshness(clause.value)
                if body.get("freshness", value) != value:
                    raise InvalidRequestError(
                        "Bocha filter 'freshness' is given twice with different values"
                    )
                body["freshness"] = value
            elif name in ("exclude", "exclude_site"):
                # AND of exclusions: exclude every listed domain.
                exclude.extend(d for d in _domains(name, clause.value) if d not in exclude)
            else:
                domains = _domains(name, clause.value)
                # AND of restrictions: only domains allowed by every clause remain.
                include = domains if include is None else _intersect(include, domains)
                if not include:
                    raise InvalidRequestError(
                        "Bocha filters 'site'/'include' have no domain in common; clauses are "
                        "AND-ed, so no page could match"
                    )
        for key, domains in (("include", include or []), ("exclude", exclude)):
            if len(domains) > MAX_DOMAINS:
                raise InvalidRequestError(
                    f"Bocha accepts at most {MAX_DOMAINS} domains in {key!r}, got {len(domains)}"
                )
            if domains:
                body[key] = "|".join(domains)
        return body

    def _request(
        self, query: str, options: SearchOptions, translated: dict[str, str]
    ) -> HttpRequest:
        page = web.page_index(options, "Bocha")
        body: dict[str, Any] = {"query": query, "count": options.top, "summary": self.summary}
        if page:
            body["page"] = page + 1
        body.update(translated)
        return self._post(body)

    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        provider, http_status = self.provider_name, response.status_code
        envelope = web.load_json_body(response, provider)
        code = envelope.get("code")
        status = _status_of(code)
        if code is not None and status != 200:
            # Bocha reports some failures inside an HTTP 200 body.
            raise BodyStatusError(status or 500, _detail(status or 500, envelope))
        data = web.object_field(envelope, "data", provider, http_status)
        if data is None:
            raise ResponseFormatError(
                f"{provider}: HTTP {http_status} but the body has no 'data'",
                provider=provider,
                status_code=http_status,
            )
        metadata: dict[str, Any] = {}
        log_id = web.as_text(envelope.get("log_id"))
        if log_id:
            metadata["log_id"] = log_id
        answer = web.object_field(data, "webPages", provider, http_status)
        return web_pages(answer, metadata, options.include_total_count)

    def _to_text_search_result(self, item: BochaWebPage) -> TextSearchResult:
        value = (item.summary or item.snippet) if self.summary else (item.snippet or item.summary)
        return TextSearchResult(name=item.name, value=value, link=item.url)

    get_web_pages = WebSearchConnector.get_search_results
    get_web_pages_sync = WebSearchConnector.get_search_results_sync
