"""Search by meaning over the local index's vector files at scale (default 1M x 384).

Writes random unit vectors straight into an index's vector files (no text, no model: the
keyword side is measured by ``bench_local.py``), then, in a fresh process: the first query
(import and opening included), the latency of the semantic arm over ``--queries`` queries,
resident memory, and whether every top 10 is identical to an exact float32 oracle computed
here with numpy (the ``results identical`` check of issue #36).

    python benchmarks/bench_local_vectors.py --count 1000000 --queries 200

``--build INDEX --count N`` writes a whole index through ``LocalTextSearch.add_documents``
(tantivy engine, ``bench_local.py``'s Zipf documents, one random unit vector each), the index
that ``--fresh`` opens. ``--fresh INDEX --against ROOT`` then times the first semantic query of
``LocalTextSearch`` (tantivy engine, import included) in fresh processes, this tree and the
source tree ROOT (e.g. ``git worktree add /tmp/base main``) alternately, beside three floors:
``python -c "import numpy"``, numpy + pydantic's ``BaseModel``, and numpy + one pydantic model
with a constrained field, defined, not validated (what defining any model costs: pydantic then
loads ``pydantic.fields``, ``pydantic.types`` and ``annotated_types``; a first query builds no
validator); medians of wall and CPU time (the child's user +
system) and the median of per-round ratios. Both trees' bytecode is compiled first (an
installed package has it; under ``PYTHONDONTWRITEBYTECODE`` a fresh checkout would compile
every module in every run, ~0.1 s).

    python benchmarks/bench_local_vectors.py --build /tmp/i.sqlite3 --count 100000
    python benchmarks/bench_local_vectors.py --fresh /tmp/i.sqlite3 --against /tmp/base --rounds 12

``--latency INDEX`` times whole queries on such an index through the public blocking call,
hybrid, semantic and keyword (wall and CPU p50, p95, max RSS):

    python benchmarks/bench_local_vectors.py --latency /tmp/i.sqlite3 --queries 200

Optional: ``pip install lancedb`` to time LanceDB's exact (no index) search on the same
vectors (skipped when absent; never a textsearch dependency).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

QUERY = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import numpy as np
from textsearch.connectors.local._schema import connect
from textsearch.connectors.local._vectorfile import VectorStore
from textsearch.connectors.local._vectors import VectorIndex
path, queries_file, top = sys.argv[1], sys.argv[2], int(sys.argv[3])
queries = np.load(queries_file)
db = connect(path)
store = VectorStore(path)
index = VectorIndex()
index.follow(db, store)
first = index.search(queries[0].tolist(), top, None)[0]
t1 = time.perf_counter()
rss_open = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
latencies, answers = [], []
for q in queries:
    vector = q.tolist()
    start = time.perf_counter()
    ranked = index.search(vector, top, None)[0]
    latencies.append((time.perf_counter() - start) * 1000)
    answers.append([rowid for rowid, _ in ranked])
print(json.dumps({
    "first_ms": (t1 - t0) * 1000, "latencies": latencies, "answers": answers,
    "quantised": index.quantised, "rss_open_mb": rss_open,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def write_index(path: str, count: int, dims: int, seed: int) -> None:
    sys.path.insert(0, ROOT)
    from tests.connectors.local.vector_files import Entry, write_vector_files

    rng = np.random.default_rng(seed)

    def batches(chunk: int = 50_000) -> Iterator[list[Entry]]:
        for begin in range(0, count, chunk):
            rows = rng.standard_normal((min(chunk, count - begin), dims), dtype=np.float32)
            yield [
                (begin + i + 1, (begin + i) // 4 + 1, b"", r.tobytes()) for i, r in enumerate(rows)
            ]

    db, store = write_vector_files(path, dims, batches())
    db.close()
    store.close()


def oracle(path: str, queries: np.ndarray, count: int, dims: int, top: int) -> list[list[int]]:
    """Exact float32 top ``top`` rowids per query (ties by rowid), over the mapped matrix."""
    matrix = np.memmap(path + ".vectors/1.f32", dtype=np.float32, mode="r", shape=(count, dims))
    units = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    scores = np.empty((len(queries), count), dtype=np.float32)
    for begin in range(0, count, 100_000):
        scores[:, begin : begin + 100_000] = units @ matrix[begin : begin + 100_000].T
    answers = []
    for row in scores:
        top_rows = np.argpartition(row, count - top)[count - top :]
        ordered = sorted(top_rows.tolist(), key=lambda r: (-float(row[r]), r))
        answers.append([r + 1 for r in ordered])  # rowid = slot + 1
    return answers


def lancedb_exact(path: str, queries: np.ndarray, count: int, dims: int) -> float | None:
    try:
        import lancedb  # type: ignore[import-not-found]
        import pyarrow as pa  # type: ignore[import-not-found]
    except ImportError:
        return None
    matrix = np.memmap(path + ".vectors/1.f32", dtype=np.float32, mode="r", shape=(count, dims))
    db = lancedb.connect(path + ".lance")
    table = db.create_table(
        "v",
        pa.table(
            {
                "id": pa.array(np.arange(count)),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), dims),
            }
        ),
    )
    latencies = []
    for q in queries:
        start = time.perf_counter()
        table.search(q).metric("cosine").limit(10).to_list()
        latencies.append((time.perf_counter() - start) * 1000)
    return float(np.median(latencies))


FIRST = r"""
import sys
from textsearch import LocalTextSearch
from textsearch.embeddings import FunctionEmbedder
dims = int(sys.argv[2])
unit = [1.0 / dims ** 0.5] * dims
emb = FunctionEmbedder(lambda texts: [unit for _ in texts], model=sys.argv[3], dimensions=dims)
s = LocalTextSearch(sys.argv[1], engine="tantivy", embedder=emb, mode="semantic")
assert len(s.get_search_results_sync("first", top=5).results) == 5
"""

FLOORS = {
    "floor: import numpy": "import numpy",
    "floor: numpy + pydantic BaseModel": "import numpy\nfrom pydantic import BaseModel",
    "floor: numpy + a pydantic model": (
        "import numpy\nfrom pydantic import BaseModel, Field\n"
        "class M(BaseModel):\n    top: int = Field(default=5, ge=1)"
    ),
}


def build(path: str, count: int, dims: int, seed: int) -> int:
    """A whole index of ``count`` documents (text and vectors), as ``--fresh`` opens it."""
    import random

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import bench_local
    from given_vectors import given_embedder

    from textsearch import LocalTextSearch

    rng = random.Random(seed)
    words = bench_local.vocabulary(30_000, rng)
    cum = bench_local.zipf_cum_weights(len(words))
    vectors = np.random.default_rng(seed)
    embedder, pending = given_embedder(dims)
    start, cpu = time.perf_counter(), time.process_time()
    with LocalTextSearch(path, engine="tantivy", embedder=embedder) as search:
        batch: list[dict[str, object]] = []
        for doc in [*bench_local.documents(count, words, cum, seed), None]:
            if doc is not None:
                batch.append(doc)
            if batch and (doc is None or len(batch) == 1000):
                rows = vectors.standard_normal((len(batch), dims), dtype=np.float32)
                rows /= np.linalg.norm(rows, axis=1, keepdims=True)
                pending[:] = rows.tolist()
                search.add_documents(batch)
                batch = []
    print(
        f"built {path}: {count:,} documents x {dims} in {time.perf_counter() - start:.0f} s "
        f"({time.process_time() - cpu:.0f} s CPU of this thread); load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    return 0


def compile_tree(root: str) -> None:
    """Write the bytecode of ``root``'s package, as installing it would."""
    import compileall

    compileall.compile_dir(os.path.join(root, "textsearch"), quiet=1)


