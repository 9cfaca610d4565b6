"""One number check behind metadata, filter values and range bounds (`_ranges.number_fault`):
a value one path accepts is never one another refuses."""

from __future__ import annotations

import math
from typing import Any

import pytest

from textsearch import LocalTextSearch, TextSearchFilter
from textsearch._ranges import INT64_MAX, INT64_MIN, number_fault
from textsearch.connectors.azure._odata import odata_literal
from textsearch.errors import InvalidRequestError

BAD = [math.nan, math.inf, -math.inf, INT64_MAX + 1, INT64_MIN - 1, 10**30]
GOOD = [0, 1.5, -2.0, INT64_MAX, INT64_MIN, 1e308]


def test_number_fault_names_what_is_wrong() -> None:
    assert [number_fault(v) for v in (math.nan, math.inf)] == ["is not finite"] * 2
    assert [number_fault(v) for v in (INT64_MAX + 1, INT64_MIN - 1)] == [
        "does not fit in 64 bits"
    ] * 2
    # usable numbers and things that are no number at all
    assert [number_fault(v) for v in [*GOOD, True, False, "nan", None]] == [None] * 10


@pytest.mark.parametrize("value", BAD)
def test_every_path_refuses_the_same_numbers(value: Any) -> None:
    search = LocalTextSearch(engine="sqlite")
    search.add_documents([{"id": "b", "text": "x", "metadata": {"n": 1}}])
    with pytest.raises(InvalidRequestError, match="finite|64 bits"):
        search.add_documents([{"id": "a", "text": "x", "metadata": {"n": value}}])
    with pytest.raises(InvalidRequestError, match="finite|64 bits"):
        search.search_sync("x", filter=TextSearchFilter().equal_to("n", value))
    with pytest.raises(InvalidRequestError, match="finite|64 bits"):
        TextSearchFilter().greater_than("n", value)
    with pytest.raises(InvalidRequestError, match="finite"):
        odata_literal(value)


@pytest.mark.parametrize("value", GOOD)
def test_every_path_takes_the_same_numbers(value: Any) -> None:
    search = LocalTextSearch(engine="sqlite")
    search.add_documents([{"id": "a", "text": "x", "metadata": {"n": value}}])
    for found in (
        TextSearchFilter().equal_to("n", value),
        TextSearchFilter().greater_than_or_equal("n", value),
    ):
        assert [d.id for d in search.get_search_results_sync("x", filter=found).results] == ["a"]
    assert odata_literal(value)
