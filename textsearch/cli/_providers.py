"""Providers on the command line: ``--provider a,b``, ``--fuse``, ``--cache``, filter options."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textsearch._types import TextSearchFilter
from textsearch.base import TextSearch
from textsearch.cli._common import UsageError, close, default_index_file
from textsearch.errors import ConfigurationError

ProviderBuilder = Callable[[argparse.Namespace], TextSearch]


def local_from_args(args: argparse.Namespace, *, index: bool = True) -> TextSearch:
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


def postgres_from_args(args: argparse.Namespace) -> Any:
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
    "local": local_from_args,
    "azure": _azure_from_args,
    "bing": _bing_from_args,
    "bocha": _bocha_from_args,
    "brave": _brave_from_args,
    "tavily": _tavily_from_args,
    "exa": _exa_from_args,
    "searxng": _searxng_from_args,
    "postgres": postgres_from_args,
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
            close(built)
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


def search_filter(args: argparse.Namespace) -> TextSearchFilter | None:
    """The filter of ``--site`` and the provider filter options (``--freshness``...).

    Raises:
        UsageError: An option that a named provider cannot map to a filter field.
    """
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
