"""Vectors written straight into an index's vector files, without text or a model.

For the tests of the vector index and for ``benchmarks/bench_local_vectors.py``, which both
need a large or hand-made matrix in place faster than ``add_documents`` can embed one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from textsearch.connectors.local import _vectorfile
from textsearch.connectors.local._schema import connect

__all__ = ["write_vector_files"]

#: One vector row: (rowid, document number, passage key, float32 bytes of the vector).
Entry = tuple[int, int, bytes, bytes]


def write_vector_files(
    path: str, dims: int, batches: Iterable[Sequence[Entry]]
) -> tuple[sqlite3.Connection, _vectorfile.VectorStore]:
    """Write each batch of entries into the index at ``path``, in one committed transaction.

    Returns the open connection and vector store (the caller closes them).
    """
    db = connect(path)
    store = _vectorfile.VectorStore(path)
    db.execute("BEGIN IMMEDIATE")
    _vectorfile.create_tables(db)
    db.execute(
        "INSERT OR REPLACE INTO textsearch_meta VALUES ('embedding_dimensions', ?)", (str(dims),)
    )
    for entries in batches:
        _vectorfile.append(db, store, entries, dims)
    _vectorfile.finish(db, store)
    db.execute("COMMIT")
    return db, store
