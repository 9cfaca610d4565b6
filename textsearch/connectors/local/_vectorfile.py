"""Passage vectors in matrix files beside the index file, kept in step with its transactions.

Layout (index format 6, tantivy 7): the folder ``<index>.vectors`` holds, per *epoch*, three
append-only files of one row per *slot*: ``<epoch>.f32`` (the vector scaled to unit length,
float32), ``<epoch>.i8`` (its int8 copy, see ``_vectors._Quantised``) and ``<epoch>.ids``
(passage rowid, document rowid, the int8 step and L1 norm). A search maps them (``mmap``):
opening costs nothing whatever the size, and only the pages a query reads are loaded.

SQLite stays the authority. The table ``passage_vectors`` maps a passage to its slot (with the
digest of the embedded text); the meta rows ``vector_rows`` and ``vector_epoch`` say how many
slots of which epoch are committed. A writer (holding SQLite's write lock) writes rows past
the committed count, then records the new count in the same transaction, and the files are
synced before SQLite commits: a writer killed at any point leaves rows past the count, which
no reader looks at and the next writer overwrites. Deleting a passage marks its slot dead
(``vector_dead``, by trigger, so any writer keeps it right); when a third of the slots are
dead, the live rows are copied into the files of the next epoch, committed the same way. A
file of any other epoch than the committed one is a leftover, removed by the next writer.

``:memory:`` indexes keep the same files in memory.
"""

from __future__ import annotations

import mmap
import os
import sqlite3
import struct
from array import array
from collections.abc import Container, Iterator, Sequence
from importlib.util import find_spec
from typing import Any

__all__ = ["VectorStore", "append", "create_tables", "migrate", "read_vectors"]

ROWS_KEY = "vector_rows"
EPOCH_KEY = "vector_epoch"
DIMENSIONS_KEY = "embedding_dimensions"
GENERATION_KEY = "vector_generation"
#: Per slot in ``.ids``: passage rowid, document rowid, int8 step, L1 norm of the int8 row.
IDS = struct.Struct("<qqff")
KINDS = ("ids", "f32", "i8")

BUMP = (
    f"INSERT INTO textsearch_meta VALUES ('{GENERATION_KEY}', '1') ON CONFLICT(key) "
    "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
)
_TABLES = (
    "CREATE TABLE IF NOT EXISTS passage_vectors("
    "rowid INTEGER PRIMARY KEY, digest BLOB NOT NULL, slot INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS vector_dead(slot INTEGER PRIMARY KEY)",
    # In the schema rather than in our code: a writer that knows nothing of vectors (an
    # instance opened without an embedder) still deletes them with their passage.
    "CREATE TRIGGER IF NOT EXISTS passage_vectors_follow AFTER DELETE ON passages "
    "WHEN EXISTS (SELECT 1 FROM passage_vectors WHERE rowid = old.rowid) BEGIN "
    "DELETE FROM passage_vectors WHERE rowid = old.rowid; END",
    "CREATE TRIGGER IF NOT EXISTS passage_vectors_dead AFTER DELETE ON passage_vectors BEGIN "
    "INSERT OR IGNORE INTO vector_dead VALUES (old.slot); " + BUMP + "; END",
)
#: Dead slots from which (and from a third of all slots) the next commit compacts the files.
COMPACT_FROM = 4096
#: Rows copied or converted at a time (bounds temporary memory).
_CHUNK = 8192


def create_tables(db: sqlite3.Connection) -> None:
    """Create the vector tables and triggers (inside the caller's write transaction)."""
    for statement in _TABLES:
        db.execute(statement)


def has_tables(db: sqlite3.Connection) -> bool:
    return (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'vector_dead'"
        ).fetchone()
        is not None
    )


