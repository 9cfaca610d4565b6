"""What tracing costs a local search: absent, installed without a provider, and on.

python benchmarks/bench_tracing.py [--docs 5000] [--rounds 15] [--calls 300]
python benchmarks/bench_tracing.py --mode hybrid --docs 100000 --calls 30

Five ways of running the same ``search_sync`` on a ``LocalTextSearch`` of ``--docs``
documents, interleaved round by round (so that machine load hits all of them alike). The
search is a keyword one (``--mode keyword``, the default: the cheapest search there is, where
a span weighs most), or a hybrid or semantic one over random unit vectors of ``--dims`` given
through a ``FunctionEmbedder`` (the query's embedding is a fixed vector: a model's cost is
left out, so the span is weighed against the index's own work only):

* ``direct``: the untraced path itself (``_prepare`` then ``_answer_sync``), the baseline;
* ``absent``: the public method with opentelemetry-api treated as missing (one check);
* ``floor``: the untraced path inside the SDK's barest span (``start_span`` then ``end``: no
  attributes, not made current), what any span costs, the floor of ``on``;
* ``attrs``: the same with the attributes a span of this search carries, given at its start:
  the floor of a span that says what the conventions ask;
* ``on``: the public method with an SDK tracer provider and a batch span processor whose
  exporter drops the spans (span creation, attributes and hand-off are all paid; in the
  hybrid and semantic modes the query embedding's own ``embeddings`` span too).

Prints the median CPU time per search (``time.process_time``, all threads: the batch
processor's too) and the medians of the per-round ratios ``absent/direct``,
``floor/direct``, ``on/absent``, ``attrs/direct``, ``on/floor`` and ``on/attrs``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def _docs(count: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    words = [f"w{i}" for i in range(3000)] + ["retry", "backoff", "timeout", "deadline"]
    return [
        {
            "id": f"d{i}",
            "title": f"Doc {i}",
            "text": " ".join(rng.choice(words) for _ in range(80)),
            "metadata": {"n": i % 7},
        }
        for i in range(count)
    ]


def _vector_search(count: int, dims: int, mode: str, docs: list[dict[str, Any]]) -> Any:
    import numpy as np
    from given_vectors import given_embedder

    from textsearch import LocalTextSearch

    rng = np.random.default_rng(7)
    query = rng.standard_normal(dims).astype(np.float32)
    query_vector = (query / np.linalg.norm(query)).tolist()
    embedder, pending = given_embedder(dims, query_fn=lambda texts: [query_vector for _ in texts])
    search = LocalTextSearch(embedder=embedder, mode=mode)  # type: ignore[arg-type]
    for begin in range(0, count, 5000):
        part = docs[begin : begin + 5000]
        rows = rng.standard_normal((len(part), dims)).astype(np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        pending[:] = rows.tolist()
        search.add_documents(part)
    return search


def _time(call: Callable[[], Any], calls: int) -> float:
    # CPU time of this process: steadier than wall time on a shared machine.
    start = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - start) / calls


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--simple", action="store_true", help="SimpleSpanProcessor instead")
    parser.add_argument("--mode", choices=["keyword", "hybrid", "semantic"], default="keyword")
    parser.add_argument("--dims", type=int, default=384, help="vector length (hybrid, semantic)")
    args = parser.parse_args(argv)

    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )
    from opentelemetry.trace import SpanKind

    from textsearch import LocalTextSearch, _tracing

    class Drop(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(Drop()) if args.simple else BatchSpanProcessor(Drop())
    )
    trace.set_tracer_provider(provider)
    _tracing.enabled()  # loads the API once

    if args.mode == "keyword":
        search = LocalTextSearch()
        search.add_documents(_docs(args.docs))
    else:
        search = _vector_search(args.docs, args.dims, args.mode, _docs(args.docs))
    print(f"{args.mode} search, {args.docs:,} documents; load average {os.getloadavg()[0]:.1f}")
    query = "retry backoff"

    def direct() -> Any:
        resolved, options = search._prepare(query, None, {"top": 5})
        return search._answer_sync("search", resolved, options)

    def public() -> Any:
        return search.search_sync(query, top=5)

    bare = provider.get_tracer("bench")

    def floor() -> Any:
        span = bare.start_span("retrieval")
        found = direct()
        span.end()
        return found

    # The attributes a span of this search carries (the GenAI conventions' and ours).
    attributes = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.provider.name": "local",
        "gen_ai.data_source.id": ":memory:",
        "gen_ai.retrieval.top_k": 5,
        "textsearch.retrieval.result_count": 5,
    }

    def attributed() -> Any:
        span = bare.start_span("retrieval :memory:", kind=SpanKind.CLIENT, attributes=attributes)
        found = direct()
        span.end()
        return found

    api = _tracing._api
    timings: dict[str, list[float]] = {
        "direct": [],
        "absent": [],
        "floor": [],
        "attrs": [],
        "on": [],
    }
    for _ in range(3):
        public()
    for _ in range(args.rounds):
        _tracing._api = False
        timings["direct"].append(_time(direct, args.calls))
        timings["absent"].append(_time(public, args.calls))
        timings["floor"].append(_time(floor, args.calls))
        timings["attrs"].append(_time(attributed, args.calls))
        _tracing._api = api
        assert _tracing.enabled()
        timings["on"].append(_time(public, args.calls))
    _tracing._api = api
    provider.shutdown()
    medians = {k: statistics.median(v) for k, v in timings.items()}
    for name, seconds in medians.items():
        print(f"{name:>7}: {seconds * 1e6:8.1f} µs CPU per search")
    for top, bottom in (
        ("absent", "direct"),
        ("floor", "direct"),
        ("on", "absent"),
        ("attrs", "direct"),
        ("on", "floor"),
        ("on", "attrs"),
    ):
        ratios = [t / b for t, b in zip(timings[top], timings[bottom], strict=True)]
        print(
            f"{top + '/' + bottom:>13}: {statistics.median(ratios):.3f} (median of rounds' ratios)"
        )


if __name__ == "__main__":
    main()
