"""Filters on the place a passage's link names: ``page``, ``slide``, ``sheet`` and ``row``.

A PDF read by `index_path` is one document whose passages link ``#page=N``; the page is a
passage's, not the document's. A filter clause on one of these fields therefore reads the
passage's anchor where it names that place (``equal_to("page", 3)`` admits the passages of
page 3, ``greater_than_or_equal("page", 3)`` those from page 3 on) and the document's own
metadata elsewhere (documents added with ``metadata={"page": 3}`` keep their meaning). A
result shows the same value: its anchor's place wins over the document's metadata.

Where only documents are at hand (reading a whole document, listing documents, the
documents the semantic arm admits), a document with such passages is admitted only if
every one of them is: a filter is never loosened to the whole file for one page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from textsearch._ranges import range_bound
from textsearch._types import AnyOf, AnyTagEqualTo, EqualTo, NotEqualTo, Range, TextSearchFilter
from textsearch.documents._formats import fragment_metadata

__all__ = [
    "PLACE_FIELDS",
    "PLACE_FUNCTION",
    "has_place_clause",
    "passage_metadata",
    "place_fields",
    "place_condition",
    "place_of",
]

PLACE_FIELDS = frozenset(("page", "slide", "sheet", "row"))
#: SQLite function (registered on every connection): the value of ``key`` an anchor names.
PLACE_FUNCTION = "textsearch_place"


@lru_cache(maxsize=4096)
def _places(anchor: str) -> dict[str, int | str]:
    return fragment_metadata(anchor)


def place_of(anchor: str | None, key: str) -> int | str | None:
    """The value of ``key`` (``page``...) that ``anchor`` names, or ``None``."""
    if not anchor or "=" not in anchor:
        return None
    return _places(anchor).get(key)


def passage_metadata(metadata: Mapping[str, Any], anchor: str | None) -> Mapping[str, Any]:
    """A passage's metadata for filtering: the document's, with its anchor's place over it."""
    if not anchor or "=" not in anchor:
        return metadata
    places = _places(anchor)
    return {**metadata, **places} if places else metadata


def place_fields(rows: Iterable[tuple[Any, str | None, Any, Any]]) -> set[str]:
    """The place fields the anchors of stored rows ``(section, anchor, line, text)`` name."""
    found: set[str] = set()
    for _, anchor, _, _ in rows:
        if anchor and "=" in anchor:
            found.update(_places(anchor))
    return found


def has_place_clause(search_filter: TextSearchFilter | None) -> bool:
    """Whether a filter has a clause on a place field."""
    return bool(search_filter) and any(
        clause.field_name in PLACE_FIELDS
        for clause in search_filter.clauses  # type: ignore[union-attr]
    )


def _on_value(clause: Any, value_sql: str, params: list[Any]) -> str:
    """The clause's condition on a place value (an integer, or a sheet's name)."""
    if isinstance(clause, EqualTo):
        return _equal(clause.value, value_sql, params)
    if isinstance(clause, AnyTagEqualTo):  # a scalar is its own only tag
        return _equal(clause.value, value_sql, params)
    if isinstance(clause, AnyOf):
        return "(" + " OR ".join(_equal(v, value_sql, params) for v in clause.values) + ")"
    if isinstance(clause, NotEqualTo):
        return f"NOT IFNULL({_equal(clause.value, value_sql, params)}, 0)"
    if isinstance(clause, Range):
        kind, bound = range_bound(clause.value)
        if kind != "number":  # a place is never a date
            return "0"
        params.append(bound)
        return f"(typeof({value_sql}) = 'integer' AND {value_sql} {clause.operator} ?)"
    raise AssertionError(clause)  # pragma: no cover - every clause kind is handled above


def _equal(value: Any, value_sql: str, params: list[Any]) -> str:
    # A place is an integer or a string, never a boolean or null (as the JSON metadata:
    # True is never 1).
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return "0"
    params.append(value)
    return f"({value_sql} = ?)"


def place_condition(
    clause: Any, document_sql: str, document_params: list[Any], passages: str | None
) -> tuple[str, list[Any]]:
    """The condition of a place clause: on the passage ``passages`` (an SQL alias) where its
    anchor names the place, else ``document_sql`` (the clause on the document's metadata).
    With no passage at hand (``None``): a document with passages that name the place is
    admitted only if all of them are; another document by its metadata."""
    key = clause.field_name
    params: list[Any] = []
    if passages is not None:
        value_sql = f"{PLACE_FUNCTION}({passages}.anchor, '{key}')"
        on_value = _on_value(clause, value_sql, params)
        return (
            f"(CASE WHEN {value_sql} IS NOT NULL THEN IFNULL({on_value}, 0) "
            f"ELSE IFNULL({document_sql}, 0) END)",
            [*params, *document_params],
        )
    value_sql = f"{PLACE_FUNCTION}(z.anchor, '{key}')"
    on_value = _on_value(clause, value_sql, params)
    placed = f"SELECT 1 FROM passages AS z WHERE z.doc = d.rowid AND {value_sql} IS NOT NULL"
    return (
        f"(CASE WHEN EXISTS ({placed}) THEN NOT EXISTS ({placed} AND NOT IFNULL({on_value}, 0)) "
        f"ELSE IFNULL({document_sql}, 0) END)",
        [*params, *document_params],
    )
