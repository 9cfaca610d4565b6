"""The ``textsearch`` command line.

::

    textsearch search "query" [--provider local] [--path DIR] [--top N] [--site D] [--json]
    textsearch index DIR --db FILE

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
from textsearch.base import TextSearch
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

    folder = Path(getattr(args, "path", None) or ".")
    if not folder.exists():
        raise ConfigurationError(f"--path {str(folder)!r}: no such file or folder")
    db = getattr(args, "db", None)
    db_path = Path(db) if db else default_index_file(folder)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    search = LocalTextSearch(db_path)
    report = search.index_path(folder)
    if report.indexed or report.removed:
        print(
            f"indexed {report.indexed} file(s), removed {report.removed}, "
            f"unchanged {report.unchanged} ({folder})",
            file=sys.stderr,
        )
    return search


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

    options = SearchOptions(
        top=args.top, skip=args.skip, include_total_count=True, filter=_search_filter(args)
    )
    search = build_provider(args)
    try:
        results = search.get_text_search_results_sync(args.query, options)
    finally:
        _close(search)
    if args.json:
        payload = {
            "query": args.query,
            "total_count": results.total_count,
            "results": [r.model_dump() for r in results],
        }
        out.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(format_results(results, query=args.query) + "\n")
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
    search.add_argument("--json", action="store_true", help="print JSON instead of text")
    search.set_defaults(handler=_cmd_search)

    index = commands.add_parser("index", help="index a folder into a local index file")
    index.add_argument("dir", help="folder (or file) to index")
    index.add_argument("--db", metavar="FILE", help="index file (default: the search cache file)")
    index.set_defaults(handler=_cmd_index)
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


def _fail(message: str) -> None:
    first_line = " ".join(str(message).split())
    print(f"textsearch: error: {first_line}", file=sys.stderr)


def _entry() -> Any:  # pragma: no cover - used by python -m textsearch
    raise SystemExit(main())


if __name__ == "__main__":  # pragma: no cover
    _entry()
