"""PostgresTextSearch passages: chunk=True, index_path, one_per_document, get_document, upgrade."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest

from textsearch import (
    ConfigurationError,
    LocalTextSearch,
    NotFoundError,
    PostgresTextSearch,
    SearchOptions,
    TextSearchFilter,
    UnsupportedFilterError,
)

GUIDE = """# Operations guide

Intro text about the service and its owners.

## Retry policy

The client retries failed requests with exponential backoff and jitter.

## Timeouts

Every call has a total deadline measured in seconds.
"""


def passage_rows(dsn: str, table: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            f'SELECT id, passage, section FROM "{table}" ORDER BY id, passage'
        ).fetchall()


@pytest.fixture
def search(pg_dsn: str, pg_table: str) -> Any:
    with PostgresTextSearch(pg_dsn, table=pg_table) as instance:
        instance.create_schema_sync()
        yield instance


def test_chunk_stores_one_row_per_passage_named_and_linked_like_the_local_index(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    doc = {"id": "guide", "title": "Operations guide", "text": GUIDE, "link": "https://x.org/ops"}
    search.add_documents_sync([doc], chunk=True)
    rows = passage_rows(pg_dsn, pg_table)
    assert [(r[0], r[1]) for r in rows] == [("guide", 0), ("guide", 1), ("guide", 2)]
    assert [r[2] for r in rows] == [None, "Retry policy", "Timeouts"]

    top = search.get_search_results_sync("exponential backoff")[0]
    assert (top.id, top.section, top.passage) == ("guide", "Retry policy", 1)
    assert "jitter" in top.text and "deadline" not in top.text
    assert top.link == "https://x.org/ops#retry-policy"
    normal = search.get_text_search_results_sync("exponential backoff")[0]
    assert normal.name == "Operations guide › Retry policy"
    assert normal.link == "https://x.org/ops#retry-policy"

    # The same names and links as LocalTextSearch gives the same document.
    local = LocalTextSearch()
    local.add_documents([doc], chunk=True)
    local_top = local.get_text_search_results_sync("exponential backoff")[0]
    assert (local_top.name, local_top.link) == (normal.name, normal.link)
    assert search.count_documents_sync() == 1


def test_section_heading_is_searched_as_a_title(search: PostgresTextSearch) -> None:
    search.add_documents_sync(
        [
            {
                "id": "a",
                "title": "Guide",
                "text": "# Guide\n\nx\n\n## Walrus care\n\nFeed fish daily.",
            },
            {"id": "b", "title": "Notes", "text": "A walrus was seen once, far away, by a diver."},
        ],
        chunk=True,
    )
    top = search.get_search_results_sync("walrus")[0]
    assert (top.id, top.section) == ("a", "Walrus care")


def test_without_chunk_a_document_is_one_passage(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    search.add_documents_sync([{"id": "guide", "title": "Operations guide", "text": GUIDE}])
    assert [(r[0], r[1]) for r in passage_rows(pg_dsn, pg_table)] == [("guide", 0)]
    top = search.get_search_results_sync("backoff")[0]
    assert top.section is None and "deadline" in top.text


def test_replacing_a_document_replaces_all_its_passages(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    search.add_documents_sync([{"id": "guide", "text": GUIDE}], chunk=True)
    assert len(passage_rows(pg_dsn, pg_table)) == 3
    search.add_documents_sync([{"id": "guide", "text": "Now only about penguins."}], chunk=True)
    assert [(r[0], r[1]) for r in passage_rows(pg_dsn, pg_table)] == [("guide", 0)]
    assert search.get_search_results_sync("backoff").results == []
    # Deleting counts documents, not passages.
    search.add_documents_sync([{"id": "other", "text": GUIDE}], chunk=True)
    assert search.delete_documents_sync(["other", "guide", "nope"]) == 2
    assert passage_rows(pg_dsn, pg_table) == []


@pytest.mark.anyio
async def test_async_chunked_writes_and_deletes(search: PostgresTextSearch) -> None:
    assert await search.add_documents([{"id": "g", "title": "G", "text": GUIDE}], chunk=True) == 1
    top = (await search.get_search_results("deadline seconds"))[0]
    assert top.section == "Timeouts"
    assert await search.count_documents() == 1
    assert await search.delete_documents(["g"]) == 1


def test_one_per_document_collapses_to_the_best_passage(pg_dsn: str, pg_table: str) -> None:
    docs = [
        {"id": "a", "title": "A", "text": "## One\n\nwalrus walrus tusks\n\n## Two\n\nwalrus"},
        {"id": "b", "title": "B", "text": "## Three\n\nwalrus\n\n## Four\n\nnothing here"},
    ]
    with PostgresTextSearch(pg_dsn, table=pg_table) as every:
        every.create_schema_sync()
        every.add_documents_sync(docs, chunk=True)
        assert len(every.get_search_results_sync("walrus tusks").results) == 3
        assert every.get_search_results_sync("walrus", include_total_count=True).total_count == 3
    with PostgresTextSearch(pg_dsn, table=pg_table, one_per_document=True) as best:
        found = best.get_search_results_sync("walrus tusks", include_total_count=True)
        assert [(d.id, d.section) for d in found] == [("a", "One"), ("b", "Three")]
        assert found.total_count == 2
        assert [d.id for d in best.get_search_results_sync("walrus", top=1, skip=1)] == ["b"]


@pytest.mark.parametrize("cap", [1000, 4])
def test_one_per_document_pages_across_both_tiers(pg_dsn: str, pg_table: str, cap: int) -> None:
    # "a" has a whole-query passage and the best partial one: each tier keeps only its best
    # top + skip documents, and a's partial passage must not take the place of another
    # document on a later page. With a cap of 4, the tiers rank 4 candidates each.
    docs = [
        {"id": "a", "text": "## One\n\nokapi zebra\n\n## Two\n\nokapi okapi okapi okapi okapi"},
        {"id": "b", "text": "okapi zebra zebra"},
        {"id": "c", "text": "okapi okapi okapi"},
        {"id": "d", "text": "zebra zebra"},
        {"id": "e", "text": "okapi and more"},
    ]
    with PostgresTextSearch(pg_dsn, table=pg_table) as writer:
        writer.create_schema_sync()
        writer.add_documents_sync(docs, chunk=True)
    with PostgresTextSearch(
        pg_dsn, table=pg_table, one_per_document=True, max_candidates=cap
    ) as best:
        everything = [d.id for d in best.get_search_results_sync("okapi zebra", top=10)]
        pages = [
            [d.id for d in best.get_search_results_sync("okapi zebra", top=2, skip=skip)]
            for skip in (0, 2, 4)
        ]
    assert sorted(everything[:2]) == ["a", "b"] and sorted(everything[2:]) == ["c", "d", "e"]
    assert pages[0] + pages[1] + pages[2] == everything


def test_get_document_returns_the_whole_document_by_id_or_link(search: PostgresTextSearch) -> None:
    search.add_documents_sync(
        [
            {
                "id": "guide",
                "title": "Ops",
                "text": GUIDE,
                "link": "https://x.org/ops",
                "metadata": {"team": "sdk"},
            }
        ],
        chunk=True,
    )
    whole = search.get_document("guide")
    assert whole is not None and whole.title == "Ops" and whole.metadata == {"team": "sdk"}
    assert "owners" in whole.text and "jitter" in whole.text and "deadline" in whole.text
    assert whole.text.index("owners") < whole.text.index("jitter") < whole.text.index("deadline")
    assert search.get_document("https://x.org/ops#retry-policy") == whole
    assert search.get_document("https://x.org/ops") == whole
    assert search.get_document("missing") is None
    assert search.get_document("") is None


def test_get_document_of_an_existing_table(pg_dsn: str, pg_table: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "{pg_table}" (n int PRIMARY KEY, head text, body text)')
        conn.execute(f"INSERT INTO \"{pg_table}\" VALUES (7, 'Walrus', 'Tusks and ice.')")
    with PostgresTextSearch.from_table(
        pg_dsn, table=pg_table, id_column="n", name_column="head", value_column="body"
    ) as search:
        found = search.get_document("7")
        assert found is not None and (found.id, found.title, found.text) == (
            "7",
            "Walrus",
            "Tusks and ice.",
        )
        assert search.get_document("8") is None


def test_get_document_applies_a_filter(search: PostgresTextSearch) -> None:
    # How the MCP server keeps a preset filter on resource reads: a document the filter does
    # not admit is not there, whichever key names it.
    search.add_documents_sync(
        [
            {
                "id": "guide",
                "title": "Ops",
                "text": GUIDE,
                "link": "https://x.org/ops",
                "metadata": {"public": True},
            },
            {
                "id": "pay",
                "title": "Payroll",
                "text": "Salaries.",
                "link": "https://x.org/pay",
                "metadata": {"public": 1},
            },
        ],
        chunk=True,
    )
    public = TextSearchFilter().equal_to("public", True)
    assert search.get_document("pay", filter=public) is None
    assert search.get_document("https://x.org/pay", filter=public) is None
    guide = search.get_document("https://x.org/ops#retry-policy", filter=public)
    assert guide is not None and guide.id == "guide"
    assert search.get_document("pay") is not None
    with pytest.raises(UnsupportedFilterError):
        search.get_document("pay", filter=TextSearchFilter().equal_to("bad key!", 1))


def test_get_document_of_an_existing_table_applies_a_filter(pg_dsn: str, pg_table: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "{pg_table}" (n int PRIMARY KEY, head text, body text)')
        conn.execute(
            f"INSERT INTO \"{pg_table}\" VALUES (7, 'Walrus', 'Tusks.'), (8, 'Seal', 'Fish.')"
        )
    with PostgresTextSearch.from_table(
        pg_dsn, table=pg_table, id_column="n", name_column="head", value_column="body"
    ) as search:
        only_seven = TextSearchFilter().equal_to("id", "7")
        assert search.get_document("8", filter=only_seven) is None
        found = search.get_document("7", filter=only_seven)
        assert found is not None and found.title == "Walrus"


def test_index_path_stores_passages_and_reindexes_whole_files(
    search: PostgresTextSearch, tmp_path: Path, pg_dsn: str, pg_table: str
) -> None:
    (tmp_path / "ops.md").write_text(GUIDE)
    (tmp_path / "notes.txt").write_text(
        "First paragraph about seals.\n\n" + "filler " * 300 + "\n\nLast paragraph about walruses."
    )
    report = search.index_path(tmp_path)
    assert report.added == 2
    ops = str(tmp_path / "ops.md")
    top = search.get_text_search_results_sync("exponential backoff")[0]
    assert (top.name, top.link) == ("Operations guide › Retry policy", ops + "#retry-policy")
    walrus = search.get_search_results_sync("walruses")[0]
    assert walrus.link is not None and walrus.link.startswith(str(tmp_path / "notes.txt") + "#L")
    whole = search.get_document(ops)
    assert whole is not None and "jitter" in whole.text and "deadline" in whole.text

    (tmp_path / "ops.md").write_text("# Operations guide\n\nOnly one short section now.")
    again = search.index_path(tmp_path)
    assert (again.updated, again.unchanged) == (1, 1)
    assert [r[1] for r in passage_rows(pg_dsn, pg_table) if r[0] == ops] == [0]
    assert search.get_search_results_sync("backoff").results == []
    assert search.count_documents_sync() == 2


def test_index_path_reads_bare_references_as_local_does(
    search: PostgresTextSearch, tmp_path: Path
) -> None:
    (tmp_path / "usage.rst").write_text(".. _install:\n\nInstalling it\n=============\n\nRun it.\n")
    (tmp_path / "index.rst").write_text(
        "Welcome\n=======\n\nWalruses first read :ref:`install`, then :doc:`usage`.\n"
    )
    search.index_path(tmp_path)
    local = LocalTextSearch()
    local.index_path(tmp_path)
    ours = search.get_search_results_sync("walruses")[0].text
    assert "Walruses first read Installing it, then Installing it." in ours
    assert ours == local.get_search_results_sync("walruses")[0].text


# -- a table made by the first version (one row per document) ------------------------------

_OLD_DDL = """
CREATE TABLE "{t}" (
  id text PRIMARY KEY, title text, text text NOT NULL DEFAULT '', link text, site text,
  metadata jsonb NOT NULL DEFAULT '{{}}'::jsonb, source_root text, mtime_ns bigint,
  size bigint, sha256 text,
  search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') ||
    setweight(to_tsvector('english'::regconfig, left(text, 500000)), 'B')) STORED);
