"""The ``textsearch`` command line.

::

    textsearch search "query" [--provider local] [--path DIR] [--top N] [--site D] [--json]
        [--format numbered|citations|markdown|labelled|json]
    textsearch index DIR [--db FILE | --provider postgres]
    textsearch tools [--provider P] --format openai|anthropic|mcp [--strict]
    textsearch mcp [--provider P] [--path DIR] [--http HOST:PORT --token T]  (MCP server)
    textsearch ground "question" [--provider P] [--path DIR] [--top N] [--full-pages]

``--provider a,b`` falls back from ``a`` to ``b``; ``--fuse`` fuses them instead; ``--cache``
answers repeated searches from memory (on by default for ``mcp``).

Exit codes: 0 on success (including "no results"), 1 when the backend fails,
2 for a usage or configuration error; errors are one line on stderr, never a traceback.
``-v``/``--verbose`` (before or after the command) logs at DEBUG level on stderr, keys masked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.base import TextSearch, resolve_options
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    TextSearchError,
)

if TYPE_CHECKING:
    from textsearch.plugins import SearchPlugin

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


def _local_from_args(args: argparse.Namespace, *, index: bool = True) -> TextSearch:
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
    if not index:
        return search
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
    from textsearch.connectors.web.bing import DEFAULT_ENDPOINT, BingTextSearch

    return BingTextSearch(
        _env_key("BING_SEARCH_API_KEY", "bing"),
        # The public v7 API is retired; a compatible gateway can be set from the environment.
        endpoint=os.environ.get("BING_SEARCH_ENDPOINT") or DEFAULT_ENDPOINT,
        auth_header=os.environ.get("BING_SEARCH_AUTH_HEADER") or "Ocp-Apim-Subscription-Key",
    )


def _bocha_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.web.bocha import DEFAULT_BASE_URL, BochaTextSearch

    return BochaTextSearch(
        _env_key("BOCHA_API_KEY", "bocha"),
        base_url=os.environ.get("BOCHA_BASE_URL") or DEFAULT_BASE_URL,
    )


def _brave_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.web.brave import DEFAULT_ENDPOINT, BraveTextSearch

    return BraveTextSearch(
        _env_key("BRAVE_SEARCH_API_KEY", "brave"),
        endpoint=os.environ.get("BRAVE_SEARCH_ENDPOINT") or DEFAULT_ENDPOINT,
    )


def _tavily_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.web.tavily import DEFAULT_BASE_URL, TavilyTextSearch

    return TavilyTextSearch(
        _env_key("TAVILY_API_KEY", "tavily"),
        base_url=os.environ.get("TAVILY_BASE_URL") or DEFAULT_BASE_URL,
    )


def _exa_from_args(args: argparse.Namespace) -> TextSearch:
    from textsearch.connectors.web.exa import DEFAULT_BASE_URL, ExaTextSearch

    return ExaTextSearch(
        _env_key("EXA_API_KEY", "exa"),
        base_url=os.environ.get("EXA_BASE_URL") or DEFAULT_BASE_URL,
    )


def _searxng_from_args(args: argparse.Namespace) -> TextSearch:
    url = os.environ.get("SEARXNG_URL", "").strip()
    if not url:
        raise ConfigurationError(
            "--provider searxng needs the URL of a SearXNG instance: set the SEARXNG_URL "
            "environment variable"
        )
    from textsearch.connectors.web.searxng import SearxngTextSearch

    return SearxngTextSearch(url)
def _postgres_from_args(args: argparse.Namespace) -> Any:
    # The DSN comes from TEXTSEARCH_POSTGRES_DSN (or libpq's PG* variables), never a flag:
    # a password on the command line would show in the process list and shell history.
    try:
        from textsearch.connectors.postgres import PostgresTextSearch
    except ImportError as exc:
        raise ConfigurationError(str(exc)) from None
    table = os.environ.get("TEXTSEARCH_POSTGRES_TABLE") or "textsearch_documents"
    return PostgresTextSearch(table=table)


#: provider name -> builder from parsed arguments (settings come from flags or the environment)
PROVIDERS: dict[str, ProviderBuilder] = {
    "local": _local_from_args,
    "azure": _azure_from_args,
    "bing": _bing_from_args,
    "bocha": _bocha_from_args,
    "brave": _brave_from_args,
    "tavily": _tavily_from_args,
    "exa": _exa_from_args,
    "searxng": _searxng_from_args,
    "postgres": _postgres_from_args,
}

#: search option -> {provider: filter field it maps to}; other providers reject the option
FILTER_OPTIONS: dict[str, dict[str, str]] = {
    "freshness": {
        name: "freshness" for name in ("bing", "bocha", "brave", "tavily", "exa", "searxng")
    },
    "market": {"bing": "mkt"},
}


def provider_names(value: str) -> list[str]:
    """The provider names of a ``--provider`` value (``"brave,tavily"`` → two names).

    Raises:
        UsageError: An unknown, empty or repeated name.
    """
    names = [name.strip() for name in str(value).split(",")]
    for name in names:
        if name not in PROVIDERS:
            raise UsageError(
                f"argument --provider: invalid choice: {name!r} "
                f"(choose from {', '.join(PROVIDERS)}, or several separated by commas)"
            )
    if len(set(names)) != len(names):
        raise UsageError(f"argument --provider: a provider is named twice in {value!r}")
    return names


def _provider_list(value: str) -> str:
    # argparse ``type=``: reject a bad --provider before any command runs.
    try:
        provider_names(value)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("argument --provider: ")) from None
    return value


def build_provider(args: argparse.Namespace) -> TextSearch:
    """Build the search named by ``--provider`` from the parsed arguments.

    ``--provider a,b`` falls back from ``a`` to ``b`` (:class:`FallbackTextSearch`);
    with ``--fuse`` their results are fused instead (:class:`FusedTextSearch`); with
    ``--cache`` (the default of ``textsearch mcp``) repeated searches are answered from
    memory for the life of the process (:class:`CachedTextSearch`).

    Raises:
        UsageError: An unknown provider name, or ``--fuse`` with a single provider.
        ConfigurationError: Missing settings (for example an API key) or a bad path.
    """
    names = provider_names(getattr(args, "provider", "local"))
    fuse = bool(getattr(args, "fuse", False))
    if fuse and len(names) < 2:
        raise UsageError("--fuse needs two or more providers, e.g. --provider brave,tavily")
    searches: list[TextSearch] = []
    try:
        for name in names:
            searches.append(PROVIDERS[name](args))
    except BaseException:
        for built in searches:
            _close(built)
        raise
    if len(searches) == 1 and not getattr(args, "cache", False):
        return searches[0]
    from textsearch.compose import CachedTextSearch, FallbackTextSearch, FusedTextSearch

    search: TextSearch = searches[0]
    if fuse:
        search = FusedTextSearch(searches, close_wrapped=True)
    elif len(searches) > 1:
        search = FallbackTextSearch(searches, close_wrapped=True)
    if getattr(args, "cache", False):
        search = CachedTextSearch(search, close_wrapped=True)
    return search


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
    names = provider_names(provider)
    for option, fields in FILTER_OPTIONS.items():
        value = getattr(args, option, None)
        if value is None:
            continue
        # With several providers, each must map the option to the same filter field.
        mapped = {fields.get(name) for name in names}
        field_name = mapped.pop() if len(mapped) == 1 else None
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
        out.write(
            format_results(results, query=args.query, style=output_format, locale=args.locale)
            + "\n"
        )
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
    if getattr(args, "provider", "local") == "postgres":
        return _index_postgres(args, folder, out)
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


def _index_postgres(args: argparse.Namespace, folder: Path, out: TextIO) -> int:
    if args.db:
        raise UsageError("--db applies to --provider local only")
    progress = _Progress(sys.stderr)
    with _postgres_from_args(args) as search:
        search.create_schema_sync()
        report = search.index_path(folder, progress=progress)
        progress.finish()
        total = search.count_documents_sync()
    out.write(
        f"indexed {report.indexed} file(s) (added {report.added}, updated {report.updated}), "
        f"unchanged {report.unchanged}, removed {report.removed}, failed {len(report.failed)}; "
        f"{total} document(s) in PostgreSQL table {search.table}\n"
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


def _plugin(search: TextSearch, name: str = "search") -> SearchPlugin:
    """The default plugin, plus the portable web filters the connector honours (site, ...)."""
    from textsearch.plugins import (
        create_search_function,
        create_search_plugin,
        default_parameters,
        web_filter_parameters,
    )

    function = create_search_function(
        search,
        kind="text_search_results",
        name="search",
        parameters=[*default_parameters(), *web_filter_parameters(search)],
    )
    return create_search_plugin(search, name=name, functions=[function])


def _cmd_tools(args: argparse.Namespace, out: TextIO) -> int:
    if args.strict and args.format != "openai":
        raise UsageError("--strict applies to --format openai only")
    search = _tools_provider(args)
    tools: list[Any]
    try:
        plugin = _plugin(search)
        if args.format == "openai":
            tools = plugin.to_openai_tools(strict=args.strict)
        elif args.format == "openai-responses":
            tools = plugin.to_openai_responses_tools()
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
    from textsearch.plugins._mcp import require_mcp

    try:
        require_mcp()
    except ImportError as exc:
        raise ConfigurationError(str(exc)) from None
    # A server lives for hours: aiohttp's import cost is paid once, and every web search
    # then costs several times less CPU (#15). Only when the user has not chosen, and
    # without importing aiohttp here (find_spec only looks). Undone when the server ends,
    # so that an in-process caller's later searches are left as they were.
    import importlib.util

    fast = (
        "TEXTSEARCH_TRANSPORT" not in os.environ
        and importlib.util.find_spec("aiohttp") is not None
    )
    if fast:
        os.environ["TEXTSEARCH_TRANSPORT"] = "aiohttp"
    try:
        return _serve_mcp(args)
    finally:
        if fast:
            os.environ.pop("TEXTSEARCH_TRANSPORT", None)


def _serve_mcp(args: argparse.Namespace) -> int:
    indexing = None
    if args.provider == "local":
        # Answer `initialize` at once: the folder is indexed in the background, with
        # progress lines on stderr, and searches wait for it (or say how far it got).
        from textsearch.plugins._indexing import IndexingTextSearch

        local = _local_from_args(args, index=False)
        search: TextSearch = local
        if args.path or not args.db:  # --db alone serves that index as it is
            folder = Path(args.path or ".")
            indexing = IndexingTextSearch(local, folder, wait=args.index_wait, stream=sys.stderr)
            search = indexing
    else:
        search = build_provider(args)
    try:
        plugin = _plugin(search, name=args.name)
        if indexing is not None:
            indexing.start()
        if args.http:
            from textsearch.plugins._mcp_http import parse_address

            host, port = parse_address(args.http)
            plugin.serve_mcp_http(host, port, token=args.token, allowed_origins=args.allow_origin)
        else:
            plugin.serve_mcp()
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


def add_provider_arguments(parser: argparse.ArgumentParser, *, cache: bool = False) -> None:
    """Add ``--provider``, ``--fuse``, ``--cache``, ``--path`` and ``--db``.

    Shared by search, ground, tools and mcp; ``cache`` is the default of ``--cache``.
    """
    parser.add_argument(
        "--provider",
        default="local",
        type=_provider_list,
        metavar="NAME[,NAME...]",
        help="backend to use: " + ", ".join(sorted(PROVIDERS)) + " (default: local, the "
        "embedded index; no key, no network); several separated by commas fall back in "
        "that order when one is rate limited, out of quota or unavailable",
    )
    parser.add_argument(
        "--fuse",
        action="store_true",
        help="with several providers: ask them all and fuse their results (reciprocal rank "
        "fusion) instead of falling back",
    )
    parser.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=cache,
        help="answer repeated searches from memory for the life of the process "
        f"(default: {'on' if cache else 'off'})",
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
        help="web providers: day|week|month|year or YYYY-MM-DD..YYYY-MM-DD "
        "(bing and bocha also take their own words)",
    )
    search.add_argument("--market", metavar="MKT", help="bing only: market such as en-US")
    search.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    search.add_argument(
        "--format",
        choices=SEARCH_FORMATS,
        help="output: numbered (default), citations, markdown, labelled or json",
    )
    search.add_argument(
        "--locale",
        metavar="LANG",
        help="labels of --format labelled: en or zh (default: the query's language, else en)",
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
    index.add_argument(
        "--provider",
        default="local",
        choices=("local", "postgres"),
        help="local (an index file, default) or postgres (TEXTSEARCH_POSTGRES_DSN)",
    )
    index.set_defaults(handler=_cmd_index)

    tools = commands.add_parser("tools", help="print the search tool definitions as JSON")
    add_provider_arguments(tools)
    tools.add_argument(
        "--format",
        required=True,
        choices=("openai", "openai-responses", "anthropic", "mcp"),
        help="tool format: OpenAI Chat Completions, OpenAI Responses (strict), Anthropic "
        "Messages or MCP",
    )
    tools.add_argument(
        "--strict", action="store_true", help="OpenAI strict-mode schema (--format openai)"
    )
    tools.set_defaults(handler=_cmd_tools)

    mcp = commands.add_parser(
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
        help="serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    mcp.add_argument(
        "--token",
        default=None,
        help="--http: the bearer token clients must send (default: $TEXTSEARCH_MCP_TOKEN); "
        "required unless HOST is loopback",
    )
    mcp.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="--http: a browser Origin allowed besides loopback ones (repeatable)",
    )
    mcp.set_defaults(handler=_cmd_mcp)
    _add_verbose(parser, commands)
    return parser


_VERBOSE_HELP = "log what happens at DEBUG level on stderr (keys masked)"


def _add_verbose(parser: argparse.ArgumentParser, commands: Any) -> None:
    # Accepted before or after the command: "textsearch -v search q" and "... search q -v".
    parser.add_argument("-v", "--verbose", action="store_true", help=_VERBOSE_HELP)
    for command in commands.choices.values():
        command.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=_VERBOSE_HELP
        )


#: Variables that may hold a key; with --verbose their values are masked in every record.
_KEY_VARIABLES = (
    "BING_SEARCH_API_KEY",
    "BOCHA_API_KEY",
    "AZURE_SEARCH_API_KEY",
    "BRAVE_SEARCH_API_KEY",
    "TAVILY_API_KEY",
    "EXA_API_KEY",
)


def _setup_logging(verbose: bool) -> Callable[[], None]:
    """Logging for one run: silent by default, DEBUG on stderr with ``--verbose``.

    Silent means a handler that drops records: without any handler, Python's last-resort
    handler prints every WARNING record of every library (azure-core, asyncio...) on
    stderr, around the one line the command prints for an error. Returns the undo.
    """
    import logging

    root = logging.getLogger()
    level = root.level
    handler: logging.Handler
    if verbose:
        from textsearch._http._redact import SecretFilter, register_secret

        for variable in _KEY_VARIABLES:
            register_secret(os.environ.get(variable, "").strip() or None)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(SecretFilter())  # every logger's records, not only ours
        root.setLevel(logging.DEBUG)
    else:
        handler = logging.NullHandler()
    root.addHandler(handler)

    def undo() -> None:
        root.removeHandler(handler)
        root.setLevel(level)

    return undo


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code."""
    stream = out if out is not None else sys.stdout
    undo: Callable[[], None] | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        undo = _setup_logging(bool(getattr(args, "verbose", False)))
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
    finally:
        if undo is not None:
            undo()


def _fail(message: str) -> None:
    first_line = " ".join(str(message).split())
    print(f"textsearch: error: {first_line}", file=sys.stderr)


def _entry() -> Any:  # pragma: no cover - used by python -m textsearch
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    _entry()
