"""Passage vectors in the index file, and exact nearest neighbours over them in memory.

A vector is stored per passage (``passage_vectors``, float32 bytes, keyed by the passage's
rowid) with a digest of the text it was made from, so that a re-indexed file whose passage
did not change keeps its vector without calling the embedder again. The meta table records
the embedder's ``model`` and ``dimensions``; another model's vectors are never mixed in.

Search is exact: every vector is held in one float32 matrix (rows scaled to unit length),
and a query costs one matrix-vector product and a partial sort (``numpy.argpartition``).
Measured in ``benchmarks/bench_local.py --vectors``. Without numpy a pure-Python loop does
the same work, fine for small indexes; numpy is imported only here, only when searching by
meaning, so ``import textsearch`` never loads it.

Other processes: a trigger deletes a passage's vector with the passage and moves the
``vector_generation`` meta row on, as every write of vectors does; a search whose loaded
generation is not the stored one loads the matrix again.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import operator
import sqlite3
from array import array
from collections.abc import Callable, Iterable, Sequence
from importlib.util import find_spec
from typing import Any

from textsearch.errors import ConfigurationError

__all__ = ["VectorIndex", "create_vector_tables", "digest", "embedding_input", "encode"]

MODEL_KEY = "embedding_model"
DIMENSIONS_KEY = "embedding_dimensions"
GENERATION_KEY = "vector_generation"

_BUMP = (
    f"INSERT INTO textsearch_meta VALUES ('{GENERATION_KEY}', '1') ON CONFLICT(key) "
    "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)

_TABLE = (
    "CREATE TABLE IF NOT EXISTS passage_vectors("
    "rowid INTEGER PRIMARY KEY, digest BLOB NOT NULL, vector BLOB NOT NULL)"
)
# In the schema rather than in our code: a writer that knows nothing of vectors (an older
# release, or an instance opened without an embedder) still deletes them with their passage.
_TRIGGER = (
    "CREATE TRIGGER IF NOT EXISTS passage_vectors_follow AFTER DELETE ON passages "
    "WHEN EXISTS (SELECT 1 FROM passage_vectors WHERE rowid = old.rowid) BEGIN "
    "DELETE FROM passage_vectors WHERE rowid = old.rowid; " + _BUMP + "; END"
)


def create_vector_tables(db: sqlite3.Connection) -> None:
    """Create the vector table and its trigger (inside the caller's write transaction)."""
    db.execute(_TABLE)
    db.execute(_TRIGGER)


def has_vector_table(db: sqlite3.Connection) -> bool:
    return (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'passage_vectors'"
        ).fetchone()
        is not None
    )


def bump_generation(db: sqlite3.Connection) -> None:
    db.execute(_BUMP)


def embedding_input(title: str | None, section: str | None, text: str) -> str:
    """What is embedded for a passage: its document title and section name give it context."""
    head = "\n".join(part for part in (title, section) if part)
    return f"{head}\n{text}" if head else text


