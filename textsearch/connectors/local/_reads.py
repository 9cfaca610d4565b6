"""Reading the local index back: whole documents, sections and the list of documents."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textsearch._types import (
    TextSearchFilter,
)
from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._filters import filter_sql
from textsearch.connectors.local._schema import (
    LocalDocument,
    documented_errors,
)
from textsearch.connectors.local._state import _LocalState
from textsearch.documents._formats import section_span
from textsearch.documents._links import passage_link
from textsearch.documents._listing import DocumentListing

if TYPE_CHECKING:
    pass

__all__ = ["LocalReads"]


class LocalReads(_LocalState, DocumentListing[LocalDocument]):
    """Reading the local index back (a part of ``LocalTextSearch``)."""

    def get_document(
        self, key: str, *, filter: TextSearchFilter | None = None
    ) -> LocalDocument | None:
        """The stored document whose id, else whose link, is ``key`` (``None`` if none).

        The text is the whole document (its passages in order). A passage link
        (``file#section``) finds the document it belongs to. Local work, synchronous like
        `add_documents`; the MCP server reads documents through it (as resources) so
        a model can open a whole document from a result.

        Args:
            key: The document's id, its link, or a passage link.
            filter: Only a document that this filter admits is returned (the same clauses
                as a search's filter): how a preset filter also governs direct reads.

        Raises:
            ConfigurationError: The index was closed.
            UnsupportedFilterError: The filter names a field the index cannot filter on.
        """
        candidates = [("id", key), ("link", key)]
        if "#" in key:
            candidates.append(("link", key.split("#", 1)[0]))
        with self._lock, documented_errors(self.path):
            self._validate_filter(filter)
            row = None
            for column, value in candidates:
                row = next(iter(self._document_rows(f"d.{column} = ?", value, filter, 1)), None)
                if row is not None:
                    break
            if row is None:
                return None
            parts = [
                r[0]
                for r in self._db.execute(
                    "SELECT text FROM passages WHERE doc = ? ORDER BY rowid", (row[0],)
                )
            ]
        return LocalDocument(
            id=row[1],
            title=row[2],
            text="\n\n".join(parts),
            link=row[3],
            metadata=json.loads(row[4]),
        )

    def _page_of_documents(
        self, filter: TextSearchFilter | None, after: str | None, limit: int
    ) -> list[LocalDocument]:
        """A page of `list_documents`: ids compared in code-point order (SQLite's binary
        collation)."""
        with self._lock, documented_errors(self.path):
            self._validate_filter(filter)
            rows = self._document_rows("d.id > ?", after or "", filter, limit, order="d.id")
        return [
            LocalDocument(id=r[1], title=r[2], link=r[3], metadata=json.loads(r[4])) for r in rows
        ]

    def _document_rows(
        self,
        condition: str,
        value: str,
        filter: TextSearchFilter | None,
        limit: int,
        *,
        order: str = "d.rowid",
    ) -> list[tuple[Any, ...]]:
        """Rows ``(rowid, id, title, link, metadata)`` of the documents that meet
        ``condition`` (one ``?``, bound to ``value``) and the filter; the caller holds the
        lock and has validated the filter."""
        where, params = filter_sql(filter)
        rows: list[tuple[Any, ...]] = self._db.execute(
            "SELECT d.rowid, d.id, d.title, d.link, d.metadata FROM documents AS d "
            f"WHERE {condition}{where} ORDER BY {order} LIMIT ?",
            (value, *params, limit),
        ).fetchall()
        return rows

    def get_section(
        self, link: str, *, filter: TextSearchFilter | None = None
    ) -> LocalDocument | None:
        """The section a passage link (``file#anchor`` or ``file#L12``) points at.

        A long section is stored as several passages with the same link; the text is all of
        them, in order. Search results link their passages this way.

        Args:
            link: A passage link as search results give it.
            filter: Only a section of a document this filter admits is returned.

        Returns:
            The document's ``id``, ``title`` and ``metadata`` with the section's ``text``,
            ``section``, ``line`` and ``link``; ``None`` when ``link`` is not a passage link
            of a stored document.

        Raises:
            ConfigurationError: The index was closed.
            UnsupportedFilterError: The filter names a field the index cannot filter on.
        """
        base, hash_, fragment = link.partition("#")
        if not hash_ or not base or not fragment:
            return None
        with self._lock, documented_errors(self.path):
            self._validate_filter(filter)
            doc = next(iter(self._document_rows("d.link = ?", base, filter, 1)), None)
            if doc is None:
                return None
            passages = self._db.execute(
                "SELECT section, anchor, line, text FROM passages WHERE doc = ? ORDER BY rowid",
                (doc[0],),
            ).fetchall()
        found = [i for i, p in enumerate(passages) if passage_link(base, p[1], p[2]) == link]
        if not found:
            return None
        start, end = section_span([p[:2] for p in passages], found[0])
        section, anchor, line = passages[start][:3]
        return LocalDocument(
            id=doc[1],
            title=doc[2],
            text="\n\n".join(p[3] for p in passages[start : end + 1]),
            link=passage_link(base, anchor, line) or link,
            metadata=json.loads(doc[4]),
            section=section,
            line=line,
        )
