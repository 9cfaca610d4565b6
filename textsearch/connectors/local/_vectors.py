"""Passage vectors of a local index, and exact nearest neighbours over them.

A vector is stored per passage (in the matrix files of ``_vectorfile``, beside the index
file; ``passage_vectors`` maps the passage's rowid to its row) with a digest of the text it
was made from, so that a re-indexed file whose passage did not change keeps its vector
without calling the embedder again. The meta table records the embedder's ``model`` and
``dimensions``; another model's vectors are never mixed in.

Search is exact: the unit-length float32 rows are mapped from their file, and a query costs
one matrix-vector product and a partial sort (``numpy.argpartition``). From
``QUANTISE_FROM`` vectors on, and when numkong is installed (the ``semantic`` extra), the
product is first taken over the int8 copy stored beside them (a quarter of the bytes to
read, SIMD integer dot products): each approximate cosine comes with a bound on its error,
so the few passages that can still reach the top are scored again in float32 and the result
is the exact float32 ranking, not an approximation (see ``_Quantised``); measured in
``benchmarks/bench_local.py --vectors`` and ``bench_local_vectors.py``. Without numpy a
pure-Python loop does the same work, fine for small indexes; numpy and numkong are imported
only here, only when searching by meaning, so ``import textsearch`` never loads them.

Other processes: a trigger marks a passage's vector dead with the passage and moves the
``vector_generation`` meta row on, as every write of vectors does; a search whose mapped
generation is not the stored one maps the files again (cheap: nothing is read up front).
"""

from __future__ import annotations

import heapq
import math
import operator
import os
import sqlite3
import threading
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

from textsearch.documents._passages import embedding_input
from textsearch.errors import ConfigurationError

__all__ = ["VectorIndex", "create_vector_tables", "digest", "embedding_input", "encode"]

MODEL_KEY = "embedding_model"
DIMENSIONS_KEY = "embedding_dimensions"
GENERATION_KEY = "vector_generation"


def create_vector_tables(db: sqlite3.Connection) -> None:
    """Create the vector tables and their triggers (inside the caller's write transaction)."""
    from textsearch.connectors.local._vectorfile import create_tables

    create_tables(db)


def has_vector_table(db: sqlite3.Connection) -> bool:
    from textsearch.connectors.local._vectorfile import has_tables

    return has_tables(db)


def bump_generation(db: sqlite3.Connection) -> None:
    from textsearch.connectors.local._vectorfile import BUMP

    db.execute(BUMP)