def _timed_child(args: list[str], root: str) -> tuple[float, float]:
    import resource

    env = {**os.environ, "PYTHONPATH": root}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Run outside both trees: ``-c`` puts the working directory first on sys.path.
    subprocess.run(
        [sys.executable, *args],
        env=env,
        check=True,
        capture_output=True,
        timeout=600,
        cwd=tempfile.gettempdir(),
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall * 1000, cpu * 1000


def fresh_against(index: str, against: str, rounds: int, dims: int) -> int:
    """Fresh-process first semantic query: this tree and ``against`` interleaved, and floors."""
    import sqlite3
    import statistics

    with sqlite3.connect(index) as db:
        (model,) = db.execute(
            "SELECT value FROM textsearch_meta WHERE key = 'embedding_model'"
        ).fetchone()
    db.close()
    for root in {ROOT, against}:
        compile_tree(root)
    query = ["-c", FIRST, index, str(dims), model]
    arms = {"this tree": (query, ROOT), f"against {against}": (query, against)}
    arms.update({name: (["-c", code], ROOT) for name, code in FLOORS.items()})
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
    loads = []
    for _ in range(rounds):
        for name, (args, root) in arms.items():
            got[name].append(_timed_child(args, root))
        loads.append(os.getloadavg()[0])
    print(f"fresh process, first semantic query of {index} ({rounds} rounds, interleaved)")
    for name, samples in got.items():
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        print(f"  {name}: wall {wall:,.0f} ms, CPU {cpu:,.0f} ms (medians)")
    ours, base = got["this tree"], got[f"against {against}"]
    for i, what in ((0, "wall"), (1, "CPU")):
        ratio = statistics.median(a[i] / b[i] for a, b in zip(ours, base, strict=True))
        print(f"  this tree / against, {what}: {ratio:.2f} (median of per-round ratios)")
    print(f"  load average during the run: {min(loads):.1f}-{max(loads):.1f}")
    return 0


def latency(path: str, queries: int, dims: int, seed: int) -> int:
    """Per-query time of a whole index (``--build``'s) by mode: the public blocking call.

    Zipf queries of 1-3 content words, as ``bench_local.py`` makes them, each with a random
    unit vector made beforehand (the embedder only hands it out); 50 hybrid queries warm the
    page cache first. Wall and CPU time (this process, every thread) per query.
    """
    import random
    import resource
    import statistics

    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import bench_local
    from given_vectors import given_embedder

    from textsearch import LocalTextSearch

    words = bench_local.vocabulary(30_000, random.Random(seed))
    texts = bench_local.typical_queries(words, queries, random.Random(seed + 1))
    rows = np.random.default_rng(seed + 2).standard_normal((queries, dims), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    prepared = dict(zip(texts, rows.tolist(), strict=True))
    embedder, _ = given_embedder(dims, query_fn=lambda batch: [prepared[t] for t in batch])
    with LocalTextSearch(path, engine="tantivy", embedder=embedder, mode="hybrid") as search:
        for text in texts[:50]:
            search.get_search_results_sync(text, top=10)
        for mode in ("hybrid", "semantic", "keyword"):
            search.mode = mode  # type: ignore[assignment]
            wall: list[float] = []
            cpu: list[float] = []
            for text in texts:
                start, used = time.perf_counter(), time.process_time()
                search.get_search_results_sync(text, top=10)
                wall.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - used) * 1000)
            wall.sort()
            print(
                f"{mode}: {queries} queries, top=10: wall p50 {statistics.median(wall):.1f} ms, "
                f"p95 {wall[int(0.95 * (len(wall) - 1))]:.1f} ms; CPU p50 "
                f"{statistics.median(cpu):.1f} ms"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"max RSS {peak:,.0f} MB; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=1_000_000)
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--build", metavar="INDEX", help="only: write a whole index of --count documents"
    )
    parser.add_argument("--fresh", metavar="INDEX", help="only: first query of an existing index")
    parser.add_argument(
        "--against", metavar="ROOT", help="with --fresh: the source tree to compare"
    )
    parser.add_argument("--rounds", type=int, default=12, help="with --fresh")
    parser.add_argument(
        "--latency", metavar="INDEX", help="only: per-query time by mode of an existing index"
    )
    args = parser.parse_args()
    if args.latency:
        return latency(args.latency, args.queries, args.dims, args.seed)
    if args.build:
        return build(args.build, args.count, args.dims, args.seed)
    if args.fresh:
        return fresh_against(args.fresh, args.against or ROOT, args.rounds, args.dims)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "v.sqlite3")
        start, cpu = time.perf_counter(), time.process_time()
        write_index(path, args.count, args.dims, args.seed)
        write_s, write_cpu = time.perf_counter() - start, time.process_time() - cpu
        queries = np.random.default_rng(args.seed + 1).standard_normal(
            (args.queries, args.dims), dtype=np.float32
        )
        queries_file = os.path.join(tmp, "q.npy")
        np.save(queries_file, queries)
        env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
        out = subprocess.run(
            [sys.executable, "-c", QUERY, path, queries_file, "10"],
            cwd=tmp,  # ``-c`` puts the working directory first on sys.path: not another tree
            capture_output=True,
            text=True,
            check=True,
            env=env,
            timeout=3600,
        )
        got = json.loads(out.stdout)
        want = oracle(path, queries, args.count, args.dims, 10)
        same = sum(a == b for a, b in zip(got["answers"], want, strict=True))
        lance = lancedb_exact(path, queries[:50], args.count, args.dims)
    lat = sorted(got["latencies"])
    print(
        f"{args.count:,} x {args.dims} random unit vectors; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"written in {write_s:.1f} s ({write_cpu:.1f} s CPU: normalise, int8 copy, files)")
    print(
        f"fresh process, first query (imports, open, map, query): {got['first_ms']:,.0f} ms; "
        f"max RSS then {got['rss_open_mb']:,.0f} MB"
    )
    print(
        f"semantic arm, top 10 ({'int8 scan + float32 re-score' if got['quantised'] else 'float32'}"
        f"): p50 {lat[len(lat) // 2]:.1f} ms, p95 {lat[int(len(lat) * 0.95)]:.1f} ms; "
        f"max RSS {got['rss_mb']:,.0f} MB"
    )
    print(f"identical to the exact float32 oracle: {same}/{len(want)} queries")
    if lance is not None:
        print(f"LanceDB exact search (no index), same vectors, 50 queries: p50 {lance:.1f} ms")
    else:
        print("LanceDB: not installed (pip install lancedb), skipped")
    return 0 if same == len(want) else 1


if __name__ == "__main__":
    raise SystemExit(main())
