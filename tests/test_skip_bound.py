"""Issue #33 item 1 and 12: ``skip`` is bounded everywhere, and a native panic is an error.

A model picks ``skip``; before this bound, tantivy aborted the process from about
``skip=1e9`` (it reserves ``top + skip`` slots up front) and panicked near ``2**63``, and
Milvus Lite allocated in proportion. The aborting cases run in a subprocess, so a
regression fails the test instead of killing the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors._support import (
    DOCS,
    CountingEmbedder,
    chroma_factory,
    milvus_factory,
    qdrant_factory,
    unique_name,
)
from textsearch import ConfigurationError, InvalidRequestError, ProviderError, SearchOptions
from textsearch.base import resolve_options
from textsearch.plugins import SearchParameter, create_search_function
from textsearch.testing import StaticTextSearch

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_search_options_document_and_enforce_a_maximum_skip() -> None:
    assert SearchOptions.MAX_SKIP == 10_000
    assert SearchOptions(skip=SearchOptions.MAX_SKIP).skip == 10_000
    for skip in (10_001, 10**9, 2**63, 2**64):
        with pytest.raises(InvalidRequestError, match="skip"):
            SearchOptions(skip=skip)
    with pytest.raises(InvalidRequestError, match="skip"):
        SearchOptions().with_updates(skip=10**9)


def test_options_built_without_validation_are_refused_by_every_connector() -> None:
    unchecked = SearchOptions.model_construct(top=5, skip=10**9)
    with pytest.raises(InvalidRequestError, match="skip"):
        resolve_options("q", unchecked, {}, max_top=50)
    with pytest.raises(InvalidRequestError, match="skip"):
        StaticTextSearch([]).search_sync("q", unchecked)


def test_the_tool_schema_declares_the_maximum_and_calls_are_clamped() -> None:
    search = StaticTextSearch([{"name": "n", "value": "retry policy", "link": "https://e.x/"}])
    function = create_search_function(search, name="search", description="d")
    skip = function.parameters_json_schema["properties"]["skip"]
    assert skip["maximum"] == SearchOptions.MAX_SKIP
    assert function.parse_arguments({"query": "retry", "skip": 10**30}).options.skip == 10_000
    with pytest.raises(ConfigurationError, match="skip"):
        create_search_function(
            search,
            name="search",
            description="d",
            parameters=[
                SearchParameter("query", "q"),
                SearchParameter("skip", "s", type=int, le=10**9),
            ],
        )


_TANTIVY_SCRIPT = textwrap.dedent(
    """
    import json
    import tantivy
    from textsearch import ProviderError
    from textsearch._native import native_calls
    from textsearch.connectors.local import LocalTextSearch
    from textsearch.plugins import create_search_function

    search = LocalTextSearch(":memory:", engine="tantivy")
    search.add_documents(
        [{"id": f"d{i}", "title": "t", "text": f"retry policy {i}"} for i in range(30)]
    )
    function = create_search_function(search, name="search", description="d", max_repeats=None)
    answers = [
        function.invoke_sync({"query": "retry", "skip": skip})
        for skip in (10**9, 2**63 - 10, 2**64, 25)
    ]
    # The engine itself never asks tantivy for more than the index holds.
    ranker = search._tantivy()
    query = ranker.query(["retry"], "any", None)
    hits, _ = ranker.search(query, 10**12, 2**62, False)
    far, _ = ranker.search(query, 10**12, 0, False)
    # A real panic inside tantivy (capacity overflow) becomes a documented error.
    try:
        with native_calls("local", "tantivy"):
            ranker._index.searcher().search(query, limit=2**63 - 10)
        panic = "no panic"
    except ProviderError as exc:
        panic = exc.code
    print(json.dumps({"answers": answers, "hits": len(hits), "far": len(far), "panic": panic}))
    """
)


def test_a_huge_skip_never_kills_the_process_on_tantivy() -> None:
    pytest.importorskip("tantivy")
    done = subprocess.run(
        [sys.executable, "-c", _TANTIVY_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    out = json.loads(done.stdout.strip().splitlines()[-1])
    big, panic_skip, overflow, fine = out["answers"]
    for answer in (big, panic_skip, overflow):
        assert "used skip=10000" in answer
    assert "retry policy" in fine  # skip=25 of 30: a real page
    assert out["hits"] == 0 and out["far"] == 30
    assert out["panic"] == "native_panic"


_PANIC = type("PanicException", (BaseException,), {"__module__": "pyo3_runtime"})


def test_a_panic_escaping_a_connector_is_a_tool_error_not_a_crash() -> None:
    search = StaticTextSearch([], error=_PANIC("capacity overflow"))
    function = create_search_function(search, name="search", description="d")
    answer = function.invoke_sync({"query": "retry"})
    assert "capacity overflow" not in answer and "error" in answer
    with pytest.raises(ProviderError) as caught:
        function.invoke_sync({"query": "other"}, raise_errors=True)
    assert caught.value.code == "native_panic"
    with pytest.raises(KeyboardInterrupt):  # only panics are converted
        create_search_function(
            StaticTextSearch([], error=KeyboardInterrupt()), name="search", description="d"
        ).invoke_sync({"query": "retry"})


@pytest.mark.parametrize(
    "factory", [chroma_factory, qdrant_factory, milvus_factory], ids=["chroma", "qdrant", "milvus"]
)
def test_vector_stores_refuse_a_skip_beyond_the_maximum(factory: Any, tmp_path: Path) -> None:
    make = factory(tmp_path)
    embedder = CountingEmbedder()
    search = make(unique_name(), embedder=embedder)
    search.add_documents_sync(DOCS)
    calls = embedder.calls
    unchecked = SearchOptions.model_construct(top=5, skip=SearchOptions.MAX_SKIP + 1)
    for attempt in (
        lambda: search.search_sync("retry", skip=SearchOptions.MAX_SKIP + 1),
        lambda: search.search_sync("retry", unchecked),
    ):
        with pytest.raises(InvalidRequestError, match="skip"):
            attempt()
    assert embedder.calls == calls  # refused before the query was embedded or sent
    # a skip within the bound still pages
    assert (
        list(search.search_sync("retry", top=2, skip=1))
        == list(search.search_sync("retry", top=3))[1:]
    )
