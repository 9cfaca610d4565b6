"""The one web connector class: a provider is a `WebSpec` and three pure hooks.

See `WebSearchConnector`. What the providers share besides it (keys, URLs, JSON
reading, cleanup) is in `textsearch.connectors.web._base`.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Generic, NamedTuple, Protocol, TypeVar, overload

import httpx
from pydantic import BaseModel
from typing_extensions import Self, override

from textsearch._http import ErrorDetail, HttpEngine, HttpRequest, HttpResponse, bearer_or_plain
from textsearch._http._checks import check_url, resolve_api_key
from textsearch._http._settings import HTTP_DEFAULTS, HttpSettings, http_settings
from textsearch._types import (
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch, Shape
from textsearch.connectors.web._base import (
    as_text,
    int_field,
    text_items,
    unescaped_text,
    validate_items,
)
from textsearch.errors import ConfigurationError

__all__ = [
    "Page",
    "PagedPlan",
    "SiteFilter",
    "Step",
    "WebSearchConnector",
    "WebSettings",
    "WebSpec",
    "web_pages",
]

NativeT = TypeVar("NativeT")
SettingT = TypeVar("SettingT")


class SiteFilter(NamedTuple):
    """A filter in wire form for a provider that takes ``site:`` operators in the query.

    Such a provider (Brave, SearXNG) may not honour them everywhere, so every result's host
    is checked against ``site`` and ``exclude`` too: a filter is never loosened.
    """

    operators: str
    """``site:``/``-site:`` operators for the query text."""
    params: tuple[tuple[str, str], ...]
    """Query parameters."""
    site: tuple[str, ...] | None
    exclude: tuple[str, ...]


def _strings(results: SearchResults[TextSearchResult]) -> SearchResults[str]:
    # The same default as BaseTextSearch._default_string: the text, else the title or link.
    return SearchResults(
        [r.value or r.name or r.link or "" for r in results.results],
        results.total_count,
        results.metadata,
    )


class Page(NamedTuple):
    """What a provider reads around the results of one answer (see ``_read_page``)."""

    items: object
    """The results as sent (a list, or ``None``); the shared code validates them."""
    metadata: dict[str, Any]
    """What the answer says besides its results (ids, altered query, ...)."""
    total: int | None = None
    """The estimated number of matches, when asked for and known."""
    skip: int = 0
    """Results to drop from the front: a provider without paging serves ``skip`` so."""


def web_pages(answer: dict[str, Any] | None, metadata: dict[str, Any], include_total: bool) -> Page:
    """A Bing v7 ``webPages`` answer (Bing's and Bocha's) as a page: results, link, total."""
    if answer is None:
        return Page(None, metadata, 0 if include_total else None)
    web_search_url = as_text(answer.get("webSearchUrl"))
    if web_search_url:
        metadata["web_search_url"] = web_search_url
    if answer.get("someResultsRemoved") is True:
        metadata["some_results_removed"] = True
    total = int_field(answer, "totalEstimatedMatches") if include_total else None
    return Page(answer.get("value"), metadata, total)


@dataclass(frozen=True)
class WebSpec:
    """The declarative part of a web provider: who it is, where it is, what it answers."""

    provider: str
    """Short name, in errors and logs (``provider_name``)."""
    env_var: str
    """The environment variable of its key (``""``: none)."""
    filter_fields: frozenset[str]
    """The filter fields it accepts (``supported_filter_fields``)."""
    read_error: Callable[[int, HttpResponse], ErrorDetail]
    """Reads an error answer (status and body) into an `ErrorDetail`."""
    model: type[BaseModel]
    """The native model each result is validated as."""
    max_top: int = 50
    """Largest ``top``."""
    text_fields: tuple[str, str, str] | None = None
    """Keys of a result's title, text and link, read straight into ``TextSearchResult``s
    (``None``: the text shapes are mapped from the native model)."""
    path: str | None = None
    """Appended to ``base_url=``; ``None``: the ``endpoint=`` URL is the whole address (its
    query parameters are sent with every request)."""
    auth: str = "Authorization"
    """The header that carries the key (``Authorization`` sends ``Bearer <key>``)."""
    headers: tuple[tuple[str, str], ...] = ()
    """Headers sent with every request, besides the key."""
    shown: tuple[str, ...] = ("base_url",)
    """The attributes the ``repr`` shows (never the key)."""
    env_settings: tuple[tuple[str, str], ...] = ()
    """Environment variable → constructor keyword, read by ``from_env`` besides the key
    (``(("TAVILY_BASE_URL", "base_url"),)``)."""


class WebSettings(HttpSettings, Generic[NativeT], total=False):
    """The keywords every web connector takes: the HTTP settings and two mappers."""

    string_mapper: Callable[[NativeT], str] | None
    """Turns one native result into the string ``search`` returns (default: its text, else
    its title or link)."""
    text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None
    """Turns one native result into a ``TextSearchResult`` (default: the connector's own
    mapping)."""


_WEB_DEFAULTS: Final = {**HTTP_DEFAULTS, "string_mapper": None, "text_search_result_mapper": None}


#: One request and its parser; or a paging plan (several requests, see `PagedPlan`).
Step = tuple[HttpRequest, Callable[[HttpResponse], SearchResults[Any]]]


class PagedPlan(Protocol):
    """A search served by several requests (a provider with a fixed page size)."""

    def step(self) -> Step | None:
        """The next request, or ``None`` when the search has what it needs."""

    def take(self, page: SearchResults[Any]) -> None:
        """Take in one page's results."""

    def result(self) -> SearchResults[Any]:
        """The search's results, from the pages taken."""


