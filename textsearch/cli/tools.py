"""``textsearch tools --format F``: print the search tool definitions as JSON."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from textsearch.base import TextSearch
from textsearch.cli._common import EXIT_OK, UsageError, close
from textsearch.cli._providers import add_provider_arguments, build_provider

if TYPE_CHECKING:
    from textsearch.plugins import SearchPlugin

#: --format choices: OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, MCP.
TOOL_FORMATS = ("openai", "openai-responses", "anthropic", "mcp")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``tools`` command to the sub-command parsers."""
    tools: argparse.ArgumentParser = commands.add_parser(
        "tools", help="print the search tool definitions as JSON"
    )
    add_provider_arguments(tools)
    tools.add_argument(
        "--format",
        required=True,
        choices=TOOL_FORMATS,
        help="tool format: OpenAI Chat Completions, OpenAI Responses (strict), Anthropic "
        "Messages or MCP",
    )
    tools.add_argument(
        "--strict", action="store_true", help="OpenAI strict-mode schema (--format openai)"
    )
    add_read_arguments(tools)
    tools.set_defaults(handler=run)
    return tools


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch tools``; returns the exit code."""
    if args.strict and args.format != "openai":
        raise UsageError("--strict applies to --format openai only")
    search = _tools_provider(args)
    tools: list[Any]
    try:
        plugin = build_plugin(search, read_tools=args.read_tools, fetch=args.fetch)
        if args.format == "openai":
            tools = plugin.to_openai_tools(strict=args.strict)
        elif args.format == "openai-responses":
            tools = plugin.to_openai_responses_tools()
        elif args.format == "anthropic":
            tools = plugin.to_anthropic_tools()
        else:
            tools = plugin.to_mcp_tools()
    finally:
        close(search)
    out.write(json.dumps(tools, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK


def _tools_provider(args: argparse.Namespace) -> TextSearch:
    # Tool definitions do not depend on what is indexed: without --path/--db, describe the
    # local tools without indexing the current folder.
    if args.provider == "local" and not args.path and not args.db:
        from textsearch.connectors.local import LocalTextSearch

        return LocalTextSearch()
    return build_provider(args)


def add_read_arguments(parser: argparse.ArgumentParser) -> None:
    """``--read-tools`` and ``--fetch``: the tools that read what a search found."""
    parser.add_argument(
        "--read-tools",
        action="store_true",
        help="add the read_document tool: the whole section or document behind a result's "
        "link (for clients that cannot read MCP resources); local and postgres only",
    )
    parser.add_argument(
        "--fetch",
        action="store_true",
        help="add the fetch_page tool: the text of a public web page (bounded size and time; "
        "private and loopback addresses refused)",
    )


def build_plugin(
    search: TextSearch,
    name: str = "search",
    *,
    repeat_guard: bool = True,
    read_tools: bool = False,
    fetch: bool = False,
) -> SearchPlugin:
    """The default plugin, plus the portable web filters the connector honours (site, ...).

    ``repeat_guard``: keep the loop guard of ``create_search_function`` (default
    ``max_repeats``), or turn it off. ``read_tools``/``fetch``: add ``read_document`` and
    ``fetch_page`` (see `create_search_plugin`).
    """
    from textsearch.plugins import (
        create_search_function,
        create_search_plugin,
        default_parameters,
        web_filter_parameters,
    )
    from textsearch.plugins._loop_guard import DEFAULT_MAX_REPEATS

    function = create_search_function(
        search,
        kind="text_search_results",
        name="search",
        parameters=[*default_parameters(), *web_filter_parameters(search)],
        max_repeats=DEFAULT_MAX_REPEATS if repeat_guard else None,
    )
    return create_search_plugin(
        search, name=name, functions=[function], read_tools=read_tools, fetch=fetch
    )
