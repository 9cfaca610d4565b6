"""MilvusTextSearch on Milvus Lite: expression injection, hybrid BM25, unreachable server."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.connectors.vectors._support import (
    DOCS,
    CountingEmbedder,
    bag_of_words,
    milvus_client,
    unique_name,
)
from textsearch import (
    ConfigurationError,
    InvalidRequestError,
    SearchTransportError,
    TextSearchError,
    TextSearchFilter,
    UnsupportedFilterError,
)
from textsearch.connectors.vectors import MilvusDocument, MilvusTextSearch
from textsearch.connectors.vectors.milvus import literal
from textsearch.embeddings import FunctionEmbedder

SECRET = "milvus-token-7c2e94b1d0"

# Characters that mean something in Milvus expressions, or in strings, or to a parser.
_PIECES = list("\"'\\\n\r\t{}[]()$#%&|=!<>,.;:` ") + [
    "or",
    "and",
    "||",
    "&&",
    "not",
    "true",
    "1==1",
    "in",
    "like",
    "%",
    "\x00",
    "\x07",
    "é",
    "😀",
    "\u2028",
    "\x7f",
    "json_contains(",
    "metadata[",
    '"]',
    "\\u0041",
    "\\x41",
    "en",
]
_HOSTILE = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join) | st.text(max_size=12)

HOSTILE_VALUES = [
    '" or "1"=="1',
    '") or (1==1) or ("',
    "\\",
    '\\"',
    'a" || pk != "',
    "x\ny",
    "{p0}",
    "' or ''=='",
    'en"] or metadata["lang',
    "\x00",
    "",
    '😀\\n"',
]


@pytest.fixture(scope="module")
def hostile() -> tuple[MilvusTextSearch, dict[str, str]]:
    """A collection whose documents each carry one hostile metadata value and id."""
    client = milvus_client()
    search = MilvusTextSearch(client, unique_name("hostile"), embedder=CountingEmbedder())
    docs = [
        {"id": f"h{i}{value}", "text": f"document {i}", "metadata": {"v": value, "tags": [value]}}
        for i, value in enumerate(HOSTILE_VALUES)
    ]
    docs.append({"id": "plain", "text": "document plain", "metadata": {"v": "en", "tags": ["en"]}})
    search.add_documents_sync(docs, chunk=False)
    return search, {d["id"]: d["metadata"]["v"] for d in docs}


def test_each_hostile_value_matches_exactly_its_own_document(
    hostile: tuple[MilvusTextSearch, dict[str, str]],
) -> None:
    search, values = hostile
    for doc_id, value in values.items():
        for flt in (
            TextSearchFilter().equal_to("v", value),
            TextSearchFilter().any_tag_equal_to("tags", value),
            TextSearchFilter().equal_to("id", doc_id),
        ):
            found = search.get_search_results_sync("document", top=50, filter=flt)
            assert [r.id for r in found] == [doc_id], (doc_id, value, flt)


@settings(
    max_examples=1500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=_HOSTILE)
def test_hostile_values_never_widen_a_result_nor_leak_a_store_error(
    hostile: tuple[MilvusTextSearch, dict[str, str]], value: str
) -> None:
    search, values = hostile
    expected = {doc_id for doc_id, stored in values.items() if stored == value}
    for flt in (
        TextSearchFilter().equal_to("v", value),
        TextSearchFilter().any_tag_equal_to("tags", value),
        TextSearchFilter().equal_to("id", value),
        TextSearchFilter().equal_to("link", value),
        TextSearchFilter().equal_to("site", value),
    ):
        try:
            found = search.get_search_results_sync("document", top=50, filter=flt)
        except TextSearchError as exc:
            assert isinstance(exc, InvalidRequestError), repr(exc)
            continue
        ids = {r.id for r in found}
        if flt.clauses[0].field_name in ("v", "tags"):
            assert ids == expected, (value, ids)
        elif flt.clauses[0].field_name == "id":
            assert ids == ({value} & set(values)), (value, ids)
        else:
            assert ids == set(), (value, ids)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(min_size=1, max_size=20))
def test_hostile_field_names_are_refused_or_harmless(name: str) -> None:
    search = _NAMES["search"]
    try:
        flt = TextSearchFilter().equal_to(name, "en")
        found = search.get_search_results_sync("document", top=50, filter=flt)
    except UnsupportedFilterError:
        return
    except InvalidRequestError:
        return  # refused by TextSearchFilter itself (control characters)
    # a name that passed is a plain key: it can only select documents holding it
    ids = {r.id for r in found}
    assert ids <= ({"plain"} if name == "v" else set()), (name, ids)


_NAMES: dict[str, Any] = {}


@pytest.fixture(autouse=True, scope="module")
def _names_search(hostile: tuple[MilvusTextSearch, dict[str, str]]) -> None:
    _NAMES["search"] = hostile[0]


def test_literals_are_quoted_and_escaped() -> None:
    assert literal('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert literal(True) == "true" and literal(3) == "3" and literal(1.25) == "1.25"
    with pytest.raises(InvalidRequestError):
        literal(float("nan"))


def _noise(texts: list[str]) -> list[list[float]]:
    return [[b / 255 + 0.01 for b in hashlib.sha256(t.encode()).digest()[:16]] for t in texts]


def test_hybrid_bm25_finds_the_exact_word_that_a_meaningless_dense_vector_cannot() -> None:
    client = milvus_client()
    name = unique_name()
    embedder = FunctionEmbedder(_noise, model="noise", dimensions=16)
    words = ["zeppelin", "quokka", "marimba", "obsidian", "tundra", "saffron", "glacier"]
    docs = [
        {"id": w, "title": f"About {w}", "text": f"This page is about the {w} and nothing else."}
        for w in words
    ]
    hybrid = MilvusTextSearch(client, name, embedder=embedder)
    hybrid.add_documents_sync(docs)
    for word in words:
        assert hybrid.get_search_results_sync(word, top=1).results[0].id == word
    semantic = MilvusTextSearch(client, name, embedder=embedder, mode="semantic")
    assert [semantic.get_search_results_sync(w, top=1).results[0].id for w in words] != words


def test_an_existing_collection_with_dynamic_fields() -> None:
    from pymilvus import DataType

    client = milvus_client()
    name = unique_name()
    schema = client.create_schema(auto_id=False, enable_dynamic_field=True)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("body", DataType.VARCHAR, max_length=1000)
    schema.add_field("embedding", DataType.FLOAT_VECTOR, dim=32)
    index = client.prepare_index_params()
    index.add_index("embedding", index_type="AUTOINDEX", metric_type="COSINE")
    client.create_collection(name, schema=schema, index_params=index)
    texts = ["Tokio is an async runtime for Rust.", "Asyncio is Python's event loop."]
    client.insert(
        name,
        [
            {"id": 1, "body": texts[0], "embedding": bag_of_words(texts[:1])[0], "lang": "rust"},
            {"id": 2, "body": texts[1], "embedding": bag_of_words(texts[1:])[0], "lang": "python"},
        ],
    )
    search = MilvusTextSearch(
        client,
        name,
        embedder=CountingEmbedder(),
        text_field="body",
        vector_field="embedding",
        metadata_field=None,
    )
    results = search.get_search_results_sync("python event loop", top=2)
    first = results.results[0]
    assert isinstance(first, MilvusDocument)
    assert (first.id, first.text, first.metadata) == ("2", texts[1], {"lang": "python"})
    assert first.score is not None and first.score > results.results[1].score
    rust = search.get_search_results_sync(
        "loop", filter=TextSearchFilter().equal_to("lang", "rust")
    )
    assert [r.id for r in rust] == ["1"]
    with pytest.raises(ConfigurationError, match="BM25"):
        MilvusTextSearch(
            client,
            name,
            embedder=CountingEmbedder(),
            text_field="body",
            vector_field="embedding",
            metadata_field=None,
            mode="hybrid",
        ).search_sync("x")
    with pytest.raises(ConfigurationError, match="vector"):
        MilvusTextSearch(client, name, embedder=CountingEmbedder()).search_sync("x")


def test_a_lite_file_the_connector_opens_itself(tmp_path: Path) -> None:
    search = MilvusTextSearch(str(tmp_path / "own.db"), "docs", embedder=CountingEmbedder())

    async def run() -> list[str]:
        await search.add_documents(DOCS)
        found = await search.get_search_results("boil pasta", top=1, include_total_count=True)
        assert found.total_count == 4
        return [r.id for r in found]

    assert asyncio.run(run()) == ["pasta"]
    search.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_a_transport_error_within_the_deadline() -> None:
    search = MilvusTextSearch(
        f"http://127.0.0.1:{_closed_port()}",
        "docs",
        embedder=CountingEmbedder(),
        token=SECRET,
        timeout=3,
    )
    assert SECRET not in repr(search)
    for call in (
        lambda: search.search_sync("retry"),
        lambda: asyncio.run(search.search("retry")),
        lambda: search.add_documents_sync(DOCS),
    ):
        started = time.monotonic()
        with pytest.raises(SearchTransportError) as caught:
            call()
        assert time.monotonic() - started < 30  # ten times the 3 s timeout
        assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
        assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_text_too_long_for_a_milvus_field_is_refused_before_writing() -> None:
    search = MilvusTextSearch(milvus_client(), unique_name(), embedder=CountingEmbedder())
    with pytest.raises(InvalidRequestError, match="chunk=True"):
        search.add_documents_sync([{"id": "big", "text": "word " * 20000}], chunk=False)


@pytest.mark.parametrize("where", ["http://u:pw@127.0.0.1:19530", "milvus.sqlite", 42])
def test_bad_locations_are_configuration_errors(where: Any) -> None:
    with pytest.raises(ConfigurationError) as caught:
        MilvusTextSearch(where, "docs")
    assert "pw" not in str(caught.value)


def test_without_pymilvus_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pymilvus", None)
    with pytest.raises(ImportError, match=r"textsearch-sdk\[milvus\]"):
        MilvusTextSearch("x.db", "docs")
