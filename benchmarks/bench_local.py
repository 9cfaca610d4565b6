"""Benchmark LocalTextSearch: indexing throughput, query latency, peak memory.

    python benchmarks/bench_local.py                   # 100,000 documents, 2,000 queries
    python benchmarks/bench_local.py --docs 10000 --queries 500
    python benchmarks/bench_local.py --html /usr/share/doc   # only: index every HTML file there
    python benchmarks/bench_local.py --html DIR --html-parser regex   # the fallback converter
    python benchmarks/bench_local.py --vectors           # hybrid and semantic search, 384 dims

``--vectors`` gives every document a random unit vector (``--dims``, 384 by default, the
size of all-MiniLM-L6-v2's) through a ``FunctionEmbedder``, then times hybrid, semantic-only
and keyword queries. Query vectors are made before timing: the latencies exclude the query's
embedding, whose cost (the embedder's call and the validation of its output) is printed apart.
Also printed: loading the vectors at the first query, building the int8 copy (numkong
installed, from 20,000 passages), index size and peak RSS. ``--exact-float32`` keeps the plain
float32 product (the int8 copy off) to compare; ``--embed-sample N`` times the offline
all-MiniLM-L6-v2 embedder (``minilm``, the ``onnx`` extra) on N of the documents: the indexing
rate with a real model. Random vectors are the hardest case for the int8 bounds (every score
is close to every other); BLAS threads: run with ``OPENBLAS_NUM_THREADS=1`` on a busy machine.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local.py --vectors --queries 1000
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_local.py --vectors --exact-float32
    python benchmarks/bench_local.py --vectors --docs 2000 --embed-sample 500
    python benchmarks/bench_local.py --markup DIR    # only: index the Markdown/RST/.txt files there

Documents are generated (~200 words each) from a Zipf-distributed vocabulary of
30,000 made-up words, so some words are in almost every document and most are rare,
as in real text; queries are 1-3 words drawn from the same distribution. Everything is
seeded, so runs are comparable. Peak memory is the process's maximum resident set size
(SQLite allocates outside Python, so tracemalloc alone would undercount).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from textsearch import LocalTextSearch, TextSearchFilter

SYLLABLES = [
    "ka", "to", "ri", "mo", "se", "na", "lu", "vi", "pe", "do", "gra", "shi", "tor", "ven",
    "bal", "quo", "zen", "fir", "mak", "lon", "dre", "pha", "kus", "tin",
]  # fmt: skip


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_cum_weights(size: int) -> list[float]:
    """Cumulative Zipf weights (precomputed: ``random.choices`` would redo it every call)."""
    total, cumulative = 0.0, []
    for rank in range(size):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return cumulative


def documents(n: int, words: list[str], cum: list[float], seed: int) -> Iterator[dict[str, object]]:
    rng = random.Random(seed)
    sites = ["docs.example.com", "blog.example.org", "kb.example.net", "wiki.example.io"]
    for i in range(n):
        body = rng.choices(words, cum_weights=cum, k=200)
        title = " ".join(rng.choices(words, cum_weights=cum, k=5))
        yield {
            "id": f"doc-{i}",
            "title": title,
            "text": " ".join(body),
            "link": f"https://{sites[i % len(sites)]}/page/{i}",
            "metadata": {"category": f"c{i % 10}", "tags": [f"t{i % 7}", f"t{i % 5}"]},
        }


STOPWORDS = 100


def typical_queries(words: list[str], count: int, rng: random.Random) -> list[str]:
    """``count`` typical queries: 1-3 content words (the vocabulary past its ``STOPWORDS``
    most frequent words), Zipf-distributed, drawn from ``rng``."""
    content, cum = words[STOPWORDS:], zipf_cum_weights(len(words))[STOPWORDS:]
    cum = [c - cum[0] + 1e-9 for c in cum]
    return [
        " ".join(rng.choices(content, cum_weights=cum, k=rng.randint(1, 3))) for _ in range(count)
    ]


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def bench_html(folder: str, parser: str, engine_choice: str) -> int:
    """Index every .html/.htm file under ``folder`` into a fresh index file, timed.

    Also timed apart: reading, parsing and splitting the files (``read_file``), the part that
    the HTML converter decides; the rest is writing the passages and the ranking index.
    """
    from pathlib import Path

    import textsearch.connectors.local._writing as local  # where index_path finds read_file
    from textsearch import _html

    used = _html.use_parser(None if parser == "auto" else parser)
    read_cpu = [0.0]
    read_file = local.read_file  # type: ignore[attr-defined]

    def timed_read_file(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return read_file(*args, **kwargs)
        finally:
            read_cpu[0] += time.process_time() - start

    local.read_file = timed_read_file  # type: ignore[attr-defined]
    files = [p for p in Path(folder).rglob("*") if p.suffix.lower() in (".html", ".htm")]
    megabytes = sum(p.stat().st_size for p in files if p.is_file()) / 1e6
    with tempfile.TemporaryDirectory() as tmp:
        search = LocalTextSearch(os.path.join(tmp, "html.sqlite3"), engine=engine_choice)  # type: ignore[arg-type]
        start, cpu = time.perf_counter(), time.process_time()
        report = search.index_path(folder, extensions=(".html", ".htm"))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        passages = search._db.execute("SELECT count(*) FROM passages").fetchone()[0]
        engine = search.engine
        search.close()
    local.read_file = read_file  # type: ignore[attr-defined]
    print(
        f"[{used}] indexed {report.indexed:,} HTML files "
        f"({megabytes:.1f} MB, {len(files):,} found) "
        f"into {passages:,} passages in {seconds:.2f} s wall, {cpu:.2f} s CPU "
        f"= {report.indexed / seconds:,.0f} files/s (engine: {engine})"
    )
    print(
        f"  CPU: read + parse + split {read_cpu[0]:.2f} s "
        f"({megabytes / max(read_cpu[0], 1e-9):.0f} MB/s), "
        f"the rest (passages, ranking index) {cpu - read_cpu[0]:.2f} s"
    )
    return 0


def bench_vectors(args: argparse.Namespace, words: list[str], cum: list[float]) -> int:
    import numpy as np
    from given_vectors import given_embedder

    from textsearch.embeddings import embed_query_sync

    rng = np.random.default_rng(args.seed)

    def random_unit(texts: list[str]) -> Any:
        rows = rng.standard_normal((len(texts), args.dims), dtype=np.float32)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).tolist()

    prepared: dict[str, list[float]] = {}
    # Vectors made before each timed add_documents call: the index's work alone is timed.
    embedder, pending = given_embedder(
        args.dims, query_fn=lambda texts: [prepared[t] for t in texts]
    )
    from textsearch.connectors.local import _vectors

    if args.exact_float32:
        _vectors.QUANTISE_FROM = 2**62
    embed_rate = embed_sample(args, words, cum) if args.embed_sample else None
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "bench.sqlite3")
        search = LocalTextSearch(db_path, engine=args.engine, embedder=embedder)
        batch: list[dict[str, object]] = []
        index_seconds = index_cpu = 0.0

        def add(batch: list[dict[str, object]]) -> tuple[float, float]:
            pending[:] = random_unit([""] * len(batch))
            start, cpu = time.perf_counter(), time.process_time()
            search.add_documents(batch)
            return time.perf_counter() - start, time.process_time() - cpu

        for doc in documents(args.docs, words, cum, args.seed):
            batch.append(doc)
            if len(batch) >= args.batch:
                wall, cpu = add(batch)
                index_seconds, index_cpu = index_seconds + wall, index_cpu + cpu
                batch.clear()
        if batch:
            wall, cpu = add(batch)
            index_seconds, index_cpu = index_seconds + wall, index_cpu + cpu
        fresh = fresh_first_query(db_path, search.engine, args.dims)
        qrng = random.Random(args.seed + 1)
        queries = typical_queries(words, args.queries, qrng)
        for q, vector in zip(queries, random_unit(queries), strict=True):
            prepared[q] = vector
        embedding: list[float] = []
        for q in queries:
            t0 = time.perf_counter()
            embed_query_sync(embedder, q)
            embedding.append((time.perf_counter() - t0) * 1000)

        load = time.perf_counter()
        search.mode = "semantic"
        search.get_search_results_sync(queries[0], top=5)  # loads the vectors once
        load_ms = (time.perf_counter() - load) * 1000
        index = search._vector_index
        assert index is not None
        quantised = index.quantised  # the int8 copy is written with the vectors

        search.mode = "hybrid"
        for q in queries[:50]:  # warm the page cache and the ranking index, as for keywords
            search.get_search_results_sync(q, top=5)

        def timed(mode: str, fusion: str = "blend", **options: Any) -> list[float]:
            search.mode = mode  # type: ignore[assignment]
            search._fusion = fusion  # type: ignore[assignment]
            out = []
            for q in queries:
                vector = prepared[q]
                _, opts = search._prepare(q, None, {"top": 5, **options})
                t0 = time.perf_counter()
                search._search(q, opts, vector if mode != "keyword" else None)
                out.append((time.perf_counter() - t0) * 1000)
            return out

        site = TextSearchFilter().equal_to("site", "kb.example.net")
        tag = TextSearchFilter().equal_to("category", "c3")
        rows = (
            {"hybrid (blend)": timed("hybrid")}
            if args.hybrid_only
            else {
                "hybrid (blend)": timed("hybrid"),
                "hybrid (rrf)": timed("hybrid", "rrf"),
                "hybrid, filtered (site, 1/4 of documents)": timed("hybrid", filter=site),
                "hybrid, filtered (metadata, 1/10)": timed("hybrid", filter=tag),
                "hybrid, third page (skip 10)": timed("hybrid", skip=10),
                "semantic only": timed("semantic"),
                "semantic only, filtered (site)": timed("semantic", filter=site),
                "keyword only": timed("keyword"),
            }
        )
        engine = search.engine
        search.close()
        size_mb = index_size(db_path) / 1e6
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; engine: {engine}")
    print(
        f"indexed {args.docs:,} documents with {args.dims}-dimension vectors in "
        f"{index_seconds:.1f} s, {index_cpu:.1f} s CPU (random vectors made outside the "
        f"timed calls); index {size_mb:,.0f} MB"
    )
    print(
        f"first semantic query in a fresh process: {fresh['ms']:,.0f} ms from before "
        f"`import textsearch` ({fresh['open_ms']:,.0f} ms of it open + query), "
        f"max RSS {fresh['rss_mb']:,.0f} MB"
    )
    how = "int8 scan + exact float32 re-score" if quantised else "float32 product"
    print(
        f"search by meaning: {how}; first query in this process (maps the vectors): "
        f"{load_ms:,.0f} ms"
    )
    blas = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    print(f"BLAS threads: {blas}; load average at the end: {os.getloadavg()[0]:.1f}")
    if embed_rate is not None:
        print(f"offline embedder (minilm, int8 ONNX): {embed_rate:,.1f} passages/s")
    for name, latencies in rows.items():
        print(
            f"{name}: {len(latencies):,} queries, top=5: "
            f"p50 {statistics.median(latencies):.2f} ms, "
            f"p95 {percentile(latencies, 95):.2f} ms"
        )
    print(
        f"query embedding (FunctionEmbedder call + validation, excluded above): "
        f"p50 {statistics.median(embedding):.3f} ms"
    )
    print(f"peak memory (max RSS): {peak_mb:,.0f} MB")
    return 0


FRESH = """
import json, resource, sys, time
def PEAK():  # this process's peak RSS in MB (ru_maxrss would carry a big parent's over exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
from textsearch import LocalTextSearch
from textsearch.embeddings import FunctionEmbedder
dims = int(sys.argv[3])
unit = [1.0 / dims ** 0.5] * dims
emb = FunctionEmbedder(lambda texts: [unit for _ in texts], model=f"random-{dims}", dimensions=dims)
t1 = time.perf_counter()
s = LocalTextSearch(sys.argv[1], engine=sys.argv[2], embedder=emb, mode="semantic")
found = s.get_search_results_sync("first", top=5)
t2 = time.perf_counter()
assert len(found.results) == 5
print(json.dumps({"ms": (t2 - t0) * 1000, "open_ms": (t2 - t1) * 1000,
                  "rss_mb": PEAK()}))
