"""PostgresTextSearch: one result per section (link) of the managed table (issue #22)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from textsearch import PostgresTextSearch
from textsearch.embeddings import FunctionEmbedder

PARAGRAPH = "The client waits with exponential backoff between retries, adding jitter. " * 6


def long_guide() -> str:
    # "Retry" is long enough to be split into several passages that share its link.
    retry = "\n\n".join(f"{PARAGRAPH} Part {i}." for i in range(6))
    return f"# Guide\n\nIntro about backoff.\n\n## Retry\n\n{retry}\n\n## Limits\n\nBackoff caps.\n"


@pytest.fixture
def docs() -> list[dict[str, Any]]:
    return [
        {"id": "guide", "title": "Guide", "text": long_guide(), "link": "https://x.org/guide"},
        {"id": "other", "title": "Other", "text": "backoff once", "link": "https://x.org/o"},
    ]


def section_rows(dsn: str, table: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            f'SELECT passage, anchor FROM "{table}" WHERE id = %s ORDER BY passage', ("guide",)
        ).fetchall()


def test_passages_of_one_section_are_one_result_in_every_page(
    pg_dsn: str, pg_table: str, docs: list[dict[str, Any]]
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table) as search:
        search.create_schema_sync()
        search.add_documents_sync(docs, chunk=True)
        anchors = [row[1] for row in section_rows(pg_dsn, pg_table)]
        assert anchors.count("retry") >= 2  # the section really is several passages
        found = search.get_search_results_sync("backoff", top=10, include_total_count=True)
        links = [d.link for d in found]
        assert len(links) == len(set(links))
        assert "https://x.org/guide#retry" in links
        assert found.total_count == len(links) == 4  # intro, retry, limits, other
        pages = [
            [d.link for d in search.get_search_results_sync("backoff", top=1, skip=k)]
            for k in range(5)
        ]
        assert [p[0] for p in pages[:4]] == links and pages[4] == []


def test_semantic_and_hybrid_keep_one_result_per_section(
    pg_dsn: str, pg_table: str, docs: list[dict[str, Any]]
) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0, float("backoff" in t.lower()), float(len(t) % 7)] for t in texts]

    for mode in ("semantic", "hybrid"):
        with PostgresTextSearch(
            pg_dsn,
            table=pg_table,
            embedder=FunctionEmbedder(embed, model="m"),
            mode=mode,  # type: ignore[arg-type]
        ) as search:
            search.create_schema_sync()
            search.add_documents_sync(docs, chunk=True)
            links = [d.link for d in search.get_search_results_sync("backoff", top=10)]
            assert len(links) == len(set(links)) == 4, mode
