"""LlamaIndex: FunctionTool.call/acall, a FunctionAgent with a mock LLM, and the retriever."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.schema import MetadataMode
from llama_index.core.tools import FunctionTool, ToolOutput
from llama_index.core.tools.calling import acall_tool, call_tool

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    KB_LINK,
    OTHER_LINK,
    PRESET,
    PathRecordingSearch,
    assert_preset_kept,
    make_search,
    preset_function,
    site_parameter_function,
)
from textsearch.errors import ConfigurationError, NotFoundError, RateLimitError
from textsearch.integrations.llama_index import TextSearchRetriever, as_llama_index_tool
from textsearch.plugins import create_search_plugin

NAME = "get_text_search_results"


def test_tool_metadata_is_the_function_schema() -> None:
    function = preset_function(make_search())
    tool = as_llama_index_tool(function)
    assert isinstance(tool, FunctionTool)
    definition = tool.metadata.to_openai_tool()["function"]
    assert definition["name"] == NAME
    assert definition["description"] == function.description
    assert definition["parameters"] == function.parameters_json_schema


def test_call_and_positional_query() -> None:
    search = make_search()
    tool = as_llama_index_tool(preset_function(search))
    output = tool.call(query="retry", top=2)
    assert isinstance(output, ToolOutput)
    assert not output.is_error
    assert KB_LINK in output.content and OTHER_LINK not in output.content
    assert tool("backoff").content == output.content.replace('"retry"', '"backoff"')
    assert [(c.query, c.options.top) for c in search.calls] == [("retry", 2), ("backoff", 5)]
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_acall_with_hostile_arguments_is_an_error_output_and_no_search() -> None:
    search = make_search()
    output = await as_llama_index_tool(preset_function(search)).acall(**HOSTILE_ARGUMENTS)
    assert output.is_error
    assert output.content.startswith("Invalid arguments for get_text_search_results")
    assert "filter" in output.content
    assert search.calls == []


@pytest.mark.anyio
async def test_calling_helpers_keep_the_preset_with_a_declared_site() -> None:
    search = make_search()
    tool = as_llama_index_tool(site_parameter_function(search))
    output = await acall_tool(tool, {"query": "retry", "site": "evil.example"})
    assert not output.is_error and OTHER_LINK not in output.content
    output = call_tool(tool, {"query": "retry", "top": "lots"})
    assert output.is_error and "Invalid arguments" in output.content
    assert len(search.calls) == 1
    assert_preset_kept(search)


def test_provider_error_is_text_marked_as_error() -> None:
    search = make_search(error=NotFoundError("index kb-prod not found"))
    output = as_llama_index_tool(preset_function(search)).call(query="retry")
    assert output.is_error
    assert output.content.startswith("The search index or resource was not found")
    assert "kb-prod" not in output.content


def _scripted(arguments: dict[str, Any], seen: list[str]) -> MockFunctionCallingLLM:
    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        results = [m.content or "" for m in messages if m.role == MessageRole.TOOL]
        if not results:
            call = ToolCallBlock(tool_call_id="call_1", tool_name=NAME, tool_kwargs=arguments)
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])
        seen.extend(results)
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=[TextBlock(text="done")])

    return MockFunctionCallingLLM(response_generator=respond)


# The workflow engine reads deprecated pydantic attributes while collecting its steps.
@pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecationWarning")
@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected", "searches"),
    [
        ({"query": "backoff"}, KB_LINK, 1),
        (HOSTILE_ARGUMENTS, "Invalid arguments for get_text_search_results", 0),
    ],
)
async def test_function_agent_runs_the_tool(
    arguments: dict[str, Any], expected: str, searches: int
) -> None:
    search = make_search()
    seen: list[str] = []
    agent = FunctionAgent(
        tools=[as_llama_index_tool(preset_function(search))], llm=_scripted(arguments, seen)
    )
    response = await agent.run("How should I retry?")
    assert "done" in str(response)
    (result,) = seen
    assert expected in result
    assert len(search.calls) == searches
    assert_preset_kept(search)


def test_plugin_gives_one_tool_per_function() -> None:
    search = make_search()
    plugin = create_search_plugin(search)
    assert [t.metadata.name for t in as_llama_index_tool(plugin)] == ["search"]
    with pytest.raises(ConfigurationError):
        as_llama_index_tool(None)  # type: ignore[call-overload]


def test_retriever_returns_nodes_with_name_and_link() -> None:
    search = make_search()
    retriever = TextSearchRetriever(search, top=3, filter=PRESET)
    (hit,) = retriever.retrieve("retry")
    assert hit.node.get_content() == "Retry with exponential backoff and jitter."
    assert hit.node.metadata == {"name": "Retry guide", "link": KB_LINK}
    assert KB_LINK in hit.node.get_content(metadata_mode=MetadataMode.LLM)
    assert search.calls[0].options.top == 3
    assert retriever.top == 3 and retriever.filter == PRESET
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_retriever_async_and_errors() -> None:
    hits = await TextSearchRetriever(make_search()).aretrieve("retry")
    assert [h.node.metadata["link"] for h in hits] == [KB_LINK, OTHER_LINK]
    with pytest.raises(RateLimitError):
        await TextSearchRetriever(make_search(error=RateLimitError("429"))).aretrieve("retry")
    with pytest.raises(ConfigurationError):
        TextSearchRetriever(make_search(), top=0)


@pytest.mark.anyio
async def test_call_uses_the_blocking_methods_and_acall_the_async_ones() -> None:
    search = PathRecordingSearch()
    tool = as_llama_index_tool(preset_function(search))
    retriever = TextSearchRetriever(search)
    tool.call(query="retry")
    await tool.acall(query="retry")
    retriever.retrieve("retry")
    await retriever.aretrieve("retry")
    assert search.paths == ["sync", "async", "sync", "async"]
