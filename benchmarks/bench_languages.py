"""Keyword and hybrid search across languages: XQuAD-R (zh, de, es, en) and a Japanese set.

    python benchmarks/bench_languages.py                         # every set, both local engines
    python benchmarks/bench_languages.py --sets zh ja --engines sqlite
    python benchmarks/bench_languages.py --sets zh --postgres    # + a throw-away PostgreSQL
    python benchmarks/bench_languages.py --sets zh en --embedder e5   # + hybrid and semantic
    python benchmarks/bench_languages.py --sets zh --embedder e5 --vector-cache /tmp/cjk-bench
    python benchmarks/bench_languages.py --scale 100000          # latency and indexing rate
    python benchmarks/bench_languages.py --sets zh --segmenter jieba  # compare segmenters

XQuAD-R is read from ``../shared/relevance/xquad-r/<lang>`` (BEIR layout; CC BY-SA 4.0, read in
place, never copied); the Japanese set is written for this project (``lang_sets.py``). Each
sentence is one document; each question has one relevant sentence. Printed per set and
engine: nDCG@10, Recall@10, queries with no result at all, p50 query latency.

``--scale N`` builds N passages of four sentences each, drawn (seeded) from the English and the
Chinese XQuAD-R sentences, indexes them with each engine (passages per CPU second and per
second) and times the questions of each language against them in alternating rounds (p50,
and the Chinese / English ratio of each round); nDCG@10 at that scale counts every passage
holding a question's relevant sentence.

``--segmenter`` swaps the CJK segmentation of index and query to compare them: ``bigram`` (the
product's: bigrams and characters), ``bigram-only``, ``jieba`` (dictionary words; ``jieba``
installed), ``both`` (jieba's words and bigrams).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
DATA = Path(os.environ.get("TEXTSEARCH_RELEVANCE_DATA") or ROOT.parent / "shared" / "relevance")

Corpus = dict[str, dict[str, str]]
Qrels = dict[str, dict[str, int]]


def load_xquad(lang: str) -> tuple[Corpus, dict[str, str], Qrels]:
    folder = DATA / "xquad-r" / lang
    corpus: Corpus = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            corpus[row["_id"]] = {"title": row.get("title") or "", "text": row["text"]}
    queries: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            queries[row["_id"]] = row["text"]
    qrels: Qrels = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as stream:
        next(stream)
        for line in stream:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(qid, {})[did] = int(score)
    return corpus, {q: t for q, t in queries.items() if q in qrels}, qrels


def load_japanese() -> tuple[Corpus, dict[str, str], Qrels]:
    from lang_sets import JAPANESE

    corpus: Corpus = {}
    queries: dict[str, str] = {}
    qrels: Qrels = {}
    for n, (passage, questions) in enumerate(JAPANESE):
        corpus[f"ja{n}"] = {"title": "", "text": passage}
        for m, question in enumerate(questions):
            queries[f"q{n}.{m}"] = question
            qrels[f"q{n}.{m}"] = {f"ja{n}": 1}
    return corpus, queries, qrels


LIMIT_DOCS: list[int] = []  # --limit-docs: the first N sentences and their questions only


def load_set(name: str) -> tuple[Corpus, dict[str, str], Qrels]:
    corpus, queries, qrels = load_japanese() if name == "ja" else load_xquad(name)
    if LIMIT_DOCS:
        corpus = dict(list(corpus.items())[: LIMIT_DOCS[0]])
        queries = {q: t for q, t in queries.items() if set(qrels[q]) <= set(corpus)}
    return corpus, queries, qrels


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))]


def evaluate(
    search: Callable[[str], list[str]], queries: dict[str, str], qrels: Qrels
) -> dict[str, float]:
    ndcgs, recalls, times = [], [], []
    empty = 0
    for qid, text in queries.items():
        start = time.perf_counter()
        ranked = search(text)
        times.append((time.perf_counter() - start) * 1000)
        ndcgs.append(ndcg_at(ranked, qrels[qid]))
        recalls.append(len(set(ranked[:10]) & set(qrels[qid])) / len(qrels[qid]))
        empty += not ranked
    return {
        "ndcg": statistics.fmean(ndcgs),
        "recall": statistics.fmean(recalls),
        "empty": empty,
        "n": len(queries),
        "p50": percentile(times, 50),
    }


def use_segmenter(name: str) -> None:
    """Swap the CJK segmentation of index and query (for comparison only)."""
    if name == "bigram":
        return
    import textsearch._cjk as cjk
    import textsearch.connectors.local._query as query

    def pairs(run: str) -> list[str]:
        return [run[i : i + 2] for i in range(len(run) - 1)] or [run]

    def words(run: str) -> list[str]:
        if name == "bigram-only":
            return pairs(run)
        import jieba

        jieba.setLogLevel(60)
        found = [w for w in jieba.cut_for_search(run) if w.strip()]
        return found + pairs(run) if name == "both" else found

    cjk.bigrams = words  # type: ignore[assignment]
    query.bigrams = words  # type: ignore[assignment]
    # The engines cut runs their own way at indexing: SQLite through `index_tokens`, tantivy
    # with an n-gram tokenizer. Both are pointed at `words` instead.
    import textsearch.connectors.local._schema as schema

    schema.index_tokens = cjk.index_text  # type: ignore[assignment]
    try:
        import tantivy

        import textsearch.connectors.local._tantivy as engine
    except ImportError:
        return

    def runs_as_words(text: str, separator: str = " ") -> tuple[str, list[str]]:
        rest, runs = cjk.split_runs(text, separator)
        return rest, [" ".join(words(run)) for run in runs]

    engine.split_runs = runs_as_words  # type: ignore[assignment]
    engine._cjk_analyzer = lambda: tantivy.TextAnalyzerBuilder(  # type: ignore[assignment]
        tantivy.Tokenizer.whitespace()
    ).build()


def local_search(corpus: Corpus, engine: str, embedder: Any = None, mode: str = "keyword") -> Any:
    from textsearch import LocalTextSearch

    kwargs: dict[str, Any] = {"engine": engine}
    if embedder is not None:
        kwargs.update(embedder=embedder, mode=mode)
    index = LocalTextSearch(**kwargs)
    index.add_documents(
        {"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items()
    )
    return index


def ids_of(index: Any) -> Callable[[str], list[str]]:
    def search(text: str) -> list[str]:
        try:
            return [d.id for d in index.get_documents_sync(text, top=10)]
        except Exception:  # an all-punctuation query is an error by design: no results
            return []

    return search


def row(label: str, result: dict[str, float]) -> None:
    print(
        f"{label:<34} {result['ndcg']:8.3f} {result['recall']:6.3f} "
        f"{int(result['empty']):>5}/{int(result['n']):<5} {result['p50']:7.2f}",
        flush=True,
    )


def keyword_rows(sets: list[str], engines: list[str]) -> None:
    for name in sets:
        corpus, queries, qrels = load_set(name)
        for engine in engines:
            index = local_search(corpus, engine)
            row(f"{name} local {engine} keyword", evaluate(ids_of(index), queries, qrels))
            index.close()


def postgres_rows(sets: list[str]) -> None:
    from tests.pg_server import remove_server, start_server
    from textsearch import PostgresTextSearch

    server = start_server("shared_buffers = 256MB")
    try:
        for name in sets:
            corpus, queries, qrels = load_set(name)
            for rank in ("bm25", "ts_rank"):
                pg = PostgresTextSearch(
                    server.dsn, table=f"lang_{name}", rank_function=rank, timeout=120
                )
                if rank == "bm25":
                    pg.create_schema_sync()
                    pg.add_documents_sync(
                        {"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items()
                    )
                row(f"{name} postgres {rank}", evaluate(ids_of(pg), queries, qrels))
                pg.close()
    finally:
        remove_server(server)


class CachedEmbedder:
    """An embedder whose vectors are kept on disk (``--vector-cache``): a rerun embeds nothing.

    Keyed by model, role (query or passage) and the text's SHA-256; the model itself is
    loaded only when a text is missing from the cache.
    """

    def __init__(self, spec: str, folder: Path) -> None:
        import hashlib
        import sqlite3

        self._spec = spec
        self._inner: Any = None
        self._hash = hashlib.sha256
        folder.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(folder / f"vectors-{spec}.sqlite3")
        self._db.execute("CREATE TABLE IF NOT EXISTS v(key TEXT PRIMARY KEY, vector TEXT NOT NULL)")
        row = self._db.execute("SELECT vector FROM v WHERE key = 'model'").fetchone()
        self._model = row[0] if row else self._load().model
        self._dimensions: int | None = None

    def _load(self) -> Any:
        if self._inner is None:
            from textsearch.embeddings import from_spec

            self._inner = from_spec(self._spec)
            self._db.execute("INSERT OR REPLACE INTO v VALUES ('model', ?)", (self._inner.model,))
            self._db.commit()
        return self._inner

    @property
    def model(self) -> str:
        return str(self._model)

    @property
    def dimensions(self) -> int | None:
        return self._dimensions

    def _vectors(self, texts: list[str], query: bool) -> list[list[float]]:
        keys = [("q:" if query else "p:") + self._hash(t.encode()).hexdigest() for t in texts]
        found: dict[str, list[float]] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, vector in self._db.execute(
                f"SELECT key, vector FROM v WHERE key IN ({marks})", chunk
            ):
                found[key] = json.loads(vector)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            inner = self._load()
            todo = [texts[i] for i in missing]
            made = (
                [inner.embed_query_sync(t) for t in todo]
                if query
                else inner.embed_documents_sync(todo)
            )
            for i, vector in zip(missing, made, strict=True):
                found[keys[i]] = list(vector)
            self._db.executemany(
                "INSERT OR REPLACE INTO v VALUES (?, ?)",
                [(keys[i], json.dumps(found[keys[i]])) for i in missing],
            )
            self._db.commit()
        rows = [found[k] for k in keys]
        self._dimensions = len(rows[0]) if rows else self._dimensions
        return rows

    def embed_documents_sync(self, texts: Any) -> list[list[float]]:
        return self._vectors(list(texts), False)

    def embed_query_sync(self, text: str) -> list[float]:
        return self._vectors([text], True)[0]

    async def embed_documents(self, texts: Any) -> list[list[float]]:
        return self.embed_documents_sync(texts)

    async def embed_query(self, text: str) -> list[float]:
        return self.embed_query_sync(text)


VECTOR_CACHE: list[Path] = []  # --vector-cache: keep the vectors on disk there


def embedder_rows(sets: list[str], spec: str, engines: list[str]) -> None:
    from textsearch.embeddings import from_spec

    embedder = CachedEmbedder(spec, VECTOR_CACHE[0]) if VECTOR_CACHE else from_spec(spec)
    for name in sets:
        corpus, queries, qrels = load_set(name)
        started = time.perf_counter()
        index = local_search(corpus, engines[0], embedder, "hybrid")
        spent = time.perf_counter() - started
        print(
            f"# {name}: {len(corpus)} sentences embedded and indexed at {len(corpus) / spent:.0f}/s"
        )
        for mode in ("hybrid", "semantic"):
            index.mode = mode
            row(f"{name} local {engines[0]} {mode} {spec}", evaluate(ids_of(index), queries, qrels))
        index.close()


def scale_set(lang: str, size: int, queries_per_language: int) -> tuple[list[Any], Any, Qrels]:
    """``size`` passages of four sentences (seeded), a sample of the questions, and their
    judgments at this scale: every passage holding a question's relevant sentence."""
    rng = random.Random(7)
    for name in ("en", "zh"):  # both drawn in turn: a language's set is the same every run
        corpus, queries, qrels = load_xquad(name)
        items = list(corpus.items())
        docs, holders = [], {}
        for n in range(size):
            chosen = rng.sample(items, 4)
            docs.append({"id": str(n), "title": "", "text": " ".join(v["text"] for _, v in chosen)})
            for sid, _ in chosen:
                holders.setdefault(sid, {})[str(n)] = 1
        listed = list(queries.items())
        sample = rng.sample(listed, min(queries_per_language, len(listed)))
        if name == lang:
            judged = {q: {p: 1 for s in qrels[q] for p in holders.get(s, {})} for q, _ in sample}
            return docs, sample, judged
    raise ValueError(lang)


