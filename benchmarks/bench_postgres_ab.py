"""A/B one PostgresTextSearch build against another on an indexed table: latency and server CPU.

    # a table kept by bench_postgres.py --data-dir, its server started (see --help there)
    git archive <old-commit> textsearch | tar -x -C /tmp/old      # the code to compare with
    python benchmarks/bench_postgres_ab.py --dsn "host=..." --table bench_100000_7 --code /tmp/old
    python benchmarks/bench_postgres_ab.py --dsn "host=..." --table bench_100000_7   # this code

Runs the bench_postgres queries (typical or broad) through one connection, one client, after 100
warm-up queries, and prints p50/p95, the client's CPU time per query and the server backend's
CPU time per query (read from /proc/<pid>/stat, so only for a server on this machine: it is
the figure least moved by other load). Alternate old and new runs in the same minutes.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--table", required=True, help="built from the bench_postgres corpus")
    parser.add_argument(
        "--code", type=Path, default=HERE.parent, help="folder holding the textsearch package"
    )
    parser.add_argument("--kind", choices=["typical", "broad"], default="typical")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--multi", action="store_true", help="only queries of 2+ words")
    parser.add_argument("--seed", type=int, default=7, help="as given to bench_postgres.py")
    parser.add_argument("--max-candidates", type=int, default=1000)
    args = parser.parse_args()

    code = args.code.resolve()
    sys.path.insert(0, str(code))
    sys.path.insert(1, str(HERE))
    import textsearch

    if not Path(textsearch.__file__).resolve().is_relative_to(code):
        raise SystemExit(f"textsearch came from {textsearch.__file__}, not from {code}")
    from bench_local import percentile, vocabulary
    from bench_postgres import make_queries

    from textsearch import PostgresTextSearch

    words = vocabulary(30_000, random.Random(args.seed))
    typical, broad = make_queries(words, 2_000, args.seed)
    pool = typical if args.kind == "typical" else broad
    if args.multi:
        pool = [q for q in pool if " " in q]
    sample = pool[: args.queries]
    pg = PostgresTextSearch(
        args.dsn, table=args.table, min_size=1, max_size=1, timeout=60,
        max_candidates=args.max_candidates,
    )  # fmt: skip
    for q in typical[:100]:
        pg.search_sync(q)
    pid = pg._sync.run(lambda conn: conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    stat = Path(f"/proc/{pid}/stat")
    tick = os.sysconf("SC_CLK_TCK")

    def server_cpu() -> float | None:
        if not stat.exists():
            return None
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    latencies: list[float] = []
    s0, c0 = server_cpu(), time.process_time()
    for q in sample:
        t0 = time.perf_counter()
        pg.get_text_search_results_sync(q)
        latencies.append((time.perf_counter() - t0) * 1000)
    s1, c1 = server_cpu(), time.process_time()
    same = pg._sync.run(lambda conn: conn.execute("SELECT pg_backend_pid()").fetchone()[0])
    pg.close()
    n = len(sample)
    server = (
        f"{(s1 - s0) / n * 1000:.2f} ms" if s0 is not None and s1 is not None and same == pid
        else "n/a (remote server or reconnected)"
    )  # fmt: skip
    print(
        f"{code.name:<12} {args.kind:<8} {n} queries  p50 {statistics.median(latencies):6.2f} ms  "
        f"p95 {percentile(latencies, 95):6.2f} ms  client CPU {(c1 - c0) / n * 1000:.2f} ms  "
        f"server CPU {server}  load {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
