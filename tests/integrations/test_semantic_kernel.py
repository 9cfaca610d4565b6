"""Semantic Kernel: the KernelPlugin through kernel.invoke and the automatic function-call path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from semantic_kernel import Kernel
from semantic_kernel.connectors.ai.function_calling_utils import (
    kernel_function_metadata_to_function_call_format,
)
from semantic_kernel.contents import ChatHistory, FunctionCallContent, FunctionResultContent
from semantic_kernel.functions import KernelPlugin

from tests.integrations._support import (
    HOSTILE_ARGUMENTS,
    KB_LINK,
    OTHER_LINK,
    assert_preset_kept,
    make_search,
    preset_function,
)
from textsearch.errors import ConfigurationError, SearchTimeoutError
from textsearch.integrations.semantic_kernel import as_kernel_plugin
from textsearch.plugins import create_search_function, create_search_plugin

NAME = "get_text_search_results"


def _kernel(plugin: KernelPlugin) -> Kernel:
    kernel = Kernel()
    kernel.add_plugin(plugin)
    return kernel


def test_plugin_functions_carry_the_function_schema() -> None:
    search = make_search()
    function = preset_function(search)
    plugin = as_kernel_plugin(create_search_plugin(search, name="kb", functions=[function]))
    assert plugin.name == "kb"
    definition = kernel_function_metadata_to_function_call_format(plugin[NAME].metadata)
    assert definition["function"]["name"] == f"kb-{NAME}"
    parameters = definition["function"]["parameters"]
    assert parameters["properties"] == function.parameters_json_schema["properties"]
    assert parameters["required"] == ["query"]


@pytest.mark.anyio
async def test_kernel_invoke_keeps_the_preset_and_drops_undeclared_arguments() -> None:
    search = make_search()
    kernel = _kernel(as_kernel_plugin(preset_function(search)))
    result = await kernel.invoke(plugin_name="search", function_name=NAME, query="retry", top=1)
    assert result is not None
    assert KB_LINK in str(result.value) and OTHER_LINK not in str(result.value)
    result = await kernel.invoke(
        plugin_name="search", function_name=NAME, query="retry", filter="x", site="evil.example"
    )
    assert result is not None and OTHER_LINK not in str(result.value)
    assert [c.options.top for c in search.calls] == [1, 5]
    assert_preset_kept(search)


async def _auto_call(kernel: Kernel, arguments: dict[str, Any]) -> str:
    """What Semantic Kernel does with a model's tool call in automatic function calling."""
    history = ChatHistory()
    call = FunctionCallContent(id="call_1", name=f"search-{NAME}", arguments=json.dumps(arguments))
    await kernel.invoke_function_call(function_call=call, chat_history=history)
    (message,) = history.messages
    (result,) = [i for i in message.items if isinstance(i, FunctionResultContent)]
    return str(result.result)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected", "searches"),
    [
        ({"query": "backoff"}, KB_LINK, 1),
        (HOSTILE_ARGUMENTS, "Received unexpected argument(s): ['filter', 'site']", 0),
        ({"query": "retry", "top": "many"}, "Invalid arguments for get_text_search_results", 0),
    ],
)
async def test_automatic_function_calling_path(
    arguments: dict[str, Any], expected: str, searches: int
) -> None:
    search = make_search()
    kernel = _kernel(as_kernel_plugin(preset_function(search)))
    assert expected in await _auto_call(kernel, arguments)
    assert len(search.calls) == searches
    assert_preset_kept(search)


@pytest.mark.anyio
async def test_provider_error_is_text() -> None:
    search = make_search(error=SearchTimeoutError("timed out after 10 s"))
    kernel = _kernel(as_kernel_plugin(preset_function(search)))
    text = await _auto_call(kernel, {"query": "retry"})
    assert text == "The search service did not answer in time; retry later or with a simpler query."


def test_names_and_inputs() -> None:
    search = make_search()
    plugin = as_kernel_plugin(
        create_search_plugin(
            search,
            functions=[create_search_function(search), preset_function(search)],
            description="Team knowledge base.",
        )
    )
    assert plugin.name == "search" and plugin.description == "Team knowledge base."
    assert sorted(plugin.functions) == sorted(["search", NAME])
    assert as_kernel_plugin(search, name="web").name == "web"
    with pytest.raises(ConfigurationError, match="letters, digits or '_'"):
        as_kernel_plugin(search, name="my-search")
    with pytest.raises(ConfigurationError):
        as_kernel_plugin([search])  # type: ignore[arg-type]
