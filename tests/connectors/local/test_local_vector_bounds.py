"""The int8 scan's upper bounds, and the exact top k they lead to.

``_Quantised.upper`` folds the approximate cosine and its error bound into one array in fewer
passes; each bound must still be at least the exact float32 cosine (or a row of the top k could
be skipped), and the ranking a `VectorIndex` returns must be the exact one, ties by rowid.
"""

from __future__ import annotations

import threading

import pytest

from tests.connectors.local.vector_files import write_vector_files
from textsearch.connectors.local import _vectors

np = pytest.importorskip("numpy")
nk = pytest.importorskip("numkong")


def _rows(rng: object, count: int, dims: int) -> object:
    rows = rng.standard_normal((count, dims)).astype(np.float32)  # type: ignore[attr-defined]
    rows[:40, 5] = 30.0  # a dominant component: coarse int8 steps for those rows
    rows[40:50] = 0.0
    rows[40:50, 1] = 1.0  # one-hot rows, all tied for a query along that axis
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def test_every_upper_bound_is_at_least_the_exact_cosine() -> None:
    rng = np.random.default_rng(21)
    rows = _rows(rng, 3000, 64)
    quantised = _vectors._Quantised.of(np, nk, rows)
    subset = np.arange(3, 3000, 11)
    for _ in range(25):
        query = rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = rows @ query
        upper = quantised.upper(query, None)
        assert upper.shape == exact.shape and np.all(upper >= exact)
        approx, slack = quantised.scores(query, None)
        # The same bound as the approximate score plus its slack, up to float32 rounding.
        assert np.allclose(upper, approx + slack, rtol=0, atol=1e-6)
        assert not np.allclose(upper, exact, rtol=0, atol=1e-6)  # a bound, not the cosine
        part = quantised.upper(query, subset)
        assert np.allclose(part, upper[subset], rtol=0, atol=1e-6)


def test_the_top_k_from_the_bounds_is_the_exact_ranking(tmp_path: object) -> None:
    rng = np.random.default_rng(4)
    count, dims = 2500, 48
    rows = _rows(rng, count, dims)
    # rowids in reverse slot order: ties must be broken by rowid, not by slot
    entries = [(count - i, i + 1, b"", row.tobytes()) for i, row in enumerate(rows)]
    db, store = write_vector_files(str(tmp_path) + "/v.sqlite3", dims, [entries])
    index = _vectors.VectorIndex()
    index.quantise_from = 1
    index.follow(db, store)
    assert index.quantised
    queries = [rng.standard_normal(dims).astype(np.float32) for _ in range(30)]
    axis = np.zeros(dims, dtype=np.float32)
    axis[1] = 1.0
    queries.append(axis)  # the ten one-hot rows tie at cosine 1
    for query in queries:
        unit = query / np.linalg.norm(query)
        exact = rows @ unit
        for k in (1, 10, 25):
            want = sorted(range(count), key=lambda s: (-float(exact[s]), count - s))[:k]
            got = index.search(query.tolist(), k, None)[0]
            assert [rowid for rowid, _ in got] == [count - s for s in want]
            assert all(
                abs(score - float(exact[s])) < 1e-6 for (_, score), s in zip(got, want, strict=True)
            )
    db.close()
    store.close()


@pytest.mark.parametrize("cores", [2, 3, 4])
def test_a_scan_split_between_threads_gives_every_row_its_own_product(
    monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    rng = np.random.default_rng(9)
    rows = _rows(rng, 1001, 32)
    quantised = _vectors._Quantised.of(np, nk, rows)
    query = rng.standard_normal(32).astype(np.float32)
    query /= np.linalg.norm(query)
    whole = quantised.upper(query, None)  # 1,001 rows: one share
    calls: list[tuple[bool, int]] = []  # (in the caller's thread, rows)
    scan = nk.cdist

    def counted(query: object, codes: object, **kwargs: object) -> object:
        calls.append((threading.current_thread() is threading.main_thread(), len(codes)))  # type: ignore[arg-type]
        return scan(query, codes, **kwargs)

    monkeypatch.setattr(_vectors, "SPLIT_ROWS", 100)
    monkeypatch.setattr(_vectors, "_cores", lambda: cores)
    monkeypatch.setattr(quantised._nk, "cdist", counted)
    split = quantised.upper(query, None)
    # One share per core: the caller's thread scans one, a thread each the others.
    assert len(calls) == cores and sum(rows for _, rows in calls) == 1001
    assert sorted(main for main, _ in calls) == [False] * (cores - 1) + [True]
    assert split.shape == whole.shape and np.array_equal(split, whole)  # same rows, same order
    subset = np.arange(0, 1001, 2)  # a broad filter: the whole scan, then its rows
    assert np.array_equal(quantised.upper(query, subset), whole[subset])


def test_a_failure_in_a_share_is_raised_in_the_callers_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(3)
    quantised = _vectors._Quantised.of(np, nk, _rows(rng, 400, 16))
    scan = nk.cdist

    def fails_past_the_first_share(query: object, codes: object, **kwargs: object) -> object:
        if threading.current_thread() is not threading.main_thread():
            raise MemoryError("no room for this share")
        return scan(query, codes, **kwargs)

    monkeypatch.setattr(_vectors, "SPLIT_ROWS", 100)
    monkeypatch.setattr(_vectors, "_cores", lambda: 2)
    monkeypatch.setattr(quantised._nk, "cdist", fails_past_the_first_share)
    query = np.ones(16, dtype=np.float32) / 4
    with pytest.raises(MemoryError, match="no room"):
        quantised.upper(query, None)
