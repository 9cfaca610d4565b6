"""Semantic search on a large index: the int8 scan with exact float32 re-scoring.

From ``_vectors.QUANTISE_FROM`` vectors on (lowered here so that a few thousand passages take
that path), a query scores an int8 copy of the matrix first and re-scores in float32 every row
whose error bound lets it reach the top k. The result must be the exact ranking: these tests
compare it with cosines computed in plain Python, with filters, at every page, and after
writes by this instance and by another connection to the same file.
"""

from __future__ import annotations

import math
import random
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401  (every test on both engines)
from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.connectors.local import _vectors
from textsearch.embeddings import FunctionEmbedder

np = pytest.importorskip("numpy")
pytest.importorskip("numkong")

DIMS = 48
COUNT = 1500
CENTRES = 40


def _centre(number: int) -> list[float]:
    rng = random.Random(1000 + number)
    return [rng.gauss(0.0, 1.0) for _ in range(DIMS)]


def vector_of(text: str) -> list[float]:
    """A seeded vector per text, near one of a few centres (as real embeddings cluster)."""
    rng = random.Random(zlib.crc32(text.encode()))
    centre = _centre(zlib.crc32(text.encode()) % CENTRES)
    return [0.6 * c + 0.8 * rng.gauss(0.0, 1.0) for c in centre]


def embedder() -> FunctionEmbedder:
    return FunctionEmbedder(
        lambda texts: [vector_of(t) for t in texts], model="seeded-48", dimensions=DIMS
    )


def docs(count: int = COUNT, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"id": f"d{i}", "text": f"passage {i}", "metadata": {"team": f"t{i % 5}"}}
        for i in range(start, start + count)
    ]


def _unit(v: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def oracle(search: LocalTextSearch, query: str, team: str | None = None) -> list[tuple[str, float]]:
    """Every stored passage by exact cosine (plain Python), best first, ties by rowid."""
    q = _unit(vector_of(query))
    rows = search._db.execute(
        "SELECT p.rowid, d.id, d.metadata, p.text FROM passages AS p "
        "JOIN documents AS d ON d.rowid = p.doc"
    ).fetchall()
    scored = []
    for rowid, doc_id, metadata, text in rows:
        if team is not None and f'"team": "{team}"' not in metadata:
            continue
        v = _unit(vector_of(text))
        scored.append((-sum(a * b for a, b in zip(q, v, strict=True)), rowid, doc_id))
    scored.sort()
    return [(doc_id, -score) for score, _, doc_id in scored]


@pytest.fixture
def quantised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_vectors, "QUANTISE_FROM", 100)


def _semantic(path: Path | str = ":memory:") -> LocalTextSearch:
    return LocalTextSearch(path, embedder=embedder(), mode="semantic")


def _ids(search: LocalTextSearch, query: str, **options: Any) -> list[tuple[str, float]]:
    found = search.get_search_results_sync(query, **options)
    return [(r.id, r.score if r.score is not None else math.nan) for r in found]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [i for i, _ in got] == [i for i, _ in want]
    for (_, a), (_, b) in zip(got, want, strict=True):
        assert a == pytest.approx(b, abs=1e-5)


@pytest.mark.usefixtures("quantised")
def test_the_int8_scan_ranks_exactly_as_float32_cosines() -> None:
    search = _semantic()
    search.add_documents(docs())
    for query in ("passage 7", "passage 1234", "what is near nothing", "zzz"):
        got = _ids(search, query, top=50)
        assert search._vector_index is not None and search._vector_index.quantised
        _same(got, oracle(search, query)[:50])
    # a query equal to a passage finds it first, with cosine 1
    first = _ids(search, "passage 321", top=1)[0]
    assert first[0] == "d321" and first[1] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.usefixtures("quantised")
@pytest.mark.parametrize("team", ["t0", "t3"])
def test_filters_restrict_the_scan_at_every_page(team: str) -> None:
    search = _semantic()
    search.add_documents(docs())
    only = TextSearchFilter().equal_to("team", team)
    want = oracle(search, "passage 42", team)[:60]
    pages: list[tuple[str, float]] = []
    for skip in range(0, 60, 15):
        pages += _ids(search, "passage 42", top=15, skip=skip, filter=only)
    _same(pages, want)  # disjoint, in order, nothing from another team
    counted = search.get_search_results_sync(
        "passage 42", top=1, filter=only, include_total_count=True
    )
    assert counted.total_count == COUNT // 5


