"""The contract kit (``textsearch.testing``): our in-memory connector and the compose wrappers
keep it, and it finds each kind of fault it checks for in connectors built to break it."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from textsearch import (
    InvalidRequestError,
    ProviderError,
    SearchOptions,
    SearchResults,
    ServiceUnavailableError,
)
from textsearch.compose import FallbackTextSearch, FusedTextSearch
from textsearch.testing import (
    CHECKS,
    CONTRACT_DOCUMENTS,
    ConnectorContract,
    StaticDocument,
    StaticTextSearch,
    check_connector,
)


def static(documents: Sequence[Mapping[str, Any]], cls: type = StaticTextSearch, **kw: Any) -> Any:
    return cls(
        [
            {"name": d["title"], "value": d["text"], "link": d["link"], "metadata": d["metadata"]}
            for d in documents
        ],
        **kw,
    )


class TestStaticTextSearch(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        return static(documents)

    def make_failing_connector(self) -> Any:
        return StaticTextSearch(error=ProviderError("the backend is down", provider="static"))


class TestFallback(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        # the first is down (a 5xx): every call falls over to the second
        down = StaticTextSearch(
            error=ServiceUnavailableError("down", provider="first"), name="first"
        )
        return FallbackTextSearch([down, static(documents, name="second")])

    def make_failing_connector(self) -> Any:
        return FallbackTextSearch(
            [StaticTextSearch(error=ServiceUnavailableError("down", provider="a"), name="a")]
        )


class TestFusion(ConnectorContract):
    # Fusion ranks the first top + skip of each list: a page of a shorter window is not a
    # slice of a longer one (the kit finds this; see test_fused_pages_are_fused_per_window).
    stable_paging = False

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        # the corpus from two searches (the second holds part of it): fused into one list
        return FusedTextSearch([static(documents, name="a"), static(documents[1:4], name="b")])


# -- the kit finds what it checks for ----------------------------------------------------


class DropsFilters(StaticTextSearch):
    """Accepts every filter and applies none (the fault the filter checks exist for)."""

    def _matches_filter(self, doc: StaticDocument, options: SearchOptions) -> bool:
        return True


class LeaksErrors(StaticTextSearch):
    """Lets a raw exception escape from its backend."""

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        raise KeyError("hits")


class AsyncDiffers(StaticTextSearch):
    """The async method answers from another list than its blocking twin."""

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        found = self._fetch_sync(query, options)
        return SearchResults(list(reversed(found.results)), found.total_count)


class DirtyText(StaticTextSearch):
    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        found = super()._fetch_sync(query, options)
        return SearchResults(
            [d.model_copy(update={"name": f"{d.name}\x1b[31m"}) for d in found], found.total_count
        )


class NoTop(StaticTextSearch):
    """Ignores ``top`` and ``skip`` (returns every hit)."""

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        return super()._fetch_sync(query, options.with_updates(top=50, skip=0))


class Unchecked:
    """Implements the six methods by hand, checking nothing and counting backend calls."""

    def __init__(self, documents: Sequence[Mapping[str, Any]]) -> None:
        self.inner = static(documents)
        self.calls = 0

    def _answer(self, kind: str, query: Any, kwargs: dict[str, Any]) -> Any:
        self.calls += 1
        top = kwargs.get("top", 5)
        options = SearchOptions.model_construct(top=top, skip=0, filter=None)
        hits = self.inner._fetch_sync(query if isinstance(query, str) else "contract", options)
        texts = [self.inner._to_text_search_result(d) for d in hits]
        if kind == "search":
            return SearchResults([t.value for t in texts])
        return SearchResults(texts if kind == "text" else list(hits))

    def search_sync(self, query: Any, **kw: Any) -> Any:
        return self._answer("search", query, kw)

    def get_text_search_results_sync(self, query: Any, **kw: Any) -> Any:
        return self._answer("text", query, kw)

    def get_search_results_sync(self, query: Any, **kw: Any) -> Any:
        return self._answer("native", query, kw)

    async def search(self, query: Any, **kw: Any) -> Any:
        return self._answer("search", query, kw)

    async def get_text_search_results(self, query: Any, **kw: Any) -> Any:
        return self._answer("text", query, kw)

    async def get_search_results(self, query: Any, **kw: Any) -> Any:
        return self._answer("native", query, kw)


def rules(findings: Sequence[Any]) -> set[str]:
    return {f.check for f in findings}


def test_a_keeping_connector_has_no_findings_in_any_group() -> None:
    assert check_connector(static, failing=lambda: StaticTextSearch(error=ProviderError("x"))) == []


def test_a_dropped_filter_is_found_for_each_probe_it_accepts() -> None:
    findings = check_connector(lambda docs: static(docs, DropsFilters), checks=["filters"])
    applied = [f.message for f in findings if f.check == "filters.applied"]
    assert len(applied) == 8  # every probe: the unknown field too (it admits nothing)
    assert any("topic == 'ops' returned ['charlie', 'delta', 'echo']" in m for m in applied)


def test_a_raw_exception_is_found_from_the_backend_and_from_a_failing_connector() -> None:
    findings = check_connector(
        lambda docs: static(docs, LeaksErrors),
        checks=["protocol", "errors"],
        failing=lambda: LeaksErrors(),
    )
    messages = [f.message for f in findings if f.check == "errors.documented"]
    assert any("KeyError" in m and "get_search_results_sync" in m for m in messages)
    assert any("get_text_search_results let KeyError escape" in m for m in messages)


def test_twins_that_answer_differently_are_found() -> None:
    findings = check_connector(lambda docs: static(docs, AsyncDiffers), checks=["protocol"])
    assert rules(findings) == {"protocol.twins"}


def test_control_characters_in_a_name_are_found() -> None:
    findings = check_connector(lambda docs: static(docs, DirtyText), checks=["results"])
    assert {f.check for f in findings} == {"results.controls"}
    assert findings[0].message == "name holds control characters '\\x1b'"


def test_ignoring_top_is_found() -> None:
    findings = check_connector(lambda docs: static(docs, NoTop), checks=["options"])
    assert "options.top" in rules(findings)
    assert "options.skip" in rules(findings)


def test_accepted_bad_values_and_calls_before_the_check_are_found() -> None:
    made: list[Unchecked] = []

    def make(docs: Sequence[Mapping[str, Any]]) -> Any:
        made.append(Unchecked(docs))
        return made[0]

    findings = check_connector(
        make, checks=["options"], backend_calls=lambda: made[0].calls if made else 0
    )
    refused = [f.message for f in findings if f.check == "options.refused"]
    assert "top=0 was accepted by search_sync" in refused
    assert f"skip={SearchOptions.MAX_SKIP + 1} was accepted by get_search_results" in refused
    assert any(f.check == "options.before_any_call" for f in findings)


def test_the_kit_runs_inside_a_running_event_loop() -> None:
    async def inside() -> list[Any]:
        return check_connector(static, checks=["protocol"])

    import asyncio

    assert asyncio.run(inside()) == []


def test_unknown_check_groups_are_refused() -> None:
    with pytest.raises(InvalidRequestError, match="unknown checks"):
        check_connector(static, checks=["protocol", "speed"])
    assert CHECKS == ("protocol", "results", "options", "filters", "errors")


def test_the_corpus_has_one_link_per_document_and_every_text_holds_the_query() -> None:
    links = [d["link"] for d in CONTRACT_DOCUMENTS]
    assert len(set(links)) == len(links) == 5
    assert all("contract" in d["text"].split() for d in CONTRACT_DOCUMENTS)


def test_importing_textsearch_does_not_load_the_kit_or_pytest() -> None:
    import subprocess

    code = (
        "import sys, textsearch; "
        "print('textsearch.testing' in sys.modules, 'pytest' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    code = "import sys, textsearch.testing; print('pytest' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def test_fused_pages_are_fused_per_window() -> None:
    """What the kit finds with stable paging on: fusion ranks each window on its own."""

    def make(docs: Sequence[Mapping[str, Any]]) -> Any:
        return FusedTextSearch([static(docs, name="a"), static(docs[::-1], name="b")])

    findings = check_connector(make, checks=["options"])
    assert [f.check for f in findings] == ["options.skip"]
