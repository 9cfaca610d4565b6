"""The int8 scan's upper bounds, and the exact top k they lead to.

``_Quantised.upper`` folds the approximate cosine and its error bound into one array in fewer
passes; each bound must still be at least the exact float32 cosine (or a row of the top k could
be skipped), and the ranking a `VectorIndex` returns must be the exact one, ties by rowid.
"""

from __future__ import annotations

import os
import signal
import time

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


@pytest.mark.parametrize("sampled", [False, True], ids=["partial sort", "sampled threshold"])
def test_the_top_k_from_the_bounds_is_the_exact_ranking(
    tmp_path: object, sampled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sampled:  # the threshold read off a sample, at this small size too
        monkeypatch.setattr(_vectors, "_SAMPLED_FROM", 256)
        monkeypatch.setattr(_vectors, "_SAMPLE", 64)
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


def _score_sets() -> list[tuple[str, object]]:
    rng = np.random.default_rng(8)
    count = _vectors._SAMPLED_FROM * 2 + 17
    normal = rng.standard_normal(count).astype(np.float32)
    sets = [
        ("normal", normal),
        ("ascending", np.sort(normal)),
        ("descending", np.sort(normal)[::-1].copy()),
        ("constant", np.full(count, 0.25, dtype=np.float32)),
        ("few values", rng.integers(0, 5, count).astype(np.float32)),
    ]
    # the sample's own positions hold the largest scores, the rest sit just below them
    spaced = np.full(count, 0.5, dtype=np.float32)
    spaced[:: count // _vectors._SAMPLE] = 1.0
    sets.append(("sample holds the top", spaced))
    low = normal.copy()
    low[:: count // _vectors._SAMPLE] = -np.inf  # the sample sees nothing of the top
    sets.append(("sample holds the bottom", low))
    return sets


_SETS = _score_sets()


@pytest.mark.parametrize(("name", "scores"), _SETS, ids=[name for name, _ in _SETS])
def test_highest_picks_what_a_partial_sort_picks(name: str, scores: object) -> None:
    count = len(scores)  # type: ignore[arg-type]
    for k in (1, 7, 132, 1000, count // 3, count - 1):
        got = _vectors._highest(np, scores, k)
        assert len(got) == k and len(set(got.tolist())) == k, (name, k)
        want = np.argpartition(scores, count - k)[count - k :]
        # the same scores (which of several tied positions is free)
        assert np.array_equal(np.sort(scores[got]), np.sort(scores[want])), (name, k)  # type: ignore[index]


def test_a_scan_split_across_threads_gives_the_single_threads_products(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(13)
    rows = _rows(rng, 2003, 32)  # not a multiple of the thread count: uneven slices
    quantised = _vectors._Quantised.of(np, nk, rows)
    broad = np.arange(0, 2003, 2)  # a broad filter scores every row and keeps its own
    queries = [rng.standard_normal(32).astype(np.float32) for _ in range(5)]
    single = [(quantised.upper(q, None), quantised.upper(q, broad)) for q in queries]
    monkeypatch.setattr(_vectors, "_scan_threads", lambda: 4)
    quantised.thread_from = 1
    for query, (whole, part) in zip(queries, single, strict=True):
        assert np.array_equal(quantised.upper(query, None), whole)
        assert np.array_equal(quantised.upper(query, broad), part)
        approx, slack = quantised.scores(query, None)
        assert np.allclose(approx + slack, whole, rtol=0, atol=1e-6)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_scans_on_threads_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(17)
    rows = _rows(rng, 1001, 16)
    quantised = _vectors._Quantised.of(np, nk, rows)
    query = rng.standard_normal(16).astype(np.float32)
    want = quantised.upper(query, None)
    monkeypatch.setattr(_vectors, "_scan_threads", lambda: 3)
    quantised.thread_from = 1
    for _ in range(5):  # the parent's pool is made, its workers done and idle
        assert np.array_equal(quantised.upper(query, None), want)
    time.sleep(0.5)  # (a pool's idle workers are what a child would wrongly count on)
    pid = os.fork()
    if pid == 0:  # the child: the parent's pool threads do not exist here
        same = False
        try:
            same = bool(np.array_equal(quantised.upper(query, None), want))
        finally:
            os._exit(0 if same else 1)
    deadline = time.monotonic() + 300  # only a hang is a failure: a generous margin
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's scan never finished")
    assert os.waitstatus_to_exitcode(done[1]) == 0
