"""The local index on disk: schema, locking and error mapping.

The document shape (``LocalDocument``, ``normalize_document``) is shared by every store and
lives in ``textsearch.documents``; it is re-exported here for the local index's own modules.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from textsearch._cjk import TEXT_VERSION, cjk_run, index_tokens, is_cjk
from textsearch._ranges import cached_instant
from textsearch.connectors.local._places import PLACE_FUNCTION, place_of
from textsearch.documents._shape import (
    INT64_MAX,
    INT64_MIN,
    RESERVED_FILTER_FIELDS,
    LocalDocument,
    MetadataValue,
    normalize_document,
)
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ServiceUnavailableError,
    TextSearchError,
)

__all__ = [
    "INSTANT_FUNCTION",
    "INT64_MAX",
    "INT64_MIN",
    "RESERVED_FILTER_FIELDS",
    "LocalDocument",
    "MetadataValue",
    "cjk_run",
    "is_cjk",
    "normalize_document",
]

log = logging.getLogger("textsearch.local")

#: The SQL function that reads a stored string as an ISO-8601 instant (NULL: not a date).
INSTANT_FUNCTION = "textsearch_instant"
#: The covering index of each passage's document and anchor, by rowid: a hybrid or semantic
#: search groups a few hundred ranked passages into sections, and reading those from this
#: index instead of the passage rows (1-2 KB each, spread over the whole file) is what keeps
#: that step small on a large index (docs/performance.md, semantic and hybrid search).
SHAPE_INDEX = "passages_shape"


SCHEMA_VERSION = "6"
# Written while tantivy ranks the index (its FTS5 table is then empty): a textsearch from before
# the tantivy engine refuses such a file with a clear error instead of finding nothing in it.
TANTIVY_SCHEMA_VERSION = "7"
# Formats 4 (FTS5) and 5 (tantivy) kept vectors as blobs in SQLite; 6 and 7 in matrix files
# beside it (``_vectorfile``). An older file is moved over once, when first opened.
_MIGRATED_FROM = {"4": SCHEMA_VERSION, "5": TANTIVY_SCHEMA_VERSION}
# A passage row is 1-2 KB: with SQLite's default 4 KB pages one row fits where two do not,
# wasting close to half the file. 32 KB pages keep the file near its text's size while a
# random row still reads fast (bench_local.py). Applies when a file is created.
PAGE_SIZE = 32768
ZWSP = "\u200b"


def for_index(text: str | None) -> str:
    """The text as the full-text index sees it: the CJK runs' fenced bigrams and characters
    after the rest (``textsearch._cjk.index_tokens``)."""
    if not text or text.isascii():  # most text: no CJK, and isascii() is a C loop
        return text or ""
    return index_tokens(text, ZWSP)


def index_title(title: str | None, section: str | None) -> str:
    """The indexed title column of a passage: document title and section heading."""
    return for_index(f"{title or ''}\n{section or ''}")


#: Bytes of pending terms FTS5 keeps in memory before it writes them out as a segment (its
#: default is 1 MB). CJK text gives a vocabulary of bigrams, most of them new to a batch: at
#: the default FTS5 flushes a small segment every few hundred passages and spends most of a
#: Chinese batch merging them (bench_languages.py --scale); 16 MB makes few, large segments.
#: English text fills the buffer far more slowly and indexes at the same rate either way.
FTS_HASH_BYTES = 16 * 1024 * 1024
FTS_HASH_CONFIG = (
    f"INSERT INTO passages_fts(passages_fts, rank) VALUES ('hashsize', {FTS_HASH_BYTES})"
)


SCHEMA = f"""
CREATE TABLE textsearch_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO textsearch_meta VALUES ('schema_version', '{SCHEMA_VERSION}');
INSERT INTO textsearch_meta VALUES ('text_version', '{TEXT_VERSION}');
-- One narrow row per document for what filters read: text lives in `passages`, once.
CREATE TABLE documents(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    title TEXT,
    link TEXT,
    site TEXT,
    metadata TEXT NOT NULL DEFAULT '{{}}',
    source_root TEXT,
    mtime_ns INTEGER,
    size INTEGER,
    sha256 TEXT
);
CREATE TABLE passages(
    rowid INTEGER PRIMARY KEY,
    doc INTEGER NOT NULL,
    section TEXT,
    anchor TEXT,
    line INTEGER,
    text TEXT NOT NULL
);
CREATE INDEX passages_doc ON passages(doc);
-- What grouping reads of a ranked passage, in a few small pages instead of one seek into the
-- large passage rows each (see SHAPE_INDEX).
CREATE INDEX passages_shape ON passages(rowid, doc, anchor);
CREATE INDEX documents_source_root ON documents(source_root);
CREATE INDEX documents_site ON documents(site);
CREATE TABLE metadata_fields(name TEXT PRIMARY KEY);
-- The full-text index reads through this view, so text is stored once.
CREATE VIEW passages_fts_source AS
    SELECT p.rowid AS rowid, textsearch_index_title(d.title, p.section) AS title,
           textsearch_index_text(p.text) AS body
    FROM passages AS p JOIN documents AS d ON d.rowid = p.doc;
