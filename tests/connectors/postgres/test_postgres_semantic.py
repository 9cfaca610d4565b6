"""PostgresTextSearch with an embedder: pgvector column, semantic and hybrid modes (real server)."""

from __future__ import annotations

from array import array
from typing import Any

import psycopg
import pytest

from textsearch import (
    ConfigurationError,
    PostgresTextSearch,
    ProviderError,
    SearchOptions,
    TextSearchFilter,
)
from textsearch.embeddings import FunctionEmbedder

# A made-up embedding: one dimension per concept, so "stop a runaway job" lands near
# "Cancelling tasks" although they share no word. The first dimension keeps vectors non-zero.
CONCEPTS = [
    ("stop", "cancel", "cancelling", "halt", "abort", "runaway", "kill"),
    ("job", "jobs", "task", "tasks", "work", "worker"),
    ("pasta", "cook", "cooking", "basil", "boil"),
    ("rain", "weather", "storm", "umbrella"),
]

DOCS: list[dict[str, Any]] = [
    {
        "id": "cancel",
        "title": "Cancelling tasks",
        "text": "Press the cancel button to abort.",
        "metadata": {"lang": "en"},
    },
    {
        "id": "pasta",
        "title": "Cooking",
        "text": "Boil pasta with basil.",
        "metadata": {"lang": "it"},
    },
    {
        "id": "jobs",
        "title": "Jobs",
        "text": "A job runs on a worker until it ends.",
        "metadata": {"lang": "en"},
    },
    {
        "id": "storm",
        "title": "Weather",
        "text": "Take an umbrella when a storm comes.",
        "metadata": {"lang": "en"},
    },
]


class Recorder:
    """The made-up embedding, counting what it was asked to embed."""

    def __init__(self, dims: int = len(CONCEPTS) + 1) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []
        self.dims = dims

    def vector(self, text: str) -> list[float]:
        words = [w.strip(".,?!") for w in text.lower().split()]
        values = [0.1] + [float(sum(w in c for w in words)) for c in CONCEPTS]
        return (values + [0.0] * self.dims)[: self.dims]

    def docs(self, texts: list[str]) -> list[list[float]]:
        self.documents += texts
        return [self.vector(t) for t in texts]

    def query(self, texts: list[str]) -> list[list[float]]:
        self.queries += texts
        return [self.vector(t) for t in texts]

    def embedder(self, model: str = "concepts-v1") -> FunctionEmbedder:
        return FunctionEmbedder(self.docs, model=model, query_fn=self.query)


def ids(results: Any) -> list[str]:
    return [doc.id for doc in results]


def rows(dsn: str, table: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            f'SELECT id, embedding IS NOT NULL FROM "{table}" ORDER BY id'
        ).fetchall()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def test_create_schema_adds_a_vector_column_with_an_hnsw_index_and_records_the_model(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=recorder.embedder()) as search:
        assert search.mode == "hybrid"  # the default with an embedder
        search.create_schema_sync()
        search.create_schema_sync()  # twice is fine
    with psycopg.connect(pg_dsn) as conn:
        column = conn.execute(
            "SELECT format_type(atttypid, atttypmod), col_description(attrelid, attnum) "
            "FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'",
            (pg_table,),
        ).fetchone()
        index = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s AND indexdef LIKE '%%hnsw%%'",
            (pg_table,),
        ).fetchone()
    assert column is not None and column[0] == f"vector({len(CONCEPTS) + 1})"
    assert '"textsearch_embedder": "concepts-v1"' in column[1]
    assert index is not None and "vector_cosine_ops" in index[0]


def test_semantic_finds_by_meaning_what_shares_no_word(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    embedder = recorder.embedder()
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=embedder, mode="semantic") as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS)
        assert all(has for _, has in rows(pg_dsn, pg_table))
        # The passage is embedded with its title.
        assert "Cancelling tasks\nPress the cancel button to abort." in recorder.documents
        found = search.get_search_results_sync("how do I stop a runaway job")
        assert ids(found)[0] == "cancel"
        assert found[0].score is not None and found[0].score > 0.9
        # The same words find nothing by keyword.
    with PostgresTextSearch(pg_dsn, table=pg_table) as keyword:
        assert "cancel" not in ids(keyword.get_search_results_sync("how do I stop a runaway job"))


