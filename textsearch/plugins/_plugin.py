"""``SearchPlugin``: a named set of search functions, for tool lists and MCP servers."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textsearch._types import TextSearchFilter
from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError, InvalidRequestError
from textsearch.plugins._function import (
    Outcome,
    SearchFunction,
    check_tool_name,
    create_search_function,
)
from textsearch.plugins._loop_guard import DEFAULT_MAX_REPEATS
from textsearch.plugins._reading import (
    DEFAULT_READ_CHARS,
    FetchPageFunction,
    ReadDocumentFunction,
)
from textsearch.plugins._tool_types import (
    AnthropicTool,
    AnthropicToolResult,
    OpenAIChatTool,
    OpenAIResponsesTool,
)

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

__all__ = ["SearchPlugin", "create_search_plugin"]

_DEFAULT_PLUGIN_DESCRIPTION = (
    "Search tools. Call them to find information you do not have, then cite the results' links."
)


class SearchPlugin:
    """A named, ordered set of `SearchFunction` with unique names.

    Build one with `create_search_plugin`. The plugin name names the MCP server;
    tool names are the function names.

    Args:
        name: Plugin name (``^[a-zA-Z0-9_-]{1,64}$``).
        description: What the plugin offers (the MCP server's instructions).
        functions: The functions, at least one, with distinct names.

    Raises:
        ConfigurationError: Bad name, no functions, a non-function, duplicate names.
    """

    def __init__(self, name: str, description: str, functions: Sequence[SearchFunction]) -> None:
        self.name = check_tool_name(name, "plugin name")
        if not isinstance(description, str) or not description.strip():
            raise ConfigurationError("plugin description must be a non-empty string")
        self.description = description
        if isinstance(functions, (str, bytes, Mapping)) or not isinstance(functions, Sequence):
            raise ConfigurationError("functions must be a list of SearchFunction")
        if not functions:
            raise ConfigurationError("a plugin needs at least one function")
        by_name: dict[str, SearchFunction] = {}
        for function in functions:
            if not isinstance(function, SearchFunction):
                raise ConfigurationError(
                    "functions must be SearchFunction objects (see create_search_function), "
                    f"not {type(function).__name__}"
                )
            if function.name in by_name:
                raise ConfigurationError(
                    f"two functions are named {function.name!r}; give each a distinct name="
                )
            by_name[function.name] = function
        self._functions = by_name

    def __repr__(self) -> str:
        return f"SearchPlugin(name={self.name!r}, functions={list(self._functions)!r})"

    @property
    def functions(self) -> tuple[SearchFunction, ...]:
        """The functions, in order."""
        return tuple(self._functions.values())

    def __iter__(self) -> Iterator[SearchFunction]:
        return iter(self.functions)

    def __len__(self) -> int:
        return len(self._functions)

    def __contains__(self, name: object) -> bool:
        return name in self._functions

    def __getitem__(self, name: str) -> SearchFunction:
        """The function called ``name``.

        Raises:
            KeyError: No function has that name.
        """
        return self._functions[name]

    # -- tool definitions -------------------------------------------------------------

    def to_openai_tools(self, strict: bool = False) -> list[OpenAIChatTool]:
        """All functions as OpenAI Chat Completions tools (``SearchFunction.to_openai_tool``)."""
        return [f.to_openai_tool(strict=strict) for f in self._functions.values()]

    def to_openai_responses_tools(self, strict: bool = True) -> list[OpenAIResponsesTool]:
        """All functions as OpenAI Responses API tools (``to_openai_responses_tool``)."""
        return [f.to_openai_responses_tool(strict=strict) for f in self._functions.values()]

    def to_anthropic_tools(self) -> list[AnthropicTool]:
        """All functions as Anthropic Messages API tools."""
        return [f.to_anthropic_tool() for f in self._functions.values()]

    def to_mcp_tools(self) -> list[dict[str, Any]]:
        """All functions as MCP ``Tool`` definitions (plain JSON)."""
        return [f.to_mcp_tool() for f in self._functions.values()]

    # -- invocation -------------------------------------------------------------------

    def _unknown(self, tool_name: object, raise_errors: bool) -> Outcome:
        message = (
            f"Unknown tool {_shorten(repr(tool_name))}; the available tools are: "
            f"{', '.join(self._functions)}."
        )
        if raise_errors:
            raise InvalidRequestError(message)
        return Outcome(message, True)

    async def _run(
        self,
        tool_name: str,
        arguments: Mapping[str, Any] | str | None,
        *,
        raise_errors: bool = False,
        session: Hashable = None,
    ) -> Outcome:
        function = self._functions.get(tool_name)
        if function is None:
            return self._unknown(tool_name, raise_errors)
        return await function._run(arguments, raise_errors=raise_errors, session=session)

    async def invoke(
        self,
        tool_name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        raise_errors: bool = False,
    ) -> str:
        """Run the function a model called by name; see `SearchFunction.invoke`.

        An unknown tool name gives the model a message listing the available tools.

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: unknown tool or invalid
                arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        return (await self._run(tool_name, arguments, raise_errors=raise_errors)).text

    def invoke_sync(
        self,
        tool_name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        raise_errors: bool = False,
    ) -> str:
        """Blocking twin of `invoke`.

        Raises:
            InvalidRequestError: Only with ``raise_errors=True``: unknown tool or invalid
                arguments.
            TextSearchError: Only with ``raise_errors=True``: the search failed.
        """
        function = self._functions.get(tool_name)
        if function is None:
            return self._unknown(tool_name, raise_errors).text
        return function.invoke_sync(arguments, raise_errors=raise_errors)

    async def anthropic_tool_result(self, tool_use: Any) -> AnthropicToolResult:
        """Answer one Anthropic ``tool_use`` block with a ``tool_result`` Claude cites natively.

        ``tool_use`` is the SDK's ``ToolUseBlock`` (or a mapping with ``id``, ``name`` and
        ``input``). The content is ``search_result`` blocks (see
        [invoke_anthropic][textsearch.plugins.SearchFunction.invoke_anthropic]);
        ``is_error`` is set when the text says what went wrong (an unknown tool too).
        """
        tool_id, name, arguments = _tool_use_parts(tool_use)
        function = self._functions.get(name)
        if function is None:
            outcome = self._unknown(name, False)
        else:
            outcome = await function._run(arguments)
        from textsearch.plugins._anthropic import search_result_blocks

        return {
            "type": "tool_result",
            "tool_use_id": tool_id,
            "content": search_result_blocks(
                name, outcome.text, outcome.is_error, outcome.structured
            ),
            "is_error": outcome.is_error,
        }

    # -- MCP ----------------------------------------------------------------------------

    def create_mcp_server(self) -> Server[Any]:
        """An MCP server (``mcp.server.lowlevel.Server``) exposing the functions as tools.

        Use it to embed the tools in your own MCP transport, or in tests with
        ``mcp.Client(server)``. Tool errors come back with ``isError: true``.

        Raises:
            ImportError: The ``mcp`` package (2.x) is not installed:
                ``pip install "textsearch-sdk[mcp]"``.
        """
        from textsearch.plugins._mcp import build_server

        return build_server(self)

    async def serve_mcp_async(self) -> None:
        """Serve the functions as MCP tools over stdio until the client disconnects.

        Raises:
            ImportError: The ``mcp`` package (2.x) is not installed.
        """
        from textsearch.plugins._mcp import serve_stdio

        await serve_stdio(self)

    def serve_mcp(self) -> None:
        """Serve the functions as MCP tools over stdio (blocking), like ``textsearch mcp``.

        Nothing but MCP messages is written to stdout.

        Raises:
            ImportError: The ``mcp`` package (2.x) is not installed.
        """
        from textsearch.plugins._mcp import require_mcp

        require_mcp()
        import anyio

        anyio.run(self.serve_mcp_async)

    def serve_mcp_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        token: str | None = None,
        max_body_bytes: int = 1_000_000,
        max_concurrency: int = 32,
        header_timeout: float | None = None,
        body_timeout: float | None = None,
        max_connections_per_client: int | None = None,
    ) -> None:
        """Serve the functions over MCP Streamable HTTP at ``http://host:port/mcp`` (blocking).

        Stateless (no session between requests), like ``textsearch mcp --http``. Until
        SIGINT or SIGTERM, then the requests in flight finish. A cross-origin browser request
        is refused (403); with ``token`` every request needs ``Authorization: Bearer
        <token>`` (else 401); larger bodies are 413, more requests at once 503. A connection
        that does not send its headers in time is closed, and one address holds a bounded
        number of connections, so idle or half-sent connections cannot lock clients out.

        Args:
            host: Address to bind; anything but loopback needs ``token``.
            port: TCP port.
            token: The bearer token clients must send (compared in constant time).
            max_body_bytes: Largest request body accepted.
            max_concurrency: Requests handled at once.
            header_timeout: Seconds a connection has to send a request's headers (default
                10).
            body_timeout: Seconds a request has to send its body (default 30).
            max_connections_per_client: Connections one client address may hold (default
                16).

        Raises:
            ImportError: The ``mcp`` package (2.x) is not installed.
            ConfigurationError: No token while ``host`` is not loopback, or a bound below 1.
            OSError: The address cannot be bound.
        """
        from textsearch.plugins._mcp_http import HttpGuardSettings, serve_http

        defaults = HttpGuardSettings()
        settings = HttpGuardSettings(
            token,
            max_body_bytes,
            max_concurrency,
            header_timeout=defaults.header_timeout if header_timeout is None else header_timeout,
            body_timeout=defaults.body_timeout if body_timeout is None else body_timeout,
            max_connections_per_client=(
                defaults.max_connections_per_client
                if max_connections_per_client is None
                else max_connections_per_client
            ),
        )
        serve_http(self, host, port, settings)


