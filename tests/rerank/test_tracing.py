"""A rerank is a ``rerank`` span with the model, its error as span status, never the text."""

from __future__ import annotations

import pytest

pytest.importorskip("opentelemetry.sdk")

from tests.tracing.conftest import _exporter
from textsearch import RerankedTextSearch
from textsearch.errors import RateLimitError
from textsearch.rerank import FunctionReranker
from textsearch.testing import StaticTextSearch


def test_rerank_spans() -> None:
    exporter = _exporter()
    exporter.clear()
    docs = StaticTextSearch(["secret alpha text", "beta"], match="always")
    good = RerankedTextSearch(docs, FunctionReranker(lambda q, t: [1.0, 2.0], model="ranker-1"))
    assert good.search_sync("a query") == good.search_sync("a query")
    spans = [s for s in exporter.get_finished_spans() if s.name.startswith("rerank")]
    assert spans and spans[0].name == "rerank ranker-1"
    attributes = dict(spans[0].attributes or {})
    assert attributes["gen_ai.operation.name"] == "rerank"
    assert attributes["gen_ai.request.model"] == "ranker-1"
    assert attributes["textsearch.rerank.documents"] == 2
    assert "secret alpha" not in str(attributes) and "a query" not in str(attributes)
    exporter.clear()

    def failing(query: str, texts: list[str]) -> list[float]:
        raise RateLimitError("slow down", provider="p")

    bad = RerankedTextSearch(docs, FunctionReranker(failing, model="ranker-2"))
    with pytest.raises(RateLimitError):
        bad.search_sync("q")
    (span,) = [s for s in exporter.get_finished_spans() if s.name == "rerank ranker-2"]
    assert span.status.status_code.name == "ERROR"
    exporter.clear()