def digest(text: str) -> bytes:
    """Identifies the embedded text, so an unchanged passage keeps its vector."""
    import hashlib  # here: a search never needs it (it loads OpenSSL)

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def encode(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def encode_many(vectors: Sequence[Sequence[float]]) -> list[bytes]:
    """float32 bytes of each vector (one numpy conversion for all of them when installed)."""
    np = _numpy()
    if np is None or not vectors:
        return [encode(v) for v in vectors]
    rows = np.asarray(vectors, dtype=np.float32)
    return [row.tobytes() for row in rows]


#: Vectors from which a query first scores the int8 copy of the matrix. Below it the float32
#: product reads at most ~30 MB (384 dimensions), a few milliseconds, and the copy would add a
#: quarter to the memory for about a millisecond saved.
QUANTISE_FROM = 20_000
#: From how many rows a scan of every int8 row is split across threads (numkong releases
#: the GIL; below this the threads' start-up costs more than they save).
THREAD_FROM = 262_144
_SCAN_THREADS = 4
#: Added to each error bound: float32 rounding of the products (scores are near 1, so
#: rounding is ~1e-7 each; the margin only widens the exact re-scoring slightly).
_ROUNDING = 1e-4


def _numpy() -> Any:
    from textsearch.connectors.local._vectorfile import numpy_or_none

    return numpy_or_none()


def _numkong() -> Any:
    if find_spec("numkong") is None:
        return None
    try:
        import numkong
    except ImportError:  # a wheel built for another CPU or platform: stay on float32
        return None
    return numkong


class _Quantised:
    """An int8 copy of the unit-length matrix, and what bounds the error of its scores.

    Each row is scaled by its own largest component (``step`` = largest / 127), so a row's
    error per component is at most ``step / 2``; the query is quantised the same way. For a
    row ``x`` and query ``q`` with quantised ``x'``, ``q'``:
    ``x.q - x'.q' = (x - x').q + x'.(q - q')``, so ``|x.q - x'.q'| <= step/2 * |q|_1 +
    qstep/2 * |x'|_1``. A row whose approximate score plus that bound is below the k-th best
    exact score cannot be in the top k: only the others are scored in float32.
    """

    def __init__(self, np: Any, nk: Any, codes: Any, step: Any, l1: Any) -> None:
        # Built once when the vectors are written (``_vectorfile.prepare``) and mapped here;
        # ``step`` and ``l1`` are copied out of the ``.ids`` records once (a view of them
        # strides 24 bytes a row, and every query reads both whole).
        self._np, self._nk = np, nk
        self.codes = codes
        self.step, self.l1 = np.ascontiguousarray(step), np.ascontiguousarray(l1)
        #: Settable (tests): from how many rows a full scan is split across threads.
        self.thread_from = THREAD_FROM

    @classmethod
    def of(cls, np: Any, nk: Any, matrix: Any) -> _Quantised:
        """The int8 copy of a unit-length float32 matrix, as the writer stores it."""
        from textsearch.connectors.local._vectorfile import prepare

        count, dims = matrix.shape
        _, codes, extra = prepare([row.tobytes() for row in matrix], dims)
        pairs = np.asarray(extra, dtype=np.float32).reshape(count, 2)
        return cls(
            np,
            nk,
            np.frombuffer(codes, dtype=np.int8).reshape(count, dims),
            np.ascontiguousarray(pairs[:, 0]),
            np.ascontiguousarray(pairs[:, 1]),
        )

    def _operands(self, query: Any, rows: Any) -> tuple[Any, float, Any, Any, Any, bool]:
        """The quantised ``query`` and its step, the codes, steps and L1 norms to scan, and
        whether ``rows`` (``None``: every row) were gathered out of the matrix."""
        np = self._np
        codes, step, l1 = self.codes, self.step, self.l1
        # A selective filter scores its rows only; a broad one scores every row and keeps
        # its own (copying most of the matrix would cost more than the product).
        gather = rows is not None and len(rows) <= len(codes) // 8
        if gather:
            codes, step, l1 = codes[rows], step[rows], l1[rows]
        peak = float(np.abs(query).max()) or 1.0
        qstep = peak / 127
        qcodes = np.rint(query / qstep).astype(np.int8)
        return qcodes[None, :], qstep, codes, step, l1, gather

    def _product(self, qcodes: Any, codes: Any, finish: Callable[[Any, slice], None]) -> Any:
        """``codes . qcodes`` as float32, each slice then turned by ``finish(out, where)`` in
        place; a large matrix's slices on threads at once (the products and the arithmetic
        after them both: a slice is still in cache when it is finished)."""
        np, nk = self._np, self._nk
        count = len(codes)
        threads = _scan_threads() if count >= max(self.thread_from, 2) else 1
        out = np.empty((1, count), dtype=np.float32)
        bounds = [count * part // threads for part in range(threads + 1)]

        def part(index: int) -> None:
            where = slice(bounds[index], bounds[index + 1])
            nk.cdist(qcodes, codes[where], metric="dot", out_dtype="float32", out=out[:, where])
            finish(out[0, where], where)

        pending = [_pool().submit(part, index) for index in range(1, threads)]
        part(0)
        for future in pending:
            future.result()
        return out.reshape(-1)

    def scores(self, query: Any, rows: Any) -> tuple[Any, Any]:
        """Approximate cosines of the unit ``query`` with ``rows`` (``None``: every row), and
        their error bounds."""
        np = self._np
        qcodes, qstep, codes, step, l1, gather = self._operands(query, rows)
        dots = self._product(qcodes, codes, lambda out, where: None)
        if rows is not None and not gather:
            dots, step, l1 = dots[rows], step[rows], l1[rows]
        approx = dots * (step * np.float32(qstep))
        slack = step * np.float32(0.5 * float(np.abs(query).sum())) + l1 * np.float32(0.5 * qstep)
        slack += np.float32(_ROUNDING)
        return approx, slack

    def upper(self, query: Any, rows: Any) -> Any:
        """Upper bounds of the cosines of the unit ``query`` with ``rows`` (``None``: every
        row): ``approx + slack`` of `scores`, in fewer passes over the rows."""
        np = self._np
        qcodes, qstep, codes, step, l1, gather = self._operands(query, rows)
        scale, half_step = np.float32(qstep), np.float32(0.5 * qstep)
        half_l1 = np.float32(0.5 * float(np.abs(query).sum()))
        rounding = np.float32(_ROUNDING)

        def finish(bound: Any, where: slice) -> None:
            # step * (qstep * dots + |q|_1 / 2) + qstep / 2 * l1, each pass in place but one.
            bound *= scale
            bound += half_l1
            bound *= step[where]
            bound += l1[where] * half_step
            bound += rounding

        bound = self._product(qcodes, codes, finish)
        return bound[rows] if rows is not None and not gather else bound


_pool_lock = threading.Lock()
_pool_state: tuple[int, Any] | None = None


def _scan_threads() -> int:
    """How many threads one full scan uses: the CPUs this process may run on, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cpus = os.cpu_count() or 1
    return min(_SCAN_THREADS, cpus)


def _pool() -> Any:
    """The process's scan threads, made on first use and again in a forked child (a
    parent's threads do not exist there)."""
    global _pool_state
    with _pool_lock:
        if _pool_state is None or _pool_state[0] != os.getpid():
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(_SCAN_THREADS - 1, thread_name_prefix="textsearch-scan")
            _pool_state = (os.getpid(), pool)
        return _pool_state[1]


def _remembered(memo: dict[str, Any] | None, key: str, make: Callable[[], Any]) -> Any:
    """``make()``, kept in ``memo`` (when there is one) for the next ask of the same query."""
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


class VectorIndex:
    """Every stored vector of one index file, mapped from its matrix files (``_vectorfile``).

    Rows of dead slots (their passage deleted, not compacted yet) are never ranked.
    """

    def __init__(self) -> None:
        self.generation: str | None = None
        self.dimensions = 0
        self._np = _numpy()
        self._rowids: Any = array("q")
        self._docs: Any = array("q")
        self._matrix: Any = array("f")
        self._live: Any = None  # numpy: rows not dead (None: all of them)
        self._live_rows: Any = None
        self._live_count = 0
        self._max_doc = 0
        self._sorted: tuple[Any, Any] | None = None
        self._row_of: dict[int, int] | None = None
        self._quantised: _Quantised | None = None
        #: Settable (tests): from how many vectors the int8 copy is used.
        self.quantise_from = QUANTISE_FROM
        self._admitted: dict[tuple[str, tuple[Any, ...]], tuple[tuple[int, int], array[int]]] = {}

    @property
    def quantised(self) -> bool:
        """Whether queries first score the int8 copy (numkong installed, a large index)."""
        return self._quantised is not None

    def __len__(self) -> int:
        return self._live_count

    def follow(self, db: sqlite3.Connection, store: Any) -> None:
        """Map the vectors again when they changed since they were mapped (any process)."""
        row = db.execute(
            "SELECT value FROM textsearch_meta WHERE key = ?", (GENERATION_KEY,)
        ).fetchone()
        generation = str(row[0]) if row is not None else "0"
        if generation != self.generation:
            self._load(db, store)
            self.generation = generation

    def _load(self, db: sqlite3.Connection, store: Any) -> None:
        from textsearch.connectors.local import _vectorfile as vf

        self._row_of = None
        self._sorted = None
        self._quantised = None
        self._live = self._live_rows = None
        count = dims = 0
        dead: list[int] = []
        maps: dict[str, Any] = {}
        for attempt in range(10):
            # One snapshot for the state; the files of its epoch are immutable below its count.
            in_txn = db.in_transaction
            if not in_txn:
                db.execute("BEGIN")
            try:
                if not vf.has_tables(db):
                    count = 0
                    break
                count, epoch, dims = vf.state(db)
                dead = vf.dead_slots(db) if count else []
            finally:
                if not in_txn:
                    db.execute("COMMIT")
            try:
                maps = {
                    "ids": store.map(epoch, "ids", count * vf.IDS.size),
                    "f32": store.map(epoch, "f32", count * dims * 4),
                    "i8": store.map(epoch, "i8", count * dims),
                }
                break
            except FileNotFoundError:  # compacted by another process meanwhile
                if attempt == 9:
                    raise ConfigurationError(
                        "the vector files beside the index are missing or short; call "
                        "drop_vectors() and embed_missing_sync() to embed it again"
                    ) from None
        self.dimensions = dims if count else 0
        self._live_count = count - len(dead)
        np = self._np
        if np is None:
            self._load_py(maps, count, dims, set(dead))
            return
        if not count:
            self._rowids, self._docs = np.zeros(0, np.int64), np.zeros(0, np.int64)
            self._matrix = np.zeros((0, 0), np.float32)
            return
        ids = np.frombuffer(maps["ids"], dtype=_ids_dtype(np), count=count)
        self._rowids, self._docs = ids["rowid"], ids["doc"]
        self._max_doc = int(self._docs.max())
        self._matrix = np.frombuffer(maps["f32"], dtype=np.float32).reshape(count, dims)
        if dead:
            live = np.ones(count, dtype=bool)
            live[np.asarray(dead, dtype=np.int64)] = False
            self._live, self._live_rows = live, np.flatnonzero(live)
        if self._live_count >= self.quantise_from:
            nk = _numkong()
            if nk is not None:
                codes = np.frombuffer(maps["i8"], dtype=np.int8).reshape(count, dims)
                self._quantised = _Quantised(np, nk, codes, ids["step"], ids["l1"])

    def _load_py(self, maps: dict[str, Any], count: int, dims: int, dead: set[int]) -> None:
        from textsearch.connectors.local._vectorfile import IDS

        rowids, docs, flat = array("q"), array("q"), array("f")
        if count:
            whole = array("f")
            whole.frombytes(bytes(maps["f32"]))
            for slot, (rowid, doc, _, _) in enumerate(IDS.iter_unpack(bytes(maps["ids"]))):
                if slot not in dead:
                    rowids.append(rowid)
                    docs.append(doc)
                    flat.extend(whole[slot * dims : (slot + 1) * dims])
        self._rowids, self._docs, self._matrix = rowids, docs, flat
        self._live_count = len(rowids)

    def admitted(self, db: sqlite3.Connection, where: str, params: Sequence[Any]) -> array[int]:
        """Rowids of the documents a filter admits (``where``: ``filter_sql``'s clause).

        Kept per filter until the file changes: a filter on the site or metadata reads every
        document (~20 ms at 100k), and a preset filter comes with every query. A change is
        seen by ``PRAGMA data_version`` (moved by other connections' commits) and by this
        connection's ``total_changes`` (its own writes).
        """
        stamp = (int(db.execute("PRAGMA data_version").fetchone()[0]), db.total_changes)
        key = (where, tuple(params))
        found = self._admitted.get(key)
        if found is not None and found[0] == stamp:
            return found[1]
        # Compact (8 bytes a document): up to 16 filters are kept.
        docs = array(
            "q",
            (
                r[0]
                for r in db.execute(f"SELECT d.rowid FROM documents AS d WHERE 1{where}", params)
            ),
        )
        if len(self._admitted) >= 16:
            self._admitted.clear()
        self._admitted[key] = (stamp, docs)
        return docs

    def _scores_py(self, query: list[float]) -> list[float]:
        dims = self.dimensions
        flat = self._matrix
        dot = getattr(math, "sumprod", None)  # Python 3.12+: a C loop
        out = []
        for i in range(len(self._rowids)):
            row = flat[i * dims : (i + 1) * dims]
            out.append(dot(query, row) if dot else sum(map(operator.mul, query, row)))
        return out

    def _unit(self, query: Sequence[float]) -> list[float]:
        norm = math.sqrt(sum(x * x for x in query)) or 1.0
        return [x / norm for x in query]

    def search(
        self,
        query: Sequence[float],
        k: int,
        allowed_docs: Iterable[int] | None,
        memo: dict[str, Any] | None = None,
        allowed_rows: Iterable[int] | None = None,
    ) -> tuple[list[tuple[int, float]], Callable[[list[int]], list[float | None]], int]:
        """The ``k`` nearest passages as ``(rowid, cosine)``, best first.

        ``allowed_docs``: only passages of these documents; ``allowed_rows``: only these
        passages (a filter on a passage's page).

        Also returns the cosines of admitted passages by rowid, many at a time (``None``:
        no vector, or not admitted), for fusing with the keyword arm, and how many passages
        are admitted.
        ``memo`` (one per query) keeps the scores, so that asking again for a larger ``k``
        (a page short after merging sections) costs a partial sort, not another product.
        """
        count = self._live_count
        if not count or k <= 0:
            return [], _nones, 0
        if len(query) != self.dimensions:
            raise ConfigurationError(
                f"the query vector has {len(query)} dimensions and the index's vectors "
                f"{self.dimensions}"
            )
        if self._np is not None:
            scored = _remembered(
                memo, "scored", lambda: self._score(query, allowed_docs, allowed_rows)
            )
            return self._top(scored, k)
        pairs = _remembered(
            memo, "pairs", lambda: self._pairs_py(query, allowed_docs, allowed_rows)
        )
        best = heapq.nsmallest(k, pairs, key=lambda p: (-p[1], p[0]))
        lookup = dict(pairs)
        return (
            [(int(r), float(s)) for r, s in best],
            lambda rowids: [lookup.get(r) for r in rowids],
            len(pairs),
        )

    def _score(
        self,
        query: Sequence[float],
        allowed_docs: Iterable[int] | None,
        allowed_rows: Iterable[int] | None = None,
    ) -> _Scored:
        np = self._np
        unit = np.asarray(self._unit(query), dtype=np.float32)
        rows, keep = self._live_rows, self._live
        if allowed_docs is not None:
            # A table indexed by document rowid: one gather, where numpy.isin sorts.
            wanted = np.fromiter(allowed_docs, dtype=np.int64)
            table = np.zeros(self._max_doc + 1, dtype=bool)
            table[wanted[(wanted >= 0) & (wanted < len(table))]] = True
            keep = table[self._docs] if keep is None else table[self._docs] & keep
            # Only the admitted rows are ranked: a partial sort over many equal -inf
            # scores is slow on a large index.
            rows = np.flatnonzero(keep)
        if allowed_rows is not None:
            hit = np.isin(self._rowids, np.fromiter(allowed_rows, dtype=np.int64))
            keep = hit if keep is None else keep & hit
            rows = np.flatnonzero(keep)
        if rows is not None and not len(rows):
            return _Scored(unit, np.zeros(0, np.float32), False, rows, keep)
        if self._quantised is not None:
            return _Scored(unit, self._quantised.upper(unit, rows), True, rows, keep)
        matrix = self._matrix if rows is None else self._matrix[rows]
        return _Scored(unit, matrix @ unit, False, rows, keep)

    def _top(
        self, scored: _Scored, k: int
    ) -> tuple[list[tuple[int, float]], Callable[[list[int]], list[float | None]], int]:
        np = self._np
        admitted = len(scored.scores)
        k = min(k, admitted)
        if k <= 0:
            return [], _nones, 0
        if not scored.bounded:
            top = _largest(np, scored.scores, k)
            exact = scored.scores[top]
        else:
            top, exact = self._rescored(scored, k)
        rowids = self._rowids[scored.matrix_rows(top)]
        order = np.lexsort((rowids, -exact))[:k]
        ranked = [
            (int(r), float(s))
            for r, s in zip(rowids[order].tolist(), exact[order].tolist(), strict=True)
        ]
        return ranked, self._cosines_of(scored), admitted

    def _rescored(self, scored: _Scored, k: int) -> tuple[Any, Any]:
        """The rows that can be in the top ``k`` by their upper bounds, scored exactly.

        The ``k`` + 32 rows of the highest bounds are scored in float32 first; the k-th best
        of those exact scores is a floor that every top-k row reaches (any rows would give
        one; these give a high one), and only rows whose bound reaches the floor can. Those
        are all scored in float32 (usually a few dozen more); when the bounds are too loose
        to exclude most rows (near-identical vectors), the float32 product is taken over
        every row instead.
        """
        np = self._np
        matrix, unit, upper = self._matrix, scored.unit, scored.scores
        count = len(upper)
        depth = min(count, k + 32)
        # Ties among these bounds need no care: they only pick rows for the floor.
        first = _highest(np, upper, depth)
        exact = matrix[scored.matrix_rows(first)] @ unit
        floor = np.partition(exact, len(exact) - k)[len(exact) - k]
        reach = np.flatnonzero(upper >= floor)
        if len(reach) > count // 4:
            every = (matrix if scored.rows is None else matrix[scored.rows]) @ unit
            top = _largest(np, every, k)
            return top, every[top]
        return reach, matrix[scored.matrix_rows(reach)] @ unit

    def _cosines_of(self, scored: _Scored) -> Callable[[list[int]], list[float | None]]:
        """The exact cosines of passages by rowid, in one product (``None``: no vector, or
        not admitted by the filter): the keyword hits that fusion scores by meaning too."""
        np = self._np
        keep = scored.keep
        every = scored.scores if scored.rows is None and not scored.bounded else None

        def cosines_of(rowids: list[int]) -> list[float | None]:
            rows = self._rows_of(rowids)
            found = rows >= 0
            if keep is not None:
                found &= keep[np.where(found, rows, 0)]
            hits = rows[found]
            values = every[hits] if every is not None else self._matrix[hits] @ scored.unit
            out: list[float | None] = [None] * len(rowids)
            for at, value in zip(np.flatnonzero(found).tolist(), values.tolist(), strict=True):
                out[at] = float(value)
            return out

        return cosines_of

    def _pairs_py(
        self,
        query: Sequence[float],
        allowed_docs: Iterable[int] | None,
        allowed_rows: Iterable[int] | None = None,
    ) -> list[tuple[int, float]]:
        all_scores = self._scores_py(self._unit(query))
        docs = self._docs
        rowids = self._rowids
        if allowed_docs is not None:
            wanted = set(allowed_docs)
            pairs = [(rowids[i], s) for i, s in enumerate(all_scores) if docs[i] in wanted]
        else:
            pairs = list(zip(rowids, all_scores, strict=True))
        if allowed_rows is not None:
            rows = set(allowed_rows)
            pairs = [pair for pair in pairs if pair[0] in rows]
        return pairs

    def row_of(self, rowid: int) -> int | None:
        """The matrix row of a live passage vector (``None``: it has none)."""
        if self._np is None:
            if self._row_of is None:
                self._row_of = {int(r): i for i, r in enumerate(self._rowids)}
            return self._row_of.get(rowid)
        row = int(self._rows_of([rowid])[0])
        return row if row >= 0 else None

    def _rows_of(self, rowids: list[int]) -> Any:
        """The matrix rows of live passage vectors, as an array (-1: none), by one search."""
        np = self._np
        if self._sorted is None:
            rows = self._live_rows if self._live_rows is not None else np.arange(len(self._rowids))
            keys = self._rowids[rows]
            if len(keys) > 1 and not bool((keys[1:] > keys[:-1]).all()):
                # Slots follow rowids as passages are added; sorted only when they do not.
                order = np.argsort(keys, kind="stable")
                keys, rows = keys[order], rows[order]
            self._sorted = (np.ascontiguousarray(keys), rows)
        keys, rows = self._sorted
        wanted = np.asarray(rowids, dtype=np.int64)
        if not len(keys):
            return np.full(len(wanted), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, rows[at], -1)


def _nones(rowids: list[int]) -> list[float | None]:
    return [None] * len(rowids)


def _largest(np: Any, scores: Any, k: int) -> Any:
    """Positions of the ``k`` largest scores and of any tied with the k-th, unordered.

    The ties are kept so that the caller's order (by score, then rowid) decides between
    them, not where the partial sort happened to leave them: pages stay reproducible.
    """
    count = len(scores)
    if k >= count:
        return np.arange(count)
    top = _highest(np, scores, k)
    kth = scores[top].min()
    if np.count_nonzero(scores == kth) > np.count_nonzero(scores[top] == kth):
        return np.flatnonzero(scores >= kth)
    return top


#: Scores from which `_highest` first cuts them down by a threshold read off a sample.
_SAMPLED_FROM = 65_536
_SAMPLE = 16_384


def _highest(np: Any, scores: Any, k: int) -> Any:
    """Positions of ``k`` of the largest scores (ties broken anyhow), unordered.

    A partial sort of a million scores walks them several times; most are far below the
    k-th. So a threshold is read off an evenly spaced sample, where about four times ``k``
    of all the scores should lie above it, and only the scores above it are partially
    sorted. The positions are those a partial sort of all of them gives (the same set, ties
    aside): when fewer than ``k`` reach the threshold, all of them are sorted after all.
    """
    count = len(scores)
    wanted = max(4 * k * _SAMPLE // max(count, 1), 8)
    if count < _SAMPLED_FROM or wanted >= _SAMPLE // 2:
        return np.argpartition(scores, count - k)[count - k :]
    sample = scores[:: count // _SAMPLE]
    size = len(sample)
    threshold = np.partition(sample, size - 1 - wanted)[size - 1 - wanted]
    above = np.flatnonzero(scores >= threshold)
    if len(above) < k:
        return np.argpartition(scores, count - k)[count - k :]
    picked = np.argpartition(scores[above], len(above) - k)[len(above) - k :]
    return above[picked]


def _ids_dtype(np: Any) -> Any:
    return np.dtype([("rowid", "<i8"), ("doc", "<i8"), ("step", "<f4"), ("l1", "<f4")])


@dataclass(slots=True)
class _Scored:
    """One query's scores over the whole matrix, kept while its depth grows.

    ``scores`` are exact cosines, or (``bounded``) upper bounds of them from the int8 copy,
    for the matrix rows ``rows`` (the rows the filter admits, ``keep``), or every row when
    there is no filter (``rows`` is ``None``).
    """

    unit: Any
    scores: Any
    bounded: bool
    rows: Any
    keep: Any

    def matrix_rows(self, positions: Any) -> Any:
        """Matrix rows of positions in ``scores``."""
        return positions if self.rows is None else self.rows[positions]
