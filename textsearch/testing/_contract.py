"""The connector contract as plain checks: `check_connector` returns what a connector breaks.

The checks need no test framework: each returns `Finding`s (an empty list: the connector
keeps the contract). `ConnectorContract` (``._suite``) runs the same checks as pytest tests.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from functools import partial
from typing import Any, TypeVar

from textsearch._types import MAX_SKIP, SearchOptions, SearchResults, TextSearchResult
from textsearch.base import TextSearch
from textsearch.errors import InvalidRequestError, TextSearchError, UnsupportedFilterError
from textsearch.testing._corpus import (
    CONTRACT_DOCUMENTS,
    CONTRACT_QUERY,
    documents_by_link,
    filter_probes,
    link_key,
)

__all__ = ["CHECKS", "ConnectorFactory", "Finding", "check_connector"]

T = TypeVar("T")

#: Makes the connector under test, loaded with the documents it is given.
ConnectorFactory = Callable[[Sequence[Mapping[str, Any]]], TextSearch]

#: The groups of checks, in the order they run.
CHECKS = ("protocol", "results", "options", "filters", "errors")

_KINDS = ("search", "get_text_search_results", "get_search_results")
# Control characters a name or text may hold (a link may hold none).
_ALLOWED_CONTROLS = frozenset("\t\n\r")


@dataclass(frozen=True)
class Finding:
    """One way a connector breaks the contract.

    Attributes:
        check: The group and the rule (``"options.top"``, ``"filters.applied"``...).
        message: What was seen, in words.
    """

    check: str
    message: str

    def __str__(self) -> str:
        return f"{self.check}: {self.message}"


def _shape(items: SearchResults[Any]) -> list[Any]:
    """Results comparable between two calls (text results by their three strings)."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, TextSearchResult):
            out.append((item.name, item.value, item.link))
        else:
            out.append(item)
    return out


def _texts(items: SearchResults[Any]) -> list[tuple[str | None, str | None, str | None]]:
    return [(r.name, r.value, r.link) for r in items if isinstance(r, TextSearchResult)]


def _controls(text: str, allowed: Collection[str]) -> str:
    return ", ".join(sorted({repr(c) for c in text if ord(c) < 32 and c not in allowed}))


