"""Spans of searches, embeddings, reranking and tool calls, read back from the SDK's exporter."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import httpx
import pytest
import respx
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from tests.tracing.conftest import by_name
from textsearch import (
    AuthenticationError,
    BraveTextSearch,
    LocalTextSearch,
    TextSearchFilter,
    _tracing,
)
from textsearch.embeddings import FunctionEmbedder
from textsearch.plugins import create_search_plugin

KEY = "BSA-SECRET-trace-0123456789abcdef"
BRAVE = "https://api.search.brave.com/res/v1/web/search"


def _local() -> LocalTextSearch:
    search = LocalTextSearch()
    search.add_documents(
        [
            {
                "id": "a",
                "title": "Retry",
                "text": "Retries use exponential backoff.",
                "link": "https://d.example/a",
                "metadata": {"team": "x"},
            },
            {
                "id": "b",
                "title": "Timeouts",
                "text": "Timeouts are thirty seconds.",
                "link": "https://d.example/b",
                "metadata": {"team": "x"},
            },
        ]
    )
    return search


def test_a_local_search_is_a_retrieval_span_without_its_text(spans: InMemorySpanExporter) -> None:
    with _local() as search:
        search.search_sync(
            "exponential backoff", top=3, filter=TextSearchFilter().equal_to("team", "x")
        )
    (span,) = spans.get_finished_spans()
    assert span.name == "retrieval :memory:" and span.kind is SpanKind.CLIENT
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "retrieval"
    assert attributes["gen_ai.provider.name"] == "local"
    assert attributes["gen_ai.data_source.id"] == ":memory:"
    assert attributes["gen_ai.retrieval.top_k"] == 3
    assert attributes["textsearch.retrieval.result_count"] == 1
    assert attributes["textsearch.retrieval.filter.fields"] == ("team",)
    assert "gen_ai.retrieval.query.text" not in attributes
    assert "exponential" not in span.to_json() and span.status.status_code is StatusCode.UNSET


@pytest.mark.anyio
async def test_content_only_when_opted_in(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEXTSEARCH_TRACE_CONTENT", "1")
    with _local() as search:
        plugin = create_search_plugin(search)
        await plugin.invoke("search", {"query": "exponential backoff"})
    found = by_name(spans)
    retrieval = dict(found["retrieval :memory:"].attributes or {})
    assert retrieval["gen_ai.retrieval.query.text"] == "exponential backoff"
    assert json.loads(str(retrieval["gen_ai.retrieval.documents"])) == [
        {"id": "https://d.example/a"}
    ]
    tool = dict(found["execute_tool search"].attributes or {})
    assert json.loads(str(tool["gen_ai.tool.call.arguments"])) == {"query": "exponential backoff"}
    assert "exponential backoff" in str(tool["gen_ai.tool.call.result"])


def test_a_tool_call_is_the_parent_of_its_search(spans: InMemorySpanExporter) -> None:
    with _local() as search:
        plugin = create_search_plugin(search, read_tools=True)
        plugin.invoke_sync("search", {"query": "timeouts"})
        plugin.invoke_sync("read_document", {"link": "https://d.example/b"})
        plugin.invoke_sync("read_document", {"link": "https://d.example/nothing"})
    finished = spans.get_finished_spans()
    tools = [s for s in finished if s.name.startswith("execute_tool")]
    assert [s.name for s in tools] == [
        "execute_tool search",
        "execute_tool read_document",
        "execute_tool read_document",
    ]
    search_tool = tools[0]
    attributes = dict(search_tool.attributes or {})
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["gen_ai.tool.name"] == "search"
    assert attributes["gen_ai.tool.type"] == "datastore"
    assert search_tool.kind is SpanKind.INTERNAL
    (retrieval,) = [s for s in finished if s.name.startswith("retrieval")]
    assert retrieval.parent is not None
    assert retrieval.parent.span_id == search_tool.context.span_id
    assert tools[1].status.status_code is StatusCode.UNSET
    # a refused read is a failed tool call
    assert tools[2].status.status_code is StatusCode.ERROR
    assert (tools[2].attributes or {})["error.type"] == "tool_error"


def _brave_401(mock: respx.MockRouter) -> None:
    mock.get(BRAVE).mock(
        return_value=httpx.Response(
            401,
            json={
                "type": "ErrorResponse",
                "error": {
                    "id": "e1",
                    "status": 401,
                    "code": "SUBSCRIPTION_TOKEN_INVALID",
                    "detail": f"The provided subscription token {KEY} is invalid.",
                },
            },
        )
    )


@pytest.mark.anyio
@pytest.mark.parametrize("content", ["0", "1"])
async def test_a_failing_web_search_is_an_error_span_without_the_key(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch, content: str
) -> None:
    monkeypatch.setenv("TEXTSEARCH_TRACE_CONTENT", content)
    with respx.mock(assert_all_called=True) as mock:
        _brave_401(mock)
        async with BraveTextSearch(KEY, max_retry_wait=0.01) as brave:
            plugin = create_search_plugin(brave)
            text = await plugin.invoke("search", {"query": "retry"})
            assert "credentials" in text
            with pytest.raises(AuthenticationError):
                await brave.get_search_results("retry")
            with pytest.raises(AuthenticationError):
                brave.search_sync("retry")
    finished = spans.get_finished_spans()
    assert [s.name for s in finished] == [
        "retrieval brave",
        "execute_tool search",
        "retrieval brave",
        "retrieval brave",
    ]
    for span in finished:
        assert span.status.status_code is StatusCode.ERROR
        assert (span.attributes or {})["error.type"] == "textsearch.errors.AuthenticationError"
        dumped = span.to_json()
        assert KEY not in dumped and "SECRET" not in dumped
        assert not span.events  # no exception event: its message could quote anything
    retrieval = dict(finished[0].attributes or {})
    assert retrieval["server.address"] == "api.search.brave.com"
    assert retrieval["gen_ai.provider.name"] == "brave"


def _toy(texts: list[str]) -> list[list[float]]:
    return [[float(len(t)), float(t.count("e")) + 1.0, 1.0] for t in texts]


def test_embeddings_are_spans_with_the_model(spans: InMemorySpanExporter) -> None:
    embedder = FunctionEmbedder(_toy, model="toy-embed-3")
    with LocalTextSearch(embedder=embedder, mode="semantic") as search:
        search.add_documents([{"id": "a", "title": "T", "text": "Retries use backoff."}])
        search.search_sync("backoff")
    finished = spans.get_finished_spans()
    embeddings = [s for s in finished if s.name == "embeddings toy-embed-3"]
    assert len(embeddings) == 2  # the documents, then the query
    attributes = dict(embeddings[0].attributes or {})
    assert attributes["gen_ai.operation.name"] == "embeddings"
    assert attributes["gen_ai.request.model"] == "toy-embed-3"
    assert attributes["gen_ai.provider.name"] == "function"
    assert embeddings[1].kind is SpanKind.CLIENT
    (retrieval,) = [s for s in finished if s.name.startswith("retrieval")]
    assert (retrieval.attributes or {})["gen_ai.request.model"] == "toy-embed-3"
    assert embeddings[1].parent is not None
    assert embeddings[1].parent.span_id == retrieval.context.span_id


def test_a_failing_embedder_and_a_failing_rerank_are_error_spans(
    spans: InMemorySpanExporter,
) -> None:
    from textsearch import ProviderError

    def broken(texts: list[str]) -> list[list[float]]:
        raise RuntimeError(f"bad key {KEY}")

    with LocalTextSearch(embedder=FunctionEmbedder(broken, model="m", dimensions=3)) as search:
        with pytest.raises(ProviderError):
            search.add_documents([{"id": "a", "text": "x"}])
    with pytest.raises(ValueError):
        with _tracing.operation("rerank", model="rerank-v3", provider="cohere") as span:
            assert span is not None
            span.set_attribute("gen_ai.rerank.candidate.count", 3)
            raise ValueError(KEY)
    found = by_name(spans)
    embedding = found["embeddings m"]
    assert embedding.status.status_code is StatusCode.ERROR
    assert (embedding.attributes or {})["error.type"] == "textsearch.errors.ProviderError"
    rerank = found["rerank rerank-v3"]
    assert rerank.status.status_code is StatusCode.ERROR
    assert dict(rerank.attributes or {})["gen_ai.rerank.candidate.count"] == 3
    assert (rerank.attributes or {})["error.type"] == "ValueError"
    for span in spans.get_finished_spans():
        assert KEY not in span.to_json()


_SEARCH = (
    "from textsearch import LocalTextSearch\n"
    "from textsearch.plugins import create_search_plugin\n"
    "s = LocalTextSearch(); s.add_documents([{'id': 'a', 'text': 'retry words'}])\n"
    "assert create_search_plugin(s).invoke_sync('search', {'query': 'retry'}).startswith('{')\n"
    "from textsearch import _tracing\n"
)


def _run(code: str) -> Any:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_without_the_package_nothing_is_imported_and_searches_work() -> None:
    blocked = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'opentelemetry' or name.startswith('opentelemetry.'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )
    done = _run(
        blocked + _SEARCH + "assert _tracing.enabled() is False and not _tracing._api\n"
        "assert not any(m.startswith('opentelemetry') for m in sys.modules)\n"
    )
    assert done.returncode == 0, done.stderr


def test_import_textsearch_does_not_import_opentelemetry_and_no_provider_means_no_spans() -> None:
    done = _run(
        "import sys, textsearch\n"
        "assert not any(m.startswith('opentelemetry') for m in sys.modules), 'imported'\n"
        + _SEARCH
        + "assert _tracing.enabled() is False and _tracing._api is not False\n"
        "assert not any(m.startswith('opentelemetry') for m in sys.modules), 'searched'\n"
    )
    assert done.returncode == 0, done.stderr


def test_a_provider_set_after_the_first_search_records_the_next_one() -> None:
    # The first search, before any provider, imports no opentelemetry; the application
    # then sets one and the next search is a span.
    done = _run(
        "import sys\n"
        + _SEARCH
        + "assert not any(m.startswith('opentelemetry') for m in sys.modules)\n"
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import "
        "InMemorySpanExporter\n"
        "exporter = InMemorySpanExporter()\n"
        "provider = TracerProvider()\n"
        "provider.add_span_processor(SimpleSpanProcessor(exporter))\n"
        "trace.set_tracer_provider(provider)\n"
        "s.search_sync('retry')\n"
        "names = [span.name for span in exporter.get_finished_spans()]\n"
        "assert names == ['retrieval :memory:'], names\n"
    )
    assert done.returncode == 0, done.stderr


def test_a_request_refused_before_sending_is_an_error_span(spans: InMemorySpanExporter) -> None:
    from textsearch import InvalidRequestError

    with _local() as search:
        with pytest.raises(InvalidRequestError):
            search.search_sync("   ")
        with pytest.raises(InvalidRequestError):
            search.search_sync("retry", top=5000)
    finished = spans.get_finished_spans()
    assert len(finished) == 2
    for span in finished:
        assert span.name == "retrieval :memory:"
        assert span.status.status_code is StatusCode.ERROR
    assert (finished[0].attributes or {})["error.type"] == "textsearch.errors.InvalidRequestError"


@pytest.mark.anyio
async def test_mcp_tool_calls_are_spans_too(spans: InMemorySpanExporter) -> None:
    from mcp import Client

    with _local() as search:
        plugin = create_search_plugin(search, read_tools=True)
        async with Client(plugin.create_mcp_server(), cache=None) as client:
            await client.call_tool("search", {"query": "retry"})
            await client.call_tool("read_document", {"link": "https://d.example/a"})
    finished = spans.get_finished_spans()
    # The mcp package traces its own requests (tools/call ...); ours nest inside them.
    ours = [s for s in finished if s.name.startswith(("retrieval", "execute_tool"))]
    names = [s.name for s in ours]
    assert names == ["retrieval :memory:", "execute_tool search", "execute_tool read_document"]
    by_id = {s.context.span_id: s for s in finished}
    parent = ours[1].parent
    if parent is not None and parent.span_id in by_id:
        assert by_id[parent.span_id].name.startswith("tools/call")


def test_open_web_tools_are_extensions(spans: InMemorySpanExporter) -> None:
    with respx.mock() as mock:
        _brave_401(mock)
        with BraveTextSearch(KEY, max_retry_wait=0.01) as brave:
            create_search_plugin(brave).invoke_sync("search", {"query": "retry"})
    (tool,) = [s for s in spans.get_finished_spans() if s.name == "execute_tool search"]
    assert (tool.attributes or {})["gen_ai.tool.type"] == "extension"
