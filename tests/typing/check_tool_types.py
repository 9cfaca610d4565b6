"""Type-checked, never run: the tool definitions go where the SDKs expect their own params.

``mypy --strict`` checks this file (it is in ``[tool.mypy] files``); a TypedDict that drifts
from the SDK's param type makes mypy fail. Each function is what a user writes.
"""

from __future__ import annotations

from anthropic import AsyncAnthropic
from anthropic.types import ToolParam, ToolUnionParam
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionToolUnionParam
from openai.types.responses import FunctionToolParam
from openai.types.responses import ToolParam as ResponsesToolParam

from textsearch.plugins import (
    AnthropicTool,
    OpenAIChatTool,
    OpenAIResponsesTool,
    SearchFunction,
    SearchPlugin,
)


def chat_tool(function: SearchFunction) -> ChatCompletionFunctionToolParam:
    return function.to_openai_tool(strict=True)


def chat_tools(plugin: SearchPlugin) -> list[ChatCompletionToolUnionParam]:
    return list(plugin.to_openai_tools())


def responses_tool(function: SearchFunction) -> FunctionToolParam:
    return function.to_openai_responses_tool()


def responses_tools(plugin: SearchPlugin) -> list[ResponsesToolParam]:
    return list(plugin.to_openai_responses_tools())


def anthropic_tool(function: SearchFunction) -> ToolParam:
    return function.to_anthropic_tool()


def anthropic_tools(plugin: SearchPlugin) -> list[ToolUnionParam]:
    return list(plugin.to_anthropic_tools())


def typed_names(
    chat: OpenAIChatTool, responses: OpenAIResponsesTool, anthropic: AnthropicTool
) -> list[str]:
    return [chat["function"]["name"], responses["name"], anthropic["name"]]


async def calls(plugin: SearchPlugin, openai: AsyncOpenAI, claude: AsyncAnthropic) -> None:
    # The calls users make, with the tools passed as they come.
    await openai.chat.completions.create(
        model="gpt-5-mini",
        messages=[{"role": "user", "content": "When is the retry policy applied?"}],
        tools=plugin.to_openai_tools(strict=True),
    )
    await openai.responses.create(
        model="gpt-5-mini",
        input="When is the retry policy applied?",
        tools=plugin.to_openai_responses_tools(),
    )
    await claude.messages.create(
        model="claude-haiku-4-5",
        max_tokens=512,
        messages=[{"role": "user", "content": "When is the retry policy applied?"}],
        tools=plugin.to_anthropic_tools(),
    )
