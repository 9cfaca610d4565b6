"""Microsoft Agent Framework: the FunctionTool invoked directly and by an agent's tool loop."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_framework import (
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    FunctionTool,
    Message,
)

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    KB_LINK,
    OTHER_LINK,
    assert_preset_kept,
    make_search,
    preset_function,
)
from textsearch.errors import RateLimitError
from textsearch.integrations.agent_framework import as_agent_framework_tool
from textsearch.plugins import create_search_function, create_search_plugin

NAME = "get_text_search_results"


def _text(contents: list[Content]) -> str:
    return "".join(c.text or "" for c in contents)


def test_tool_declares_the_function_schema_and_needs_no_approval() -> None:
    function = preset_function(make_search())
    tool = as_agent_framework_tool(function)
    assert isinstance(tool, FunctionTool)
    assert tool.name == NAME and tool.description == function.description
    assert tool.parameters() == function.parameters_json_schema
    assert tool.approval_mode == "never_require"


@pytest.mark.anyio
async def test_invoke_searches_with_the_preset_and_clamps_top() -> None:
    search = make_search()
    tool = as_agent_framework_tool(preset_function(search))
    text = _text(await tool.invoke(arguments={"query": "retry", "top": 50}))
    assert KB_LINK in text and OTHER_LINK not in text
    assert search.calls[0].options.top == 10  # max_top, not what the model asked
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_model_mistakes_and_provider_errors_answer_with_text() -> None:
    search = make_search()
    tool = as_agent_framework_tool(preset_function(search))
    text = _text(await tool.invoke(arguments={"query": "   "}))
    assert text.startswith("Invalid arguments for get_text_search_results: query")
    failing = as_agent_framework_tool(preset_function(make_search(error=RateLimitError("429"))))
    text = _text(await failing.invoke(arguments={"query": "retry"}))
    assert text == "The search service is rate limited; retry later."
    assert search.calls == []


class _ScriptedClient(FunctionInvocationLayer[Any], BaseChatClient[Any]):
    """A chat client that asks for one tool call, then answers; it records the tool results."""

    def __init__(self, arguments: dict[str, Any]) -> None:
        super().__init__()
        self.arguments = arguments
        self.results: list[str] = []

    async def _inner_get_response(  # type: ignore[override]
        self, *, messages: list[Message], stream: bool, options: Any, **kwargs: Any
    ) -> ChatResponse[Any]:
        results = [c for m in messages for c in m.contents if c.type == "function_result"]
        if not results:
            call = Content.from_function_call(
                call_id="call_1", name=NAME, arguments=json.dumps(self.arguments)
            )
            return ChatResponse(messages=[Message(role="assistant", contents=[call])])
        self.results = [str(r.result) for r in results]
        return ChatResponse(messages=[Message(role="assistant", contents=["done"])])


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected", "searches"),
    [
        ({"query": "backoff", "top": 2}, KB_LINK, 1),
        # The framework's own argument check refuses what the schema does not declare.
        (HOSTILE_ARGUMENTS, "Argument parsing failed", 0),
        ({"query": "  "}, "Invalid arguments for get_text_search_results", 0),
    ],
)
async def test_agent_tool_loop_runs_the_tool(
    arguments: dict[str, Any], expected: str, searches: int
) -> None:
    search = make_search()
    client = _ScriptedClient(arguments)
    agent = Agent(client=client, tools=[as_agent_framework_tool(preset_function(search))])
    response = await agent.run("How should I retry?")
    assert response.text == "done"
    (result,) = client.results
    assert expected in result
    assert len(search.calls) == searches
    assert_preset_kept(search)


def test_plugin_and_connector_inputs() -> None:
    search = make_search()
    plugin = create_search_plugin(
        search, functions=[preset_function(search), create_search_function(search)]
    )
    assert [t.name for t in as_agent_framework_tool(plugin)] == [NAME, "search"]
    assert as_agent_framework_tool(search).name == "search"
