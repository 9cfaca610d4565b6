"""Tool definitions checked against the official SDKs' own types and a JSON Schema validator."""

from __future__ import annotations

from typing import Any

import jsonschema
import mcp.types
import pytest
from anthropic.types import ToolParam
from openai.types.chat import ChatCompletionFunctionTool, ChatCompletionToolParam
from openai.types.shared import FunctionDefinition
from openai.types.shared_params import FunctionDefinition as FunctionDefinitionParam
from pydantic import TypeAdapter

from tests.plugins._support import ARTICLES, DOCS, ThirdPartySearch
from textsearch import TextSearchFilter
from textsearch.plugins import (
    SearchFunction,
    SearchParameter,
    create_search_function,
    create_search_plugin,
)
from textsearch.testing import StaticTextSearch


def _functions() -> list[SearchFunction]:
    ts = StaticTextSearch(DOCS)
    return [
        create_search_function(ts),
        create_search_function(ts, kind="text_search_results", top=3, max_top=6),
        create_search_function(
            ThirdPartySearch(ARTICLES),
            kind="search_results",
            name="web-articles",
            parameters=[
                SearchParameter("query", "Query."),
                SearchParameter("skip", "Skip.", type=int),
                SearchParameter("lang", "Language.", filter_field="lang", choices=["en", "fr"]),
                SearchParameter("year", "Year.", type=int, filter_field="year", ge=1990),
                SearchParameter("score", "Score.", type=float, filter_field="score", le=1.0),
                SearchParameter("draft", "Drafts.", type=bool, filter_field="draft"),
            ],
            filter=TextSearchFilter().equal_to("site", "a.example"),
        ),
    ]


def _keys_of(typed_dict: Any) -> set[str]:
    return set(typed_dict.__required_keys__ | typed_dict.__optional_keys__)


@pytest.mark.parametrize("strict", [False, True])
def test_openai_tools_validate_against_openai_types(strict: bool) -> None:
    adapter = TypeAdapter(ChatCompletionToolParam)
    for fn in _functions():
        tool = fn.to_openai_tool(strict=strict)
        adapter.validate_python(tool)
        assert set(tool) <= _keys_of(ChatCompletionToolParam)
        assert set(tool["function"]) <= _keys_of(FunctionDefinitionParam)
        TypeAdapter(FunctionDefinitionParam).validate_python(tool["function"])
        assert FunctionDefinition.model_validate(tool["function"]).name == fn.name
        model = ChatCompletionFunctionTool.model_validate(tool)
        assert model.function.name == fn.name
        assert model.function.strict is (True if strict else None)
        assert model.function.parameters == tool["function"]["parameters"]


def test_anthropic_tools_validate_against_anthropic_types() -> None:
    adapter = TypeAdapter(ToolParam)
    for fn in _functions():
        tool = fn.to_anthropic_tool()
        adapter.validate_python(tool)
        assert set(tool) == {"name", "description", "input_schema"} <= _keys_of(ToolParam)
        assert tool["input_schema"]["type"] == "object"


def test_mcp_tools_validate_against_mcp_types() -> None:
    for fn in _functions():
        definition = fn.to_mcp_tool()
        tool = mcp.types.Tool.model_validate(definition)
        assert tool.model_dump(by_alias=True, exclude_none=True) == definition
        assert tool.annotations is not None and tool.annotations.read_only_hint is True


@pytest.mark.parametrize("strict", [False, True])
def test_schemas_are_valid_json_schema_and_accept_what_invoke_accepts(strict: bool) -> None:
    for fn in _functions():
        schema = fn.strict_parameters_json_schema if strict else fn.parameters_json_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        good: dict[str, Any] = {name: None for name in schema["properties"]} if strict else {}
        good["query"] = "backoff"
        assert list(validator.iter_errors(good)) == []
        # what the schema forbids: extra properties, a missing query
        assert list(validator.iter_errors({**good, "unexpected": 1}))
        assert list(validator.iter_errors({k: v for k, v in good.items() if k != "query"}))


def test_schema_bounds_agree_with_behaviour() -> None:
    ts = StaticTextSearch(DOCS, match="always")
    fn = create_search_function(ts, top=3, max_top=6)
    validator = jsonschema.Draft202012Validator(fn.parameters_json_schema)
    top = fn.parameters_json_schema["properties"]["top"]
    for value in range(top["minimum"], top["maximum"] + 1):
        assert not list(validator.iter_errors({"query": "x", "top": value}))
        fn.invoke_sync({"query": "x", "top": value})
        assert ts.calls[-1].options.top == value
    fn.invoke_sync({"query": "x"})
    assert ts.calls[-1].options.top == top["default"]


def test_plugin_lists_match_their_functions() -> None:
    functions = _functions()
    plugin = create_search_plugin(StaticTextSearch(DOCS), functions=functions)
    assert plugin.to_openai_tools(strict=True) == [f.to_openai_tool(strict=True) for f in functions]
    assert plugin.to_anthropic_tools() == [f.to_anthropic_tool() for f in functions]
    assert plugin.to_mcp_tools() == [f.to_mcp_tool() for f in functions]
    annotations = [t["annotations"]["openWorldHint"] for t in plugin.to_mcp_tools()]
    assert annotations == [False, False, True]


@pytest.mark.parametrize("strict", [True, False])
def test_openai_responses_tools_validate_against_openai_types(strict: bool) -> None:
    from openai.types.responses import FunctionTool, FunctionToolParam

    for fn in _functions():
        tool = fn.to_openai_responses_tool(strict=strict)
        TypeAdapter(FunctionToolParam).validate_python(tool)
        assert set(tool) == {"type", "name", "description", "parameters", "strict"}
        assert set(tool) <= _keys_of(FunctionToolParam)
        model = FunctionTool.model_validate(tool)
        assert (model.type, model.name, model.strict) == ("function", fn.name, strict)
        expected = fn.strict_parameters_json_schema if strict else fn.parameters_json_schema
        assert model.parameters == expected
    plugin = create_search_plugin(StaticTextSearch(DOCS), functions=_functions())
    assert plugin.to_openai_responses_tools() == [
        f.to_openai_responses_tool() for f in _functions()
    ]
    assert all(t["strict"] is True for t in plugin.to_openai_responses_tools())


def test_mcp_tool_hints_and_output_schema() -> None:
    from textsearch import LocalTextSearch

    local = create_search_function(LocalTextSearch(), kind="text_search_results")
    web = create_search_function(ThirdPartySearch(ARTICLES), kind="search_results")
    local_tool, web_tool = local.to_mcp_tool(), web.to_mcp_tool()
    # read-only everywhere; open world only for the web; idempotent only where it holds
    assert local_tool["annotations"] == {
        "readOnlyHint": True,
        "openWorldHint": False,
        "idempotentHint": True,
    }
    assert web_tool["annotations"] == {"readOnlyHint": True, "openWorldHint": True}
    for fn, tool in ((local, local_tool), (web, web_tool)):
        jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
        assert tool["outputSchema"]["type"] == "object"
        assert tool["outputSchema"] == fn.output_json_schema
        assert mcp.types.Tool.model_validate(tool).output_schema == tool["outputSchema"]
