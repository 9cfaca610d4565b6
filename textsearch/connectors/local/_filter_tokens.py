"""The filter tokens of the tantivy engine: what a document holds and what a filter seeks.

A document's site, metadata values and places become keyword tokens of one field
(`document_tokens`); a filter becomes term queries on that field (`filter_clauses`): an
equality one token, a range a cover of prefix tokens (`range_covers`, `_prefix_cover`).
Both sides are written here, so that what is indexed and what is sought cannot drift apart.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

import tantivy

from textsearch._ranges import instant_of, range_bound
from textsearch._types import AnyOf, AnyTagEqualTo, EqualTo, NotEqualTo, Range, TextSearchFilter
from textsearch.connectors.local._prefix_cover import _DIGITS, _TOP, interval_covers
from textsearch.connectors.local._query import id_text

__all__ = ["document_tokens", "filter_clauses", "range_covers"]

_SEP = "\x1f"


def _canon(value: Any) -> str:
    """One token per value that the SQL filter (`filter_sql`) finds equal."""
    if value is None:
        return "n"
    if isinstance(value, bool):  # never equal to 1 or 0, as in JSON and PostgreSQL
        return "bt" if value else "bf"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, float):
        if value.is_integer() and -(2.0**63) <= value < 2.0**63:
            return f"i{int(value)}"
        return f"f{value!r}"
    return "s" + str(value)


def document_tokens(
    doc_id: str,
    link: str | None,
    site: str | None,
    metadata: Mapping[str, Any],
    cache: dict[Any, list[str]] | None = None,
) -> list[str]:
    """The filter tokens of a document: what each filter clause of `filter_clauses` seeks.

    ``cache`` (a dict the caller keeps, e.g. for one batch) holds the tokens of each host and
    metadata value already seen: documents of a batch share most of them.
    """
    tokens = ["id" + _SEP + doc_id, ("link" + _SEP + link) if link is not None else "nolink"]
    if site:
        if cache is None:
            tokens.extend(_site_tokens(site))
        else:
            known = cache.get(site)
            if known is None:
                known = cache[site] = _site_tokens(site)
            tokens.extend(known)
    for key, value in metadata.items():
        if cache is None:
            tokens.extend(_value_tokens(key, value))
            continue
        # the type too: True == 1 == 1.0, but their tokens differ
        index = (key, type(value), tuple(value) if isinstance(value, list) else value)
        known = cache.get(index)
        if known is None:
            known = cache[index] = _value_tokens(key, value)
        tokens.extend(known)
    return tokens


def _site_tokens(site: str) -> list[str]:
    parts = site.split(".")
    # every host suffix, so that "example.com" finds "docs.example.com" too
    return ["site" + _SEP + ".".join(parts[i:]) for i in range(len(parts))]


def _value_tokens(key: str, value: Any) -> list[str]:
    if isinstance(value, list):
        return ["has" + _SEP + key, *("tag" + _SEP + key + _SEP + _canon(m) for m in value)]
    tokens = []
    if value is not None:
        tokens.append("has" + _SEP + key)
        tokens.append("eq" + _SEP + key + _SEP + _canon(value))
        tokens.extend(_range_tokens(key, value))
    # any_tag_equal_to on a scalar finds the scalar itself (as json_each does)
    tokens.append("tag" + _SEP + key + _SEP + _canon(value))
    return tokens


# -- range tokens ------------------------------------------------------------------------
#
# A number, or a string that is an ISO-8601 date (as its instant in microseconds), is written
# as 20 hex digits whose order is the numeric order: the float64 nearest the number in an
# order-preserving form (16), then the exact difference between the number and that float (4,
# offset by 0x8000), so that an int64 past 2**53 keeps its order against its neighbours and
# against floats. Each value is indexed as the 20 prefixes of those digits ("rn" or "rd", the
# key in hex, "_", the prefix length in two digits, the prefix). A range is covered by a few
# prefixes a level (siblings of the bound's own prefix); one look into the term dictionary a
# level keeps those that exist, and the filter is an OR of their terms: no pattern to compile,
# and a search as cheap as an equality's.


def _sortable(number: int | float) -> str:
    nearest = float(number) + 0.0  # -0.0 is 0.0
    (bits,) = struct.unpack(">Q", struct.pack(">d", nearest))
    bits = bits ^ 0xFFFFFFFFFFFFFFFF if bits >> 63 else bits | 1 << 63
    residual = number - int(nearest) if isinstance(number, int) else 0
    return f"{bits:016x}{residual + 0x8000:04x}"


def _range_base(kind: str, key: str) -> str:
    return ("rn" if kind == "number" else "rd") + key.encode().hex() + "_"


def _level(base: str, prefix: str) -> str:
    return f"{base}{len(prefix):02d}{prefix}"


def _range_tokens(key: str, value: Any) -> list[str]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        digits, kind = _sortable(value), "number"
    else:
        instant = instant_of(value)
        if instant is None:
            return []
        digits, kind = _sortable(instant), "date"
    base = _range_base(kind, key)
    return [_level(base, digits[:length]) for length in range(1, _DIGITS + 1)]


def range_covers(search_filter: TextSearchFilter) -> dict[tuple[str, str], tuple[int, int]]:
    """The range clauses of a filter as one interval per (field, number or date): the
    bounds on one field intersect, so "between" is one set of prefixes, not two."""
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for clause in search_filter.clauses:
        if not isinstance(clause, Range):
            continue
        kind, bound = range_bound(clause.value)
        number = int(_sortable(bound), 16)
        low, high = out.get((clause.field_name, kind), (0, _TOP))
        if clause.kind == "greater_than":
            low = max(low, number + 1)
        elif clause.kind == "greater_than_or_equal":
            low = max(low, number)
        elif clause.kind == "less_than":
            high = min(high, number - 1)
        else:
            high = min(high, number)
        out[(clause.field_name, kind)] = (low, high)
    return out


def _every_cover(base: str, low: int, high: int) -> list[str]:
    heads, covers = interval_covers(low, high)
    return [_level(base, h) for h in heads] + [
        _level(base, p + d) for p, allowed in covers for d in allowed
    ]


def filter_clauses(
    schema: tantivy.Schema,
    search_filter: TextSearchFilter | None,
    range_terms: Callable[[str, str, int, int], list[str]] | None = None,
) -> list[tuple[tantivy.Occur, tantivy.Query]]:
    """Filter clauses as queries on the keyword field (the SQL filter's semantics).

    The range clauses on one field make one interval (`range_covers`);
    ``range_terms(field, kind, low, high)`` gives the terms that cover it (those present in
    the index: `TantivyRanker.range_terms`); without it, every covering prefix is used.
    """
    if not search_filter:
        return []
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = []
    q = tantivy.Query
    must, must_not = tantivy.Occur.Must, tantivy.Occur.MustNot

    def term(token: str) -> tantivy.Query:
        return q.term_query(schema, "filter", token, index_option="basic")

    def equal(name: str, value: Any) -> tuple[tantivy.Occur, tantivy.Query]:
        """equal_to as (Must, query), or (MustNot, query) when it means "has no value"."""
        if name == "site":
            return must, term("site" + _SEP + str(value).lower().strip().rstrip("."))
        if name in ("id", "link"):
            if value is None:
                return must, term("noid" if name == "id" else "nolink")  # no document lacks an id
            return must, term(name + _SEP + id_text(value))
        if value is None:
            return must_not, term("has" + _SEP + name)  # missing or null: holding no value
        return must, term("eq" + _SEP + name + _SEP + _canon(value))

    def add(occur: tantivy.Occur, query: tantivy.Query) -> None:
        # A filter decides what matches, never the score.
        clauses.append((occur, q.const_score_query(query, 0.0) if occur == must else query))

    intervals = range_covers(search_filter)
    for clause in search_filter.clauses:
        name = clause.field_name
        if isinstance(clause, EqualTo):
            add(*equal(name, clause.value))
        elif isinstance(clause, AnyTagEqualTo):
            add(must, term("tag" + _SEP + name + _SEP + _canon(clause.value)))
        elif isinstance(clause, NotEqualTo):
            occur, query = equal(name, clause.value)
            add(must_not if occur == must else must, query)
        elif isinstance(clause, AnyOf):
            # any_of holds no None: each value is a positive term
            add(
                must,
                q.boolean_query([(tantivy.Occur.Should, equal(name, v)[1]) for v in clause.values]),
            )
        elif isinstance(clause, Range):
            group = (name, range_bound(clause.value)[0])
            if group not in intervals:
                continue  # its field's interval is already a clause
            low, high = intervals.pop(group)
            if range_terms is not None:
                terms = range_terms(name, group[1], low, high)
            else:
                terms = _every_cover(_range_base(group[1], name), low, high)
            if not terms:
                add(must, q.empty_query())
            else:
                add(must, q.boolean_query([(tantivy.Occur.Should, term(t)) for t in terms]))
    return clauses
