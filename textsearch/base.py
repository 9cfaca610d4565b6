"""The ``TextSearch`` protocol and ``BaseTextSearch``, the optional shared base class.

A connector built on `BaseTextSearch` supplies two hooks: how to fetch native
results for a query (``_fetch`` and its blocking twin ``_fetch_sync``), and how to map
one native result to a `TextSearchResult` (``_to_text_search_result``).
Everything else (option merging and validation, empty-query rejection, the three result
shapes, the blocking twins, per-instance mappers, context management) comes from here.

Wrappers (fusion, fallback, caching, grounding, the MCP server) use only public methods of
what they wrap. Besides the `TextSearch` protocol they look for optional ones,
which `BaseTextSearch` implements and a third-party connector may implement too:
`RequestChecker` (``check_request``: validate before sending), `ResultMapper`
(``to_text_search_result``/``to_string``: one native request gives all three shapes) and
`DocumentReader` (``get_document``: read a stored document), with
`DocumentLister` (``list_documents``) and `SectionReader` (``get_section``)
for the MCP server's resources.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar, runtime_checkable

from typing_extensions import Self, Unpack

from textsearch import _tracing
from textsearch._types import (
    SearchOptionArgs,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
    is_valid_text,
    result_window,
)
from textsearch.errors import InvalidRequestError, UnsupportedFilterError

__all__ = [
    "BaseTextSearch",
    "Closeable",
    "DocumentLister",
    "DocumentReader",
    "RequestChecker",
    "ResultMapper",
    "SectionReader",
    "TextSearch",
    "TextSearchMethods",
    "resolve_options",
    "trusted_text_search_result",
]

NativeT = TypeVar("NativeT")


@runtime_checkable
class TextSearch(Protocol):
    """What every connector offers, whatever the backend.

    ``**kwargs`` are shortcuts for `SearchOptions` fields
    (``top=3, skip=3, filter=...``, typed as `SearchOptionArgs`); they
    override the same fields of ``options``. A connector whose methods take ``**kwargs: Any``
    satisfies the protocol too.
    """

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """Search and return each result as a string."""
        ...

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """Search and return normalized name/value/link results."""
        ...

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[Any]:
        """Search and return the backend's own typed results."""
        ...

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """Blocking twin of `search`."""
        ...

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """Blocking twin of `get_text_search_results`."""
        ...

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[Any]:
        """Blocking twin of `get_search_results`."""
        ...


@runtime_checkable
class RequestChecker(Protocol):
    """Optional: check a request without sending it (what wrappers call before searching).

    `BaseTextSearch` implements it. A wrapper (fusion, fallback, caching) that finds
    it validates every request against every wrapped search before sending anything, so a
    bad filter fails at once instead of after another provider has been asked. A search
    without it is checked when it is called.
    """

    def check_request(self, query: str, options: SearchOptions) -> None:
        """Raise if this search would refuse the request.

        ``query`` and ``options`` are already resolved by `resolve_options`: what is
        left is the search's own rules (its ``max_top``, the filter fields it honours).

        Raises:
            InvalidRequestError: The request breaks one of the search's own rules.
            UnsupportedFilterError: The filter names a field the search cannot honour.
        """
        ...


@runtime_checkable
class ResultMapper(Protocol):
    """Optional: map one native result to the other two shapes.

    `BaseTextSearch` implements it. A wrapper that needs every shape at once (fusion,
    the cache) then asks once with ``get_search_results`` and maps each native result,
    instead of searching once per shape. A search without it is asked for its normalized
    results, which then stand in for the native ones.
    """

    def to_text_search_result(self, item: Any) -> TextSearchResult:
        """One native result as ``get_text_search_results`` gives it."""
        ...

    def to_string(self, item: Any) -> str:
        """One native result as ``search`` gives it."""
        ...


