"""The ``textsearch`` command line.

::

    textsearch search "query" [--provider local] [--path DIR] [--top N] [--site D] [--json]
        [--format numbered|citations|markdown|labelled|json]
    textsearch index DIR --db FILE
    textsearch tools [--provider P] --format openai|anthropic|mcp [--strict]
    textsearch mcp [--provider P] [--path DIR]      (MCP server over stdio)
    textsearch ground "question" [--provider P] [--path DIR] [--top N] [--full-pages]

Exit codes: 0 on success (including "no results"), 1 when the backend fails,
2 for a usage or configuration error; errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.base import TextSearch, resolve_options
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    TextSearchError,
)

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "textsearch"


def default_index_file(folder: str | os.PathLike[str]) -> Path:
    """The cache file ``textsearch search --path DIR`` keeps DIR's index in."""
    resolved = str(Path(folder).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode()).hexdigest()[:16]
    return _cache_dir() / f"index-{digest}.sqlite3"


# -- providers ----------------------------------------------------------------------------

ProviderBuilder = Callable[[argparse.Namespace], TextSearch]


def _local_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.local import LocalTextSearch

    db = getattr(args, "db", None)
    if db and not getattr(args, "path", None):
        # --db alone searches that index as it is: the current folder is never added to it.
        if not Path(db).is_file():
            raise ConfigurationError(
                f"--db {db!r}: no such index file (build one with: textsearch index DIR --db FILE)"
            )
        return LocalTextSearch(db)
    folder = Path(getattr(args, "path", None) or ".")
    if not folder.exists():
        raise ConfigurationError(f"--path {str(folder)!r}: no such file or folder")
    db_path = Path(db) if db else default_index_file(folder)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        search = LocalTextSearch(db_path)
    except ConfigurationError:
        if db:
            raise  # the user's own file: never delete it
        # Our cache file is disposable: built by another version, or damaged. Rebuild it.
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        search = LocalTextSearch(db_path)
    report = search.index_path(folder)
    if (report.indexed or report.removed) and sys.stderr.isatty():
        print(
            f"indexed {report.indexed} file(s), removed {report.removed}, "
            f"unchanged {report.unchanged} ({folder})",
            file=sys.stderr,
        )
    return search


def _azure_from_args(args: argparse.Namespace) -> TextSearch:
    # Settings come from the environment only; name every missing variable in one line.
    names = ("AZURE_SEARCH_ENDPOINT", "AZURE_SEARCH_INDEX", "AZURE_SEARCH_API_KEY")
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        raise ConfigurationError(
            "--provider azure needs the environment variables "
            + ", ".join(names)
            + "; missing: "
            + ", ".join(missing)
        )
    from textsearch.connectors.azure_ai_search import AzureAISearchTextSearch

    return AzureAISearchTextSearch()


def _env_key(variable: str, provider: str) -> str:
    key = os.environ.get(variable, "").strip()
    if not key:
        raise ConfigurationError(
            f"--provider {provider} needs an API key: set the {variable} environment variable"
        )
    return key


def _bing_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.bing import DEFAULT_ENDPOINT, BingTextSearch

    return BingTextSearch(
        _env_key("BING_SEARCH_API_KEY", "bing"),
        # The public v7 API is retired; a compatible gateway can be set from the environment.
        endpoint=os.environ.get("BING_SEARCH_ENDPOINT") or DEFAULT_ENDPOINT,
        auth_header=os.environ.get("BING_SEARCH_AUTH_HEADER") or "Ocp-Apim-Subscription-Key",
    )


def _bocha_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.bocha import DEFAULT_BASE_URL, BochaTextSearch

    return BochaTextSearch(
        _env_key("BOCHA_API_KEY", "bocha"),
        base_url=os.environ.get("BOCHA_BASE_URL") or DEFAULT_BASE_URL,
    )


#: provider name -> builder from parsed arguments (settings come from flags or the environment)
PROVIDERS: dict[str, ProviderBuilder] = {
    "local": _local_from_args,
    "azure": _azure_from_args,
    "bing": _bing_from_args,
    "bocha": _bocha_from_args,
}

