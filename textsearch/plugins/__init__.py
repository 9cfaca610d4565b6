"""The plugin factory: any connector as tools for OpenAI, Anthropic and MCP.

::

    from textsearch import LocalTextSearch
    from textsearch.plugins import create_search_plugin

    plugin = create_search_plugin(LocalTextSearch("kb.sqlite3"))
    tools = plugin.to_openai_tools()        # or to_openai_responses_tools(), to_anthropic_tools()
    text = await plugin.invoke("search", '{"query": "retry policy"}')
    plugin.serve_mcp()                                     # MCP server over stdio

Importing this package imports no provider SDK; ``mcp`` is imported only by the MCP server.
"""

from __future__ import annotations

from textsearch.plugins._function import SearchFunction, create_search_function
from textsearch.plugins._parameters import (
    SearchParameter,
    default_parameters,
    web_filter_parameters,
)
from textsearch.plugins._plugin import SearchPlugin, create_search_plugin
from textsearch.plugins._tool_types import (
    AnthropicSearchResultBlock,
    AnthropicTextBlock,
    AnthropicTool,
    AnthropicToolResult,
    OpenAIChatTool,
    OpenAIFunctionDefinition,
    OpenAIResponsesTool,
)

__all__ = [
    "AnthropicSearchResultBlock",
    "AnthropicTextBlock",
    "AnthropicTool",
    "AnthropicToolResult",
    "OpenAIChatTool",
    "OpenAIFunctionDefinition",
    "OpenAIResponsesTool",
    "SearchFunction",
    "SearchParameter",
    "SearchPlugin",
    "create_search_function",
    "create_search_plugin",
    "default_parameters",
    "web_filter_parameters",
]
