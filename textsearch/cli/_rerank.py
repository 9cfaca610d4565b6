"""``--mode`` and ``--rerank SPEC``: how a command ranks (search, index, eval, mcp).

``--mode keyword|semantic|hybrid`` picks the search mode of a store that has modes (the
local index, PostgreSQL, Qdrant, Milvus); semantic and hybrid need the embedder the index
was built with (``--embedder``, or the one the local index remembers).

``--rerank SPEC`` puts a `RerankedTextSearch` over the search; SPEC is what
`textsearch.rerank.from_spec` reads:

* ``embedding`` / ``embedding:EMBEDDER`` — cosine with an embedder (default ``minilm``).
* ``cross-encoder:PATH`` — an ONNX cross-encoder folder (model.onnx + tokenizer.json).
* ``cohere[:MODEL][@URL]``, ``jina[:MODEL][@URL]``, ``voyage[:MODEL][@URL]`` — hosted APIs
  (``CO_API_KEY``, ``JINA_API_KEY``, ``VOYAGE_API_KEY``); ``@URL`` for a vLLM or
  llama.cpp server speaking Jina's shape.
* ``tei:URL`` — a text-embeddings-inference server.
"""

from __future__ import annotations

import argparse
from typing import Any

from textsearch.base import TextSearch
from textsearch.cli._common import UsageError, positive

MODES = ("keyword", "semantic", "hybrid")

_RERANK_HELP = (
    "rerank the candidates with SPEC: embedding[:EMBEDDER] (default minilm, offline), "
    "cross-encoder:PATH (ONNX folder), cohere[:MODEL], jina[:MODEL][@URL] (also vLLM, "
    "llama.cpp), voyage[:MODEL], tei:URL"
)


def add_mode_argument(parser: argparse.ArgumentParser, *, several: bool = False) -> None:
    """Add ``--mode`` (``several``: a comma-separated list, for ``eval``)."""
    parser.add_argument(
        "--mode",
        type=_modes if several else _mode,
        metavar="MODE[,MODE...]" if several else "MODE",
        help=(
            "search mode: keyword, semantic or hybrid"
            + ("; several, comma-separated, are compared" if several else "")
            + " (semantic and hybrid need an embedder: --embedder, or the index's own)"
        ),
    )


def add_rerank_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--rerank SPEC`` and ``--rerank-depth N``."""
    parser.add_argument("--rerank", metavar="SPEC", help=_RERANK_HELP)
    parser.add_argument(
        "--rerank-depth",
        type=positive,
        default=30,
        metavar="N",
        help="candidates the reranker reads (default 30)",
    )


def add_rank_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--mode``, ``--rerank`` and ``--rerank-depth``."""
    add_mode_argument(parser)
    add_rerank_arguments(parser)


def _mode(text: str) -> str:
    value = text.strip().lower()
    if value not in MODES:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(MODES)}, not {text!r}")
    return value


def _modes(text: str) -> list[str]:
    values = [_mode(part) for part in text.split(",")]
    if len(set(values)) != len(values):
        raise argparse.ArgumentTypeError(f"a mode is named twice in {text!r}")
    return values


def _with_modes(search: Any) -> Any:
    """The store inside wrappers (cache, indexing) that has a ``mode``, or ``None``."""
    seen = 0
    while search is not None and seen < 8:
        if hasattr(search, "mode") and hasattr(search, "embedder"):
            return search
        search = getattr(search, "wrapped", None) or getattr(search, "search", None)
        if callable(search):  # a search method, not a wrapped search
            return None
        seen += 1
    return None


def apply_mode(search: TextSearch, mode: str | None) -> None:
    """Set the search mode of ``search`` (or of the store it wraps).

    Raises:
        UsageError: The search has no modes (a web provider).
        ConfigurationError: Semantic or hybrid without an embedder.
    """
    if not mode:
        return
    store = _with_modes(search)
    if store is None:
        raise UsageError(
            f"--mode applies to stores with search modes (local, postgres, qdrant, milvus), "
            f"not {type(search).__name__}"
        )
    if mode != "keyword" and store.embedder is None:
        from textsearch.errors import ConfigurationError

        raise ConfigurationError(
            f"--mode {mode} searches by meaning and needs an embedder: index with "
            "--embedder minilm (the offline model), or pass --embedder SPEC"
        )
    store.mode = mode


def build_reranker(spec: str | None) -> Any:
    """The reranker ``--rerank`` names, or ``None``.

    Raises:
        ConfigurationError: A bad spec, a missing extra, key or file.
    """
    if not spec:
        return None
    from textsearch.rerank import from_spec

    return from_spec(spec)


def with_reranker(search: TextSearch, args: argparse.Namespace, reranker: Any = None) -> TextSearch:
    """``search`` with ``--rerank`` applied (closing ``search`` when it is wrapped)."""
    reranker = reranker or build_reranker(getattr(args, "rerank", None))
    if reranker is None:
        return search
    from textsearch.compose import RerankedTextSearch

    depth = min(int(getattr(args, "rerank_depth", 30)), _max_top(search))
    return RerankedTextSearch(search, reranker, depth=depth, close_wrapped=True)


def _max_top(search: object) -> int:
    top = getattr(search, "max_top", None)
    return top if isinstance(top, int) and not isinstance(top, bool) and top >= 1 else 50


def index_ranking(args: argparse.Namespace) -> None:
    """``index --mode/--rerank``: vectors for semantic and hybrid modes, a spec checked early.

    ``--mode semantic`` or ``hybrid`` without ``--embedder`` embeds with ``minilm`` (the
    offline model); ``--mode keyword`` makes no vectors (and refuses ``--embedder``).
    ``--rerank SPEC`` is built once, so that a bad spec, a missing key or a missing model
    fails before the indexing; pass it again to ``search``/``mcp``/``eval``.

    Raises:
        UsageError: ``--mode keyword`` with ``--embedder``.
        ConfigurationError: A bad ``--rerank`` spec.
    """
    mode = getattr(args, "mode", None)
    if mode == "keyword" and getattr(args, "embedder", None):
        raise UsageError("--mode keyword makes no vectors: leave out --embedder")
    if mode in ("semantic", "hybrid") and not getattr(args, "embedder", None):
        args.embedder = "minilm"
    reranker = build_reranker(getattr(args, "rerank", None))
    if reranker is not None:
        closer = getattr(reranker, "close", None)
        if callable(closer):
            closer()


def rank(search: TextSearch, args: argparse.Namespace) -> TextSearch:
    """Apply ``--mode`` and ``--rerank`` to a built search."""
    apply_mode(search, getattr(args, "mode", None))
    return with_reranker(search, args)
