"""The settings PostgresTextSearch takes, and the checks of their values."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import Self, TypedDict

from textsearch._types import TextSearchResult
from textsearch.connectors.postgres._rows import PostgresDocument
from textsearch.embeddings import Embedder
from textsearch.errors import ConfigurationError

__all__ = [
    "DSN_ENV",
    "MODES",
    "TABLE_ENV",
    "FromEnvironment",
    "Mode",
    "PostgresSettings",
    "Tuning",
    "positive",
]

Mode = Literal["keyword", "semantic", "hybrid"]
MODES = ("keyword", "semantic", "hybrid")


class PostgresSettings(TypedDict, total=False):
    """The constructor's tuning keywords, which `PostgresTextSearch.from_table` takes too.

    Each is documented with the constructor; type checkers see them on both.
    """

    min_size: int
    max_size: int
    timeout: float
    pool_timeout: float | None
    connect_timeout: float
    max_candidates: int
    one_per_document: bool
    rank_function: Literal["bm25", "ts_rank", "ts_rank_cd"]
    highlight: tuple[str, str] | None
    snippet_words: int
    batch_size: int
    mode: Mode | None
    string_mapper: Callable[[PostgresDocument], str] | None
    text_search_result_mapper: Callable[[PostgresDocument], TextSearchResult] | None


@dataclass(frozen=True)
class Tuning:
    """The tuning keywords as the connector's setup takes them, with `from_table`'s defaults.

    The constructor spells the same defaults in its signature (where readers and type
    checkers see them) and passes every value; `from_table` passes only those given.
    """

    min_size: int = 1
    max_size: int = 10
    timeout: float = 10.0
    pool_timeout: float | None = None
    connect_timeout: float = 5.0
    max_candidates: int = 1000
    one_per_document: bool = False
    #: ``None``: ``bm25`` on the managed table, ``ts_rank`` on a table of yours
    rank_function: str | None = None
    highlight: tuple[str, str] | None = None
    snippet_words: int = 30
    batch_size: int = 500


#: environment variable holding the connection string
DSN_ENV = "TEXTSEARCH_POSTGRES_DSN"
#: environment variable naming the managed table (`PostgresTextSearch.from_env`)
TABLE_ENV = "TEXTSEARCH_POSTGRES_TABLE"


class FromEnvironment:
    """`PostgresTextSearch.from_env`, kept beside the settings it reads."""

    @classmethod
    def from_env(cls, *, embedder: Embedder | str | None = None, **settings: Any) -> Self:
        """Build the connector from the environment; keywords given here win over it.

        Reads ``TEXTSEARCH_POSTGRES_DSN`` (the connection string; unset, libpq's own
        ``PG*`` variables apply: ``PGHOST``, ``PGDATABASE``, ``PGUSER``, ``PGPASSWORD``...),
        ``TEXTSEARCH_POSTGRES_TABLE`` (the managed table, default ``textsearch_documents``)
        and, unless ``embedder`` is given, ``TEXTSEARCH_EMBEDDER`` (a spec such as
        ``minilm``; unset: keyword search only). The DSN never comes from a command-line
        flag: a password there would show in the process list and shell history.

        Args:
            embedder: An `Embedder`, or a spec for `textsearch.embeddings.from_spec`
                (``None``: the spec in ``TEXTSEARCH_EMBEDDER``, if any).
            **settings: Any other constructor keyword.

        Raises:
            ImportError: psycopg is not installed (``pip install "textsearch-sdk[postgres]"``).
            ConfigurationError: A malformed DSN or setting (the message never shows the
                password), or a bad embedder spec.
        """
        from textsearch.embeddings import embedder_from_env

        table = os.environ.get(TABLE_ENV, "").strip()
        if table and "table" not in settings:
            settings["table"] = table
        settings["embedder"] = embedder_from_env(embedder)
        return cls(**settings)


def positive(name: str, value: object, *, integer: bool = False, minimum: float = 0) -> Any:
    """``value`` if it is a number (an integer with ``integer``) >= ``minimum``, and > 0."""
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value < minimum:
        raise ConfigurationError(f"{name} must be a number >= {minimum}, got {value!r}")
    if not integer and value <= 0:
        raise ConfigurationError(f"{name} must be greater than 0, got {value!r}")
    return value
