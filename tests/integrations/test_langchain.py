"""LangChain: the tool via invoke/ainvoke with ToolCalls and a fake chat model; the retriever."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

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
from textsearch import TextSearchFilter
from textsearch.errors import ConfigurationError, RateLimitError, ServiceUnavailableError
from textsearch.integrations.langchain import TextSearchRetriever, as_langchain_tool
from textsearch.plugins import create_search_function, create_search_plugin


def _call(args: dict[str, Any], name: str = "get_text_search_results") -> dict[str, Any]:
    return {"name": name, "args": args, "id": "call_1", "type": "tool_call"}


def test_tool_carries_the_function_schema_to_the_model() -> None:
    function = preset_function(make_search())
    tool = as_langchain_tool(function)
    assert isinstance(tool, BaseTool)
    assert tool.name == function.name
    assert tool.description == function.description
    definition = convert_to_openai_tool(tool)["function"]
    assert definition["parameters"] == function.parameters_json_schema
    assert "filter" not in str(definition)  # the preset is invisible


def test_tool_call_through_a_fake_chat_model_searches_with_the_preset() -> None:
    search = make_search()
    tool = as_langchain_tool(preset_function(search))
    model = GenericFakeChatModel(
        messages=iter([AIMessage(content="", tool_calls=[_call({"query": "retry", "top": 3})])])
    )
    ai = model.invoke("How should I retry?")
    assert isinstance(ai, AIMessage)
    message = tool.invoke(ai.tool_calls[0])
    assert isinstance(message, ToolMessage)
    assert message.status == "success"
    assert message.tool_call_id == "call_1"
    assert KB_LINK in message.content
    assert OTHER_LINK not in message.content
    assert [c.query for c in search.calls] == ["retry"]
    assert search.calls[0].options.top == 3
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_ainvoke_searches_with_the_preset() -> None:
    search = make_search()
    tool = as_langchain_tool(preset_function(search))
    message = await tool.ainvoke(_call({"query": "retry"}))
    assert isinstance(message, ToolMessage)
    assert KB_LINK in message.content
    assert OTHER_LINK not in message.content
    assert_preset_kept(search)


@pytest.mark.parametrize("run", ["sync", "async"])
@pytest.mark.anyio
async def test_undeclared_filter_arguments_are_a_tool_error_and_never_reach_the_search(
    run: str,
) -> None:
    search = make_search()
    tool = as_langchain_tool(preset_function(search))
    call = _call(HOSTILE_ARGUMENTS)
    message = tool.invoke(call) if run == "sync" else await tool.ainvoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"  # LangChain's ToolException path: the model corrects it
    assert message.content.startswith("Invalid arguments for get_text_search_results")
    assert "filter" in message.content
    assert search.calls == []


def test_a_declared_site_parameter_only_narrows_the_preset() -> None:
    search = make_search()
    tool = as_langchain_tool(site_parameter_function(search))
    message = tool.invoke(_call({"query": "retry", "site": "evil.example"}))
    assert isinstance(message, ToolMessage)
    assert OTHER_LINK not in message.content
    assert '"results":[]' in message.content
    assert_preset_kept(search)
    clauses = list(search.calls[0].options.filter or ())
    assert len(clauses) == 2


@pytest.mark.parametrize("args", [{"top": 3}, {"query": "retry", "top": "many"}, {"query": "   "}])
def test_invalid_arguments_are_a_tool_error_naming_the_problem(args: dict[str, Any]) -> None:
    search = make_search()
    message = as_langchain_tool(preset_function(search)).invoke(_call(args))
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert message.content.startswith("Invalid arguments for get_text_search_results")
    assert search.calls == []


def test_a_provider_error_is_short_text_without_traceback_or_key() -> None:
    search = make_search(error=RateLimitError("slow down sk-secret-123", retry_after=7))
    message = as_langchain_tool(preset_function(search)).invoke(_call({"query": "retry"}))
    assert isinstance(message, ToolMessage)
    assert "rate limited" in message.content and "7" in message.content
    assert "Traceback" not in message.content
    assert "sk-secret" not in message.content


def test_a_connector_error_outside_the_tree_is_still_text() -> None:
    search = make_search(error=ServiceUnavailableError("upstream 503"))
    text = as_langchain_tool(preset_function(search)).invoke({"query": "retry"})
    assert text == "The search service is unavailable right now; retry later."


def test_plugin_gives_one_tool_per_function_and_connector_gives_search() -> None:
    search = make_search()
    plugin = create_search_plugin(
        search,
        functions=[
            create_search_function(search),
            create_search_function(search, kind="text_search_results", name="cite"),
        ],
    )
    tools = as_langchain_tool(plugin)
    assert [t.name for t in tools] == ["search", "cite"]
    assert as_langchain_tool(search).name == "search"
    with pytest.raises(ConfigurationError):
        as_langchain_tool("not a search")  # type: ignore[call-overload]


def test_retriever_returns_documents_with_name_and_link() -> None:
    search = make_search()
    retriever = TextSearchRetriever(search, top=2, filter=PRESET)
    documents = retriever.invoke("retry backoff")
    assert documents == [
        Document(
            page_content="Retry with exponential backoff and jitter.",
            metadata={"name": "Retry guide", "link": KB_LINK, "source": KB_LINK},
        )
    ]
    assert search.calls[0].options.top == 2
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_retriever_async_and_errors_raised_for_the_developer() -> None:
    search = make_search()
    documents = await TextSearchRetriever(search).ainvoke("retry")
    assert [d.metadata["link"] for d in documents] == [KB_LINK, OTHER_LINK]
    failing = TextSearchRetriever(make_search(error=RateLimitError("429")))
    with pytest.raises(RateLimitError):
        await failing.ainvoke("retry")


def test_retriever_filter_is_copied_and_options_checked() -> None:
    search = make_search()
    mutable = TextSearchFilter().equal_to("site", "kb.example")
    retriever = TextSearchRetriever(search, filter=mutable)
    mutable.equal_to("site", "evil.example")
    retriever.invoke("retry")
    assert search.calls[0].options.filter == PRESET
    with pytest.raises(ConfigurationError):
        TextSearchRetriever(search, top=0)
    with pytest.raises(ConfigurationError):
        TextSearchRetriever(object())  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_invoke_uses_the_blocking_methods_and_ainvoke_the_async_ones() -> None:
    search = PathRecordingSearch()
    tool = as_langchain_tool(preset_function(search))
    retriever = TextSearchRetriever(search)
    tool.invoke(_call({"query": "retry"}))
    await tool.ainvoke(_call({"query": "retry"}))
    retriever.invoke("retry")
    await retriever.ainvoke("retry")
    assert search.paths == ["sync", "async", "sync", "async"]