def _meta_int(db: sqlite3.Connection, key: str) -> int:
    row = db.execute("SELECT value FROM textsearch_meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row is not None else 0


def _set_meta(db: sqlite3.Connection, key: str, value: int) -> None:
    db.execute("INSERT OR REPLACE INTO textsearch_meta VALUES (?, ?)", (key, str(value)))


def state(db: sqlite3.Connection) -> tuple[int, int, int]:
    """Committed slots, epoch and dimensions (as this connection's snapshot sees them)."""
    return _meta_int(db, ROWS_KEY), _meta_int(db, EPOCH_KEY), _meta_int(db, DIMENSIONS_KEY)


def _io_error(folder: str, exc: OSError) -> Exception:
    from textsearch.errors import ProviderError

    return ProviderError(
        f"the vector files {folder!r} of the local index failed: {exc.strerror or exc}",
        provider="local",
        code="vector_files",
    )


def _pwrite(fd: int, data: bytes | memoryview, offset: int) -> None:
    view = memoryview(data)
    while view:
        if hasattr(os, "pwrite"):
            written = os.pwrite(fd, view, offset)
        else:  # Windows
            os.lseek(fd, offset, os.SEEK_SET)
            written = os.write(fd, view)
        view = view[written:]
        offset += written


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    return os.read(fd, size)


class VectorStore:
    """The matrix files of one index (or their in-memory stand-ins for ``:memory:``).

    Writes go through the SQLite write transaction's holder only; reads map committed rows.
    """

    def __init__(self, path: str) -> None:
        self.memory = path == ":memory:"
        self.folder = path + ".vectors"
        self._fds: dict[tuple[int, str], int] = {}
        self._buffers: dict[tuple[int, str], bytearray] = {}
        #: Written since the last sync: sync (and maybe compact) before SQLite commits.
        self.pending = False
        #: The epoch whose leftovers of other epochs were last removed.
        self.cleaned: int | None = None

    def _name(self, epoch: int, kind: str) -> str:
        return os.path.join(self.folder, f"{epoch}.{kind}")

    def _fd(self, epoch: int, kind: str, fresh: bool = False) -> int:
        key = (epoch, kind)
        fd = self._fds.get(key)
        # A file another writer removed (a leftover epoch) and perhaps made anew is opened
        # again: writing to the removed one would lose what SQLite then counts.
        if fd is not None and not fresh and os.fstat(fd).st_nlink > 0:
            return fd
        if fd is not None:
            os.close(fd)
        os.makedirs(self.folder, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0)
        if fresh:
            flags |= os.O_TRUNC
        fd = os.open(self._name(epoch, kind), flags, 0o644)
        self._fds[key] = fd
        return fd

    def start(self, epoch: int) -> None:
        """Begin the files of a new epoch, empty (a leftover of a crashed writer is dropped)."""
        for kind in KINDS:
            if self.memory:
                self._buffers[(epoch, kind)] = bytearray()
            else:
                try:
                    self._fd(epoch, kind, fresh=True)
                except OSError as exc:
                    raise _io_error(self.folder, exc) from None

    def write(self, epoch: int, kind: str, offset: int, data: bytes | memoryview) -> None:
        self.pending = True
        if self.memory:
            buffer = self._buffers.setdefault((epoch, kind), bytearray())
            if len(buffer) < offset:
                buffer.extend(bytes(offset - len(buffer)))
            buffer[offset : offset + len(data)] = data
            return
        try:
            _pwrite(self._fd(epoch, kind), data, offset)
        except OSError as exc:
            raise _io_error(self.folder, exc) from None

    def read(self, epoch: int, kind: str, offset: int, size: int) -> bytes:
        if self.memory:
            return bytes(self._buffers.get((epoch, kind), b"")[offset : offset + size])
        try:
            return _pread(self._fd(epoch, kind), size, offset)
        except OSError as exc:
            raise _io_error(self.folder, exc) from None

    def map(self, epoch: int, kind: str, size: int) -> Any:
        """The first ``size`` bytes of a file, read-only: a map (bytes for ``:memory:``).

        Raises:
            FileNotFoundError: The epoch's files were replaced meanwhile (read the state
                again).
        """
        if self.memory:
            return bytes(self._buffers.get((epoch, kind), b"")[:size])
        if size == 0:
            return b""
        fd = os.open(self._name(epoch, kind), os.O_RDONLY | getattr(os, "O_BINARY", 0))
        try:
            if os.fstat(fd).st_size < size:
                raise FileNotFoundError(self._name(epoch, kind))
            try:
                mapped = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
            except OSError as exc:
                raise _io_error(self.folder, exc) from None
            if kind == "f32" and hasattr(mapped, "madvise") and hasattr(mmap, "MADV_RANDOM"):
                # Re-scoring reads a few scattered rows: no read-ahead around each of them
                # (it filled memory with rows no query asked for).
                mapped.madvise(mmap.MADV_RANDOM)
            return mapped
        finally:
            os.close(fd)

    def sync(self) -> None:
        """Make what was written durable (before the SQLite commit that counts it)."""
        if not self.memory:
            sync = getattr(os, "fdatasync", os.fsync)
            try:
                for fd in self._fds.values():
                    sync(fd)
            except OSError as exc:
                raise _io_error(self.folder, exc) from None
        self.pending = False

    def cleanup(self, epoch: int) -> None:
        """Remove the files of every other epoch (call with the write lock held)."""
        for key in [k for k in self._fds if k[0] != epoch]:
            os.close(self._fds.pop(key))
        for key in [k for k in self._buffers if k[0] != epoch]:
            del self._buffers[key]
        if self.memory or not os.path.isdir(self.folder):
            self.cleaned = epoch
            return
        for name in os.listdir(self.folder):
            stem, _, kind = name.partition(".")
            if kind in KINDS and stem != str(epoch):
                try:
                    os.remove(os.path.join(self.folder, name))
                except OSError:  # mapped elsewhere on Windows: removed by a later writer
                    pass
        self.cleaned = epoch

    def close(self) -> None:
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        self._buffers.clear()


# -- converting vectors ----------------------------------------------------------------------


def numpy_or_none() -> Any:
    """numpy when installed (the ``semantic`` extra), else ``None``: imported on first use."""
    if find_spec("numpy") is None:
        return None
    import numpy

    return numpy


def prepare(blobs: Sequence[bytes], dims: int) -> tuple[bytes, bytes, list[tuple[float, float]]]:
    """Rows of float32 vectors -> (unit rows, their int8 codes, (step, L1) per row).

    Each row is scaled by its own largest component (step = largest / 127); the error bound
    of ``_vectors._Quantised`` rests on that.
    """
    np = numpy_or_none()
    if np is not None:
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dims)
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        unit = (matrix / norms[:, None]).astype(np.float32)
        peak = np.abs(unit).max(axis=1) if dims else np.zeros(len(blobs), np.float32)
        peak[peak == 0] = 1.0
        step = (peak / 127).astype(np.float32)
        codes = np.rint(unit / step[:, None]).astype(np.int8)
        l1 = np.abs(codes).sum(axis=1, dtype=np.int32) * step
        return (
            unit.tobytes(),
            codes.tobytes(),
            list(zip(step.tolist(), l1.astype(np.float32).tolist(), strict=True)),
        )
    import math

    f32, i8 = array("f"), array("b")
    extra: list[tuple[float, float]] = []
    for blob in blobs:
        row = array("f")
        row.frombytes(blob)
        norm = math.sqrt(sum(x * x for x in row)) or 1.0
        unit = array("f", (x / norm for x in row))
        peak = max((abs(x) for x in unit), default=0.0) or 1.0
        step = array("f", [peak / 127])[0]
        codes = [max(-127, min(127, round(x / step))) for x in unit]
        f32.extend(unit)
        i8.extend(codes)
        extra.append((step, sum(abs(c) for c in codes) * step))
    return f32.tobytes(), i8.tobytes(), extra