def scale_rows(size: int, engines: list[str], queries_per_language: int, rounds: int = 5) -> None:
    """Indexing rate and query latency, English against Chinese on the same content.

    Both indexes are built, then their question samples run in alternation (``rounds``
    times): each round's Chinese p50 over its English p50 is one ratio, and the median of
    the rounds is printed, so a change of load during the run touches both arms alike.
    Times are CPU seconds of this process (tantivy's threads included) and wall seconds.
    """
    from textsearch import LocalTextSearch

    sets = {lang: scale_set(lang, size, queries_per_language) for lang in ("en", "zh")}
    for engine in engines:
        with tempfile.TemporaryDirectory() as folder:
            indexes, rates = {}, {}
            for lang, (docs, _, _) in sets.items():
                index = LocalTextSearch(Path(folder) / f"{lang}.sqlite3", engine=engine)  # type: ignore[arg-type]
                cpu, wall = time.process_time(), time.perf_counter()
                index.add_documents(docs)
                rates[lang] = (
                    size / (time.process_time() - cpu),
                    size / (time.perf_counter() - wall),
                )
                indexes[lang] = index
                print(
                    f"{lang} {engine:<8} {size} passages: indexed "
                    f"{rates[lang][0]:7.0f} passages/CPU s, "
                    f"{rates[lang][1]:7.0f}/s wall",
                    flush=True,
                )
            print(
                f"   {engine}: Chinese indexing rate / English: "
                f"{rates['zh'][0] / rates['en'][0]:.2f}x CPU, "
                f"{rates['zh'][1] / rates['en'][1]:.2f}x wall",
                flush=True,
            )
            p50: dict[str, list[float]] = {"en": [], "zh": []}
            walls: dict[str, list[float]] = {"en": [], "zh": []}
            quality: dict[str, float] = {}
            for lang, (_, sample, _) in sets.items():
                for _, text in sample[:20]:  # warm the page cache and the first-query costs
                    indexes[lang].get_documents_sync(text, top=10)
            for _ in range(rounds):
                for lang, (_, sample, judged) in sets.items():
                    cpu_times, wall_times, scores = [], [], []
                    for qid, text in sample:
                        cpu, wall = time.process_time(), time.perf_counter()
                        found = indexes[lang].get_documents_sync(text, top=10)
                        cpu_times.append((time.process_time() - cpu) * 1000)
                        wall_times.append((time.perf_counter() - wall) * 1000)
                        scores.append(ndcg_at([d.id for d in found], judged[qid]))
                    p50[lang].append(percentile(cpu_times, 50))
                    walls[lang].append(percentile(wall_times, 50))
                    quality[lang] = statistics.fmean(scores)
            for index in indexes.values():
                index.close()
        for lang in ("en", "zh"):
            print(
                f"{lang} {engine:<8} {size} passages: query p50 "
                f"{statistics.median(p50[lang]):6.2f} ms CPU, "
                f"{statistics.median(walls[lang]):6.2f} ms wall; nDCG@10 {quality[lang]:.4f} "
                "(passages holding the relevant sentence)",
                flush=True,
            )
        ratios = [z / e for z, e in zip(p50["zh"], p50["en"], strict=True)]
        wall_ratios = [z / e for z, e in zip(walls["zh"], walls["en"], strict=True)]
        print(
            f"   {engine}: Chinese query p50 / English: {statistics.median(ratios):.2f}x CPU, "
            f"{statistics.median(wall_ratios):.2f}x wall (median of {rounds} rounds)",
            flush=True,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sets", nargs="+", default=["zh", "ja", "de", "es", "en"])
    parser.add_argument("--engines", nargs="+", default=["sqlite", "tantivy"])
    parser.add_argument("--postgres", action="store_true", help="also a throw-away PostgreSQL")
    parser.add_argument("--embedder", help="also hybrid and semantic search with this spec")
    parser.add_argument(
        "--vector-cache", type=Path, help="keep vectors on disk in this folder (a rerun is cheap)"
    )
    parser.add_argument("--no-keyword", action="store_true", help="skip the local keyword rows")
    parser.add_argument("--scale", type=int, help="latency and indexing rate at N passages")
    parser.add_argument("--scale-queries", type=int, default=300)
    parser.add_argument("--limit-docs", type=int, help="the first N sentences of each set only")
    parser.add_argument(
        "--segmenter", choices=["bigram", "bigram-only", "jieba", "both"], default="bigram"
    )
    args = parser.parse_args()
    use_segmenter(args.segmenter)
    if args.vector_cache:
        VECTOR_CACHE.append(args.vector_cache)
    if args.limit_docs:
        LIMIT_DOCS.append(args.limit_docs)
    if args.scale:
        scale_rows(args.scale, args.engines, args.scale_queries)
        return 0
    if not (DATA / "xquad-r").is_dir():
        print(f"no XQuAD-R at {DATA / 'xquad-r'}; only the Japanese set is run")
        args.sets = [s for s in args.sets if s == "ja"]
    print(f"{'set / backend':<34} {'nDCG@10':>8} {'R@10':>6} {'empty':>11} {'p50 ms':>7}")
    if not args.no_keyword:
        keyword_rows(args.sets, args.engines)
    if args.postgres:
        postgres_rows(args.sets)
    if args.embedder:
        embedder_rows(args.sets, args.embedder, args.engines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