"""


def fresh_first_query(db_path: str, engine: str, dims: int) -> dict[str, float]:
    """Open the index in a new interpreter and run one semantic query (import included)."""
    import json
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", FRESH, db_path, engine, str(dims)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def embed_sample(args: argparse.Namespace, words: list[str], cum: list[float]) -> float:
    """Passages per second of the offline embedder on the first documents (as indexed)."""
    from textsearch.embeddings import embed_documents_sync, from_spec

    embedder = from_spec("minilm")
    texts = [
        str(d["title"]) + "\n" + str(d["text"])
        for d in documents(args.embed_sample, words, cum, args.seed)
    ]
    embed_documents_sync(embedder, texts[:8])  # loads the model
    start = time.perf_counter()
    for begin in range(0, len(texts), 64):
        embed_documents_sync(embedder, texts[begin : begin + 64])
    return len(texts) / (time.perf_counter() - start)


def bench_markup(folder: str, engine_choice: str, repeat: int = 3) -> int:
    """Index every Markdown, reStructuredText and ``.txt`` file under ``folder``, timed.

    A real project's docs (``benchmarks/doc_sets.py`` downloads some) measure what the
    Markdown and reStructuredText readers cost; the best of ``repeat`` runs is reported, as
    the machine may be busy. Reading + parsing + splitting (``read_file``) is timed apart.
    """
    from pathlib import Path

    import textsearch.connectors.local._writing as local  # where index_path finds read_file

    suffixes = (".md", ".markdown", ".rst", ".txt")
    files = [p for p in Path(folder).rglob("*") if p.suffix.lower() in suffixes and p.is_file()]
    megabytes = sum(p.stat().st_size for p in files) / 1e6
    read_file = local.read_file  # type: ignore[attr-defined]
    best: tuple[float, float, float] | None = None
    for _ in range(repeat):
        read_cpu = [0.0]

        def timed_read_file(*args: Any, _cpu: list[float] = read_cpu, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return read_file(*args, **kwargs)
            finally:
                _cpu[0] += time.process_time() - start

        local.read_file = timed_read_file  # type: ignore[attr-defined]
        with tempfile.TemporaryDirectory() as tmp:
            search = LocalTextSearch(os.path.join(tmp, "m.sqlite3"), engine=engine_choice)  # type: ignore[arg-type]
            start, cpu = time.perf_counter(), time.process_time()
            report = search.index_path(folder, extensions=suffixes)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            passages = search._db.execute("SELECT count(*) FROM passages").fetchone()[0]
            search.close()
        local.read_file = read_file  # type: ignore[attr-defined]
        if best is None or cpu < best[1]:
            best = (seconds, cpu, read_cpu[0])
    assert best is not None
    seconds, cpu, read = best
    print(
        f"indexed {report.indexed:,} Markdown/RST/.txt files ({megabytes:.1f} MB) into "
        f"{passages:,} passages: best of {repeat} {seconds:.2f} s wall, {cpu:.2f} s CPU; "
        f"read + parse + split {read:.2f} s CPU ({megabytes / max(read, 1e-9):.1f} MB/s)"
    )
    return 0


def index_size(db_path: str) -> int:
    """Bytes on disk of an index: the SQLite file, its WAL, the tantivy and vector folders."""
    total = 0
    for extra in ("", "-wal"):
        if os.path.exists(db_path + extra):
            total += os.path.getsize(db_path + extra)
    for folder in (".tantivy", ".vectors"):
        for root, _, files in os.walk(db_path + folder):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def _lancedb_index_cpu(folder: str, docs: list[dict[str, Any]], vectors: Any, batch: int) -> Any:
    """CPU seconds of LanceDB: the same rows and vectors added by batch, then its native FTS
    index built; or None when lancedb is not installed (never a textsearch dependency)."""
    try:
        import lancedb  # type: ignore[import-not-found,unused-ignore]
        import pyarrow as pa  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    import warnings

    # create_fts_index still builds the native FTS index (use_tantivy=False); its warning only
    # points at the newer spelling, create_index(config=FTS())
    warnings.filterwarnings("ignore", message="create_fts_index is deprecated")
    db = lancedb.connect(os.path.join(folder, "lance"))
    table = None
    add_cpu = 0.0
    dims = vectors.shape[1]
    for begin in range(0, len(docs), batch):
        part = docs[begin : begin + batch]
        rows = pa.table(
            {
                "id": [d["id"] for d in part],
                "title": [d["title"] for d in part],
                "text": [d["text"] for d in part],
                "link": [d["link"] for d in part],
                "category": [d["metadata"]["category"] for d in part],
                "tags": [d["metadata"]["tags"] for d in part],
                "vector": pa.FixedSizeListArray.from_arrays(
                    pa.array(vectors[begin : begin + len(part)].reshape(-1)), dims
                ),
            }
        )  # made before the timed call, as textsearch's vectors are
        cpu = time.process_time()
        if table is None:
            table = db.create_table("docs", rows)
        else:
            table.add(rows)
        add_cpu += time.process_time() - cpu
    assert table is not None
    cpu = time.process_time()
    table.create_fts_index("text")
    fts_text_cpu = time.process_time() - cpu
    cpu = time.process_time()
    table.create_fts_index("title")
    fts_title_cpu = time.process_time() - cpu
    hits = table.search("the", query_type="fts").limit(5).to_list()
    # With positions, as textsearch keeps them for phrase queries (LanceDB's default has none)
    cpu = time.process_time()
    table.create_fts_index("text", replace=True, with_position=True)
    fts_positions_cpu = time.process_time() - cpu
    return {
        "add": add_cpu,
        "fts_text": fts_text_cpu,
        "fts_title": fts_title_cpu,
        "fts_positions": fts_positions_cpu,
        "hits": len(hits),
    }


def _textsearch_index_cpu(
    db_path: str,
    engine: str,
    docs: list[dict[str, Any]],
    vectors: Any,
    batch: int,
    profiler: Any = None,
) -> tuple[float, str, float]:
    """CPU seconds of ``add_documents`` with the vectors given (an embedder that hands them),
    the engine used, and the CPU seconds of that in other threads than the caller's."""
    from given_vectors import given_embedder

    embedder, pending = given_embedder(vectors.shape[1])
    search = LocalTextSearch(db_path, engine=engine, embedder=embedder)  # type: ignore[arg-type]
    total = own = 0.0
    for begin in range(0, len(docs), batch):
        part = docs[begin : begin + batch]
        pending[:] = vectors[begin : begin + len(part)].tolist()
        if profiler is not None:
            profiler.enable()
        cpu, mine = time.process_time(), time.thread_time()
        search.add_documents(part)
        total += time.process_time() - cpu
        own += time.thread_time() - mine
        if profiler is not None:
            profiler.disable()
    used = search.engine
    search.close()
    # total - own: other threads than the caller's (tantivy's indexing and merging threads)
    return total, used, total - own