#: search option -> {provider: filter field it maps to}; other providers reject the option
FILTER_OPTIONS: dict[str, dict[str, str]] = {
    "freshness": {"bing": "freshness", "bocha": "freshness"},
    "market": {"bing": "mkt"},
}


def build_provider(args: argparse.Namespace) -> TextSearch:
    """Build the connector named by ``--provider`` from the parsed arguments.

    Raises:
        ConfigurationError: Missing settings (for example an API key) or a bad path.
    """
    name = getattr(args, "provider", "local")
    builder = PROVIDERS.get(name)
    if builder is None:
        raise UsageError(f"unknown provider {name!r} (choose from {', '.join(PROVIDERS)})")
    return builder(args)


def _close(search: TextSearch) -> None:
    close = getattr(search, "close", None)
    if callable(close):
        close()


# -- commands -----------------------------------------------------------------------------


def _search_filter(args: argparse.Namespace) -> TextSearchFilter | None:
    result = TextSearchFilter()
    if args.site:
        result.equal_to("site", args.site)
    provider = getattr(args, "provider", "local")
    for option, fields in FILTER_OPTIONS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        field_name = fields.get(provider)
        if field_name is None:
            supported = ", ".join(sorted(fields)) or "none"
            raise UsageError(
                f"--{option} is not supported by --provider {provider} (supported: {supported})"
            )
        result.equal_to(field_name, value)
    return result or None


def _cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    from textsearch.grounding import format_results

    output_format = _output_format(args)  # a flag conflict is reported before any work
    options = SearchOptions(
        top=args.top, skip=args.skip, include_total_count=True, filter=_search_filter(args)
    )
    # Reject a bad query before any indexing or network work.
    resolve_options(args.query, options, {}, max_top=options.top)
    search = build_provider(args)
    _terminal_highlight(search, out, output_format)
    try:
        results = search.get_text_search_results_sync(args.query, options)
    finally:
        _close(search)
    if output_format == "json":
        payload = {
            "query": args.query,
            "total_count": results.total_count,
            "results": [r.model_dump() for r in results],
        }
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(format_results(results, query=args.query, style=output_format) + "\n")
    return EXIT_OK


def _terminal_highlight(search: TextSearch, out: TextIO, output_format: str) -> None:
    # Matched words in bold for a person at a terminal only: text that a program or a model
    # reads (a pipe, a file, --json) never carries markup. NO_COLOR (no-color.org) opts out.
    if output_format == "json" or os.environ.get("NO_COLOR") or not hasattr(search, "highlight"):
        return
    isatty = getattr(out, "isatty", None)
    if callable(isatty) and isatty():
        search.highlight = ("\x1b[1m", "\x1b[22m")


#: --format choices of ``textsearch search`` (text styles of format_results, and JSON).
SEARCH_FORMATS = ("numbered", "citations", "markdown", "labelled", "json")


def _output_format(args: argparse.Namespace) -> Any:
    chosen = getattr(args, "format", None)
    if getattr(args, "json", False):
        if chosen not in (None, "json"):
            raise UsageError(f"--json and --format {chosen} disagree (--json means --format json)")
        return "json"
    return chosen or "numbered"


def _cmd_ground(args: argparse.Namespace, out: TextIO) -> int:
    from textsearch.grounding import TEMPLATES, Budget, ground_sync

    budget = None
    if args.max_result_chars or args.max_chars:
        budget = Budget(max_result_chars=args.max_result_chars, max_chars=args.max_chars)
    fetch_options = {"allow_private": True} if args.allow_private else None
    search = build_provider(args)
    try:
        grounded = ground_sync(
            search,
            args.query,
            template=TEMPLATES[args.template],
            top=args.top,
            budget=budget,
            fence=not args.no_fence,
            full_pages=args.full_pages,
            fetch_options=fetch_options,
            filter=_search_filter(args),
        )
    finally:
        _close(search)
    if args.json:
        payload = {
            "query": args.query,
            "prompt": grounded.prompt,
            "references": [
                {"number": s.number, "title": s.title, "link": s.link, "date": s.date}
                for s in grounded.sources
            ],
            "truncated": grounded.truncated,
            "dropped": grounded.dropped,
        }
        if grounded.pages is not None:
            payload["pages"] = [
                {"link": p.link, "ok": p.ok, "error": p.error} for p in grounded.pages
            ]
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    out.write(grounded.prompt + "\n")
    if not args.no_references:
        out.write("\nReferences:\n" + (grounded.references or "(none)") + "\n")
    for page in grounded.pages or ():
        if not page.ok:
            print(f"page not used: {page.link}: {page.error}", file=sys.stderr)
    return EXIT_OK


