"""How a search's span is made: current only when something inside can open a span."""

from __future__ import annotations

import time
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from textsearch import LocalTextSearch, TextSearchResult
from textsearch.embeddings import FunctionEmbedder

_DOCS = [
    {"id": "a", "title": "Retry", "text": "Retries use exponential backoff.", "metadata": {"n": 1}},
    {"id": "b", "title": "Timeouts", "text": "Timeouts are thirty seconds.", "metadata": {"n": 2}},
]


class _Watch:
    """A result mapper that notes the current span and the time while the search runs."""

    def __init__(self, fail: bool = False) -> None:
        self.seen: list[tuple[Any, int]] = []
        self.fail = fail

    def __call__(self, document: Any) -> TextSearchResult:
        self.seen.append((trace.get_current_span(), time.time_ns()))
        if self.fail:
            raise LookupError("mapper failed")
        return TextSearchResult(name=document.title, value=document.text, link=None)


def _retrievals(exporter: InMemorySpanExporter) -> list[Any]:
    return [s for s in exporter.get_finished_spans() if s.name.startswith("retrieval")]


def test_a_keyword_search_attaches_nothing_and_keeps_its_start_and_parent(
    spans: InMemorySpanExporter,
) -> None:
    watch = _Watch()
    tracer = trace.get_tracer("tests")
    with LocalTextSearch(text_search_result_mapper=watch) as search:
        search.add_documents(_DOCS)
        with tracer.start_as_current_span("caller") as caller:
            found = search.get_text_search_results_sync("backoff", top=2)
            assert trace.get_current_span() is caller
    assert [r.name for r in found] == ["Retry"]
    (retrieval,) = _retrievals(spans)
    assert retrieval.kind is SpanKind.CLIENT
    assert retrieval.parent is not None
    assert retrieval.parent.span_id == caller.get_span_context().span_id
    assert retrieval.context.trace_id == caller.get_span_context().trace_id
    ((current, at),) = watch.seen
    # Inside the search the caller's span is still current: the retrieval span is not.
    assert current is caller
    # The span was made after the search, but with the time the search started.
    assert retrieval.start_time is not None and retrieval.end_time is not None
    assert retrieval.start_time <= at <= retrieval.end_time
    attributes = dict(retrieval.attributes or {})
    assert attributes["textsearch.retrieval.result_count"] == 1
    assert attributes["gen_ai.retrieval.top_k"] == 2
    assert "gen_ai.retrieval.query.text" not in attributes


@pytest.mark.anyio
async def test_an_async_keyword_search_has_its_callers_span_as_parent(
    spans: InMemorySpanExporter,
) -> None:
    tracer = trace.get_tracer("tests")
    with LocalTextSearch() as search:
        search.add_documents(_DOCS)
        with tracer.start_as_current_span("caller") as caller:
            found = await search.search("timeouts")
    assert len(found) == 1
    (retrieval,) = _retrievals(spans)
    assert retrieval.parent is not None
    assert retrieval.parent.span_id == caller.get_span_context().span_id


def test_a_keyword_search_failing_inside_is_an_error_span(spans: InMemorySpanExporter) -> None:
    watch = _Watch(fail=True)
    with LocalTextSearch(text_search_result_mapper=watch) as search:
        search.add_documents(_DOCS)
        with pytest.raises(Exception) as raised:
            search.get_text_search_results_sync("backoff")
    (retrieval,) = _retrievals(spans)
    assert retrieval.status.status_code is StatusCode.ERROR
    kind = type(raised.value)
    expected = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    attributes = dict(retrieval.attributes or {})
    assert attributes["error.type"] == expected
    assert "textsearch.retrieval.result_count" not in attributes
    assert not retrieval.events and "mapper failed" not in retrieval.to_json()
    assert retrieval.start_time is not None
    assert retrieval.start_time <= watch.seen[0][1]


def test_a_search_with_an_embedder_is_current_while_it_runs(spans: InMemorySpanExporter) -> None:
    watch = _Watch()
    embedder = FunctionEmbedder(
        lambda texts: [[float(len(t)), 1.0, 1.0] for t in texts], model="toy-3"
    )
    with LocalTextSearch(
        embedder=embedder, mode="semantic", text_search_result_mapper=watch
    ) as search:
        search.add_documents(_DOCS)
        search.get_text_search_results_sync("backoff", top=1)
    (retrieval,) = _retrievals(spans)
    current = watch.seen[0][0]
    assert current.get_span_context().span_id == retrieval.context.span_id


def test_the_tracer_follows_the_global_provider(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = InMemorySpanExporter()
    replacement = TracerProvider()
    replacement.add_span_processor(SimpleSpanProcessor(other))
    with LocalTextSearch() as search:
        search.add_documents(_DOCS)
        search.search_sync("backoff")
        monkeypatch.setattr(trace, "get_tracer_provider", lambda: replacement)
        search.search_sync("timeouts")
        monkeypatch.undo()
        search.search_sync("retries")
    assert len(_retrievals(other)) == 1
    assert len(_retrievals(spans)) == 2
    (moved,) = _retrievals(other)
    assert moved.instrumentation_scope is not None
    assert moved.instrumentation_scope.name == "textsearch"
