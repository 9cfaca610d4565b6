"""pydantic-ai: a search function as a ``Tool``, a plugin as a ``FunctionToolset``.

::

    from pydantic_ai import Agent
    from textsearch.integrations.pydantic_ai import textsearch_toolset

    agent = Agent("openai:gpt-5-mini", toolsets=[textsearch_toolset(plugin)])

Needs ``pip install "textsearch-sdk[pydantic-ai]"`` (``pydantic-ai-slim``).
"""

from __future__ import annotations

from typing import Any

from textsearch.integrations._core import require

require("pydantic_ai", extra="pydantic-ai", package="pydantic-ai-slim")

from pydantic_ai import ModelRetry, Tool
from pydantic_ai.toolsets import FunctionToolset

from textsearch.base import TextSearch
from textsearch.integrations._core import ToolAdapter, call, resolve_functions, tool_adapter
from textsearch.plugins import SearchFunction, SearchPlugin

__all__ = ["as_pydantic_ai_tool", "textsearch_toolset"]


def _tool(function: SearchFunction) -> Tool[Any]:
    async def run(**arguments: Any) -> str:
        reply = await call(function, arguments)
        if reply.model_error:
            # pydantic-ai sends this back as a retry prompt and counts it against the tool's
            # max_retries, so a model that keeps sending bad arguments cannot loop forever.
            raise ModelRetry(reply.text)
        return reply.text

    # from_schema: the model sees the function's own schema and its arguments reach the
    # function unvalidated, so the function's validation (bounds clamped, unknown names
    # refused) is the only one and cannot disagree with the schema.
    tool: Tool[Any] = Tool.from_schema(
        run,
        name=function.name,
        description=function.description,
        json_schema=function.parameters_json_schema,
    )
    return tool


as_pydantic_ai_tool: ToolAdapter[Tool[Any]] = tool_adapter(
    _tool,
    name="as_pydantic_ai_tool",
    module=__name__,
    returns=Tool,
    doc="""A search as a pydantic-ai ``Tool`` (``Agent(tools=[...])``), for any deps type.

    Arguments the model got wrong, or that the schema does not declare, raise
    ``ModelRetry`` so that the model calls again (within the tool's ``max_retries``); a failed
    search answers with one short sentence. The preset filter and fixed values cannot be
    changed by the model.
    """,
)


def textsearch_toolset(
    source: SearchPlugin | SearchFunction | TextSearch,
    *,
    max_retries: int | None = None,
) -> FunctionToolset[Any]:
    """A plugin's functions as one pydantic-ai toolset (``Agent(toolsets=[...])``).

    Args:
        source: A ``SearchPlugin`` (every function), a ``SearchFunction`` or a connector.
        max_retries: How many corrected calls each tool allows per run; ``None`` keeps the
            agent's default.

    Returns:
        A ``FunctionToolset`` holding one tool per function.

    Raises:
        ConfigurationError: ``source`` is none of the above.
    """
    tools = [_tool(f) for f in resolve_functions(source)]
    return FunctionToolset[Any](tools, max_retries=max_retries)
