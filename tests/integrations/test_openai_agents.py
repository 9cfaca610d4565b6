"""OpenAI Agents SDK: the strict FunctionTool, invoked directly and run by a Runner."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agents import Agent, FunctionTool, ModelSettings, RunConfig, Runner
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
from agents.models.interface import Model
from agents.strict_schema import ensure_strict_json_schema
from agents.tool_context import ToolContext
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    KB_LINK,
    OTHER_LINK,
    assert_preset_kept,
    make_search,
    preset_function,
)
from textsearch.errors import AuthenticationError
from textsearch.integrations.openai_agents import as_openai_agents_tool
from textsearch.plugins import create_search_function, create_search_plugin

NAME = "get_text_search_results"


def _context(arguments: str) -> ToolContext[Any]:
    return ToolContext(
        context=None, tool_name=NAME, tool_call_id="call_1", tool_arguments=arguments
    )


async def _invoke(tool: FunctionTool, arguments: dict[str, Any]) -> str:
    raw = json.dumps(arguments)
    return str(await tool.on_invoke_tool(_context(raw), raw))


def test_tool_uses_the_strict_schema() -> None:
    function = preset_function(make_search())
    tool = as_openai_agents_tool(function)
    assert isinstance(tool, FunctionTool)
    assert tool.strict_json_schema is True
    assert tool.params_json_schema == function.strict_parameters_json_schema
    # The SDK's own strictness check leaves it unchanged: it was strict already.
    assert ensure_strict_json_schema(dict(tool.params_json_schema)) == tool.params_json_schema


@pytest.mark.anyio
async def test_strict_nulls_mean_defaults_and_the_preset_is_kept() -> None:
    search = make_search()
    tool = as_openai_agents_tool(preset_function(search))
    text = await _invoke(tool, {"query": "retry", "top": None, "skip": None})
    assert KB_LINK in text and OTHER_LINK not in text
    assert search.calls[0].options.top == 5
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_hostile_and_invalid_arguments_answer_with_text_and_do_not_search() -> None:
    search = make_search()
    tool = as_openai_agents_tool(preset_function(search))
    text = await _invoke(tool, HOSTILE_ARGUMENTS)
    assert text.startswith("Invalid arguments for get_text_search_results")
    assert "filter" in text
    text = await tool.on_invoke_tool(_context("{not json"), "{not json")
    assert text.startswith("Invalid arguments for get_text_search_results")
    assert search.calls == []


@pytest.mark.anyio
async def test_provider_error_is_text_without_the_key() -> None:
    search = make_search(error=AuthenticationError("bad key sk-live-999", status_code=401))
    text = await _invoke(as_openai_agents_tool(preset_function(search)), {"query": "retry"})
    assert "credentials" in text and "sk-live" not in text


class _ScriptedModel(Model):
    """Asks for one tool call, then answers with the tool output it was given."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.arguments = arguments
        self.outputs: list[str] = []
        self.tool_names: list[str] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        self.tool_names = [t.name for t in tools]
        items = [] if isinstance(input, str) else input
        outputs = [
            str(item["output"])
            for item in items
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        if not outputs:
            call = ResponseFunctionToolCall(
                arguments=json.dumps(self.arguments),
                call_id="call_1",
                name=NAME,
                type="function_call",
                id="fc_1",
                status="completed",
            )
            return ModelResponse(output=[call], usage=Usage(), response_id=None)
        self.outputs = outputs
        message = ResponseOutputMessage(
            id="msg_1",
            content=[ResponseOutputText(text="done", type="output_text", annotations=[])],
            role="assistant",
            status="completed",
            type="message",
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected", "searches"),
    [
        ({"query": "backoff", "top": 1, "skip": None}, KB_LINK, 1),
        (HOSTILE_ARGUMENTS, "Invalid arguments for get_text_search_results", 0),
    ],
)
async def test_runner_with_a_fake_model_runs_the_tool(
    arguments: dict[str, Any], expected: str, searches: int
) -> None:
    search = make_search()
    model = _ScriptedModel(arguments)
    agent = Agent(
        name="researcher", model=model, tools=[as_openai_agents_tool(preset_function(search))]
    )
    result = await Runner.run(
        agent, "How should I retry?", run_config=RunConfig(tracing_disabled=True)
    )
    assert result.final_output == "done"
    assert model.tool_names == [NAME]
    (output,) = model.outputs
    assert expected in output
    assert len(search.calls) == searches
    assert_preset_kept(search)


def test_plugin_and_connector_inputs() -> None:
    search = make_search()
    plugin = create_search_plugin(
        search, functions=[create_search_function(search), preset_function(search)]
    )
    assert [t.name for t in as_openai_agents_tool(plugin)] == ["search", NAME]
    assert as_openai_agents_tool(search).name == "search"