CREATE INDEX "{t}_search_idx" ON "{t}" USING gin (search_vector);
CREATE INDEX "{t}_metadata_idx" ON "{t}" USING gin (metadata jsonb_path_ops);
"""


def test_a_first_version_table_is_refused_with_a_hint_then_upgraded_by_create_schema(
    pg_dsn: str, pg_table: str, tmp_path: Path
) -> None:
    (tmp_path / "ops.md").write_text(GUIDE)
    stat = (tmp_path / "ops.md").stat()
    ops = str(tmp_path / "ops.md")
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for statement in _OLD_DDL.format(t=pg_table).split(";"):
            if statement.strip():
                conn.execute(statement.encode())
        conn.execute(
            f'INSERT INTO "{pg_table}" (id, title, text, link, metadata) VALUES '
            "('old', 'Walrus notes', 'Tusks and ice floes.', 'https://x.org/w', '{\"k\": 1}')"
        )
        # A file indexed by the first version, with its bookkeeping as that version wrote it.
        conn.execute(
            f'INSERT INTO "{pg_table}" (id, title, text, link, source_root, mtime_ns, size) '
            "VALUES (%s, 'Operations guide', 'joined text of all sections', %s, %s, %s, %s)",
            (ops, ops, str(tmp_path), stat.st_mtime_ns, stat.st_size),
        )
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        with pytest.raises(NotFoundError) as caught:
            search.get_search_results_sync("walrus")
        assert any("create_schema" in hint for hint in caught.value.hints)

        search.create_schema_sync()
        search.create_schema_sync()  # a second call finds nothing to upgrade
        top = search.get_search_results_sync("walrus")[0]
        assert (top.id, top.title, top.passage, top.metadata) == (
            "old",
            "Walrus notes",
            0,
            {"k": 1},
        )
        assert search.count_documents_sync() == 2
        # The old rows' bookkeeping was cleared: the next run re-splits the file into passages.
        report = search.index_path(tmp_path)
        assert (report.updated, report.unchanged) == (1, 0)
        assert search.get_text_search_results_sync("jitter")[0].name == (
            "Operations guide › Retry policy"
        )
        # New documents get passages; the old one is replaced as a whole.
        search.add_documents_sync([{"id": "old", "text": GUIDE}], chunk=True)
        assert search.get_search_results_sync("tusks").results == []
        assert len(search.get_search_results_sync("seconds deadline jitter").results) == 4


@pytest.mark.anyio
async def test_async_create_schema_upgrades_too(pg_dsn: str, pg_table: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        for statement in _OLD_DDL.format(t=pg_table).split(";"):
            if statement.strip():
                conn.execute(statement.encode())
        conn.execute(f"INSERT INTO \"{pg_table}\" (id, text) VALUES ('x', 'walrus')")
    async with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        await search.create_schema()
        found = await search.get_search_results("walrus", options=SearchOptions(top=5))
        assert [d.id for d in found] == ["x"]


def test_rank_function_is_one_of_three_and_each_ranks(pg_dsn: str, pg_table: str) -> None:
    with pytest.raises(ConfigurationError):
        PostgresTextSearch(pg_dsn, table=pg_table, rank_function="bm42")  # type: ignore[arg-type]
    docs = [
        {"id": "title", "title": "Walrus", "text": "Notes on tusks."},
        {"id": "body", "title": "Notes", "text": "A walrus was seen. Tusks too."},
        {"id": "none", "title": "Other", "text": "Penguins."},
    ]
    for rank in ("bm25", "ts_rank", "ts_rank_cd"):
        with PostgresTextSearch(pg_dsn, table=pg_table, rank_function=rank) as search:
            search.create_schema_sync()
            search.add_documents_sync(docs)
            # The title word weighs more than the same word in the body, with either function.
            assert [d.id for d in search.get_search_results_sync("walrus")] == ["title", "body"]


def test_mcp_resources_open_a_passage_as_its_section(search: PostgresTextSearch) -> None:
    pytest.importorskip("mcp")
    from textsearch import TextSearchFilter
    from textsearch.plugins import create_search_plugin
    from textsearch.plugins._mcp import _links, _list_page, _stores
    from textsearch.plugins._stores import read_document as _read_document

    search.add_documents_sync(
        [
            {"id": "guide", "title": "Ops", "text": GUIDE, "link": "https://x.org/ops"},
            {"id": "b-note", "title": "Note", "text": "A short note.", "metadata": {"n": 1}},
        ],
        chunk=True,
    )
    plugin = create_search_plugin(search)
    stores = _stores(plugin)
    assert len(stores) == 1
    # The normalized result a model sees links the passage; its resource is that section.
    results = search.get_text_search_results_sync("exponential backoff").results
    ((uri, name),) = _links(results, sections=True)
    assert name == "Ops › Retry policy"
    section, start, end = _read_document(stores, uri)
    assert "exponential backoff" in section.text and (start, end) == (0, None)
    assert "owners" not in section.text and "deadline" not in section.text
    # The document's own URI is the whole document.
    document, _, _ = _read_document(stores, "textsearch://documents/guide")
    assert "owners" in document.text and "deadline" in document.text
    with pytest.raises(LookupError):
        _read_document(stores, "textsearch://documents/nothing-here")
    with pytest.raises(LookupError):  # an anchor the document does not have
        _read_document(stores, "textsearch://documents/https%3A%2F%2Fx.org%2Fops%23gone")
    # Listing: every document, in id order, a page at a time; a filter applies in SQL.
    listed, cursor = _list_page(stores, None)
    assert [d.id for d in listed] == ["b-note", "guide"] and cursor is None
    assert [d.id for d in search.list_documents(after="b-note")] == ["guide"]
    only = TextSearchFilter().equal_to("n", 1)
    assert [d.id for d in search.list_documents(filter=only)] == ["b-note"]
    assert search.get_section("https://x.org/ops#retry-policy", filter=only) is None
