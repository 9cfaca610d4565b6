"""Listing a vector collection's documents a page at a time, against a plain-Python oracle (#30).

A collection of a few thousand passage records across a few hundred documents is paged
through, on each store in-process (Chroma in memory and in a folder, Qdrant local mode,
Milvus Lite), at several page sizes and under filters; the pages must be exactly the
documents' ids in order, each with its own title, link and metadata. A page must cost what
a page needs: the records' fields are read for the page's documents only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors import _support as support
from tests.connectors.vectors._support import CountingEmbedder, unique_name
from textsearch import TextSearchFilter
from textsearch.connectors.vectors import chroma
from textsearch.connectors.vectors._reads import ReadableStore


def _chroma_in_a_folder(tmp_path: Path) -> Callable[..., Any]:
    import chromadb

    client = chromadb.PersistentClient(str(tmp_path / "chroma"))

    def make(collection: str, **kwargs: Any) -> Any:
        return chroma.ChromaTextSearch(client, collection, **kwargs)

    return make


FACTORIES: dict[str, Callable[[Path], Any]] = {
    "chroma": support.chroma_factory,
    "chroma-folder": _chroma_in_a_folder,
    "qdrant": support.qdrant_factory,
    "milvus": support.milvus_factory,
}
TEAMS = ("red", "blue", "green")


def _doc_id(i: int) -> str:
    # ids whose order as text is not their number's, ids holding "#", accents, prefixes
    return ("doc", "guide#", "étude-", "d")[i % 4] + str(i * 7919 % 1000)


def _documents(count: int) -> list[dict[str, Any]]:
    docs = []
    for i in range(count):
        sections = "\n\n".join(
            f"## Part {n}\n\nSection {n} of document {i}: "
            + " ".join(f"w{i}x{n}y{k}" for k in range(8))
            for n in range(1 + i % 13)
        )
        docs.append(
            {
                "id": _doc_id(i),
                "title": f"Title {i}",
                "text": f"# Title {i}\n\nOpening words of {i}.\n\n{sections}",
                "link": f"https://docs.example.com/p{i}",
                "metadata": {"team": TEAMS[i % 3], "rank": i % 5},
            }
        )
    return docs


DOCUMENTS = _documents(300)


def _oracle(admits: Callable[[dict[str, Any]], bool]) -> list[tuple[Any, ...]]:
    return sorted((d["id"], d["title"], d["link"], d["metadata"]) for d in DOCUMENTS if admits(d))


def _listed(page: list[Any]) -> list[tuple[Any, ...]]:
    assert all(d.text == "" for d in page)
    return [(d.id, d.title, d.link, d.metadata) for d in page]


def _all_pages(store: Any, limit: int, **kwargs: Any) -> list[list[tuple[Any, ...]]]:
    pages, after = [], None
    while page := store.list_documents(after=after, limit=limit, **kwargs):
        assert len(page) <= limit
        pages.append(_listed(page))
        after = page[-1].id
    return pages


@pytest.fixture(scope="module", params=sorted(FACTORIES))
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    factory = FACTORIES[str(request.param)]
    patch = pytest.MonkeyPatch()
    # small batches: every scan crosses several of the store's pages
    patch.setattr(ReadableStore, "scan_batch", 250)
    patch.setattr(ReadableStore, "key_batch", 400)
    search = factory(tmp_path_factory.mktemp("store"))(unique_name(), embedder=CountingEmbedder())
    search.add_documents_sync(DOCUMENTS)
    yield search
    patch.undo()


def test_the_collection_holds_thousands_of_records(store: Any) -> None:
    found = store.get_search_results_sync("section", top=1, include_total_count=True)
    assert found.total_count > 2000  # every passage record: the test's scans are not small
    whole = store.get_document(_doc_id(12))
    assert whole is not None and whole.text.count("Section ") == 13


@pytest.mark.parametrize("limit", [1, 23, 64, 1000])
def test_pages_are_the_documents_in_order_of_id(store: Any, limit: int) -> None:
    expected = _oracle(lambda d: True)
    if limit == 1:  # one page at a time through the first few, and from a key between ids
        assert _listed(store.list_documents(limit=1)) == expected[:1]
        middle = expected[100][0] + "\x01"
        assert _listed(store.list_documents(after=middle, limit=3)) == expected[101:104]
        assert _listed(store.list_documents(after=expected[-1][0], limit=1)) == []
        return
    pages = _all_pages(store, limit)
    assert [row for page in pages for row in page] == expected
    assert all(len(page) == limit for page in pages[:-1])


@pytest.mark.parametrize(
    ("flt", "admits"),
    [
        (TextSearchFilter().equal_to("team", "red"), lambda d: d["metadata"]["team"] == "red"),
        (
            TextSearchFilter().any_of("rank", [1, 3]).not_equal_to("team", "blue"),
            lambda d: d["metadata"]["rank"] in (1, 3) and d["metadata"]["team"] != "blue",
        ),
        (
            TextSearchFilter().any_of("id", [_doc_id(5), _doc_id(6), "missing"]),
            lambda d: d["id"] in (_doc_id(5), _doc_id(6)),
        ),
    ],
)
def test_a_filter_governs_every_page(store: Any, flt: TextSearchFilter, admits: Any) -> None:
    expected = _oracle(admits)
    assert expected
    for limit in (9, 1000):
        pages = _all_pages(store, limit, filter=flt)
        assert [row for page in pages for row in page] == expected


def test_a_page_reads_the_fields_of_its_own_documents_only(
    store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[int] = []
    results = store._results

    def counted(*args: Any) -> Any:
        found = results(*args)
        made.append(len(found))
        return found

    monkeypatch.setattr(store, "_results", counted)
    page = store.list_documents(limit=10)
    assert len(page) == 10
    assert sum(made) == 10  # the first record of each of the page's documents, no more


def test_chroma_records_named_otherwise_are_listed_by_their_document_id() -> None:
    # Chroma's key scan reads record ids only and takes "<x>#<n>" for a passage of x; a
    # collection written by another tool may name records otherwise (ids of its own, or
    # "<x>#<n>" with no document id field): each is listed under its own document id.
    search = support.chroma_factory(Path("."))(unique_name(), embedder=CountingEmbedder())
    search.add_documents_sync(DOCUMENTS[:12])
    collection = search._call(lambda client: search._collection(client))
    collection.add(
        ids=["3f1c-loose", "file.md#0", "7a2e-more", "zz#0"],
        embeddings=support.bag_of_words(["a", "b", "c", "d"]),
        documents=["loose", "no id field", "one more passage of a document", "zz"],
        metadatas=[
            {"document_id": "aaa", "title": "Loose"},
            {"title": "File"},
            {"document_id": _doc_id(1), "title": "Stray"},
            {"document_id": "zz", "title": "Zz"},
        ],
    )
    expected = sorted([d["id"] for d in DOCUMENTS[:12]] + ["aaa", "file.md#0", "zz"])
    for limit in (1, 2, 5, 1000):
        pages: list[str] = []
        after = None
        while page := search.list_documents(after=after, limit=limit):
            pages.extend(d.id for d in page)
            after = page[-1].id
        assert pages == expected, limit
    listed = {d.id: d for d in search.list_documents(limit=1000)}
    assert listed[_doc_id(1)].title == "Title 1"  # its own first record, not the stray one
    assert listed["file.md#0"].title == "File"
