"""add_documents writes a batch with a bounded number of statements, on either engine, and
stores what one-by-one writes stored."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.embeddings import FunctionEmbedder

ENGINES = ["sqlite", *(["tantivy"] if find_spec("tantivy") else [])]


def _docs(n: int, tag: str = "first") -> list[dict[str, Any]]:
    return [
        {
            "id": f"d{i}",
            "title": f"Guide {i}",
            "text": f"retry backoff number{i} {tag} " + "jitter " * (i % 4),
            "link": f"https://docs.example.com/p/{i}",
            "metadata": {"group": f"g{i % 3}", "tags": ["ops", f"t{i % 2}"], "year": 2000 + i},
        }
        for i in range(n)
    ]


def _statements(search: LocalTextSearch, docs: list[dict[str, Any]]) -> int:
    seen: list[str] = []
    search._db.set_trace_callback(seen.append)
    try:
        search.add_documents(docs)
    finally:
        search._db.set_trace_callback(None)
    return len(seen)


@pytest.mark.parametrize("engine", ENGINES)
def test_statements_per_batch_do_not_grow_with_its_documents(engine: str) -> None:
    # executemany traces each row it runs, so rows are counted too: what must not grow is
    # the work per document beyond its own rows (a document row, a passage row, and with
    # FTS5 its row and the statement FTS5 traces for it; one by one it was twice that).
    small, large = LocalTextSearch(engine=engine), LocalTextSearch(engine=engine)
    few = _statements(small, _docs(10))
    many = _statements(large, _docs(1000))
    per_doc = (many - few) / 990
    rows_per_doc = 4 if engine == "sqlite" else 2  # tantivy keeps no FTS5 row
    assert per_doc <= rows_per_doc + 0.05, (few, many)


def _stored(search: LocalTextSearch) -> list[tuple[Any, ...]]:
    return search._db.execute(
        "SELECT d.id, d.title, d.link, d.site, d.metadata, p.section, p.anchor, p.line, p.text "
        "FROM passages AS p JOIN documents AS d ON d.rowid = p.doc ORDER BY p.rowid"
    ).fetchall()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_batch_stores_what_one_by_one_writes_store(engine: str) -> None:
    docs = _docs(30)
    # a repeated id (the last wins, placed where it comes last) and chunked sections
    docs.insert(3, {**docs[20], "text": "an early copy of twenty"})
    docs.append({"id": "long", "title": "Long", "text": "# Long\n\nintro\n\n## Part\n\nmore text"})
    batch, single = LocalTextSearch(engine=engine), LocalTextSearch(engine=engine)
    batch.add_documents(_docs(12, "old"))  # replaced by the batch
    single.add_documents(_docs(12, "old"))
    batch.add_documents(docs, chunk=True)
    for doc in docs:
        single.add_documents([doc], chunk=True)
    assert _stored(batch) == _stored(single)
    ids = [row[0] for row in _stored(batch)]
    assert ids.count("d20") == 1 and ids.index("d20") == ids.index("d19") + 1
    assert not any("early copy" in row[-1] for row in _stored(batch))
    for search_filter in (
        None,
        TextSearchFilter().equal_to("group", "g1"),
        TextSearchFilter().any_tag_equal_to("tags", "t1"),
        TextSearchFilter().greater_than("year", 2010),
        TextSearchFilter().equal_to("site", "example.com"),
    ):
        # every match (index statistics differ by the rows deleted on the way: not the order)
        found = [
            sorted(
                r.link
                for r in s.get_text_search_results_sync(
                    "retry jitter", filter=search_filter, top=50
                )
            )
            for s in (batch, single)
        ]
        assert found[0] == found[1] and found[0]
    assert batch.get_text_search_results_sync("old").results == []


@pytest.mark.parametrize("engine", ENGINES)
def test_batched_vectors_follow_their_passages(engine: str, tmp_path: Path) -> None:
    def vectors(texts: list[str]) -> list[list[float]]:
        # a vector that names its text: the passage's own number in one coordinate
        return [[1.0, float(len(t)), float(sum(map(ord, t)) % 97)] for t in texts]

    embedder = FunctionEmbedder(vectors, model="toy", dimensions=3)
    path = str(tmp_path / "kb.sqlite3")
    search = LocalTextSearch(path, engine=engine, embedder=embedder, mode="semantic")
    search.add_documents(_docs(40))
    search.add_documents(_docs(5, "again"))  # replaced: their vectors are the new texts'
    rows = search._db.execute(
        "SELECT d.title, p.section, p.text, v.slot FROM passages AS p "
        "JOIN documents AS d ON d.rowid = p.doc JOIN passage_vectors AS v ON v.rowid = p.rowid"
    ).fetchall()
    assert len(rows) == 40
    from textsearch.connectors.local._vectorfile import read_vectors
    from textsearch.connectors.local._vectors import embedding_input

    stored = list(read_vectors(search._db, search._vectors_file(), [r[3] for r in rows]))
    import array

    for (title, section, text, _), blob in zip(rows, stored, strict=True):
        expected = vectors([embedding_input(title, section, text)])[0]
        norm = sum(x * x for x in expected) ** 0.5
        got = array.array("f", blob)
        assert all(abs(g - e / norm) < 1e-5 for g, e in zip(got, expected, strict=True))
    search.close()


@pytest.mark.skipif("tantivy" not in ENGINES, reason="tantivy is not installed")
def test_filter_tokens_kept_per_batch_are_each_documents_own() -> None:
    from textsearch.connectors.local._tantivy import document_tokens

    # values equal in Python (True == 1 == 1.0, 0.0 == -0.0) but not to the filters
    values: list[Any] = [True, 1, 1.0, 0.0, -0.0, False, 0, None, "1", "2024-05-01", 2.5]
    values += [["a", "b"], ["b", "a"], [], 2**62]
    cache: dict[Any, list[str]] = {}
    for round_ in range(2):  # the second round reads every token from the cache
        for i, value in enumerate(values):
            for site in ("docs.example.com", "example.com", None):
                metadata = {"v": value, "w": values[-1 - i]}
                args = (f"id{i}", f"https://x/{i}", site, metadata)
                assert document_tokens(*args, cache) == document_tokens(*args), (round_, value)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_batch_is_written_with_the_collector_off(engine: str, tmp_path: Path) -> None:
    # Everything a batch builds lives until the call returns, so a collection meanwhile
    # frees nothing of it: the collector is off while the batch is embedded and written,
    # and on again after it.
    import gc

    seen: list[bool] = []

    def embed(texts: list[str]) -> list[list[float]]:
        seen.append(gc.isenabled())
        return [[1.0, 0.5, 0.25] for _ in texts]

    embedder = FunctionEmbedder(embed, model="m", dimensions=3)
    search = LocalTextSearch(str(tmp_path / "i.sqlite3"), engine=engine, embedder=embedder)
    search._db.set_trace_callback(lambda _: seen.append(gc.isenabled()))
    search.add_documents(_docs(50))
    search._db.set_trace_callback(None)
    assert len(seen) > 3
    assert not any(seen)
    assert gc.isenabled()
    gc.disable()  # a caller that turned it off finds it off still
    try:
        search.add_documents(_docs(10, "again"))
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert search.document_count == 50
    search.close()
