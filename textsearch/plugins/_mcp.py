"""The MCP server of a plugin, on the official ``mcp`` package (2.x), imported only here.

What a client gets:

* ``tools/list``: the plugin's functions in the plugin's order (the same list on every call),
  each with its ``inputSchema`` (``additionalProperties: false``), an ``outputSchema`` and
  behaviour hints (``readOnlyHint``; ``openWorldHint`` for web connectors;
  ``idempotentHint`` only where it holds).
* ``tools/call``: the results as text (for every client) and as ``structuredContent``
  matching the ``outputSchema``; any failure, including unknown or invalid arguments, is
  an ``isError`` result whose text says what to do, never a protocol error.
* Resources, when a connector keeps documents (``LocalTextSearch``, ``PostgresTextSearch``):
  the ``resources`` capability; ``resources/list`` lists each document as
  ``textsearch://documents/{id}`` in keyed pages (``nextCursor``); reading a document's own
  URI (its id or link, percent-encoded, or the link itself: a path, a ``file://`` URI) gives
  the whole document, reading a passage link (``file#anchor``, ``file#L12``) that passage's
  section. Results carry ``resource_link`` blocks pointing at their section or document.
  Every path goes through `GuardedStore`: a preset filter bounds listing and reads.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import weakref
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from textsearch.plugins._stores import (
    DOCUMENT_URI_PREFIX,
    Document,
    GuardedStore,
    accepts_filter,
    document_uri,
    read_document,
)

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.types import (
        CallToolRequestParams,
        CallToolResult,
        ListResourcesResult,
        ListResourceTemplatesResult,
        ListToolsResult,
        ReadResourceRequestParams,
        ReadResourceResult,
    )

    from textsearch._types import TextSearchFilter
    from textsearch.plugins._tool_types import McpPlugin as SearchPlugin

__all__ = [
    "DOCUMENT_URI_PREFIX",
    "LIST_PAGE_SIZE",
    "MAX_RESOURCE_CHARS",
    "build_server",
    "document_uri",
    "require_mcp",
    "serve_stdio",
]

#: Oldest ``mcp`` release with the server API used here (handlers given to ``Server(...)``).
MIN_MCP_VERSION = (2, 0)
_INSTALL_HINT = 'pip install "textsearch-sdk[mcp]"'

#: Most characters of one resource read; the rest is read with ``?start=``.
MAX_RESOURCE_CHARS = 100_000
_INVALID_PARAMS = -32602
_INTERNAL_ERROR = -32603


#: Documents listed per ``resources/list`` page.
LIST_PAGE_SIZE = 100


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


def _stores(plugin: SearchPlugin) -> list[GuardedStore]:
    by_search: dict[int, tuple[Any, list[TextSearchFilter | None]]] = {}
    for function in plugin.functions:
        search = function.text_search
        if not callable(getattr(search, "get_document", None)):
            continue
        if not getattr(function, "serves_documents", True):  # fetch_page: no stored documents
            continue
        _, filters = by_search.setdefault(id(search), (search, []))
        preset = function.filter
        if preset is None:
            filters[:] = [None]  # one unfiltered function: every document is reachable
        elif None not in filters and preset not in filters:
            filters.append(preset)
    stores: list[GuardedStore] = []
    for search, filters in by_search.values():
        store = GuardedStore(search, filters)
        if filters != [None]:
            if not accepts_filter(search.get_document):
                continue
            # Listing or sections that cannot honour the filter are not offered at all.
            store.lists = store.lists and accepts_filter(search.list_documents)
            store.sections = store.sections and accepts_filter(search.get_section)
        stores.append(store)
    return stores


def _encode_cursor(store: int, after: str) -> str:
    raw = json.dumps([store, after], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode("ascii")


def _decode_cursor(cursor: str | None) -> tuple[int, str | None]:
    """``(store index, last id listed)`` of a ``resources/list`` cursor.

    Raises:
        ValueError: A cursor this server did not give out.
    """
    if cursor is None:
        return 0, None
    try:
        store, after = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, TypeError, UnicodeError):
        raise ValueError("unknown cursor") from None
    if not isinstance(store, int) or isinstance(store, bool) or store < 0:
        raise ValueError("unknown cursor")
    if not isinstance(after, str):
        raise ValueError("unknown cursor")
    return store, after


def _list_page(
    stores: Sequence[GuardedStore], cursor: str | None
) -> tuple[list[Document], str | None]:
    """One page of readable documents and the cursor of the next (``None`` at the end)."""
    index, after = _decode_cursor(cursor)
    listed: list[Document] = []
    while index < len(stores):
        store = stores[index]
        if store.lists:
            page = store.page(after, LIST_PAGE_SIZE - len(listed))
            listed += page
            if len(listed) >= LIST_PAGE_SIZE:
                return listed, _encode_cursor(index, page[-1].id)
        index, after = index + 1, None
    return listed, None


def _excerpt(uri: str, document: Document, start: int, end: int | None) -> str:
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


def _links(results: Sequence[Any], sections: bool) -> list[tuple[str, str]]:
    """``(uri, name)`` of each result that names a document or, with ``sections``, a section.

    A passage (a link with a fragment, under a section) links its section; any other
    result its document, by id, else by link.
    """
    links: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in results:
        link = getattr(item, "link", None)
        section = getattr(item, "section", None)
        if sections and section and isinstance(link, str) and "#" in link:
            key: Any = link
        else:
            key = getattr(item, "id", None) or link
        if not isinstance(key, str) or not key:
            continue
        uri = document_uri(key)
        if uri in seen:
            continue
        seen.add(uri)
        title = getattr(item, "title", None) or getattr(item, "name", None) or key
        if key == link and section and section != title:
            title = f"{title} › {section}"
        links.append((uri, str(title)))
    return links


#: One key per MCP session object, never reused (an ``id()`` may be, once freed).
_SESSION_KEYS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_SESSION_COUNT = itertools.count(1)


def _session_key(ctx: Any) -> Hashable:
    """The loop guard's key for the session a request came in on.

    Over stdio that is the one connection; over stateless HTTP every request is a session
    of its own, so the guard never counts one client's calls against another's.
    """
    session = getattr(ctx, "session", None)
    if session is None:
        return None
    # The ServerSession object is made per request; the connection behind it is the
    # session the client sees. mcp has no public accessor for it: without one, each
    # request counts on its own (the guard then never stops a call, never breaks one).
    session = getattr(session, "_connection", session)
    try:
        key = _SESSION_KEYS.get(session)
        if key is None:
            key = _SESSION_KEYS[session] = next(_SESSION_COUNT)
        return key
    except TypeError:  # not weakly referable: a key for this request alone
        return object()


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
    stores = _stores(plugin)
    by_search = {id(store._search): store for store in stores}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> ListToolsResult:
        return types.ListToolsResult(tools=[tool.model_copy(deep=True) for tool in tools])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult:
        outcome = await plugin._run(params.name, params.arguments, session=_session_key(ctx))
        content: list[Any] = [types.TextContent(type="text", text=outcome.text)]
        function = plugin[params.name] if params.name in plugin else None
        store = by_search.get(id(function.text_search)) if function is not None else None
        if store is not None and not outcome.is_error:
            content += [
                types.ResourceLink(type="resource_link", uri=uri, name=name, mime_type="text/plain")
                for uri, name in _links(outcome.results, store.sections)
            ]
        return types.CallToolResult(
            content=content,
            structured_content=None if outcome.is_error else outcome.structured,
            is_error=outcome.is_error,
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
                        "A whole document of the index by its id or its own link, or one "
                        "section by a result's passage link (file#anchor, file#L12), "
                        "percent-encoded; start and end (characters) read a part. Search "
                        "results link here."
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
            document, start, end = await asyncio.to_thread(read_document, stores, uri)
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

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> ListResourcesResult:
        cursor = params.cursor if params is not None else None
        try:
            documents, next_cursor = await asyncio.to_thread(_list_page, stores, cursor)
        except ValueError:
            raise MCPError(
                _INVALID_PARAMS, "Unknown cursor: pass the nextCursor of the previous page."
            ) from None
        except TextSearchError as exc:  # e.g. the index is still being built
            raise MCPError(_INTERNAL_ERROR, error_message(exc)) from None
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=document_uri(document.id),
                    name=document.title or document.id,
                    description=document.link,
                    mime_type="text/plain",
                )
                for document in documents
            ],
            next_cursor=next_cursor,
        )

    resource_handlers: dict[str, Any] = {}
    if stores:
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
