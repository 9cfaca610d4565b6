"""Embedding support of PostgresTextSearch: the vector column checked against the embedder, and
the steps of its plans performed (database work on a pool, texts to vectors)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from typing import Any

from textsearch._twins import Plan, drive_sync
from textsearch.connectors.postgres._pool import AsyncPool, SyncPool
from textsearch.connectors.postgres._schema import SchemaBuilder
from textsearch.connectors.postgres._sql import vector_text
from textsearch.connectors.postgres._tables import TableSpec
from textsearch.connectors.postgres._work import (
    Db,
    Embed,
    Step,
    blocking,
    fetch_one,
    on_connection,
)
from textsearch.embeddings import (
    Embedder,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)
from textsearch.errors import ConfigurationError

__all__ = ["EmbeddingSupport", "embedding_text", "embedding_update", "passage_text"]


def passage_text(title: str | None, section: str | None, text: str | None) -> str:
    """What a passage's vector is made of: its document's title, its heading, its text."""
    return "\n".join(part for part in (title, section, text) if part)


def embedding_text(row: Sequence[Any]) -> str:
    """The text to embed for one managed row (see ``ROW_COLUMNS``: title, section, text)."""
    return passage_text(row[2], row[3], row[6])


def embedding_update(
    rows: Sequence[Sequence[Any]], vectors: Sequence[Sequence[float]]
) -> tuple[list[str], list[int], list[str]]:
    """``(ids, passages, vectors)`` of rows to update with their new vectors."""
    return (
        [str(r[0]) for r in rows],
        [int(r[1]) for r in rows],
        [vector_text(v) for v in vectors],
    )


class EmbeddingSupport:
    """How ``PostgresTextSearch`` runs its plans, and checks its vectors against its embedder."""

    embedder: Embedder | None
    _dimensions: int | None
    _spec: TableSpec
    _schema: SchemaBuilder
    _sync: SyncPool
    _async: AsyncPool

    @property
    def table(self) -> str:
        """The table searched (``name`` or ``schema.name``)."""
        return self._spec.table_name

    def _embedding_problem(self, row: tuple[Any, ...] | None) -> str | None:
        """Why the stored vectors do not fit this instance's embedder (None: they do)."""
        embedder = self.embedder
        if embedder is None:
            return None
        column = self._spec.embedding_column
        if row is None:
            if self._spec.managed:
                return (
                    f"table {self.table!r} has no {column!r} vector column yet: call "
                    "create_schema() with the embedder set, then embed_missing()"
                )
            return f"table {self.table!r} has no column {column!r}"
        typmod, comment, type_name = row
        if not str(type_name).startswith("vector"):
            return f"column {column!r} of {self.table!r} is {type_name}, not a pgvector vector"
        dimensions = int(typmod) if typmod and int(typmod) > 0 else None
        recorded: dict[str, Any] = {}
        if comment:
            try:
                loaded = json.loads(comment)
            except ValueError:
                loaded = None
            recorded = loaded if isinstance(loaded, dict) else {}
        model = recorded.get("textsearch_embedder")
        how = (
            f"to re-embed with this embedder: ALTER TABLE {self.table} DROP COLUMN {column}; "
            "then create_schema() and embed_missing()"
        )
        if isinstance(model, str) and model != embedder.model:
            return (
                f"table {self.table!r} holds vectors of model {model!r}, but the embedder is "
                f"{embedder.model!r}; {how}"
            )
        if dimensions and embedder.dimensions and dimensions != embedder.dimensions:
            return (
                f"table {self.table!r} holds vectors of {dimensions} dimensions, but the "
                f"embedder ({embedder.model!r}) makes {embedder.dimensions}; {how}"
            )
        self._dimensions = dimensions
        return None

    def _check_length(self, vectors: Sequence[Sequence[float]]) -> None:
        if vectors and self._dimensions and len(vectors[0]) != self._dimensions:
            assert self.embedder is not None
            raise ConfigurationError(
                f"the embedder ({self.embedder.model!r}) made vectors of {len(vectors[0])} "
                f"dimensions; table {self.table!r} holds {self._dimensions}"
            )

    def _check_embedding_sync(self) -> None:
        drive_sync(self._check_embedding(), self._perform_sync)

    def _check_embedding(self) -> Plan[Step, None]:
        """Check once that the stored vectors fit the embedder (a plan: see ``_perform``)."""
        if self.embedder is None or self._dimensions is not None:
            return
        probe = self._schema.embedding_probe()
        problem = self._embedding_problem((yield Db(partial(fetch_one, *probe), False)))
        if problem:
            raise ConfigurationError(problem)

    def _perform_sync(self, step: Step) -> Any:
        """Perform one step of a plan with the blocking pool and embedder."""
        if isinstance(step, Db):
            return self._sync.run(blocking(step))
        assert self.embedder is not None
        if step.query is not None:
            return embed_query_sync(self.embedder, step.query)
        return embed_documents_sync(self.embedder, step.texts)

    async def _perform(self, step: Step) -> Any:
        """Perform one step of a plan with the async pool and embedder."""
        if isinstance(step, Db):
            return await self._async.run(on_connection(step))
        assert self.embedder is not None
        if step.query is not None:
            return await embed_query(self.embedder, step.query)
        return await embed_documents(self.embedder, step.texts)

    def _embedder_dimensions(self) -> Plan[Step, int]:
        embedder = self.embedder
        assert embedder is not None
        if embedder.dimensions is None:
            yield Embed(["dimensions"])  # learnt from one call
        if not embedder.dimensions:  # pragma: no cover - check_vectors guarantees a length
            raise ConfigurationError("the embedder did not tell its number of dimensions")
        return int(embedder.dimensions)
