"""Write transactions of the local index (``index_path`` and ``add_documents``)."""

from __future__ import annotations

import sqlite3

from textsearch.connectors.local._schema import map_error, retry_busy

__all__ = ["Batch", "Transaction"]


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on error (the connection is in autocommit mode).

    IMMEDIATE takes the write lock up front, so a second writer waits (busy timeout) instead
    of failing when it upgrades a read lock.
    """

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")


class Batch:
    """A write transaction that commits what was done even when interrupted.

    Every file is written completely before the progress callback runs, so on
    ``KeyboardInterrupt`` (or any error from the callback) the batch so far is consistent.
    """

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db = db
        self._path = path

    def __enter__(self) -> None:
        retry_busy(lambda: self._db.execute("BEGIN IMMEDIATE"), self._path)

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None or not isinstance(exc, sqlite3.Error):
            try:
                self._db.execute("COMMIT")
                return
            except sqlite3.Error as commit_error:
                self._db.execute("ROLLBACK")
                raise map_error(commit_error, self._path) from None
        self._db.execute("ROLLBACK")
