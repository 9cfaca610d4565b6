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


def _book(tmp_path: Path) -> Path:
    """A PDF of five pages without an outline, and a DOCX whose sections come before it."""
    names = ["Lisbon", "Porto", "Cadiz", "Vigo", "Bilbao"]
    # lines unlike each other, so that none is taken for a running header
    pages = [
        [f"{name} harbour, page {n}.", f"{' '.join(names[: n + 1])} ships."]
        for n, name in enumerate(names)
    ]
    (tmp_path / "book.pdf").write_bytes(make_pdf(pages))
    make_docx(tmp_path / "guide.docx")
    return tmp_path


def test_read_path_numbers_each_files_sections_in_order(tmp_path: Path) -> None:
    docs = list(read_path(_book(tmp_path)))
    for path in ("book.pdf", "guide.docx"):
        mine = [d["metadata"] for d in docs if d["metadata"]["path"] == path]
        assert [m["section_index"] for m in mine] == list(range(len(mine))) and len(mine) > 2
    assert [d["metadata"].get("page") for d in docs if d["metadata"]["path"] == "book.pdf"] == [
        1,
        2,
        3,
        4,
        5,
    ]


def test_chroma_records_keep_the_section_order(tmp_path: Path) -> None:
    pytest.importorskip("chromadb")
    import chromadb

    from textsearch.connectors.vectors import ChromaTextSearch

    folder = _book(tmp_path)
    client = chromadb.EphemeralClient()
    name = unique_name()
    store = ChromaTextSearch(client, name, embedder=CountingEmbedder())
    docs = list(read_path(folder))
    store.add_documents_sync(reversed(docs))  # stored out of order
    got = client.get_collection(name).get(include=["metadatas", "documents"])
    rows = [
        (m["section_index"], t)
        for m, t in zip(got["metadatas"] or [], got["documents"] or [], strict=True)
        if m.get("path") == "book.pdf"
    ]
    local = LocalTextSearch()
    local.index_path(folder)
    whole = local.get_document(str(folder / "book.pdf"))
    assert whole is not None
    assert "\n\n".join(t for _, t in sorted(rows)) == whole.text


def test_own_uri_of_a_file_read_into_postgres_is_the_whole_file(
    tmp_path: Path, pg_dsn: str, pg_table: str
) -> None:
    from textsearch import TextSearchFilter
    from textsearch.connectors import PostgresTextSearch
    from textsearch.plugins._stores import GuardedStore, document_uri, read_document

    folder = _book(tmp_path)
    local = LocalTextSearch()
    local.index_path(folder)
    with PostgresTextSearch(pg_dsn, table=pg_table) as store:
        store.create_schema_sync()
        store.add_documents_sync(reversed(list(read_path(folder))))  # stored out of order
        for path in ("book.pdf", "guide.docx"):
            expected = local.get_document(str(folder / path))
            assert expected is not None
            document, _, _ = read_document([GuardedStore(store, [None])], document_uri(path))
            # every section in order, as the local index gives the file
            assert document.text == expected.text, path
            assert document.link == str(folder / path) and document.id == path
        # a section's own id is still that section alone
        section, _, _ = read_document(
            [GuardedStore(store, [None])], document_uri("book.pdf#page=2")
        )
        assert section.text.startswith("Porto harbour") and "Cadiz harbour" not in section.text
        # a preset filter still holds: the hidden page is not in the whole file
        hidden = GuardedStore(store, [TextSearchFilter().not_equal_to("page", 2)])
        document, _, _ = read_document([hidden], document_uri("book.pdf"))
        assert "Lisbon harbour" in document.text and "Porto harbour" not in document.text
        assert "Bilbao harbour" in document.text


def _two_sections_on_a_page(tmp_path: Path) -> Path:
    (tmp_path / "atlas.pdf").write_bytes(
        make_pdf(
            [
                ["Cover"],
                [
                    "1 Rivers",
                    "The Tagus reaches the sea at Lisbon.",
                    "2 Mountains",
                    "The Pyrenees divide Spain from France.",
                ],  # fmt: skip
                ["3 Coasts", "The Algarve faces south."],
            ],
            outline=[("1 Rivers", 1, []), ("2 Mountains", 1, []), ("3 Coasts", 2, [])],
        )
    )
    return tmp_path


def test_a_page_link_reads_the_whole_page_in_every_store(
    tmp_path: Path, pg_dsn: str, pg_table: str
) -> None:
    # Two sections start on page 2: its link reads both (a model asking for the page gets
    # the page), in the local index, PostgreSQL and Chroma alike; a heading's run does not
    # reach the next page.
    pytest.importorskip("chromadb")
    import chromadb

    from textsearch.connectors import PostgresTextSearch
    from textsearch.connectors.vectors import ChromaTextSearch

    folder = _two_sections_on_a_page(tmp_path)
    link = f"{folder / 'atlas.pdf'}#page=2"
    # one document per page: two sections sharing a page shared an id, and a store kept the
    # last (37% of nettle's manual was lost on the way into Chroma)
    ids = [document["id"] for document in read_path(folder)]
    assert ids == ["atlas.pdf#page=1", "atlas.pdf#page=2", "atlas.pdf#page=3"]
    local = LocalTextSearch()
    local.index_path(folder)
    chroma = ChromaTextSearch(
        chromadb.EphemeralClient(), unique_name(), embedder=CountingEmbedder()
    )
    chroma.add_documents_sync(read_path(folder))
    with PostgresTextSearch(pg_dsn, table=pg_table) as postgres:
        postgres.create_schema_sync()
        postgres.add_documents_sync(read_path(folder))
        pages = [store.get_section(link) for store in (local, postgres, chroma)]
    for page in pages:
        assert page is not None
        assert "Tagus" in page.text and "Pyrenees" in page.text and "Algarve" not in page.text
    assert len({page.text for page in pages if page is not None}) == 1
