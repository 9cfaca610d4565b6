"""Ranking with tantivy beside the SQLite store (``LocalTextSearch(engine="tantivy")``).

Imported only when the tantivy engine is used: ``import textsearch`` never loads tantivy.

The SQLite file stays the store and the source of truth; tantivy keeps only what ranking and
filtering need (no text is stored in it): the passage rowid (the key back to SQLite), the
document rowid (to collapse one result per document), the analyzed title and body, their
CJK runs' bigrams and characters (a field of their own), and one keyword field of filter
tokens. Tantivy's block-max WAND skips the blocks of postings that cannot enter the top k,
which SQLite FTS5 cannot do.

Consistency: a tantivy commit and a SQLite commit are not atomic. Each write transaction
stores a generation number in both (a SQLite meta row, and a tantivy document with rowid 0),
committing tantivy first, while the SQLite write lock is held; an index whose generations
differ on open (a crash between the two commits) is rebuilt from the stored passages.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable
from typing import Any

import tantivy

from textsearch._cjk import split_runs
from textsearch._native import native_calls
from textsearch._types import TextSearchFilter
from textsearch.connectors.local._filter_tokens import (
    _level,
    _range_base,
    document_tokens,
    filter_clauses,
)
from textsearch.connectors.local._prefix_cover import _DIGITS, _TOP, interval_covers, present_cover
from textsearch.connectors.local._query import cjk_characters, rare_cjk
from textsearch.connectors.local._schema import BUSY_TIMEOUT, ZWSP, is_cjk
from textsearch.errors import ProviderError, ServiceUnavailableError, TextSearchError

__all__ = ["TantivyRanker", "document_tokens", "sidecar_path"]

log = logging.getLogger("textsearch.local")

_ANALYZER = "textsearch_en"
_CJK_ANALYZER = "textsearch_cjk"
_GEN_ROWID = 0
# Longer tokens are dropped from index and queries alike (tantivy refuses terms past 64 KB).
_MAX_TOKEN_CHARS = 255
# Writer memory: big enough that a batch of thousands of documents makes few segments.
_WRITER_HEAP = 128_000_000
# One indexing thread: it keeps pace with the Python side feeding it, and every added thread
# made a segment more per commit, and merges more, for the same documents (bench_local.py
# --vs-lancedb; see docs/performance.md).
_WRITER_THREADS = 1
_SEP = "\x1f"
# The title (document title + section heading) is indexed this many times before the body, in
# one field: BM25 then counts title words within one saturating term frequency and one
# length, as FTS5's column weights do (BM25F). Separate title and body fields, each scored
# on its own and summed, ranked worse on SciFact at every title boost tried, and keep tantivy
# from pruning with block-max WAND (a boosted clause is no plain term). Of 1, 2 and 3 repeats
# only 1 meets every relevance target of issue #10 (bench_relevance.py). Applies when indexing.
TITLE_REPEAT = 1
_REBUILD_LOG_EVERY = 100_000


def sidecar_path(path: str) -> str | None:
    """Where the tantivy index of ``path`` lives (``None``: in memory)."""
    return None if path == ":memory:" else path + ".tantivy"


# Most distinct values of one field listed for `present_cover`, kept until the next write:
# listing costs in proportion to them, once per generation, where a walk level by level costs
# a few looks into the term dictionary on every new bound. A field found to hold more is
# walked from then on.
_MAX_LISTED = 2_048


def _analyzer() -> tantivy.TextAnalyzer:
    # The FTS5 engine's "porter unicode61 remove_diacritics 2", as near as tantivy gets.
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_MAX_TOKEN_CHARS))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _cjk_analyzer() -> tantivy.TextAnalyzer:
    # One CJK run a value (`split_runs`): its characters and bigrams, the tokens of
    # `textsearch._cjk.bigrams`, cut in Rust; no case, accent or stem to fold.
    return tantivy.TextAnalyzerBuilder(
        tantivy.Tokenizer.ngram(min_gram=1, max_gram=2, prefix_only=False)
    ).build()


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("rowid", indexed=True, fast=True)
    builder.add_unsigned_field("doc", indexed=True, fast=True)
    builder.add_unsigned_field("gen", fast=True)
    builder.add_text_field("text", tokenizer_name=_ANALYZER, index_option="position")
    # CJK bigrams and characters, apart from the text: the text field's analyzer (folding
    # and stemming ~400 CJK tokens a passage) and Python building them cost more than the
    # rest of a Chinese passage's write; here each run is cut by an n-gram tokenizer in
    # Rust, and a one-token term needs no positions (a phrase query is only ever on the
    # text field). Chinese indexing 0.39x -> 0.69x the English rate (bench_languages.py).
    builder.add_text_field("cjk", tokenizer_name=_CJK_ANALYZER, index_option="freq")
    builder.add_text_field("filter", tokenizer_name="raw", index_option="basic")
    return builder.build()


def _is_busy(exc: Exception) -> bool:
    return "LockBusy" in str(exc) or "already an `IndexWriter`" in str(exc)


def map_tantivy_error(exc: Exception, path: str) -> TextSearchError:
    """A documented error for a failure inside tantivy."""
    if isinstance(exc, TextSearchError):
        return exc
    if _is_busy(exc):
        return ServiceUnavailableError(
            f"the ranking index of {path!r} stayed locked by another writer for "
            f"{BUSY_TIMEOUT:.0f} s",
            provider="local",
            code="busy",
            hints=("let one process write to an index file at a time",),
        )
    return ProviderError(
        f"the ranking index of {path!r} failed: {exc}",
        provider="local",
        code="corrupt",
        hints=(f"delete {sidecar_path(path)!r}: it is rebuilt from the index file",),
    )


class TantivyRanker:
    """The tantivy side of a local index: writes buffered per transaction, ranked queries."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.directory = sidecar_path(path)
        self.schema = _schema()
        self.analyzer = _analyzer()
        self.loaded_generation: int | None = None
        self._writer: Any = None
        self._pending: list[tuple[int, Any]] = []
        self._in_savepoint = False
        # Whether this write transaction changed anything: one that did not (index_path over
        # unchanged files) commits nothing to tantivy, sparing a commit's fsync per batch.
        self.dirty = False
        self.damaged = False
        self._range_cache: dict[tuple[Any, ...], list[str]] = {}
        self._listed_values: dict[tuple[Any, ...], list[str] | None] = {}
        self._too_many: set[str] = set()  # the fields whose values are not listed
        self._children: dict[tuple[Any, ...], dict[str, set[str]]] = {}
        self._index = self._open()

    # -- opening -------------------------------------------------------------------------

    def _open(self) -> tantivy.Index:
        if self.directory is None:
            return self._new_index(None)
        try:
            os.makedirs(self.directory, exist_ok=True)
            index = self._new_index(self.directory)
            index.searcher()  # reads every segment's meta: a damaged sidecar fails here
            return index
        except (ValueError, OSError) as exc:
            # A sidecar that cannot be opened is rebuilt from the store, never reported raw.
            # One whose fields an older release laid out is an upgrade, not damage: the
            # engine's own message says that it is rebuilt, and why.
            if "schema does not match" in str(exc):
                log.info("ranking index %s has an older release's fields", self.directory)
            else:
                log.warning(
                    "ranking index %s cannot be opened (%s): rebuilding", self.directory, exc
                )
            self.damaged = True
            shutil.rmtree(self.directory, ignore_errors=True)
            os.makedirs(self.directory, exist_ok=True)
            return self._new_index(self.directory)

    def _new_index(self, directory: str | None) -> tantivy.Index:
        index = tantivy.Index(self.schema, path=directory, reuse=True)
        index.register_tokenizer(_ANALYZER, self.analyzer)
        index.register_tokenizer(_CJK_ANALYZER, _cjk_analyzer())
        return index

    def stored_generation(self) -> int | None:
        """The generation of the last tantivy commit (``None``: never committed)."""
        self._index.reload()
        searcher = self._index.searcher()
        hits = searcher.search(
            tantivy.Query.term_query(self.schema, "rowid", _GEN_ROWID), limit=1
        ).hits
        if not hits:
            return None
        value = searcher.fast_field_values("gen", [hits[0][1]])[0]
        return int(value) if value is not None else None

    def remove_files(self) -> None:
        """Delete the sidecar folder (the FTS5 engine ranks this index now)."""
        self._release()
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    # -- writing -------------------------------------------------------------------------

    def begin(self) -> None:
        """Take the writer: called with the SQLite write lock held, so another textsearch
        process never holds it; a foreign holder is waited for, then reported as busy."""
        if self._writer is not None:
            return
        deadline = time.monotonic() + BUSY_TIMEOUT
        delay = 0.01
        while True:
            try:
                self._writer = self._index.writer(
                    heap_size=_WRITER_HEAP, num_threads=_WRITER_THREADS
                )
                return
            except ValueError as exc:
                if not _is_busy(exc) or time.monotonic() + delay > deadline:
                    raise map_tantivy_error(exc, self.path) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.25)

    def add(
        self,
        rowid: int,
        doc: int,
        title: str | None,
        section: str | None,
        text: str,
        tokens: list[str],
    ) -> None:
        document = tantivy.Document()
        document.add_unsigned("rowid", rowid)
        document.add_unsigned("doc", doc)
        heading, heading_runs = split_runs(f"{title or ''}\n{section or ''}", ZWSP)
        body, body_runs = split_runs(text, ZWSP)
        document.add_text("text", (heading + "\n") * TITLE_REPEAT + body)
        for run in heading_runs * TITLE_REPEAT + body_runs:
            document.add_text("cjk", run)
        for token in tokens:
            document.add_text("filter", token)
        self._pending.append((1, document))
        self.dirty = True
        self._maybe_flush()

    def delete_doc(self, doc: int) -> None:
        self._pending.append((0, tantivy.Query.term_query(self.schema, "doc", doc)))
        self.dirty = True
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if not self._in_savepoint and len(self._pending) >= 256:
            self.flush()

    def flush(self) -> None:
        """Hand buffered operations to the writer (they stay uncommitted)."""
        if not self._pending:
            return
        self.begin()
        writer = self._writer
        try:
            for kind, item in self._pending:
                if kind:
                    writer.add_document(item)
                else:
                    writer.delete_documents_by_query(item)
        except (ValueError, OSError, RuntimeError) as exc:
            raise map_tantivy_error(exc, self.path) from None
        finally:
            self._pending.clear()

    def savepoint(self) -> None:
        """Buffer what follows until `release` (or drop it at `rollback_to`)."""
        self.flush()
        self._in_savepoint = True

    def release(self) -> None:
        self._in_savepoint = False
        self.flush()

    def rollback_to(self) -> None:
        self._in_savepoint = False
        self._pending.clear()

    def delete_all(self) -> None:
        self._pending.clear()
        self.dirty = True
        self.begin()
        try:
            self._writer.delete_all_documents()
        except (ValueError, OSError, RuntimeError) as exc:
            raise map_tantivy_error(exc, self.path) from None

    def commit(self, generation: int) -> None:
        """Commit everything with ``generation``; the searcher then sees it."""
        self.flush()
        self.begin()
        writer = self._writer
        writer.delete_documents_by_query(tantivy.Query.term_query(self.schema, "rowid", _GEN_ROWID))
        marker = tantivy.Document()
        marker.add_unsigned("rowid", _GEN_ROWID)
        marker.add_unsigned("gen", generation)
        writer.add_document(marker)
        writer.commit()
        self.dirty = False
        self._release(wait=True)
        self._index.reload()
        self.loaded_generation = generation

    def rollback(self) -> None:
        """Forget every operation since the last commit."""
        self._pending.clear()
        self._in_savepoint = False
        self.dirty = False
        if self._writer is not None:
            try:
                self._writer.rollback()
            finally:
                self._release()

    def _release(self, wait: bool = False) -> None:
        # The writer (and its lock on the folder) lives only for one write transaction, so
        # other processes can write in turn; waiting lets the merges it started finish.
        writer, self._writer = self._writer, None
        if writer is not None and wait:
            writer.wait_merging_threads()

    def rebuild(
        self,
        rows: Iterable[tuple[Any, ...]],
        generation: int,
        total: int,
        tokens_of: Callable[[tuple[Any, ...]], list[str]],
    ) -> None:
        """Index every stored passage again: ``rows`` of (rowid, doc, title, section, text, ...)."""
        started = time.monotonic()
        self.delete_all()
        done = 0
        for row in rows:
            self.add(row[0], row[1], row[2], row[3], row[4], tokens_of(row))
            done += 1
            if done % _REBUILD_LOG_EVERY == 0:
                log.warning("ranking index %s: %d of %d passages", self.path, done, total)
        self.commit(generation)
        log.info(
            "ranking index %s rebuilt: %d passages in %.1f s",
            self.path,
            done,
            time.monotonic() - started,
        )

    def reload(self, generation: int) -> None:
        self._index.reload()
        self.loaded_generation = generation

    # -- searching -----------------------------------------------------------------------

    def query(
        self,
        words: list[str],
        mode: str,
        search_filter: TextSearchFilter | None,
        depth: int = 0,
    ) -> tantivy.Query | None:
        """The ranked query for a query plan's words (``None``: nothing can match).

        With ``depth`` (an any-word query without a filter), the CJK characters most
        passages hold are left out when the other words fill ``depth`` results
        (`textsearch.connectors.local._query.rare_cjk`).
        """
        q = tantivy.Query
        schema = self.schema
        if depth and mode != "all" and search_filter is None and cjk_characters(words):
            searcher = self._index.searcher()
            held = int(searcher.num_docs)
            words = rare_cjk(words, lambda w: int(searcher.doc_freq("cjk", w)), held, depth)
        per_word: list[tantivy.Query] = []
        for word in words:
            # A plan's CJK words are index tokens of the CJK field already (bigrams,
            # characters), never cut again.
            if not word.isascii() and is_cjk().match(word):
                per_word.append(q.term_query(schema, "cjk", word))
                continue
            tokens: list[str | tuple[int, str]] = list(self.analyzer.analyze(word))
            if not tokens:
                continue
            if len(tokens) == 1:
                per_word.append(q.term_query(schema, "text", str(tokens[0])))
            else:
                # A word the tokenizer splits (foo_bar): its tokens in order.
                per_word.append(q.phrase_query(schema, "text", tokens))
        if not per_word:
            return None
        occur = tantivy.Occur.Must if mode == "all" else tantivy.Occur.Should
        clauses = [(occur, clause) for clause in per_word]
        filters = filter_clauses(schema, search_filter, self.range_terms)
        if not filters:
            return q.boolean_query(clauses)
        return q.boolean_query([(tantivy.Occur.Must, q.boolean_query(clauses)), *filters])

    def range_terms(self, field: str, kind: str, low: int, high: int) -> list[str]:
        """The terms of the index that cover the interval ``low..high`` of ``field`` (kept per
        generation, so a preset filter pays it once): from the field's distinct values,
        listed once per generation (`present_cover`), or for a field holding more than
        ``_MAX_LISTED`` of them, per level one look into the term dictionary."""
        key = (self.loaded_generation, field, kind, low, high)
        known = self._range_cache.get(key)
        if known is not None:
            return known
        base = _range_base(kind, field)
        low, high = max(low, 0), min(high, _TOP)
        values = self._listed(base) if low <= high else []
        if low > high:
            terms = []
        elif values is not None:
            found = present_cover(values, f"{low:020x}", f"{high:020x}")
            terms = [_level(base, p) for p in found]
        else:
            terms = self._walked(base, low, high)
        if len(self._range_cache) >= 128 or any(
            k[0] != self.loaded_generation for k in list(self._range_cache)[:1]
        ):
            self._range_cache.clear()
        self._range_cache[key] = terms
        return terms

    def _listed(self, base: str) -> list[str] | None:
        """The sorted distinct digits of one field's range values in the index (``None``:
        more than ``_MAX_LISTED``), listed once per generation."""
        key = (self.loaded_generation, base)
        if key in self._listed_values:
            return self._listed_values[key]
        if base in self._too_many:
            return None
        level = base + f"{_DIGITS:02d}"
        found = self._index.searcher().terms_with_prefix("filter", level, limit=_MAX_LISTED + 1)
        width = len(level)
        values = (
            sorted({token[width:] for token, _ in found}) if len(found) <= _MAX_LISTED else None
        )
        if values is None:
            self._too_many.add(base)
        if any(k[0] != self.loaded_generation for k in list(self._listed_values)[:1]):
            self._listed_values.clear()
        self._listed_values[key] = values
        return values

    def _walked(self, base: str, low: int, high: int) -> list[str]:
        """The covering terms found level by level in the term dictionary (what a prefix
        holds below it is kept for the generation: the next bound looks up only new ones)."""
        heads, covers = interval_covers(low, high)
        if not heads and not covers:
            return []
        searcher = self._index.searcher()
        if any(k[0] != self.loaded_generation for k in list(self._children)[:1]):
            self._children.clear()
        children = self._children.setdefault((self.loaded_generation, base), {})
        if len(children) > _MAX_LISTED:  # many bounds on a big field: start again
            children.clear()

        def below(parent: str) -> set[str]:
            # the digits that follow ``parent`` in some value of the field
            found = children.get(parent)
            if found is None:
                level = f"{base}{len(parent) + 1:02d}{parent}"
                width = len(level) + 1
                found = children[parent] = {
                    token[-1]
                    for token, _ in searcher.terms_with_prefix("filter", level)
                    if len(token) == width
                }
            return found

        def reach(digits: str) -> int:
            # how long a prefix of ``digits`` some value of the field has
            held = 0
            while held < _DIGITS and digits[held] in below(digits[:held]):
                held += 1
            return held

        # Every head and every cover's parent is a prefix of one bound: one longer than what
        # values share with that bound holds nothing, and is neither looked up nor sought.
        sides = [(digits, reach(digits)) for digits in (f"{low:020x}", f"{high:020x}")]

        def held(prefix: str) -> bool:
            return any(len(prefix) <= n and digits.startswith(prefix) for digits, n in sides)

        terms = [_level(base, head) for head in heads if held(head)]
        for parent, allowed in covers:
            if held(parent):
                level = f"{base}{len(parent) + 1:02d}{parent}"
                terms += [level + d for d in sorted(below(parent)) if d in allowed]
        return terms

    def search(
        self, query: tantivy.Query, limit: int, offset: int, count: bool
    ) -> tuple[list[tuple[float, int, int]], int | None]:
        """``(score, rowid, doc)`` of the best hits, and the number of matches if asked.

        Raises:
            ProviderError: tantivy panicked (``code="native_panic"``).
        """
        with native_calls("local", f"the ranking index of {self.path!r}"):
            searcher = self._index.searcher()
            # tantivy reserves room for ``limit + offset`` hits before it looks at one:
            # never ask for more than the index holds (nor for an offset past its end).
            held = int(searcher.num_docs)
            offset = max(0, min(offset, held))
            limit = max(1, min(limit, held - offset))
            found = searcher.search(query, limit=limit, count=count, offset=offset)
            total: int | None = found.count if count else None  # type: ignore[attr-defined]
            addresses = [address for _, address in found.hits]
            if not addresses:
                return [], total
            rowids = searcher.fast_field_values("rowid", addresses)
            docs = searcher.fast_field_values("doc", addresses)
        hits = [
            (float(score), int(rowid or 0), int(doc or 0))
            for (score, _), rowid, doc in zip(found.hits, rowids, docs, strict=True)
        ]
        return hits, total