@dataclass(eq=False)
class _Run:
    """The state of one run of the checks over one connector: what it was given, then what
    the checks found and what the sync calls answered."""

    search: TextSearch
    _: KW_ONLY
    query: str
    documents: Sequence[Mapping[str, Any]]
    corpus_results: bool
    stable_paging: bool
    backend_calls: Callable[[], int] | None
    findings: list[Finding] = field(default_factory=list, init=False)
    #: what each sync method answered for the query (compared with the async twins)
    sync_answers: dict[str, list[Any]] = field(default_factory=dict, init=False)
    sync_totals: dict[str, int | None] = field(default_factory=dict, init=False)
    #: what each filter probe returned (links) or raised, sync, by label
    probe_answers: dict[str, object] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        self.by_link = documents_by_link(self.documents)
        top = int(getattr(self.search, "max_top", 50))
        self.window = max(1, min(len(self.documents), top))

    def fail(self, check: str, message: str) -> None:
        self.findings.append(Finding(check, message))

    # -- calling ---------------------------------------------------------------------

    def call_sync(self, kind: str, query: object, **kwargs: Any) -> SearchResults[Any]:
        method = getattr(self.search, kind + "_sync")
        result: SearchResults[Any] = method(query, **kwargs)
        return result

    async def call(self, kind: str, query: object, **kwargs: Any) -> SearchResults[Any]:
        method = getattr(self.search, kind)
        result: SearchResults[Any] = await method(query, **kwargs)
        return result

    def guarded(self, check: str, fn: Callable[[], T]) -> T | None:
        """Run a call that must succeed; a failure is a finding (a raw error: two)."""
        try:
            return fn()
        except TextSearchError as exc:
            self.fail(check, f"failed with {type(exc).__name__}: {exc}")
        except Exception as exc:  # the contract: only documented errors escape
            self.fail(
                "errors.documented", f"{check} raised {type(exc).__name__}, not a TextSearchError"
            )
        return None

    async def aguarded(self, check: str, awaitable: Awaitable[T]) -> T | None:
        try:
            return await awaitable
        except TextSearchError as exc:
            self.fail(check, f"failed with {type(exc).__name__}: {exc}")
        except Exception as exc:
            self.fail(
                "errors.documented", f"{check} raised {type(exc).__name__}, not a TextSearchError"
            )
        return None

    # -- protocol and results ----------------------------------------------------------

    def protocol_sync(self) -> None:
        for kind in _KINDS:
            if not callable(getattr(self.search, kind + "_sync", None)) or not callable(
                getattr(self.search, kind, None)
            ):
                self.fail("protocol.methods", f"{kind} or {kind}_sync is missing")
                return
        for kind in _KINDS:
            answer = self.guarded(
                f"protocol.{kind}_sync",
                partial(self.call_sync, kind, self.query, top=self.window),
            )
            if answer is None:
                continue
            if not isinstance(answer, SearchResults):
                self.fail(
                    f"protocol.{kind}_sync", f"returned {type(answer).__name__}, not SearchResults"
                )
                continue
            self.sync_answers[kind] = _shape(answer)
            self.sync_totals[kind] = answer.total_count
        lengths = {kind: len(found) for kind, found in self.sync_answers.items()}
        if len(set(lengths.values())) > 1:
            self.fail(
                "protocol.same_results", f"the three methods found different numbers: {lengths}"
            )
        if lengths and not any(lengths.values()):
            self.fail("protocol.finds", f"nothing found for {self.query!r} in the loaded corpus")

    async def protocol_async(self) -> None:
        for kind, wanted in self.sync_answers.items():
            answer = await self.aguarded(
                f"protocol.{kind}", self.call(kind, self.query, top=self.window)
            )
            if answer is None:
                continue
            if _shape(answer) != wanted:
                self.fail(
                    "protocol.twins",
                    f"{kind} and {kind}_sync answered differently for the same request",
                )
            if answer.total_count != self.sync_totals.get(kind):
                self.fail("protocol.twins", f"{kind} and {kind}_sync report different totals")

    def results(self) -> None:
        strings = self.guarded(
            "results.search", lambda: self.call_sync("search", self.query, top=self.window)
        )
        for item in strings or ():
            if not isinstance(item, str):
                self.fail("results.search", f"search returned a {type(item).__name__}, not a str")
                break
        texts = self.guarded(
            "results.text",
            lambda: self.call_sync("get_text_search_results", self.query, top=self.window),
        )
        found: set[str] = set()
        for item in texts or ():
            if not isinstance(item, TextSearchResult):
                self.fail("results.text", f"a {type(item).__name__}, not a TextSearchResult")
                continue
            for part, value in (("name", item.name), ("value", item.value), ("link", item.link)):
                if value is None:
                    continue
                if not isinstance(value, str):
                    self.fail("results.strings", f"{part} is a {type(value).__name__}")
                    continue
                bad = _controls(value, () if part == "link" else _ALLOWED_CONTROLS)
                if bad:
                    self.fail("results.controls", f"{part} holds control characters {bad}")
            if not (item.name or item.value):
                self.fail("results.empty", f"a result with neither name nor value ({item.link!r})")
            key = link_key(item.link)
            if key is not None:
                found.add(key)
        if self.corpus_results and texts is not None:
            missing = sorted(set(self.by_link) - found)
            if len(self.by_link) <= self.window and missing:
                self.fail(
                    "results.corpus",
                    f"the query {self.query!r} did not find {missing} (every document holds it)",
                )

    # -- options -------------------------------------------------------------------------

    def options(self) -> None:
        kind = "get_text_search_results"
        for top in (1, 2):
            page = self.guarded(
                f"options.top={top}", partial(self.call_sync, kind, self.query, top=top)
            )
            if page is not None and len(page) > top:
                self.fail("options.top", f"top={top} returned {len(page)} results")
        if self.stable_paging and self.window >= 4:
            # the second page of two (a skip that is a whole number of pages: some APIs
            # page by pages only)
            whole = self.guarded(
                "options.skip", lambda: self.call_sync(kind, self.query, top=self.window)
            )
            page = self.guarded(
                "options.skip", lambda: self.call_sync(kind, self.query, top=2, skip=2)
            )
            if whole is not None and page is not None and _texts(page) != _texts(whole)[2:4]:
                self.fail("options.skip", "top=2, skip=2 is not results 3-4 of the whole list")
        counted = self.guarded(
            "options.total", lambda: self.call_sync(kind, self.query, include_total_count=True)
        )
        if counted is not None and counted.total_count is not None:
            total = counted.total_count
            if not isinstance(total, int) or isinstance(total, bool) or total < len(counted):
                self.fail("options.total", f"total_count {total!r} is below the results returned")
        plain = self.guarded("options.total", lambda: self.call_sync(kind, self.query))
        if plain is not None and plain.total_count is not None:
            self.fail("options.total", "total_count is set though include_total_count was not")
        max_top = getattr(self.search, "max_top", None)
        if isinstance(max_top, int):
            self.guarded("options.max_top", lambda: self.call_sync(kind, self.query, top=max_top))

    def bad_requests(self) -> list[tuple[str, object, dict[str, Any]]]:
        """Requests every connector refuses with `InvalidRequestError`, before any call."""
        requests: list[tuple[str, object, dict[str, Any]]] = [
            ("empty query", "", {}),
            ("blank query", "  \t ", {}),
            ("query None", None, {}),
            ("query 42", 42, {}),
            ("lone surrogate", "\ud800", {}),
            ("options not SearchOptions", self.query, {"options": {"top": 3}}),
            ("top=0", self.query, {"top": 0}),
            ("top=-1", self.query, {"top": -1}),
            ("top=1.5", self.query, {"top": 1.5}),
            ("top=True", self.query, {"top": True}),
            ("skip=-1", self.query, {"skip": -1}),
            (f"skip={MAX_SKIP + 1}", self.query, {"skip": MAX_SKIP + 1}),
            ("unknown option", self.query, {"colour": "red"}),
        ]
        max_top = getattr(self.search, "max_top", None)
        if isinstance(max_top, int):
            requests.append(
                (f"top={max_top + 1} (above max_top)", self.query, {"top": max_top + 1})
            )
        return requests

    def _calls(self) -> int | None:
        return None if self.backend_calls is None else self.backend_calls()

    def _refused(self, label: str, form: str, exc: BaseException | None) -> None:
        if exc is None:
            self.fail("options.refused", f"{label} was accepted by {form}")
        elif not isinstance(exc, InvalidRequestError):
            documented = isinstance(exc, TextSearchError)
            rule = "options.refused" if documented else "errors.documented"
            self.fail(
                rule, f"{label} raised {type(exc).__name__} from {form}, not InvalidRequestError"
            )

    def bad_values_sync(self) -> None:
        for label, query, kwargs in self.bad_requests():
            before = self._calls()
            for kind in _KINDS:
                method = getattr(self.search, kind + "_sync")
                self._refused(label, kind + "_sync", _raised(partial(method, query, **kwargs)))
            self._no_call(label, before)

    async def bad_values_async(self) -> None:
        for label, query, kwargs in self.bad_requests():
            before = self._calls()
            for kind in _KINDS:
                method = getattr(self.search, kind)
                self._refused(label, kind, await _araised(partial(method, query, **kwargs)))
            self._no_call(label, before)

    def _no_call(self, label: str, before: int | None) -> None:
        if before is not None and self._calls() != before:
            self.fail("options.before_any_call", f"{label} reached the backend")

    # -- filters -------------------------------------------------------------------------

    def _probe_outcome(self, label: str, outcome: object) -> None:
        """Judge what a probe gave: a refusal, or results that all satisfy it."""
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, (UnsupportedFilterError, InvalidRequestError)):
                rule = (
                    "filters.refused"
                    if isinstance(outcome, TextSearchError)
                    else "errors.documented"
                )
                self.fail(
                    rule,
                    f"{label} raised {type(outcome).__name__}: refuse a filter with "
                    "UnsupportedFilterError (or InvalidRequestError for a bad value)",
                )

    def filters_sync(self) -> None:
        for probe in filter_probes():
            try:
                found = self.call_sync(
                    "get_text_search_results", self.query, top=self.window, filter=probe.build()
                )
            except Exception as exc:
                self.probe_answers[probe.label] = type(exc)
                self._probe_outcome(probe.label, exc)
                self._check_request_refuses(probe.label, probe.build())
                continue
            links = [link_key(r.link) for r in found]
            self.probe_answers[probe.label] = links
            if not self.corpus_results:
                continue
            strangers = sorted({str(link) for link in links if (link or "") not in self.by_link})
            if strangers:
                self.fail(
                    "filters.applied", f"{probe.label}: results not in the corpus {strangers}"
                )
            excluded = sorted(
                {
                    str(self.by_link[link].get("id"))
                    for link in links
                    if link in self.by_link and not probe.admits(self.by_link[link])
                }
            )
            if excluded:
                self.fail(
                    "filters.applied",
                    f"{probe.label} returned {excluded}, which it excludes "
                    "(a filter must never be dropped or loosened)",
                )

    def _check_request_refuses(self, label: str, search_filter: Any) -> None:
        checker = getattr(self.search, "check_request", None)
        if not callable(checker):
            return
        try:
            checker(self.query, SearchOptions(filter=search_filter))
        except TextSearchError:
            return
        except Exception as exc:
            self.fail("errors.documented", f"check_request({label}) raised {type(exc).__name__}")
            return
        self.fail("filters.check_request", f"check_request accepts {label}, which search refuses")

    async def filters_async(self) -> None:
        for probe in filter_probes():
            try:
                found = await self.call(
                    "get_text_search_results", self.query, top=self.window, filter=probe.build()
                )
            except Exception as exc:
                outcome: object = type(exc)
                self._probe_outcome(probe.label, exc)
            else:
                outcome = [link_key(r.link) for r in found]
            if probe.label in self.probe_answers and outcome != self.probe_answers[probe.label]:
                self.fail("filters.twins", f"{probe.label}: the async and sync forms differ")

    # -- errors ------------------------------------------------------------------------

    def failing_sync(self, failing: TextSearch) -> None:
        for kind in _KINDS:
            method = getattr(failing, kind + "_sync")
            self._failed(kind + "_sync", _raised(partial(method, self.query)))

    async def failing_async(self, failing: TextSearch) -> None:
        for kind in _KINDS:
            self._failed(kind, await _araised(partial(getattr(failing, kind), self.query)))

    def _failed(self, form: str, exc: BaseException | None) -> None:
        if exc is None:
            self.fail("errors.failing", f"{form} succeeded on a failing backend")
        elif not isinstance(exc, TextSearchError):
            self.fail("errors.documented", f"{form} let {type(exc).__name__} escape")


