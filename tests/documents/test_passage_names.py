"""A passage keeps the name of the heading it is under in every store fed by read_path (#30).

`read_path` makes one document of a PDF page, whichever headings it holds, named by the
first. Split again by a vector store or PostgreSQL, every passage of the page was named by
that first heading (the Pyrenees under "1 Rivers"), where the local index names each by its
own. The document now says where each heading starts (``metadata["section_lines"]``), and
every store splits and names the page's sections as the local index does; links stay the
page's link.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors import _support as support
from tests.connectors.vectors._support import CountingEmbedder, unique_name
from tests.documents._make import make_pdf
from textsearch import LocalTextSearch
from textsearch.documents import read_path

pytest.importorskip("pypdfium2")

#: a word of each passage -> the heading it is under (None: the top of the file, no heading)
EXPECTED: dict[str, str | None] = {
    "peninsula": None,
    "Tagus": "1 Rivers",
    "Pyrenees": "2 Mountains",
    "Ebro": "2 Mountains",
    "Algarve": "3 Coasts",
}
PAGE = {"peninsula": 1, "Tagus": 1, "Pyrenees": 1, "Ebro": 2, "Algarve": 2}


def _atlas(folder: Path) -> Path:
    # page 1: text with no heading, then two sections; page 2: the second goes on, a third
    (folder / "atlas.pdf").write_bytes(
        make_pdf(
            [
                [
                    "An atlas of the Iberian peninsula, its land and water.",
                    "1 Rivers",
                    "The Tagus reaches the sea at Lisbon.",
                    "2 Mountains",
                    "The Pyrenees divide Spain from France.",
                ],
                ["The Ebro valley lies south of them.", "3 Coasts", "The Algarve faces south."],
            ],
            outline=[("1 Rivers", 0, []), ("2 Mountains", 0, []), ("3 Coasts", 1, [])],
            title="Atlas",
        )
    )
    return folder


def test_read_path_says_where_each_heading_of_a_page_starts(tmp_path: Path) -> None:
    first, second = list(read_path(_atlas(tmp_path)))
    assert first["id"] == "atlas.pdf#page=1" and "section" not in first["metadata"]
    assert first["metadata"]["sections"] == ["1 Rivers", "2 Mountains"]
    lines = first["text"].split("\n")
    starts = [int(n) for n in first["metadata"]["section_lines"]]
    assert [lines[n - 1].split()[1] for n in starts] == ["Tagus", "Pyrenees"]
    assert second["metadata"]["section"] == "2 Mountains"
    assert second["metadata"]["sections"] == ["2 Mountains", "3 Coasts"]


def _names(hits: list[Any], section: Any) -> dict[str, str | None]:
    """word -> the section of the passage holding it (every word must be in one passage)."""
    found: dict[str, str | None] = {}
    for hit in hits:
        for word in EXPECTED:
            if word in (hit.text or ""):
                assert word not in found, f"{word!r} in two passages"
                found[word] = section(hit)
    return found


def _local(search: LocalTextSearch) -> tuple[dict[str, str | None], set[str]]:
    hits = [search.get_search_results_sync(word, top=1).results[0] for word in EXPECTED]
    for hit in hits:
        name = search.to_text_search_result(hit).name
        assert name == (f"Atlas › {hit.section}" if hit.section else "Atlas")
    return _names(hits, lambda hit: hit.section), {hit.link for hit in hits}


def test_the_local_index_names_each_passage_by_its_own_heading(tmp_path: Path) -> None:
    folder = _atlas(tmp_path)
    indexed = LocalTextSearch()
    indexed.index_path(folder)
    assert _local(indexed)[0] == EXPECTED  # the reference: index_path
    added = LocalTextSearch()
    added.add_documents(read_path(folder), chunk=True)
    names, links = _local(added)
    assert names == EXPECTED
    assert links == {f"{folder / 'atlas.pdf'}#page={n}" for n in (1, 2)}


@pytest.mark.parametrize("kind", ["chroma", "qdrant", "milvus"])
def test_a_vector_store_names_each_passage_by_its_own_heading(kind: str, tmp_path: Path) -> None:
    pytest.importorskip({"chroma": "chromadb", "qdrant": "qdrant_client"}.get(kind, "pymilvus"))
    factory = getattr(support, f"{kind}_factory")
    folder = _atlas(tmp_path)
    store = factory(tmp_path)(unique_name(), embedder=CountingEmbedder())
    store.add_documents_sync(read_path(folder))
    hits = store.get_search_results_sync("the sea", top=50).results  # all passages
    assert _names(hits, lambda hit: hit.metadata.get("section")) == EXPECTED
    for hit in hits:  # the link is the page's, whichever heading names the passage
        word = next(w for w in EXPECTED if w in (hit.text or ""))
        assert hit.link == f"{folder / 'atlas.pdf'}#page={PAGE[word]}"
        assert hit.metadata["page"] == PAGE[word]


def test_postgres_names_each_passage_by_its_own_heading(
    tmp_path: Path, pg_dsn: str, pg_table: str
) -> None:
    from textsearch.connectors import PostgresTextSearch

    folder = _atlas(tmp_path)
    with PostgresTextSearch(pg_dsn, table=pg_table) as store:
        store.create_schema_sync()
        store.add_documents_sync(read_path(folder), chunk=True)  # split as the local index
        hits = [store.get_search_results_sync(word, top=1).results[0] for word in EXPECTED]
        assert _names(hits, lambda hit: hit.section) == EXPECTED
        for word, hit in zip(EXPECTED, hits, strict=True):
            name = store.to_text_search_result(hit).name
            assert name == (f"Atlas › {EXPECTED[word]}" if EXPECTED[word] else "Atlas")
            assert hit.metadata.get("section") == EXPECTED[word]
            assert hit.link == f"{folder / 'atlas.pdf'}#page={PAGE[word]}"
