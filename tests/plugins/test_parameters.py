"""SearchParameter metadata, schema derivation and misuse caught at creation."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.plugins._support import DOCS, ThirdPartySearch
from textsearch import ConfigurationError, LocalTextSearch, TextSearchFilter
from textsearch.plugins import SearchParameter, create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def test_default_parameters_schema() -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    schema = fn.parameters_json_schema
    assert schema["type"] == "object"
    assert list(schema["properties"]) == ["query", "top", "skip"]
    assert schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["query"]["type"] == "string"
    top = schema["properties"]["top"]
    assert (top["type"], top["default"], top["minimum"], top["maximum"]) == ("integer", 5, 1, 10)
    skip = schema["properties"]["skip"]
    assert (skip["type"], skip["default"], skip["minimum"]) == ("integer", 0, 0)
    for node in _walk(schema):
        assert "anyOf" not in node and "title" not in node and "$ref" not in node


def test_top_and_max_top_arguments_are_the_one_place_for_defaults() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(ts, top=3, max_top=7)
    top = fn.parameters_json_schema["properties"]["top"]
    assert (top["default"], top["maximum"]) == (3, 7)
    # behaviour agrees with the schema: no top -> 3
    fn.invoke_sync({"query": "backoff"})
    assert ts.calls[-1].options.top == 3


def test_connector_max_top_lowers_the_bound() -> None:
    fn = create_search_function(StaticTextSearch(DOCS, max_top=4), top=2)
    assert fn.parameters_json_schema["properties"]["top"]["maximum"] == 4
    assert fn.max_top == 4


def test_fixed_top_and_preset_filter_are_absent_from_the_schema() -> None:
    fn = create_search_function(
        StaticTextSearch(DOCS),
        parameters=[SearchParameter("query", "What to look up.")],
        filter=TextSearchFilter().equal_to("site", "kb.example"),
        top=3,
    )
    schema = fn.parameters_json_schema
    assert schema["properties"] == {"query": {"description": "What to look up.", "type": "string"}}
    text = json.dumps(fn.to_openai_tool(strict=True)) + json.dumps(fn.to_anthropic_tool())
    assert "kb.example" not in text and "site" not in text and "top" not in text


def test_filter_parameter_schema_with_choices_and_bounds() -> None:
    fn = create_search_function(
        StaticTextSearch(DOCS),
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("lang", "Language.", filter_field="lang", choices=["en", "fr"]),
            SearchParameter("year", "Year.", type=int, filter_field="year", ge=2000, le=2030),
            SearchParameter("draft", "Drafts?", type=bool, filter_field="draft", default=False),
        ],
    )
    props = fn.parameters_json_schema["properties"]
    assert props["lang"] == {"description": "Language.", "enum": ["en", "fr"], "type": "string"}
    assert props["year"] == {
        "description": "Year.",
        "maximum": 2030,
        "minimum": 2000,
        "type": "integer",
    }
    assert props["draft"] == {"default": False, "description": "Drafts?", "type": "boolean"}
    assert fn.parameters_json_schema["required"] == ["query"]


def test_strict_schema_follows_openai_strict_rules() -> None:
    fn = create_search_function(
        StaticTextSearch(DOCS),
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("top", "How many.", type=int),
            SearchParameter("lang", "Language.", filter_field="lang", choices=["en", "fr"]),
            SearchParameter("site", "Site.", filter_field="site"),
        ],
    )
    tool = fn.to_openai_tool(strict=True)
    assert tool["function"]["strict"] is True
    schema = tool["function"]["parameters"]
    assert schema["additionalProperties"] is False
    assert sorted(schema["required"]) == sorted(schema["properties"])  # every property required
    props = schema["properties"]
    assert props["query"]["type"] == "string"  # required stays non-nullable
    assert props["top"]["type"] == ["integer", "null"]
    assert props["site"]["type"] == ["string", "null"]
    assert props["lang"]["type"] == ["string", "null"] and props["lang"]["enum"] == [
        "en",
        "fr",
        None,
    ]
    assert all("default" not in node for node in _walk(schema))
    assert "null means the default, 5" in props["top"]["description"]
    for node in _walk(schema):
        assert "anyOf" not in node and "oneOf" not in node and "$ref" not in node
        if node.get("type") == "object":
            assert node["additionalProperties"] is False
    # the non-strict variant is not marked strict and keeps its defaults
    loose = fn.to_openai_tool()
    assert "strict" not in loose["function"]
    assert loose["function"]["parameters"]["properties"]["top"]["default"] == 5


def test_strict_null_means_default() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(ts, top=2)
    fn.invoke_sync({"query": "backoff", "top": None, "skip": None})
    assert (ts.calls[-1].options.top, ts.calls[-1].options.skip) == (2, 0)


def test_schema_is_a_fresh_copy() -> None:
    fn = create_search_function(StaticTextSearch(DOCS))
    fn.parameters_json_schema["properties"]["top"]["maximum"] = 1000
    assert fn.parameters_json_schema["properties"]["top"]["maximum"] == 10


def test_names_follow_the_tool_name_pattern() -> None:
    ts = StaticTextSearch(DOCS)
    pattern = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
    for kind in ("search", "text_search_results", "search_results"):
        assert pattern.match(create_search_function(ts, kind=kind).name)
    assert create_search_function(ts, name="kb-search_2").name == "kb-search_2"
    for bad in ("", "has space", "dots.not.allowed", "x" * 65, "ünï"):
        with pytest.raises(ConfigurationError, match="not valid"):
            create_search_function(ts, name=bad)
    with pytest.raises(ConfigurationError, match="plugin name"):
        create_search_plugin(ts, name="my plugin")


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ([SearchParameter("top", "n", type=int)], "must include 'query'"),
        ([SearchParameter("query", "q"), SearchParameter("query", "again")], "listed twice"),
        ([SearchParameter("query", "q", filter_field="title")], "cannot have a filter_field"),
        ([SearchParameter("query", "q", type=int)], "must be a str"),
        ([SearchParameter("query", "q"), SearchParameter("top", "n")], "type=int"),
        (
            [
                SearchParameter("query", "q"),
                SearchParameter("skip", "s", type=int, filter_field="x"),
            ],
            "cannot have a filter_field",
        ),
        ([SearchParameter("query", "q"), SearchParameter("site", "s")], "no filter_field"),
        (
            [SearchParameter("query", "q"), SearchParameter("top", "n", type=int, le=50)],
            "within 1..max_top",
        ),
        (
            [SearchParameter("query", "q"), SearchParameter("top", "n", type=int, default=9)],
            "conflicting defaults",
        ),
        ("query", "list of SearchParameter"),
        ([{"name": "query"}], "SearchParameter objects"),
    ],
)
def test_misuse_fails_at_creation(parameters: Any, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        create_search_function(StaticTextSearch(DOCS), parameters=parameters)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "1bad"}, "not valid"),
        ({"name": "site", "type": list}, "type must be"),
        ({"name": "site", "description": " "}, "description"),
        ({"name": "site", "required": True, "default": "x"}, "both required"),
        ({"name": "n", "type": int, "default": "3"}, "is not a int"),
        ({"name": "site", "choices": []}, "must not be empty"),
        ({"name": "site", "choices": "abc"}, "list of values"),
        ({"name": "site", "choices": ["a", 1]}, "is not a str"),
        ({"name": "site", "choices": ["a", "a"]}, "distinct"),
        ({"name": "site", "choices": ["a"], "default": "b"}, "not one of the choices"),
        ({"name": "site", "ge": 1}, "int and float parameters only"),
        ({"name": "n", "type": int, "ge": 5, "le": 1}, "above le"),
        ({"name": "n", "type": int, "ge": 5, "default": 1}, "below ge"),
        ({"name": "n", "type": float, "le": float("inf")}, "finite"),
        ({"name": "site", "filter_field": ""}, "filter_field"),
    ],
)
def test_bad_parameter_metadata_is_rejected(kwargs: dict[str, Any], message: str) -> None:
    kwargs.setdefault("description", "A parameter.")
    with pytest.raises(ConfigurationError, match=message):
        SearchParameter(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "web"}, "kind must be one of"),
        ({"top": 11}, "above max_top"),
        ({"top": 0}, "at least 1"),
        ({"max_top": 0}, "at least 1"),
        ({"top": True}, "whole number"),
        ({"description": ""}, "description"),
        ({"filter": {"site": "x"}}, "TextSearchFilter"),
        ({"string_mapper": "upper"}, "callable"),
    ],
)
def test_bad_factory_arguments_fail_at_creation(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        create_search_function(StaticTextSearch(DOCS), **kwargs)


def test_not_a_text_search_fails_at_creation() -> None:
    with pytest.raises(ConfigurationError, match="TextSearch protocol"):
        create_search_function(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="TextSearch protocol"):
        create_search_plugin("not a connector")  # type: ignore[arg-type]


def test_parameter_names_that_clash_with_pydantic_attributes_work() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(
        ts,
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("json", "Language (named json on purpose).", filter_field="lang"),
            SearchParameter("model_config", "Site.", filter_field="site"),
        ],
    )
    assert list(fn.parameters_json_schema["properties"]) == ["query", "json", "model_config"]
    fn.invoke_sync({"query": "x", "json": "fr", "model_config": "kb.example"})
    assert ts.calls[-1].options.filter == TextSearchFilter().equal_to("lang", "fr").equal_to(
        "site", "kb.example"
    )


def test_completed_parameters_are_exposed() -> None:
    fn = create_search_function(ThirdPartySearch([]), top=4, max_top=8)
    by_name = {p.name: p for p in fn.parameters}
    assert by_name["query"].required is True
    assert (by_name["top"].default, by_name["top"].ge, by_name["top"].le) == (4, 1, 8)
    assert (by_name["skip"].default, by_name["skip"].ge) == (0, 0)


def test_local_connector_function_schema() -> None:
    with LocalTextSearch() as local:
        fn = create_search_function(local, kind="text_search_results")
        assert fn.parameters_json_schema["properties"]["top"]["maximum"] == 10
        assert fn.open_world is False


@pytest.mark.parametrize(
    "arguments",
    [
        '{"query": "x", "rating": NaN}',
        '{"query": "x", "rating": Infinity}',
        '{"query": "x", "rating": -Infinity}',
        {"query": "x", "rating": "nan"},
        {"query": "x", "rating": "inf"},
        {"query": "x", "rating": float("nan")},
    ],
)
def test_non_finite_numbers_never_reach_a_filter(arguments: Any) -> None:
    # NaN and infinities are not JSON numbers; Python's json module and pydantic's lax
    # mode accept them, and a NaN clause compares unequal to everything (or null).
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(
        ts,
        parameters=[
            SearchParameter("query", "Query."),
            SearchParameter("rating", "Exact rating.", type=float, filter_field="rating"),
        ],
        filter=TextSearchFilter().equal_to("lang", "en"),
    )
    text = fn.invoke_sync(arguments)
    assert text.startswith("Invalid arguments for search: rating: Input should be a finite number")
    assert ts.calls == []
    fn.invoke_sync({"query": "x", "rating": 4.5})
    assert ts.calls[-1].options.filter == TextSearchFilter().equal_to("lang", "en").equal_to(
        "rating", 4.5
    )
