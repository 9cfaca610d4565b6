"""QdrantTextSearch: local mode (memory and folder), hybrid fusion, an unreachable server."""

from __future__ import annotations

import asyncio
import hashlib
import socket
import sys
import time
import uuid
import warnings
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient, QdrantClient, models

from tests.connectors.vectors._support import DOCS, CountingEmbedder, bag_of_words, unique_name
from textsearch import (
    ConfigurationError,
    NotFoundError,
    SearchTransportError,
    TextSearchFilter,
)
from textsearch.connectors.vectors import QdrantDocument, QdrantTextSearch
from textsearch.connectors.vectors.qdrant import point_id, sparse_of_query, sparse_of_text
from textsearch.embeddings import FunctionEmbedder

SECRET = "qdrant-key-3b9f0e2c71"


def _noise(texts: list[str]) -> list[list[float]]:
    """Vectors that carry no meaning at all: a hash of the text, spread over 16 numbers."""
    out = []
    for text in texts:
        digest = hashlib.sha256(text.encode()).digest()
        out.append([b / 255 + 0.01 for b in digest[:16]])
    return out


def test_hybrid_finds_the_exact_word_that_a_meaningless_dense_vector_cannot() -> None:
    client = QdrantClient(":memory:")
    name = unique_name()
    embedder = FunctionEmbedder(_noise, model="noise", dimensions=16)
    words = ["zeppelin", "quokka", "marimba", "obsidian", "tundra", "saffron", "glacier"]
    docs = [
        {"id": w, "title": f"About {w}", "text": f"This page is about the {w} and nothing else."}
        for w in words
    ]
    hybrid = QdrantTextSearch(client, name, embedder=embedder)
    hybrid.add_documents_sync(docs)
    for word in words:
        assert hybrid.get_search_results_sync(f"{word}", top=1).results[0].id == word
    # dense only: the ranking is the noise's, so it cannot find each word first
    semantic = QdrantTextSearch(client, name, embedder=embedder, mode="semantic")
    firsts = [semantic.get_search_results_sync(w, top=1).results[0].id for w in words]
    assert firsts != words


def test_sparse_vectors_are_term_frequencies_of_hashed_words() -> None:
    indices, values = sparse_of_text("Retry retry RETRY backoff")
    assert len(indices) == 2 and indices == sorted(indices)
    heavy = max(values)
    assert values.index(heavy) == indices.index(sparse_of_query("retry")[0][0])
    assert sparse_of_query("a a b") == (sorted(set(sparse_of_query("a b")[0])), [1.0, 1.0])


def test_a_folder_is_a_persistent_collection(tmp_path: Path) -> None:
    folder = tmp_path / "qdrant"
    search = QdrantTextSearch(str(folder), "docs", embedder=CountingEmbedder())
    search.add_documents_sync(DOCS)
    search.close()  # releases the folder's lock for the next client
    again = QdrantTextSearch(folder, "docs", embedder=CountingEmbedder())
    assert again.get_search_results_sync("boil pasta", top=1).results[0].id == "pasta"
    again.close()


def test_an_existing_collection_with_an_unnamed_vector_and_flat_payload() -> None:
    client = QdrantClient(":memory:")
    name = unique_name()
    client.create_collection(
        name, vectors_config=models.VectorParams(size=32, distance=models.Distance.COSINE)
    )
    texts = ["Tokio is an async runtime for Rust.", "Asyncio is Python's event loop."]
    client.upsert(
        name,
        points=[
            models.PointStruct(
                id=1,
                vector=bag_of_words(texts[:1])[0],
                payload={"body": texts[0], "heading": "Tokio", "lang": "rust"},
            ),
            models.PointStruct(
                id=2,
                vector=bag_of_words(texts[1:])[0],
                payload={"body": texts[1], "heading": "Asyncio", "lang": "python"},
            ),
        ],
    )
    search = QdrantTextSearch(
        client,
        name,
        embedder=CountingEmbedder(),
        text_field="body",
        title_field="heading",
        metadata_field=None,
    )
    results = search.get_search_results_sync("python event loop", top=2)
    first = results.results[0]
    assert isinstance(first, QdrantDocument)
    assert (first.id, first.title, first.text) == ("2", "Asyncio", texts[1])
    assert first.metadata == {"lang": "python"}
    assert first.score is not None and first.score > results.results[1].score  # a similarity
    rust = TextSearchFilter().equal_to("lang", "rust")
    only = search.get_search_results_sync("loop", filter=rust)
    assert [r.id for r in only] == ["1"]
    with pytest.raises(ConfigurationError, match="hybrid"):
        QdrantTextSearch(
            client, name, embedder=CountingEmbedder(), mode="hybrid", metadata_field=None
        ).search_sync("loop")


def test_a_named_vector_that_is_not_there_is_a_configuration_error() -> None:
    client = QdrantClient(":memory:")
    name = unique_name()
    QdrantTextSearch(client, name, embedder=CountingEmbedder()).add_documents_sync(DOCS)
    with pytest.raises(ConfigurationError, match="dense"):
        QdrantTextSearch(
            client, name, embedder=CountingEmbedder(), vector_name="other"
        ).search_sync("x")


