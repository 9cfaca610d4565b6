"""OpenAI Agents SDK: a search function as a strict ``FunctionTool``.

::

    from agents import Agent
    from textsearch.integrations.openai_agents import as_openai_agents_tool

    agent = Agent(name="researcher", tools=[as_openai_agents_tool(search_function)])

Needs ``pip install "textsearch-sdk[openai-agents]"``.
"""

from __future__ import annotations

from typing import Any

from textsearch.integrations._core import require

require("agents", extra="openai-agents", package="openai-agents")

from agents import FunctionTool
from agents.tool_context import ToolContext

from textsearch.integrations._core import ToolAdapter, call, tool_adapter
from textsearch.plugins import SearchFunction

__all__ = ["as_openai_agents_tool"]


def _tool(function: SearchFunction) -> FunctionTool:
    async def on_invoke_tool(context: ToolContext[Any], arguments: str) -> str:
        # The SDK has no retry exception: an exception raised here ends the run, while a
        # string goes back to the model. Every reply, the corrective ones included, is text.
        return (await call(function, arguments)).text

    return FunctionTool(
        name=function.name,
        description=function.description,
        params_json_schema=function.strict_parameters_json_schema,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=True,
    )


as_openai_agents_tool: ToolAdapter[FunctionTool] = tool_adapter(
    _tool,
    name="as_openai_agents_tool",
    module=__name__,
    returns=FunctionTool,
    doc="""A search as an OpenAI Agents SDK ``FunctionTool`` in strict mode.

    The parameters are the function's strict schema (every property required, optional ones
    nullable, where ``null`` means the default), so the model's arguments always parse.
    Arguments the schema does not declare, or that are invalid, and failed searches, all
    answer with one short sentence for the model (the SDK ends the run on an exception). The
    preset filter and fixed values cannot be changed by the model.
    """,
)