CREATE VIRTUAL TABLE passages_fts USING fts5(
    title, body, content = 'passages_fts_source', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
{FTS_HASH_CONFIG};
"""

# -- errors --------------------------------------------------------------------------------

_BUSY_WORDS = ("database is locked", "database table is locked", "database is busy")
#: How long a write waits for another process's write to finish, in total.
BUSY_TIMEOUT = 30.0

T = TypeVar("T")


def is_busy(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(
        word in str(exc).lower() for word in _BUSY_WORDS
    )


def map_error(exc: Exception, path: str) -> TextSearchError:
    """A documented error for a failure of SQLite (never a raw ``sqlite3`` error)."""
    if isinstance(exc, TextSearchError):
        return exc
    text = str(exc)
    if isinstance(exc, sqlite3.ProgrammingError) and "closed" in text.lower():
        return ConfigurationError("this LocalTextSearch is closed; open a new one")
    if isinstance(exc, OverflowError):
        return InvalidRequestError(f"a number does not fit in 64 bits: {text}")
    if isinstance(exc, sqlite3.Error) and is_busy(exc):
        return ServiceUnavailableError(
            f"the local index {path!r} stayed locked by another writer for {BUSY_TIMEOUT:.0f} s",
            provider="local",
            code="busy",
            hints=("let one process write to an index file at a time",),
        )
    lowered = text.lower()
    if type(exc) is sqlite3.DatabaseError or any(
        word in lowered
        for word in ("malformed", "not a database", "corrupt", "vtable constructor failed")
    ):
        return ProviderError(
            f"the local index {path!r} is damaged: {text}",
            provider="local",
            code="corrupt",
            hints=("delete the index file and index again",),
        )
    return ProviderError(
        f"the local index {path!r} failed: {text}", provider="local", code="sqlite"
    )


@contextmanager
def documented_errors(path: str) -> Iterator[None]:
    """Turn SQLite failures into the documented error tree."""
    try:
        yield
    except (sqlite3.Error, OverflowError) as exc:
        raise map_error(exc, path) from None


def retry_busy(action: Callable[[], T], path: str) -> T:
    """Run a write, retrying while another process holds the write lock.

    ``BEGIN IMMEDIATE`` already waits up to the connection's busy timeout; this loop covers
    the cases SQLite reports at once (a WAL snapshot that went stale, a checkpoint).
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    delay = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() + delay > deadline:
                raise map_error(exc, path) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.25)


def connect(path: str) -> sqlite3.Connection:
    """Open (and create, the first time) an index file.

    Raises:
        ConfigurationError: The path is unusable, or the file is not a textsearch index.
    """
    if "\x00" in path:
        raise ConfigurationError("the index path contains a NUL character")
    try:
        db = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
        )
    except (sqlite3.Error, ValueError) as exc:
        raise ConfigurationError(f"cannot open the local index at {path!r}: {exc}") from None
    try:
        db.create_function("textsearch_index_text", 1, for_index, deterministic=True)
        db.create_function("textsearch_index_title", 2, index_title, deterministic=True)
        db.create_function(INSTANT_FUNCTION, 1, cached_instant, deterministic=True)
        db.create_function(PLACE_FUNCTION, 2, place_of, deterministic=True)
        retry_busy(lambda: _init_schema(db, path), path)
    except (sqlite3.Error, TextSearchError) as exc:
        db.close()
        reason = exc.message if isinstance(exc, ProviderError) else str(exc)
        raise ConfigurationError(f"cannot open the local index at {path!r}: {reason}") from None
    return db


def _init_schema(db: sqlite3.Connection, path: str) -> None:
    # Takes effect only when the file is created; existing files keep their page size.
    db.execute(f"PRAGMA page_size={PAGE_SIZE}")
    if path != ":memory:":
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    if _check_existing(db):
        if _stored_version(db) in _MIGRATED_FROM:
            _migrate(db, path)
        _add_shape_index(db, path)
        return
    # Another process may be creating the same file: take the write lock, then look again.
    db.execute("BEGIN IMMEDIATE")
    try:
        if not _check_existing(db):
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _stored_version(db: sqlite3.Connection) -> str | None:
    row = db.execute("SELECT value FROM textsearch_meta WHERE key='schema_version'").fetchone()
    return None if row is None else str(row[0])


def _migrate(db: sqlite3.Connection, path: str) -> None:
    """Move an index of an older format to this one (once, in one write transaction)."""
    from textsearch.connectors.local._vectorfile import migrate

    db.execute("BEGIN IMMEDIATE")
    try:
        old = _stored_version(db)
        if old in _MIGRATED_FROM:  # another process may have done it meanwhile
            migrate(db, path)
            db.execute(
                "UPDATE textsearch_meta SET value = ? WHERE key = 'schema_version'",
                (_MIGRATED_FROM[old],),
            )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def has_shape_index(db: sqlite3.Connection) -> bool:
    """Whether the file has `SHAPE_INDEX` (a file made before it may not)."""
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", (SHAPE_INDEX,)
    ).fetchone()
    return found is not None


def _add_shape_index(db: sqlite3.Connection, path: str) -> None:
    """Give a file made before `SHAPE_INDEX` existed that index, once (a scan of its
    passages); a file this process cannot write is read without it, as before."""
    if has_shape_index(db):
        return
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            count = db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0
            if count > 100_000:
                log.info("adding the passages' shape index to %s (once, %d passages)", path, count)
            db.execute(f"CREATE INDEX IF NOT EXISTS {SHAPE_INDEX} ON passages(rowid, doc, anchor)")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc):  # SQLITE_READONLY: "attempt to write a readonly ..."
            raise


def _check_existing(db: sqlite3.Connection) -> bool:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return False
    if "textsearch_meta" not in tables:
        raise sqlite3.DatabaseError("the file is an SQLite database but not a textsearch index")
    row = db.execute("SELECT value FROM textsearch_meta WHERE key='schema_version'").fetchone()
    if row is None or row[0] not in (SCHEMA_VERSION, TANTIVY_SCHEMA_VERSION, *_MIGRATED_FROM):
        raise sqlite3.DatabaseError(
            f"index schema version {row[0] if row else None!r} is not {SCHEMA_VERSION!r} "
            f"or {TANTIVY_SCHEMA_VERSION!r}; "
            "delete the file and index again"
        )
    return True
