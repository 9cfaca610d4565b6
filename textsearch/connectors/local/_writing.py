"""Writing the local index: documents added, removed, and folders indexed (``index_path``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._engine import Write
from textsearch.connectors.local._files import Batch
from textsearch.connectors.local._places import passage_metadata, place_fields
from textsearch.connectors.local._schema import (
    LocalDocument,
    documented_errors,
    for_index,
    index_title,
    normalize_document,
    retry_busy,
)
from textsearch.connectors.local._state import (
    BATCH_FILES,
    EMBED_BATCH,
    MARKDOWN_SUFFIXES,
    MARKDOWN_TEXT_VERSION,
    stored_rows,
)
from textsearch.connectors.local._vectors_mixin import LocalVectors
from textsearch.documents._blocks import collector_paused
from textsearch.documents._files import (
    DEFAULT_EXTENSIONS,
    FileWork,
    IndexReport,
    checked_formats,
    files_to_index,
    read_file,
    references,
)
from textsearch.documents._links import link_host
from textsearch.documents._passages import (
    DEFAULT_PASSAGE_CHARS,
    Passage,
)
from textsearch.documents._shape import file_document

if TYPE_CHECKING:
    pass

__all__ = ["LocalWriting"]

#: Metadata as stored: the same text as ``json.dumps(value, ensure_ascii=False)``, from one
#: encoder (``dumps`` builds a new encoder per call when an option is not its default).
_metadata_json = json.JSONEncoder(ensure_ascii=False).encode


def _text_version(formats: dict[str, str], passage_chars: int = DEFAULT_PASSAGE_CHARS) -> str:
    from textsearch.documents._split import readers  # loaded only to index files

    version = f"{MARKDOWN_TEXT_VERSION}:{readers()}"
    if passage_chars != DEFAULT_PASSAGE_CHARS:
        version += f"@{passage_chars}"
    if not formats:
        return version
    return version + ";" + ",".join(f"{k}={v}" for k, v in sorted(formats.items()))


def _chars_of(version: str) -> int:
    """The passage size a text mark records (``"5:readers@800;..."``); the default if none."""
    head = version.split(";", 1)[0]
    _, at, chars = head.rpartition("@")
    return int(chars) if at and chars.isdigit() else DEFAULT_PASSAGE_CHARS


def _passages_of(doc: LocalDocument, chunk: bool) -> list[Passage]:
    if not chunk:
        return [Passage(None, None, 1, doc.text)]
    from textsearch.documents._formats import section_passages
    from textsearch.documents._split import split_text  # loaded only to split

    # a read_path page holding several headings: each passage under its own
    return section_passages(doc.text, doc.metadata, split_text)


class LocalWriting(LocalVectors):
    """Writing the local index (a part of ``LocalTextSearch``)."""

    def add_documents(
        self,
        docs: Iterable[LocalDocument | Mapping[str, Any]],
        *,
        chunk: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Add or replace documents (by ``id``); returns how many were written.

        Each document is a `LocalDocument` or a dict with ``id``, ``title``, ``text``,
        ``link`` and ``metadata`` (all optional but ``text``; a missing ``id`` is derived
        from the content). All documents are validated before any is written.

        Args:
            docs: The documents.
            chunk: Split each text into passages (by Markdown headings, then paragraphs,
                at most ~1,500 characters each); results then name and link the section.
                Without it, a document is one passage.
            progress: With an embedder, called as ``progress(done, total)`` after each
                batch of passages is embedded (``total``: the passages needing a vector); an
                exception it raises stops the call before anything is written.

        Raises:
            InvalidRequestError: A document, a metadata key or a metadata value is invalid
                (metadata numbers must be finite and fit in 64 bits).
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
            ProviderError: The embedder failed (``ResponseFormatError``: malformed vectors);
                nothing was written.
            ConfigurationError: The embedder's vectors do not have the index's length.
        """
        # The batch's documents, passages, rows and vectors all live until the call returns:
        # collections meanwhile free none of them but walk them again and again (the share
        # of the caller's CPU this cost is in docs/performance.md's indexing profile). They are
        # dropped before the collector is on again, so its next collection does not walk them
        # once more.
        with collector_paused():
            return self._add_documents(docs, chunk, progress)

    def _add_documents(
        self,
        docs: Iterable[LocalDocument | Mapping[str, Any]],
        chunk: bool,
        progress: Callable[[int, int], None] | None,
    ) -> int:
        prepared = [normalize_document(d) for d in docs]
        items = [(doc, _passages_of(doc, chunk)) for doc in prepared]
        # Embedded before anything is written: a failing embedder leaves the index as it was.
        digests: list[list[bytes]] = []
        vectors = None
        if self.embedder is not None:
            vectors = self._vectors_for(items, progress, digests)

        def write() -> None:
            with self._transaction():
                self._add_many(items, vectors, digests)

        with self._lock, documented_errors(self.path):
            retry_busy(write, self.path)
            self._fts.df_cache.clear()
        return len(prepared)

    def remove_documents(self, ids: Iterable[str]) -> int:
        """Remove documents by id; returns how many existed."""
        wanted = list(ids)

        def write() -> int:
            with self._transaction():
                return sum(self._delete(doc_id) for doc_id in wanted)

        with self._lock, documented_errors(self.path):
            self._fts.df_cache.clear()
            return retry_busy(write, self.path)

    @property
    def document_count(self) -> int:
        """Number of documents in the index."""
        with self._lock, documented_errors(self.path):
            return int(self._db.execute("SELECT count(*) FROM documents").fetchone()[0])

    def _delete(self, doc_id: str) -> int:
        db = self._db
        row = db.execute("SELECT rowid, title FROM documents WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            return 0
        if self._ranker is not None:
            self._ranker.delete_doc(row[0])
        else:
            self._fts.delete_doc(row[0], row[1])
        db.execute("DELETE FROM passages WHERE doc = ?", (row[0],))
        db.execute("DELETE FROM documents WHERE rowid = ?", (row[0],))
        return 1

    def _upsert(
        self,
        doc: LocalDocument,
        passages: list[Passage],
        source_root: str | None,
        mtime_ns: int | None,
        size: int | None,
        sha256: str | None,
        vectors: Mapping[bytes, bytes] | None = None,
    ) -> None:
        db = self._db
        self._delete(doc.id)
        site = link_host(doc.link)
        cursor = db.execute(
            "INSERT INTO documents(id, title, link, site, metadata, source_root, mtime_ns, "
            "size, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.id,
                doc.title,
                doc.link,
                site,
                _metadata_json(doc.metadata),
                source_root,
                mtime_ns,
                size,
                sha256,
            ),
        )
        docid = cursor.lastrowid
        assert docid is not None
        rows = stored_rows(doc, passages)
        ranker = self._ranker
        rowids: list[int] = []
        if ranker is None:
            for section, anchor, line, text in rows:
                rowid = db.execute(
                    "INSERT INTO passages(doc, section, anchor, line, text) VALUES (?, ?, ?, ?, ?)",
                    (docid, section, anchor, line, text),
                ).lastrowid
                assert rowid is not None
                self._fts.add(rowid, doc.title, section, text)
                rowids.append(rowid)
        else:
            # Rowids given explicitly (the write lock is held) so one executemany does it all.
            first = int(db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0) + 1
            db.executemany(
                "INSERT INTO passages(rowid, doc, section, anchor, line, text) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(first + i, docid, *row) for i, row in enumerate(rows)],
            )
            tokens_of = self._tv.document_tokens  # type: ignore[union-attr]
            tokens = tokens_of(doc.id, doc.link, site, doc.metadata)
            for i, (section, anchor, _, text) in enumerate(rows):
                own = tokens
                if anchor and "=" in anchor:  # a page, slide, sheet or row of its own
                    own = tokens_of(doc.id, doc.link, site, passage_metadata(doc.metadata, anchor))
                ranker.add(first + i, docid, doc.title, section, text, own)
            rowids = list(range(first, first + len(rows)))
        if vectors:
            from textsearch.connectors.local import _vectors

            self._store_vectors(
                [
                    (
                        rowid,
                        docid,
                        _vectors.digest(_vectors.embedding_input(doc.title, section, text)),
                    )
                    for rowid, (section, _, _, text) in zip(rowids, rows, strict=True)
                ],
                vectors,
            )
        fields = {*doc.metadata, *place_fields(rows)}
        if fields:
            db.executemany(
                "INSERT OR IGNORE INTO metadata_fields(name) VALUES (?)",
                [(k,) for k in sorted(fields)],
            )

    def _add_many(
        self,
        items: list[tuple[LocalDocument, list[Passage]]],
        vectors: Mapping[bytes, bytes] | None,
        digests: list[list[bytes]],
    ) -> None:
        """``add_documents``: a few ``executemany`` for the whole batch, either engine.

        Row by row, three statements per document cost more than the ranking index itself.
        ``digests`` holds each item's passage digests (from `_vectors_for`; empty without
        vectors).
        """
        db = self._db
        ranker = self._ranker
        # A repeated id: the last one wins, placed where it comes last, as one by one.
        latest: dict[str, int] = {}
        for position, (doc, _) in enumerate(items):
            latest.pop(doc.id, None)
            latest[doc.id] = position
        ids = list(latest)
        for begin in range(0, len(ids), 500):
            part = ids[begin : begin + 500]
            found = db.execute(
                f"SELECT rowid, title FROM documents WHERE id IN ({','.join('?' * len(part))})",
                part,
            ).fetchall()
            for docid, title in found:
                if ranker is not None:
                    ranker.delete_doc(docid)
                else:
                    self._fts.delete_doc(docid, title)
            gone = [(docid,) for docid, _ in found]
            db.executemany("DELETE FROM passages WHERE doc = ?", gone)
            db.executemany("DELETE FROM documents WHERE rowid = ?", gone)
        next_doc = int(db.execute("SELECT max(rowid) FROM documents").fetchone()[0] or 0) + 1
        next_row = int(db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0) + 1
        doc_rows: list[tuple[Any, ...]] = []
        passage_rows: list[tuple[Any, ...]] = []
        fts_rows: list[tuple[int, str, str]] = []
        fields: set[str] = set()
        vector_rows: list[tuple[int, int, bytes]] = []
        if ranker is not None:
            tokens_of = self._tv.document_tokens  # type: ignore[union-attr]
            # filter tokens of metadata values and hosts, shared by the batch's documents
            token_cache: dict[Any, list[str]] = {}
        for position in latest.values():
            doc, passages = items[position]
            site = link_host(doc.link)
            metadata = _metadata_json(doc.metadata) if doc.metadata else "{}"
            doc_rows.append((next_doc, doc.id, doc.title, doc.link, site, metadata))
            rows = stored_rows(doc, passages)
            if ranker is not None:
                tokens = tokens_of(doc.id, doc.link, site, doc.metadata, token_cache)
            for section, anchor, line, text in rows:
                passage_rows.append((next_row, next_doc, section, anchor, line, text))
                if ranker is None:
                    fts_rows.append((next_row, index_title(doc.title, section), for_index(text)))
                else:
                    own = tokens
                    if anchor and "=" in anchor:  # a page, slide, sheet or row of its own
                        place = passage_metadata(doc.metadata, anchor)
                        own = tokens_of(doc.id, doc.link, site, place, token_cache)
                    ranker.add(next_row, next_doc, doc.title, section, text, own)
                next_row += 1
            if vectors:
                first = next_row - len(rows)
                vector_rows.extend(
                    (first + i, next_doc, key) for i, key in enumerate(digests[position])
                )
            fields.update(doc.metadata)
            fields.update(place_fields(rows))
            next_doc += 1
        db.executemany(
            "INSERT INTO documents(rowid, id, title, link, site, metadata) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            doc_rows,
        )
        db.executemany(
            "INSERT INTO passages(rowid, doc, section, anchor, line, text) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            passage_rows,
        )
        if fts_rows:
            self._fts.add_many(fts_rows)
        if fields:
            db.executemany(
                "INSERT OR IGNORE INTO metadata_fields(name) VALUES (?)", [(k,) for k in fields]
            )
        if vectors:
            self._store_vectors(vector_rows, vectors)

    def index_path(
        self,
        path: str | os.PathLike[str],
        *,
        extensions: Sequence[str] = DEFAULT_EXTENSIONS,
        progress: Callable[[int, int, str], None] | None = None,
        formats: Mapping[str, str] | None = None,
    ) -> IndexReport:
        """Index a file or a folder (recursively) of documents: text, Markdown,
        reStructuredText, HTML, CSV/TSV and notebooks, and with the ``documents`` extra PDF,
        DOCX, PPTX and XLSX.

        Each file is split into passages: sections by heading (Markdown, reStructuredText,
        HTML ``<h1>``..``<h6>``, DOCX heading styles, a PDF's outline), by slide, sheet or
        page, paragraphs in plain text, each at most ~1,500 characters; a result names its
        document and section and links to ``file#anchor``, ``file#L<line>``,
        ``file.pdf#page=N``, ``file.pptx#slide=N``, ``file.xlsx#sheet=<name>`` or
        ``file.csv#row=N``, with ``page``, ``slide``, ``sheet`` or ``row`` in its metadata.
        Files whose reader is not installed are listed in the report's ``skipped``, files
        that cannot be read (damaged, encrypted, no text layer, over a limit, binary content
        under a text suffix) in ``failed``: see docs/local.md.

        Incremental: a file whose size and modification time are unchanged is not read again,
        a changed file is re-indexed, and documents whose file has gone are removed. Hidden
        folders and tool folders (``.git``, ``node_modules``, virtual environments) are skipped.
        Work is committed every 100 files: when interrupted (Ctrl-C), what was indexed is kept
        and the next run resumes from there.

        Args:
            path: File or folder to index.
            extensions: File name endings to read (case-insensitive).
            progress: Called as ``progress(done, total, file_path)`` after each file; an
                exception it raises (``KeyboardInterrupt`` included) stops indexing after
                committing the files done so far.
            formats: How to read files by suffix, forcing a reading: ``{".txt": "rst"}``;
                formats are ``"markdown"``, ``"myst"``, ``"rst"``, ``"html"``, ``"text"``,
                ``"pdf"``, ``"docx"``, ``"pptx"``, ``"xlsx"``, ``"csv"``, ``"tsv"``, ``"ipynb"``.
                By default a suffix decides, and a ``.txt`` file whose content is
                reStructuredText (title adornments, directives) is read as such.

        Raises:
            ConfigurationError: The path does not exist, or ``formats`` names an unknown
                format.
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
        """
        root, files = files_to_index(path, extensions)
        forced = checked_formats(formats)
        root_key = str(root)
        report = IndexReport()
        with self._lock, documented_errors(self.path):
            self._fts.df_cache.clear()
            known = {
                doc_id: (mtime, size, digest)
                for doc_id, mtime, size, digest in self._db.execute(
                    "SELECT id, mtime_ns, size, sha256 FROM documents WHERE source_root = ?",
                    (root_key,),
                )
            }
            # Markdown files indexed before their text was made plain (see _local_split) are
            # read again once, changed or not; the mark is kept per indexed folder.
            mark = f"markdown_text:{root_key}"
            row = self._db.execute(
                "SELECT value FROM textsearch_meta WHERE key = ?", (mark,)
            ).fetchone()
            version = _text_version(forced, self.passage_chars)
            reread = row is None or row[0] != version
            # A new passage size changes every file's passages, not only Markdown's.
            reread_all = row is not None and _chars_of(row[0]) != self.passage_chars
            if reread and not known:  # nothing indexed from here yet: nothing old to re-read
                self._mark(mark, version)
                reread = False
            seen: set[str] = set()
            # Every file of the run is read alike; bare cross-references resolve across them.
            read = partial(
                read_file, limit=self.passage_chars, root=root, doc_set=references(root, files)
            )
            for begin in range(0, len(files), BATCH_FILES):
                batch = files[begin : begin + BATCH_FILES]
                done = begin
                with self._interruptible_batch():
                    # Without an embedder, each file is read, written and reported before the
                    # next is read, so progress is live (an MCP server tells searches how far
                    # it got) and a file that blocks on reading holds back only itself. With
                    # one, files are read until their passages fill an embedding batch, which
                    # is embedded at once (a file is a few passages: batching per file kept
                    # the model at a fraction of its speed), then written one by one.
                    group: list[tuple[str, FileWork | None, Any]] = []
                    waiting = 0
                    for position, file in enumerate(batch):
                        doc_id = str(file)
                        seen.add(doc_id)
                        previous = known.get(doc_id)
                        suffix = file.suffix.lower()
                        if reread and (
                            reread_all or suffix in MARKDOWN_SUFFIXES or suffix in forced
                        ):  # read again: compared with nothing
                            item = read(file, None, report, forced)
                        else:
                            item = read(file, previous, report, forced)
                        group.append((doc_id, item, previous))
                        if item is not None and item.title is not None:
                            waiting += len(item.passages)
                        if (
                            self.embedder is None
                            or waiting >= EMBED_BATCH
                            or position == len(batch) - 1
                        ):
                            for doc_id, item, previous, vectors in self._embedded(group):
                                if item is not None:
                                    self._in_file_savepoint(
                                        partial(
                                            self._write_file,
                                            item,
                                            doc_id,
                                            root_key,
                                            previous,
                                            report,
                                            vectors,
                                        )
                                    )
                                done += 1
                                if progress is not None:
                                    progress(done, len(files), doc_id)
                            group, waiting = [], 0
            gone = known.keys() - seen
            if gone:
                with self._interruptible_batch():
                    for doc_id in gone:
                        report.removed += self._delete(doc_id)
            if reread:
                self._mark(mark, version)
        return report

    def _mark(self, mark: str, version: str) -> None:
        with self._interruptible_batch():
            self._db.execute(
                "INSERT OR REPLACE INTO textsearch_meta VALUES (?, ?)", (mark, version)
            )

    def _interruptible_batch(self) -> Write:
        return Write(self, Batch(self._db, self.path), batch=True)

    def _in_file_savepoint(self, write: Callable[[], None]) -> None:
        # A savepoint per file: an interrupt in the middle of one file never leaves half of
        # it in the index (the next run would take it as up to date).
        ranker = self._ranker
        self._db.execute("SAVEPOINT textsearch_file")
        if ranker is not None:
            ranker.savepoint()
        try:
            write()
        except BaseException:
            if ranker is not None:
                ranker.rollback_to()
            self._db.execute("ROLLBACK TO textsearch_file")
            self._db.execute("RELEASE textsearch_file")
            raise
        self._db.execute("RELEASE textsearch_file")
        if ranker is not None:
            ranker.release()

    def _write_file(
        self,
        work: FileWork,
        doc_id: str,
        root_key: str,
        previous: tuple[int | None, int | None, str | None] | None,
        report: IndexReport,
        vectors: Mapping[bytes, bytes] | None = None,
    ) -> None:
        if work.title is None:  # same bytes, new modification time
            self._db.execute(
                "UPDATE documents SET mtime_ns = ?, size = ? WHERE id = ?",
                (work.mtime_ns, work.size, doc_id),
            )
            report.unchanged += 1
            return
        doc = file_document(doc_id, work.title)
        # Unchanged passages keep their vectors; only the others are embedded.
        if vectors is None and self.embedder is not None:
            vectors = self._vectors_for([(doc, work.passages)])
        self._upsert(doc, work.passages, root_key, work.mtime_ns, work.size, work.sha256, vectors)
        if previous is None:
            report.added += 1
        else:
            report.updated += 1
