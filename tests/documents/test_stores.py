"""read_path into Chroma and PostgreSQL gives the sections and links index_path gives (#30)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors._support import CountingEmbedder, unique_name
from tests.documents._make import make_docx, make_pdf, make_pptx, make_xlsx
from textsearch import LocalTextSearch
from textsearch.documents import read_path

pytest.importorskip("pypdfium2")
pytest.importorskip("docx")
pytest.importorskip("pptx")
pytest.importorskip("openpyxl")

QUERIES = {
    "Gulf Stream warm water": "#page=3",
    "freeze date": "#slide=1",
    "returned goods": "#sheet=Notes%20&%20remarks",
    "Falcons dive": "#birds-of-prey",
    "Lisbon": "#row=2",  # one passage: rows 2 and 3
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ocean.pdf").write_bytes(
        make_pdf(
            [
                ["Cover"],
                ["1 Tides", "The moon pulls the oceans."],
                ["2 Currents", "The Gulf Stream carries warm water north."],
            ],
            outline=[("1 Tides", 1, []), ("2 Currents", 2, [])],
        )
    )
    make_docx(tmp_path / "guide.docx")
    make_pptx(tmp_path / "deck.pptx")
    make_xlsx(tmp_path / "stock.xlsx")
    (tmp_path / "cities.csv").write_text("city,country\nParis,France\nLisbon,Portugal\n")
    return tmp_path


def _local_links(folder: Path) -> dict[str, tuple[str | None, dict[str, Any]]]:
    search = LocalTextSearch()
    search.index_path(folder)
    found = {}
    for query in QUERIES:
        top = search.get_search_results_sync(query, top=1).results[0]
        found[query] = (top.link, top.metadata)
    return found


def _check(found: dict[str, tuple[str | None, dict[str, Any]]], local: dict[str, Any]) -> None:
    for query, fragment in QUERIES.items():
        link, metadata = found[query]
        assert link == local[query][0], query
        assert link is not None and link.endswith(fragment), query
        for key in ("page", "slide", "sheet", "row"):  # the place metadata, the same
            assert metadata.get(key) == local[query][1].get(key), (query, key)


def test_read_path_into_chroma_gives_index_paths_links(folder: Path) -> None:
    pytest.importorskip("chromadb")
    import chromadb

    from textsearch.connectors.vectors import ChromaTextSearch

    local = _local_links(folder)
    # the row of a CSV shows in the local result's metadata too
    assert local["Lisbon"][1] == {"row": 2}
    store = ChromaTextSearch(chromadb.EphemeralClient(), unique_name(), embedder=CountingEmbedder())
    store.add_documents_sync(read_path(folder))
    found = {}
    for query in QUERIES:
        hits = store.get_search_results_sync(query, top=20).results
        # bag-of-words vectors rank loosely: take the hit whose text holds the words
        hit = next(h for h in hits if query.split()[0] in (h.text or ""))
        found[query] = (hit.link, hit.metadata)
    _check(found, local)


def test_read_path_into_postgres_gives_index_paths_links(
    folder: Path, pg_dsn: str, pg_table: str
) -> None:
    from textsearch.connectors import PostgresTextSearch

    local = _local_links(folder)
    with PostgresTextSearch(pg_dsn, table=pg_table) as store:
        store.create_schema_sync()
        store.add_documents_sync(read_path(folder))
        found = {}
        for query in QUERIES:
            top = store.get_search_results_sync(query, top=1).results[0]
            found[query] = (top.link, top.metadata)
    _check(found, local)
    with PostgresTextSearch(pg_dsn, table=pg_table + "_ip") as indexed:
        indexed.create_schema_sync()
        report = indexed.index_path(folder)
        assert report.added == 5 and not report.failed
        by_index = {}
        for query in QUERIES:
            top = indexed.get_search_results_sync(query, top=1).results[0]
            by_index[query] = (top.link, top.metadata)
    _check(by_index, local)


def test_documents_are_json_ready(folder: Path) -> None:
    docs = list(read_path(folder))
    assert json.loads(json.dumps(docs)) == docs


def test_a_long_section_split_again_by_a_store_keeps_its_link(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    import chromadb

    from textsearch.connectors.vectors import ChromaTextSearch

    line = "Each sentence here is a line of a long page about harbour cranes and ships."
    (tmp_path / "long.pdf").write_bytes(make_pdf([["short first page"], [line] * 60]))
    docs = list(read_path(tmp_path))
    assert len(docs[1]["text"]) > 3000  # several passages in one section
    store = ChromaTextSearch(chromadb.EphemeralClient(), unique_name(), embedder=CountingEmbedder())
    store.add_documents_sync(docs)  # chunk=True: the store splits the section again
    hits = store.get_search_results_sync("harbour cranes", top=10).results
    assert len(hits) > 1
    assert {h.link for h in hits if "harbour" in (h.text or "")} == {
        f"{tmp_path / 'long.pdf'}#page=2"
    }