def test_an_injected_async_client_serves_the_async_methods() -> None:
    async def run() -> list[str]:
        client = AsyncQdrantClient(":memory:")
        search = QdrantTextSearch(client, unique_name(), embedder=CountingEmbedder())
        with pytest.raises(NotFoundError):
            await search.search("x")
        await search.add_documents(DOCS)
        with pytest.raises(ConfigurationError, match="async"):
            search.search_sync("x")
        found = await search.get_search_results("boil pasta", top=1, include_total_count=True)
        await search.aclose()
        assert await client.collection_exists(search.collection)  # injected: still open
        await client.close()
        assert found.total_count == 4
        return [r.id for r in found]

    assert asyncio.run(run()) == ["pasta"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_is_a_transport_error_within_the_deadline() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # qdrant-client warns about a key over plain http
        search = QdrantTextSearch(
            url, "docs", embedder=CountingEmbedder(), api_key=SECRET, timeout=3
        )
        assert SECRET not in repr(search)
        for call in (
            lambda: search.search_sync("retry"),
            lambda: asyncio.run(search.search("retry")),
            lambda: search.add_documents_sync(DOCS),
            lambda: asyncio.run(search.delete_documents(["a"])),
        ):
            started = time.monotonic()
            with pytest.raises(SearchTransportError) as caught:
                call()
            assert time.monotonic() - started < 30  # ten times the 3 s timeout
            assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)
            assert caught.value.__context__ is None and caught.value.__cause__ is None
        search.close()


@pytest.mark.parametrize("url", ["http://user:pw@127.0.0.1:6333", "https://127.0.0.1:6333/?a=1"])
def test_urls_that_are_refused_at_construction(url: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        QdrantTextSearch(url, "docs")
    assert "pw" not in str(caught.value)


def test_without_qdrant_client_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "qdrant_client", None)
    with pytest.raises(ImportError, match=r"textsearch-sdk\[qdrant\]"):
        QdrantTextSearch(":memory:", "docs")


@pytest.mark.parametrize(
    "record_id", ["d1#0", "é#3", "x" * 500 + "#9", "a b/c?d#12", "#0", "日本#1"]
)
def test_point_ids_stay_the_uuid5_of_the_record_id(record_id: str) -> None:
    # collections written before keep their points: the id of a record never changes
    namespace = uuid.UUID("8f6e2f0a-54a4-4c43-9d1e-7f0b5b3c2a61")
    assert point_id(record_id) == str(uuid.uuid5(namespace, record_id))


def test_point_ids_are_uuid5_on_many_ids_and_every_variant_digit() -> None:
    namespace = uuid.UUID("8f6e2f0a-54a4-4c43-9d1e-7f0b5b3c2a61")
    ids = [f"doc-{i}#{i % 13}" for i in range(4000)]
    ids += [f"{chr(0x4E00 + i)}#{i}" for i in range(500)]
    raw_digits = set()
    for record_id in ids:
        assert point_id(record_id) == str(uuid.uuid5(namespace, record_id))
        raw = hashlib.sha1(namespace.bytes + record_id.encode()).hexdigest()
        raw_digits.add(raw[16])
    # the variant's digit is rewritten from the hash's: every one of the 16 was met
    assert raw_digits == set("0123456789abcdef")


def test_points_built_without_validation_serialize_as_validated_ones() -> None:
    # what a server receives (REST JSON, gRPC) is the same as from validated PointStructs
    from qdrant_client.conversions.conversion import RestToGrpc

    from textsearch.connectors.vectors._base import passage_records

    search = QdrantTextSearch(":memory:", "docs", embedder=CountingEmbedder())
    _, records = passage_records(DOCS[:2], chunk=False, reserved=())
    vectors = [[0.5, 0.25, 1.0] for _ in records]
    for has_sparse, using in ((True, "dense"), (False, None)):
        for built in search._points(records, vectors, has_sparse, using):
            again = models.PointStruct(**built.model_dump())
            assert built.model_dump_json() == again.model_dump_json()
            assert RestToGrpc.convert_point_struct(built) == RestToGrpc.convert_point_struct(again)


def test_trusted_models_with_a_field_not_given_get_its_default() -> None:
    # a later qdrant-client may add a field to PointStruct: it must not be left unset
    from pydantic import BaseModel

    from textsearch.connectors.vectors._base import trusted

    class Grown(BaseModel):
        id: str
        vector: list[float]
        shard: str = "default"

    grown = trusted(Grown, id="a", vector=[0.5])
    assert grown.shard == "default" and grown.model_dump()["shard"] == "default"
    full = trusted(Grown, id="a", vector=[0.5], shard="s")
    assert full.model_fields_set == {"id", "vector", "shard"} and full == Grown(
        id="a", vector=[0.5], shard="s"
    )