@pytest.mark.usefixtures("quantised")
def test_hybrid_with_the_int8_scan_matches_hybrid_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fast = LocalTextSearch(embedder=embedder())
    fast.add_documents(docs(600))
    only = TextSearchFilter().equal_to("team", "t1")
    results = {}
    for label, threshold in (("int8", 100), ("float32", 10**9)):
        monkeypatch.setattr(_vectors, "QUANTISE_FROM", threshold)
        fast._vector_index = None  # loaded again with this threshold
        results[label] = [
            _ids(fast, query, top=10, skip=skip, filter=f)
            for query in ("passage 17", "passage 5 passage 9")
            for skip in (0, 10)
            for f in (None, only)
        ]
        assert fast._vector_index is not None
        assert fast._vector_index.quantised == (label == "int8")
    for a, b in zip(results["int8"], results["float32"], strict=True):
        _same(a, b)


@pytest.mark.usefixtures("quantised")
def test_near_identical_vectors_keep_a_stable_order_across_pages() -> None:
    # 300 copies of one text: identical vectors, equal scores; the bounds cannot separate
    # them, so the scan falls back to the float32 product; ties go to the lower rowid.
    same = [{"id": f"s{i:03}", "text": "passage 5"} for i in range(300)]
    search = _semantic()
    search.add_documents(same + docs(200, start=1000))
    paged = []
    for skip in range(0, 320, 40):
        paged += [r for r, _ in _ids(search, "passage 5", top=40, skip=skip)]
    assert paged[:300] == [f"s{i:03}" for i in range(300)]
    assert len(paged) == len(set(paged)) == 320


@pytest.mark.usefixtures("quantised")
def test_writes_by_this_instance_are_followed() -> None:
    search = _semantic()
    search.add_documents(docs(400))
    assert _ids(search, "passage 9000", top=1)[0][0] != "new"
    search.add_documents([{"id": "new", "text": "passage 9000", "metadata": {"team": "t1"}}])
    assert _ids(search, "passage 9000", top=1)[0][0] == "new"
    only = TextSearchFilter().equal_to("team", "t1")
    assert _ids(search, "passage 9000", top=1, filter=only)[0][0] == "new"
    search.remove_documents(["new"])
    assert "new" not in {i for i, _ in _ids(search, "passage 9000", top=20, filter=only)}
    assert search.drop_vectors() == 400
    assert _ids(search, "passage 9000", top=5) == []
    assert search.embed_missing_sync() == 400
    _same(_ids(search, "passage 3", top=20), oracle(search, "passage 3")[:20])


@pytest.mark.usefixtures("quantised")
def test_another_connection_writing_the_file_is_followed(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = _semantic(path)
    writer = LocalTextSearch(path, embedder=embedder())
    writer.add_documents(docs(400))
    only = TextSearchFilter().equal_to("team", "t2")
    _same(_ids(reader, "passage 77", top=10, filter=only), oracle(reader, "passage 77", "t2")[:10])
    # a new document the (cached) filter admits, and one it does not
    writer.add_documents(
        [
            {"id": "late", "text": "passage 77b", "metadata": {"team": "t2"}},
            {"id": "other", "text": "passage 77c", "metadata": {"team": "t4"}},
        ]
    )
    want = oracle(reader, "passage 77b", "t2")[:10]
    _same(_ids(reader, "passage 77b", top=10, filter=only), want)
    assert _ids(reader, "passage 77b", top=1, filter=only)[0][0] == "late"
    # metadata changed by a re-add under the same id moves the document out of the filter
    writer.add_documents([{"id": "late", "text": "passage 77b", "metadata": {"team": "t3"}}])
    assert "late" not in {i for i, _ in _ids(reader, "passage 77b", top=20, filter=only)}
    # an instance without an embedder deletes vectors with their passages (the trigger)
    LocalTextSearch(path).remove_documents(["d2", "d7"])
    assert not {"d2", "d7"} & {i for i, _ in _ids(reader, "passage 2", top=30)}
    _same(_ids(reader, "passage 2", top=30), oracle(reader, "passage 2")[:30])


def test_the_error_bound_holds_for_every_row() -> None:
    rng = np.random.default_rng(5)
    rows = rng.standard_normal((2000, 96)).astype(np.float32)
    rows[:50, 3] = 40.0  # a dominant component: coarse steps for those rows
    rows[50:60] = 0.0
    rows[50:60, 0] = 1.0  # one-hot rows
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    nk = _vectors._numkong()
    assert nk is not None
    quantised = _vectors._Quantised.of(np, nk, rows)
    for _ in range(20):
        query = rng.standard_normal(96).astype(np.float32)
        query /= np.linalg.norm(query)
        approx, slack = quantised.scores(query, None)
        exact = rows @ query
        assert np.all(np.abs(approx - exact) <= slack)
        subset = np.arange(0, 2000, 7)
        part, part_slack = quantised.scores(query, subset)
        assert np.allclose(part, approx[subset]) and np.allclose(part_slack, slack[subset])
