"""Range filters against equality filters on the local index (issue #35: range <= 1.3x equality).

Builds an index of ``--docs`` one-passage documents (default 100,000) whose metadata holds a
category (10 values), a year (20 values) and a publication date (ISO-8601 text), then runs the
same queries with an equality filter and with range filters of the same selectivity (1/10),
interleaved query by query so that a busy machine slows every kind alike. Reported: the
median CPU time of the search thread per query and its ratio to the equality filter, per
engine. Run it with ``python benchmarks/bench_filters.py [--docs N] [--engine sqlite|tantivy]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator

from textsearch import LocalTextSearch, TextSearchFilter


def documents(n: int, words: list[str], seed: int) -> Iterator[dict[str, object]]:
    rng = random.Random(seed)
    for i in range(n):
        year = 2000 + i % 20
        yield {
            "id": f"doc-{i}",
            "title": " ".join(rng.choices(words, k=4)),
            "text": " ".join(rng.choices(words, k=60)),
            "link": f"https://example.com/page/{i}",
            "metadata": {
                "category": f"c{i % 10}",
                "year": year,
                "published": f"{year}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            },
        }


def measure(
    search: LocalTextSearch,
    queries: list[str],
    filters: dict[str, TextSearchFilter | Callable[[int], TextSearchFilter]],
) -> dict[str, float]:
    cpu: dict[str, list[float]] = {name: [] for name in filters}
    names = list(filters)
    for i, query in enumerate(queries):
        # a different order for each query: none of the filters always runs first
        for name in names[i % len(names) :] + names[: i % len(names)]:
            chosen = filters[name]
            search_filter = chosen(i) if callable(chosen) else chosen
            start = time.thread_time()
            search.get_text_search_results_sync(query, top=5, filter=search_filter)
            cpu[name].append((time.thread_time() - start) * 1000)
    return {name: statistics.median(samples) for name, samples in cpu.items()}


def run(engine: str, args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    words = [f"w{i}" for i in range(5_000)]
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    pick: Callable[[], str] = lambda: " ".join(rng.choices(words[50:], weights[50:], k=2))  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.db")
        search = LocalTextSearch(path, engine=engine)
        started = time.perf_counter()
        batch: list[dict[str, object]] = []
        for doc in documents(args.docs, words, args.seed):
            batch.append(doc)
            if len(batch) == 5_000:
                search.add_documents(batch)
                batch.clear()
        if batch:
            search.add_documents(batch)
        built = time.perf_counter() - started
        queries = [pick() for _ in range(args.queries)]
        f = TextSearchFilter
        filters = {
            "equal_to (1/10)": f().equal_to("category", "c3"),
            "number range (1/10)": f().greater_than_or_equal("year", 2018),
            "number between (1/10)": f().greater_than("year", 2005).less_than("year", 2008),
            "date range (1/10)": f().greater_than_or_equal("published", "2018-01-01"),
            # a bound the index has not seen before on every query (what a model sends)
            "new bound each query": lambda i: f().greater_than("year", 2017 + (i % 997) / 1000),
            "any_of (1/10)": f().any_of("category", ["c3"]),
            "not_equal_to (9/10)": f().not_equal_to("category", "c3"),
        }
        measure(search, queries[:30], filters)  # warm the caches
        medians = measure(search, queries, filters)
        search.close()
    base = medians["equal_to (1/10)"]
    print(
        f"engine {engine}: {args.docs:,} passages indexed in {built:.0f} s; {args.queries} queries"
    )
    for name, value in medians.items():
        print(f"  {name:24s} median CPU {value:7.3f} ms  ratio to equal_to {value / base:5.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--engine", choices=("sqlite", "tantivy", "both"), default="both")
    args = parser.parse_args()
    print(
        f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
        f"Python {sys.version.split()[0]}"
    )
    for engine in ("sqlite", "tantivy") if args.engine == "both" else (args.engine,):
        run(engine, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
