"""Filters of the local index as SQL on ``d`` (the documents table), values always bound.

One validation path (`validate_filter`, then `filter_sql` for the values) serves
``search()``, ``check_filter``, ``check_request``, ``prepare_request`` and the direct reads.
The tantivy engine reads the same clauses as term and range queries (``_tantivy``), with the
same meaning:

* ``equal_to`` on a metadata key compares scalars (``True`` is never ``1``, a list is never
  equal to anything); ``any_tag_equal_to`` looks inside lists (and at a scalar itself).
* ``any_of`` is the OR of ``equal_to`` over its values; ``not_equal_to`` is the complement of
  ``equal_to``, so a document without the field matches it.
* a range with a number compares stored numbers (never booleans or strings); with an ISO-8601
  date it compares stored strings that are such dates, as instants
  (`textsearch._ranges.instant_of`, registered in SQLite as ``textsearch_instant``). A
  document without the field, or with a value of another kind, matches no range.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textsearch._ranges import number_fault, range_bound
from textsearch._types import AnyOf, AnyTagEqualTo, EqualTo, NotEqualTo, Range, TextSearchFilter
from textsearch.connectors.local._places import PLACE_FIELDS, place_condition
from textsearch.connectors.local._schema import (
    INSTANT_FUNCTION,
    RESERVED_FILTER_FIELDS,
)
from textsearch.errors import InvalidRequestError, UnsupportedFilterError

__all__ = ["filter_sql", "validate_filter"]


def validate_filter(search_filter: TextSearchFilter | None, allowed: Sequence[str]) -> None:
    """Raise for a clause the index cannot honour (``allowed``: its filterable fields).

    Raises:
        UnsupportedFilterError: An unknown field; ``any_tag_equal_to`` or a range on
            ``id``, ``link`` or ``site``.
    """
    if not search_filter:
        return
    for clause in search_filter.clauses:
        name = clause.field_name
        if name not in allowed or (
            isinstance(clause, (AnyTagEqualTo, Range)) and name in RESERVED_FILTER_FIELDS
        ):
            raise UnsupportedFilterError(
                f"LocalTextSearch cannot filter on {name!r} with {clause.kind}; "
                f"supported filter fields: {', '.join(allowed)} "
                "(metadata fields become filterable once a document has them; "
                "any_tag_equal_to and ranges only on metadata fields)",
                field_name=name,
                supported_fields=list(allowed),
            )


def _bindable(value: Any) -> Any:
    fault = number_fault(value)
    if fault is not None:
        raise InvalidRequestError(f"filter value {value} {fault}")
    return value


def _path(name: str) -> str:
    return f'$."{name}"'


def _equal(name: str, value: Any, params: list[Any]) -> str:
    """The condition of ``equal_to(name, value)`` (never NULL for the reserved fields)."""
    value = _bindable(value)
    if name == "site":
        host = str(value).lower().strip().rstrip(".")
        escaped = host.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params += [host, "%." + escaped]
        return "(d.site = ? OR d.site LIKE ? ESCAPE '\\')"
    if name in ("id", "link"):
        params.append(value)
        return f"d.{name} IS ?"
    if value is None:
        params.append(_path(name))
        return "json_extract(d.metadata, ?) IS NULL"
    if isinstance(value, bool):
        params += [_path(name), _json_bool(value)]
        return "json_type(d.metadata, ?) = ?"
    # true and false read back as 1 and 0: never equal to a number here, as in JSON and
    # PostgreSQL (a filter on 1 must not admit documents marked true).
    params += [_path(name), _path(name), value]
    return (
        "(json_type(d.metadata, ?) NOT IN ('array', 'object', 'true', 'false') "
        "AND json_extract(d.metadata, ?) = ?)"
    )


def _tag(name: str, value: Any, params: list[Any]) -> str:
    value = _bindable(value)
    if isinstance(value, bool):
        params += [_path(name), _json_bool(value)]
        return "EXISTS (SELECT 1 FROM json_each(d.metadata, ?) AS t WHERE t.type = ?)"
    params += [_path(name), value]
    return (
        "EXISTS (SELECT 1 FROM json_each(d.metadata, ?) AS t "
        "WHERE t.value IS ? AND t.type NOT IN ('array', 'object', 'true', 'false'))"
    )


def _range(clause: Range, params: list[Any]) -> str:
    kind, bound = range_bound(clause.value)
    path = _path(clause.field_name)
    params += [path, path, bound]
    if kind == "number":
        return (
            "(json_type(d.metadata, ?) IN ('integer', 'real') "
            f"AND json_extract(d.metadata, ?) {clause.operator} ?)"
        )
    return (
        "(json_type(d.metadata, ?) = 'text' "
        f"AND {INSTANT_FUNCTION}(json_extract(d.metadata, ?)) {clause.operator} ?)"
    )


def filter_sql(
    search_filter: TextSearchFilter | None, passages: str | None = None
) -> tuple[str, list[Any]]:
    """``" AND ..."`` conditions on ``d`` (the documents table) with bound parameters.

    A clause on ``page``, ``slide``, ``sheet`` or ``row`` reads the passage ``passages``
    (an SQL alias of the passages table) where its anchor names that place
    (`_places.place_condition`).

    Raises:
        InvalidRequestError: A number that does not fit in 64 bits.
    """
    if not search_filter:
        return "", []
    parts: list[str] = []
    params: list[Any] = []
    for clause in search_filter.clauses:
        if clause.field_name in PLACE_FIELDS:
            own: list[Any] = []
            condition, placed = place_condition(clause, _clause_sql(clause, own), own, passages)
            parts.append(condition)
            params += placed
        else:
            parts.append(_clause_sql(clause, params))
    return " AND " + " AND ".join(parts), params


def _clause_sql(clause: Any, params: list[Any]) -> str:
    """One clause's condition on ``d``, its values appended to ``params``."""
    name = clause.field_name
    if isinstance(clause, EqualTo):
        return _equal(name, clause.value, params)
    if isinstance(clause, AnyTagEqualTo):
        return _tag(name, clause.value, params)
    if isinstance(clause, Range):
        return _range(clause, params)
    if isinstance(clause, AnyOf):
        return "(" + " OR ".join(_equal(name, v, params) for v in clause.values) + ")"
    if isinstance(clause, NotEqualTo):
        # NULL (a missing field) is "not equal": IS NOT, not SQL's unknown.
        return f"NOT IFNULL({_equal(name, clause.value, params)}, 0)"
    # pragma: no cover - every clause kind is handled above
    raise UnsupportedFilterError(f"LocalTextSearch cannot filter with {clause.kind}")


def _json_bool(value: bool) -> str:
    return "true" if value else "false"