def create_search_plugin(
    text_search: TextSearch,
    *,
    name: str = "search",
    description: str | None = None,
    functions: Sequence[SearchFunction] | None = None,
    filter: TextSearchFilter | None = None,
    read_tools: bool = False,
    fetch: bool | Mapping[str, Any] = False,
    max_read_chars: int = DEFAULT_READ_CHARS,
    max_repeats: int | None = DEFAULT_MAX_REPEATS,
) -> SearchPlugin:
    """Turn a connector into a plugin: one line gives a working set of tools.

    Without ``functions`` the plugin has one function, ``search``, of kind
    ``"text_search_results"`` (JSON with a citation number, title, text and link per
    result, so the model can cite its sources) and the default parameters
    ``query``/``top``/``skip``.

    Args:
        text_search: The connector searched by the default function (and read by the read
            tools).
        name: Plugin name; also the name of its MCP server.
        description: What the plugin offers; a default otherwise.
        functions: The functions to expose instead of the default one (made with
            [create_search_function][textsearch.plugins.create_search_function], possibly
            over other connectors).
        filter: Preset filter of every function the plugin makes (the default ``search``
            and the read tools): hidden from the model, impossible to remove or widen.
            Without it, the read tools take the preset shared by the ``functions`` over
            ``text_search``.
        read_tools: Add ``read_document(link, start=0)``: the section a result's link
            points at, or the whole document for its link without the fragment (or its id),
            at most ``max_read_chars`` characters a call. Needs a connector that reads
            documents (``get_document``: the local index, PostgreSQL, Chroma, Qdrant and
            Milvus). A link outside the preset filter is refused with no content.
        fetch: Add ``fetch_page(url)``, backed by the guarded fetcher
            ([fetch_pages][textsearch.grounding.fetch_pages]): public addresses only,
            bounded size and time. ``True``, or a mapping of ``fetch_pages`` options
            (``timeout``, ``max_bytes``, ``allow_networks``, ``http_client``...). Under a
            preset filter (``equal_to`` on ``site`` or ``link`` only) a URL, and where its
            redirects end, must satisfy it.
        max_read_chars: Most characters of one ``read_document`` or ``fetch_page`` answer.
        max_repeats: Loop guard of the default function (see
            [create_search_function][textsearch.plugins.create_search_function]); ``None``
            turns it off. Functions passed in ``functions`` keep their own setting.

    Raises:
        ConfigurationError: Not a ``TextSearch``, bad plugin name, duplicate function
            names, an empty list of functions, a filter that is not a
            ``TextSearchFilter``, ``read_tools`` on a connector that cannot read documents,
            functions over ``text_search`` with different presets and no ``filter``, or a
            preset filter ``fetch_page`` cannot check on a URL.
    """
    if filter is not None and not isinstance(filter, TextSearchFilter):
        raise ConfigurationError(f"filter must be a TextSearchFilter, not {type(filter).__name__}")
    if functions is None:
        functions = [
            create_search_function(
                text_search,
                kind="text_search_results",
                name="search",
                filter=filter,
                max_repeats=max_repeats,
            )
        ]
    elif not isinstance(text_search, TextSearch):
        raise ConfigurationError(
            f"text_search must implement the TextSearch protocol, got {type(text_search).__name__}"
        )
    summary = description if description is not None else _DEFAULT_PLUGIN_DESCRIPTION
    if not (read_tools or fetch):
        return SearchPlugin(name, summary, functions)
    tools = list(SearchPlugin(name, summary, functions).functions)  # checks them first
    preset = filter if filter is not None else _shared_preset(text_search, tools)
    if read_tools:
        tools.append(ReadDocumentFunction(text_search, filter=preset, max_chars=max_read_chars))
    if fetch:
        options = fetch if isinstance(fetch, Mapping) else None
        tools.append(
            FetchPageFunction(text_search, filter=preset, options=options, max_chars=max_read_chars)
        )
    return SearchPlugin(name, summary, tools)


