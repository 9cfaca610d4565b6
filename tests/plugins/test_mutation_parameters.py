"""Parameter bounds, clamping, choices and messages, pinned (issue #24, ``tools/mutation.py``).

Each test holds a promise of the model-facing parameters that a changed line of
``plugins/_parameters.py`` would break; all go through the public
:func:`~textsearch.plugins.create_search_function`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from textsearch import ConfigurationError, InvalidRequestError, SearchOptions, TextSearchFilter
from textsearch.plugins import (
    SearchParameter,
    create_search_function,
    default_parameters,
    web_filter_parameters,
)
from textsearch.testing import StaticTextSearch

DOCS = [
    {"name": f"d{i}", "value": f"retry text {i}", "link": f"https://a.example/{i}"}
    for i in range(3)
]
QUERY = SearchParameter("query", "What to search for.")


def _function(*parameters: SearchParameter, **kwargs: Any) -> Any:
    return create_search_function(
        StaticTextSearch(DOCS, match="always"), parameters=[QUERY, *parameters], **kwargs
    )


def _configuration_error(*parameters: SearchParameter, **kwargs: Any) -> str:
    with pytest.raises(ConfigurationError) as info:
        _function(*parameters, **kwargs)
    return str(info.value)


# -- metadata ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [int, float, str])
def test_a_bool_default_is_not_a_number_or_a_string(kind: type[Any]) -> None:
    with pytest.raises(ConfigurationError, match="is not a"):
        SearchParameter("n", "A number.", type=kind, default=True, filter_field="n")


def test_equal_bounds_and_a_default_on_the_upper_bound_are_accepted() -> None:
    year = SearchParameter("year", "Year.", type=int, ge=2024, le=2024, filter_field="year")
    assert (year.ge, year.le) == (2024, 2024)
    at_top = SearchParameter("n", "N.", type=int, default=9, ge=1, le=9, filter_field="n")
    assert at_top.default == 9
    with pytest.raises(ConfigurationError, match=r"default 10 is above le=9"):
        SearchParameter("n", "N.", type=int, default=10, ge=1, le=9, filter_field="n")


def test_the_default_query_parameter_is_required() -> None:
    query, top, skip = default_parameters()
    assert (query.name, query.required) == ("query", True)
    assert (top.name, top.type, skip.name, skip.type) == ("top", int, "skip", int)


# -- web filter parameters -----------------------------------------------------------------


class _Web:
    supported_filter_fields = frozenset({"site", "freshness"})


def test_web_filter_fields_must_be_a_list() -> None:
    with pytest.raises(ConfigurationError, match="list of portable filter field names"):
        web_filter_parameters(_Web(), fields={"site"})  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="not portable filter fields: 'author'"):
        web_filter_parameters(_Web(), fields=["site", "author"])
    assert [p.name for p in web_filter_parameters(_Web(), fields=["site"])] == ["site"]


def test_an_object_without_filter_fields_gets_no_web_parameters() -> None:
    assert web_filter_parameters(object()) == []


# -- query, top and skip -------------------------------------------------------------------


def test_reserved_parameters_refuse_what_they_cannot_do() -> None:
    choices = SearchParameter("top", "Top.", type=int, choices=[1, 2])
    assert "'top' cannot have choices" in _configuration_error(choices)
    required = SearchParameter("top", "Top.", type=int, required=True)
    assert "'top' cannot be required" in _configuration_error(required)
    assert "'skip' cannot be required" in _configuration_error(
        SearchParameter("skip", "Skip.", type=int, required=True)
    )
    assert "'skip' cannot go below 0" in _configuration_error(
        SearchParameter("skip", "Skip.", type=int, ge=-1)
    )
    assert "top=2 is outside the parameter's bounds 3..5" in _configuration_error(
        SearchParameter("top", "Top.", type=int, ge=3, le=5), top=2
    )
    assert "out_of_bounds must be 'clamp' or 'reject'" in _configuration_error(
        out_of_bounds="sometimes"
    )


@pytest.mark.parametrize("top", [3, 5])
def test_top_may_sit_on_either_bound_of_its_parameter(top: int) -> None:
    fn = _function(SearchParameter("top", "Top.", type=int, ge=3, le=5), top=top)
    schema = fn.parameters_json_schema["properties"]["top"]
    assert (schema["minimum"], schema["maximum"], schema["default"]) == (3, 5, top)
    assert fn.parse_arguments({"query": "q"}).options.top == top


def test_given_bounds_and_default_of_top_and_skip_are_kept() -> None:
    fn = _function(
        SearchParameter("top", "Top.", type=int, ge=2, le=8),
        SearchParameter("skip", "Skip.", type=int, default=4, ge=2, le=20),
        top=4,
    )
    props = fn.parameters_json_schema["properties"]
    assert (props["top"]["minimum"], props["top"]["maximum"]) == (2, 8)
    assert (props["skip"]["minimum"], props["skip"]["maximum"], props["skip"]["default"]) == (
        2,
        20,
        4,
    )
    parsed = fn.parse_arguments({"query": "q"})
    assert (parsed.options.top, parsed.options.skip) == (4, 4)
    clamped = fn.parse_arguments({"query": "q", "top": 1, "skip": 50})
    assert (clamped.options.top, clamped.options.skip) == (2, 20)
    assert clamped.notes == (
        "top=1 is outside the minimum of 2; used top=2.",
        "skip=50 is outside the maximum of 20; used skip=20.",
    )


def test_skip_without_bounds_gets_the_options_maximum() -> None:
    fn = _function(SearchParameter("skip", "Skip.", type=int))
    assert fn.parameters_json_schema["properties"]["skip"]["maximum"] == SearchOptions.MAX_SKIP
    assert fn.parse_arguments({"query": "q", "skip": 10**6}).options.skip == SearchOptions.MAX_SKIP


# -- the model's arguments -----------------------------------------------------------------


def test_internal_field_names_are_not_arguments() -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    with pytest.raises(ValidationError):
        fn.arguments_model.model_validate({"p0": "retry"})
    assert (
        fn.arguments_model.model_validate({"query": "retry"}).model_dump(by_alias=True)["query"]
        == "retry"
    )


def test_strict_schema_says_what_null_means() -> None:
    fn = _function(
        SearchParameter("top", "Top.", type=int),
        SearchParameter("lang", "Language.", filter_field="lang"),
    )
    props = fn.strict_parameters_json_schema["properties"]
    assert props["lang"]["description"] == "Language. (null means none.)"
    assert props["top"]["description"] == "Top. (null means the default, 5.)"


def test_a_null_argument_does_not_hide_the_ones_after_it() -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    parsed = fn.parse_arguments({"top": None, "skip": 2, "query": "retry"})
    assert (parsed.query, parsed.options.top, parsed.options.skip) == ("retry", 5, 2)
    assert parsed.notes == ()


@pytest.mark.parametrize(
    ("arguments", "top", "notes"),
    [
        ({"top": 500}, 10, ["top=500 is outside the maximum of 10; used top=10."]),
        ({"top": 0}, 1, ["top=0 is outside the minimum of 1; used top=1."]),
        ({"top": " 500 "}, 10, ["top=500 is outside the maximum of 10; used top=10."]),
        ({"top": 500.0}, 10, ["top=500.0 is outside the maximum of 10; used top=10."]),
        ({"top": "7"}, 7, []),
        ({"top": 7.0}, 7, []),
        ({"top": 7}, 7, []),
        ({"skip": -3}, 5, ["skip=-3 is outside the minimum of 0; used skip=0."]),
        # The value is shown to the model in at most 20 characters.
        (
            {"top": 10**19},
            10,
            ["top=10000000000000000000 is outside the maximum of 10; used top=10."],
        ),
        (
            {"top": 10**20},
            10,
            ["top=1000000000000000000… is outside the maximum of 10; used top=10."],
        ),
    ],
)
def test_top_and_skip_out_of_bounds_are_clamped_with_a_note(
    arguments: dict[str, Any], top: int, notes: list[str]
) -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    parsed = fn.parse_arguments({"query": "retry", **arguments})
    assert parsed.options.top == top
    assert list(parsed.notes) == notes


def test_a_whole_number_too_large_for_a_float_is_clamped_not_a_crash() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, match="always"))
    huge = '{"query": "retry", "top": 1' + "0" * 400 + "}"
    parsed = fn.parse_arguments(huge)
    assert parsed.options.top == 10
    assert parsed.notes == ("top=1000000000000000000… is outside the maximum of 10; used top=10.",)
    assert "used top=10" in fn.invoke_sync(huge)


def test_reject_mode_refuses_instead_of_clamping() -> None:
    fn = create_search_function(StaticTextSearch(DOCS), out_of_bounds="reject")
    with pytest.raises(InvalidRequestError, match="top"):
        fn.parse_arguments({"query": "retry", "top": 500})


def test_a_filter_value_out_of_bounds_is_refused_never_clamped() -> None:
    # Clamping a filter value would change the filter: the model asked for 2030, not 2025.
    fn = _function(
        SearchParameter("year", "Year.", type=int, ge=2000, le=2025, filter_field="year")
    )
    with pytest.raises(InvalidRequestError, match="year"):
        fn.parse_arguments({"query": "retry", "year": 2030})
    parsed = fn.parse_arguments({"query": "retry", "year": 2025})
    assert parsed.options.filter == TextSearchFilter().equal_to("year", 2025)


def test_arguments_as_utf8_bytes() -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    parsed = fn.parse_arguments('{"query": "café", "top": 2}'.encode())  # type: ignore[arg-type]
    assert (parsed.query, parsed.options.top) == ("café", 2)
    with pytest.raises(InvalidRequestError, match="not valid UTF-8 JSON"):
        fn.parse_arguments(b'{"query": "\xff"}')  # type: ignore[arg-type]


def _unknown_message(names: list[str]) -> str:
    fn = create_search_function(StaticTextSearch(DOCS))
    with pytest.raises(InvalidRequestError) as info:
        fn.parse_arguments({"query": "retry", **dict.fromkeys(names, 1)})
    return str(info.value)


def test_unknown_arguments_are_listed_five_at_most() -> None:
    five = [f"x{i}" for i in range(5)]
    assert _unknown_message(five).startswith(
        "unknown arguments 'x0', 'x1', 'x2', 'x3', 'x4'; the parameters are query, top, skip"
    )
    assert "more" not in _unknown_message(five)
    six = _unknown_message([*five, "x5"])
    assert "'x4' and 1 more;" in six and "'x5'" not in six
    assert "'x4' and 2 more;" in _unknown_message([*five, "x5", "x6"])


def test_long_unknown_argument_names_are_cut() -> None:
    forty, forty_one = "a" * 40, "b" * 41
    assert f"'{forty}';" in _unknown_message([forty])
    message = _unknown_message([forty_one])
    assert "'" + "b" * 39 + "…';" in message and "b" * 40 not in message


def test_notes_reach_the_model_in_the_tool_result() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, match="always"), kind="text_search_results")
    payload = json.loads(fn.invoke_sync({"query": "retry", "top": 99}))
    assert payload["notes"] == ["top=99 is outside the maximum of 10; used top=10."]