# -- writing (inside the caller's SQLite write transaction) ---------------------------------


def append(
    db: sqlite3.Connection,
    store: VectorStore,
    entries: Sequence[tuple[int, int, bytes, bytes]],
    dims: int,
) -> None:
    """Store the vectors of new passages ``(rowid, doc rowid, digest, float32 bytes)``.

    The passages must have no vector yet (a new passage, or one ``embed_missing`` found
    without one in this transaction).
    """
    if not entries:
        return
    count, epoch, _ = state(db)
    if store.cleaned != epoch:
        store.cleanup(epoch)
    if count == 0:
        # Nothing committed in this epoch: start a fresh one (no reader maps an empty one).
        epoch += 1
        store.cleanup(epoch)
        store.start(epoch)
        _set_meta(db, EPOCH_KEY, epoch)
    for begin in range(0, len(entries), _CHUNK):
        part = entries[begin : begin + _CHUNK]
        _write_rows(
            store, epoch, count, [(r, d) for r, d, _, _ in part], [e[3] for e in part], dims
        )
        db.executemany(
            "INSERT INTO passage_vectors(rowid, digest, slot) VALUES (?, ?, ?)",
            [(rowid, key, count + i) for i, (rowid, _, key, _) in enumerate(part)],
        )
        count += len(part)
    _set_meta(db, ROWS_KEY, count)
    db.execute(BUMP)


def _write_rows(
    store: VectorStore,
    epoch: int,
    first: int,
    ids: Sequence[tuple[int, int]],
    blobs: Sequence[bytes],
    dims: int,
) -> None:
    unit, codes, extra = prepare(blobs, dims)
    packed = b"".join(
        IDS.pack(rowid, doc, step, l1) for (rowid, doc), (step, l1) in zip(ids, extra, strict=True)
    )
    store.write(epoch, "ids", first * IDS.size, packed)
    store.write(epoch, "f32", first * dims * 4, unit)
    store.write(epoch, "i8", first * dims, codes)


def read_vectors(
    db: sqlite3.Connection, store: VectorStore, slots: Sequence[int]
) -> Iterator[bytes]:
    """The unit float32 vectors of committed (or this transaction's) slots, in order."""
    _, epoch, dims = state(db)
    for slot in slots:
        yield store.read(epoch, "f32", slot * dims * 4, dims * 4)


