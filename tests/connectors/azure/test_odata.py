from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.emulators.azure_search import FIXTURE, ODataFilter, load_indexes
from textsearch import TextSearchFilter
from textsearch.connectors.azure._odata import (
    build_filter,
    check_balanced,
    check_field_name,
    combine_filters,
    odata_literal,
    search_in,
)
from textsearch.errors import ConfigurationError, InvalidRequestError, UnsupportedFilterError

HOSTILE = ["x') or (1 eq 1", "O'Brien", "'", "''", "a' or true or 'b", ")", "(", "' eq '", "\\'"]
ONE_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")
INDEX = load_indexes(__import__("json").loads(FIXTURE.read_text()))["kb-docs"]


def test_literals_of_each_type() -> None:
    assert odata_literal("ops") == "'ops'"
    assert odata_literal("O'Brien") == "'O''Brien'"
    assert odata_literal("x') or (1 eq 1") == "'x'') or (1 eq 1'"
    assert odata_literal(True) == "true"
    assert odata_literal(False) == "false"
    assert odata_literal(None) == "null"
    assert odata_literal(2024) == "2024"
    assert odata_literal(-3) == "-3"
    assert odata_literal(4.5) == "4.5"
    assert odata_literal(1e-05) == "1e-05"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_refused(value: float) -> None:
    with pytest.raises(InvalidRequestError, match="finite"):
        odata_literal(value)


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1, 10**30])
def test_integers_beyond_int64_are_refused(value: int) -> None:
    # Azure AI Search has no integer type wider than Edm.Int64.
    with pytest.raises(InvalidRequestError, match="64-bit"):
        odata_literal(value)
    assert odata_literal(2**63 - 1) == str(2**63 - 1)
    assert odata_literal(-(2**63)) == str(-(2**63))


def test_non_plain_values_are_refused() -> None:
    with pytest.raises(InvalidRequestError):
        odata_literal([1, 2])  # type: ignore[arg-type]


@given(st.text())
def test_any_string_stays_one_literal_and_round_trips(value: str) -> None:
    literal = odata_literal(value)
    assert ONE_STRING_LITERAL.fullmatch(literal)
    assert literal[1:-1].replace("''", "'") == value


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(), st.sampled_from(HOSTILE)))
def test_equal_to_matches_exactly_the_value_under_a_real_parser(value: str) -> None:
    expression = build_filter(TextSearchFilter().equal_to("owner", value))
    assert expression == f"owner eq {odata_literal(value)}"
    parsed = ODataFilter(expression, INDEX)
    assert parsed.matches({"owner": value})
    assert not parsed.matches({"owner": value + "x"})
    assert not parsed.matches({"owner": "someone else" if value != "someone else" else "z"})


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(), st.sampled_from(HOSTILE)))
def test_any_tag_equal_to_matches_exactly_the_tag(value: str) -> None:
    expression = build_filter(TextSearchFilter().any_tag_equal_to("tags", value))
    assert expression == f"tags/any(t: t eq {odata_literal(value)})"
    parsed = ODataFilter(expression, INDEX)
    assert parsed.matches({"tags": ["other", value]})
    assert not parsed.matches({"tags": ["other"]})
    assert not parsed.matches({"tags": []})


@settings(max_examples=300, deadline=None)
@given(
    owner=st.one_of(st.text(), st.sampled_from(HOSTILE)),
    tag=st.one_of(st.text(), st.sampled_from(HOSTILE)),
    year=st.integers(-(2**31), 2**31 - 1),
    doc_owner=st.one_of(st.text(max_size=5), st.sampled_from(HOSTILE)),
    doc_acl=st.lists(st.sampled_from(["u1", "u2", "g-ops", "public"]), max_size=3),
)
def test_security_filter_cannot_be_escaped_by_query_values(
    owner: str, tag: str, year: int, doc_owner: str, doc_acl: list[str]
) -> None:
    security = search_in("acl", ["u1", "g-ops"])
    query = build_filter(
        TextSearchFilter()
        .equal_to("owner", owner)
        .any_tag_equal_to("tags", tag)
        .equal_to("year", year)
    )
    expression = combine_filters(security, query)
    assert expression == f"({security}) and ({query})"
    parsed = ODataFilter(expression or "", INDEX)
    doc = {"owner": doc_owner, "tags": [tag], "year": year, "acl": doc_acl}
    allowed = bool({"u1", "g-ops"} & set(doc_acl))
    # The combined filter is exactly "security AND query", whatever the values are.
    assert parsed.matches(doc) == (allowed and doc_owner == owner)


def test_numbers_booleans_and_null_are_typed_literals() -> None:
    expression = build_filter(
        TextSearchFilter()
        .equal_to("year", 2024)
        .equal_to("rating", 4.5)
        .equal_to("published", True)
        .equal_to("rating", None)
    )
    assert expression == "year eq 2024 and rating eq 4.5 and published eq true and rating eq null"
    ODataFilter(expression, INDEX)  # type-checks against the schema


def test_empty_or_missing_filter_builds_nothing() -> None:
    assert build_filter(None) is None
    assert build_filter(TextSearchFilter()) is None


@pytest.mark.parametrize(
    "name",
    [
        "bad field",
        "a eq 1 or b",
        "x'",
        "1abc",
        "",
        "a//b",
        "a/",
        "tags/any(t: true)",
        "and",
        "NULL",
    ],
)
def test_field_names_must_be_identifiers(name: str) -> None:
    with pytest.raises(UnsupportedFilterError):
        check_field_name(name)


def test_sub_field_paths_are_accepted() -> None:
    assert check_field_name("address/city") == "address/city"


def test_filterable_fields_limit_the_names_and_are_reported() -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        build_filter(TextSearchFilter().equal_to("owner", "x"), {"category", "year"})
    assert info.value.field_name == "owner"
    assert info.value.supported_fields == ("category", "year")
    assert "category, year" in str(info.value)


def test_combine_filters_shapes() -> None:
    assert combine_filters(None, None) is None
    assert combine_filters(None, "a eq 1") == "a eq 1"
    assert combine_filters("s eq 1", None) == "(s eq 1)"
    assert combine_filters("s eq 1", "a eq 1") == "(s eq 1) and (a eq 1)"


@pytest.mark.parametrize(
    "expression", ["a eq 1) or (true", "(a eq 1", "a eq 'open", "a eq 1)", "x eq 'it''s"]
)
def test_unbalanced_security_expressions_are_refused(expression: str) -> None:
    with pytest.raises(ConfigurationError):
        check_balanced(expression)


def test_balanced_expressions_pass_even_with_parentheses_in_literals() -> None:
    text = "(owner eq 'a)b') and tags/any(t: t eq '(')"
    assert check_balanced(text) == text


def test_search_in_builds_and_escapes() -> None:
    assert search_in("acl", ["u1", "g7"]) == "acl/any(a: search.in(a, 'u1,g7', ','))"
    assert search_in("acl", ["O'Brien"], delimiter="|") == (
        "acl/any(a: search.in(a, 'O''Brien', '|'))"
    )


@pytest.mark.parametrize(
    ("field", "values", "delimiter"),
    [
        ("acl", [], ","),
        ("acl", ["g1,admins"], ","),
        ("acl", ["g 1"], ","),
        ("acl", [""], ","),
        ("bad field", ["u1"], ","),
        ("acl", ["u1"], "'"),
        ("acl", ["u1"], "ab"),
    ],
)
def test_search_in_refuses_values_that_would_widen_access(
    field: str, values: list[str], delimiter: str
) -> None:
    with pytest.raises(ConfigurationError):
        search_in(field, values, delimiter=delimiter)
