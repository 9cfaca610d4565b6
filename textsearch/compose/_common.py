"""What the three wrappers share: the public methods, naming, validation and closing.

A wrapper implements ``_run(kind, query, options)`` and its blocking twin once; the six
public methods of `TextSearch` (from
`TextSearchMethods`) are thin calls into them. ``kind`` is the
shape asked for: ``"search"`` (strings), ``"text"`` (``TextSearchResult``), ``"native"``
(the backend's own models) or ``"hits"`` (all three at once, which fusion needs and which
wrappers pass to each other through ``_search_hits``).
"""

from __future__ import annotations

import inspect
import logging
import math
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from types import FunctionType
from typing import Any, ClassVar, Literal, cast

from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.base import ResultMapper, Shape, TextSearch, TextSearchMethods, resolve_options
from textsearch.compose._result import WrappedResult
from textsearch.errors import ConfigurationError

logger = logging.getLogger("textsearch.compose")

Kind = Literal["search", "text", "native", "hits"]

_METHODS: dict[str, str] = {
    "search": "search",
    "text": "get_text_search_results",
    "native": "get_search_results",
}
_SYNC_METHODS: dict[str, str] = {kind: name + "_sync" for kind, name in _METHODS.items()}


class Hit:
    """One result in every shape: the native model, its normalized form, and its string.

    The string is made only when asked (``search``), by the connector that produced the
    result (``owner``, through its public ``to_string``) from the model it returned (``base``;
    the same as ``native`` except for fused results).
    """

    __slots__ = ("base", "native", "owner", "text")

    def __init__(
        self,
        native: Any,
        text: TextSearchResult,
        owner: ResultMapper | None = None,
        base: Any = None,
    ) -> None:
        self.native = native
        self.text = text
        self.owner = owner
        self.base = native if base is None else base

    def rewrapped(self, model: type[WrappedResult], **fields: Any) -> Hit:
        """This hit, its native result now a wrapper's ``model`` holding it and ``fields``."""
        native = model(result=self.native, text_search_result=self.text, **fields)
        return Hit(native, self.text, self.owner, self.base)

    @property
    def string(self) -> str:
        """The result as the connector's ``search`` would give it."""
        if self.owner is not None:
            return self.owner.to_string(self.base)
        text = self.text
        return text.value or text.name or text.link or ""


def provider_name(search: object) -> str:
    """A short, stable name for a search: its ``name``, its ``provider_name``, else its class."""
    for attribute in ("name", "provider_name"):
        value = getattr(search, attribute, None)
        if isinstance(value, str) and value.strip() and value != "custom":
            return value.strip()
    return type(search).__name__


def unique_names(searches: Sequence[object]) -> list[str]:
    """Provider names, with ``-2``, ``-3``... appended to repeats (``static``, ``static-2``)."""
    names: list[str] = []
    seen: dict[str, int] = {}
    for search in searches:
        base = provider_name(search)
        count = seen.get(base, 0) + 1
        seen[base] = count
        name = base if count == 1 else f"{base}-{count}"
        while name in names:  # a provider really named "static-2" next to two "static"
            count += 1
            name = f"{base}-{count}"
        names.append(name)
    return names


def check_searches(searches: object, what: str) -> list[TextSearch]:
    """The wrapped searches as a list, or ``ConfigurationError``."""
    if isinstance(searches, TextSearch) or not isinstance(searches, Sequence):
        raise ConfigurationError(f"{what} takes a list of searches, got {type(searches).__name__}")
    items = list(searches)
    if not items:
        raise ConfigurationError(f"{what} needs at least one search")
    for item in items:
        if not isinstance(item, TextSearch):
            raise ConfigurationError(
                f"{what}: every search must implement the TextSearch protocol, "
                f"got {type(item).__name__}"
            )
    return items


def check_number(
    value: object, label: str, *, unit: str = "", allow_none: bool = False
) -> float | None:
    """A finite number >= 0 (or ``None`` when allowed), else ``ConfigurationError``."""
    if value is None and allow_none:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigurationError(f"{label} must be a number{unit} >= 0, got {value!r}")
    return float(value)


def check_seconds(value: object, label: str, *, allow_none: bool = False) -> float | None:
    """A finite number of seconds >= 0 (or ``None`` when allowed), else ``ConfigurationError``."""
    return check_number(value, label, unit=" of seconds", allow_none=allow_none)


def smallest_max_top(searches: Sequence[object]) -> int:
    """The smallest ``max_top`` the searches declare (50, the core default, when none does)."""
    tops = [
        top
        for top in (getattr(s, "max_top", None) for s in searches)
        if isinstance(top, int) and not isinstance(top, bool) and top >= 1
    ]
    return min(tops) if tops else 50


def precheck(search: object, query: str, options: SearchOptions) -> None:
    """Validate a request against a search without sending it, when the search can.

    A search with the public ``check_request`` hook (`RequestChecker`:
    every `BaseTextSearch` connector and every wrapper) checks its own
    rules, ``top`` and the filter; a search without it is checked when it is called.
    """
    check = _checker(search)
    if check is not None:
        check(search, query, options)