class _Progress:
    """A one-line progress bar on a terminal; silent when stderr is not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.shown = False

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        name = os.path.basename(path)[:30]
        self.stream.write(f"\r[{bar}] {done}/{total} {name:<30}")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _cmd_index(args: argparse.Namespace, out: TextIO) -> int:
    from textsearch.connectors.local import LocalTextSearch

    folder = Path(args.dir)
    if not folder.exists():
        raise ConfigurationError(f"{args.dir!r}: no such file or folder")
    db_path = Path(args.db) if args.db else default_index_file(folder)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    progress = _Progress(sys.stderr)
    with LocalTextSearch(db_path) as search:
        report = search.index_path(folder, progress=progress)
        progress.finish()
        total = search.document_count
    out.write(
        f"indexed {report.indexed} file(s) (added {report.added}, updated {report.updated}), "
        f"unchanged {report.unchanged}, removed {report.removed}, failed {len(report.failed)}; "
        f"{total} document(s) in {db_path}\n"
    )
    for path, reason in report.failed:
        out.write(f"failed: {path}: {reason}\n")
    return EXIT_OK


def _tools_provider(args: argparse.Namespace) -> TextSearch:
    # Tool definitions do not depend on what is indexed: without --path/--db, describe the
    # local tools without indexing the current folder.
    if args.provider == "local" and not args.path and not args.db:
        from textsearch.connectors.local import LocalTextSearch

        return LocalTextSearch()
    return build_provider(args)


def _cmd_tools(args: argparse.Namespace, out: TextIO) -> int:
    from textsearch.plugins import create_search_plugin

    if args.strict and args.format != "openai":
        raise UsageError("--strict applies to --format openai only")
    search = _tools_provider(args)
    try:
        plugin = create_search_plugin(search)
        if args.format == "openai":
            tools = plugin.to_openai_tools(strict=args.strict)
        elif args.format == "anthropic":
            tools = plugin.to_anthropic_tools()
        else:
            tools = plugin.to_mcp_tools()
    finally:
        _close(search)
    out.write(json.dumps(tools, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK


def _cmd_mcp(args: argparse.Namespace, out: TextIO) -> int:
    # stdout carries the MCP protocol only: ``out`` is never written to here, and the
    # local provider reports its indexing on stderr.
    from textsearch.plugins import create_search_plugin
    from textsearch.plugins._mcp import require_mcp

    try:
        require_mcp()
    except ImportError as exc:
        raise ConfigurationError(str(exc)) from None
    search = build_provider(args)
    try:
        create_search_plugin(search, name=args.name).serve_mcp()
    finally:
        _close(search)
    return EXIT_OK


# -- parser -------------------------------------------------------------------------------


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, got {value}")
    return value


def add_provider_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--provider``, ``--path`` and ``--db`` (shared by search, tools and mcp)."""
    parser.add_argument(
        "--provider",
        default="local",
        choices=sorted(PROVIDERS),
        help="backend to use (default: local, the embedded index; no key, no network)",
    )
    parser.add_argument(
        "--path",
        metavar="DIR",
        help="folder indexed by --provider local (default: the current folder)",
    )
    parser.add_argument(
        "--db",
        metavar="FILE",
        help="index file for --provider local (default: a cache file per folder)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``textsearch`` command."""
    parser = _Parser(
        prog="textsearch",
        description="Search text backends from the command line (the embedded index by default).",
    )
    from textsearch import __version__

    parser.add_argument("--version", action="version", version=f"textsearch {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    search = commands.add_parser("search", help="search and print the results")
    search.add_argument("query", help="what to search for")
    add_provider_arguments(search)
    search.add_argument("--top", type=_positive, default=5, help="number of results (default 5)")
    search.add_argument("--skip", type=_non_negative, default=0, help="results to skip (paging)")
    search.add_argument("--site", metavar="DOMAIN", help="only results from this site")
    search.add_argument(
        "--freshness",
        metavar="WHEN",
        help="bing: Day|Week|Month|YYYY-MM-DD[..YYYY-MM-DD]; "
        "bocha: noLimit|oneDay|oneWeek|oneMonth|oneYear|YYYY-MM-DD[..YYYY-MM-DD]",
    )
    search.add_argument("--market", metavar="MKT", help="bing only: market such as en-US")
    search.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    search.add_argument(
        "--format",
        choices=SEARCH_FORMATS,
        help="output: numbered (default), citations, markdown, labelled or json",
    )
    search.set_defaults(handler=_cmd_search)

    grounding = commands.add_parser(
        "ground", help="search and print a ready prompt with numbered sources"
    )
    grounding.add_argument("query", help="the question")
    add_provider_arguments(grounding)
    grounding.add_argument("--top", type=_positive, default=5, help="number of results (default 5)")
    grounding.add_argument("--site", metavar="DOMAIN", help="only results from this site")
    grounding.add_argument(
        "--template",
        choices=("answer", "answer-dates"),
        default="answer",
        help="ready template: answer with citations, or with citations and dates",
    )
    grounding.add_argument(
        "--full-pages", action="store_true", help="download each result's page and use its text"
    )
    grounding.add_argument(
        "--allow-private",
        action="store_true",
        help="with --full-pages: also fetch private/loopback addresses (trusted links only)",
    )
    grounding.add_argument(
        "--max-result-chars", type=_positive, metavar="N", help="most characters per result"
    )
    grounding.add_argument(
        "--max-chars", type=_positive, metavar="N", help="most characters of the whole prompt"
    )
    grounding.add_argument(
        "--no-fence", action="store_true", help="do not fence the results as untrusted data"
    )
    grounding.add_argument("--no-references", action="store_true", help="print only the prompt")
    grounding.add_argument(
        "--json", action="store_true", help="print the prompt and sources as JSON"
    )
    grounding.set_defaults(handler=_cmd_ground)

    index = commands.add_parser("index", help="index a folder into a local index file")
    index.add_argument("dir", help="folder (or file) to index")
    index.add_argument("--db", metavar="FILE", help="index file (default: the search cache file)")
    index.set_defaults(handler=_cmd_index)

    tools = commands.add_parser("tools", help="print the search tool definitions as JSON")
    add_provider_arguments(tools)
    tools.add_argument(
        "--format",
        required=True,
        choices=("openai", "anthropic", "mcp"),
        help="tool format: OpenAI Chat Completions, Anthropic Messages or MCP",
    )
    tools.add_argument(
        "--strict", action="store_true", help="OpenAI strict-mode schema (--format openai)"
    )
    tools.set_defaults(handler=_cmd_tools)

    mcp = commands.add_parser("mcp", help="serve the search tools over MCP (stdio)")
    add_provider_arguments(mcp)
    mcp.add_argument("--name", default="search", help="MCP server name (default: search)")
    mcp.set_defaults(handler=_cmd_mcp)
    return parser


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    stream = out if out is not None else sys.stdout
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handler: Callable[[argparse.Namespace, TextIO], int] = args.handler
        return handler(args, stream)
    except UsageError as exc:
        _fail(f"usage: {exc} (see textsearch --help)")
        return EXIT_USAGE
    except (ConfigurationError, InvalidRequestError) as exc:
        _fail(str(exc))
        return EXIT_USAGE
    except TextSearchError as exc:
        _fail(str(exc))
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except BrokenPipeError:
        # Output piped into a command that stopped reading (e.g. head): not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except Exception as exc:  # last resort: one line, never a traceback
        _fail(f"unexpected {type(exc).__name__}: {exc}")
        return EXIT_FAILURE


def _fail(message: str) -> None:
    first_line = " ".join(str(message).split())
    print(f"textsearch: error: {first_line}", file=sys.stderr)


def _entry() -> Any:  # pragma: no cover - used by python -m textsearch
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    _entry()