_UNSET: Final = object()


class _EngineSetting(Generic[SettingT]):
    """A read-only connector attribute: its engine's setting of the same name."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, connector: None, owner: type) -> _EngineSetting[SettingT]: ...
    @overload
    def __get__(self, connector: WebSearchConnector[Any], owner: type) -> SettingT: ...
    def __get__(
        self, connector: WebSearchConnector[Any] | None, owner: type
    ) -> SettingT | _EngineSetting[SettingT]:
        if connector is None:
            return self
        return getattr(connector._engine, self._name)  # type: ignore[no-any-return]

    def __set__(self, connector: WebSearchConnector[Any], value: object) -> None:
        # Read-only, as a property without a setter: the engine holds the setting.
        raise AttributeError(f"{self._name} is read-only; pass it to the constructor")


class WebSearchConnector(BaseTextSearch[NativeT]):
    """The one connector class behind every web provider; a provider is a small spec.

    A provider class sets `spec` (a `WebSpec`: name, key variable, filter
    fields, error reader, native model, address, key header; ``provider_name``,
    ``env_var``, ``max_top`` and ``supported_filter_fields`` follow from it), takes its own
    keywords and ``**settings: Unpack[WebSettings[Native]]`` and passes them on with
    ``super().__init__(api_key, url, settings)``, and writes three pure hooks:
    `_translate` (its filter in its own wire form, or an error before any request),
    `_request` (the `HttpRequest`) and `_read_page` (the answer's
    envelope: errors inside a 2xx body, metadata, the list of results). Everything else is
    here, once: the key, the address, the HTTP settings, validating the results for every
    shape, the async and blocking paths, the client lifecycle, the ``repr``. The filter is
    translated once per search: `_check_filter` keeps its translation for the fetch
    that follows.
    """

    env_var: ClassVar[str] = ""
    open_world: ClassVar[bool] = True
    spec: ClassVar[WebSpec]

    def __init__(
        self,
        api_key: str | None,
        url: object,
        settings: Mapping[str, Any],
        *,
        auth: str | None = None,
    ) -> None:
        spec, owner = self.spec, type(self).__name__
        where = check_url(url, "endpoint=" if spec.path is None else "base_url=", owner)
        given = http_settings(settings, owner, _WEB_DEFAULTS)
        super().__init__(
            string_mapper=given.pop("string_mapper"),
            text_search_result_mapper=given.pop("text_search_result_mapper"),
        )
        self._api_key = self._resolve_key(api_key, owner)
        self._last: tuple[object, Any] = (_UNSET, None)
        try:
            self._engine = HttpEngine(
                provider=spec.provider, read_error=spec.read_error, secret=self._api_key, **given
            )
        except ConfigurationError as exc:
            raise ConfigurationError(f"{owner}: {exc}") from None
        address = where.copy_with(query=None)
        if spec.path is None:
            self.endpoint = str(where)
            self._url = str(address)
            # Parameters already in the endpoint are kept (httpx would replace them).
            self._fixed_params: tuple[tuple[str, str], ...] = tuple(where.params.multi_items())
        else:
            self.base_url = str(where).rstrip("/")
            self._url = str(address).rstrip("/") + spec.path
            self._fixed_params = ()
        header = auth or spec.auth
        self._headers = dict(spec.headers)
        if self._api_key:
            self._headers[header] = bearer_or_plain(header, self._api_key)

    @classmethod
    def from_env(cls, **settings: Any) -> Self:
        """Build the connector from the environment.

        The key comes from the provider's key variable (``env_var``: ``BRAVE_SEARCH_API_KEY``,
        ``TAVILY_API_KEY``...), the other settings from the variables of its
        ``spec.env_settings`` (an address such as ``TAVILY_BASE_URL``) when they are set and
        not blank. Keywords given here win over the environment.

        Args:
            **settings: Any constructor keyword.

        Raises:
            ConfigurationError: The key variable is not set (the message names it, never a
                value), or a setting is invalid.
        """
        for variable, keyword in cls.spec.env_settings:
            value = os.environ.get(variable, "").strip()
            if value and keyword not in settings:
                settings[keyword] = value
        return cls(**settings)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            cls.provider_name, cls.env_var, cls.max_top = spec.provider, spec.env_var, spec.max_top
            cls.supported_filter_fields = spec.filter_fields

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.spec.shown)
        return f"{type(self).__name__}({shown})"

    def _resolve_key(self, api_key: str | None, owner: str) -> str:
        # A service that needs no key (a self-hosted SearXNG) overrides this; "" is no key.
        return resolve_api_key(api_key, self.env_var, owner)

    timeout: _EngineSetting[httpx.Timeout] = _EngineSetting("The timeout applied to each request.")
    deadline: _EngineSetting[float] = _EngineSetting(
        "Total seconds per search: every attempt, wait and redirect included."
    )
    max_retries: _EngineSetting[int] = _EngineSetting("Retries after the first attempt.")
    max_retry_wait: _EngineSetting[float] = _EngineSetting(
        "Longest single wait between attempts, in seconds."
    )
    max_response_bytes: _EngineSetting[int] = _EngineSetting(
        "Largest body read, after decompression."
    )

    def _get(self, params: Iterable[tuple[str, str]]) -> HttpRequest:
        """A GET of the address: the endpoint's own query parameters, then ``params``."""
        return HttpRequest("GET", self._url, (*self._fixed_params, *params), None, self._headers)

    def _post(self, body: dict[str, Any]) -> HttpRequest:
        """A POST of ``body``, as JSON, to the address."""
        return HttpRequest("POST", self._url, (), body, self._headers)

    # -- the provider's hooks (pure) -----------------------------------------------------

    @abstractmethod
    def _translate(self, search_filter: TextSearchFilter | None) -> Any:
        """The filter in the provider's wire form; raises for what it cannot honour."""

    @abstractmethod
    def _request(self, query: str, options: SearchOptions, translated: Any) -> HttpRequest:
        """The request of one search (raises for options the provider cannot serve)."""

    @abstractmethod
    def _read_page(self, response: HttpResponse, options: SearchOptions, translated: Any) -> Page:
        """Read a 2xx answer's envelope: raise for an error in it, return its results."""

    def _clean(self, translated: Any) -> Callable[[str], str] | None:
        """Cleans a title or text read straight from an answer (``spec.text_fields``)."""
        return unescaped_text

    def _finish(self, results: list[Any], translated: Any) -> list[Any]:
        """Last touch to a page of validated native results."""
        return results

    # -- one search: translate once, plan, send ------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise for unsupported fields and bad values before any request."""
        self._last = (search_filter, self._translate(search_filter))

    def _translated(self, search_filter: TextSearchFilter | None) -> Any:
        # What _check_filter made of this very filter (a search calls it just before),
        # else a fresh translation (a concurrent search may have taken the slot).
        last = self._last
        if last[0] is search_filter:
            return last[1]
        translated = self._translate(search_filter)
        self._last = (search_filter, translated)
        return translated

    def _plan(self, query: str, options: SearchOptions, text: bool) -> Step | PagedPlan:
        """The request and its parser (``text``: straight to ``TextSearchResult``s)."""
        last, search_filter = self._last, options.filter
        # The usual case inline (a search's _check_filter has just translated this filter).
        translated = last[1] if last[0] is search_filter else self._translated(search_filter)
        request = self._request(query, options, translated)
        read_page, top = self._read_page, options.top

        def parse(response: HttpResponse) -> SearchResults[Any]:
            page = read_page(response, options, translated)
            return self._map_page(page, top, translated, text, response.status_code)

        return request, parse

    def _map_page(
        self, page: Page, top: int, translated: Any, text: bool, status: int
    ) -> SearchResults[Any]:
        """One page's results in the shape asked for: each validated once, at most ``top``.

        A malformed result is skipped and counted (``metadata["skipped"]``), see
        `validate_items`.
        """
        spec, provider, skip = self.spec, self.provider_name, page.skip
        results: list[Any]
        if text:
            fields = spec.text_fields
            assert fields is not None
            results, skipped = text_items(
                page.items, fields, self._clean(translated), top=skip + top, provider=provider,
                status=status,
            )  # fmt: skip
        else:
            results, skipped = validate_items(
                page.items, spec.model, top=skip + top, provider=provider, status=status
            )
            results = self._finish(results, translated)
        metadata = page.metadata
        if skipped:
            metadata["skipped"] = skipped
        return SearchResults(results[skip:] if skip else results, page.total, metadata)

    async def _run(self, plan: Step | PagedPlan) -> SearchResults[Any]:
        if isinstance(plan, tuple):
            return await self._engine.send(*plan)
        while (step := plan.step()) is not None:
            plan.take(await self._engine.send(*step))
        return plan.result()

    def _run_sync(self, plan: Step | PagedPlan) -> SearchResults[Any]:
        send = self._engine.send_sync
        if isinstance(plan, tuple):
            return send(*plan)
        while (step := plan.step()) is not None:
            plan.take(send(*step))
        return plan.result()

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        return await self._run(self._plan(query, options, False))

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        return self._run_sync(self._plan(query, options, False))

    # -- the text shapes: validate only what is used -------------------------------------

    def _text_path(self, kind: Shape) -> bool:
        """Whether results of shape ``kind`` go straight to ``TextSearchResult``s."""
        if kind == "native" or self.spec.text_fields is None:
            return False
        if self.text_search_result_mapper is not None:
            return False
        return kind == "text" or self.string_mapper is None

    # The public methods of the base class validate the request, then call these (so that
    # every search goes through the same path, tracing included).

    @override
    async def _answer(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        if not self._text_path(kind):
            return await super()._answer(kind, query, options)
        results = await self._run(self._plan(query, options, True))
        return results if kind == "text" else _strings(results)

    @override
    def _answer_sync(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        if not self._text_path(kind):
            return super()._answer_sync(kind, query, options)
        results = self._run_sync(self._plan(query, options, True))
        return results if kind == "text" else _strings(results)

    def close(self) -> None:
        """Close the blocking HTTP client this connector created (never an injected one).

        An async client it created is closed by `aclose` (or ``async with``).
        """
        self._engine.close()

    async def aclose(self) -> None:
        """Close every HTTP client this connector created (never an injected one)."""
        await self._engine.aclose()
