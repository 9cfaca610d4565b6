"""Which engine ranks a local index, and keeping its ranking index in step with the store.

``LocalTextSearch`` mixes `EngineMixin` in: the SQLite file is the store; the ranking
index is SQLite FTS5 (in the same file) or tantivy (a folder beside it, see
``_local_tantivy``). A meta row records which one is current; opening the index with the other
engine rebuilds that one from the stored passages.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import sys
from importlib.util import find_spec
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from textsearch._cjk import TANTIVY_TEXT_VERSIONS, TEXT_VERSION
from textsearch._types import SearchOptions
from textsearch.connectors.local._files import Batch, Transaction
from textsearch.connectors.local._fts import FtsRanker
from textsearch.connectors.local._places import passage_metadata
from textsearch.connectors.local._schema import (
    SCHEMA_VERSION,
    TANTIVY_SCHEMA_VERSION,
    documented_errors,
    retry_busy,
)
from textsearch.errors import ConfigurationError, TextSearchError

if TYPE_CHECKING:
    from textsearch.connectors.local._tantivy import TantivyRanker

__all__ = ["EngineMixin", "Write", "choose_engine"]

_ENGINES = ("auto", "sqlite", "tantivy")
# Version of the tantivy filter tokens (2: true/false apart from 1/0; 3: range tokens of
# numbers and ISO-8601 dates; 4: a passage's own page, slide, sheet or row from its
# anchor); an index whose tokens are older is rebuilt from the SQLite file once.
FILTER_TOKENS = "4"
_TANTIVY_EXTRA = 'pip install "textsearch-sdk[tantivy]"'

log = logging.getLogger("textsearch.local")


class EngineMixin:
    """The ranking-engine half of ``LocalTextSearch``."""

    path: str
    engine: Literal["sqlite", "tantivy"]
    match: str
    one_per_document: bool
    _db: sqlite3.Connection
    _fts: FtsRanker
    _tv: ModuleType | None
    _ranker: TantivyRanker | None
    _vector_store: Any

    def _tantivy(self) -> TantivyRanker:
        assert self._ranker is not None  # only called in tantivy mode
        return self._ranker

    def _meta(self) -> dict[str, str]:
        return dict(
            self._db.execute(
                "SELECT key, value FROM textsearch_meta "
                "WHERE key IN ('ranking_engine', 'ranking_generation', 'filter_tokens', "
                "'text_version')"
            ).fetchall()
        )

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO textsearch_meta VALUES (?, ?)", (key, value))

    def _bump_generation(self) -> int:
        meta = self._meta()
        generation = int(meta.get("ranking_generation", "0")) + 1
        self._set_meta("ranking_generation", str(generation))
        return generation

    def _open_engine(self) -> None:
        """Make the chosen engine's ranking index current, rebuilding it when needed."""
        with documented_errors(self.path):
            if self.engine == "sqlite":
                meta = self._meta()
                if meta.get("ranking_engine", "sqlite") != "sqlite":
                    retry_busy(self._switch_to_sqlite, self.path)
                elif meta.get("text_version") != TEXT_VERSION:
                    retry_busy(self._reindex_text, self.path)
                return
            import importlib

            self._tv = importlib.import_module("textsearch.connectors.local._tantivy")
            try:
                self._ranker = self._tv.TantivyRanker(self.path)
                meta = self._meta()
                if (
                    meta.get("ranking_engine") == "tantivy"
                    and meta.get("filter_tokens") == FILTER_TOKENS
                    and meta.get("text_version") in TANTIVY_TEXT_VERSIONS
                    and not self._ranker.damaged
                    and self._ranker.stored_generation() == int(meta.get("ranking_generation", "0"))
                ):
                    self._ranker.loaded_generation = int(meta.get("ranking_generation", "0"))
                    return
                retry_busy(self._rebuild_tantivy, self.path)
            except (ValueError, OSError, RuntimeError) as exc:
                raise self._tv.map_tantivy_error(exc, self.path) from None

    def _switch_to_sqlite(self) -> None:
        with Transaction(self._db):
            if self._meta().get("ranking_engine", "sqlite") == "sqlite":
                return
            self._rebuild_fts("was ranked by tantivy: building its SQLite FTS5 index")
            self._set_meta("ranking_engine", "sqlite")
            self._set_meta("schema_version", SCHEMA_VERSION)
            self._set_meta("text_version", TEXT_VERSION)
        sidecar = self.path + ".tantivy"
        if self.path != ":memory:" and os.path.isdir(sidecar):
            import shutil

            shutil.rmtree(sidecar, ignore_errors=True)

    def _reindex_text(self) -> None:
        """Rebuild the FTS5 index of a file whose CJK text was cut another way."""
        with Transaction(self._db):
            if self._meta().get("text_version") == TEXT_VERSION:
                return  # another process did it meanwhile
            self._rebuild_fts("was indexed by an older release: rebuilding its FTS5 index")
            self._set_meta("text_version", TEXT_VERSION)

    def _rebuild_fts(self, what: str) -> None:
        """Rebuild the FTS5 index (in the caller's transaction), logging ``what`` happens
        when there are passages to read."""
        passages = self._db.execute("SELECT count(*) FROM passages").fetchone()[0]
        if passages:
            log.warning("%s %s (%d passages)", self.path, what, passages)
        self._fts.rebuild()

    def _rebuild_tantivy(self) -> None:
        ranker = self._tantivy()
        db = self._db
        with Transaction(db):
            meta = self._meta()
            generation = int(meta.get("ranking_generation", "0"))
            current = meta.get("ranking_engine") == "tantivy"
            tokens_current = (
                meta.get("filter_tokens") == FILTER_TOKENS
                and meta.get("text_version") in TANTIVY_TEXT_VERSIONS
            )
            if (
                current
                and tokens_current
                and not ranker.damaged
                and ranker.stored_generation() == generation
            ):
                ranker.loaded_generation = generation  # another process rebuilt it meanwhile
                return
            total = int(db.execute("SELECT count(*) FROM passages").fetchone()[0])
            if total:
                why = (
                    "was ranked by SQLite FTS5"
                    if not current
                    else "is behind the index file"
                    if tokens_current
                    else "was indexed by an older release"
                )
                log.warning(
                    "ranking index of %s %s: rebuilding it with tantivy (%d passages)",
                    self.path,
                    why,
                    total,
                )
            if not current:
                self._fts.drop()
            tokens = self._tv.document_tokens  # type: ignore[union-attr]
            rows = db.execute(
                "SELECT p.rowid, p.doc, d.title, p.section, p.text, d.id, d.link, d.site, "
                "d.metadata, p.anchor FROM passages AS p JOIN documents AS d ON d.rowid = p.doc "
                "ORDER BY p.rowid"
            )
            try:
                ranker.begin()
                ranker.rebuild(
                    rows,
                    generation + 1,
                    total,
                    lambda r: tokens(r[5], r[6], r[7], passage_metadata(json.loads(r[8]), r[9])),
                )
            except BaseException:
                ranker.rollback()
                raise
            self._set_meta("ranking_generation", str(generation + 1))
            self._set_meta("ranking_engine", "tantivy")
            self._set_meta("filter_tokens", FILTER_TOKENS)
            self._set_meta("schema_version", TANTIVY_SCHEMA_VERSION)
            self._set_meta("text_version", TEXT_VERSION)
            ranker.damaged = False

    def _follow_other_writers(self) -> None:
        """Reload the tantivy searcher when another process committed since the last look."""
        if self._tantivy().damaged:
            retry_busy(self._rebuild_tantivy, self.path)
            return
        if self.path == ":memory:":
            return
        meta = self._meta()
        if meta.get("ranking_engine") != "tantivy":
            raise ConfigurationError(
                f"the index {self.path!r} was opened with engine='sqlite' by another process; "
                "open it again"
            )
        generation = int(meta.get("ranking_generation", "0"))
        if generation != self._tantivy().loaded_generation:
            self._tantivy().reload(generation)

    def _rank_tantivy(
        self, words: list[str], options: SearchOptions, depth: int, count: bool
    ) -> tuple[list[tuple[int, float]], int | None]:
        """The best ``depth`` passages from the top, and the number of matching results
        (sections, or documents with ``one_per_document``) when the options ask for it."""
        from textsearch.connectors.local._hybrid import group_count_sql

        ranker = self._tantivy()
        try:
            self._follow_other_writers()
            query = ranker.query(words, self.match, options.filter, depth)
            if query is None:
                return [], 0 if count else None
            hits, _ = ranker.search(query, depth, 0, False)
            total: int | None = None
            if count:
                matches = ranker.search(query, 1, 0, True)[1] or 0
                every, _ = ranker.search(query, max(matches, 1), 0, False)
                total = int(
                    self._db.execute(
                        group_count_sql("SELECT value FROM json_each(?)", self.one_per_document),
                        (json.dumps([rowid for _, rowid, _ in every]),),
                    ).fetchone()[0]
                )
        except (ValueError, OSError, RuntimeError) as exc:
            raise self._tv.map_tantivy_error(exc, self.path) from None  # type: ignore[union-attr]
        return [(rowid, score) for score, rowid, _ in hits], total


