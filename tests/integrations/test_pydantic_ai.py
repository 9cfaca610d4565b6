"""pydantic-ai: tools and toolsets driven by TestModel and FunctionModel."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai import Agent, Tool
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.toolsets import FunctionToolset

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    KB_LINK,
    OTHER_LINK,
    assert_preset_kept,
    make_search,
    preset_function,
)
from textsearch.errors import ConfigurationError, QuotaExceededError
from textsearch.integrations.pydantic_ai import as_pydantic_ai_tool, textsearch_toolset
from textsearch.plugins import create_search_function, create_search_plugin

NAME = "get_text_search_results"


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]


def _scripted(*calls: dict[str, Any]) -> FunctionModel:
    """A model that makes the given tool calls one turn each, then answers."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if turn < len(calls):
            return ModelResponse(parts=[ToolCallPart(NAME, calls[turn])])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


# Agent.run_sync leaves its event loop open (a ResourceWarning, an error here): the tests
# drive the async API, as an application inside an event loop does.


@pytest.mark.anyio
async def test_test_model_calls_the_tool_with_the_function_schema() -> None:
    search = make_search()
    function = preset_function(search)
    tool = as_pydantic_ai_tool(function)
    assert isinstance(tool, Tool)
    assert tool.tool_def.parameters_json_schema == function.parameters_json_schema
    model = TestModel()
    result = await Agent(model, tools=[tool]).run("How should I retry?")
    assert [t.name for t in model.last_model_request_parameters.function_tools] == [NAME]
    (returned,) = _returns(result.all_messages())
    assert returned.outcome == "success"
    assert search.calls  # TestModel made up a query from the schema
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_hostile_arguments_become_model_retry_then_the_corrected_call_runs() -> None:
    search = make_search()
    agent = Agent(
        _scripted(HOSTILE_ARGUMENTS, {"query": "retry"}),
        tools=[as_pydantic_ai_tool(preset_function(search))],
    )
    result = await agent.run("How should I retry?")
    first, second = _returns(result.all_messages())
    assert first.outcome == "retried"
    assert first.retry is not None and first.retry.cause == "model_retry"
    assert str(first.content).startswith("Invalid arguments for get_text_search_results")
    assert "filter" in str(first.content)
    assert second.outcome == "success"
    assert KB_LINK in str(second.content) and OTHER_LINK not in str(second.content)
    assert [c.query for c in search.calls] == ["retry"]  # the hostile call never searched
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_a_model_that_keeps_sending_bad_arguments_runs_out_of_retries() -> None:
    search = make_search()
    tool = as_pydantic_ai_tool(preset_function(search))
    agent = Agent(_scripted(*[{"top": 3}] * 5), tools=[tool], retries=2)
    with pytest.raises(UnexpectedModelBehavior):
        await agent.run("retry?")
    assert search.calls == []


@pytest.mark.anyio
async def test_a_provider_error_is_returned_as_text_not_retried() -> None:
    search = make_search(error=QuotaExceededError("monthly quota used"))
    agent = Agent(
        _scripted({"query": "retry"}), tools=[as_pydantic_ai_tool(preset_function(search))]
    )
    result = await agent.run("retry?")
    (returned,) = _returns(result.all_messages())
    assert returned.outcome == "success"
    assert "quota is exhausted" in str(returned.content)
    assert "monthly quota used" not in str(returned.content)


@pytest.mark.anyio
async def test_toolset_from_a_plugin_exposes_every_function() -> None:
    search = make_search()
    plugin = create_search_plugin(
        search,
        functions=[preset_function(search), create_search_function(search, name="plain")],
    )
    toolset = textsearch_toolset(plugin, max_retries=1)
    assert isinstance(toolset, FunctionToolset)
    assert list(toolset.tools) == [NAME, "plain"]
    result = await Agent(_scripted({"query": "backoff", "top": 1})).run(
        "retry?", toolsets=[toolset]
    )
    (returned,) = _returns(result.all_messages())
    assert KB_LINK in str(returned.content)
    assert search.calls[0].options.top == 1
    assert_preset_kept(search)
    assert [t.name for t in as_pydantic_ai_tool(plugin)] == [NAME, "plain"]
    with pytest.raises(ConfigurationError):
        textsearch_toolset(42)  # type: ignore[arg-type]
