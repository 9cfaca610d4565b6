"""Filters of PostgresTextSearch as SQL: every value (and every metadata key) a bound parameter.

* ``equal_to`` on a metadata key is jsonb containment (``metadata @> {"k": v}``, answered by
  the ``jsonb_path_ops`` GIN index; ``true`` is never ``1``); ``any_tag_equal_to`` contains the
  one-element list; ``equal_to(k, None)``: missing or JSON null.
* ``any_of`` is the OR of ``equal_to`` over its values; ``not_equal_to`` is ``NOT
  COALESCE(<equal_to>, false)``, so a row without the key matches it (SQL's ``IS NOT``).
* a range with a number compares jsonb numbers as ``numeric`` (the bound is sent as an exact
  ``Decimal``); with an ISO-8601 date it compares jsonb strings that match
  `textsearch._ranges.ISO_PATTERN` (checked before the cast, so no stored string can make
  the statement fail) as ``timestamptz``, a string without an offset being UTC. ``CASE``
  decides the order: nothing is cast before its type is known.

The SQL text depends only on `shape` (clause kinds, counts, which fields are reserved),
never on the values. A NUL in a value is dropped, as it is from every value written.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any, Protocol

from textsearch._ranges import ISO_PATTERN, range_bound
from textsearch._types import AnyOf, AnyTagEqualTo, EqualTo, NotEqualTo, Range, TextSearchFilter
from textsearch.errors import UnsupportedFilterError

__all__ = ["RESERVED_FILTER_FIELDS", "Builder", "check", "filters", "shape"]

_METADATA_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,63}$")
RESERVED_FILTER_FIELDS = ("id", "link", "site")


class Builder(Protocol):
    """What filter rendering needs of the SQL builder (``_sql.Builder``)."""

    spec: Any

    def col(self, name: str | None) -> Any:
        """A column of the table, quoted."""

    def site(self) -> Any:
        """The expression of a row's site (host)."""

    def supported_fields(self) -> list[str]:
        """The fields a filter may name."""


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def check(builder: Builder, search_filter: TextSearchFilter | None) -> None:
    """Raise UnsupportedFilterError before any connection is taken."""
    if not search_filter:
        return
    spec = builder.spec
    for clause in search_filter.clauses:
        name = clause.field_name
        reserved = name in RESERVED_FILTER_FIELDS
        ok = (
            (name == "id" or (reserved and spec.link_column is not None))
            if reserved
            else (spec.metadata_column is not None and bool(_METADATA_KEY.match(name)))
        )
        if not ok or (reserved and isinstance(clause, (AnyTagEqualTo, Range))):
            raise UnsupportedFilterError(
                f"PostgresTextSearch cannot filter on {name[:80]!r} with {clause.kind}; "
                f"supported filter fields: {', '.join(builder.supported_fields())} "
                "(metadata keys: letters, digits, '_' or '-', starting with a letter or '_'; "
                "any_tag_equal_to and ranges only on metadata keys)",
                field_name=name,
                supported_fields=builder.supported_fields(),
            )


def _equal(builder: Builder, name: str, value: Any, key: str, params: dict[str, Any]) -> Any:
    from psycopg import sql  # present: _sql, which renders filters, checked for it
    from psycopg.types.json import Jsonb

    spec = builder.spec
    if isinstance(value, str):
        # Stored text lost its NUL characters when written (PostgreSQL cannot hold them): a
        # value is compared as it would have been stored.
        value = value.replace("\x00", "")
    if name == "site":
        host = str(value).lower().strip().rstrip(".") if value is not None else ""
        escaped = host.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        params[key], params[key + "s"] = host, "%." + escaped
        return sql.SQL("({site} = {p} OR {site} LIKE {ps} ESCAPE '\\')").format(
            site=builder.site(), p=sql.Placeholder(key), ps=sql.Placeholder(key + "s")
        )
    if name in ("id", "link"):
        column = builder.col(spec.id_column if name == "id" else spec.link_column)
        if value is None:
            return sql.SQL("{} IS NULL").format(column)
        params[key] = str(value) if not isinstance(value, bool) else str(value).lower()
        if name == "id" and not spec.managed:
            return sql.SQL("{}::text = {}").format(column, sql.Placeholder(key))
        return sql.SQL("{} = {}").format(column, sql.Placeholder(key))
    meta = builder.col(spec.metadata_column)
    if value is None:
        params[key] = name
        return sql.SQL("({m} -> {k} IS NULL OR {m} -> {k} = 'null'::jsonb)").format(
            m=meta, k=sql.Placeholder(key)
        )
    params[key] = Jsonb({name: value})
    return sql.SQL("{} @> {}").format(meta, sql.Placeholder(key))