def _shared_preset(
    text_search: TextSearch, functions: Sequence[SearchFunction]
) -> TextSearchFilter | None:
    """The preset the read tools inherit from the functions over ``text_search``.

    None when one of them has none (it could return any document anyway) or when none is
    over it; the one preset they share; several different ones are ambiguous.

    Raises:
        ConfigurationError: The functions over ``text_search`` have different presets.
    """
    presets: list[TextSearchFilter] = []
    for function in functions:
        if not isinstance(function, SearchFunction) or function.text_search is not text_search:
            continue
        preset = function.filter
        if preset is None:
            return None
        if preset not in presets:
            presets.append(preset)
    if len(presets) > 1:
        raise ConfigurationError(
            "the functions over this connector have different preset filters; pass filter= "
            "to say which one the read tools keep"
        )
    return presets[0] if presets else None


def _tool_use_parts(tool_use: Any) -> tuple[str, str, Any]:
    if isinstance(tool_use, Mapping):
        get = tool_use.get
        return str(get("id", "")), str(get("name", "")), get("input")
    return (
        str(getattr(tool_use, "id", "")),
        str(getattr(tool_use, "name", "")),
        getattr(tool_use, "input", None),
    )


def _shorten(text: str, limit: int = 80) -> str:
    # A name comes from the model and may be arbitrarily long; echo only a bounded prefix.
    return text if len(text) <= limit else text[: limit - 1] + "…"
