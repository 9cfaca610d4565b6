"""``textsearch eval DATASET``: how good is the search? A regression gate with ``--min-ndcg``.

DATASET is a BEIR folder (its corpus is indexed in memory, unless ``--db``/``--path``/
``--provider`` names what to search) or a golden file (JSONL, one question a line:
``{"query": ..., "relevant": [ids or links]}``), searched in the index ``--db``/``--path``
name (or another ``--provider``).

``--mode keyword,semantic,hybrid`` compares the modes; ``--rerank SPEC`` adds the last
mode reranked. One search gives its report; several give a table with each one's p-value
against the first (paired randomization test). The exit status is 1 when the last one's
nDCG@k is below ``--min-ndcg``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from textsearch.base import TextSearch
from textsearch.cli._common import EXIT_FAILURE, EXIT_OK, UsageError, close, positive
from textsearch.cli._providers import add_provider_arguments, build_provider
from textsearch.cli._rerank import (
    add_mode_argument,
    add_rerank_arguments,
    apply_mode,
    build_reranker,
    with_reranker,
)
from textsearch.errors import ConfigurationError


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``eval`` command to the sub-command parsers."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "eval", help="measure a search on golden questions or a BEIR set (nDCG, recall, MRR)"
    )
    parser.add_argument(
        "dataset", help="a BEIR folder (corpus.jsonl, queries.jsonl, qrels/) or a golden JSONL file"
    )
    add_provider_arguments(parser)
    add_mode_argument(parser, several=True)
    add_rerank_arguments(parser)
    parser.add_argument("--k", type=positive, default=10, help="cut-off of nDCG, MRR, Hit (10)")
    parser.add_argument(
        "--depth", type=positive, default=100, help="results per query; Recall and MAP (100)"
    )
    parser.add_argument("--split", default="test", help="BEIR qrels split (default: test)")
    parser.add_argument(
        "--match",
        choices=("auto", "id", "link"),
        default="auto",
        help="compare results by id or by link (auto: link when the judged entries look "
        "like links or paths, else id)",
    )
    parser.add_argument("--queries", type=positive, help="only the first N queries")
    parser.add_argument("--concurrency", type=positive, default=4, help="queries at once (4)")
    parser.add_argument(
        "--min-ndcg",
        type=float,
        metavar="X",
        help="exit with status 1 when nDCG@k of the last search is below X",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.set_defaults(handler=run)
    return parser


def _dataset(args: argparse.Namespace) -> Any:
    from textsearch.evaluation import load_beir, load_golden

    where = Path(args.dataset).expanduser()
    if where.is_dir():
        dataset = load_beir(where, split=args.split)
    elif where.is_file():
        dataset = load_golden(where)
    else:
        raise ConfigurationError(f"{args.dataset!r}: no such BEIR folder or golden file")
    if args.queries:
        dataset = dataset.head(args.queries)
    return dataset


def _match(args: argparse.Namespace, dataset: Any) -> str:
    if args.match != "auto":
        return str(args.match)
    judged = [key for judged in dataset.qrels.values() for key in judged]
    looks_like_links = judged and all(("/" in key or "." in key) for key in judged)
    return "link" if looks_like_links and not dataset.corpus else "id"


def _searches_the_corpus(args: argparse.Namespace, dataset: Any) -> bool:
    return bool(dataset.corpus) and args.provider == "local" and not args.db and not args.path


def _corpus_index(args: argparse.Namespace, dataset: Any, modes: list[str]) -> TextSearch:
    """The BEIR corpus in an in-memory index (embedded when a mode or --embedder needs it)."""
    from textsearch.connectors.local import LocalTextSearch

    spec = args.embedder or (None if modes == ["keyword"] or not modes else "minilm")
    embedder = None
    if spec:
        from textsearch.embeddings import from_spec

        embedder = from_spec(spec)
    index = LocalTextSearch(embedder=embedder)
    if sys.stderr.isatty() or embedder is not None:
        print(
            f"textsearch eval: indexing {len(dataset.corpus)} documents of {dataset.name}"
            + (f" with {embedder.model}" if embedder is not None else ""),
            file=sys.stderr,
        )
    index.add_documents(dataset.documents())
    return index


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch eval``; returns the exit code."""
    from textsearch.evaluation import Comparison, evaluate

    if args.min_ndcg is not None and not 0.0 <= args.min_ndcg <= 1.0:
        raise UsageError(f"--min-ndcg takes a number from 0 to 1, got {args.min_ndcg}")
    dataset = _dataset(args)
    modes: list[str] = list(args.mode or [])
    reranker = build_reranker(args.rerank)
    match = _match(args, dataset)
    base = _corpus_index(args, dataset, modes) if _searches_the_corpus(args, dataset) else None
    search: TextSearch = base if base is not None else build_provider(args)
    variants: list[tuple[str, str | None, bool]] = [(m, m, False) for m in modes]
    if not variants:
        variants = [(getattr(search, "mode", None) or "search", None, False)]
    if reranker is not None:
        last = variants[-1][1]
        variants.append((f"{variants[-1][0]}+rerank", last, True))
    reports: dict[str, Any] = {}
    try:
        for label, mode, reranked in variants:
            apply_mode(search, mode)
            target = with_reranker(search, args, reranker) if reranked else search
            reports[label] = evaluate(
                target, dataset, k=args.k, depth=args.depth, concurrency=args.concurrency,
                match=match, name=label,  # type: ignore[arg-type]
            )  # fmt: skip
    finally:
        close(search)
        if reranker is not None:
            close(reranker)
    last_report = reports[variants[-1][0]]
    if len(reports) == 1:
        out.write((last_report.to_json() if args.json else last_report.to_markdown()) + "\n")
    else:
        comparison = Comparison.from_reports(reports)
        out.write((comparison.to_json() if args.json else comparison.to_markdown()) + "\n")
    if args.min_ndcg is not None and last_report.ndcg < args.min_ndcg:
        print(
            f"textsearch eval: {last_report.name}: {last_report.label('ndcg')} "
            f"{last_report.ndcg:.3f} is below --min-ndcg {args.min_ndcg:g}",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return EXIT_OK
