"""``textsearch mcp``: serve the search tools over MCP (stdio, or Streamable HTTP).

Over stdio, stdout carries the MCP protocol only: nothing else is ever written to it here,
and the local provider reports its indexing on stderr. ``--http HOST:PORT`` serves the same
server at ``http://HOST:PORT/mcp`` (stateless); a bearer token (``--token`` or
``TEXTSEARCH_MCP_TOKEN``) is required unless HOST is loopback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from textsearch.base import TextSearch
from textsearch.cli._common import EXIT_OK, UsageError, close
from textsearch.cli._providers import add_provider_arguments, build_provider, local_from_args
from textsearch.cli._rerank import add_rank_arguments, apply_mode, with_reranker
from textsearch.cli.tools import add_read_arguments, build_plugin
from textsearch.errors import ConfigurationError


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``mcp`` command to the sub-command parsers."""
    mcp: argparse.ArgumentParser = commands.add_parser(
        "mcp", help="serve the search tools over MCP (stdio, or Streamable HTTP with --http)"
    )
    add_provider_arguments(mcp, cache=True)
    mcp.add_argument("--name", default="search", help="MCP server name (default: search)")
    mcp.add_argument(
        "--index-wait",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="--provider local: how long a search waits for the background indexing before "
        "answering how far it got (default 20)",
    )
    mcp.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio "
        "(IPv6: [::1]:8000); HOST other than loopback needs a token",
    )
    mcp.add_argument(
        "--token",
        help="--http: the bearer token clients must send (default: $TEXTSEARCH_MCP_TOKEN); "
        "prefer the variable, a command line is visible to other users",
    )
    mcp.add_argument(
        "--no-repeat-guard",
        action="store_true",
        help="answer every call, also the third identical one in a row of a session (by "
        "default it is told to use the results it has)",
    )
    add_read_arguments(mcp)
    add_rank_arguments(mcp)
    mcp.set_defaults(handler=run)
    return mcp


def parse_address(value: str) -> tuple[str, int]:
    """``(host, port)`` of ``HOST:PORT`` (``[v6]:PORT`` for IPv6).

    Raises:
        UsageError: Not of that form, or a port outside 1-65535.
    """
    host, sep, port = value.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if (
        not sep
        or not host
        or not port.isdigit()
        or not 0 < int(port) < 65536
        or (":" in host and not value.strip().startswith("["))
    ):
        raise UsageError(f"--http takes HOST:PORT (e.g. 127.0.0.1:8000), got {value[:100]!r}")
    return host, int(port)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch mcp`` until the client closes the connection; returns the exit code."""
    from textsearch.plugins._mcp import require_mcp

    try:
        require_mcp()
    except ImportError as exc:
        raise ConfigurationError(str(exc)) from None
    if getattr(args, "http", None):
        from textsearch.plugins._mcp_http import is_loopback

        host, port = parse_address(args.http)
        args.http_address = (host, port)
        args.token = args.token or os.environ.get("TEXTSEARCH_MCP_TOKEN") or None
        if not args.token and not is_loopback(host):
            # Refused before anything is indexed or bound.
            raise ConfigurationError(
                f"--http {host}:{port} is not loopback: a bearer token is required "
                "(--token or TEXTSEARCH_MCP_TOKEN)"
            )
    elif getattr(args, "token", None):
        raise UsageError("--token is for --http")
    # A server lives for hours: aiohttp's import cost is paid once, and every web search
    # then costs less CPU (#15). Chosen for this run only, unless the user named a
    # transport (TEXTSEARCH_TRANSPORT); the environment is never written.
    import contextlib
    import importlib.util

    from textsearch._http._transports._httpx import default_transport

    fast = importlib.util.find_spec("aiohttp") is not None
    with default_transport("aiohttp") if fast else contextlib.nullcontext():
        return serve(args)


def serve(args: argparse.Namespace) -> int:
    """Build the search named by the arguments and serve it over stdio."""
    indexing = None
    if args.provider == "local":
        # Answer `initialize` at once: the folder is indexed in the background, with
        # progress lines on stderr, and searches wait for it (or say how far it got).
        from textsearch.plugins._indexing import IndexingTextSearch

        local = local_from_args(args, index=False)
        apply_mode(local, args.mode)
        search: TextSearch = local
        if args.path or not args.db:  # --db alone serves that index as it is
            folder = Path(args.path or ".")
            indexing = IndexingTextSearch(local, folder, wait=args.index_wait, stream=sys.stderr)
            search = indexing
    else:
        search = build_provider(args)
        apply_mode(search, args.mode)
    search = with_reranker(search, args)
    try:
        guard = not getattr(args, "no_repeat_guard", False)
        plugin = build_plugin(
            search,
            name=args.name,
            repeat_guard=guard,
            read_tools=args.read_tools,
            fetch=args.fetch,
        )
        if indexing is not None:
            indexing.start()
        address = getattr(args, "http_address", None)
        if address is not None:
            print(f"textsearch: serving MCP at http://{args.http}/mcp", file=sys.stderr)
            plugin.serve_mcp_http(address[0], address[1], token=args.token)
        else:
            plugin.serve_mcp()
    finally:
        close(search)
    return EXIT_OK