def bench_vs_lancedb(args: argparse.Namespace, words: list[str], cum: list[float]) -> int:
    """Indexing CPU per passage, vectors given: textsearch (each engine) against LanceDB.

    ``--rounds`` rounds, each LanceDB then every engine on the same documents: a round's ratio
    sets its arms side by side, so a drift in the machine's speed between rounds (this
    machine's single runs went from 1.2x to 2.1x) moves both; the medians are printed last.
    """
    import numpy as np

    docs = list(documents(args.docs, words, cum, args.seed))
    rng = np.random.default_rng(args.seed)
    vectors = rng.standard_normal((len(docs), args.dims), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    engines = ["tantivy", "sqlite"] if args.engine == "auto" else [args.engine]
    print(
        f"{len(docs):,} documents (~200 words, one passage each) x {args.dims} dims, batches of "
        f"{args.batch:,}, {args.rounds} round(s); load average {os.getloadavg()[0]:.1f}"
    )
    ratios: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            folder = os.path.join(tmp, f"round{round_}")
            os.makedirs(folder)
            lance = _lancedb_index_cpu(folder, docs, vectors, args.batch)
            if lance is None:
                print("LanceDB: not installed (pip install lancedb), skipped")
                lance_cpu = positioned = None
            else:
                lance_cpu = lance["add"] + lance["fts_text"]
                print(
                    f"[{round_ + 1}] LanceDB: table add {lance['add']:.1f} s CPU + native FTS "
                    f"index on text {lance['fts_text']:.1f} s = {lance_cpu:.1f} s "
                    f"({lance_cpu / len(docs) * 1e6:.0f} µs a passage); an FTS index on title "
                    f"too: +{lance['fts_title']:.1f} s; the text's with positions (phrases): "
                    f"{lance['fts_positions']:.1f} s instead of {lance['fts_text']:.1f} s"
                )
                positioned = lance["add"] + lance["fts_positions"]
            for engine in engines:
                db_path = os.path.join(folder, f"{engine}.sqlite3")
                cpu, used, other = _textsearch_index_cpu(db_path, engine, docs, vectors, args.batch)
                ratio = ""
                if lance_cpu and positioned:
                    ratios.setdefault(used, []).append((cpu / lance_cpu, cpu / positioned))
                    ratio = (
                        f"; {cpu / lance_cpu:.2f}x LanceDB's ({cpu / positioned:.2f}x with "
                        "positions)"
                    )
                print(
                    f"[{round_ + 1}] textsearch ({used}): add_documents {cpu:.1f} s CPU "
                    f"({cpu / len(docs) * 1e6:.0f} µs a passage"
                    + (f"; {other:.1f} s in tantivy's own threads" if used == "tantivy" else "")
                    + f"){ratio}",
                    flush=True,
                )
                if round_ == args.rounds - 1:
                    fresh = [fresh_first_query(db_path, used, args.dims) for _ in range(3)]
                    ms = sorted(f["ms"] for f in fresh)
                    print(
                        f"  first semantic query in a fresh process (import included), 3 runs: "
                        f"{', '.join(f'{m:,.0f}' for m in ms)} ms (open + query: "
                        f"{min(f['open_ms'] for f in fresh):,.0f} ms at best); max RSS "
                        f"{max(f['rss_mb'] for f in fresh):,.0f} MB"
                    )
            shutil.rmtree(folder, ignore_errors=True)
        for used, pairs in ratios.items():
            print(
                f"median of {len(pairs)} round(s), {used}: "
                f"{statistics.median(p[0] for p in pairs):.2f}x LanceDB's "
                f"({statistics.median(p[1] for p in pairs):.2f}x with positions); rounds: "
                + ", ".join(f"{p[0]:.2f}x" for p in pairs)
            )
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile(time.process_time)  # CPU, every thread's
            count = min(len(docs), args.profile)
            _textsearch_index_cpu(
                os.path.join(tmp, "profiled.sqlite3"),
                engines[0],
                docs[:count],
                vectors[:count],
                args.batch,
                profiler,
            )
            print(
                f"\ncProfile of add_documents ({engines[0]}, {count:,} passages), top 12 by "
                "own time:"
            )
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(12)
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(25)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


FLOOR_INDEX = r"""
import json, resource, sys, time
def PEAK():  # this process's peak RSS in MB (ru_maxrss would carry a big parent's over exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
from textsearch import LocalTextSearch
from textsearch.embeddings import OnnxEmbedder

folder, index, batches_file = sys.argv[1], sys.argv[2], sys.argv[3]
embedder = OnnxEmbedder.default()
batches = []
run = embedder._run
run(["warm up"])  # both arms start with onnxruntime warmed


def recorded(texts):
    batches.append(list(texts))
    return run(texts)


embedder._run = recorded  # records each inference call's texts (the raw arm replays them)
search = LocalTextSearch(index, embedder=embedder)
cpu, wall = time.process_time(), time.perf_counter()
report = search.index_path(folder)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
search.close()
json.dump(batches, open(batches_file, "w"))
print(json.dumps({"cpu": cpu, "wall": wall, "passages": sum(map(len, batches)),
                  "files": report.indexed,
                  "rss_mb": PEAK()}))
"""

FLOOR_RAW = r"""
import json, resource, sys, time
def PEAK():  # this process's peak RSS in MB (ru_maxrss would carry a big parent's over exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer
from textsearch.embeddings import _onnx

model = _onnx._package_dir(_onnx.DEFAULT_MODEL_PACKAGE) / "model.onnx"
tokenizer_file = _onnx._package_dir(_onnx.DEFAULT_TOKENIZER_PACKAGE) / _onnx.DEFAULT_TOKENIZER_FILE
batches = json.load(open(sys.argv[1]))
session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
tokenizer = Tokenizer.from_file(str(tokenizer_file))
tokenizer.enable_truncation(max_length=int(sys.argv[2]))
tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]"), pad_token="[PAD]")
names = [i.name for i in session.get_inputs()]
field = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}
warm = tokenizer.encode_batch(["warm up"])
session.run(None, {n: np.array([getattr(e, field[n]) for e in warm]) for n in names})
cpu, wall = time.process_time(), time.perf_counter()
for texts in batches:
    encodings = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feed = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        feed["token_type_ids"] = np.zeros_like(ids)
    out = session.run(None, feed)[0]
    pooled = (out * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps({"cpu": cpu, "wall": wall, "passages": sum(map(len, batches)),
                  "rss_mb": PEAK()}))
"""


def bench_embed_floor(folder: str, rounds: int) -> int:
    """``index_path`` with ``OnnxEmbedder.default()`` against raw onnxruntime on the same
    passages in the same batches (each in a fresh process, interleaved round by round)."""
    import json
    import subprocess

    from textsearch.embeddings import _onnx

    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    rows: dict[str, list[dict[str, float]]] = {"index_path": [], "raw onnxruntime": []}
    with tempfile.TemporaryDirectory() as tmp:
        batches = os.path.join(tmp, "batches.json")
        for number in range(rounds):
            index = os.path.join(tmp, f"index-{number}.sqlite3")
            for name, code, argv in (
                ("index_path", FLOOR_INDEX, [folder, index, batches]),
                ("raw onnxruntime", FLOOR_RAW, [batches, str(_onnx.DEFAULT_MAX_LENGTH)]),
            ):
                out = subprocess.run(
                    [sys.executable, "-c", code, *argv],
                    capture_output=True,
                    text=True,
                    check=True,
                    env=env,
                    timeout=7200,
                )
                rows[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
                print(f"  round {number + 1}, {name}: {rows[name][-1]}", flush=True)
        print(f"{folder}: load average {os.getloadavg()[0]:.1f}, {rounds} rounds interleaved")
        with open(batches) as handle:
            sizes = sorted(len(b) for b in json.load(handle))
    first = rows["index_path"][0]
    print(
        f"inference calls: {len(sizes)}, passages a call: median {sizes[len(sizes) // 2]}, "
        f"max {sizes[-1]}"
    )
    for name, runs in rows.items():
        rates = ", ".join(f"{r['passages'] / r['cpu']:.2f}" for r in runs)
        walls = ", ".join(f"{r['wall']:.0f}" for r in runs)
        peak = max(r["rss_mb"] for r in runs)
        print(f"{name}: {rates} passages per CPU-second; wall {walls} s; peak RSS {peak:,.0f} MB")
    ratios = [
        a["cpu"] and b["cpu"] / a["cpu"]
        for a, b in zip(rows["index_path"], rows["raw onnxruntime"], strict=True)
    ]
    print(
        f"index_path / raw floor, passages per CPU-second, by round: "
        f"{', '.join(f'{r:.2f}x' for r in ratios)} (target >= 0.95x); "
        f"{first['passages']:,} passages"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--html", metavar="DIR", help="only time indexing the HTML files of DIR")
    parser.add_argument(
        "--markup", metavar="DIR", help="only time indexing the Markdown/RST/.txt files of DIR"
    )
    parser.add_argument(
        "--html-parser",
        choices=("auto", "selectolax", "regex"),
        default="auto",
        help="with --html: the HTML converter (auto: selectolax when installed)",
    )
    parser.add_argument(
        "--engine",
        default="auto",
        choices=["auto", "sqlite", "tantivy"],
        help="LocalTextSearch ranking engine (auto: tantivy when installed)",
    )
    parser.add_argument(
        "--vectors",
        action="store_true",
        help="with an embedder of random unit vectors: hybrid and semantic latency",
    )
    parser.add_argument("--dims", type=int, default=384, help="with --vectors: vector length")
    parser.add_argument(
        "--exact-float32",
        action="store_true",
        help="with --vectors: the float32 product only (no int8 copy), to compare",
    )
    parser.add_argument(
        "--embed-sample",
        type=int,
        default=0,
        metavar="N",
        help="with --vectors: time the offline minilm embedder on N documents",
    )
    parser.add_argument(
        "--hybrid-only",
        action="store_true",
        help="with --vectors: time only hybrid queries (to profile them, e.g. under py-spy)",
    )
    parser.add_argument(
        "--vs-lancedb",
        action="store_true",
        help="only: indexing CPU with vectors given, textsearch (each engine) against LanceDB",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="with --vs-lancedb: cProfile add_documents over the first N documents",
    )
    parser.add_argument(
        "--embed-floor",
        metavar="DIR",
        help="only: index_path with OnnxEmbedder.default() against raw onnxruntime, same batches",
    )
    parser.add_argument("--rounds", type=int, default=2, help="with --embed-floor and --vs-lancedb")
    args = parser.parse_args()
    if args.embed_floor:
        return bench_embed_floor(args.embed_floor, args.rounds)
    if args.vs_lancedb:
        rng = random.Random(args.seed)
        words = vocabulary(30_000, rng)
        return bench_vs_lancedb(args, words, zipf_cum_weights(len(words)))
    if args.vectors:
        rng = random.Random(args.seed)
        words = vocabulary(30_000, rng)
        return bench_vectors(args, words, zipf_cum_weights(len(words)))
    if args.html:
        return bench_html(args.html, args.html_parser, args.engine)
    if args.markup:
        return bench_markup(args.markup, args.engine)

    rng = random.Random(args.seed)
    words = vocabulary(30_000, rng)
    cum = zipf_cum_weights(len(words))

    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "bench.sqlite3")
        search = LocalTextSearch(db_path, engine=args.engine)
        batch: list[dict[str, object]] = []
        index_seconds = 0.0  # only add_documents is timed, not generating the text
        index_cpu = 0.0  # CPU time too: on a busy machine wall time overstates the cost
        for doc in documents(args.docs, words, cum, args.seed):
            batch.append(doc)
            if len(batch) >= args.batch:
                start, cpu = time.perf_counter(), time.process_time()
                search.add_documents(batch)
                index_seconds += time.perf_counter() - start
                index_cpu += time.process_time() - cpu
                batch.clear()
        if batch:
            start, cpu = time.perf_counter(), time.process_time()
            search.add_documents(batch)
            index_seconds += time.perf_counter() - start
            index_cpu += time.process_time() - cpu

        # Typical queries: 1-3 content words, Zipf-distributed. The 100 most frequent
        # made-up words play the part of stopwords ("the", "of", "how"): queries made only of
        # them match most of the corpus and are measured apart as "broad" queries.
        qrng = random.Random(args.seed + 1)
        queries = typical_queries(words, args.queries, qrng)
        broad_queries = [
            " ".join(qrng.choices(words[:STOPWORDS], k=qrng.randint(1, 2)))
            for _ in range(max(20, args.queries // 10))
        ]
        for q in queries[:50]:  # warm the page cache
            search.search_sync(q)
        latencies: list[float] = []
        cpu_latencies: list[float] = []
        for q in queries:
            t0, c0 = time.perf_counter(), time.thread_time()
            search.get_text_search_results_sync(q, top=5)
            latencies.append((time.perf_counter() - t0) * 1000)
            cpu_latencies.append((time.thread_time() - c0) * 1000)
        filtered: list[float] = []
        site = TextSearchFilter().equal_to("site", "kb.example.net").any_tag_equal_to("tags", "t3")
        for q in queries[: args.queries // 4]:
            t0 = time.perf_counter()
            search.get_text_search_results_sync(q, top=5, filter=site)
            filtered.append((time.perf_counter() - t0) * 1000)
        broad: list[float] = []
        cpu_broad: list[float] = []
        for q in broad_queries:
            t0, c0 = time.perf_counter(), time.thread_time()
            search.get_text_search_results_sync(q, top=5)
            broad.append((time.perf_counter() - t0) * 1000)
            cpu_broad.append((time.thread_time() - c0) * 1000)
        engine = search.engine
        search.close()
        size_mb = index_size(db_path) / 1e6  # after close: the WAL is checkpointed into the file

    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; engine: {engine}")
    print(
        f"indexed {args.docs:,} documents (~200 words) in {index_seconds:.1f} s "
        f"= {args.docs / index_seconds:,.0f} documents/s; index {size_mb:,.0f} MB "
        "(SQLite file + WAL + tantivy folder)"
    )
    print(f"  CPU time of indexing: {index_cpu:.1f} s = {args.docs / index_cpu:,.0f} documents/s")
    print(
        f"{len(latencies):,} queries, top=5: p50 {statistics.median(latencies):.2f} ms, "
        f"p95 {percentile(latencies, 95):.2f} ms, max {max(latencies):.2f} ms"
    )
    print(
        f"  CPU time per query: p50 {statistics.median(cpu_latencies):.2f} ms, "
        f"p95 {percentile(cpu_latencies, 95):.2f} ms"
    )
    print(
        f"{len(filtered):,} filtered queries (site + tag): "
        f"p50 {statistics.median(filtered):.2f} ms, "
        f"p95 {percentile(filtered, 95):.2f} ms"
    )
    print(
        f"{len(broad):,} broad queries (only the {STOPWORDS} most frequent words): "
        f"p50 {statistics.median(broad):.2f} ms, p95 {percentile(broad, 95):.2f} ms"
    )
    print(
        f"  CPU time per broad query: p50 {statistics.median(cpu_broad):.2f} ms, "
        f"p95 {percentile(cpu_broad, 95):.2f} ms"
    )
    print(f"peak memory (max RSS): {peak_mb:,.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
