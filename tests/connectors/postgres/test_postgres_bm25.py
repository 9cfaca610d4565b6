"""PostgresTextSearch BM25: scores against a reference, and term statistics kept by every write."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from textsearch import PostgresTextSearch

K1, B, TITLE = 1.2, 0.75, 4

DOCS: list[dict[str, Any]] = [
    {"id": "a", "title": "Walrus tusks", "text": "The walrus uses its tusks on ice."},
    {"id": "b", "title": "Seals", "text": "A seal and a walrus share the ice floe."},
    {"id": "c", "title": "Penguins", "text": "Penguins dive; penguins swim; ice melts."},
    {"id": "d", "title": "Ice", "text": "Sea ice, ice sheets and more ice everywhere."},
    {"id": "e", "title": "Krill", "text": "Krill feed whales, seals and penguins."},
]


def lexemes(conn: psycopg.Connection[Any], text: str) -> dict[str, int]:
    """Lexeme -> occurrences, as the server's english configuration splits the text."""
    rows = conn.execute(
        "SELECT lexeme, coalesce(array_length(positions, 1), 1) "
        "FROM unnest(to_tsvector('english', %s))",
        (text,),
    ).fetchall()
    return {row[0]: int(row[1]) for row in rows}


def reference_bm25(dsn: str, docs: list[dict[str, Any]], query: str) -> dict[str, float]:
    """BM25 computed here, in Python, from the server's lexemes only."""
    with psycopg.connect(dsn) as conn:
        title = {d["id"]: lexemes(conn, d["title"]) for d in docs}
        body = {d["id"]: lexemes(conn, d["text"]) for d in docs}
        terms = list(lexemes(conn, query))
    distinct = {i: set(title[i]) | set(body[i]) for i in title}
    n = len(docs)
    avgdl = sum(len(v) for v in distinct.values()) / n
    scores = {}
    for i in title:
        k = K1 * (1 - B + B * len(distinct[i]) / avgdl)
        score = 0.0
        for term in terms:
            df = sum(1 for v in distinct.values() if term in v)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            f = TITLE * title[i].get(term, 0) + body[i].get(term, 0)
            score += idf * f * (K1 + 1) / (f + k)
        if score:
            scores[i] = score
    return scores


def stored_stats(dsn: str, table: str) -> dict[str, tuple[int, int]]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(f'SELECT term, passages, length FROM "{table}_terms"').fetchall()
    return {row[0]: (int(row[1]), int(row[2])) for row in rows}