def test_keyword_mode_never_calls_the_embedder_at_query_time(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    embedder = recorder.embedder()
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=embedder, mode="keyword") as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS)  # still embedded: every mode stores vectors
        assert all(has for _, has in rows(pg_dsn, pg_table))
        assert ids(search.get_search_results_sync("umbrella")) == ["storm"]
    assert recorder.queries == []


def test_hybrid_fuses_both_arms_in_one_statement_and_filters_both(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=recorder.embedder()) as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS)
        found = search.get_search_results_sync("stop the worker", top=4)
        # "jobs" has the word worker and the meaning; "cancel" the meaning only.
        assert ids(found)[:2] == ["jobs", "cancel"]
        scores = [d.score for d in found]
        assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
        # A filter restricts both arms before ranking: an excluded document never shows,
        # at any page, though both arms would rank it first.
        only_it = TextSearchFilter().equal_to("lang", "it")
        pages = [
            ids(search.get_search_results_sync("stop the worker", top=1, skip=k, filter=only_it))
            for k in range(3)
        ]
        assert pages == [["pasta"], [], []]
        not_jobs = TextSearchFilter().equal_to("lang", "en")
        every = ids(search.get_search_results_sync("stop the worker", top=10, filter=not_jobs))
        assert "pasta" not in every and set(every) == {"cancel", "jobs", "storm"}
        # Exclusions apply to both arms too.
        excluded = ids(search.get_search_results_sync("stop the worker -worker", top=10))
        assert "jobs" not in excluded and "cancel" in excluded


def test_hybrid_paging_is_disjoint_and_counts(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=recorder.embedder()) as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS)
        whole = ids(search.get_search_results_sync("cancel a job", top=10))
        paged = [
            ids(search.get_search_results_sync("cancel a job", top=1, skip=k)) for k in range(4)
        ]
        assert [p[0] for p in paged] == whole and len(set(whole)) == 4
        counted = search.get_search_results_sync("cancel a job", include_total_count=True)
        assert counted.total_count == 4


def test_one_per_document_in_semantic_and_hybrid(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    guide = "# Ops\n\nIntro.\n\n## Cancel\n\nAbort a task.\n\n## Kill\n\nKill a runaway job.\n"
    docs = [{"id": "guide", "title": "Ops", "text": guide}, DOCS[1]]
    for mode in ("semantic", "hybrid"):
        with PostgresTextSearch(
            pg_dsn,
            table=pg_table,
            embedder=recorder.embedder(),
            mode=mode,  # type: ignore[arg-type]
        ) as search:
            search.create_schema_sync()
            search.add_documents_sync(docs, chunk=True)
            many = ids(search.get_search_results_sync("stop a job", top=5))
            assert many.count("guide") >= 2, mode
        with PostgresTextSearch(
            pg_dsn,
            table=pg_table,
            embedder=recorder.embedder(),
            mode=mode,  # type: ignore[arg-type]
            one_per_document=True,
        ) as search:
            assert ids(search.get_search_results_sync("stop a job", top=5)) == ["guide", "pasta"]


@pytest.mark.anyio
async def test_async_paths(pg_dsn: str, pg_table: str, recorder: Recorder) -> None:
    async with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder(), mode="semantic"
    ) as search:
        await search.create_schema()
        await search.add_documents(DOCS)
        found = await search.get_search_results("halt the tasks", options=SearchOptions(top=2))
        assert ids(found)[0] == "cancel"


def test_a_failing_embedder_writes_nothing(pg_dsn: str, pg_table: str) -> None:
    calls = {"n": 0}

    def flaky(texts: list[str]) -> list[list[float]]:
        calls["n"] += 1
        if calls["n"] > 1:  # the first call (dimensions) works, the next fail
            raise RuntimeError("model server down")
        return [[1.0, 0.0] for _ in texts]

    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=FunctionEmbedder(flaky, model="m"), batch_size=1
    ) as search:
        search.create_schema_sync()
        with pytest.raises(ProviderError):
            search.add_documents_sync(DOCS)
    assert rows(pg_dsn, pg_table) == []

    def bad(texts: list[str]) -> list[list[float]]:
        return [[float("nan"), 1.0] for _ in texts]

    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=FunctionEmbedder(bad, model="m", dimensions=2)
    ) as search:
        with pytest.raises(ProviderError):  # ResponseFormatError: NaN is never stored
            search.add_documents_sync(DOCS)
    assert rows(pg_dsn, pg_table) == []


