"""Vectors of the local index: the embedder's vectors of its passages, kept beside it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._files import Transaction
from textsearch.connectors.local._schema import (
    LocalDocument,
    documented_errors,
    retry_busy,
)
from textsearch.connectors.local._state import EMBED_BATCH, SPEC_KEY, _LocalState, stored_rows
from textsearch.documents._files import (
    FileWork,
)
from textsearch.documents._passages import (
    Passage,
)
from textsearch.documents._shape import file_document
from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    from textsearch.embeddings import Embedder

__all__ = ["LocalVectors"]


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


class LocalVectors(_LocalState):
    """Vectors of the local index (a part of ``LocalTextSearch``)."""

    def _open_vectors(self) -> None:
        """Create the vector tables, record the model, refuse another model's vectors.

        An index that already records this embedder is only read: opening it takes no
        write lock, so it never waits for another process's write.
        """
        from textsearch.connectors.local import _vectors

        if _vectors.has_vector_table(self._db) and not self._vector_marks():
            return
        with Transaction(self._db):
            _vectors.create_vector_tables(self._db)
            for key, value in self._vector_marks():
                self._set_vector_meta(key, value)

    def _vector_marks(self) -> list[tuple[str, str]]:
        """The meta rows still to write for this embedder (none: the index records it).

        Raises:
            ConfigurationError: The index holds another model's vectors, or vectors of
                another dimension count.
        """
        from textsearch.connectors.local import _vectors

        embedder = self.embedder
        assert embedder is not None
        meta = self._vector_meta()
        model = meta.get(_vectors.MODEL_KEY)
        stored = meta.get(_vectors.DIMENSIONS_KEY)
        dims = embedder.dimensions
        marks: list[tuple[str, str]] = []
        if model is None:
            marks.append((_vectors.MODEL_KEY, embedder.model))
            if dims is not None:
                marks.append((_vectors.DIMENSIONS_KEY, str(dims)))
        elif model != embedder.model or (
            dims is not None and stored is not None and int(stored) != dims
        ):
            raise self._mismatch(model, stored, embedder.model, dims)
        elif stored is None and dims is not None:
            marks.append((_vectors.DIMENSIONS_KEY, str(dims)))
        spec = getattr(embedder, "spec", None)
        if isinstance(spec, str) and spec and meta.get(SPEC_KEY) != spec:
            marks.append((SPEC_KEY, spec))
        return marks

    def _adopt_embedder(self, embedder: Embedder) -> None:
        """Search this open index by meaning with ``embedder`` (``"hybrid"`` mode), as if it
        had been given when opening: checked against the vectors the index holds, recorded.

        For the command line, which learns the embedder from the index it opened.

        Raises:
            ConfigurationError: The index holds another model's vectors (nothing changes).
        """
        with self._lock, documented_errors(self.path):
            kept = self.embedder
            self.embedder = embedder
            try:
                retry_busy(self._open_vectors, self.path)
            except BaseException:
                self.embedder = kept
                raise
            self.mode = "hybrid"

    @property
    def embedding_spec(self) -> str | None:
        """How the embedder of this index's vectors was named when it was built
        (``"minilm"``, ``"openai:text-embedding-3-small"``...), if it came from
        `textsearch.embeddings.from_spec`; readable without an embedder, so the
        command line reopens an index with the embedder it was made with.

        Raises:
            ConfigurationError: The index was closed.
        """
        with self._lock, documented_errors(self.path):
            row = self._db.execute(
                "SELECT value FROM textsearch_meta WHERE key = ?", (SPEC_KEY,)
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
                "SELECT key, value FROM textsearch_meta WHERE key IN (?, ?, ?)",
                (_vectors.MODEL_KEY, _vectors.DIMENSIONS_KEY, SPEC_KEY),
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
        digests: list[list[bytes]] | None = None,
    ) -> dict[bytes, bytes]:
        """The vectors of these documents' passages by digest: kept ones, then new ones.

        A passage whose embedded text is unchanged keeps its stored vector; the rest are
        embedded (the embedder is called without the lock held when called from
        ``add_documents``). Raises what the embedder raises; nothing is written here.
        ``digests``, when given, receives each document's passage digests, in order (so the
        writer does not compute them again).
        """
        from textsearch.connectors.local import _vectors

        embedder = self.embedder
        if embedder is None:
            return {}
        wanted: dict[bytes, str] = {}
        for doc, passages in items:
            keys = []
            for section, _, _, text in stored_rows(doc, passages):
                content = _vectors.embedding_input(doc.title, section, text)
                key = _vectors.digest(content)
                wanted.setdefault(key, content)
                keys.append(key)
            if digests is not None:
                digests.append(keys)
        if not wanted:
            return {}
        found: dict[bytes, bytes] = {}
        ids = json.dumps([doc.id for doc, _ in items])
        with self._lock, documented_errors(self.path):
            if _vectors.has_vector_table(self._db):
                from textsearch.connectors.local._vectorfile import kept_vectors

                found = kept_vectors(self._db, self._vectors_file(), ids, wanted)
        missing = [key for key in wanted if key not in found]
        for begin in range(0, len(missing), EMBED_BATCH):
            keys = missing[begin : begin + EMBED_BATCH]
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
                    (after, EMBED_BATCH),
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
        an embedder), then open it with the new embedder and call `embed_missing_sync`.
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
                    (_vectors.MODEL_KEY, _vectors.DIMENSIONS_KEY, SPEC_KEY),
                )
                if self.embedder is not None:
                    self._set_vector_meta(_vectors.MODEL_KEY, self.embedder.model)
                    spec = getattr(self.embedder, "spec", None)
                    if isinstance(spec, str) and spec:
                        self._set_vector_meta(SPEC_KEY, spec)
                _vectors.bump_generation(self._db)
                return int(count)

        with self._lock, documented_errors(self.path):
            return retry_busy(write, self.path)

    def _embedded(
        self, group: list[tuple[str, FileWork | None, Any]]
    ) -> list[tuple[str, FileWork | None, Any, Mapping[bytes, bytes] | None]]:
        """The files read, each with the vectors its passages need (one embedder call for
        the whole group; ``None`` without an embedder)."""
        if self.embedder is None:
            return [(doc_id, item, previous, None) for doc_id, item, previous in group]
        changed = [
            (file_document(doc_id, item.title), item.passages)
            for doc_id, item, _ in group
            if item is not None and item.title is not None
        ]
        vectors = self._vectors_for(changed) if changed else {}
        return [(doc_id, item, previous, vectors) for doc_id, item, previous in group]
