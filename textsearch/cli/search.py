"""``textsearch search "query"``: search and print the results."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, TextIO

from textsearch._types import SearchOptions
from textsearch.base import TextSearch, resolve_options
from textsearch.cli._common import EXIT_OK, UsageError, close, non_negative
from textsearch.cli._providers import add_search_command, build_provider, search_filter
from textsearch.cli._rerank import add_rank_arguments, rank

#: --format choices of ``textsearch search`` (text styles of format_results, and JSON).
SEARCH_FORMATS = ("numbered", "citations", "markdown", "labelled", "json")


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``search`` command to the sub-command parsers."""
    parser = add_search_command(
        commands, "search", help="search and print the results", query_help="what to search for"
    )
    parser.add_argument("--skip", type=non_negative, default=0, help="results to skip (paging)")
    parser.add_argument("--site", metavar="DOMAIN", help="only results from this site")
    parser.add_argument(
        "--freshness",
        metavar="WHEN",
        help="web providers: day|week|month|year or YYYY-MM-DD..YYYY-MM-DD "
        "(bing and bocha also take their own words)",
    )
    parser.add_argument("--market", metavar="MKT", help="bing only: market such as en-US")
    parser.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    parser.add_argument(
        "--format",
        choices=SEARCH_FORMATS,
        help="output: numbered (default), citations, markdown, labelled or json",
    )
    parser.add_argument(
        "--locale",
        metavar="LANG",
        help="labels of --format labelled: en or zh (default: the query's language, else en)",
    )
    add_rank_arguments(parser)
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch search``; returns the exit code."""
    from textsearch.grounding import format_results

    output_format = _output_format(args)  # a flag conflict is reported before any work
    options = SearchOptions(
        top=args.top, skip=args.skip, include_total_count=True, filter=search_filter(args)
    )
    # Reject a bad query before any indexing or network work.
    resolve_options(args.query, options, {}, max_top=options.top)
    search = build_provider(args)
    try:
        search = rank(search, args)
    except BaseException:
        close(search)
        raise
    terminal_highlight(search, out, output_format)
    try:
        results = search.get_text_search_results_sync(args.query, options)
    finally:
        close(search)
    if output_format == "json":
        payload = {
            "query": args.query,
            "total_count": results.total_count,
            "results": [r.model_dump() for r in results],
        }
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(
            format_results(results, query=args.query, style=output_format, locale=args.locale)
            + "\n"
        )
    return EXIT_OK


def terminal_highlight(search: TextSearch, out: TextIO, output_format: str) -> None:
    """Turn on bold matched words when a person reads ``out`` at a terminal."""
    # Text that a program or a model reads (a pipe, a file, --json) never carries markup.
    # NO_COLOR (no-color.org) opts out.
    if output_format == "json" or os.environ.get("NO_COLOR") or not hasattr(search, "highlight"):
        return
    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        search.highlight = ("\x1b[1m", "\x1b[22m")


def _output_format(args: argparse.Namespace) -> Any:
    chosen = getattr(args, "format", None)
    if getattr(args, "json", False):
        if chosen not in (None, "json"):
            raise UsageError(f"--json and --format {chosen} disagree (--json means --format json)")
        return "json"
    return chosen or "numbered"
