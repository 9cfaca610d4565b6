"""Reading the local index by document and by section: what MCP resources serve.

A mixin of :class:`LocalTextSearch` (kept apart from searching). Every read takes a filter,
so that a preset filter governs listing and section reads as it governs searches.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import TYPE_CHECKING

from textsearch.connectors.local._query import filter_sql
from textsearch.connectors.local._schema import LocalDocument, documented_errors

if TYPE_CHECKING:
    from textsearch._types import TextSearchFilter

__all__ = ["ReadingMixin"]


class ReadingMixin:
    """``list_documents`` and ``get_section`` over the index's tables."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    path: str

    def _validate_filter(self, search_filter: TextSearchFilter | None) -> None:
        raise NotImplementedError

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: int = 0,
        limit: int = 100,
    ) -> list[tuple[int, LocalDocument]]:
        """Documents in the order they were added, without their text: a page of them.

        Args:
            filter: Only documents this filter admits.
            after: The position returned with the last document of the previous page
                (``0``: from the start).
            limit: At most this many documents.

        Returns:
            ``(position, document)`` pairs; each document has its id, title, link and
            metadata, and an empty text (read it with :meth:`get_document`).

        Raises:
            ConfigurationError: The index was closed.
            UnsupportedFilterError: The filter names a field the index cannot filter on.
        """
        with self._lock, documented_errors(self.path):
            self._validate_filter(filter)
            where, params = filter_sql(filter)
            rows = self._db.execute(
                "SELECT d.rowid, d.id, d.title, d.link, d.metadata FROM documents AS d "
                f"WHERE d.rowid > ?{where} ORDER BY d.rowid LIMIT ?",
                (after, *params, max(0, limit)),
            ).fetchall()
        return [
            (
                row[0],
                LocalDocument(
                    id=row[1], title=row[2], text="", link=row[3], metadata=json.loads(row[4])
                ),
            )
            for row in rows
        ]

    def get_section(
        self, link: str, *, filter: TextSearchFilter | None = None
    ) -> LocalDocument | None:
        """The section a passage link names (``file#anchor`` or ``file#L<line>``).

        Returns a document whose text is that section's passages in order and whose link
        is ``link``; ``None`` when no document the filter admits has that section.

        Raises:
            ConfigurationError: The index was closed.
            UnsupportedFilterError: The filter names a field the index cannot filter on.
        """
        base, sep, fragment = link.partition("#")
        if not sep or not fragment:
            return None
        line: int | None = None
        if fragment[:1] == "L" and fragment[1:].isdigit():
            line = int(fragment[1:])
        with self._lock, documented_errors(self.path):
            self._validate_filter(filter)
            where, params = filter_sql(filter)
            for column in ("link", "id"):
                row = self._db.execute(
                    "SELECT d.rowid, d.id, d.title, d.metadata FROM documents AS d "
                    f"WHERE d.{column} = ?{where} ORDER BY d.rowid LIMIT 1",
                    (base, *params),
                ).fetchone()
                if row is not None:
                    break
            if row is None:
                return None
            if line is not None:
                passages = self._db.execute(
                    "SELECT section, text FROM passages WHERE doc = ? AND anchor IS NULL "
                    "AND line = ? ORDER BY rowid",
                    (row[0], line),
                ).fetchall()
            else:
                passages = self._db.execute(
                    "SELECT section, text FROM passages WHERE doc = ? AND anchor = ? "
                    "ORDER BY rowid",
                    (row[0], fragment),
                ).fetchall()
        if not passages:
            return None
        section = passages[0][0]
        title = f"{row[2]} — {section}" if row[2] and section else (row[2] or section)
        return LocalDocument(
            id=row[1],
            title=title,
            text="\n\n".join(p[1] for p in passages),
            link=link,
            metadata=json.loads(row[3]),
        )
