"""The MCP server of a plugin, on the official ``mcp`` package (2.x), imported only here.

What a client gets:

* ``tools/list``: the plugin's functions in the plugin's order (the same list on every call),
  each with its ``inputSchema`` (``additionalProperties: false``), an ``outputSchema`` and
  behaviour hints (``readOnlyHint``; ``openWorldHint`` for web connectors;
  ``idempotentHint`` only where it holds).
* ``tools/call``: the results as text (for every client) and as ``structuredContent``
  matching the ``outputSchema``; any failure, including unknown or invalid arguments, is
  an ``isError`` result whose text says what to do, never a protocol error.
* Resources, when a connector keeps documents (``LocalTextSearch``): the ``resources``
  capability; ``resources/list`` (paginated, 100 a page) lists the documents;
  ``resources/templates/list`` gives ``textsearch://documents/{id}{?start,end}`` (the id or
  the link, percent-encoded); ``resources/read`` of a document's URI reads it whole, of a
  passage link (``...#section``, ``...#L12``) that section only. Results carry
  ``resource_link`` blocks to their passages. A document's link itself (a path, a
  ``file://`` URI) is accepted too. Every one of these paths keeps the functions' preset
  filters: a document no function could return is never listed nor read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.types import (
        CallToolRequestParams,
        CallToolResult,
        ListResourceTemplatesResult,
        ListToolsResult,
        ReadResourceRequestParams,
        ReadResourceResult,
    )

    from textsearch._types import TextSearchFilter
    from textsearch.plugins._plugin import SearchPlugin

__all__ = [
    "DOCUMENT_URI_PREFIX",
    "MAX_RESOURCE_CHARS",
    "build_server",
    "document_uri",
    "require_mcp",
    "serve_stdio",
]

#: Oldest ``mcp`` release with the server API used here (handlers given to ``Server(...)``).
MIN_MCP_VERSION = (2, 0)
_INSTALL_HINT = 'pip install "textsearch-sdk[mcp]"'

#: Resource URIs of documents: this prefix and the percent-encoded id (or link).
DOCUMENT_URI_PREFIX = "textsearch://documents/"
#: Most characters of one resource read; the rest is read with ``?start=``.
MAX_RESOURCE_CHARS = 100_000
_INVALID_PARAMS = -32602
_INTERNAL_ERROR = -32603


class _Document(Protocol):
    id: str
    title: str | None
    text: str
    link: str | None


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


def document_uri(key: str) -> str:
    """The resource URI of a document, by its id or link."""
    return DOCUMENT_URI_PREFIX + quote(key, safe="")


class _GuardedReader:
    """Reads documents of one search, never past the preset filters of its functions.

    A document is readable only if at least one function over this search could return it:
    a function without a preset filter admits every document; otherwise the document must
    satisfy that function's preset filter. A reader that cannot apply a filter is never
    consulted while one applies (closed, not open, when in doubt). The same holds for
    section reads (``get_section``) and listings (``list_documents``): a store without
    them serves neither.
    """

    def __init__(self, search: Any, filters: list[TextSearchFilter | None]) -> None:
        self._read = search.get_document
        self._filters = filters
        self._section = self._optional(search, "get_section")
        self._list = self._optional(search, "list_documents")

    def _optional(self, search: Any, name: str) -> Callable[..., Any] | None:
        method = getattr(search, name, None)
        if not callable(method):
            return None
        if self._filters != [None] and not _accepts_filter(method):
            return None  # it could not keep a preset filter: not served at all
        return cast("Callable[..., Any]", method)

    def _first(self, read: Callable[..., Any], key: str) -> _Document | None:
        for preset in self._filters:
            document = read(key) if preset is None else read(key, filter=preset)
            if document is not None:
                return cast("_Document", document)
        return None

    def __call__(self, key: str) -> _Document | None:
        return self._first(self._read, key)

    def section(self, link: str) -> _Document | None:
        """The section a passage link names, or ``None``."""
        if not callable(self._section) or "#" not in link:
            return None
        return self._first(self._section, link)

    def page(self, after: int, limit: int) -> list[tuple[int, _Document]]:
        """Up to ``limit`` documents after position ``after`` that some preset admits."""
        if not callable(self._list):
            return []
        found: dict[int, _Document] = {}
        for preset in self._filters:
            rows = (
                self._list(after=after, limit=limit)
                if preset is None
                else self._list(filter=preset, after=after, limit=limit)
            )
            for position, document in rows:
                found.setdefault(position, document)
        return sorted(found.items(), key=lambda item: item[0])[:limit]


def _accepts_filter(read: Callable[..., Any]) -> bool:
    import inspect

    try:
        parameters = inspect.signature(read).parameters
    except (TypeError, ValueError):
        return False
    return "filter" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _readers(plugin: SearchPlugin) -> list[_GuardedReader]:
    by_search: dict[int, tuple[Any, list[TextSearchFilter | None]]] = {}
    for function in plugin.functions:
        search = function.text_search
        if not callable(getattr(search, "get_document", None)):
            continue
        _, filters = by_search.setdefault(id(search), (search, []))
        preset = function.filter
        if preset is None:
            filters[:] = [None]  # one unfiltered function: every document is reachable
        elif None not in filters and preset not in filters:
            filters.append(preset)
    readers: list[_GuardedReader] = []
    for search, filters in by_search.values():
        if filters != [None] and not _accepts_filter(search.get_document):
            continue
        readers.append(_GuardedReader(search, filters))
    return readers


def _keys(uri: str) -> tuple[list[str], int, int | None]:
    """Candidate ids/links named by a resource URI, and the character range asked for.

    Raises:
        ValueError: A malformed range.
    """
    start, end = 0, None
    if uri.startswith(DOCUMENT_URI_PREFIX):
        parts = urlsplit(uri)
        key = unquote(uri[len(DOCUMENT_URI_PREFIX) :].split("?", 1)[0])
        query = parse_qs(parts.query)
        try:
            if "start" in query:
                start = int(query["start"][0])
            if "end" in query:
                end = int(query["end"][0])
        except ValueError:
            raise ValueError("start and end must be whole numbers of characters") from None
        if start < 0 or (end is not None and end < start):
            raise ValueError("the range must satisfy 0 <= start <= end")
        return [key], start, end
    keys = [uri]
    if uri.startswith("file://"):
        from urllib.request import url2pathname

        parts = urlsplit(uri)
        path = url2pathname(parts.path)
        keys.append(path + "#" + parts.fragment if parts.fragment else path)
    return keys, start, end


def _read_document(
    readers: Sequence[_GuardedReader], uri: str
) -> tuple[_Document, int, int | None]:
    """The document or section a URI names: a passage link (``...#anchor``) reads its
    section; a document's id or link (or a passage link whose section is gone) the whole
    document."""
    keys, start, end = _keys(uri)
    for reader in readers:
        for key in keys:
            document = reader.section(key) if "#" in key else None
            if document is None:
                document = reader(key)
            if document is not None:
                return document, start, end
    raise LookupError(uri)


#: Documents per ``resources/list`` page.
RESOURCE_PAGE_SIZE = 100


def _list_page(
    readers: Sequence[_GuardedReader], cursor: str | None
) -> tuple[list[_Document], str | None]:
    """One page of the documents every reader may show, and the cursor of the next.

    Raises:
        ValueError: A cursor this server did not give.
    """
    store, after = 0, 0
    if cursor:
        try:
            first, _, second = cursor.partition(":")
            store, after = int(first), int(second)
        except ValueError:
            raise ValueError("unknown cursor") from None
        if not 0 <= store < len(readers) or after < 0:
            raise ValueError("unknown cursor")
    while store < len(readers):
        rows = readers[store].page(after, RESOURCE_PAGE_SIZE)
        if rows:
            following = f"{store}:{rows[-1][0]}" if len(rows) == RESOURCE_PAGE_SIZE else (
                f"{store + 1}:0" if store + 1 < len(readers) else None
            )
            return [document for _, document in rows], following
        store, after = store + 1, 0
    return [], None


def _excerpt(uri: str, document: _Document, start: int, end: int | None) -> str:
    text = document.text or ""
    stop = len(text) if end is None else min(end, len(text))
    stop = min(stop, start + MAX_RESOURCE_CHARS)
    body = text[start:stop]
    if stop < (len(text) if end is None else min(end, len(text))):
        base = uri.split("?", 1)[0]
        body += (
            f"\n\n[truncated: {len(text) - stop} more characters; read {base}?start={stop} "
            "for the rest]"
        )
    return body


def _links(results: Sequence[Any]) -> list[tuple[str, str]]:
    """``(uri, name)`` of each result that names a document: a passage by its link (read
    as its section), else a document by id, else by link."""
    links: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in results:
        link = getattr(item, "link", None)
        passage = isinstance(link, str) and "#" in link
        key = link if passage else (getattr(item, "id", None) or link)
        if not isinstance(key, str) or not key:
            continue
        uri = document_uri(key)
        if uri in seen:
            continue
        seen.add(uri)
        title = getattr(item, "title", None) or getattr(item, "name", None) or key
        links.append((uri, str(title)))
    return links


def build_server(plugin: SearchPlugin) -> Server[Any]:
    """An ``mcp`` low-level server whose tools are the plugin's functions.

    Raises:
        ImportError: ``mcp`` (2.x) is not installed.
    """
    require_mcp()
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    from textsearch import __version__
    from textsearch.errors import TextSearchError
    from textsearch.plugins._output import error_message

    tools = [types.Tool.model_validate(definition) for definition in plugin.to_mcp_tools()]
    readers = _readers(plugin)

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> ListToolsResult:
        return types.ListToolsResult(tools=[tool.model_copy(deep=True) for tool in tools])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        outcome = await plugin._run(params.name, params.arguments)
        content: list[Any] = [types.TextContent(type="text", text=outcome.text)]
        function = plugin[params.name] if params.name in plugin else None
        reads = function is not None and callable(
            getattr(function.text_search, "get_document", None)
        )
        if reads and not outcome.is_error:
            content += [
                types.ResourceLink(type="resource_link", uri=uri, name=name, mime_type="text/plain")
                for uri, name in _links(outcome.results)
            ]
        return types.CallToolResult(
            content=content,
            structured_content=None if outcome.is_error else outcome.structured,
            is_error=outcome.is_error,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        try:
            documents, following = await asyncio.to_thread(_list_page, readers, cursor)
        except ValueError:
            raise MCPError(_INVALID_PARAMS, "Unknown cursor: list again from the start.") from None
        except TextSearchError as exc:
            raise MCPError(_INTERNAL_ERROR, error_message(exc)) from None
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=document_uri(document.id),
                    name=document.title or document.id,
                    mime_type="text/plain",
                )
                for document in documents
            ],
            next_cursor=following,
        )

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=DOCUMENT_URI_PREFIX + "{id}{?start,end}",
                    name="document",
                    description=(
                        "A whole document of the index by its id or link (percent-encoded), "
                        "or the part from character start to end. A passage link "
                        "(link#section) reads that section. Search results link here."
                    ),
                    mime_type="text/plain",
                )
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        uri = str(params.uri)
        try:
            # The reader takes the index's lock and may wait for indexing: not on the loop.
            document, start, end = await asyncio.to_thread(_read_document, readers, uri)
        except ValueError as exc:
            raise MCPError(_INVALID_PARAMS, f"Bad document range in {uri[:200]}: {exc}") from None
        except TextSearchError as exc:  # e.g. the index is still being built
            raise MCPError(_INTERNAL_ERROR, error_message(exc)) from None
        except LookupError:
            raise MCPError(
                _INVALID_PARAMS,
                f"No document {uri[:200]}; use a link from a search result "
                f"({DOCUMENT_URI_PREFIX}<id or link>).",
            ) from None
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(
                    uri=uri, mime_type="text/plain", text=_excerpt(uri, document, start, end)
                )
            ]
        )

    resource_handlers: dict[str, Any] = {}
    if readers:
        resource_handlers = {
            "on_list_resources": list_resources,
            "on_list_resource_templates": list_templates,
            "on_read_resource": read_resource,
        }
    server: Server[Any] = Server(
        plugin.name,
        version=__version__,
        instructions=plugin.description,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        **resource_handlers,
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
