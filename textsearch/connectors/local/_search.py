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
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textsearch._types import (
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
    result_window,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._engine import EngineMixin, Write
from textsearch.connectors.local._files import Batch, Transaction
from textsearch.connectors.local._filters import filter_sql, validate_filter
from textsearch.connectors.local._fts import FtsRanker
from textsearch.connectors.local._query import plan_query
from textsearch.connectors.local._schema import (
    RESERVED_FILTER_FIELDS,
    LocalDocument,
    MetadataValue,
    connect,
    documented_errors,
    normalize_document,
    retry_busy,
)
from textsearch.documents._files import (
    DEFAULT_EXTENSIONS,
    FileWork,
    IndexReport,
    checked_formats,
    read_file,
    walk,
)
from textsearch.documents._formats import fragment_metadata, is_place
from textsearch.documents._links import link_host, passage_link
from textsearch.documents._passages import (
    DEFAULT_PASSAGE_CHARS,
    Passage,
    best_window,
    hit_pattern,
)
from textsearch.errors import ConfigurationError, InvalidRequestError

if TYPE_CHECKING:
    from textsearch.connectors.local._vectors import VectorIndex
    from textsearch.embeddings import Embedder

__all__ = ["IndexReport", "LocalDocument", "LocalTextSearch", "MetadataValue", "normalize_document"]

# index_path commits after this many files, so an interrupted run keeps what it did.
#: The version of the plain text made of Markdown, reStructuredText and .txt files (the
#: readers in ``_split``): an index whose files were read by another version, or with other
#: ``formats``, reads them again once. 3: read by markdown-it-py and docutils. 4: the line
#: reader (no ``markup`` extra) pairs code spans as CommonMark does, across line ends too;
#: the readers in use are part of the mark, so installing the extra re-reads the files.
MARKDOWN_TEXT_VERSION = "5"
MARKDOWN_SUFFIXES = (".md", ".markdown", ".rst", ".txt")
_BATCH_FILES = 100
#: Meta key: the spec of the embedder the vectors were made with (see ``embedding_spec``).
_SPEC_KEY = "embedding_spec"
_MODES = ("keyword", "semantic", "hybrid")
# Passages taken from the top of each arm in hybrid mode: a page is cut from the fusion of
# at least this many (more when the page reaches deeper).
HYBRID_DEPTH = 100
# Passages embedded per call of the embedder by embed_missing.
_EMBED_BATCH = 256
# Ranked passages read whole at once (text, document); from a longer list only what grouping
# needs is read, and the text of the page alone.
_WHOLE_ROWS = 32


def _passage_rows(
    doc: LocalDocument, passages: list[Passage]
) -> list[tuple[str | None, str | None, int | None, str]]:
    """``(section, anchor, line, text)`` of each passage as the store keeps it."""
    rows = []
    for number, passage in enumerate(passages):
        # The section under the document's own title is the document's top: link the file.
        section = passage.heading if passage.heading != doc.title else None
        # A page, slide, sheet or row anchor stays even at the top: it is where the text is.
        anchor = passage.anchor if section or is_place(passage.anchor) else None
        # The first passage is the top of the file: its link needs no line number.
        rows.append((section, anchor, (passage.line or None) if number else None, passage.text))
    return rows


def _result_metadata(stored: str, anchor: str | None) -> dict[str, Any]:
    """A result's metadata: the document's, and the page, slide, sheet or row its anchor
    names (``#page=3`` gives ``{"page": 3}``)."""
    metadata: dict[str, Any] = json.loads(stored) if stored != "{}" else {}
    if anchor and "=" in anchor:
        metadata.update(fragment_metadata(anchor))
    return metadata


def _stored_document(**fields: Any) -> LocalDocument:
    """A result built from stored (already validated) values, without validating again."""
    return LocalDocument.model_construct(**fields)


def _embed_blocking(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Validated vectors of ``texts``, from a blocking call.

    Called on a thread that runs an event loop (``add_documents`` from async code), the
    embedder runs on a worker thread: an async-only embedder cannot run its blocking twin
    inside a running loop.
    """
    from textsearch.embeddings import embed_documents_sync

    if "asyncio" in sys.modules:  # no loop can be running if asyncio was never imported
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(1) as pool:
                return pool.submit(embed_documents_sync, embedder, texts).result()
    return embed_documents_sync(embedder, texts)


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
    from textsearch.documents._split import split_text  # loaded only to split

    return split_text(doc.text)


class LocalTextSearch(EngineMixin, BaseTextSearch[LocalDocument]):
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
        passage_chars: Size bound of the passages ``index_path`` cuts files into, in
            characters (100..100,000; default 1500). Recorded per indexed folder: a change
            reads that folder's files again on the next ``index_path``.
        string_mapper: Custom mapping of a :class:`LocalDocument` to the string that
            :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a :class:`LocalDocument` to a
            :class:`~textsearch.TextSearchResult`.
        embedder: An :class:`~textsearch.embeddings.Embedder`: every passage added is
            embedded, and its vector kept beside the index file (``<path>.vectors``; the
            model's id and dimensions in the file), so that passages can be found by
            meaning. Searching by meaning is
            exact (every vector compared); ``pip install "textsearch-sdk[semantic]"`` (numpy,
            and numkong: an int8 first pass with exact float32 re-scoring from 20,000
            passages) makes it fast on large indexes (~4 ms at 100,000 passages).
        mode: ``"keyword"`` (BM25 over the words), ``"semantic"`` (by meaning: nearest
            vectors) or ``"hybrid"`` (both, fused); ``None`` (default): ``"hybrid"`` with an
            embedder, else ``"keyword"``. In ``"keyword"`` mode the embedder is never called
            at query time (it still embeds what is added).

    Raises:
        ConfigurationError: The database file cannot be opened or is not a textsearch index,
            an argument is out of range, ``engine="tantivy"`` without tantivy installed,
            ``mode="semantic"``/``"hybrid"`` without an embedder, or the index holds vectors
            of another model or dimension count than the embedder's.
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

    Each result is one section (passages of one section that both rank are one result, their
    text joined within ``value_chars``), or one document with ``one_per_document``; pages are
    cut after merging, so no section comes back on a later page.

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
        embedder: Embedder | None = None,
        mode: Literal["keyword", "semantic", "hybrid"] | None = None,
        passage_chars: int = DEFAULT_PASSAGE_CHARS,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        if match not in ("any", "all"):
            raise ConfigurationError(f"match must be 'any' or 'all', not {match!r}")
        if mode is None:
            mode = "hybrid" if embedder is not None else "keyword"
        if mode not in _MODES:
            raise ConfigurationError(
                f"mode must be 'keyword', 'semantic' or 'hybrid', not {mode!r}"
            )
        if embedder is not None:
            from textsearch.embeddings import Embedder as _Embedder

            if not isinstance(embedder, _Embedder):
                raise ConfigurationError(
                    "embedder must be an Embedder (model, dimensions, embed_documents, "
                    f"embed_query and their _sync twins), not {type(embedder).__name__}"
                )
        elif mode != "keyword":
            raise ConfigurationError(
                f"mode={mode!r} searches by meaning and needs an embedder: "
                "LocalTextSearch(..., embedder=...)"
            )
        self.embedder = embedder
        self.mode: Literal["keyword", "semantic", "hybrid"] = mode
        #: How hybrid mode fuses its two rankings (see ``_hybrid.fuse``): chosen by
        #: measurement, settable for benchmarks.
        self._fusion: Literal["blend", "rrf"] = "blend"
        self._vector_index: VectorIndex | None = None
        self._vector_store: Any = None  # the _vectorfile.VectorStore, made when first used
        if snippet_tokens is not None:
            if not isinstance(snippet_tokens, int) or not 1 <= snippet_tokens <= 64:
                raise ConfigurationError("snippet_tokens must be an integer from 1 to 64")
            value_chars = max(100, snippet_tokens * 8)
        if not isinstance(value_chars, int) or not 100 <= value_chars <= 20_000:
            raise ConfigurationError("value_chars must be an integer from 100 to 20000")
        if (
            isinstance(passage_chars, bool)
            or not isinstance(passage_chars, int)
            or not 100 <= passage_chars <= 100_000
        ):
            raise ConfigurationError(
                f"passage_chars must be an integer from 100 to 100000, not {passage_chars!r}"
            )
        #: Size bound of one passage ``index_path`` makes; recorded per indexed folder, so
        #: that a change reads that folder's files again on the next run.
        self.passage_chars = passage_chars
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
        # The filterable fields last read from the file (they only ever grow): what
        # check_filter and the other pre-checks compare with, without waiting for the lock.
        self._known_fields: list[str] | None = None
        self._db = connect(self.path)
        self._fts = FtsRanker(self._db)
        self._tv: ModuleType | None = None
        self._ranker: Any = None  # the TantivyRanker when engine == "tantivy"
        try:
            self._open_engine()
            if embedder is not None:
                with documented_errors(self.path):
                    retry_busy(self._open_vectors, self.path)
        except BaseException:
            self._db.close()
            raise

    def __repr__(self) -> str:
        return f"LocalTextSearch(path={self.path!r})"

    # -- vectors -----------------------------------------------------------------------

    def _open_vectors(self) -> None:
        """Create the vector table, record the model, refuse another model's vectors."""
        from textsearch.connectors.local import _vectors

        embedder = self.embedder
        assert embedder is not None
        with Transaction(self._db):
            _vectors.create_vector_tables(self._db)
            meta = self._vector_meta()
            model = meta.get(_vectors.MODEL_KEY)
            stored = meta.get(_vectors.DIMENSIONS_KEY)
            dims = embedder.dimensions
            if model is None:
                self._set_vector_meta(_vectors.MODEL_KEY, embedder.model)
                if dims is not None:
                    self._set_vector_meta(_vectors.DIMENSIONS_KEY, str(dims))
            elif model != embedder.model or (
                dims is not None and stored is not None and int(stored) != dims
            ):
                raise self._mismatch(model, stored, embedder.model, dims)
            elif stored is None and dims is not None:
                self._set_vector_meta(_vectors.DIMENSIONS_KEY, str(dims))
            spec = getattr(embedder, "spec", None)
            if isinstance(spec, str) and spec:
                self._set_vector_meta(_SPEC_KEY, spec)

    @property
    def embedding_spec(self) -> str | None:
        """How the embedder of this index's vectors was named when it was built
        (``"minilm"``, ``"openai:text-embedding-3-small"``...), if it came from
        :func:`textsearch.embeddings.from_spec`; readable without an embedder, so the
        command line reopens an index with the embedder it was made with.

        Raises:
            ConfigurationError: The index was closed.
        """
        with self._lock, documented_errors(self.path):
            row = self._db.execute(
                "SELECT value FROM textsearch_meta WHERE key = ?", (_SPEC_KEY,)
            ).fetchone()
        return str(row[0]) if row else None

    def _mismatch(
        self, model: str, stored: str | None, wanted: str, dims: int | None
    ) -> ConfigurationError:
        have = f"{stored} dimensions" if stored else "unknown dimensions"
        new = f"{dims} dimensions" if dims else "dimensions not yet known"
        return ConfigurationError(
            f"the index {self.path!r} holds vectors of model {model!r} ({have}), not of this "
            f"embedder's model {wanted!r} ({new}); open it with an embedder of {model!r}, or "
            "re-embed it: open it without an embedder and call drop_vectors(), then open it "
            "with the new embedder and call embed_missing_sync()"
        )

    def _vector_meta(self) -> dict[str, str]:
        from textsearch.connectors.local import _vectors

        return dict(
            self._db.execute(
                "SELECT key, value FROM textsearch_meta WHERE key IN (?, ?)",
                (_vectors.MODEL_KEY, _vectors.DIMENSIONS_KEY),
            ).fetchall()
        )

    def _set_vector_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO textsearch_meta VALUES (?, ?)", (key, value))

    def _check_dimensions(self, length: int) -> None:
        """Refuse vectors whose length is not the index's; record it the first time."""
        from textsearch.connectors.local import _vectors

        meta = self._vector_meta()
        stored = meta.get(_vectors.DIMENSIONS_KEY)
        if stored is None:
            self._set_vector_meta(_vectors.DIMENSIONS_KEY, str(length))
        elif int(stored) != length:
            assert self.embedder is not None
            raise self._mismatch(
                meta.get(_vectors.MODEL_KEY, "?"), stored, self.embedder.model, length
            )

    def _vectors_for(
        self,
        items: list[tuple[LocalDocument, list[Passage]]],
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[bytes, bytes]:
        """The vectors of these documents' passages by digest: kept ones, then new ones.

        A passage whose embedded text is unchanged keeps its stored vector; the rest are
        embedded (the embedder is called without the lock held when called from
        ``add_documents``). Raises what the embedder raises; nothing is written here.
        """
        from textsearch.connectors.local import _vectors

        embedder = self.embedder
        if embedder is None:
            return {}
        wanted: dict[bytes, str] = {}
        for doc, passages in items:
            for section, _, _, text in _passage_rows(doc, passages):
                content = _vectors.embedding_input(doc.title, section, text)
                wanted.setdefault(_vectors.digest(content), content)
        if not wanted:
            return {}
        found: dict[bytes, bytes] = {}
        ids = json.dumps([doc.id for doc, _ in items])
        with self._lock, documented_errors(self.path):
            if _vectors.has_vector_table(self._db):
                from textsearch.connectors.local._vectorfile import kept_vectors

                found = kept_vectors(self._db, self._vectors_file(), ids, wanted)
        missing = [key for key in wanted if key not in found]
        for begin in range(0, len(missing), _EMBED_BATCH):
            keys = missing[begin : begin + _EMBED_BATCH]
            vectors = _embed_blocking(embedder, [wanted[k] for k in keys])
            for key, blob in zip(keys, _vectors.encode_many(vectors), strict=True):
                found[key] = blob
            if progress is not None:
                progress(begin + len(keys), len(missing))
        return found

    def _vectors_file(self) -> Any:
        if self._vector_store is None:
            from textsearch.connectors.local._vectorfile import VectorStore

            self._vector_store = VectorStore(self.path)
        return self._vector_store

    def _store_vectors(
        self, rows: list[tuple[int, int, bytes]], vectors: Mapping[bytes, bytes]
    ) -> None:
        """Keep the vector of each new passage ``(rowid, doc rowid, digest)`` (inside a
        write)."""
        from textsearch.connectors.local._vectorfile import append

        stored = [(rowid, doc, key, vectors[key]) for rowid, doc, key in rows if key in vectors]
        if not stored:
            return
        dims = len(stored[0][3]) // 4
        self._check_dimensions(dims)
        append(self._db, self._vectors_file(), stored, dims)

    def embed_missing_sync(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed the passages stored without a vector; returns how many were embedded.

        For an index built before the embedder was set (or with another instance that had
        none). Work is committed every few hundred passages, so an interrupted run keeps
        what it did.

        Args:
            progress: Called as ``progress(done, total)`` after each batch of passages is
                embedded and committed; an exception it raises (``KeyboardInterrupt``
                included) stops the run, keeping what was committed.

        Raises:
            ConfigurationError: No embedder is set, or its vectors' length is not the
                index's.
            ProviderError: The embedder failed (``ResponseFormatError`` for malformed output).
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
        """
        from textsearch.connectors.local import _vectors

        embedder = self.embedder
        if embedder is None:
            raise ConfigurationError(
                "embed_missing needs an embedder: LocalTextSearch(embedder=...)"
            )
        done = 0
        after = 0
        total = 0
        if progress is not None:
            with self._lock, documented_errors(self.path):
                total = int(
                    self._db.execute(
                        "SELECT count(*) FROM passages AS p WHERE NOT EXISTS "
                        "(SELECT 1 FROM passage_vectors AS v WHERE v.rowid = p.rowid)"
                        if _vectors.has_vector_table(self._db)
                        else "SELECT count(*) FROM passages"
                    ).fetchone()[0]
                )
        while True:
            with self._lock, documented_errors(self.path):
                rows = self._db.execute(
                    "SELECT p.rowid, d.title, p.section, p.text, p.doc FROM passages AS p "
                    "JOIN documents AS d ON d.rowid = p.doc "
                    "WHERE p.rowid > ? AND NOT EXISTS "
                    "(SELECT 1 FROM passage_vectors AS v WHERE v.rowid = p.rowid) "
                    "ORDER BY p.rowid LIMIT ?",
                    (after, _EMBED_BATCH),
                ).fetchall()
            if not rows:
                return done
            after = rows[-1][0]
            contents = [_vectors.embedding_input(t, s, x) for _, t, s, x, _ in rows]
            vectors = _embed_blocking(embedder, contents)

            def write(
                rows: list[Any] = rows,
                contents: list[str] = contents,
                vectors: list[list[float]] = vectors,
            ) -> int:
                from textsearch.connectors.local._vectorfile import append

                with self._transaction():
                    self._check_dimensions(len(vectors[0]))
                    entries = []
                    for (rowid, _, _, text, doc), content, vector in zip(
                        rows, contents, vectors, strict=True
                    ):
                        # Only if the passage is still the one embedded and still has no
                        # vector (another writer may have replaced or embedded it meanwhile).
                        if self._db.execute(
                            "SELECT 1 FROM passages AS p WHERE rowid = ? AND text = ? AND NOT "
                            "EXISTS (SELECT 1 FROM passage_vectors AS v WHERE v.rowid = p.rowid)",
                            (rowid, text),
                        ).fetchone():
                            entries.append(
                                (rowid, doc, _vectors.digest(content), _vectors.encode(vector))
                            )
                    append(self._db, self._vectors_file(), entries, len(vectors[0]))
                    return len(entries)

            with self._lock, documented_errors(self.path):
                done += retry_busy(write, self.path)
            if progress is not None:
                progress(done, max(total, done))

    async def embed_missing(self, *, progress: Callable[[int, int], None] | None = None) -> int:
        """Async twin of `embed_missing_sync` (the work, and ``progress``, run in a worker
        thread)."""
        import asyncio

        return await asyncio.to_thread(partial(self.embed_missing_sync, progress=progress))

    def drop_vectors(self) -> int:
        """Delete every stored vector and the recorded model; returns how many were deleted.

        How to move an index to another embedding model: drop the vectors (opened without
        an embedder), then open it with the new embedder and call :meth:`embed_missing_sync`.
        With an embedder set, its model is recorded again.

        Raises:
            ServiceUnavailableError: Another process kept the index file locked for 30 s.
        """
        from textsearch.connectors.local import _vectors

        def write() -> int:
            with self._transaction():
                if not _vectors.has_vector_table(self._db):
                    return 0
                from textsearch.connectors.local._vectorfile import drop

                count = drop(self._db, self._vectors_file())
                self._db.execute(
                    "DELETE FROM textsearch_meta WHERE key IN (?, ?, ?)",
                    (_vectors.MODEL_KEY, _vectors.DIMENSIONS_KEY, _SPEC_KEY),
                )
                if self.embedder is not None:
                    self._set_vector_meta(_vectors.MODEL_KEY, self.embedder.model)
                    spec = getattr(self.embedder, "spec", None)
                    if isinstance(spec, str) and spec:
                        self._set_vector_meta(_SPEC_KEY, spec)
                _vectors.bump_generation(self._db)
                return int(count)

        with self._lock, documented_errors(self.path):
            return retry_busy(write, self.path)

    # -- writing -----------------------------------------------------------------------

    def add_documents(
        self,
        docs: Iterable[LocalDocument | Mapping[str, Any]],
        *,
        chunk: bool = False,
        progress: Callable[[int, int], None] | None = None,
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
        prepared = [normalize_document(d) for d in docs]
        items = [(doc, _passages_of(doc, chunk)) for doc in prepared]
        # Embedded before anything is written: a failing embedder leaves the index as it was.
        vectors = self._vectors_for(items, progress) if self.embedder is not None else None

        def write() -> None:
            with self._transaction():
                if self._ranker is not None:
                    self._add_many(items, vectors)
                    return
                for doc, passages in items:
                    self._upsert(doc, passages, None, None, None, None, vectors)

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
            tokens = self._tv.document_tokens(doc.id, doc.link, site, doc.metadata)  # type: ignore[union-attr]
            for i, (section, _, _, text) in enumerate(rows):
                ranker.add(first + i, docid, doc.title, section, text, tokens)
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
        if doc.metadata:
            db.executemany(
                "INSERT OR IGNORE INTO metadata_fields(name) VALUES (?)",
                [(k,) for k in doc.metadata],
            )

    def _add_many(
        self,
        items: list[tuple[LocalDocument, list[Passage]]],
        vectors: Mapping[bytes, bytes] | None,
    ) -> None:
        """``add_documents`` with tantivy: a few ``executemany`` for the whole batch.

        Row by row, three statements per document cost more than the ranking index itself.
        """
        db = self._db
        ranker = self._tantivy()
        # a repeated id: the last one wins, as one by one
        latest = {doc.id: (doc, passages) for doc, passages in items}
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
        vector_rows: list[tuple[int, int, bytes]] = []
        if vectors:
            from textsearch.connectors.local._vectors import digest, embedding_input
        for doc, passages in latest.values():
            site = link_host(doc.link)
            metadata = json.dumps(doc.metadata, ensure_ascii=False) if doc.metadata else "{}"
            doc_rows.append((next_doc, doc.id, doc.title, doc.link, site, metadata))
            tokens = tokens_of(doc.id, doc.link, site, doc.metadata)
            for section, anchor, line, text in _passage_rows(doc, passages):
                passage_rows.append((next_row, next_doc, section, anchor, line, text))
                ranker.add(next_row, next_doc, doc.title, section, text, tokens)
                if vectors:
                    vector_rows.append(
                        (next_row, next_doc, digest(embedding_input(doc.title, section, text)))
                    )
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
        if "\x00" in os.fspath(path):
            raise ConfigurationError("cannot index a path that contains a NUL character")
        root = Path(path).expanduser().resolve()
        if not root.exists():
            raise ConfigurationError(f"cannot index {os.fspath(path)!r}: no such file or folder")
        wanted = tuple(e.lower() for e in extensions)
        forced = checked_formats(formats)
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
            version = _text_version(forced, self.passage_chars)
            reread = row is None or row[0] != version
            # A new passage size changes every file's passages, not only Markdown's.
            reread_all = row is not None and _chars_of(row[0]) != self.passage_chars
            if reread and not known:  # nothing indexed from here yet: nothing old to re-read
                self._mark(mark, version)
                reread = False
            seen: set[str] = set()
            for begin in range(0, len(files), _BATCH_FILES):
                batch = files[begin : begin + _BATCH_FILES]
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
                        limit = self.passage_chars
                        if reread and (
                            reread_all or suffix in MARKDOWN_SUFFIXES or suffix in forced
                        ):  # read again: compared with nothing
                            item = read_file(file, None, report, forced, limit=limit, root=root)
                        else:
                            item = read_file(file, previous, report, forced, limit=limit, root=root)
                        group.append((doc_id, item, previous))
                        if item is not None and item.title is not None:
                            waiting += len(item.passages)
                        if (
                            self.embedder is None
                            or waiting >= _EMBED_BATCH
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

    def _embedded(
        self, group: list[tuple[str, FileWork | None, Any]]
    ) -> list[tuple[str, FileWork | None, Any, Mapping[bytes, bytes] | None]]:
        """The files read, each with the vectors its passages need (one embedder call for
        the whole group; ``None`` without an embedder)."""
        if self.embedder is None:
            return [(doc_id, item, previous, None) for doc_id, item, previous in group]
        changed = [
            (LocalDocument(id=doc_id, title=item.title, link=doc_id), item.passages)
            for doc_id, item, _ in group
            if item is not None and item.title is not None
        ]
        vectors = self._vectors_for(changed) if changed else {}
        return [(doc_id, item, previous, vectors) for doc_id, item, previous in group]

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
        doc = LocalDocument(id=doc_id, title=work.title, link=doc_id)
        # Unchanged passages keep their vectors; only the others are embedded.
        if vectors is None and self.embedder is not None:
            vectors = self._vectors_for([(doc, work.passages)])
        self._upsert(doc, work.passages, root_key, work.mtime_ns, work.size, work.sha256, vectors)
        if previous is None:
            report.added += 1
        else:
            report.updated += 1

    # -- searching ---------------------------------------------------------------------

    def _filter_fields(self) -> list[str]:
        names = [r[0] for r in self._db.execute("SELECT name FROM metadata_fields")]
        fields = sorted({*RESERVED_FILTER_FIELDS, *names})
        self._known_fields = fields
        return fields

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        # The rules of a search itself (validate_filter, then filter_sql for the values), so
        # that check_filter, check_request and prepare_request refuse what search() refuses.
        # The fields come from the last read; the file is read again only for a field not
        # seen yet, and an event loop's thread never waits for the lock to do it.
        if not search_filter:
            return
        known = self._known_fields
        if known is None or any(name not in known for name in search_filter.field_names):
            known = self._fresh_fields()
        validate_filter(search_filter, known)
        filter_sql(search_filter)

    def _fresh_fields(self) -> list[str]:
        if self._lock.acquire(blocking=not _on_event_loop()):
            try:
                with documented_errors(self.path):
                    return self._filter_fields()
            finally:
                self._lock.release()
        # Busy, seen from an event loop: the last read (the search itself reads again).
        return self._known_fields or sorted(RESERVED_FILTER_FIELDS)

    def _validate_filter(self, search_filter: TextSearchFilter | None) -> None:
        if search_filter:
            validate_filter(search_filter, self._filter_fields())

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        vector = None
        if self.mode != "keyword" and query.strip():
            from textsearch.embeddings import embed_query_sync

            # The filter is checked first: bad input fails before the embedder is called.
            with self._lock, documented_errors(self.path):
                self._validate_filter(options.filter)
                filter_sql(options.filter)
            assert self.embedder is not None
            vector = embed_query_sync(self.embedder, query)
        return self._search(query, options, vector)

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        # A worker thread keeps the event loop free: a broad query on a large index can take
        # tens of milliseconds. asyncio is imported here, not at module level: it costs
        # 60-120 ms of import time that the command line and sync users never need.
        import asyncio

        vector = None
        if self.mode != "keyword" and query.strip():
            from textsearch.embeddings import embed_query

            await asyncio.to_thread(self._checked_filter, options)
            assert self.embedder is not None
            vector = await embed_query(self.embedder, query)
        return await asyncio.to_thread(self._search, query, options, vector)

    def _checked_filter(self, options: SearchOptions) -> None:
        with self._lock, documented_errors(self.path):
            self._validate_filter(options.filter)
            filter_sql(options.filter)

    def _search(
        self, query: str, options: SearchOptions, vector: list[float] | None
    ) -> SearchResults[LocalDocument]:
        from textsearch.connectors.local._hybrid import collapse, fit

        plan = plan_query(query)
        keyword = bool(plan.terms) and self.mode != "semantic"
        if not keyword and vector is None:
            with self._lock, documented_errors(self.path):
                self._validate_filter(options.filter)
            none = 0 if options.include_total_count else None
            return SearchResults([], none, {"match": "none", "engine": self.engine})
        info: dict[str, Any] = {"match": self.match, "engine": self.engine}
        if self.mode != "keyword":
            info["mode"] = self.mode
            if self.mode == "hybrid":
                info["fusion"] = self._fusion
        wanted = result_window(options)
        # Passages of one section are merged into one result: rank a few more than asked,
        # and more again while the merged list is short of the page (rare: only sections
        # split into passages that both rank merge).
        depth = wanted + 2 + wanted // 4
        memo: dict[str, Any] = {}  # this query's vector scores, kept while the depth grows
        total: int | None = None
        rows: dict[int, Any] = {}  # the passages read so far, by rowid
        # (doc, anchor) by rowid; None: deleted by another writer since it was ranked
        shapes: dict[int, tuple[int, str | None] | None] = {}
        with self._lock, documented_errors(self.path):
            self._validate_filter(options.filter)
            filter_sql(options.filter)  # checks values (64-bit numbers) for both engines
            while True:
                ranked, exhausted, counted = self._ranked(
                    plan, keyword, vector, options, depth, info, memo
                )
                if counted is not None:
                    total = counted
                self._fetch_shapes(shapes, rows, ranked)
                groups = collapse(shapes, ranked, self.one_per_document)
                if len(groups) >= wanted or exhausted:
                    page = groups[options.skip : wanted]
                    gone = self._fetch_rows(rows, [r for g in page for r in g.members])
                    if not gone:
                        for group in page:
                            fit(group, lambda rowid: len(rows[rowid][7]), self.value_chars)
                        break
                    # Deleted by another writer since its shape was read: rank without it.
                    for rowid in gone:
                        shapes[rowid] = None
                    continue
                depth *= 4
        pattern = hit_pattern(plan.words)
        docs = []
        build = _stored_document
        for group in page:
            parts = [rows[r] for r in sorted(group.members)]
            _, _, doc_id, title, section, anchor, line, _, link, metadata = parts[0]
            text = parts[0][7] if len(parts) == 1 else "\n\n".join(p[7] for p in parts)
            docs.append(
                build(
                    id=doc_id,
                    title=title,
                    text=text,
                    link=passage_link(link, anchor, line),
                    metadata=_result_metadata(metadata, anchor),
                    section=section,
                    line=line,
                    snippet=best_window(text, pattern, self.value_chars, self.highlight) or None,
                    score=group.score,
                )
            )
        return SearchResults(docs, total, info)

    def _fetch_shapes(
        self,
        shapes: dict[int, tuple[int, str | None] | None],
        rows: dict[int, Any],
        ranked: list[tuple[int, float]],
    ) -> None:
        """Read what grouping needs of the ranked passages not read yet (a passage ranked by
        tantivy but not yet in SQLite, committed by another process in between, is simply
        not found).

        A hybrid or semantic ranking is a few hundred passages deep and only a page of them
        is shown: their text and document are read for the page alone (reading them all
        cost more than ranking at 100k passages). A short list is read whole at once.
        """
        wanted = [rowid for rowid, _ in ranked if rowid not in shapes]
        if len(wanted) <= _WHOLE_ROWS:
            self._fetch_rows(rows, wanted)
            for rowid in wanted:
                row = rows.get(rowid)
                if row is not None:
                    shapes[rowid] = (row[1], row[5])
            return
        # The text is the row's last column: these are read without touching it.
        for rowid, doc, anchor in self._rows_in(
            "SELECT p.rowid, p.doc, p.anchor FROM passages AS p ", wanted
        ):
            shapes[rowid] = (doc, anchor)

    def _fetch_rows(self, rows: dict[int, Any], wanted: list[int]) -> list[int]:
        """Read the passages of ``wanted`` not read yet; returns those not found."""
        wanted = [rowid for rowid in wanted if rowid not in rows]
        if not wanted:
            return []
        for row in self._rows_in(
            "SELECT p.rowid, p.doc, d.id, d.title, p.section, p.anchor, p.line, p.text, "
            "d.link, d.metadata FROM passages AS p JOIN documents AS d ON d.rowid = p.doc ",
            wanted,
        ):
            rows[row[0]] = row
        return [rowid for rowid in wanted if rowid not in rows]

    def _rows_in(self, select: str, rowids: list[int]) -> Any:
        """``select`` (on passages ``p``) restricted to the passages ``rowids``."""
        if len(rowids) <= 500:
            return self._db.execute(
                select + f"WHERE p.rowid IN ({','.join('?' * len(rowids))})", rowids
            )
        return self._db.execute(
            select + "WHERE p.rowid IN (SELECT value FROM json_each(?))", (json.dumps(rowids),)
        )

    def _ranked(
        self,
        plan: Any,
        keyword: bool,
        vector: list[float] | None,
        options: SearchOptions,
        depth: int,
        info: dict[str, Any],
        memo: dict[str, Any],
    ) -> tuple[list[tuple[int, float]], bool, int | None]:
        """The best ``depth`` passages of this mode, whether there are no more, the total."""
        from textsearch.connectors.local._hybrid import fuse

        # Counted once per query, not again each time the depth grows.
        count = options.include_total_count and "counted" not in memo
        memo["counted"] = True
        arm_depth = max(depth, HYBRID_DEPTH) if keyword and vector is not None else depth
        words: list[tuple[int, float]] = []
        total: int | None = None
        if keyword:
            words, total = self._keyword_arm(plan, options, arm_depth, info, count)
            if vector is None:
                return words, len(words) < arm_depth, total
        assert vector is not None
        meaning, cosine_of, admitted, meaning_total = self._semantic_arm(
            vector, options, arm_depth, memo, count
        )
        if count:
            total = max(total or 0, meaning_total or 0)
        if not keyword:
            return meaning, len(meaning) >= admitted, total
        fused = fuse(words, meaning, cosine_of, self._fusion)
        exhausted = len(words) < arm_depth and len(meaning) >= admitted
        return fused, exhausted, total

    def _keyword_arm(
        self, plan: Any, options: SearchOptions, depth: int, info: dict[str, Any], count: bool
    ) -> tuple[list[tuple[int, float]], int | None]:
        if self._ranker is not None:
            return self._rank_tantivy(plan.words, options, depth, count)
        match = plan.match(self.match)
        if self.match == "any" and len(plan.terms) > 1 and not options.include_total_count:
            # Planned for the page asked for (merging sections rarely shortens it).
            match, left_out = self._fts.plan_any(plan.terms, options)
            if left_out:
                info["left_out"] = left_out
        ranked = self._fts.rank(match, options, depth)
        total = self._fts.count(match, options, self.one_per_document) if count else None
        return ranked, total

    def _semantic_arm(
        self,
        vector: list[float],
        options: SearchOptions,
        depth: int,
        memo: dict[str, Any],
        count: bool,
    ) -> tuple[list[tuple[int, float]], Callable[[int], float | None], int, int | None]:
        from textsearch.connectors.local._hybrid import group_count_sql
        from textsearch.connectors.local._vectors import VectorIndex

        index = self._vector_index
        if index is None:
            index = self._vector_index = VectorIndex()
        index.follow(self._db, self._vectors_file())
        allowed = None
        where, params = filter_sql(options.filter)
        if where and "scored" not in memo and "pairs" not in memo:
            allowed = index.admitted(self._db, where, params)
        if len(index) and len(vector) != index.dimensions:
            stored = self._vector_meta()
            assert self.embedder is not None
            raise self._mismatch(
                stored.get("embedding_model", "?"),
                str(index.dimensions),
                self.embedder.model,
                len(vector),
            )
        ranked, cosine_of, admitted = index.search(vector, depth, allowed, memo)
        total: int | None = None
        if count:
            source = (
                "SELECT v.rowid FROM passage_vectors AS v JOIN passages AS q ON q.rowid = v.rowid "
                f"JOIN documents AS d ON d.rowid = q.doc WHERE 1{where}"
            )
            total = (
                int(
                    self._db.execute(
                        group_count_sql(source, self.one_per_document), params
                    ).fetchone()[0]
                )
                if len(index)
                else 0
            )
        return ranked, cosine_of, admitted, total

    def _to_text_search_result(self, item: LocalDocument) -> TextSearchResult:
        name = f"{item.title} › {item.section}" if item.title and item.section else item.title
        value = item.snippet if item.snippet else (item.text[: self.value_chars] or None)
        return TextSearchResult(name=name or item.section, value=value, link=item.link)

    #: Same as :meth:`get_search_results` (passages with snippet and score), under the name
    #: the other stores' connectors use; and its blocking twin.
    get_documents = BaseTextSearch.get_search_results
    get_documents_sync = BaseTextSearch.get_search_results_sync

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

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[LocalDocument]:
        """The stored documents in order of id, a page at a time, without their text.

        Pages are keyed, not counted: pass the last id of a page as ``after`` to get the
        next one, so documents added or removed meanwhile never shift a page.

        Args:
            filter: Only documents this filter admits (the same clauses as a search's).
            after: Only ids after this one (in code-point order).
            limit: Most documents returned, 1 to 1,000.

        Returns:
            Documents with ``id``, ``title``, ``link`` and ``metadata``; ``text`` is empty
            (read a document with :meth:`get_document`).

        Raises:
            ConfigurationError: The index was closed.
            InvalidRequestError: ``limit`` is out of range.
            UnsupportedFilterError: The filter names a field the index cannot filter on.
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidRequestError("limit must be a whole number from 1 to 1000")
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
        # A section is the run of passages under one heading (a long one is split); a
        # passage outside any section stands alone.
        start = end = found[0]
        section, anchor, line = passages[start][:3]
        if section is not None:
            while start > 0 and passages[start - 1][:2] == (section, anchor):
                start -= 1
            while end + 1 < len(passages) and passages[end + 1][:2] == (section, anchor):
                end += 1
            line = passages[start][2]
        return LocalDocument(
            id=doc[1],
            title=doc[2],
            text="\n\n".join(p[3] for p in passages[start : end + 1]),
            link=passage_link(base, anchor, line) or link,
            metadata=json.loads(doc[4]),
            section=section,
            line=line,
        )

    def close(self) -> None:
        """Close the database connection; later calls raise ``ConfigurationError``."""
        with self._lock:
            if self._ranker is not None:
                self._ranker.rollback()
            self._db.close()
            if self._vector_store is not None:
                self._vector_store.close()


def _on_event_loop() -> bool:
    """Whether this thread runs an event loop (asyncio is looked up, never imported)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
