"""The tables PostgresTextSearch reads: checked identifiers and the column map of a table."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from textsearch.errors import ConfigurationError

__all__ = [
    "EMBEDDING_COLUMN",
    "TableSpec",
    "check_identifier",
    "existing_spec",
    "managed_spec",
    "split_qualified",
]

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]{0,62}$")
#: the managed table's embedding column (added by create_schema() when an embedder is set)
EMBEDDING_COLUMN = "embedding"


def check_identifier(value: object, what: str) -> str:
    """A table/column/configuration name we are willing to quote into SQL."""
    if not isinstance(value, str) or not _IDENTIFIER.match(value):
        raise ConfigurationError(
            f"{what} must be a PostgreSQL identifier (a letter or '_' then up to 62 letters, "
            f"digits, '_' or '$'), got {value!r}"
        )
    return value


def split_qualified(value: object, what: str) -> tuple[str, ...]:
    """``"table"`` or ``"schema.table"``, each part a checked identifier."""
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f"{what} must be a non-empty string, got {value!r}")
    parts = tuple(check_identifier(part, what) for part in value.split("."))
    if len(parts) > 2:
        raise ConfigurationError(f"{what} must be 'name' or 'schema.name', got {value!r}")
    return parts


@dataclass(frozen=True)
class TableSpec:
    """Where documents live and how their columns map to a document.

    ``vector_column`` is a stored ``tsvector``; without one, the vector is computed from
    ``text_columns`` (the first weighted ``A``, the others ``B``) at query time.
    """

    table: tuple[str, ...]
    config: tuple[str, ...]
    id_column: str
    value_column: str
    name_column: str | None
    link_column: str | None
    metadata_column: str | None
    vector_column: str | None
    text_columns: tuple[str, ...]
    site_column: str | None
    managed: bool
    #: managed tables hold one row per passage: its number, section heading, anchor and line
    passage_columns: bool = False
    #: a pgvector ``vector`` column of passage embeddings (semantic and hybrid search)
    embedding_column: str | None = None

    @property
    def table_name(self) -> str:
        return ".".join(self.table)

    @property
    def stats_table(self) -> tuple[str, ...]:
        """The managed table's term statistics (BM25): ``<table>_terms`` beside it."""
        base = self.table[-1]
        return (*self.table[:-1], f"{base[:57]}_terms")


def managed_spec(table: str, config: str, embedding: bool = False) -> TableSpec:
    """The managed table's column map (one row per passage)."""
    return TableSpec(
        table=split_qualified(table, "table"),
        config=split_qualified(config, "text_search_config"),
        id_column="id",
        value_column="text",
        name_column="title",
        link_column="link",
        metadata_column="metadata",
        vector_column="search_vector",
        text_columns=("title", "text"),
        site_column="site",
        managed=True,
        passage_columns=True,
        embedding_column=EMBEDDING_COLUMN if embedding else None,
    )


def existing_spec(
    *,
    table: str,
    config: str,
    id_column: str,
    value_column: str,
    name_column: str | None,
    link_column: str | None,
    metadata_column: str | None,
    tsvector_column: str | None,
    text_columns: Sequence[str] | None,
    embedding_column: str | None = None,
) -> TableSpec:
    """The column map of an existing table, every identifier checked."""

    def opt(value: str | None, what: str) -> str | None:
        return None if value is None else check_identifier(value, what)

    if text_columns is None:
        text_columns = [c for c in (name_column, value_column) if c]
    columns = tuple(check_identifier(c, "text_columns") for c in text_columns)
    if not columns and tsvector_column is None:
        raise ConfigurationError("from_table needs tsvector_column or text_columns")
    return TableSpec(
        table=split_qualified(table, "table"),
        config=split_qualified(config, "text_search_config"),
        id_column=check_identifier(id_column, "id_column"),
        value_column=check_identifier(value_column, "value_column"),
        name_column=opt(name_column, "name_column"),
        link_column=opt(link_column, "link_column"),
        metadata_column=opt(metadata_column, "metadata_column"),
        vector_column=opt(tsvector_column, "tsvector_column"),
        text_columns=columns,
        site_column=None,
        managed=False,
        embedding_column=opt(embedding_column, "vector_column"),
    )