@runtime_checkable
class DocumentReader(Protocol):
    """Optional: read one stored document by its key (the local index, PostgreSQL).

    Grounding reads a result's whole document instead of downloading its page, and the MCP
    server offers each result as a resource through it.
    """

    def get_document(self, key: str, *, filter: TextSearchFilter | None = None) -> Any:
        """The document stored under ``key``, or ``None``.

        Args:
            key: The document's key (its ``id``).
            filter: Only a document this filter matches is returned (``None`` otherwise),
                so that a preset filter also bounds what can be read.
        """
        ...


@runtime_checkable
class DocumentLister(Protocol):
    """Optional: enumerate the stored documents (the local index, PostgreSQL).

    The MCP server lists them as resources through it, a page at a time.
    """

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> Any:
        """Up to ``limit`` documents (text left empty) with ids after ``after``, in id order.

        Args:
            filter: Only documents this filter admits, so that a preset filter also bounds
                what is listed.
            after: The last id of the previous page (``None``: from the start).
            limit: Most documents returned.
        """
        ...


@runtime_checkable
class SectionReader(Protocol):
    """Optional: read the section a passage link (``file#anchor``, ``file#L12``) points at."""

    def get_section(self, link: str, *, filter: TextSearchFilter | None = None) -> Any:
        """The section of a stored document that ``link`` names, or ``None``.

        Args:
            link: A passage link as search results give it.
            filter: Only a section of a document this filter admits is returned.
        """
        ...


#: Options built from plain shortcuts (``top=10``...), kept: SearchOptions are frozen values,
#: and validating the same two fields on every search costs more than the rest of building
#: a web request. Bounded; a filter is never part of a kept entry.
_PLAIN_OPTIONS: dict[tuple[tuple[str, type, object], ...], SearchOptions] = {}
_PLAIN_OPTIONS_MAX = 256


def _plain_options(kwargs: Mapping[str, Any]) -> SearchOptions:
    key: list[tuple[str, type, object]] = []
    for name, value in kwargs.items():
        kind = type(value)
        if kind is not int and kind is not bool:  # the type is part of the key: True == 1
            return SearchOptions(**kwargs)
        key.append((name, kind, value))
    frozen = tuple(key)
    found = _PLAIN_OPTIONS.get(frozen)
    if found is None:
        found = _accepted_plain(kwargs)  # raises InvalidRequestError; nothing is kept then
        if len(_PLAIN_OPTIONS) >= _PLAIN_OPTIONS_MAX:
            _PLAIN_OPTIONS.clear()
        _PLAIN_OPTIONS[frozen] = found
    return found


#: The plain fields, and what pydantic's validation of `SearchOptions` accepts unchanged.
_PLAIN_FIELDS: dict[str, Callable[[Any], bool]] = {
    "top": lambda v: type(v) is int and v >= 1,
    "skip": lambda v: type(v) is int and 0 <= v <= SearchOptions.MAX_SKIP,
    "include_total_count": lambda v: type(v) is bool,
}


def _accepted_plain(kwargs: Mapping[str, Any]) -> SearchOptions:
    """Options of int and bool shortcuts, validated only when a value may be refused.

    Built as validation would build them when every value is one it accepts as it is, else
    validated (which raises the refusal). A process whose searches pass only such values
    never builds the model's validator, the largest part of a first search in a fresh
    process (``bench_local.py``).
    """
    if all(name in _PLAIN_FIELDS and _PLAIN_FIELDS[name](v) for name, v in kwargs.items()):
        return SearchOptions.model_construct(**kwargs)
    return SearchOptions(**kwargs)