def digest(text: str) -> bytes:
    """Identifies the embedded text, so an unchanged passage keeps its vector."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def encode(vector: Sequence[float]) -> bytes:
    return array("f", vector).tobytes()


def _numpy() -> Any:
    if find_spec("numpy") is None:
        return None
    import numpy

    return numpy


class VectorIndex:
    """Every stored vector of one index file, normalised, in one matrix."""

    def __init__(self) -> None:
        self.generation: str | None = None
        self.dimensions = 0
        self._np = _numpy()
        self._rowids: Any = array("q")
        self._docs: Any = array("q")
        self._matrix: Any = array("f")
        self._row_of: dict[int, int] | None = None

    def __len__(self) -> int:
        return len(self._rowids)

    def follow(self, db: sqlite3.Connection) -> None:
        """Load the matrix again when vectors changed since it was loaded (any process)."""
        row = db.execute(
            "SELECT value FROM textsearch_meta WHERE key = ?", (GENERATION_KEY,)
        ).fetchone()
        generation = str(row[0]) if row is not None else "0"
        if generation != self.generation:
            self._load(db)
            self.generation = generation

    def _load(self, db: sqlite3.Connection) -> None:
        self._row_of = None
        if not has_vector_table(db):
            self._rowids, self._docs, self._matrix = array("q"), array("q"), array("f")
            return
        # Streamed into one flat array: memory stays near one copy of the matrix.
        rowids, docs, flat = array("q"), array("q"), array("f")
        size = None
        for rowid, doc, blob in db.execute(
            "SELECT v.rowid, p.doc, v.vector FROM passage_vectors AS v "
            "JOIN passages AS p ON p.rowid = v.rowid ORDER BY v.rowid"
        ):
            if size is None:
                size = len(blob)
            if len(blob) != size or size % 4:
                raise ConfigurationError(
                    "the index holds vectors of different lengths; call drop_vectors() and "
                    "embed_missing_sync() to embed it again"
                )
            rowids.append(rowid)
            docs.append(doc)
            flat.frombytes(blob)
        count = len(rowids)
        dims = (size or 0) // 4
        self.dimensions = dims
        np = self._np
        if np is not None:
            self._rowids = np.frombuffer(rowids, dtype=np.int64) if count else np.zeros(0, np.int64)
            self._docs = np.frombuffer(docs, dtype=np.int64) if count else np.zeros(0, np.int64)
            matrix = (
                np.frombuffer(flat, dtype=np.float32).reshape(count, dims)
                if count
                else np.zeros((0, 0), np.float32)
            )
            norms = np.linalg.norm(matrix, axis=1)
            norms[norms == 0] = 1.0
            matrix /= norms[:, None]
            self._matrix = matrix
            return
        self._rowids, self._docs = rowids, docs
        for i in range(count):
            part = flat[i * dims : (i + 1) * dims]
            norm = math.sqrt(sum(x * x for x in part)) or 1.0
            flat[i * dims : (i + 1) * dims] = array("f", (x / norm for x in part))
        self._matrix = flat

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
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None], int]:
        """The ``k`` nearest passages as ``(rowid, cosine)``, best first.

        Also returns the cosine of any admitted passage by rowid (``None``: no vector, or
        not admitted), for fusing with the keyword arm, and how many passages are admitted.
        ``memo`` (one per query) keeps the scores, so that asking again for a larger ``k``
        (a page short after merging sections) costs a partial sort, not another product.
        """
        count = len(self._rowids)
        if not count or k <= 0:
            return [], _none, 0
        if len(query) != self.dimensions:
            raise ConfigurationError(
                f"the query vector has {len(query)} dimensions and the index's vectors "
                f"{self.dimensions}"
            )
        np = self._np
        if np is not None:
            if memo is not None and "scores" in memo:
                scores, admitted = memo["scores"], memo["admitted"]
            else:
                scores = self._matrix @ np.asarray(self._unit(query), dtype=np.float32)
                if allowed_docs is not None:
                    allowed = np.fromiter(allowed_docs, dtype=np.int64)
                    keep = np.isin(self._docs, allowed)
                    scores = np.where(keep, scores, -np.inf)
                    admitted = int(keep.sum())
                else:
                    admitted = count
                if memo is not None:
                    memo["scores"], memo["admitted"] = scores, admitted
            k = min(k, admitted)
            if k <= 0:
                return [], _none, 0
            if k < count:
                # The k largest, without a negated copy of every score.
                top = np.argpartition(scores, count - k)[count - k :]
            else:
                top = np.arange(count)
            order = top[np.lexsort((self._rowids[top], -scores[top]))]
            ranked = [
                (int(r), float(s))
                for r, s in zip(self._rowids[order].tolist(), scores[order].tolist(), strict=True)
            ]

            def score_of(rowid: int) -> float | None:
                row = self.row_of(rowid)
                if row is None:
                    return None
                value = float(scores[row])
                return None if value == -math.inf else value

            return ranked, score_of, admitted
        if memo is not None and "pairs" in memo:
            pairs = memo["pairs"]
        else:
            pairs = self._pairs_py(query, allowed_docs)
            if memo is not None:
                memo["pairs"] = pairs
        best = heapq.nsmallest(k, pairs, key=lambda p: (-p[1], p[0]))
        lookup = dict(pairs)
        return [(int(r), float(s)) for r, s in best], lookup.get, len(pairs)

    def _pairs_py(
        self, query: Sequence[float], allowed_docs: Iterable[int] | None
    ) -> list[tuple[int, float]]:
        all_scores = self._scores_py(self._unit(query))
        docs = self._docs
        rowids = self._rowids
        if allowed_docs is not None:
            wanted = set(allowed_docs)
            pairs = [(rowids[i], s) for i, s in enumerate(all_scores) if docs[i] in wanted]
        else:
            pairs = list(zip(rowids, all_scores, strict=True))
        return pairs

    def row_of(self, rowid: int) -> int | None:
        if self._row_of is None:
            self._row_of = {int(r): i for i, r in enumerate(self._rowids)}
        return self._row_of.get(rowid)


def _none(rowid: int) -> float | None:
    return None
