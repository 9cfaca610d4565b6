"""The passages' shape index (`_schema.SHAPE_INDEX`): hybrid and semantic search group
their ranked passages by reading it; a file made before it gets it once, and a file that
cannot be written is read without it, with the same results."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.connectors.vectors._support import CountingEmbedder
from textsearch import LocalTextSearch
from textsearch.connectors.local._schema import SHAPE_INDEX, _add_shape_index, has_shape_index

DOCS = [
    {
        "id": f"d{i}",
        "text": "\n\n".join(
            f"## Part {j}\n\nwater pumps and valves, note {i}-{j}, filter cleaning"
            for j in range(6)
        ),
        "title": f"manual {i}",
    }
    for i in range(60)
]


def _pages(search: LocalTextSearch) -> list[list[tuple[str, str | None]]]:
    pages = []
    for query in ("water pumps", "valves filter", "note 7-3", "cleaning"):
        for skip in (0, 5, 40):
            found = search.get_search_results_sync(query, top=5, skip=skip)
            pages.append([(d.id, d.link) for d in found.results])
    return pages


def _drop_index(path: Path) -> None:
    con = sqlite3.connect(path)
    with con:
        con.execute(f"DROP INDEX {SHAPE_INDEX}")
    con.close()


def test_results_are_the_same_with_and_without_the_shape_index(tmp_path: Path) -> None:
    path = tmp_path / "kb.sqlite3"
    with LocalTextSearch(path, embedder=CountingEmbedder(), mode="hybrid") as search:
        search.add_documents(DOCS, chunk=True)
        assert search._shape_index
        with_index = _pages(search)
        search.mode = "semantic"
        semantic_with = _pages(search)
    assert all(page for page in with_index)  # every page found something to group
    _drop_index(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA query_only = 1")  # as a file this process cannot write
    _add_shape_index(con, str(path))  # no error, and no index
    assert not has_shape_index(con)
    con.close()
    # opened by a process that can write: the index is added once, the pages are the same
    with LocalTextSearch(path, embedder=CountingEmbedder(), mode="hybrid") as again:
        assert again._shape_index
        assert _pages(again) == with_index
    # shapes read from the passage rows (as for a file that could not be given the
    # index): the same pages too
    without = LocalTextSearch(path, embedder=CountingEmbedder(), mode="hybrid")
    without._shape_index = False
    try:
        assert _pages(without) == with_index
        without.mode = "semantic"
        assert _pages(without) == semantic_with
    finally:
        without.close()
