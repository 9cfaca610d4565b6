"""Microsoft Agent Framework: a search function as its function tool (``FunctionTool``).

::

    from agent_framework import Agent
    from textsearch.integrations.agent_framework import as_agent_framework_tool

    agent = Agent(client=client, tools=[as_agent_framework_tool(search_function)])

Needs ``pip install "textsearch-sdk[agent-framework]"`` (``agent-framework-core``; the tool
class is ``FunctionTool`` since 1.x, ``AIFunction`` before).
"""

from __future__ import annotations

from typing import Any

from textsearch.integrations._core import require

require("agent_framework", extra="agent-framework", package="agent-framework-core")

from agent_framework import FunctionTool

from textsearch.integrations._core import ToolAdapter, call, tool_adapter
from textsearch.plugins import SearchFunction

__all__ = ["as_agent_framework_tool"]


def _tool(function: SearchFunction) -> FunctionTool:
    async def run(**arguments: Any) -> str:
        # Agent Framework turns an exception into an opaque "Error: Function failed." unless
        # detailed errors are switched on; the model learns what to fix only from text.
        return (await call(function, arguments)).text

    return FunctionTool(
        name=function.name,
        description=function.description,
        func=run,
        # A JSON schema, not a pydantic model: the framework checks its top level (required,
        # additionalProperties, types) and passes the arguments on as sent, so the function's
        # own validation (bounds clamped, unknown names refused) has the last word.
        input_model=function.parameters_json_schema,
        approval_mode="never_require",
    )


as_agent_framework_tool: ToolAdapter[FunctionTool] = tool_adapter(
    _tool,
    name="as_agent_framework_tool",
    module=__name__,
    returns=FunctionTool,
    doc="""A search as a Microsoft Agent Framework ``FunctionTool`` (``Agent(tools=[...])``).

    The tool's name, description and parameter schema are the search function's; it never
    asks for approval (a search changes nothing). Invalid or undeclared arguments and failed
    searches answer with one short sentence telling the model what to do, since the framework
    hides exception details from the model by default. The preset filter and fixed values
    cannot be changed by the model.
    """,
)