_WRAPPER, _MAPPER, _PROTOCOL = 0, 1, 2
# isinstance against an ABC or a runtime-checkable Protocol is slow; a type's answer never changes.
_MODES: dict[type, int] = {}
# Per type: its check_request, unbound (found once; called on every request).
_CHECKERS: dict[type, Callable[[Any, str, SearchOptions], None] | None] = {}


def _checker(search: object) -> Callable[[Any, str, SearchOptions], None] | None:
    kind = type(search)
    try:
        return _CHECKERS[kind]
    except KeyError:
        found = inspect.getattr_static(kind, "check_request", None)
        check: Callable[[Any, str, SearchOptions], None] | None = None
        if isinstance(found, FunctionType):
            check = found  # a plain method: called unbound, without making a bound method
        elif found is not None:
            check = _check_bound  # a static or class method, or another descriptor
        _CHECKERS[kind] = check
        return check


def _check_bound(search: Any, query: str, options: SearchOptions) -> None:
    search.check_request(query, options)


def _mode(search: object) -> int:
    kind = type(search)
    mode = _MODES.get(kind)
    if mode is None:
        if isinstance(search, Wrapper):
            mode = _WRAPPER
        elif callable(getattr(kind, "to_text_search_result", None)) and callable(
            getattr(kind, "to_string", None)
        ):
            mode = _MAPPER  # it maps its own native results: one native request gives all shapes
        else:
            mode = _PROTOCOL
        _MODES[kind] = mode
    return mode


async def fetch_hits(search: TextSearch, query: str, options: SearchOptions) -> SearchResults[Hit]:
    """Search once and get every result in all three shapes."""
    mode = _mode(search)
    if mode == _WRAPPER:
        return await cast(Wrapper, search)._search_hits(query, options)
    if mode == _MAPPER:
        native = await search.get_search_results(query, options)
        return _hits_from_native(cast(ResultMapper, search), native)
    text = await search.get_text_search_results(query, options)
    return _hits_from_text(text)


def fetch_hits_sync(search: TextSearch, query: str, options: SearchOptions) -> SearchResults[Hit]:
    """Blocking twin of `fetch_hits`."""
    mode = _mode(search)
    if mode == _WRAPPER:
        return cast(Wrapper, search)._search_hits_sync(query, options)
    if mode == _MAPPER:
        native = search.get_search_results_sync(query, options)
        return _hits_from_native(cast(ResultMapper, search), native)
    return _hits_from_text(search.get_text_search_results_sync(query, options))


async def fetch_texts(
    search: TextSearch, query: str, options: SearchOptions
) -> SearchResults[TextSearchResult]:
    """Search once for normalized results only, by the search's own (often cheaper) text path.

    Web connectors map their responses straight to ``TextSearchResult``s for
    ``get_text_search_results`` without validating every field of their native models, so
    a caller that needs no native result should not ask for them.
    """
    if _mode(search) == _WRAPPER:
        texts: SearchResults[TextSearchResult] = await cast(Wrapper, search)._run(
            "text", query, options
        )
        return texts
    return await search.get_text_search_results(query, options)


def fetch_texts_sync(
    search: TextSearch, query: str, options: SearchOptions
) -> SearchResults[TextSearchResult]:
    """Blocking twin of `fetch_texts`."""
    if _mode(search) == _WRAPPER:
        texts: SearchResults[TextSearchResult] = cast(Wrapper, search)._run_sync(
            "text", query, options
        )
        return texts
    return search.get_text_search_results_sync(query, options)


def strings_from_text(search: object) -> bool:
    """Whether ``search``'s strings are its normalized results' text (no custom string mapping)."""
    mode = _mode(search)
    if mode == _PROTOCOL:
        return True  # read through its normalized results anyway
    if mode == _WRAPPER:
        return False  # its providers may map strings their own way
    # The public hook says so; a mapper without it may map strings its own way.
    same = getattr(search, "strings_are_text", None)
    return bool(same()) if callable(same) else False


def _hits_from_native(search: ResultMapper, native: SearchResults[Any]) -> SearchResults[Hit]:
    to_text = search.to_text_search_result
    hits = [Hit(n, to_text(n), search) for n in native.results]
    return SearchResults(hits, native.total_count, native.metadata)


def _hits_from_text(text: SearchResults[TextSearchResult]) -> SearchResults[Hit]:
    # A third-party TextSearch gives no way to map a native result, so its normalized
    # results stand in for the native ones (one request instead of two).
    hits = [Hit(t, t) for t in text.results]
    return SearchResults(hits, text.total_count, text.metadata)


async def call(search: TextSearch, kind: Kind, query: str, options: SearchOptions) -> Any:
    """Ask ``search`` for one shape of results."""
    if kind == "hits":
        return await fetch_hits(search, query, options)
    return await getattr(search, _METHODS[kind])(query, options)