def recounted_stats(dsn: str, table: str) -> dict[str, tuple[int, int]]:
    """The statistics recomputed from the rows, as they should be."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            f'SELECT l, count(*), 0 FROM "{table}" AS d, '
            "unnest(tsvector_to_array(d.search_vector)) AS l GROUP BY l "
            f"UNION ALL SELECT '', count(*), coalesce(sum(length(search_vector)), 0) "
            f'FROM "{table}"'
        ).fetchall()
    return {row[0]: (int(row[1]), int(row[2])) for row in rows}


@pytest.fixture
def search(pg_dsn: str, pg_table: str) -> Any:
    with PostgresTextSearch(pg_dsn, table=pg_table) as instance:
        instance.create_schema_sync()
        yield instance


def test_scores_are_bm25_with_title_words_counted_four_times(
    search: PostgresTextSearch, pg_dsn: str
) -> None:
    search.add_documents_sync(DOCS)
    for query in ("walrus ice", "penguins", "seal krill whales", "ice"):
        expected = reference_bm25(pg_dsn, DOCS, query)
        found = search.get_search_results_sync(query, top=10)
        # Partial matches score s / (1 + s); whole-query matches 1 + s / (1 + s).
        got = {}
        for doc in found:
            assert doc.score is not None
            part = doc.score - 1 if doc.score >= 1 else doc.score
            got[doc.id] = part / (1 - part)
        assert got.keys() == expected.keys(), query
        for key, value in expected.items():
            assert got[key] == pytest.approx(value, rel=1e-4), (query, key)


def test_statistics_follow_adds_replacements_deletes_and_chunks(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    search.add_documents_sync(DOCS)
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)
    assert stored_stats(pg_dsn, pg_table)[""][0] == 5
    # Replace a document by a longer one in passages, and another by one without "ice".
    long_text = "# Walrus\n\nTusks and ice.\n\n## Diet\n\nClams, mostly clams.\n"
    search.add_documents_sync([{"id": "a", "title": "Walrus", "text": long_text}], chunk=True)
    search.add_documents_sync([{"id": "d", "title": "Glaciers", "text": "Glaciers flow."}])
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)
    assert search.delete_documents_sync(["b", "missing"]) == 1
    stats = stored_stats(pg_dsn, pg_table)
    assert stats == recounted_stats(pg_dsn, pg_table)
    assert "floe" not in stats  # no passage holds it any more: its row is gone
    assert stats[""][0] == 5  # a's two passages, c, d and e


@pytest.mark.anyio
async def test_async_writes_keep_statistics_too(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    await search.add_documents(DOCS)
    await search.add_documents([{"id": "c", "title": "Penguins", "text": "Emperors huddle."}])
    assert await search.delete_documents(["e"]) == 1
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)


def test_index_path_keeps_statistics(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("# Alpha\n\nwalrus ice\n\n## More\n\nseal ice\n")
    (tmp_path / "b.txt").write_text("penguins and krill\n")
    search.index_path(tmp_path)
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)
    (tmp_path / "b.txt").unlink()
    (tmp_path / "a.md").write_text("# Alpha\n\nonly glaciers now\n")
    search.index_path(tmp_path)
    stats = stored_stats(pg_dsn, pg_table)
    assert stats == recounted_stats(pg_dsn, pg_table)
    assert "penguin" not in stats and "glacier" in stats


def test_two_concurrent_writers_keep_statistics_consistent(pg_dsn: str, pg_table: str) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table) as first:
        first.create_schema_sync()
    errors: list[BaseException] = []

    def writer(seed: int) -> None:
        try:
            with PostgresTextSearch(pg_dsn, table=pg_table, batch_size=7) as mine:
                for round_ in range(6):
                    # Both writers replace the same ids with different words, and each adds
                    # and deletes ids of its own.
                    docs = [
                        {"id": f"s{i}", "text": f"shared{seed} word{(i + round_) % 5} common"}
                        for i in range(20)
                    ]
                    docs += [{"id": f"w{seed}-{i}", "text": f"own{seed} x{i}"} for i in range(5)]
                    mine.add_documents_sync(docs)
                    mine.delete_documents_sync([f"w{seed}-{round_ % 5}", f"s{round_}"])
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)


def test_a_table_without_statistics_ranks_by_ts_rank_until_create_schema(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    search.add_documents_sync(DOCS)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'DROP TABLE "{pg_table}_terms"')  # as a table of an older version
    with PostgresTextSearch(pg_dsn, table=pg_table) as old:
        found = old.get_search_results_sync("walrus ice")
        assert {d.id for d in found} == {"a", "b", "c", "d"}
        # Writes still work, and leave the statistics to create_schema().
        old.add_documents_sync([{"id": "f", "title": "Fjord", "text": "walrus"}])
        old.create_schema_sync()
        assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)
        docs = [*DOCS, {"id": "f", "title": "Fjord", "text": "walrus"}]
        expected = reference_bm25(pg_dsn, docs, "fjord")
        got = old.get_search_results_sync("fjord")
        assert [d.id for d in got] == list(expected)


def test_from_table_refuses_bm25(pg_dsn: str, pg_table: str) -> None:
    from textsearch import ConfigurationError

    with pytest.raises(ConfigurationError, match="bm25"):
        PostgresTextSearch.from_table(
            pg_dsn, table=pg_table, value_column="body", rank_function="bm25"
        )


def test_statistics_of_a_dropped_table_are_not_reused(
    search: PostgresTextSearch, pg_dsn: str, pg_table: str
) -> None:
    search.add_documents_sync(DOCS)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f'DROP TABLE "{pg_table}"')  # the statistics table stays behind
    search.create_schema_sync()
    search.add_documents_sync(DOCS[:2])
    assert stored_stats(pg_dsn, pg_table) == recounted_stats(pg_dsn, pg_table)
    assert stored_stats(pg_dsn, pg_table)[""][0] == 2