def kept_vectors(
    db: sqlite3.Connection, store: VectorStore, ids: str, wanted: Container[bytes]
) -> dict[bytes, bytes]:
    """The stored vectors, by digest, of the documents ``ids`` (a JSON list) whose digest is
    ``wanted``: what a re-indexed passage whose text did not change keeps.

    Slots and the epoch are read in one snapshot (a compaction by another process moves
    slots); a row that cannot be read whole is left out (it is embedded again).
    """
    own = not db.in_transaction
    if own:
        db.execute("BEGIN")
    try:
        kept = [
            (key, slot)
            for key, slot in db.execute(
                "SELECT v.digest, v.slot FROM passage_vectors AS v "
                "JOIN passages AS p ON p.rowid = v.rowid "
                "JOIN documents AS d ON d.rowid = p.doc "
                "WHERE d.id IN (SELECT value FROM json_each(?))",
                (ids,),
            )
            if key in wanted
        ]
        if not kept:
            return {}
        _, _, dims = state(db)
        blobs = list(read_vectors(db, store, [slot for _, slot in kept]))
    finally:
        if own:
            db.execute("COMMIT")
    return {key: blob for (key, _), blob in zip(kept, blobs, strict=True) if len(blob) == dims * 4}


def drop(db: sqlite3.Connection, store: VectorStore) -> int:
    """Delete every vector (inside a write transaction); returns how many there were."""
    count = int(db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0])
    db.execute("DELETE FROM passage_vectors")
    db.execute("DELETE FROM vector_dead")
    _set_meta(db, ROWS_KEY, 0)
    db.execute(BUMP)
    return count


def finish(db: sqlite3.Connection, store: VectorStore) -> None:
    """Before SQLite commits what a write did: compact when many slots are dead, then sync."""
    count, epoch, dims = state(db)
    dead = int(db.execute("SELECT count(*) FROM vector_dead").fetchone()[0])
    if dead >= COMPACT_FROM and 3 * dead >= count:
        compact(db, store, count, epoch, dims)
    store.sync()


def compact(db: sqlite3.Connection, store: VectorStore, count: int, epoch: int, dims: int) -> None:
    """Copy the live rows into the next epoch's files and renumber their slots."""
    live = db.execute("SELECT rowid, slot FROM passage_vectors ORDER BY slot").fetchall()
    new = epoch + 1
    store.start(new)
    row_bytes = {"ids": IDS.size, "f32": dims * 4, "i8": dims}
    for begin in range(0, len(live), _CHUNK):
        part = live[begin : begin + _CHUNK]
        for kind, size in row_bytes.items():
            data = b"".join(store.read(epoch, kind, slot * size, size) for _, slot in part)
            store.write(new, kind, begin * size, data)
    db.executemany(
        "UPDATE passage_vectors SET slot = ? WHERE rowid = ?",
        [(i, rowid) for i, (rowid, slot) in enumerate(live) if slot != i],
    )
    db.execute("DELETE FROM vector_dead")
    _set_meta(db, ROWS_KEY, len(live))
    _set_meta(db, EPOCH_KEY, new)
    db.execute(BUMP)


def dead_slots(db: sqlite3.Connection) -> list[int]:
    return [r[0] for r in db.execute("SELECT slot FROM vector_dead")]


# -- the one-time move from vectors in SQLite (format 4/5) ---------------------------------


def migrate(db: sqlite3.Connection, path: str) -> None:
    """Move the vectors of a format 4/5 index (blobs in ``passage_vectors``) into the files.

    Runs inside the caller's write transaction, which also records the new format: a crash
    leaves the old format, and the next open migrates again.
    """
    columns = {r[1] for r in db.execute("PRAGMA table_info(passage_vectors)")}
    if "vector" not in columns:
        if columns:
            create_tables(db)
        return
    db.execute("DROP TRIGGER IF EXISTS passage_vectors_follow")
    db.execute("ALTER TABLE passage_vectors RENAME TO passage_vectors_blobs")
    create_tables(db)
    dims = _meta_int(db, DIMENSIONS_KEY)
    store = VectorStore(path)
    try:
        rows = db.execute(
            "SELECT v.rowid, p.doc, v.digest, v.vector FROM passage_vectors_blobs AS v "
            "JOIN passages AS p ON p.rowid = v.rowid ORDER BY v.rowid"
        )
        entries: list[tuple[int, int, bytes, bytes]] = []
        for rowid, doc, key, blob in rows:
            if not dims and len(blob) % 4 == 0:
                dims = len(blob) // 4
                _set_meta(db, DIMENSIONS_KEY, dims)
            if len(blob) != dims * 4:
                continue  # a vector of another length could never be searched: dropped
            entries.append((rowid, doc, key, blob))
            if len(entries) >= _CHUNK:
                append(db, store, entries, dims)
                entries = []
        append(db, store, entries, dims)
        store.sync()
    finally:
        store.close()
    db.execute("DROP TABLE passage_vectors_blobs")
