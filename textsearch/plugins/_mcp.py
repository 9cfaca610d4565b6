"""The MCP server of a plugin, on the official ``mcp`` package (2.x), imported only here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult

    from textsearch.plugins._plugin import SearchPlugin

__all__ = ["build_server", "require_mcp", "serve_stdio"]

#: Oldest ``mcp`` release with the server API used here (handlers given to ``Server(...)``).
MIN_MCP_VERSION = (2, 0)
_INSTALL_HINT = 'pip install "textsearch-sdk[mcp]"'


def require_mcp() -> None:
    """Check that a usable ``mcp`` package is installed.

    Raises:
        ImportError: ``mcp`` is missing or older than 2.0; the message names the extra.
    """
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"the MCP server needs the official mcp package: {_INSTALL_HINT}"
        ) from exc
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("mcp")
    except PackageNotFoundError:  # pragma: no cover - vendored copies have no metadata
        return
    parts: list[int] = []
    for piece in installed.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    if tuple(parts) < MIN_MCP_VERSION:
        raise ImportError(
            f"the MCP server needs mcp >= 2.0, found {installed}: {_INSTALL_HINT} --upgrade"
        )


def build_server(plugin: SearchPlugin) -> Server[Any]:
    """An ``mcp`` low-level server whose tools are the plugin's functions.

    Raises:
        ImportError: ``mcp`` (2.x) is not installed.
    """
    require_mcp()
    import mcp.types as types
    from mcp.server.lowlevel import Server

    from textsearch import __version__

    tools = [types.Tool.model_validate(definition) for definition in plugin.to_mcp_tools()]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> ListToolsResult:
        return types.ListToolsResult(tools=[tool.model_copy(deep=True) for tool in tools])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        outcome = await plugin._run(params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            is_error=outcome.is_error,
        )

    server: Server[Any] = Server(
        plugin.name,
        version=__version__,
        instructions=plugin.description,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    return server


async def serve_stdio(plugin: SearchPlugin) -> None:
    """Serve the plugin over stdin/stdout until the client disconnects.

    Raises:
        ImportError: ``mcp`` (2.x) is not installed.
    """
    server = build_server(plugin)
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
