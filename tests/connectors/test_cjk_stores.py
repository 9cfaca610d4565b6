"""Chinese and Japanese questions find their passages in PostgreSQL, Qdrant and Milvus.

PostgreSQL is the real server the tests start; Qdrant and Milvus run embedded. The stores'
dense vectors are noise here, so only their keyword side can put the right passage first.
"""

from __future__ import annotations

from typing import Any

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


def _qdrant_sparse_hits(client: Any, name: str, question: str, limit: int) -> list[str]:
    """The documents of the sparse arm alone, best first, for the question as sent."""
    from qdrant_client import models

    from textsearch.connectors.vectors.qdrant import sparse_of_query

    indices, values = sparse_of_query(question)
    points = client.query_points(
        name,
        query=models.SparseVector(indices=indices, values=values),
        using="sparse",
        limit=limit,
        with_payload=True,
    ).points
    return [p.payload["document_id"] for p in points if p.payload]


def test_qdrant_sparse_vectors_find_natural_questions() -> None:
    from qdrant_client import QdrantClient

    from tests.connectors.vectors._support import unique_name
    from textsearch.connectors.vectors import QdrantTextSearch

    client = QdrantClient(":memory:")
    name = unique_name()
    search = QdrantTextSearch(client, name, embedder=NOISE)
    search.add_documents_sync(DOCS)
    for question, expected in QUESTIONS[:-2]:  # its sparse words fold no accents
        # the sparse arm alone (the dense one is noise): its first point is the passage
        found = _qdrant_sparse_hits(client, name, question, 1)
        assert found == [expected], question
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


# -- a question's grammar: left out by every store, as by the local index ------------------

# A passage made of question grammar only: it holds none of a question's topic words, so it
# is found only by a store that searches for the grammar (什么, 如何, 是) too.
GRAMMAR = {"id": "grammar", "title": "", "text": "这是什么？那是谁？为什么是这样？如何是好呢？"}
GRAMMAR_QUESTIONS = [
    ("什么是数据库备份？", "backup"),
    ("如何停止任务？", "stop-job"),
    ("为什么要创建虚拟环境？", "pip"),
    ("谁可以停止正在运行的任务？", "stop-job"),
    ("パスワードを忘れた場合はどうすればいいですか", "password"),
    ("ジョブを停止するにはどうしますか", "job-ja"),
]


def test_the_shared_question_text_leaves_the_grammar_out() -> None:
    from textsearch._cjk import query_terms, question_text, question_words

    # the question's terms as the local index plans them; full-width punctuation is no word
    assert question_text("什么是数据库备份？").split() == query_terms("什么是数据库备份")
    assert "什么" not in question_text("什么是数据库备份").split()
    assert "如何" not in question_text("如何停止任务").split()
    # a question of nothing but grammar searches for it after all; Latin text is untouched
    assert "什么" in question_text("是什么").split()
    assert question_text("retry backoff") == "retry backoff"
    # for a server that cuts words itself: only stretches of grammar go, words stay whole
    assert question_words("如何停止任务").split() == ["停止任务"]
    assert question_words("什么是数据库备份？").split() == ["数据库备份"]
    assert question_words("因为下雨所以取消") == "因为下雨所以取消"
    assert question_words("是什么") == "是什么"


def test_postgres_leaves_a_questions_grammar_out(pg_dsn: str, pg_table: str) -> None:
    from textsearch import PostgresTextSearch

    for rank in ("bm25", "ts_rank"):
        search = PostgresTextSearch(pg_dsn, table=pg_table, rank_function=rank)
        if rank == "bm25":
            search.create_schema_sync()
            search.add_documents_sync([*DOCS, GRAMMAR])
        for question, expected in GRAMMAR_QUESTIONS:
            found = [d.id for d in search.get_documents_sync(question, top=10)]
            assert found and found[0] == expected, (rank, question, found)
            if not any("\u3040" <= c <= "\u30ff" for c in question):  # Chinese grammar
                assert "grammar" not in found, (rank, question, found)
        search.close()


def test_qdrant_leaves_a_questions_grammar_out() -> None:
    from qdrant_client import QdrantClient

    from tests.connectors.vectors._support import unique_name
    from textsearch.connectors.vectors import QdrantTextSearch

    client = QdrantClient(":memory:")
    name = unique_name()
    search = QdrantTextSearch(client, name, embedder=NOISE)
    search.add_documents_sync([*DOCS, GRAMMAR])
    for question, expected in GRAMMAR_QUESTIONS:
        found = _qdrant_sparse_hits(client, name, question, 10)
        assert found and found[0] == expected, (question, found)
        if not any("\u3040" <= c <= "\u30ff" for c in question):
            assert "grammar" not in found, (question, found)


def test_milvus_leaves_a_questions_grammar_out() -> None:
    from tests.connectors.vectors._support import milvus_client, unique_name
    from textsearch._types import SearchOptions
    from textsearch.connectors.vectors import MilvusTextSearch

    client = milvus_client()
    name = unique_name()
    search = MilvusTextSearch(client, name, embedder=NOISE)
    search.add_documents_sync([*DOCS, GRAMMAR])
    for question, expected in GRAMMAR_QUESTIONS:
        # the BM25 arm alone, with the text the connector's hybrid request sends
        _, request = search._request([0.0] * 16, question, SearchOptions(top=3), "")
        hits = client.search(
            name,
            data=request["reqs"][1].data,
            anns_field="sparse",
            limit=10,
            output_fields=["document_id"],
        )[0]
        found = [h["entity"]["document_id"] for h in hits]
        assert found and found[0] == expected, (question, found)
        if not any("\u3040" <= c <= "\u30ff" for c in question):
            assert "grammar" not in found, (question, found)
        results = search.get_search_results_sync(question, top=3).results
        assert expected in [r.id for r in results], question