def _raised(fn: Callable[[], object]) -> Exception | None:
    """What a blocking call raised (``None``: it returned)."""
    try:
        fn()
    except Exception as exc:  # judged by the caller: documented or not
        return exc
    return None


async def _araised(fn: Callable[[], Awaitable[object]]) -> Exception | None:
    """What an async call raised (``None``: it returned)."""
    try:
        await fn()
    except Exception as exc:
        return exc
    return None


def _run_async(make: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run the async checks in a loop of their own (in a thread when one is running here)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(make())
        return
    errors: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(make())
        except BaseException as exc:  # handed back to the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=target, name="textsearch-contract")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


async def _close_async(search: object) -> None:
    closer = getattr(search, "aclose", None)
    if callable(closer):
        await closer()
        return
    closer = getattr(search, "close", None)
    if callable(closer):
        closer()


def check_connector(
    factory: ConnectorFactory,
    *,
    checks: Collection[str] = CHECKS,
    documents: Sequence[Mapping[str, Any]] = CONTRACT_DOCUMENTS,
    query: str = CONTRACT_QUERY,
    corpus_results: bool = True,
    stable_paging: bool = True,
    backend_calls: Callable[[], int] | None = None,
    failing: Callable[[], TextSearch] | None = None,
) -> list[Finding]:
    """Run the connector contract against a connector; what it breaks (empty: nothing).

    The factory is called once with ``documents`` (by default `CONTRACT_DOCUMENTS`) and
    returns the connector, loaded with them. The checks then call it, blocking and async
    (the async ones in an event loop of their own), and close it at the end (``aclose``).

    Args:
        factory: Makes the connector under test from the documents to load.
        checks: Which groups of `CHECKS` to run: ``protocol`` (the six methods, async and
            `_sync` twins answer alike), ``results`` (the shape of results: strings, no
            control characters, every document found), ``options`` (``top``, ``skip``,
            ``include_total_count``, ``max_top``; bad values and bounds such as
            ``MAX_SKIP`` refused with `InvalidRequestError`), ``filters`` (each probe of
            `filter_probes` refused with `UnsupportedFilterError`, or applied: no result it
            excludes), ``errors`` (only `textsearch.errors` escape, also from ``failing``).
        documents: The corpus to load (each with a link of its own).
        query: A query every document answers.
        corpus_results: ``False`` when the backend is a stand-in whose answers do not come
            from ``documents`` (a mocked HTTP API): results are then not matched to the
            corpus (whether each document is found, whether a filter is applied).
        stable_paging: ``False`` when the backend's order may change between calls (then
            ``skip`` is not compared with a slice of the whole list).
        backend_calls: Counts the calls that reached the backend so far (for example a
            mocked route's ``call_count``): a refused request must not add one.
        failing: Makes a connector whose backend fails (an HTTP 500, a closed server): every
            method must raise a `TextSearchError`.

    Returns:
        The findings, in the order the checks ran.
    """
    unknown = sorted(set(checks) - set(CHECKS))
    if unknown:
        raise InvalidRequestError(f"unknown checks {unknown}; the checks are {list(CHECKS)}")
    run = _Run(
        factory(documents),
        query=query,
        documents=documents,
        corpus_results=corpus_results,
        stable_paging=stable_paging,
        backend_calls=backend_calls,
    )
    failing_search = failing() if failing is not None and "errors" in checks else None

    async def async_checks() -> None:
        try:
            if "protocol" in checks:
                await run.protocol_async()
            if "options" in checks:
                await run.bad_values_async()
            if "filters" in checks:
                await run.filters_async()
            if failing_search is not None:
                await run.failing_async(failing_search)
        finally:
            await _close_async(run.search)
            if failing_search is not None:
                await _close_async(failing_search)

    if "protocol" in checks:
        run.protocol_sync()
    if "results" in checks:
        run.results()
    if "options" in checks:
        run.options()
        run.bad_values_sync()
    if "filters" in checks:
        run.filters_sync()
    if failing_search is not None:
        run.failing_sync(failing_search)
    _run_async(async_checks)
    return run.findings
