"""The new clauses of TextSearchFilter: data only, checked when built, comparable and hashable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from textsearch import AnyOf, InvalidRequestError, NotEqualTo, Range, TextSearchFilter
from textsearch._ranges import instant_of


def _every_clause() -> TextSearchFilter:
    return (
        TextSearchFilter()
        .greater_than("n", 1)
        .greater_than_or_equal("n", 1.5)
        .less_than("d", "2024-05-01T10:00:00+02:00")
        .less_than_or_equal("d", "2024-05-01")
        .any_of("s", ["a", 1, 1.5, True])
        .not_equal_to("s", None)
    )


def test_filters_built_alike_are_equal_and_hash_alike() -> None:
    a, b = _every_clause(), _every_clause()
    assert a == b and hash(a) == hash(b)
    assert len({a, b}) == 1


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (TextSearchFilter().any_of("s", [1]), TextSearchFilter().any_of("s", [True])),
        (TextSearchFilter().any_of("s", [1]), TextSearchFilter().any_of("s", [1.0])),
        (TextSearchFilter().greater_than("n", 1), TextSearchFilter().greater_than("n", 1.0)),
        (TextSearchFilter().greater_than("n", 1), TextSearchFilter().greater_than_or_equal("n", 1)),
        (TextSearchFilter().not_equal_to("n", 1), TextSearchFilter().not_equal_to("n", True)),
        (TextSearchFilter().not_equal_to("n", 1), TextSearchFilter().equal_to("n", 1)),
    ],
)
def test_values_of_other_types_or_kinds_are_other_filters(one: Any, other: Any) -> None:
    # a cache keyed on filters must never serve one for the other
    assert one != other and hash(one) != hash(other)


def test_round_trip_through_json() -> None:
    original = _every_clause()
    data = json.loads(json.dumps(original.to_dict()))
    again = TextSearchFilter.from_dict(data)
    assert again == original
    assert [type(c) for c in again.clauses] == [Range, Range, Range, Range, AnyOf, NotEqualTo]
    assert repr(again) == repr(original)


def test_from_dict_checks_the_values_again() -> None:
    with pytest.raises(InvalidRequestError):
        TextSearchFilter.from_dict(
            {"clauses": [{"kind": "greater_than", "field_name": "d", "value": "soon"}]}
        )
    with pytest.raises(InvalidRequestError):
        TextSearchFilter.from_dict(
            {"clauses": [{"kind": "any_of", "field_name": "s", "values": []}]}
        )


def test_clauses_are_frozen() -> None:
    clause = TextSearchFilter().greater_than("n", 1).clauses[0]
    assert isinstance(clause, Range) and clause.operator == ">"
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen error
        clause.value = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("1970-01-01", 0),
        ("1970-01-01T00:00:00.000001Z", 1),
        ("1970-01-01T01:00+01:00", 0),
        ("1969-12-31T23:00:00-01:00", 0),
        ("2000-02-29 12:00", 951825600 * 10**6),
        ("2024-13-01", None),
        ("2023-02-29", None),
        ("2024-01-01T24:00", None),
        ("2024-01-01T10:00:60", None),
        ("2024-01-01T10:00+15:00", None),
        ("2024-01-01T10:00:00.1234567", None),
        ("٢٠٢٤-01-01", None),  # Arabic-Indic digits are digits to \\d, not to ISO-8601
        ("2024-01-01\n", None),
        ("0000-01-01", None),
        (20240101, None),
    ],
)
def test_what_counts_as_a_date(text: Any, instant: int | None) -> None:
    assert instant_of(text) == instant
