"""Reading documents back from Chroma, Qdrant and Milvus: whole, by section, listed (#30).

Each test runs on each store in-process. A document is stored as one record per passage;
reading it must give every passage in order (the order is checked on numbered paragraphs,
never on a copied answer), and a preset filter must bound every read, the MCP server's
resources and the ``read_document`` tool included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.connectors.vectors import _support as support
from tests.connectors.vectors._support import DOCS, CountingEmbedder, unique_name
from textsearch import InvalidRequestError, LocalTextSearch, TextSearchFilter
from textsearch.connectors.vectors._reads import ReadableStore
from textsearch.documents import read_path
from textsearch.plugins import _mcp, create_search_function, create_search_plugin

FACTORIES: dict[str, Callable[[Path], Any]] = {
    "chroma": support.chroma_factory,
    "qdrant": support.qdrant_factory,
    "milvus": support.milvus_factory,
}

#: 40 numbered paragraphs of ~230 characters: several passages, whose order shows.
LONG_TEXT = "\n\n".join(
    f"Paragraph {i:02d} of the long manual. " + " ".join(f"filler{i}x{j}" for j in range(20))
    for i in range(40)
)
LONG = {
    "id": "manual",
    "title": "Manual",
    "text": LONG_TEXT,
    "link": "https://docs.example.com/manual",
    "metadata": {"lang": "en", "team": "public"},
}
SECRET = {
    "id": "secret",
    "title": "Secret plan",
    "text": "# Secret plan\n\nThe launch code is WALRUS-7.\n\n## Retry\n\nRetry on WALRUS.",
    "link": "https://docs.example.com/secret",
    "metadata": {"lang": "en", "team": "secret"},
}
PUBLIC = TextSearchFilter().equal_to("team", "public")


def _order(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"Paragraph (\d\d) of", text)]


@pytest.fixture(params=sorted(FACTORIES))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    # small scan batches: every read crosses several of the store's pages
    monkeypatch.setattr(ReadableStore, "scan_batch", 3)
    search = FACTORIES[kind](tmp_path)(unique_name(), embedder=CountingEmbedder())
    search.add_documents_sync([*DOCS, LONG, SECRET])
    return search


def test_a_document_reads_whole_with_its_passages_in_order(store: Any) -> None:
    passages = store.get_search_results_sync("filler7x3 paragraph", top=50).results
    assert len({p.text for p in passages if p.id == "manual"}) > 3  # stored in pieces
    document = store.get_document("manual")
    assert document is not None
    assert _order(document.text) == list(range(40))
    assert (document.id, document.title, document.link) == (
        "manual",
        "Manual",
        "https://docs.example.com/manual",
    )
    assert document.metadata == {"lang": "en", "team": "public"}
    # by its link, and by a passage link of it (its fragment dropped)
    assert store.get_document("https://docs.example.com/manual").text == document.text
    assert store.get_document("https://docs.example.com/manual#L9").text == document.text
    assert store.get_document("nothing") is None
    assert store.get_document("") is None
    assert store.get_document("a\x00b") is None


def test_a_document_split_under_headings_reads_whole_and_by_section(store: Any) -> None:
    document = store.get_document("retry")
    assert document is not None
    assert "Retry failed calls." in document.text and "Exponential backoff" in document.text
    assert document.text.index("Retry failed") < document.text.index("Exponential")
    section = store.get_section("https://docs.example.com/retry#backoff")
    assert section is not None
    assert section.text == "Exponential backoff with jitter between attempts."
    assert section.link == "https://docs.example.com/retry#backoff"
    assert store.get_section("https://docs.example.com/retry#gone") is None
    assert store.get_section("https://docs.example.com/retry") is None  # no fragment


def test_a_filter_bounds_every_read(store: Any) -> None:
    assert store.get_document("manual", filter=PUBLIC) is not None
    for key in ("secret", "https://docs.example.com/secret", "pasta"):
        assert store.get_document(key, filter=PUBLIC) is None, key
    assert store.get_section("https://docs.example.com/secret#retry") is not None
    assert store.get_section("https://docs.example.com/secret#retry", filter=PUBLIC) is None
    assert [d.id for d in store.list_documents(filter=PUBLIC)] == ["manual"]


def test_listing_pages_by_id_without_texts(store: Any) -> None:
    everything = store.list_documents()
    assert [d.id for d in everything] == sorted(["retry", "cache", "pasta", "manual", "secret"])
    assert all(d.text == "" for d in everything)
    retry = next(d for d in everything if d.id == "retry")
    assert retry.link == "https://docs.example.com/retry"  # the document's, not a passage's
    assert retry.title == "Retry policy" and retry.metadata["lang"] == "en"
    pages, after = [], None
    while True:
        page = store.list_documents(after=after, limit=2)
        if not page:
            break
        pages.append([d.id for d in page])
        after = page[-1].id
    assert pages == [["cache", "manual"], ["pasta", "retry"], ["secret"]]
    italian = TextSearchFilter().equal_to("lang", "it")
    assert [d.id for d in store.list_documents(filter=italian)] == ["pasta"]
    for limit in (0, 1001, True):
        with pytest.raises(InvalidRequestError):
            store.list_documents(limit=limit)


@pytest.mark.anyio
async def test_mcp_reads_a_documents_own_uri_whole_under_a_preset(store: Any) -> None:
    function = create_search_function(store, kind="text_search_results", filter=PUBLIC)
    plugin = create_search_plugin(store, functions=[function])
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        listed = (await client.list_resources()).resources
        assert sorted(r.name for r in listed) == ["Manual"]
        whole = (await client.read_resource(str(listed[0].uri))).contents[0]
        assert _order(str(getattr(whole, "text", ""))) == list(range(40))
        by_link = await client.read_resource(_mcp.document_uri("https://docs.example.com/manual"))
        assert _order(str(getattr(by_link.contents[0], "text", ""))) == list(range(40))
        for hidden in ("secret", "https://docs.example.com/secret", "cache"):
            with pytest.raises(MCPError, match="No document"):
                await client.read_resource(_mcp.document_uri(hidden))


def test_the_read_document_tool_reads_whole_and_never_past_the_preset(store: Any) -> None:
    plugin = create_search_plugin(store, filter=PUBLIC, read_tools=True)
    assert [f.name for f in plugin] == ["search", "read_document"]
    answer = json.loads(
        plugin.invoke_sync("read_document", {"link": "https://docs.example.com/manual"})
    )
    assert _order(answer["text"]) == list(range(40))[: len(_order(answer["text"]))]
    assert answer["total_chars"] == len(store.get_document("manual").text)
    for link in ("https://docs.example.com/secret", "secret", "https://docs.example.com/cache"):
        text = plugin.invoke_sync("read_document", {"link": link})
        assert "WALRUS" not in text and "can be read here" in text


@pytest.mark.anyio
async def test_a_file_loaded_by_read_path_reads_whole_by_its_path(
    kind: str, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    body = "\n\n".join(f"## Step {i}\n\nDo thing number {i} carefully." for i in range(6))
    (folder / "guide.md").write_text(f"# Guide\n\nOverview first.\n\n{body}\n", encoding="utf-8")
    (folder / "other.md").write_text("# Other\n\nSomething else.\n", encoding="utf-8")
    search = FACTORIES[kind](tmp_path)(unique_name(), embedder=CountingEmbedder())
    search.add_documents_sync(read_path(folder))
    local = LocalTextSearch()
    local.index_path(folder)
    plugin = create_search_plugin(search)
    async with Client(plugin.create_mcp_server(), cache=None) as client:
        read = await client.read_resource(_mcp.document_uri("guide.md"))
        text = str(getattr(read.contents[0], "text", ""))
    positions = [text.index(f"Do thing number {i} ") for i in range(6)]
    assert text.startswith("Overview first.") and positions == sorted(positions)
    assert "Something else" not in text
    whole = local.get_document(str(folder / "guide.md"))
    assert whole is not None
    for i in range(6):  # the same words as the local index's whole document
        assert f"Do thing number {i} carefully." in whole.text