def test_another_model_or_dimension_is_refused_naming_both(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=recorder.embedder()) as search:
        search.create_schema_sync()
        search.add_documents_sync(DOCS[:1])
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder("other-model")
    ) as other:
        with pytest.raises(ConfigurationError, match="concepts-v1.*other-model"):
            other.create_schema_sync()
        # Without create_schema(), at the latest the first search or add.
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder("other-model")
    ) as other:
        with pytest.raises(ConfigurationError, match="embed_missing"):
            other.search_sync("cancel")
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder("other-model")
    ) as other:
        with pytest.raises(ConfigurationError, match="other-model"):
            other.add_documents_sync(DOCS[1:2])
    wider = Recorder(dims=9)
    fn = FunctionEmbedder(wider.docs, model="concepts-v1", dimensions=9, query_fn=wider.query)
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=fn) as other:
        with pytest.raises(ConfigurationError, match="5 dimensions.*9"):
            other.search_sync("cancel")
    assert [r[0] for r in rows(pg_dsn, pg_table)] == ["cancel"]


def test_embed_missing_fills_a_table_built_before_the_embedder(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with PostgresTextSearch(pg_dsn, table=pg_table) as plain:
        plain.create_schema_sync()
        plain.add_documents_sync(DOCS)
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder(), mode="semantic", batch_size=3
    ) as search:
        with pytest.raises(ConfigurationError, match="create_schema"):
            search.search_sync("halt")
        search.create_schema_sync()
        assert not any(has for _, has in rows(pg_dsn, pg_table))
        assert search.embed_missing_sync() == 4
        assert search.embed_missing_sync() == 0
        assert all(has for _, has in rows(pg_dsn, pg_table))
        assert ids(search.get_search_results_sync("halt the tasks"))[0] == "cancel"


def test_modes_need_an_embedder(pg_dsn: str, pg_table: str) -> None:
    for mode in ("semantic", "hybrid"):
        with pytest.raises(ConfigurationError, match="embedder"):
            PostgresTextSearch(pg_dsn, table=pg_table, mode=mode)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="mode"):
        PostgresTextSearch(pg_dsn, table=pg_table, mode="fuzzy")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="embed_missing"):
        PostgresTextSearch(pg_dsn, table=pg_table).embed_missing_sync()


def test_from_table_searches_an_existing_vector_column(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(
            f'CREATE TABLE "{pg_table}" (pk int PRIMARY KEY, body text, emb vector(5))'.encode()
        )
        for i, doc in enumerate(DOCS):
            text = f"{doc['title']}. {doc['text']}"
            vector = "[" + ",".join(map(str, recorder.vector(text))) + "]"
            conn.execute(
                f'INSERT INTO "{pg_table}" VALUES (%s, %s, %s::vector)'.encode(), (i, text, vector)
            )
    search = PostgresTextSearch.from_table(
        pg_dsn,
        table=pg_table,
        id_column="pk",
        value_column="body",
        vector_column="emb",
        embedder=recorder.embedder(),
    )
    with search:
        assert search.mode == "hybrid"
        assert ids(search.get_search_results_sync("halt a runaway"))[0] == "0"
        assert ids(search.get_search_results_sync("umbrella"))[0] == "3"
    with pytest.raises(ConfigurationError):
        PostgresTextSearch.from_table(
            pg_dsn,
            table=pg_table,
            value_column="body",
            embedder=recorder.embedder(),
            mode="semantic",
        )


def test_pooled_connections_scan_hnsw_iteratively_only_with_an_embedder(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    # pgvector stops an HNSW scan after ef_search rows unless told to go on: a filter would
    # then leave pages short. Every pooled connection of an instance with an embedder says so.
    show = "SELECT current_setting('hnsw.iterative_scan', true)"
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=recorder.embedder()) as search:
        search.create_schema_sync()
        assert search._sync.run(lambda conn: conn.execute(show).fetchone()[0]) == "relaxed_order"
    with PostgresTextSearch(pg_dsn, table=pg_table) as plain:
        assert plain._sync.run(lambda conn: conn.execute(show).fetchone()[0]) in (None, "off")


def test_hybrid_by_document_counts_a_document_once_per_arm(
    pg_dsn: str, pg_table: str, recorder: Recorder
) -> None:
    # "guide" has three passages near "halt" by meaning, none with the word; "worker" has
    # the word and is a little further by meaning. Counted once per arm, worker (both arms)
    # beats guide (one arm); summing guide's three passages would put it first.
    guide = "# Guide\n\nIntro.\n\n## A\n\nAbort it.\n\n## B\n\nCancel it.\n\n## C\n\nKill it.\n"
    docs = [
        {"id": "guide", "title": "Guide", "text": guide},
        {"id": "worker", "title": "Worker", "text": "halt the job now"},
    ]
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder(), one_per_document=True
    ) as search:
        search.create_schema_sync()
        search.add_documents_sync(docs, chunk=True)
        found = search.get_search_results_sync("halt", top=2)
        assert ids(found) == ["worker", "guide"]
        assert found[0].score is not None and found[1].score is not None
        assert found[1].score == pytest.approx(1 / 61)


