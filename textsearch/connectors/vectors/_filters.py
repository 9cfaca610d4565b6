"""Filters of the vector stores: one check for every clause, then each store translates.

`check_filter` turns a `TextSearchFilter` into `Clause` es
(values checked, a ``site`` normalized, a date bound read as its instant) before any call;
Chroma, Qdrant and Milvus then write each clause in their own filter language.

What the connectors write beside a record's metadata (`companions`), and hide again
from results (`visible`):

* ``<key>~instant``: for a string that is an ISO-8601 date, its instant in microseconds, which
  a date range compares (none of the three stores compares stored strings as dates).
* ``<key>~bool``: for a boolean (Milvus only), which tells ``true`` from ``1``: Milvus compares
  JSON booleans as numbers.

``~`` is never in a metadata key (`FIELD_NAME`), so a companion never meets a key of
the user's. Records written by an older release have none: re-add them for date ranges (and,
on Milvus, for booleans told apart from numbers).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textsearch._ranges import instant_of, number_fault, range_bound
from textsearch._types import AnyOf, AnyTagEqualTo, NotEqualTo, Range, TextSearchFilter
from textsearch.errors import InvalidRequestError, UnsupportedFilterError

__all__ = [
    "BOOL_SUFFIX",
    "FIELD_NAME",
    "INSTANT_SUFFIX",
    "Clause",
    "check_filter",
    "companions",
    "visible",
]

#: A filter or metadata field name: what ``LocalTextSearch`` allows as a metadata key. Every
#: store's filter language has its own quoting rules; a name that never needs quoting cannot
#: be used to reach outside the clause it is in.
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}")
INSTANT_SUFFIX = "~instant"
BOOL_SUFFIX = "~bool"

Value = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Clause:
    """A checked filter clause.

    ``target`` is ``"id"``, ``"link"``, ``"site"`` or ``"metadata"``; ``any_tag`` marks an
    ``any_tag_equal_to`` (the field holds a list that must contain the value). ``op`` is
    ``"eq"`` (``equal_to`` and ``any_tag_equal_to``), ``"ne"`` (``not_equal_to``: a record
    without the field matches), ``"any"`` (``any_of``: equal to one of ``values``) or a
    comparison ``">"``, ``">="``, ``"<"``, ``"<="`` (a range: ``value`` is the number, or
    with ``date`` the instant in microseconds that the ``~instant`` companion holds).
    """

    target: str
    name: str
    value: Value
    any_tag: bool
    op: str = "eq"
    values: tuple[Value, ...] = ()
    date: bool = False


def _checked(connector: str, target: str, name: str, value: object, how: str) -> Value:
    """One value of an equality (``equal_to``, ``not_equal_to``, ``any_of``)."""
    if value is None:
        raise UnsupportedFilterError(
            f"{connector} cannot compare {name!r} with None: a vector store has no "
            "'missing field' test that works the same everywhere",
            field_name=name,
        )
    if target != "metadata" or how == "any_tag_equal_to":
        if not isinstance(value, str):
            kind = "any_tag_equal_to" if how == "any_tag_equal_to" else f"{name!r}"
            raise UnsupportedFilterError(
                f"{connector}: a filter on {kind} takes a string, got {type(value).__name__}",
                field_name=name,
            )
    if target != "metadata" and not str(value).strip():
        # no document has an empty id, link or host (a store may keep "" for "none")
        raise UnsupportedFilterError(
            f"{connector}: a filter on {name!r} needs a non-empty value", field_name=name
        )
    fault = number_fault(value)
    if fault is not None:
        raise InvalidRequestError(f"filter value for {name!r} {fault}: {value}")
    if target == "site":
        assert isinstance(value, str)
        return value.strip().lower().rstrip(".")
    assert isinstance(value, (str, int, float))
    return value


def check_filter(search_filter: TextSearchFilter | None, *, connector: str) -> list[Clause]:
    """Check every clause before any search; each store then translates the result.

    Raises:
        UnsupportedFilterError: A field name that is not ``id``, ``link``, ``site`` or a
            metadata key (letters, digits, ``_``, ``-``); ``any_tag_equal_to`` or a range on
            ``id``, ``link`` or ``site``; a value the store cannot compare (None, a
            non-string for ``id``/``link``/``site``/``any_tag_equal_to``).
        InvalidRequestError: A number that is not finite or does not fit in 64 bits.
    """
    if search_filter is None:
        return []
    clauses: list[Clause] = []
    for clause in search_filter.clauses:
        name = clause.field_name
        if not isinstance(name, str) or not FIELD_NAME.fullmatch(name):
            raise UnsupportedFilterError(
                f"{connector} cannot filter on {name!r}: filter on id, link, site or a "
                "metadata key (letters, digits, '_' or '-', starting with a letter or '_')",
                field_name=str(name),
                supported_fields=("id", "link", "site"),
            )
        target = name if name in ("id", "link", "site") else "metadata"
        if isinstance(clause, (AnyTagEqualTo, Range)) and target != "metadata":
            what = (
                "any_tag_equal_to needs a metadata field holding a list; "
                f"{name!r} holds one value (use equal_to)"
            )
            if isinstance(clause, Range):
                what = f"{clause.kind} compares a metadata field; {name!r} is not one"
            raise UnsupportedFilterError(
                f"{connector}: {what}",
                field_name=name,
                supported_fields=("id", "link", "site"),
            )
        if isinstance(clause, Range):
            kind, bound = range_bound(clause.value)
            clauses.append(Clause(target, name, bound, False, clause.operator, (), kind == "date"))
        elif isinstance(clause, AnyOf):
            values = tuple(_checked(connector, target, name, v, "any_of") for v in clause.values)
            clauses.append(Clause(target, name, values[0], False, "any", values))
        else:
            value = _checked(connector, target, name, clause.value, clause.kind)
            any_tag = isinstance(clause, AnyTagEqualTo)
            op = "ne" if isinstance(clause, NotEqualTo) else "eq"
            clauses.append(Clause(target, name, value, any_tag, op))
    return clauses


def companions(metadata: Mapping[str, Any], *, booleans: bool = False) -> dict[str, Any]:
    """The companion fields written beside ``metadata`` (see the module docstring)."""
    out: dict[str, Any] = {}
    for key, value in metadata.items():
        if isinstance(value, str):
            instant = instant_of(value)
            if instant is not None:
                out[key + INSTANT_SUFFIX] = instant
        elif booleans and isinstance(value, bool):
            out[key + BOOL_SUFFIX] = True
    return out


def visible(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """``metadata`` without the companion fields the connectors wrote."""
    return {
        k: v
        for k, v in metadata.items()
        if not (isinstance(k, str) and k.endswith((INSTANT_SUFFIX, BOOL_SUFFIX)))
    }
