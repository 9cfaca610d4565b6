"""ChromaTextSearch: in-process clients, a real ``chroma run`` server, an unreachable one."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chromadb
import pytest

from tests.connectors.vectors._support import DOCS, CountingEmbedder, bag_of_words, unique_name
from textsearch import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    SearchTransportError,
    TextSearchFilter,
)
from textsearch.connectors.vectors import ChromaDocument, ChromaTextSearch

SECRET = "chroma-token-5f0c1d7e9a"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``chroma run`` on 127.0.0.1, started here and stopped by its own pid."""
    binary = Path(sys.executable).with_name("chroma")
    if not binary.exists():
        pytest.fail("the chromadb package ships the 'chroma' command; it is missing")
    port = _free_port()
    folder = tmp_path_factory.mktemp("chroma-server")
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    process = subprocess.Popen(
        [str(binary), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("chroma run did not start")
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_a_server_by_url_blocking_and_async(chroma_server: str) -> None:
    name = unique_name()
    search = ChromaTextSearch(
        chroma_server, name, embedder=CountingEmbedder(), headers={"X-Chroma-Token": SECRET}
    )
    assert SECRET not in repr(search)
    with pytest.raises(NotFoundError, match=name):
        search.search_sync("retry")
    assert search.add_documents_sync(DOCS) == 3
    found = search.get_search_results_sync(
        "backoff jitter",
        top=2,
        filter=TextSearchFilter().equal_to("site", "example.com"),
        include_total_count=True,
    )
    assert found.results[0].link == "https://docs.example.com/retry#backoff"
    assert found.total_count == 3

    async def run() -> list[str]:
        other = ChromaTextSearch(chroma_server, unique_name(), embedder=CountingEmbedder())
        with pytest.raises(NotFoundError):
            await other.search("retry")
        await other.add_documents(DOCS)
        await other.delete_documents(["pasta"])
        results = await other.get_search_results("boil pasta", top=5)
        await other.aclose()
        return [r.id for r in results]

    assert sorted(asyncio.run(run())) == ["cache", "retry", "retry"]
    search.close()


def test_an_unreachable_server_is_a_transport_error_within_the_deadline() -> None:
    port = _free_port()  # nothing listens there once the socket is closed
    search = ChromaTextSearch(
        f"http://127.0.0.1:{port}",
        "docs",
        embedder=CountingEmbedder(),
        timeout=3,
        headers={"Authorization": f"Bearer {SECRET}"},
    )
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


@pytest.mark.parametrize(
    "url",
    [
        "http://user:pw@127.0.0.1:8000",
        "http://127.0.0.1:8000/some/path",
        "https://127.0.0.1:99999",
    ],
)
def test_urls_that_are_refused_at_construction(url: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        ChromaTextSearch(url, "docs")
    assert "pw" not in str(caught.value)


def test_a_folder_is_a_persistent_collection(tmp_path: Path) -> None:
    folder = tmp_path / "chroma"
    search = ChromaTextSearch(str(folder), "docs", embedder=CountingEmbedder())
    search.add_documents_sync(DOCS)
    again = ChromaTextSearch(folder, "docs", embedder=CountingEmbedder())
    assert again.get_search_results_sync("boil pasta", top=1).results[0].id == "pasta"
    assert any(folder.iterdir())


def test_an_existing_collection_with_its_own_field_names() -> None:
    client = chromadb.EphemeralClient()
    name = unique_name()
    collection = client.create_collection(name, embedding_function=None)
    texts = ["Tokio is an async runtime for Rust.", "Asyncio is Python's event loop."]
    collection.add(
        ids=["r1", "p1"],
        embeddings=bag_of_words(texts),
        documents=texts,
        metadatas=[
            {"heading": "Tokio", "url": "https://tokio.rs", "lang": "rust"},
            {"heading": "Asyncio", "url": "https://docs.python.org/asyncio", "lang": "python"},
        ],
    )
    search = ChromaTextSearch(
        client, name, embedder=CountingEmbedder(), title_field="heading", link_field="url"
    )
    results = search.get_search_results_sync("python event loop", top=2)
    first = results.results[0]
    assert isinstance(first, ChromaDocument)
    assert (first.id, first.title, first.link) == (
        "p1",
        "Asyncio",
        "https://docs.python.org/asyncio",
    )
    assert first.metadata == {"lang": "python"}
    assert first.score is not None and first.score < results.results[1].score  # a distance
    only = search.get_search_results_sync(
        "event loop", filter=TextSearchFilter().equal_to("link", "https://tokio.rs")
    )
    assert [r.id for r in only] == ["r1"]


def test_in_process_calls_run_in_a_worker_thread() -> None:
    client = chromadb.EphemeralClient()
    search = ChromaTextSearch(client, unique_name(), embedder=CountingEmbedder())
    search.add_documents_sync(DOCS)
    search.search_sync("warm up")  # the collection is now cached on the connector
    collection = next(iter(search._collections.values()))
    seen: list[int] = []
    real_query = collection.query

    def spy(**kwargs: Any) -> Any:
        seen.append(threading.get_ident())
        return real_query(**kwargs)

    collection.query = spy

    async def run() -> int:
        await search.search("retry")
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert seen and seen[0] != loop_thread


def test_metadata_keys_the_connector_writes_are_refused() -> None:
    search = ChromaTextSearch(":memory:", unique_name(), embedder=CountingEmbedder())
    for key in ("document_id", "title", "link_fragment", "text"):
        with pytest.raises(InvalidRequestError, match="writes itself"):
            search.add_documents_sync([{"id": "a", "text": "x", "metadata": {key: "b"}}])


def test_without_chromadb_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "chromadb", None)
    with pytest.raises(ImportError, match=r"textsearch-sdk\[chroma\]"):
        ChromaTextSearch(":memory:", "docs")


def test_bad_arguments_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError):
        ChromaTextSearch(42, "docs")
    with pytest.raises(ConfigurationError):
        ChromaTextSearch(":memory:", "")
    with pytest.raises(ConfigurationError):
        ChromaTextSearch(":memory:", "docs", title_field="a.b")
    with pytest.raises(ConfigurationError):
        ChromaTextSearch(":memory:", "docs", timeout=0)
    with pytest.raises(ConfigurationError):
        ChromaTextSearch(":memory:", "docs", embedder=object())  # type: ignore[arg-type]