def _range(builder: Builder, clause: Range, key: str, params: dict[str, Any]) -> Any:
    from psycopg import sql  # present: _sql, which renders filters, checked for it

    meta = builder.col(builder.spec.metadata_column)
    kind, bound = range_bound(clause.value)
    k, v = sql.Placeholder(key + "k"), sql.Placeholder(key + "v")
    params[key + "k"] = clause.field_name
    op = sql.SQL(clause.operator)  # one of four fixed operators, never user text
    if kind == "number":
        params[key + "v"] = Decimal(repr(bound)) if isinstance(bound, float) else Decimal(bound)
        return sql.SQL(
            "(CASE WHEN jsonb_typeof({m} -> {k}) = 'number' THEN ({m} ->> {k})::numeric END) "
            "{op} {v}"
        ).format(m=meta, k=k, op=op, v=v)
    params[key + "v"] = _EPOCH + timedelta(microseconds=bound)
    params[key + "p"] = ISO_PATTERN
    return sql.SQL(
        "(CASE WHEN jsonb_typeof({m} -> {k}) = 'string' AND ({m} ->> {k}) ~ {p} THEN "
        "(CASE WHEN ({m} ->> {k}) ~ '(Z|[+-][0-9]{{2}}:[0-9]{{2}})$' "
        "THEN ({m} ->> {k})::timestamptz "
        "ELSE ({m} ->> {k})::timestamp AT TIME ZONE 'UTC' END) END) {op} {v}::timestamptz"
    ).format(m=meta, k=k, p=sql.Placeholder(key + "p"), op=op, v=v)


def filters(
    builder: Builder, search_filter: TextSearchFilter | None, params: dict[str, Any]
) -> Any:
    """`` AND ...`` for each clause, values added to ``params``; empty without a filter."""
    from psycopg import sql  # present: _sql, which renders filters, checked for it

    parts: list[Any] = []
    for i, clause in enumerate(search_filter.clauses if search_filter else ()):
        name, key = clause.field_name, f"f{i}"
        if isinstance(clause, EqualTo):
            parts.append(_equal(builder, name, clause.value, key, params))
        elif isinstance(clause, AnyTagEqualTo):
            # Containment is answered by the jsonb_path_ops GIN index; a list value
            # contains the one-element list of the tag.
            from psycopg.types.json import Jsonb

            params[key] = Jsonb({name: [clause.value]})
            parts.append(
                sql.SQL("{} @> {}").format(
                    builder.col(builder.spec.metadata_column), sql.Placeholder(key)
                )
            )
        elif isinstance(clause, Range):
            parts.append(_range(builder, clause, key, params))
        elif isinstance(clause, AnyOf):
            options = [
                _equal(builder, name, value, f"{key}_{j}", params)
                for j, value in enumerate(clause.values)
            ]
            parts.append(sql.SQL("({})").format(sql.SQL(" OR ").join(options)))
        elif isinstance(clause, NotEqualTo):
            equal = _equal(builder, name, clause.value, key, params)
            parts.append(sql.SQL("NOT COALESCE({}, false)").format(equal))
    if not parts:
        return sql.SQL("")
    return sql.SQL(" AND ") + sql.SQL(" AND ").join(parts)


def shape(search_filter: TextSearchFilter | None) -> tuple[Any, ...]:
    """What the SQL text of a filter depends on (never its values, which are parameters)."""
    if not search_filter:
        return ()
    out: list[Any] = []
    for clause in search_filter.clauses:
        reserved = clause.field_name if clause.field_name in RESERVED_FILTER_FIELDS else ""
        if isinstance(clause, AnyOf):
            out.append(("any_of", reserved, len(clause.values)))
        elif isinstance(clause, Range):
            out.append((clause.kind, range_bound(clause.value)[0]))
        else:
            out.append((clause.kind, reserved, clause.value is None))
    return tuple(out)
