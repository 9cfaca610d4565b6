"""Relevance and latency of LocalTextSearch on IR test collections with judgments.

    python benchmarks/bench_relevance.py                 # SciFact and Cranfield
    python benchmarks/bench_relevance.py --datasets scifact --match all

Reads ``../shared/relevance/`` relative to the repository root (BEIR layout: corpus.jsonl[.gz],
queries.jsonl, qrels/test.tsv; see its README). Each document's title and text are indexed,
unsplit, as one document. For each test query it reports nDCG@10 (graded gains, log2
discount), Recall@100, the queries that returned fewer results than exist (fewer than
min(100, documents holding any of the query's content words)), and p50/p95 latency; once
with the full queries, once with each query cut to its first 3 content words.

Optional comparison rows (not dependencies of the project, only used when installed):
``bm25s`` and ``tantivy``.

With ``--embedder SPEC`` it measures search by meaning instead: nDCG@10 and Recall@100 in
keyword, semantic, hybrid (score blend) and hybrid (reciprocal rank fusion) modes over one
index. SPEC is what ``textsearch.embeddings.from_spec`` accepts when that exists, else
``module:attribute`` (an Embedder, a factory of one, or a function ``texts -> vectors``), or
``hashing[:DIMS]`` (hashed words: no model, only to try the pipeline). Vectors are cached in
``--vector-cache`` (default ``~/.cache/textsearch-bench``), so a corpus is embedded once per
model; latencies include the query's embedding (cached after the first run).

    python benchmarks/bench_relevance.py --datasets scifact --embedder hashing:256
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The data sits beside the repository (``../shared/relevance``); another place can be named
# with TEXTSEARCH_RELEVANCE_DATA.
DATA = Path(os.environ.get("TEXTSEARCH_RELEVANCE_DATA") or ROOT.parent / "shared" / "relevance")

Qrels = dict[str, dict[str, int]]
Searcher = Callable[[str, int], list[str]]


def load(name: str) -> tuple[dict[str, dict[str, str]], dict[str, str], Qrels]:
    folder = DATA / name
    corpus_path = folder / "corpus.jsonl.gz"
    opener: Any = gzip.open if corpus_path.exists() else open
    if not corpus_path.exists():
        corpus_path = folder / "corpus.jsonl"
    corpus: dict[str, dict[str, str]] = {}
    with opener(corpus_path, "rt", encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            corpus[str(row["_id"])] = {"title": row.get("title") or "", "text": row["text"]}
    queries: dict[str, str] = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as stream:
        for line in stream:
            row = json.loads(line)
            queries[str(row["_id"])] = row["text"]
    qrels: Qrels = {}
    with open(folder / "qrels" / "test.tsv", encoding="utf-8") as stream:
        next(stream)
        for line in stream:
            qid, did, score = line.rstrip("\n").split("\t")
            if int(score) > 0:
                qrels.setdefault(qid, {})[did] = int(score)
    return corpus, {q: t for q, t in queries.items() if q in qrels}, qrels


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(judged.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], judged: dict[str, int], k: int = 100) -> float:
    return len(set(ranked[:k]) & judged.keys()) / len(judged) if judged else 0.0


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))]


def cut_query(text: str, words: int = 3) -> str:
    from textsearch.connectors.local._query import STOP_WORDS

    content = [w for w in re.findall(r"\w+", text) if w.lower() not in STOP_WORDS]
    return " ".join(content[:words]) or text


def evaluate(
    search: Searcher,
    queries: dict[str, str],
    qrels: Qrels,
    exists: Callable[[str], int],
) -> dict[str, float]:
    ndcgs, recalls, times = [], [], []
    short = 0
    for qid, text in queries.items():
        start = time.perf_counter()
        ranked = search(text, 100)
        times.append((time.perf_counter() - start) * 1000)
        ndcgs.append(ndcg_at(ranked, qrels[qid]))
        recalls.append(recall_at(ranked, qrels[qid]))
        if len(ranked) < min(100, exists(text)):
            short += 1
    return {
        "ndcg": statistics.fmean(ndcgs),
        "recall": statistics.fmean(recalls),
        "short": short,
        "n": len(queries),
        "p50": percentile(times, 50),
        "p95": percentile(times, 95),
    }


def textsearch_searcher(
    corpus: dict[str, dict[str, str]], match: str, engine: str
) -> tuple[Searcher, Any]:
    from textsearch import LocalTextSearch

    index = LocalTextSearch(match=match, engine=engine)  # type: ignore[arg-type]
    setattr(index, "max_top", 1000)  # noqa: B010 - Recall@100 needs 100 results
    docs = ({"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items())
    index.add_documents(docs)

    def search(text: str, k: int) -> list[str]:
        try:
            return [d.id for d in index.get_documents_sync(text, top=k)]
        except Exception:  # an all-punctuation query is an error by design: no results
            return []

    return search, index


def exists_counter(index: Any) -> Callable[[str], int]:
    """How many documents hold any content word of the query (what a search could return).

    Each document is one passage here, and a total count is exact with either engine (the
    SQLite engine leaves no word out when asked for one).
    """
    from textsearch.connectors.local._query import plan_query

    def count(text: str) -> int:
        if not plan_query(text).terms:
            return 0
        found = index.get_documents_sync(text, top=1, include_total_count=True)
        return int(found.total_count or 0)

    return count


def bm25s_searcher(corpus: dict[str, dict[str, str]]) -> Searcher | None:
    try:
        import bm25s  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    ids = list(corpus)
    texts = [f"{corpus[d]['title']} {corpus[d]['text']}" for d in ids]
    try:
        import Stemmer  # type: ignore[import-not-found]

        stemmer: Any = Stemmer.Stemmer("english")
    except ImportError:
        stemmer = None
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)  # fmt: skip

    def search(text: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, _ = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [ids[i] for i in docs[0]]

    return search


def tantivy_searcher(corpus: dict[str, dict[str, str]]) -> Searcher | None:
    try:
        import tantivy  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("title", tokenizer_name="en_stem")
    builder.add_text_field("body", tokenizer_name="en_stem")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer()
    for doc_id, doc in corpus.items():
        writer.add_document(tantivy.Document(id=doc_id, title=doc["title"], body=doc["text"]))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    from textsearch.connectors.local._query import STOP_WORDS

    def search(text: str, k: int) -> list[str]:
        words = [w for w in re.findall(r"\w+", text.lower()) if w not in STOP_WORDS]
        if not words:
            return []
        query = index.parse_query(" ".join(words), ["title", "body"])
        hits = searcher.search(query, k).hits
        return [searcher.doc(address)["id"][0] for _, address in hits]

    return search


class CachedEmbedder:
    """An embedder whose vectors are kept in a SQLite file, keyed by model and text."""

    provider_name = "cached"

    def __init__(self, inner: Any, folder: Path) -> None:
        import sqlite3

        self.inner = inner
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / "vectors.sqlite3", isolation_level=None)
        self.db.execute("CREATE TABLE IF NOT EXISTS v(key BLOB PRIMARY KEY, vector BLOB)")

    @property
    def model(self) -> str:
        return str(self.inner.model)

    @property
    def dimensions(self) -> int | None:
        known = self.inner.dimensions
        if known is None:
            row = self.db.execute("SELECT vector FROM v LIMIT 1").fetchone()
            return len(row[0]) // 4 if row else None
        return int(known)

    def _key(self, kind: str, text: str) -> bytes:
        import hashlib

        return hashlib.sha256(f"{self.model}\x00{kind}\x00{text}".encode()).digest()

    def _cached(self, kind: str, texts: list[str], embed: Callable[[list[str]], Any]) -> Any:
        from array import array

        keys = [self._key(kind, t) for t in texts]
        found: dict[bytes, list[float]] = {}
        for begin in range(0, len(keys), 500):
            part = keys[begin : begin + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self.db.execute(
                f"SELECT key, vector FROM v WHERE key IN ({marks})", part
            ):
                found[key] = array("f", blob).tolist()
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            started = time.perf_counter()
            vectors = embed([texts[i] for i in missing])
            if len(missing) > 50:
                print(f"  embedded {len(missing)} texts in {time.perf_counter() - started:.1f} s")
            self.db.execute("BEGIN")
            for i, vector in zip(missing, vectors, strict=True):
                found[keys[i]] = list(vector)
                self.db.execute(
                    "INSERT OR REPLACE INTO v VALUES (?, ?)",
                    (keys[i], array("f", vector).tobytes()),
                )
            self.db.execute("COMMIT")
        return [found[k] for k in keys]

    def embed_documents_sync(self, texts: list[str]) -> Any:
        from textsearch.embeddings import embed_documents_sync

        return self._cached("d", list(texts), lambda t: embed_documents_sync(self.inner, t))

    def embed_query_sync(self, text: str) -> Any:
        from textsearch.embeddings import embed_query_sync

        return self._cached("q", [text], lambda t: [embed_query_sync(self.inner, t[0])])[0]

    async def embed_documents(self, texts: list[str]) -> Any:
        return self.embed_documents_sync(texts)

    async def embed_query(self, text: str) -> Any:
        return self.embed_query_sync(text)


def hashing_embedder(dims: int) -> Any:
    """Hashed word stems: a stand-in with no model, to try the pipeline (not a measurement)."""
    import hashlib

    from textsearch.embeddings import FunctionEmbedder

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * dims
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(
                    hashlib.blake2b(word[:6].encode(), digest_size=8).digest(), "little"
                )
                vector[h % dims] += 1.0 if (h >> 40) & 1 else -1.0
            out.append(vector if any(vector) else [1.0] + [0.0] * (dims - 1))
        return out

    return FunctionEmbedder(embed, model=f"hashing-{dims}", dimensions=dims)


def build_embedder(spec: str) -> Any:
    import importlib

    from textsearch import embeddings
    from textsearch.embeddings import Embedder, FunctionEmbedder

    if spec.split(":", 1)[0] == "hashing":
        return hashing_embedder(int(spec.split(":", 1)[1]) if ":" in spec else 256)
    from_spec = getattr(embeddings, "from_spec", None)
    if from_spec is not None:
        return from_spec(spec)
    module_name, _, attribute = spec.partition(":")
    target = getattr(importlib.import_module(module_name), attribute)
    if isinstance(target, Embedder):
        return target
    made = target()
    if isinstance(made, Embedder):
        return made
    return FunctionEmbedder(target, model=spec)


def semantic_rows(name: str, corpus: dict[str, dict[str, str]], queries: dict[str, str],
                  qrels: Qrels, args: argparse.Namespace) -> None:  # fmt: skip
    from textsearch import LocalTextSearch

    inner = build_embedder(args.embedder)
    embedder = CachedEmbedder(inner, Path(args.vector_cache).expanduser())
    started = time.perf_counter()
    index = LocalTextSearch(embedder=embedder, engine=args.engine, match=args.match)
    setattr(index, "max_top", 1000)  # noqa: B010 - Recall@100 needs 100 results
    index.add_documents(
        {"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items()
    )
    print(
        f"# {name}: {len(corpus)} docs indexed with {embedder.model} in "
        f"{time.perf_counter() - started:.1f} s (engine: {index.engine})"
    )
    for q in queries.values():  # fill the query cache before timing
        embedder.embed_query_sync(q)

    def searcher(mode: str, fusion: str) -> Searcher:
        def search(text: str, k: int) -> list[str]:
            index.mode = mode  # type: ignore[assignment]
            index._fusion = fusion  # type: ignore[assignment]
            try:
                return [d.id for d in index.get_documents_sync(text, top=k)]
            except Exception:
                return []

        return search

    for label, mode, fusion in (
        ("keyword", "keyword", "blend"),
        ("semantic", "semantic", "blend"),
        ("hybrid-blend", "hybrid", "blend"),
        ("hybrid-rrf", "hybrid", "rrf"),
    ):
        r = evaluate(searcher(mode, fusion), queries, qrels, lambda text: 0)
        print(
            f"{name:<10} {label:<12} {'full':<7} {r['ndcg']:8.3f} {r['recall']:7.3f} "
            f"{'':>7}{r['p50']:6.2f} {r['p95']:7.2f}"
        )
    index.close()


def store_rows(name: str, corpus: dict[str, dict[str, str]], queries: dict[str, str],
               qrels: Qrels, args: argparse.Namespace) -> None:  # fmt: skip
    import tempfile

    import textsearch

    inner = build_embedder(args.embedder)
    embedder = CachedEmbedder(inner, Path(args.vector_cache).expanduser())
    folder = tempfile.mkdtemp(prefix=f"bench-{args.store}-")
    modes: list[str | None]
    if args.store == "chroma":
        import chromadb

        client = chromadb.EphemeralClient()
        made = [textsearch.ChromaTextSearch(client, name, embedder=embedder)]
        modes = ["semantic"]
    elif args.store == "qdrant":
        location = str(Path(folder) / "qdrant")
        first = textsearch.QdrantTextSearch(location, name, embedder=embedder, mode="semantic")
        made = [first]
        modes = ["semantic", "hybrid"]
    else:
        location = str(Path(folder) / "milvus.db")
        first = textsearch.MilvusTextSearch(location, name, embedder=embedder, mode="semantic")
        made = [first]
        modes = ["semantic", "hybrid"]
    store: Any = made[0]
    setattr(store, "max_top", 1000)  # noqa: B010 - Recall@100 needs 100 results
    started = time.perf_counter()
    docs = [{"id": d, "title": v["title"], "text": v["text"]} for d, v in corpus.items()]
    for begin in range(0, len(docs), 500):
        store.add_documents_sync(docs[begin : begin + 500])
    print(
        f"# {name}: {len(corpus)} docs into {args.store} through add_documents in "
        f"{time.perf_counter() - started:.1f} s ({embedder.model})"
    )
    for q in queries.values():  # fill the query cache before timing
        embedder.embed_query_sync(q)

    def searcher(mode: str | None) -> Searcher:
        def search(text: str, k: int) -> list[str]:
            store.mode = mode
            seen: list[str] = []
            for d in store.get_search_results_sync(text, top=k).results:
                if d.id not in seen:  # a document can hold several passages
                    seen.append(d.id)
            return seen

        return search

    for mode in modes:
        r = evaluate(searcher(mode), queries, qrels, lambda text: 0)
        label = f"{args.store}-{mode}"
        print(
            f"{name:<10} {label:<16} {'full':<7} {r['ndcg']:8.3f} {r['recall']:7.3f} "
            f"{'':>3}{r['p50']:6.2f} {r['p95']:7.2f}"
        )
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument("--match", default="any", choices=["any", "all"])
    parser.add_argument("--engine", default="auto", choices=["auto", "sqlite", "tantivy"])
    parser.add_argument(
        "--title-repeat", type=int, help="tantivy engine: times the title is indexed (measuring)"
    )
    parser.add_argument("--embedder", metavar="SPEC", help="measure semantic and hybrid modes")
    parser.add_argument(
        "--vector-cache",
        default=str(Path("~/.cache/textsearch-bench")),
        help="with --embedder: where vectors are kept between runs",
    )
    parser.add_argument("--queries", type=int, help="only the first N queries (a quick look)")
    parser.add_argument(
        "--store",
        choices=["chroma", "qdrant", "milvus"],
        help="with --embedder: measure that vector store's search modes instead",
    )
    args = parser.parse_args()
    if args.title_repeat is not None:
        from textsearch.connectors.local import _tantivy as _local_tantivy

        _local_tantivy.TITLE_REPEAT = args.title_repeat
    if not DATA.is_dir():
        print(f"no relevance data at {DATA} (see the README of ../shared/relevance/); skipped")
        return 0
    print(f"{'dataset':<10} {'engine':<12} {'queries':<7} {'nDCG@10':>8} {'R@100':>7} "
          f"{'short':>6} {'p50 ms':>7} {'p95 ms':>7}")  # fmt: skip
    for name in args.datasets:
        if not (DATA / name).is_dir():
            print(f"{name}: not found under {DATA}; skipped")
            continue
        corpus, queries, qrels = load(name)
        if args.queries:
            queries = dict(list(queries.items())[: args.queries])
        if args.embedder and args.store:
            store_rows(name, corpus, queries, qrels, args)
            continue
        if args.embedder:
            semantic_rows(name, corpus, queries, qrels, args)
            continue
        started = time.perf_counter()
        ours, index = textsearch_searcher(corpus, args.match, args.engine)
        print(
            f"# {name}: {len(corpus)} docs indexed in {time.perf_counter() - started:.1f} s "
            f"(textsearch engine: {index.engine})"
        )
        exists = exists_counter(index)
        engines: list[tuple[str, Searcher]] = [("textsearch", ours)]
        for label, build in (("bm25s", bm25s_searcher), ("tantivy", tantivy_searcher)):
            other = build(corpus)
            if other is not None:
                engines.append((label, other))
        cut = {q: cut_query(t) for q, t in queries.items()}
        for kind, qs in (("full", queries), ("3 words", cut)):
            for label, engine in engines:
                r = evaluate(engine, qs, qrels, exists)
                print(
                    f"{name:<10} {label:<12} {kind:<7} {r['ndcg']:8.3f} {r['recall']:7.3f} "
                    f"{int(r['short']):>3}/{int(r['n']):<3}{r['p50']:6.2f} {r['p95']:7.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
