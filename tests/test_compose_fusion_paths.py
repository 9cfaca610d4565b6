"""Fusion's request paths: which method of a provider it calls, threads, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from textsearch import SearchOptions, SearchResults, TextSearchResult
from textsearch.compose import FusedTextSearch
from textsearch.testing import StaticDocument, StaticTextSearch

from ._compose_support import SlowSearch, docs, static

U1, U2, U3 = (f"https://site.example/{n}" for n in ("one", "two", "three"))


class TextPath(StaticTextSearch):
    """A connector with a text path of its own (as the web connectors have): its normalized
    results say which path made them, and requests for native results are counted."""

    def __init__(self, *links: str, name: str) -> None:
        super().__init__(docs(*links, prefix=name), match="always", name=name)
        self.native_requests = 0

    def _text(self, query: str, options: SearchOptions) -> SearchResults[TextSearchResult]:
        native = self._fetch_sync(query, options)
        self.native_requests -= 1  # the text path is not a native request
        return SearchResults([TextSearchResult(d.name, "text path", d.link) for d in native])

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
        self.native_requests += 1
        return super()._fetch_sync(query, options)

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        query, effective = self._prepare(query, options, kwargs)
        return self._text(query, effective)

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        query, effective = self._prepare(query, options, kwargs)
        return self._text(query, effective)


def _run(fused: FusedTextSearch, method: str, blocking: bool, query: str = "q") -> Any:
    if blocking:
        return getattr(fused, method + "_sync")(query)
    return asyncio.run(getattr(fused, method)(query))


@pytest.mark.parametrize("blocking", [False, True])
def test_text_and_strings_come_from_each_providers_text_path(blocking: bool) -> None:
    a, b = TextPath(U1, U2, name="a"), TextPath(U2, U3, name="b")
    with FusedTextSearch([a, b]) as fused:
        texts = _run(fused, "get_text_search_results", blocking)
        strings = _run(fused, "search", blocking)
        assert a.native_requests == b.native_requests == 0
        assert [t.link for t in texts] == [U2, U1, U3]
        assert {t.value for t in texts} == {"text path"}
        assert list(strings) == ["text path"] * 3
        # Native results need the native request; their normalized form is the mapping's.
        natives = _run(fused, "get_search_results", blocking)
        assert a.native_requests == b.native_requests == 1
        assert [n.text_search_result.value for n in natives] == ["text a2", "text a1", "text b2"]


@pytest.mark.parametrize("blocking", [False, True])
def test_a_string_mapper_or_custom_strings_are_honoured_by_search(blocking: bool) -> None:
    class OwnStrings(StaticTextSearch):
        def _default_string(self, item: StaticDocument) -> str:
            return f"own:{item.name}"

    mapped = StaticTextSearch(
        docs(U1, prefix="m"), match="always", name="m", string_mapper=lambda d: f"mapped:{d.name}"
    )
    own = OwnStrings(docs(U2, prefix="o"), match="always", name="o")
    plain = static(U3, name="p")
    with FusedTextSearch([mapped, own, plain]) as fused:
        strings = _run(fused, "search", blocking)
    assert list(strings) == ["mapped:m1", "own:o1", "text p1"]


@pytest.mark.parametrize("blocking", [False, True])
def test_a_text_mapper_is_honoured_by_fused_text_results(blocking: bool) -> None:
    mapper = StaticTextSearch(
        docs(U1, prefix="m"),
        match="always",
        name="m",
        text_search_result_mapper=lambda d: TextSearchResult("mapped", d.value, d.link),
    )
    with FusedTextSearch([mapper, static(U2, name="p")]) as fused:
        texts = _run(fused, "get_text_search_results", blocking)
    assert [t.name for t in texts] == ["mapped", "p1"]


@pytest.mark.parametrize("blocking", [False, True])
def test_fused_over_a_fused_search_keeps_sources_and_strings(blocking: bool) -> None:
    inner = FusedTextSearch([static(U1, U2, name="a"), static(U2, name="b")])
    outer = FusedTextSearch([inner, TextPath(U3, U2, name="c")])
    with outer:
        texts = _run(outer, "get_text_search_results", blocking)
        strings = _run(outer, "search", blocking)
        natives = _run(outer, "get_search_results", blocking)
    inner.close()
    # inner lists U2, U1; c lists U3, U2: U2 has two votes, U3 (rank 1) beats U1 (rank 2).
    assert [t.link for t in texts] == [U2, U3, U1]
    assert list(strings) == ["text a2", "text path", "text a1"]
    assert natives[0].sources == [("fused", 1), ("c", 2)]


def test_a_request_no_worker_has_started_runs_in_the_calling_thread() -> None:
    # Every worker of the pool is busy: waiting for one would stall the search until it is free.
    a, b = static(U1, name="a"), static(U2, name="b")
    fused = FusedTextSearch([a, b])
    release = threading.Event()
    busy = ThreadPoolExecutor(max_workers=1)
    busy.submit(release.wait, 10)
    fused._executor = busy
    results: list[Any] = []
    caller = threading.Thread(target=lambda: results.append(fused.search_sync("q")))
    caller.start()
    caller.join(timeout=3)
    finished = not caller.is_alive()
    release.set()
    caller.join()
    fused.close()
    assert finished, "the search waited for a busy worker instead of running the request itself"
    assert [r for r in results[0]] == ["text a1", "text b1"]


def test_blocking_fusion_is_thread_safe() -> None:
    class Echo(StaticTextSearch):
        def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[StaticDocument]:
            time.sleep(0.001)  # let the threads interleave
            return SearchResults(
                [StaticDocument(name=self.name, value=query, link=f"https://{query}.example/")]
            )

    fused = FusedTextSearch([Echo(name="a"), Echo(name="b"), Echo(name="c")])
    barrier = threading.Barrier(8)
    wrong: list[str] = []

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(25):
            query = f"q{n}-{i}"
            results = fused.get_search_results_sync(query)
            if [r.value for r in results] != [query] or len(results[0].sources) != 3:
                wrong.append(query)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    fused.close()
    assert wrong == []


def test_per_search_timeout_blocking_does_not_wait_for_a_slow_provider_twice() -> None:
    # The slow provider's first request still holds a worker when the second search starts.
    # Its delay is a minute (released at the end): a second search that waited for the
    # first request's worker would take that long, far past the bound below.
    slow = SlowSearch(docs(U2), delay=60.0, name="slow")
    fused = FusedTextSearch([static(U1, name="fast"), slow], per_search_timeout=0.2)
    started = time.perf_counter()
    first = fused.get_text_search_results_sync("q")
    second = fused.get_text_search_results_sync("q")
    elapsed = time.perf_counter() - started
    slow.release()
    fused.close()
    assert [r.link for r in first] == [r.link for r in second] == [U1]
    assert [f["provider"] for f in second.metadata["failed"]] == ["slow"]
    # waiting for the first worker would take its minute: half of it is the margin
    assert elapsed < 30.0, f"{elapsed:.2f} s for two searches bounded by 0.2 s each"


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_bug_is_raised_at_once_and_stops_the_other_requests_async(
    timeout: float | None,
) -> None:
    slow = SlowSearch(docs(U1), delay=60.0, name="slow")  # waiting for it would take a minute
    broken = static(U2, name="broken", error=KeyError("bug"))
    fused = FusedTextSearch([slow, broken], per_search_timeout=timeout)

    async def main() -> float:
        started = time.perf_counter()
        with pytest.raises(KeyError):
            await fused.search("q")
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0)  # let the cancelled request unwind
        return elapsed

    elapsed = asyncio.run(main())
    assert elapsed < 10.0, f"{elapsed:.2f} s: the bug waited for the slow provider"
    assert slow.running == 0


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_cancelling_a_fused_search_cancels_every_request(timeout: float | None) -> None:
    # A minute each: a cancel that waited for them could not pass for load.
    slow = [SlowSearch(docs(f"https://s{i}.example/"), delay=60.0, name=f"s{i}") for i in range(3)]
    fused = FusedTextSearch(slow, per_search_timeout=timeout)

    async def main() -> None:
        task = asyncio.ensure_future(fused.search("q"))
        await asyncio.sleep(0.1)
        assert sum(s.running for s in slow) == 3
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    started = time.perf_counter()
    asyncio.run(main())
    assert time.perf_counter() - started < 10.0
    assert [s.running for s in slow] == [0, 0, 0]


@pytest.mark.parametrize("blocking", [False, True])
def test_a_zero_timeout_fails_every_provider(blocking: bool) -> None:
    from textsearch.compose import AllProvidersFailedError

    slow = SlowSearch(docs(U1), delay=0.5, name="slow")
    fused = FusedTextSearch(
        [slow, SlowSearch(docs(U2), delay=0.5, name="slow")], per_search_timeout=0
    )
    with pytest.raises(AllProvidersFailedError) as info:
        _run(fused, "search", blocking)
    fused.close()
    assert len(info.value.errors) == 2


class ShortQueries(StaticTextSearch):
    """A connector with a rule of its own in ``_prepare``: queries of at most 5 characters."""

    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: dict[str, Any]
    ) -> tuple[str, SearchOptions]:
        from textsearch import InvalidRequestError

        if len(query) > 5:
            raise InvalidRequestError("query too long for this backend")
        return super()._prepare(query, options, kwargs)


@pytest.mark.parametrize("wrapper", ["fused", "fallback"])
def test_a_connectors_own_request_rules_apply_before_any_request(wrapper: str) -> None:
    from textsearch import InvalidRequestError
    from textsearch.compose import FallbackTextSearch

    first = static(U1, name="first")
    picky = ShortQueries(docs(U2), match="always", name="picky")
    searches = [first, picky]
    combined = FusedTextSearch(searches) if wrapper == "fused" else FallbackTextSearch(searches)
    with pytest.raises(InvalidRequestError, match="too long"):
        combined.search_sync("a long query")
    assert first.calls == [] and picky.calls == []
    assert len(combined.search_sync("short")) >= 1
    combined.close()


def test_a_max_top_lowered_after_the_wrapper_was_built_is_checked_before_any_request() -> None:
    from textsearch import InvalidRequestError

    lowered = static(U1, name="lowered")
    slow = SlowSearch(docs(U2), delay=0.2, name="slow")
    fused = FusedTextSearch([lowered, slow])
    lowered.max_top = 3  # type: ignore[misc]
    with pytest.raises(InvalidRequestError, match="maximum of 3"):
        asyncio.run(fused.search("q", top=5))
    assert slow.most_running == 0, "a request was sent before the error"
