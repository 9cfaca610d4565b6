"""Reading stored documents back from PostgreSQL: rows to results, whole documents, sections."""

from __future__ import annotations

from typing import Any

from textsearch._cjk import question_text
from textsearch._types import SearchResults, TextSearchFilter
from textsearch.connectors.postgres._pool import SyncPool
from textsearch.connectors.postgres._rows import PostgresDocument, clean_snippet, passage_link
from textsearch.connectors.postgres._schema import SchemaBuilder
from textsearch.connectors.postgres._sql import _WORD, Builder, split_exclusions
from textsearch.connectors.postgres._tables import TableSpec
from textsearch.documents._formats import section_span
from textsearch.documents._listing import DocumentListing
from textsearch.documents._passages import best_window, hit_pattern

__all__ = ["DocumentReads"]


class DocumentReads(DocumentListing[PostgresDocument]):
    """``PostgresTextSearch``'s reads: results from rows, documents and sections by link."""

    _builder: Builder
    _spec: TableSpec
    _schema: SchemaBuilder
    _sync: SyncPool
    _snippet_chars: int
    highlight: tuple[str, str] | None

    def _results(
        self, query: str, rows: list[tuple[Any, ...]], total: int | None
    ) -> SearchResults[PostgresDocument]:
        pattern = hit_pattern(_WORD.findall(question_text(split_exclusions(query)[0])))
        docs = []
        for row in rows:
            doc_id, title, text, link, metadata, score, passage, section, anchor, line = row
            text = "" if text is None else str(text)
            link = None if link is None else str(link)
            snippet = best_window(text, pattern, self._snippet_chars, self.highlight)
            docs.append(
                PostgresDocument(
                    id=str(doc_id),
                    title=None if title is None else str(title),
                    text=text,
                    link=passage_link(link, anchor, line) if link else None,
                    metadata=metadata if isinstance(metadata, dict) else {},
                    section=section,
                    line=line,
                    passage=passage,
                    score=None if score is None else float(score),
                    snippet=clean_snippet(snippet),
                )
            )
        return SearchResults(docs, total, {})

    def get_document(
        self, key: str, *, filter: TextSearchFilter | None = None
    ) -> PostgresDocument | None:
        """The stored document whose id, else whose link, is ``key`` (``None`` if none).

        Blocking, like `LocalTextSearch.get_document` (the MCP server and
        ``full_pages`` grounding call it from a worker thread to open a whole document from a
        result). From the managed table the text is the whole document, its passages in
        order; a passage link (``file#section``) finds its document. From an existing table,
        the row whose id column (as text) is ``key``.

        Args:
            key: The document's id, its link, or a passage link.
            filter: Only a document that this filter admits is returned (the same clauses
                as a search's filter): how a preset filter also governs direct reads.

        Raises:
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
            UnsupportedFilterError: The filter names a field the table cannot filter on.
        """
        if not isinstance(key, str) or not key or "\x00" in key:
            return None
        self._builder.check_filter(filter)
        if not self._spec.managed:
            statement, params = self._builder.document_by_id(key, filter)
            row = self._sync.run(lambda conn: conn.execute(statement, params).fetchone())
            if row is None:
                return None
            return self._results("", [(*row, None, 0, None, None, None)], None)[0]
        candidates = [("id", key), ("link", key)]
        if "#" in key:
            candidates.append(("link", key.split("#", 1)[0]))
        schema = self._schema

        def work(conn: Any) -> list[tuple[Any, ...]]:
            for column, value in candidates:
                rows: list[tuple[Any, ...]] = conn.execute(
                    schema.document(column), (value,)
                ).fetchall()
                if rows:
                    return rows
            return []

        rows = self._sync.run(work)
        if not rows:
            return None
        doc_id, title, _, link, metadata = rows[0]
        if filter:
            allowed, params = self._builder.document_allowed(str(doc_id), filter)
            if self._sync.run(lambda conn: conn.execute(allowed, params).fetchone()) is None:
                return None
        return PostgresDocument(
            id=str(doc_id),
            title=title,
            text="\n\n".join(row[2] for row in rows if row[2]),
            link=link,
            metadata=metadata if isinstance(metadata, dict) else {},
        )

    def _page_of_documents(
        self, filter: TextSearchFilter | None, after: str | None, limit: int
    ) -> list[PostgresDocument]:
        """A page of `list_documents`: ids compared byte by byte (``COLLATE "C"``), the order
        Python gives them."""
        from psycopg import sql

        self._builder.check_filter(filter)
        builder, spec = self._builder, self._spec
        params: dict[str, Any] = {"after": (after or "").replace("\x00", ""), "limit": limit}
        key = sql.SQL('({}::text COLLATE "C")').format(builder.col(spec.id_column))
        first = sql.SQL(" AND d.passage = 0") if spec.passage_columns else sql.SQL("")
        statement = sql.SQL(
            "SELECT {id}, {title}, {link}, {meta} FROM {table} AS d "
            "WHERE {key} > %(after)s{first}{where} ORDER BY {key} LIMIT %(limit)s"
        ).format(
            id=builder.col(spec.id_column),
            title=builder.col(spec.name_column),
            link=builder.col(spec.link_column),
            meta=builder.col(spec.metadata_column),
            table=builder.table,
            key=key,
            first=first,
            where=builder.filters(filter, params),
        )
        rows = self._sync.run(lambda conn: conn.execute(statement, params).fetchall())
        return [
            PostgresDocument(
                id=str(r[0]),
                title=None if r[1] is None else str(r[1]),
                link=None if r[2] is None else str(r[2]),
                metadata=r[3] if isinstance(r[3], dict) else {},
            )
            for r in rows
        ]

    def get_section(
        self, link: str, *, filter: TextSearchFilter | None = None
    ) -> PostgresDocument | None:
        """The section a passage link (``file#anchor`` or ``file#L12``) points at.

        Blocking, like `get_document`; managed tables only (an existing table has no
        passages: ``None``). A long section is stored as several passages with the same
        link; the text is all of them, in order.

        Args:
            link: A passage link as search results give it.
            filter: Only a section of a document this filter admits is returned.

        Returns:
            The document's fields with the section's ``text``, ``section``, ``line`` and
            ``link``; ``None`` when ``link`` is not a passage link of a stored document.

        Raises:
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
            UnsupportedFilterError: The filter names a field the table cannot filter on.
        """
        from psycopg import sql

        base, hash_, fragment = link.partition("#")
        if not (hash_ and base and fragment) or "\x00" in link or not self._spec.passage_columns:
            return None
        self._builder.check_filter(filter)
        params: dict[str, Any] = {"base": base, "link": link}
        # One query: a document added with its place in its link (read_path's sections,
        # ``file.pdf#page=4``) before the file's own document.
        statement = sql.SQL(
            "SELECT id, title, link, metadata, passage, section, anchor, line, text FROM {table} "
            "WHERE id = (SELECT d.id FROM {table} AS d WHERE d.link IN (%(link)s, %(base)s) "
            "AND d.passage = 0{where} ORDER BY d.link = %(link)s DESC, d.id LIMIT 1) "
            "ORDER BY passage"
        ).format(table=self._builder.table, where=self._builder.filters(filter, params))
        rows = self._sync.run(lambda conn: conn.execute(statement, params).fetchall())
        if rows and rows[0][2] == link:  # that document is the section
            start, end, anchor, line = 0, len(rows) - 1, fragment, None
            section = rows[0][5]
        else:
            found = [i for i, r in enumerate(rows) if passage_link(base, r[6], r[7]) == link]
            if not found:
                return None
            start, end = section_span([(r[5], r[6]) for r in rows], found[0])
            section, anchor, line = rows[start][5], rows[start][6], rows[start][7]
        doc_id, title, _, metadata = rows[start][:4]
        return PostgresDocument(
            id=str(doc_id),
            title=title,
            text="\n\n".join(r[8] for r in rows[start : end + 1] if r[8]),
            link=passage_link(base, anchor, line) or link,
            metadata=metadata if isinstance(metadata, dict) else {},
            section=section,
            line=line,
        )
