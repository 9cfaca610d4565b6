"""Chinese and Japanese questions find their passages in PostgreSQL, Qdrant and Milvus.

PostgreSQL is the real server the tests start; Qdrant and Milvus run embedded. The stores'
dense vectors are noise here, so only their keyword side can put the right passage first.
"""

from __future__ import annotations

from tests.connectors._cjk_docs import DOCS, NOISE, QUESTIONS

# -- PostgreSQL ----------------------------------------------------------------------------


def test_postgres_natural_questions_find_their_passage(pg_dsn: str, pg_table: str) -> None:
    from textsearch import PostgresTextSearch

    for rank in ("bm25", "ts_rank"):
        search = PostgresTextSearch(pg_dsn, table=pg_table, rank_function=rank)
        if rank == "bm25":
            search.create_schema_sync()
            search.add_documents_sync(DOCS)
        for question, expected in QUESTIONS:
            if question == "creme brulee":
                continue  # PostgreSQL's configurations fold no accents (unaccent is an extension)
            found = search.get_documents_sync(question, top=3)
            assert found and found[0].id == expected, (rank, question)
        search.close()


def test_postgres_highlight_and_an_older_table_is_upgraded(pg_dsn: str, pg_table: str) -> None:
    import psycopg

    from textsearch import PostgresTextSearch

    search = PostgresTextSearch(pg_dsn, table=pg_table, highlight=("[", "]"))
    search.create_schema_sync()
    search.add_documents_sync(DOCS)
    assert "[备份]" in search.search_sync("备份保留多久")[0]
    # A table from before: no search_* columns, its vector over the raw text.
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"ALTER TABLE {pg_table} DROP COLUMN search_vector")
        conn.execute(
            f"ALTER TABLE {pg_table} DROP COLUMN search_title, DROP COLUMN search_section, "
            "DROP COLUMN search_text"
        )
        conn.execute(
            f"ALTER TABLE {pg_table} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
            "(to_tsvector('english', coalesce(title, '') || ' ' || text)) STORED"
        )
    search.create_schema_sync()
    assert search.get_documents_sync("如何停止任务")[0].id == "stop-job"
    search.close()


# -- Qdrant and Milvus ---------------------------------------------------------------------


def test_qdrant_sparse_vectors_find_natural_questions() -> None:
    from qdrant_client import QdrantClient, models

    from tests.connectors.vectors._support import unique_name
    from textsearch.connectors.vectors import QdrantTextSearch
    from textsearch.connectors.vectors.qdrant import sparse_of_query

    client = QdrantClient(":memory:")
    name = unique_name()
    search = QdrantTextSearch(client, name, embedder=NOISE)
    search.add_documents_sync(DOCS)
    for question, expected in QUESTIONS[:-2]:  # its sparse words fold no accents
        # the sparse arm alone (the dense one is noise): its first point is the passage
        indices, values = sparse_of_query(question)
        points = client.query_points(
            name,
            query=models.SparseVector(indices=indices, values=values),
            using="sparse",
            limit=1,
            with_payload=True,
        ).points
        assert points and points[0].payload["document_id"] == expected, question
        # and the fused search finds it among the first
        found = search.get_search_results_sync(question, top=3).results
        assert expected in [r.id for r in found], question


def test_milvus_bm25_finds_natural_questions() -> None:
    from tests.connectors.vectors._support import milvus_client, unique_name
    from textsearch.connectors.vectors import MilvusTextSearch

    client = milvus_client()
    name = unique_name()
    search = MilvusTextSearch(client, name, embedder=NOISE)
    search.add_documents_sync(DOCS)
    questions = [(q, e) for q, e in QUESTIONS if q != "creme brulee"]  # Milvus folds no accents
    for question, expected in questions:
        # Milvus' BM25 arm alone (the server analyzes the question with the jieba tokenizer)
        hits = client.search(
            name, data=[question], anns_field="sparse", limit=1, output_fields=["document_id"]
        )[0]
        assert hits and hits[0]["entity"]["document_id"] == expected, question
        found = search.get_search_results_sync(question, top=3).results
        assert expected in [r.id for r in found], question