def choose_engine(engine: object) -> Literal["sqlite", "tantivy"]:
    if engine not in _ENGINES:
        raise ConfigurationError(f"engine must be 'auto', 'sqlite' or 'tantivy', not {engine!r}")
    installed = find_spec("tantivy") is not None
    if engine == "tantivy" and not installed:
        if sys.version_info < (3, 11):
            raise ConfigurationError(
                "engine='tantivy' needs the tantivy package, whose releases with what this "
                "engine uses (0.27 and later) need Python 3.11 or newer; on this Python, use "
                "engine='sqlite' (the default falls back to it)"
            )
        raise ConfigurationError(f"engine='tantivy' needs the tantivy package: {_TANTIVY_EXTRA}")
    return "tantivy" if engine == "tantivy" or (engine == "auto" and installed) else "sqlite"


class Write:
    """A SQLite write transaction (``Transaction`` or ``Batch``) that also commits tantivy.

    Tantivy commits first, with the SQLite write lock still held, so that no other process
    can see (or rebuild) the index between the two commits; the generation both record makes a
    crash between them visible on the next open, which rebuilds the tantivy side.
    """

    def __init__(self, owner: EngineMixin, inner: Transaction | Batch, *, batch: bool) -> None:
        self._owner = owner
        self._inner = inner
        self._batch = batch

    def __enter__(self) -> None:
        self._inner.__enter__()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        owner = self._owner
        ranker = owner._ranker
        # Batch commits what was done even when interrupted (all but SQLite errors).
        commits = exc_type is None or (self._batch and not isinstance(exc, sqlite3.Error))
        store = owner._vector_store
        if commits and store is not None and store.pending and owner._db.in_transaction:
            # The vector files are made durable (and compacted) before SQLite counts them.
            from textsearch.connectors.local._vectorfile import finish

            try:
                finish(owner._db, store)
            except BaseException:
                if ranker is not None:
                    ranker.rollback()
                owner._db.execute("ROLLBACK")
                store.pending = False
                raise
        if ranker is not None:
            try:
                if commits and ranker.dirty:
                    ranker.commit(owner._bump_generation())
                else:
                    ranker.rollback()
            except BaseException as failure:
                ranker.rollback()
                # Both sides roll back (a Batch would otherwise keep its SQLite work).
                if owner._db.in_transaction:
                    owner._db.execute("ROLLBACK")
                if isinstance(failure, (ValueError, OSError, RuntimeError)) and not isinstance(
                    failure, TextSearchError
                ):
                    raise owner._tv.map_tantivy_error(failure, owner.path) from None  # type: ignore[union-attr]
                raise
            try:
                self._inner.__exit__(exc_type, exc, tb)
            except BaseException:
                # tantivy committed what SQLite then did not: rebuild before the next search
                ranker.damaged = True
                raise
            return
        self._inner.__exit__(exc_type, exc, tb)