def test_index_path_embeds_what_it_indexes_and_only_what_changed(
    pg_dsn: str, pg_table: str, recorder: Recorder, tmp_path: Any
) -> None:
    (tmp_path / "cancel.md").write_text("# Cancelling tasks\n\nPress cancel to abort.\n")
    (tmp_path / "food.md").write_text("# Cooking\n\nBoil pasta.\n")
    with PostgresTextSearch(
        pg_dsn, table=pg_table, embedder=recorder.embedder(), mode="semantic"
    ) as search:
        search.create_schema_sync()
        search.index_path(tmp_path)
        assert all(has for _, has in rows(pg_dsn, pg_table))
        first = len(recorder.documents)
        found = search.get_search_results_sync("halt a runaway job")
        assert found[0].title == "Cancelling tasks"
        (tmp_path / "food.md").write_text("# Cooking\n\nBoil pasta with basil.\n")
        search.index_path(tmp_path)
        # Only the changed file was embedded again.
        assert all("Cancelling" not in text for text in recorder.documents[first:])
        assert any("basil" in text for text in recorder.documents[first:])


def test_from_table_embedder_needs_vector_column(pg_dsn: str, recorder: Recorder) -> None:
    with pytest.raises(ConfigurationError, match="vector_column"):
        PostgresTextSearch.from_table(
            pg_dsn, table="anything", value_column="body", embedder=recorder.embedder()
        )


def test_embed_missing_refuses_an_existing_table(pg_dsn: str, recorder: Recorder) -> None:
    search = PostgresTextSearch.from_table(
        pg_dsn,
        table="anything",
        value_column="body",
        vector_column="emb",
        embedder=recorder.embedder(),
    )
    with pytest.raises(ConfigurationError, match="read-only"):
        search.embed_missing_sync()


def test_stored_vectors_are_the_float4_rounding_of_the_embedders_values(
    pg_dsn: str, pg_table: str
) -> None:
    # Values whose float4 rounding is hard to get right from a shortened text: many digits,
    # tiny and large magnitudes, halfway-looking tails.
    values = [0.1, -1 / 3, 1e-30, 123456.789, 2.0000001192092896, -7.006492321624085e-46, 1.0]

    def embed(texts: list[str]) -> list[list[float]]:
        return [values for _ in texts]

    embedder = FunctionEmbedder(embed, model="fixed-7", dimensions=len(values))
    with PostgresTextSearch(pg_dsn, table=pg_table, embedder=embedder, mode="semantic") as search:
        search.create_schema_sync()
        search.add_documents_sync([{"id": "a", "text": "anything at all"}])
        found = search.get_search_results_sync("anything")
    with psycopg.connect(pg_dsn) as conn:
        row = conn.execute(
            f'SELECT embedding::text FROM "{pg_table}" WHERE id = %s', ("a",)
        ).fetchone()
    assert row is not None
    stored = [float(x) for x in row[0].strip("[]").split(",")]
    expected = list(array("f", values))
    assert [array("f", [x])[0] for x in stored] == expected
    # The query's vector is the same as the passage's: the nearest, at distance ~0.
    assert ids(found) == ["a"]
    assert found[0].score == pytest.approx(1.0, abs=1e-6)
