"""The settings PostgresTextSearch takes, and the checks of their values."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from typing_extensions import TypedDict

from textsearch._types import TextSearchResult
from textsearch.connectors.postgres._rows import PostgresDocument
from textsearch.errors import ConfigurationError

__all__ = ["DSN_ENV", "MODES", "Mode", "PostgresSettings", "positive"]

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


#: environment variable holding the connection string
DSN_ENV = "TEXTSEARCH_POSTGRES_DSN"


def positive(name: str, value: object, *, integer: bool = False, minimum: float = 0) -> Any:
    """``value`` if it is a number (an integer with ``integer``) >= ``minimum``, and > 0."""
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value < minimum:
        raise ConfigurationError(f"{name} must be a number >= {minimum}, got {value!r}")
    if not integer and value <= 0:
        raise ConfigurationError(f"{name} must be greater than 0, got {value!r}")
    return value