def call_sync(search: TextSearch, kind: Kind, query: str, options: SearchOptions) -> Any:
    """Blocking twin of `call`."""
    if kind == "hits":
        return fetch_hits_sync(search, query, options)
    return getattr(search, _SYNC_METHODS[kind])(query, options)


def project(hits: SearchResults[Hit], kind: Kind) -> SearchResults[Any]:
    """One shape out of hits."""
    if kind == "hits":
        return hits
    if kind == "search":
        items: list[Any] = [h.string for h in hits.results]
    elif kind == "text":
        items = [h.text for h in hits.results]
    else:
        items = [h.native for h in hits.results]
    return SearchResults(items, hits.total_count, hits.metadata)


async def close_async(search: object) -> None:
    """Close a search the async way when it can, else the blocking way."""
    aclose = getattr(search, "aclose", None)
    if callable(aclose):
        outcome = aclose()
        if inspect.isawaitable(outcome):
            await outcome
        return
    close_sync(search)


def common_filter_fields(searches: Sequence[object]) -> frozenset[str] | None:
    """The filter fields that every search declaring its fields accepts (an intersection)."""
    declared = [getattr(s, "supported_filter_fields", None) for s in searches]
    sets = [frozenset(d) for d in declared if isinstance(d, (set, frozenset))]
    if not sets:
        return None
    return frozenset.intersection(*sets)


def close_sync(search: object) -> None:
    """Close a search (its blocking ``close``), when it has one."""
    close = getattr(search, "close", None)
    if callable(close):
        close()


class Wrapper(TextSearchMethods[Any]):
    """The public face shared by the wrappers; each wrapper supplies ``_run``/``_run_sync``.

    The search methods come from `TextSearchMethods`.
    """

    #: Short name used in metadata, logs and errors.
    provider_name: ClassVar[str] = "composed"

    max_top: int
    open_world: bool
    #: Filter fields every wrapped search declares it honours (``None``: none declares any).
    #: Every request is still checked against each wrapped search; this tells tool builders
    #: (``web_filter_parameters``) which filters to offer a model.
    supported_filter_fields: frozenset[str] | None

    def __init__(self, searches: Sequence[TextSearch], *, close_wrapped: bool) -> None:
        self._wrapped: tuple[TextSearch, ...] = tuple(searches)
        self.close_wrapped = bool(close_wrapped)
        self.max_top = smallest_max_top(self._wrapped)
        self.open_world = any(bool(getattr(s, "open_world", False)) for s in self._wrapped)
        self.supported_filter_fields = common_filter_fields(self._wrapped)

    # -- what each wrapper implements ---------------------------------------------------

    @abstractmethod
    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        """Run a validated request."""

    @abstractmethod
    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        """Blocking twin of `_run`."""

    def _check_wrapped(self, query: str, options: SearchOptions) -> None:
        """Validate the request against every wrapped search (overridden by fusion)."""
        for search in self._wrapped:
            precheck(search, query, options)

    # -- validation ---------------------------------------------------------------------

    def _resolve(
        self, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> tuple[str, SearchOptions]:
        return resolve_options(query, options, kwargs, max_top=self.max_top)

    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> tuple[str, SearchOptions]:
        query, effective = self._resolve(query, options, kwargs)
        self._check_wrapped(query, effective)
        return query, effective

    def check_request(self, query: str, options: SearchOptions) -> None:
        """Check an already resolved request (see `RequestChecker`).

        Raises:
            InvalidRequestError: ``top`` above ``max_top``, or a wrapped search's rule.
            UnsupportedFilterError: A wrapped search cannot honour the filter.
        """
        query, effective = self._resolve(query, options, {})
        self._check_wrapped(query, effective)

    # -- the TextSearch methods (TextSearchMethods) call these ------------------------------

    async def _answer(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        return await self._run(kind, query, options)

    def _answer_sync(self, kind: Shape, query: str, options: SearchOptions) -> SearchResults[Any]:
        return self._run_sync(kind, query, options)

    # Used by fusion and by wrappers of wrappers: all shapes in one request.
    async def _search_hits(self, query: str, options: SearchOptions) -> SearchResults[Hit]:
        hits: SearchResults[Hit] = await self._run("hits", query, options)
        return hits

    def _search_hits_sync(self, query: str, options: SearchOptions) -> SearchResults[Hit]:
        hits: SearchResults[Hit] = self._run_sync("hits", query, options)
        return hits

    # -- resources ------------------------------------------------------------------------

    def _release(self) -> None:
        """Release what the wrapper itself holds (fusion's threads)."""
        return None

    async def aclose(self) -> None:
        """Close the wrapped searches when ``close_wrapped`` is set; never otherwise."""
        self._release()
        if self.close_wrapped:
            for search in self._wrapped:
                await close_async(search)

    def close(self) -> None:
        """Blocking twin of `aclose`."""
        self._release()
        if self.close_wrapped:
            for search in self._wrapped:
                close_sync(search)