def resolve_options(
    query: object, options: SearchOptions | None, kwargs: Mapping[str, Any], *, max_top: int
) -> tuple[str, SearchOptions]:
    """Validate a query and merge option shortcuts; pure, shared by every connector.

    Returns:
        The query (unchanged) and the effective options.

    Raises:
        InvalidRequestError: The query is not a non-empty string, an option is unknown or
            invalid, ``top`` is above ``max_top`` or ``skip`` above ``SearchOptions.MAX_SKIP``.
    """
    if not isinstance(query, str):
        raise InvalidRequestError(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise InvalidRequestError("query must not be empty or only whitespace")
    if not is_valid_text(query):
        raise InvalidRequestError("query must be valid Unicode text (it has a lone surrogate)")
    if options is not None and not isinstance(options, SearchOptions):
        raise InvalidRequestError(f"options must be a SearchOptions, not {type(options).__name__}")
    if options is None:
        effective = _plain_options(kwargs)
    else:
        effective = options.with_updates(**kwargs) if kwargs else options
    if effective.top > max_top:
        raise InvalidRequestError(
            f"top={effective.top} is above this connector's maximum of {max_top}"
        )
    result_window(effective)  # options built without validation are bounded too
    return query, effective


def trusted_text_search_result(
    name: str | None, value: str | None, link: str | None
) -> TextSearchResult:
    """A `TextSearchResult` built without validating its fields again.

    For a connector's mapping, whose fields come from its own validated native model (each
    a ``str`` or ``None``). Equal, hashable and frozen exactly like one built the usual way.
    """
    return TextSearchResult.model_construct(name=name, value=value, link=link)


class Closeable:
    """``with`` and ``async with`` for a search: leaving the block closes it.

    ``async with`` calls `aclose`, ``with`` calls `close`; both do nothing by
    default. `BaseTextSearch` and the compose wrappers are built on it, and a
    third-party connector or wrapper may be too.
    """

    __slots__ = ()

    async def aclose(self) -> None:
        """Release what this search holds; by default the same as `close`."""
        self.close()

    def close(self) -> None:
        """Release what this search holds; nothing by default."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


#: The result shapes: ``search`` (strings), ``get_text_search_results`` (normalized) and
#: ``get_search_results`` (native).
Shape = Literal["search", "text", "native"]


class TextSearchMethods(Closeable, ABC, Generic[NativeT]):
    """The six `TextSearch` methods and ``prepare_request``, written once.

    A subclass supplies ``_prepare(query, options, kwargs)``, which validates a request
    and returns the query and the effective options, and ``_answer(kind, query, options)``
    with its blocking twin ``_answer_sync``, which run a validated request and return the
    results in one shape (``kind``: ``"search"``, ``"text"`` or ``"native"``).
    `BaseTextSearch` and the compose wrappers are built on it.
    """

    __slots__ = ()

    @abstractmethod
    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> tuple[str, SearchOptions]:
        """Validate a request; the query and the effective options."""

    @abstractmethod
    async def _answer(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        """Run a validated request; its results in the shape ``kind``."""

    @abstractmethod
    def _answer_sync(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        """Blocking twin of `_answer`."""

    async def _retrieve(
        self, kind: Shape, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> SearchResults[Any]:
        # What every public search method does: prepare, then answer (in a span when traced).
        if _tracing.enabled():
            return await _tracing.retrieve(self, kind, query, options, kwargs)
        query, effective = self._prepare(query, options, kwargs)
        return await self._answer(kind, query, effective)

    def _retrieve_sync(
        self, kind: Shape, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> SearchResults[Any]:
        if _tracing.enabled():
            return _tracing.retrieve_sync(self, kind, query, options, kwargs)
        query, effective = self._prepare(query, options, kwargs)
        return self._answer_sync(kind, query, effective)

    def prepare_request(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> tuple[str, SearchOptions]:
        """Validate a request as the search methods do, without sending it.

        Returns:
            The query and the effective options.

        Raises:
            InvalidRequestError: Empty query, invalid options, ``top`` above ``max_top``, or
                another rule of this search (a wrapper: of a wrapped search).
            UnsupportedFilterError: The filter names a field this search cannot honour.
        """
        return self._prepare(query, options, kwargs)

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """Search and return each result as a string (by default the result's text).

        Raises:
            InvalidRequestError: Empty query or invalid options (before any request).
            UnsupportedFilterError: The filter names a field this search cannot honour.
            ProviderError: The backend answered with an error (a wrapper:
                ``AllProvidersFailedError`` when every wrapped search failed).
            SearchTransportError: The backend could not be reached.
        """
        return await self._retrieve("search", query, options, kwargs)

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """Search and return normalized name/value/link results; raises like `search`."""
        return await self._retrieve("text", query, options, kwargs)

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[NativeT]:
        """Search and return the backend's own typed results; raises like `search`."""
        return await self._retrieve("native", query, options, kwargs)

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """Blocking twin of `search`; raises the same errors."""
        return self._retrieve_sync("search", query, options, kwargs)

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """Blocking twin of `get_text_search_results`; raises the same errors."""
        return self._retrieve_sync("text", query, options, kwargs)

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[NativeT]:
        """Blocking twin of `get_search_results`; raises the same errors."""
        return self._retrieve_sync("native", query, options, kwargs)


class BaseTextSearch(TextSearchMethods[NativeT], ABC):
    """Shared implementation of `TextSearch` for connectors.

    Subclasses implement `_fetch` and `_fetch_sync` (usually as thin wrappers
    that share request building and parsing and differ only in how they send), and
    `_to_text_search_result`. They may narrow the filter fields they accept with
    `supported_filter_fields` or override `_check_filter`.

    Args:
        string_mapper: Turns one native result into the string that `search`
            returns; defaults to the value of the normalized result.
        text_search_result_mapper: Turns one native result into a
            `TextSearchResult`; defaults to the connector's mapping.
    """

    #: Largest ``top`` this connector accepts.
    max_top: ClassVar[int] = 50
    #: Filter field names this connector accepts; ``None`` means "checked by ``_check_filter``".
    supported_filter_fields: ClassVar[frozenset[str] | None] = None
    #: Short provider name used in errors and logs.
    provider_name: ClassVar[str] = "custom"
    #: Whether results come from the open web (tool annotations tell models and MCP clients).
    open_world: ClassVar[bool] = False

    def __init__(
        self,
        *,
        string_mapper: Callable[[NativeT], str] | None = None,
        text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None = None,
    ) -> None:
        self.string_mapper = string_mapper
        self.text_search_result_mapper = text_search_result_mapper

    # -- hooks -------------------------------------------------------------------------

    @abstractmethod
    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        """Fetch native results for a validated query and options."""

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        """Blocking twin of `_fetch`.

        The default runs `_fetch` on a private event loop, which is right for
        third-party connectors that only have async I/O. It refuses to run inside a
        running event loop (use the async method there). Built-in connectors override it.
        """
        import asyncio  # only here: keeps ``import textsearch`` light

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._fetch(query, options))
        raise RuntimeError(
            f"{type(self).__name__}: a blocking *_sync method was called inside a running event "
            "loop; await the async method instead"
        )

    @abstractmethod
    def _to_text_search_result(self, item: NativeT) -> TextSearchResult:
        """Map one native result to a normalized result."""

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise `UnsupportedFilterError` for a clause this connector cannot honour."""
        allowed = self.supported_filter_fields
        if search_filter is None or allowed is None:
            return
        for name in search_filter.field_names:
            if name not in allowed:
                raise UnsupportedFilterError(
                    f"{type(self).__name__} cannot filter on {name!r}; supported filter fields: "
                    + ", ".join(sorted(allowed)),
                    field_name=name,
                    supported_fields=sorted(allowed),
                )

    # -- public hooks, for wrappers (fusion, fallback, caching, grounding, the MCP server) --

    def check_request(self, query: str, options: SearchOptions) -> None:
        """Check a request that a wrapper has already resolved (see `RequestChecker`).

        Raises:
            InvalidRequestError: ``top`` is above ``max_top``, or another rule of this
                connector is broken.
            UnsupportedFilterError: The filter names a field this connector cannot honour.
        """
        plain = _BASE_PREPARE.get(type(self))
        if plain is None:
            plain = _keeps_base_prepare(type(self))
        if plain and options.top <= self.max_top:
            # The wrapper resolved the query and options by the same rules (resolve_options);
            # what is left of _prepare is the connector's own filter check.
            self._check_filter(options.filter)
            return
        self._prepare(query, options, {})

    def check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise if this connector cannot honour a filter (no request is sent).

        Raises:
            UnsupportedFilterError: The filter names a field this connector cannot honour.
            InvalidRequestError: A value this connector cannot use.
        """
        self._check_filter(search_filter)

    def to_text_search_result(self, item: NativeT) -> TextSearchResult:
        """One native result as `get_text_search_results` gives it.

        Uses ``text_search_result_mapper`` when set, else the connector's own mapping.
        """
        return self._map_text(item)

    def to_string(self, item: NativeT) -> str:
        """One native result as `search` gives it (``string_mapper`` when set)."""
        return self._map_string(item)

    def strings_are_text(self) -> bool:
        """Whether `to_string` is always the text of `to_text_search_result`.

        True without a ``string_mapper`` or a custom string mapping: the string is the
        normalized result's value, else its title, else its link. Wrappers then make
        strings from the normalized results, which a connector may produce more cheaply.
        """
        return self.string_mapper is None and _default_strings(type(self))

    # -- shared plumbing ---------------------------------------------------------------

    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> tuple[str, SearchOptions]:
        query, effective = resolve_options(query, options, kwargs, max_top=self.max_top)
        self._check_filter(effective.filter)
        return query, effective

    def _map_text(self, item: NativeT) -> TextSearchResult:
        mapper = self.text_search_result_mapper
        return mapper(item) if mapper is not None else self._to_text_search_result(item)

    def _map_string(self, item: NativeT) -> str:
        if self.string_mapper is not None:
            return self.string_mapper(item)
        return self._default_string(item)

    def _default_string(self, item: NativeT) -> str:
        result = self._map_text(item)
        return result.value or result.name or result.link or ""

    def _as_text(self, native: SearchResults[NativeT]) -> SearchResults[TextSearchResult]:
        return SearchResults(
            [self._map_text(r) for r in native.results], native.total_count, native.metadata
        )

    def _as_strings(self, native: SearchResults[NativeT]) -> SearchResults[str]:
        return SearchResults(
            [self._map_string(r) for r in native.results], native.total_count, native.metadata
        )

    # -- the search methods (TextSearchMethods) call these -------------------------------

    async def _answer(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        native = await self._fetch(query, options)
        return native if kind == "native" else self._shaped(kind, native)

    def _answer_sync(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        native = self._fetch_sync(query, options)
        return native if kind == "native" else self._shaped(kind, native)

    def _shaped(self, kind: Shape, native: SearchResults[NativeT]) -> SearchResults[Any]:
        return self._as_strings(native) if kind == "search" else self._as_text(native)

    # -- resources ---------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release resources this connector created (never ones that were injected)."""
        self.close()

    def close(self) -> None:
        """Release resources this connector created (never ones that were injected)."""


# Per type: does it keep BaseTextSearch's request preparation (only its filter check is its
# own), and its string mapping? A type's answers never change, and these run per search.
_BASE_PREPARE: dict[type, bool] = {}
_DEFAULT_STRINGS: dict[type, bool] = {}


def _keeps_base_prepare(kind: type[BaseTextSearch[Any]]) -> bool:
    return _keeps(_BASE_PREPARE, kind, ("_prepare", "prepare_request"))


def _default_strings(kind: type[BaseTextSearch[Any]]) -> bool:
    return _keeps(_DEFAULT_STRINGS, kind, ("_map_string", "_default_string", "to_string"))


def _keeps(answers: dict[type, bool], kind: type, methods: tuple[str, ...]) -> bool:
    # Whether ``kind`` overrides none of ``methods`` of BaseTextSearch (remembered per type).
    found = answers.get(kind)
    if found is None:
        found = answers[kind] = all(
            getattr(kind, name) is getattr(BaseTextSearch, name) for name in methods
        )
    return found
