"""``LocalTextSearch``: the embedded default, on SQLite FTS5 from the standard library.

No key, no network, no extra dependency. Documents go in with :meth:`LocalTextSearch.add_documents`
or :meth:`LocalTextSearch.index_path`, are split into passages (sections by heading, paragraphs in
plain text, each at most ~1,500 characters), and passages are ranked with BM25.

How text is searched:

* A query is BM25 over any of its words, so documents with more of the words (and rarer ones)
  rank first by score; stop words ("how", "do", "I") are left out of the query, not the index.
  ``match="all"`` asks for every word instead.
* The FTS5 ``porter unicode61`` tokenizer folds case and diacritics and stems English words,
  so ``retries`` finds ``retry``.
* Chinese, Japanese and Korean text has no spaces between words, which ``unicode61`` would
  read as one long token. At index time every CJK character is therefore fenced with a
  zero-width space (a separator to the tokenizer, never stored), which makes each character a
  token; a CJK run in a query becomes a phrase of its characters.
* User text is never handed to FTS5 as syntax: each word is quoted, so quotes,
  ``AND``/``OR``/``NOT``, ``*``, ``:``, parentheses, SQL or emoji are just text.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from textsearch._types import (
    AnyTagEqualTo,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._engine import EngineMixin, Write
from textsearch.connectors.local._files import (
    DEFAULT_EXTENSIONS,
    Batch,
    FileWork,
    IndexReport,
    Transaction,
    read_file,
    walk,
)
from textsearch.connectors.local._fts import FtsRanker
from textsearch.connectors.local._passages import (
    DEFAULT_PASSAGE_CHARS,
    Passage,
    best_window,
    hit_pattern,
)
from textsearch.connectors.local._query import filter_sql, plan_query
from textsearch.connectors.local._reading import ReadingMixin
from textsearch.connectors.local._schema import (
    RESERVED_FILTER_FIELDS,
    LocalDocument,
    MetadataValue,
    connect,
    documented_errors,
    normalize_document,
    retry_busy,
)
from textsearch.errors import ConfigurationError, UnsupportedFilterError

__all__ = ["IndexReport", "LocalDocument", "LocalTextSearch", "MetadataValue", "normalize_document"]

# index_path commits after this many files, so an interrupted run keeps what it did.
#: The version of the plain text made of Markdown, reStructuredText and .txt files (the
#: readers in ``_split``): an index whose files were read by another version, or with other
#: ``formats``, reads them again once. 3: read by markdown-it-py and docutils.
MARKDOWN_TEXT_VERSION = "3"
MARKDOWN_SUFFIXES = (".md", ".markdown", ".rst", ".txt")
_BATCH_FILES = 100


def _host(link: str | None) -> str | None:
    if not link or "://" not in link:
        return None
    # urlsplit finds the host in what comes before the first "/", "?" or "#" after "://";
    # parsing only that prefix, cached, is what keeps it off the indexing profile.
    scheme, _, rest = link.partition("://")
    end = len(rest)
    for mark in "/?#":
        found = rest.find(mark, 0, end)
        if found != -1:
            end = found
    return _host_of(scheme + "://" + rest[:end])


@lru_cache(maxsize=4096)
def _host_of(prefix: str) -> str | None:
    try:
        host = urlsplit(prefix).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def _passage_link(link: str | None, anchor: str | None, line: int | None) -> str | None:
    if not link:
        return None
    if anchor:
        return f"{link}#{anchor}"
    if line and line > 1:
        return f"{link}#L{line}"
    return link


def _passage_rows(
    doc: LocalDocument, passages: list[Passage]
) -> list[tuple[str | None, str | None, int | None, str]]:
    """``(section, anchor, line, text)`` of each passage as the store keeps it."""
    rows = []
    for number, passage in enumerate(passages):
        # The section under the document's own title is the document's top: link the file.
        section = passage.heading if passage.heading != doc.title else None
        anchor = passage.anchor if section else None
        # The first passage is the top of the file: its link needs no line number.
        rows.append((section, anchor, (passage.line or None) if number else None, passage.text))
    return rows


def _stored_document(**fields: Any) -> LocalDocument:
    """A result built from stored (already validated) values, without validating again.

    Filled the way pydantic fills a model (as ``base.trusted_text_search_result`` does):
    ``model_construct`` costs ~30 µs a result, ten times this, and a page has up to 1,000.
    """
    document = object.__new__(LocalDocument)
    setattr_ = object.__setattr__
    setattr_(document, "__dict__", fields)
    setattr_(document, "__pydantic_fields_set__", set(fields))
    setattr_(document, "__pydantic_extra__", None)
    setattr_(document, "__pydantic_private__", None)
    return document


def _checked_formats(formats: Mapping[str, str] | None) -> dict[str, str]:
    from textsearch.connectors.local._split import FORMATS

    checked: dict[str, str] = {}
    for suffix, kind in (formats or {}).items():
        if not isinstance(suffix, str) or not suffix.startswith(".") or kind not in FORMATS:
            raise ConfigurationError(
                f"formats: {suffix!r}: {kind!r} is not a suffix and a format "
                f"(a suffix such as '.txt', a format among {', '.join(FORMATS)})"
            )
        checked[suffix.lower()] = kind
    return checked


def _text_version(formats: dict[str, str]) -> str:
    if not formats:
        return MARKDOWN_TEXT_VERSION
    return MARKDOWN_TEXT_VERSION + ";" + ",".join(f"{k}={v}" for k, v in sorted(formats.items()))


def _passages_of(doc: LocalDocument, chunk: bool) -> list[Passage]:
    if not chunk:
        return [Passage(None, None, 1, doc.text)]
    from textsearch.connectors.local._split import split_text  # loaded only to split

    return split_text(doc.text)


class LocalTextSearch(EngineMixin, ReadingMixin, BaseTextSearch[LocalDocument]):
    """Embedded full-text search on SQLite FTS5: works with no key and no network.

    Args:
        path: ``":memory:"`` (default) or a database file, created if missing; an existing
            index is reused and can be updated incrementally.
        engine: What ranks the passages. ``"tantivy"``: a tantivy index (block-max WAND
            top-k pruning, several times faster; needs ``pip install
            "textsearch-sdk[tantivy]"``) kept in a ``<path>.tantivy`` folder beside the file
            (in memory for ``":memory:"``); ``"sqlite"``: SQLite FTS5, no extra package;
            ``"auto"`` (default): tantivy when it is installed, else SQLite. Either way the
            SQLite file stores the documents; opening an index with the other engine
            rebuilds that engine's index from them. The engine used is in :attr:`engine`
            and in each result's ``metadata["engine"]``.
        match: ``"any"`` (default): BM25 over any of the query's words, stop words left out;
            ``"all"``: only passages holding every word.
        one_per_document: Collapse results to the best passage of each document.
        highlight: Markers put around matched words in snippets, e.g. ``("**", "**")``;
            ``None`` (default) for none, so that text given to a model carries no markup.
        value_chars: Most characters of a result's value (the passage, or the window of it
            with the most hits), 100..20,000.
        snippet_tokens: Older spelling of the value's size, in words (1..64, about eight
            characters each); prefer ``value_chars``.
        string_mapper: Custom mapping of a :class:`LocalDocument` to the string that
            :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a :class:`LocalDocument` to a
            :class:`~textsearch.TextSearchResult`.

    Raises:
        ConfigurationError: The database file cannot be opened or is not a textsearch index,
            an argument is out of range, or ``engine="tantivy"`` without tantivy installed.
        ServiceUnavailableError: Rebuilding the ranking index had to wait more than 30 s
            for another process's write.

    Filters: ``equal_to`` on ``site`` (the host of the link; subdomains match too), ``id``,
    ``link``, or any metadata field present in the index; ``any_tag_equal_to`` on metadata
    fields holding lists. Any other field raises :class:`~textsearch.UnsupportedFilterError`.

    SQLite failures surface as documented errors: a write blocked by another process for
    30 s is a :class:`~textsearch.ServiceUnavailableError` (``code="busy"``), a damaged file a
    :class:`~textsearch.ProviderError` (``code="corrupt"``), use after :meth:`close` a
    :class:`~textsearch.ConfigurationError`. A tantivy folder that is missing, damaged or
    behind the SQLite file (a crash between the two commits) is rebuilt when the index is
    opened.

    The async methods run the SQLite work in a worker thread, so the event loop is never
    blocked; one instance may be shared across threads and tasks (calls are serialized).
    """

    provider_name: ClassVar[str] = "local"

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        engine: Literal["auto", "sqlite", "tantivy"] = "auto",
        match: Literal["any", "all"] = "any",
        one_per_document: bool = False,
        highlight: tuple[str, str] | None = None,
        value_chars: int = DEFAULT_PASSAGE_CHARS,
        snippet_tokens: int | None = None,
        string_mapper: Callable[[LocalDocument], str] | None = None,
        text_search_result_mapper: Callable[[LocalDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        if match not in ("any", "all"):
            raise ConfigurationError(f"match must be 'any' or 'all', not {match!r}")
        if snippet_tokens is not None:
            if not isinstance(snippet_tokens, int) or not 1 <= snippet_tokens <= 64:
                raise ConfigurationError("snippet_tokens must be an integer from 1 to 64")
            value_chars = max(100, snippet_tokens * 8)
        if not isinstance(value_chars, int) or not 100 <= value_chars <= 20_000:
            raise ConfigurationError("value_chars must be an integer from 100 to 20000")
        try:
            self.path = os.fspath(path)
        except TypeError:
            raise ConfigurationError(f"path must be a str or os.PathLike, not {path!r}") from None
        self.match = match
        self.one_per_document = one_per_document
        self.highlight = highlight
        self.value_chars = value_chars
        self.engine: Literal["sqlite", "tantivy"] = _engine.choose_engine(engine)
        self._lock = threading.RLock()
        self._db = connect(self.path)
        self._fts = FtsRanker(self._db)
        self._tv: ModuleType | None = None
        self._ranker: Any = None  # the TantivyRanker when engine == "tantivy"
        try:
            self._open_engine()
        except BaseException:
            self._db.close()
            raise

    def __repr__(self) -> str:
        return f"LocalTextSearch(path={self.path!r})"

    # -- writing -----------------------------------------------------------------------

    def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = False
    ) -> int:
        """Add or replace documents (by ``id``); returns how many were written.

        Each document is a :class:`LocalDocument` or a dict with ``id``, ``title``, ``text``,
        ``link`` and ``metadata`` (all optional but ``text``; a missing ``id`` is derived
        from the content). All documents are validated before any is written.

        Args:
            docs: The documents.
            chunk: Split each text into passages (by Markdown headings, then paragraphs,
                at most ~1,500 characters each); results then name and link the section.
                Without it, a document is one passage.

        Raises:
            InvalidRequestError: A document, a metadata key or a metadata value is invalid
                (metadata numbers must be finite and fit in 64 bits).
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
        """
        prepared = [normalize_document(d) for d in docs]

        def write() -> None:
            with self._transaction():
                if self._ranker is not None:
                    self._add_many(prepared, chunk)
                    return
                for doc in prepared:
                    passages = _passages_of(doc, chunk)
                    self._upsert(doc, passages, None, None, None, None)

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

    def _transaction(self) -> Write:
        return Write(self, Transaction(self._db), batch=False)

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
    ) -> None:
        db = self._db
        self._delete(doc.id)
        site = _host(doc.link)
        cursor = db.execute(
            "INSERT INTO documents(id, title, link, site, metadata, source_root, mtime_ns, "
            "size, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc.id,
                doc.title,
                doc.link,
                site,
                json.dumps(doc.metadata, ensure_ascii=False),
                source_root,
                mtime_ns,
                size,
                sha256,
            ),
        )
        docid = cursor.lastrowid
        assert docid is not None
        rows = _passage_rows(doc, passages)
        ranker = self._ranker
        if ranker is None:
            for section, anchor, line, text in rows:
                rowid = db.execute(
                    "INSERT INTO passages(doc, section, anchor, line, text) VALUES (?, ?, ?, ?, ?)",
                    (docid, section, anchor, line, text),
                ).lastrowid
                assert rowid is not None
                self._fts.add(rowid, doc.title, section, text)
        else:
            # Rowids given explicitly (the write lock is held) so one executemany does it all.
            first = int(db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0) + 1
            db.executemany(
                "INSERT INTO passages(rowid, doc, section, anchor, line, text) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(first + i, docid, *row) for i, row in enumerate(rows)],
            )
            tokens = self._tv.document_tokens(doc.id, doc.link, site, doc.metadata)  # type: ignore[union-attr]
            for i, (section, _, _, text) in enumerate(rows):
                ranker.add(first + i, docid, doc.title, section, text, tokens)
        if doc.metadata:
            db.executemany(
                "INSERT OR IGNORE INTO metadata_fields(name) VALUES (?)",
                [(k,) for k in doc.metadata],
            )

    def _add_many(self, docs: list[LocalDocument], chunk: bool) -> None:
        """``add_documents`` with tantivy: a few ``executemany`` for the whole batch.

        Row by row, three statements per document cost more than the ranking index itself.
        """
        db = self._db
        ranker = self._tantivy()
        latest = {doc.id: doc for doc in docs}  # a repeated id: the last one wins, as one by one
        ids = list(latest)
        for begin in range(0, len(ids), 500):
            part = ids[begin : begin + 500]
            found = db.execute(
                f"SELECT rowid FROM documents WHERE id IN ({','.join('?' * len(part))})", part
            ).fetchall()
            for (docid,) in found:
                ranker.delete_doc(docid)
            db.executemany("DELETE FROM passages WHERE doc = ?", found)
            db.executemany("DELETE FROM documents WHERE rowid = ?", found)
        next_doc = int(db.execute("SELECT max(rowid) FROM documents").fetchone()[0] or 0) + 1
        next_row = int(db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0) + 1
        doc_rows: list[tuple[Any, ...]] = []
        passage_rows: list[tuple[Any, ...]] = []
        fields: set[str] = set()
        tokens_of = self._tv.document_tokens  # type: ignore[union-attr]
        for doc in latest.values():
            site = _host(doc.link)
            metadata = json.dumps(doc.metadata, ensure_ascii=False) if doc.metadata else "{}"
            doc_rows.append((next_doc, doc.id, doc.title, doc.link, site, metadata))
            passages = _passages_of(doc, chunk)
            tokens = tokens_of(doc.id, doc.link, site, doc.metadata)
            for section, anchor, line, text in _passage_rows(doc, passages):
                passage_rows.append((next_row, next_doc, section, anchor, line, text))
                ranker.add(next_row, next_doc, doc.title, section, text, tokens)
                next_row += 1
            fields.update(doc.metadata)
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
        if fields:
            db.executemany(
                "INSERT OR IGNORE INTO metadata_fields(name) VALUES (?)", [(k,) for k in fields]
            )

    def index_path(
        self,
        path: str | os.PathLike[str],
        *,
        extensions: Sequence[str] = DEFAULT_EXTENSIONS,
        progress: Callable[[int, int, str], None] | None = None,
        formats: Mapping[str, str] | None = None,
    ) -> IndexReport:
        """Index a file or a folder (recursively) of text, Markdown, reStructuredText and HTML.

        Each file is split into passages: sections by heading (Markdown, reStructuredText,
        HTML ``<h1>``..``<h6>``), paragraphs in plain text, each at most ~1,500 characters;
        a result names its document and section and links to ``file#anchor`` (or
        ``file#L<line>``).

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
                formats are ``"markdown"``, ``"myst"``, ``"rst"``, ``"html"``, ``"text"``.
                By default a suffix decides, and a ``.txt`` file whose content is
                reStructuredText (title adornments, directives) is read as such.

        Raises:
            ConfigurationError: The path does not exist, or ``formats`` names an unknown
                format.
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
        """
        if "\x00" in os.fspath(path):
            raise ConfigurationError("cannot index a path that contains a NUL character")
        root = Path(path).expanduser().resolve()
        if not root.exists():
            raise ConfigurationError(f"cannot index {os.fspath(path)!r}: no such file or folder")
        wanted = tuple(e.lower() for e in extensions)
        forced = _checked_formats(formats)
        files = [root] if root.is_file() else sorted(walk(root, wanted))
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
            version = _text_version(forced)
            reread = row is None or row[0] != version
            if reread and not known:  # nothing indexed from here yet: nothing old to re-read
                self._mark(mark, version)
                reread = False
            seen: set[str] = set()
            for begin in range(0, len(files), _BATCH_FILES):
                batch = files[begin : begin + _BATCH_FILES]
                done = begin
                with self._interruptible_batch():
                    # Each file is read, written and reported before the next is read, so
                    # progress is live (an MCP server tells searches how far it got) and a
                    # file that blocks on reading holds back only itself.
                    for file in batch:
                        doc_id = str(file)
                        seen.add(doc_id)
                        previous = known.get(doc_id)
                        suffix = file.suffix.lower()
                        if reread and (suffix in MARKDOWN_SUFFIXES or suffix in forced):
                            item = read_file(file, None, report, forced)  # compared with nothing
                        else:
                            item = read_file(file, previous, report, forced)
                        if item is not None:
                            self._write_one(item, doc_id, root_key, known.get(doc_id), report)
                        done += 1
                        if progress is not None:
                            progress(done, len(files), doc_id)
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

    def _write_one(
        self,
        work: FileWork,
        doc_id: str,
        root_key: str,
        previous: tuple[int | None, int | None, str | None] | None,
        report: IndexReport,
    ) -> None:
        # A savepoint per file: an interrupt in the middle of one file never leaves half of
        # it in the index (the next run would take it as up to date).
        ranker = self._ranker
        self._db.execute("SAVEPOINT textsearch_file")
        if ranker is not None:
            ranker.savepoint()
        try:
            self._write_file(work, doc_id, root_key, previous, report)
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
    ) -> None:
        if work.title is None:  # same bytes, new modification time
            self._db.execute(
                "UPDATE documents SET mtime_ns = ?, size = ? WHERE id = ?",
                (work.mtime_ns, work.size, doc_id),
            )
            report.unchanged += 1
            return
        doc = LocalDocument(id=doc_id, title=work.title, link=doc_id)
        self._upsert(doc, work.passages, root_key, work.mtime_ns, work.size, work.sha256)
        if previous is None:
            report.added += 1
        else:
            report.updated += 1

    # -- searching ---------------------------------------------------------------------

    def _filter_fields(self) -> list[str]:
        names = [r[0] for r in self._db.execute("SELECT name FROM metadata_fields")]
        return sorted({*RESERVED_FILTER_FIELDS, *names})

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        # Checked in _fetch_sync instead: the check reads the database, and the async path
        # must not wait for the database lock on the event loop's thread.
        return

    def _validate_filter(self, search_filter: TextSearchFilter | None) -> None:
        if not search_filter:
            return
        allowed = self._filter_fields()
        for clause in search_filter.clauses:
            name = clause.field_name
            if name not in allowed or (
                isinstance(clause, AnyTagEqualTo) and name in RESERVED_FILTER_FIELDS
            ):
                raise UnsupportedFilterError(
                    f"LocalTextSearch cannot filter on {name!r} with {clause.kind}; "
                    f"supported filter fields: {', '.join(allowed)} "
                    "(metadata fields become filterable once a document has them)",
                    field_name=name,
                    supported_fields=allowed,
                )

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        plan = plan_query(query)
        if not plan.terms:
            with self._lock, documented_errors(self.path):
                self._validate_filter(options.filter)
            total = 0 if options.include_total_count else None
            return SearchResults([], total, {"match": "none", "engine": self.engine})
        info: dict[str, Any] = {"match": self.match, "engine": self.engine}
        with self._lock, documented_errors(self.path):
            self._validate_filter(options.filter)
            filter_sql(options.filter)  # checks values (64-bit numbers) for both engines
            if self._ranker is not None:
                ranked, total = self._rank_tantivy(plan.words, options)
            else:
                match = plan.match(self.match)
                if self.match == "any" and len(plan.terms) > 1 and not options.include_total_count:
                    match, left_out = self._fts.plan_any(plan.terms, options)
                    if left_out:
                        info["left_out"] = left_out
                ranked, total = self._fts.rank(match, options, self.one_per_document)
            rows: dict[int, Any] = {}
            if ranked:
                marks = ",".join("?" * len(ranked))
                rows = {
                    r[0]: r
                    for r in self._db.execute(
                        "SELECT p.rowid, d.id, d.title, p.section, p.anchor, p.line, p.text, "
                        "d.link, d.metadata FROM passages AS p JOIN documents AS d "
                        f"ON d.rowid = p.doc WHERE p.rowid IN ({marks})",
                        [r[0] for r in ranked],
                    )
                }
        pattern = hit_pattern(plan.words)
        docs = []
        build = _stored_document
        for rowid, score in ranked:
            row = rows.get(rowid)
            if row is None:  # written by another process's tantivy commit, not yet its SQLite
                continue
            _, doc_id, title, section, anchor, line, text, link, metadata = row
            docs.append(
                build(
                    id=doc_id,
                    title=title,
                    text=text,
                    link=_passage_link(link, anchor, line),
                    metadata=json.loads(metadata) if metadata != "{}" else {},
                    section=section,
                    line=line,
                    snippet=best_window(text, pattern, self.value_chars, self.highlight) or None,
                    score=score,
                )
            )
        return SearchResults(docs, total, info)

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        # A worker thread keeps the event loop free: a broad query on a large index can take
        # tens of milliseconds. asyncio is imported here, not at module level: it costs
        # 60-120 ms of import time that the command line and sync users never need.
        import asyncio

        return await asyncio.to_thread(self._fetch_sync, query, options)

    def _to_text_search_result(self, item: LocalDocument) -> TextSearchResult:
        name = f"{item.title} › {item.section}" if item.title and item.section else item.title
        value = item.snippet if item.snippet else (item.text[: self.value_chars] or None)
        return TextSearchResult(name=name or item.section, value=value, link=item.link)

    async def get_documents(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[LocalDocument]:
        """Same as :meth:`get_search_results`: passages with snippet and score."""
        return await self.get_search_results(query, options, **kwargs)

    def get_documents_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[LocalDocument]:
        """Blocking twin of :meth:`get_documents`."""
        return self.get_search_results_sync(query, options, **kwargs)

    def get_document(
        self, key: str, *, filter: TextSearchFilter | None = None
    ) -> LocalDocument | None:
        """The stored document whose id, else whose link, is ``key`` (``None`` if none).

        The text is the whole document (its passages in order). A passage link
        (``file#section``) finds the document it belongs to. Local work, synchronous like
        :meth:`add_documents`; the MCP server reads documents through it (as resources) so
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
            where, params = filter_sql(filter)
            row = None
            for column, value in candidates:
                row = self._db.execute(
                    "SELECT d.rowid, d.id, d.title, d.link, d.metadata FROM documents AS d "
                    f"WHERE d.{column} = ?{where} ORDER BY d.rowid LIMIT 1",
                    (value, *params),
                ).fetchone()
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

    def close(self) -> None:
        """Close the database connection; later calls raise ``ConfigurationError``."""
        with self._lock:
            if self._ranker is not None:
                self._ranker.rollback()
            self._db.close()
