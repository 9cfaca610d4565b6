"""Relevance of LocalTextSearch, rerankers and diversity on IR test collections.

    python benchmarks/bench_relevance.py                        # keyword, SciFact + Cranfield
    python benchmarks/bench_relevance.py --embedder minilm      # + semantic, hybrid, reranked
    python benchmarks/bench_relevance.py --costs                # reranking, evaluation costs

Reads ``../shared/relevance/`` relative to the repository root (BEIR layout; see its README),
or TEXTSEARCH_RELEVANCE_DATA. Each document's title and text are indexed as one document.
Every figure comes from `textsearch.evaluation.evaluate` (the same values as pytrec_eval,
tests/evaluation/test_pytrec_eval.py), and every table from `Comparison`: each row's p-value
against the first row (paired randomization test, seeded).

With ``--embedder SPEC`` (what ``textsearch.embeddings.from_spec`` accepts, or ``hashing[:DIMS]``
to try the pipeline without a model) the rows are keyword, semantic, hybrid, hybrid +
`EmbeddingReranker` (same embedder) and the same with ``--diversity``. Vectors are cached in
``--vector-cache`` keyed by model and text, so a corpus is embedded once per model, and the
reranker reads the candidates' cached vectors (a BEIR document's passage is embedded as
"title\\ntext", which is also what the reranker reads).

Optional comparison rows (used when installed): ``bm25s`` and ``tantivy``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("TEXTSEARCH_RELEVANCE_DATA") or ROOT.parent / "shared" / "relevance")

from textsearch.evaluation import Comparison, EvaluationSet, evaluate, load_beir  # noqa: E402


class CachedEmbedder:
    """An embedder whose vectors are kept in a SQLite file, keyed by model, kind and text."""

    provider_name = "cached"

    def __init__(self, inner: Any, folder: Path) -> None:
        self.inner = inner
        folder.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(folder / "vectors.sqlite3", isolation_level=None,
                                  check_same_thread=False)  # fmt: skip
        self.db.execute("CREATE TABLE IF NOT EXISTS v(key BLOB PRIMARY KEY, vector BLOB)")
        self.misses = 0
        self.part = 256  # texts embedded (and kept) at a time

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
        return hashlib.sha256(f"{self.model}\x00{kind}\x00{text}".encode()).digest()

    def _cached(self, kind: str, texts: list[str], embed: Callable[[list[str]], Any]) -> Any:
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
        self.misses += len(missing)
        started = time.perf_counter()
        # in parts, each kept as soon as it is embedded: a long run that stops loses one part
        for done in range(0, len(missing), self.part):
            part = missing[done : done + self.part]
            vectors = embed([texts[i] for i in part])
            self.db.execute("BEGIN")
            for i, vector in zip(part, vectors, strict=True):
                found[keys[i]] = list(vector)
                self.db.execute("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                (keys[i], array("f", vector).tobytes()))  # fmt: skip
            self.db.execute("COMMIT")
            if len(missing) > 50:
                took = time.perf_counter() - started
                print(f"  embedded {done + len(part)} of {len(missing)} texts in {took:.1f} s "
                      f"({(done + len(part)) / took:.1f}/s, {os.getloadavg()[0]:.1f} load)",
                      file=sys.stderr, flush=True)  # fmt: skip
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
    from textsearch.embeddings import FunctionEmbedder

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * dims
            for word in re.findall(r"\w+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word[:6].encode(), digest_size=8).digest(),
                                   "little")  # fmt: skip
                vector[h % dims] += 1.0 if (h >> 40) & 1 else -1.0
            out.append(vector if any(vector) else [1.0] + [0.0] * (dims - 1))
        return out

    return FunctionEmbedder(embed, model=f"hashing-{dims}", dimensions=dims)


def build_embedder(spec: str) -> Any:
    from textsearch.embeddings import from_spec

    if spec.split(":", 1)[0] == "hashing":
        return hashing_embedder(int(spec.split(":", 1)[1]) if ":" in spec else 256)
    return from_spec(spec)


class Ranked:
    """A ranking function as the little of a search `evaluate` uses (ids by page)."""

    max_top = 1000

    class _Doc:
        __slots__ = ("id",)

        def __init__(self, doc_id: str) -> None:
            self.id = doc_id

    class _Page:
        def __init__(self, results: list[Any]) -> None:
            self.results = results

    def __init__(self, rank: Callable[[str, int], list[str]]) -> None:
        self.rank = rank

    def get_search_results_sync(self, query: str, *, top: int, skip: int = 0) -> Any:
        ids = self.rank(query, top + skip)[skip : skip + top]
        return self._Page([self._Doc(i) for i in ids])


def bm25s_rows(dataset: EvaluationSet) -> Ranked | None:
    try:
        import bm25s  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    ids = list(dataset.corpus)
    texts = [f"{dataset.corpus[d]['title']} {dataset.corpus[d]['text']}" for d in ids]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)

    def rank(text: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([text], stopwords="en", show_progress=False)
        docs, _ = retriever.retrieve(tokens, k=min(k, len(ids)), show_progress=False)
        return [ids[i] for i in docs[0]]

    return Ranked(rank)


def local_index(dataset: EvaluationSet, embedder: Any = None) -> Any:
    from textsearch import LocalTextSearch

    index = LocalTextSearch(embedder=embedder)
    index.max_top = 1000  # type: ignore[misc]  # Recall@100 in one page
    index.add_documents(dataset.documents())
    return index


def print_comparison(title: str, comparison: Comparison) -> None:
    print(f"\n### {title}\n")
    print(comparison.to_markdown())
    for name, report in comparison.reports.items():
        times = sorted(q.seconds * 1000 for q in report.queries) or [0.0]
        p50, p95 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.95))]
        print(f"<!-- {name}: {report.seconds:.1f} s, p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
              f"{len(report.failures)} failed -->")  # fmt: skip


def cut_queries(dataset: EvaluationSet, words: int = 3) -> EvaluationSet:
    """Each query cut to its first ``words`` content words (how people type)."""
    from textsearch.connectors.local._query import STOP_WORDS

    def cut(text: str) -> str:
        content = [w for w in re.findall(r"\w+", text) if w.lower() not in STOP_WORDS]
        return " ".join(content[:words]) or text

    queries = {qid: cut(text) for qid, text in dataset.queries.items()}
    return EvaluationSet(f"{dataset.name} (3 words)", queries, dataset.qrels, dataset.corpus)


def keyword_rows(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    index = local_index(dataset)
    reports = {"textsearch keyword": evaluate(index, dataset, name="textsearch keyword",
                                              concurrency=1, progress=False)}  # fmt: skip
    other = bm25s_rows(dataset)
    if other is not None:
        reports["bm25s"] = evaluate(other, dataset, name="bm25s", concurrency=1, progress=False)  # type: ignore[arg-type]
    print_comparison(f"{dataset.name}: keyword", Comparison.from_reports(reports))
    short = cut_queries(dataset)
    reports = {"textsearch keyword, 3 words": evaluate(index, short, concurrency=1,
                                                       progress=False)}  # fmt: skip
    if other is not None:
        reports["bm25s, 3 words"] = evaluate(other, short, concurrency=1, progress=False)  # type: ignore[arg-type]
    print_comparison(f"{dataset.name}: queries cut to 3 words", Comparison.from_reports(reports))
    index.close()


def semantic_rows(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    from textsearch import RerankedTextSearch
    from textsearch.rerank import EmbeddingReranker

    embedder = CachedEmbedder(build_embedder(args.embedder), Path(args.vector_cache).expanduser())
    started = time.perf_counter()
    index = local_index(dataset, embedder)
    print(f"# {dataset.name}: {len(dataset.corpus)} docs indexed with {embedder.model} in "
          f"{time.perf_counter() - started:.1f} s", file=sys.stderr)  # fmt: skip
    reranker = EmbeddingReranker(embedder)
    depth = args.rerank_depth
    reports = {}
    for label, mode, rerank, diversity in (
        ("keyword", "keyword", False, 0.0),
        ("semantic", "semantic", False, 0.0),
        ("hybrid", "hybrid", False, 0.0),
        (f"hybrid + EmbeddingReranker (depth {depth})", "hybrid", True, 0.0),
        (f"hybrid + EmbeddingReranker + diversity {args.diversity:g}", "hybrid", True,
         args.diversity),
    ):  # fmt: skip
        index.mode = mode
        search: Any = index
        if rerank:
            search = RerankedTextSearch(index, reranker, depth=depth, diversity=diversity)
        reports[label] = evaluate(search, dataset, name=label, concurrency=1, progress=None)
    print_comparison(f"{dataset.name}: {embedder.model}", Comparison.from_reports(reports))
    # the reranked rows against hybrid, their first stage
    second = dict(list(reports.items())[2:])
    print_comparison(f"{dataset.name}: against hybrid", Comparison.from_reports(second))
    index.close()


def store_rows(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    """A vector store's own search modes (``--store chroma|qdrant|milvus``), same vectors."""
    import textsearch

    embedder = CachedEmbedder(build_embedder(args.embedder), Path(args.vector_cache).expanduser())
    folder = tempfile.mkdtemp(prefix=f"bench-{args.store}-")
    name = dataset.name
    modes: list[str | None]
    if args.store == "chroma":
        import chromadb

        store: Any = textsearch.ChromaTextSearch(chromadb.EphemeralClient(), name,
                                                 embedder=embedder)  # fmt: skip
        modes = [None]
    elif args.store == "qdrant":
        store = textsearch.QdrantTextSearch(str(Path(folder) / "qdrant"), name,
                                            embedder=embedder, mode="semantic")  # fmt: skip
        modes = ["semantic", "hybrid"]
    else:
        store = textsearch.MilvusTextSearch(str(Path(folder) / "milvus.db"), name,
                                            embedder=embedder, mode="semantic")  # fmt: skip
        modes = ["semantic", "hybrid"]
    store.max_top = 1000
    docs = list(dataset.documents())
    for begin in range(0, len(docs), 500):
        store.add_documents_sync(docs[begin : begin + 500])
    reports = {}
    for mode in modes:
        if mode is not None:
            store.mode = mode
        label = f"{args.store}-{mode or 'semantic'}"
        reports[label] = evaluate(store, dataset, name=label, concurrency=1, progress=None)
    print_comparison(f"{name}: {args.store}", Comparison.from_reports(reports))
    store.close()


def costs(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    """Reranking 50 candidates against embedding them; evaluate's own cost; a cross-encoder."""
    from textsearch.embeddings import embed_documents_sync
    from textsearch.rerank import CrossEncoderReranker, EmbeddingReranker, rerank_sync

    texts = [f"{d['title']}\n{d['text']}" for d in list(dataset.corpus.values())[:400]]
    queries = list(dataset.queries.values())
    if args.embedder:
        embedder = build_embedder(args.embedder)
        reranker = EmbeddingReranker(embedder)
        embed_s, rerank_s = [], []
        for i in range(args.cost_rounds):
            batch = texts[(i * 50) % 350 : (i * 50) % 350 + 50]
            t0 = time.perf_counter()
            embed_documents_sync(embedder, batch)
            t1 = time.perf_counter()
            rerank_sync(reranker, queries[i % len(queries)], batch)
            t2 = time.perf_counter()
            embed_s.append(t1 - t0)
            rerank_s.append(t2 - t1)
        ratio = statistics.median(r / e for r, e in zip(rerank_s, embed_s, strict=True))
        print(
            f"rerank 50 candidates ({embedder.model}): median {statistics.median(rerank_s):.2f} s"
            f"; embedding the same 50: {statistics.median(embed_s):.2f} s; ratio {ratio:.2f}x"
        )
    # evaluate's own work: the same run over answers fetched beforehand (so the load of the
    # machine cannot hide it), against the searches themselves in a plain loop
    index = local_index(dataset)
    answers: dict[str, Any] = {}
    loop_s = []
    for _ in range(3):
        t0 = time.perf_counter()
        for query in queries:
            answers[query] = index.get_search_results_sync(query, top=100)
        loop_s.append(time.perf_counter() - t0)
    index.close()

    class Replay:
        max_top = 1000

        def get_search_results_sync(self, query: str, *, top: int, skip: int = 0) -> Any:
            return answers[query]

    own_s = []
    for _ in range(5):
        t0 = time.perf_counter()
        evaluate(Replay(), dataset, concurrency=1, progress=False)  # type: ignore[arg-type]
        own_s.append(time.perf_counter() - t0)
    print(
        f"evaluate over {len(queries)} queries: its own work {min(own_s) * 1000:.1f} ms; the "
        f"searches: {min(loop_s):.3f} s; overhead {min(own_s) / min(loop_s):.2%}"
    )
    # a cross-encoder graph built here (tests/rerank/tiny_cross_encoder.py)
    try:
        from tests.rerank.tiny_cross_encoder import build
    except ImportError as exc:
        print(f"cross-encoder: skipped ({exc})")
        return
    with tempfile.TemporaryDirectory() as folder:
        cross = CrossEncoderReranker(build(Path(folder) / "tiny", max_length=256), batch_size=16)
        hundred = [texts[i % len(texts)] for i in range(100)]
        samples = []
        for i in range(args.cost_rounds):
            t0 = time.perf_counter()
            cross.rerank_sync(queries[i % len(queries)], hundred)
            samples.append(time.perf_counter() - t0)
        batches = cross.calls // args.cost_rounds
        print(
            f"CrossEncoderReranker, tiny graph, 100 candidates ({batches} batches): "
            f"median {statistics.median(samples) * 1000:.1f} ms, min {min(samples) * 1000:.1f} ms"
        )


# --- fusion study (--second-embedder): two offline models, the product's recipes and blends ---


def _scaled(values: Any, low: float, high: float) -> Any:
    import numpy as np

    span = high - low
    if span <= 0:
        return np.ones_like(values)
    return np.clip((values - low) / span, 0.0, 1.0)


class Arms:
    """Per query: the keyword arm (BM25, top ``depth``) and every document's cosine per model.

    The blend below scales each arm over its own top ``depth`` as `fuse` does
    (textsearch/connectors/local/_hybrid.py), generalised to any number of meaning arms.
    """

    def __init__(
        self, dataset: EvaluationSet, index: Any, embedders: list[Any], depth: int = 127
    ) -> None:
        import numpy as np

        self.ids = list(dataset.corpus)
        self.position = {d: i for i, d in enumerate(self.ids)}
        texts = [f"{dataset.corpus[d]['title']}\n{dataset.corpus[d]['text']}" for d in self.ids]
        self.depth = depth
        self.matrices = []
        for embedder in embedders:
            before = embedder.misses
            rows = np.asarray(embedder.embed_documents_sync(texts), dtype=np.float32)
            if embedder.misses != before:
                print(
                    f"  ({embedder.misses - before} documents were not in the cache)",
                    file=sys.stderr,
                )
            self.matrices.append(rows / np.linalg.norm(rows, axis=1, keepdims=True))
        self.embedders = embedders
        self.keyword: dict[str, list[tuple[int, float]]] = {}
        self.cosines: dict[str, list[Any]] = {}
        self.vectors: dict[str, list[Any]] = {}  # each query's unit vector per model
        index.mode = "keyword"
        for query in dataset.queries.values():
            page = index.get_search_results_sync(query, top=depth)
            self.keyword[query] = [(self.position[r.id], float(r.score)) for r in page.results]
            per_model = []
            for embedder, matrix in zip(embedders, self.matrices, strict=True):
                q = np.asarray(embedder.embed_query_sync(query), dtype=np.float32)
                per_model.append(matrix @ (q / np.linalg.norm(q)))
                self.vectors.setdefault(query, []).append(q / np.linalg.norm(q))
            self.cosines[query] = per_model

    def blend(self, query: str, weights: tuple[float, ...], k: int) -> list[str]:
        """Weights: keyword first, then one per model (each arm scaled to 0..1 over its top)."""
        import numpy as np

        scores = np.zeros(len(self.ids), dtype=np.float64)
        candidates: set[int] = set()
        words = self.keyword[query]
        if words and weights[0]:
            high, low = words[0][1], words[-1][1]
            for row, score in words:
                scores[row] += weights[0] * ((score - low) / (high - low) if high > low else 1.0)
        candidates.update(row for row, _ in words)
        for weight, cosine in zip(weights[1:], self.cosines[query], strict=True):
            if not weight:
                continue
            top = np.argpartition(-cosine, self.depth)[: self.depth]
            high, low = float(cosine[top].max()), float(cosine[top].min())
            candidates.update(top.tolist())
            scores += weight * _scaled(cosine, low, high)
        rows = sorted(candidates, key=lambda r: (-scores[r], r))[:k]
        return [self.ids[r] for r in rows]

    def feedback(
        self, query: str, weights: tuple[float, ...], k: int, beta: float, top: int
    ) -> list[str]:
        """Pseudo-relevance feedback (Rocchio) on every meaning arm, then the same blend.

        Each model's query vector moves by ``beta`` times the mean vector of the blend's own
        top ``k`` documents; the keyword arm is left as it is. Not a product feature.
        """
        import numpy as np

        if not beta or not k:
            return self.blend(query, weights, top)
        rows = [self.position[d] for d in self.blend(query, weights, k)]
        saved = self.cosines[query]
        moved = []
        for matrix, vector in zip(self.matrices, self.vectors[query], strict=True):
            shifted = vector + beta * matrix[rows].mean(axis=0)
            moved.append(matrix @ (shifted / np.linalg.norm(shifted)))
        self.cosines[query] = moved
        try:
            return self.blend(query, weights, top)
        finally:
            self.cosines[query] = saved

    def rerank_blend(
        self, first: list[tuple[str, float]], query: str, model: int, alpha: float
    ) -> list[str]:
        """First-stage scores blended with one model's cosine, each scaled over the candidates."""
        import numpy as np

        if not first:
            return []
        stage = np.array([s for _, s in first])
        cosine = self.cosines[query][model][[self.position[d] for d, _ in first]]
        mixed = (1 - alpha) * _scaled(stage, stage.min(), stage.max()) + alpha * _scaled(
            cosine, cosine.min(), cosine.max()
        )
        order = sorted(range(len(first)), key=lambda i: (-mixed[i], i))
        return [first[i][0] for i in order]


def _blended(arms: Arms, weights: tuple[float, ...]) -> Callable[[str, int], list[str]]:
    def rank(query: str, k: int) -> list[str]:
        return arms.blend(query, weights, k)

    return rank


def _cut(rank: Callable[[str], list[str]]) -> Callable[[str, int], list[str]]:
    def cut(query: str, k: int) -> list[str]:
        return rank(query)[:k]

    return cut


def _ndcg_of(dataset: EvaluationSet, rank: Callable[[str], list[str]], qids: list[str]) -> float:
    from textsearch.evaluation._metrics import score_ranking

    total = sum(
        score_ranking(rank(dataset.queries[q]), dataset.qrels[q], 10, 100)["ndcg"] for q in qids
    )
    return total / len(qids) if qids else 0.0


def _two_fold(
    dataset: EvaluationSet,
    choices: list[Any],
    rank_for: Callable[[Any], Callable[[str], list[str]]],
) -> tuple[float, list[Any]]:
    """nDCG@10 with the choice tuned on half the queries and measured on the other half."""
    qids = list(dataset.queries)
    folds = [qids[0::2], qids[1::2]]
    held, picked = 0.0, []
    for tune, test in ((folds[0], folds[1]), (folds[1], folds[0])):
        best = max(choices, key=lambda c: _ndcg_of(dataset, rank_for(c), tune))
        picked.append(best)
        held += _ndcg_of(dataset, rank_for(best), test) * len(test)
    return held / len(qids), picked


def fusion_rows(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    """Two offline models (``--embedder`` and ``--second-embedder``) fused, reranked, blended."""
    from textsearch import FusedTextSearch, RerankedTextSearch
    from textsearch.rerank import EmbeddingReranker

    cache = Path(args.vector_cache).expanduser()
    first = CachedEmbedder(build_embedder(args.embedder), cache)
    second = CachedEmbedder(
        build_embedder(args.second_embedder), Path(args.second_vector_cache or cache).expanduser()
    )
    index_a = local_index(dataset, first)
    index_b = local_index(dataset, second)
    index_a.mode = index_b.mode = "hybrid"
    arms = Arms(dataset, index_a, [first, second])
    index_a.mode = "hybrid"
    a, b = first.model.rsplit("/", 1)[-1], second.model.rsplit("/", 1)[-1]
    hits: dict[str, list[tuple[str, float]]] = {}  # hybrid (first model) top 100, with scores

    def first_stage(query: str) -> list[tuple[str, float]]:
        if query not in hits:
            page = index_a.get_search_results_sync(query, top=100)
            hits[query] = [(r.id, float(r.score)) for r in page.results]
        return hits[query]

    def run(label: str, search: Any) -> Any:
        return evaluate(search, dataset, name=label, concurrency=1, progress=None)

    reports = {
        f"hybrid ({a}, default)": run("hybrid a", index_a),
        f"hybrid ({b})": run("hybrid b", index_b),
    }
    index_b.mode = "semantic"
    reports[f"semantic ({b})"] = run("semantic b", index_b)
    index_b.mode = "hybrid"
    fused = FusedTextSearch([index_a, index_b])
    fused.max_top = 1000
    reports[f"FusedTextSearch(hybrid {a}, hybrid {b}) (RRF)"] = run("fused", fused)
    index_b.mode = "semantic"
    meaning = FusedTextSearch([index_a, index_b])
    meaning.max_top = 1000
    reports[f"FusedTextSearch(hybrid {a}, semantic {b}) (RRF)"] = run("fused s", meaning)
    index_b.mode = "hybrid"
    if args.no_rerank:  # the rows below embed texts the index did not (slow with e5)
        print_comparison(f"{dataset.name}: fusing {a} and {b}", Comparison.from_reports(reports))
        index_a.close()
        index_b.close()
        return
    reranker = EmbeddingReranker(second)  # type: ignore[arg-type]
    for depth in args.fusion_depths:
        reranked = RerankedTextSearch(index_a, reranker, depth=depth)
        reports[f"hybrid {a} + EmbeddingReranker({b}), depth {depth}"] = run("rr", reranked)
    depth = args.rerank_depth
    both = FusedTextSearch([index_a, RerankedTextSearch(index_a, reranker, depth=depth)])
    both.max_top = 1000
    reports[f"FusedTextSearch(hybrid {a}, its {b} rerank at depth {depth}) (RRF)"] = run("f", both)

    # blends computed here from the same arms (not product features): weights on a 0.1 grid
    grid = [
        (round(k / 10, 1), round(m / 10, 1), round(10 - k - m) / 10)
        for k in range(11)
        for m in range(11 - k)
    ]

    def blend_rank(weights: Any) -> Callable[[str], list[str]]:
        return lambda q: arms.blend(q, weights, 100)

    scored = sorted(
        ((_ndcg_of(dataset, blend_rank(w), list(dataset.queries)), w) for w in grid), reverse=True
    )
    for name, weights in (
        (f"keyword + {a} 0.5/0.5 (as hybrid)", (0.5, 0.5, 0.0)),
        (f"keyword + {a} + {b}, 0.4/0.3/0.3", (0.4, 0.3, 0.3)),
        (f"keyword + {a} + {b}, best on this set {scored[0][1]}", scored[0][1]),
    ):
        reports[f"blend {name}"] = run(name, Ranked(_blended(arms, weights)))
    held, picked = _two_fold(dataset, grid, blend_rank)
    alphas = [round(i / 10, 1) for i in range(11)]
    for depth in args.fusion_depths:

        def rb(alpha: Any, depth: int = depth) -> Callable[[str], list[str]]:
            return lambda q: (
                arms.rerank_blend(first_stage(q)[:depth], q, 1, alpha)
                + [d for d, _ in first_stage(q)[depth:]]
            )

        best = max(alphas, key=lambda x: _ndcg_of(dataset, rb(x), list(dataset.queries)))
        label = f"hybrid {a}, top {depth} blended with {b}'s cosine (alpha {best} best here)"
        chosen = rb(best)
        reports[label] = run(label, Ranked(_cut(chosen)))
        held_rb, picked_rb = _two_fold(dataset, alphas, rb)
        print(
            f"<!-- rerank blend depth {depth}: two-fold nDCG@10 {held_rb:.3f} "
            f"(alphas picked {picked_rb}) -->"
        )
    print_comparison(f"{dataset.name}: fusing {a} and {b}", Comparison.from_reports(reports))
    print(f"<!-- 3-arm blend grid, best five: {[(round(s, 4), w) for s, w in scored[:5]]} -->")
    print(
        f"<!-- 3-arm blend two-fold (tuned on half, measured on the other): nDCG@10 "
        f"{held:.3f}, weights picked {picked} -->"
    )
    index_a.close()
    index_b.close()


def blend_rows(dataset: EvaluationSet, args: argparse.Namespace) -> None:
    """One model (``--embedder``): the keyword/meaning blend weight and the reranking depth."""
    from textsearch import RerankedTextSearch
    from textsearch.rerank import EmbeddingReranker

    model = CachedEmbedder(build_embedder(args.embedder), Path(args.vector_cache).expanduser())
    index = local_index(dataset, model)
    arms = Arms(dataset, index, [model])
    index.mode = "hybrid"
    a = model.model

    def run(label: str, search: Any) -> Any:
        return evaluate(search, dataset, name=label, concurrency=1, progress=None)

    reports = {f"hybrid ({a}, default: blend 0.5)": run("hybrid", index)}
    weights = [round(w / 10, 1) for w in range(11)]  # the meaning arm's weight

    def blend_rank(w: Any) -> Callable[[str], list[str]]:
        return lambda q: arms.blend(q, (round(1 - w, 1), w), 100)

    every = list(dataset.queries)
    scored = {w: _ndcg_of(dataset, blend_rank(w), every) for w in weights}
    best = max(weights, key=lambda w: scored[w])
    for w in sorted({0.3, 0.4, 0.6, 0.7, best}):
        reports[f"blend, meaning weight {w}" + (" (best here)" if w == best else "")] = run(
            str(w), Ranked(_blended(arms, (round(1 - w, 1), w)))
        )
    held, picked = _two_fold(dataset, weights, blend_rank)
    # pseudo-relevance feedback on the meaning arm (not a product feature), 0.5/0.5 blend
    choices = [(k, beta) for k in (3, 5, 10) for beta in (0.0, 0.25, 0.5, 1.0)]

    def feedback_rank(choice: Any) -> Callable[[str], list[str]]:
        return lambda q: arms.feedback(q, (0.5, 0.5), choice[0], choice[1], 100)

    fed = {c: _ndcg_of(dataset, feedback_rank(c), every) for c in choices}
    fed_held, fed_picked = _two_fold(dataset, choices, feedback_rank)
    top_fed = max(choices, key=lambda c: fed[c])
    reports[f"blend 0.5 + feedback (k, beta) {top_fed} (best here)"] = run(
        "prf", Ranked(_cut(feedback_rank(top_fed)))
    )
    reranker = EmbeddingReranker(model)  # type: ignore[arg-type]
    for depth in [d for d in args.fusion_depths if d > 0]:  # 0: no reranked rows
        reranked = RerankedTextSearch(index, reranker, depth=depth)
        reports[f"hybrid + EmbeddingReranker (same model), depth {depth}"] = run("rr", reranked)
    print_comparison(
        f"{dataset.name}: {a}, blend weight and reranking depth", Comparison.from_reports(reports)
    )
    print(f"<!-- nDCG@10 by meaning weight: {[(w, round(s, 4)) for w, s in scored.items()]} -->")
    print(
        f"<!-- two-fold (weight tuned on half, measured on the other): nDCG@10 {held:.3f}, "
        f"weights picked {picked} -->"
    )
    print(f"<!-- feedback nDCG@10 by (k, beta): {[(c, round(v, 4)) for c, v in fed.items()]} -->")
    print(f"<!-- feedback two-fold: nDCG@10 {fed_held:.3f}, (k, beta) picked {fed_picked} -->")
    index.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument("--embedder", metavar="SPEC", help="measure semantic, hybrid, reranked")
    parser.add_argument("--vector-cache", default="~/.cache/textsearch-bench")
    parser.add_argument("--queries", type=int, help="only the first N queries (a quick look)")
    parser.add_argument("--rerank-depth", type=int, default=30)
    parser.add_argument("--diversity", type=float, default=0.3)
    parser.add_argument("--costs", action="store_true", help="measure costs instead")
    parser.add_argument("--store", choices=["chroma", "qdrant", "milvus"],
                        help="with --embedder: that vector store's own search modes")  # fmt: skip
    parser.add_argument("--cost-rounds", type=int, default=10)
    parser.add_argument("--second-embedder", metavar="SPEC",
                        help="with --embedder: fuse, rerank and blend the two models")  # fmt: skip
    parser.add_argument("--second-vector-cache", help="its cache (default: --vector-cache)")
    parser.add_argument("--blend-study", action="store_true",
                        help="with --embedder: blend weight, rerank depth")  # fmt: skip
    parser.add_argument("--fusion-depths", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument(
        "--no-rerank", action="store_true", help="with --second-embedder: only the indexes' rows"
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"no relevance data at {DATA} (see the README of ../shared/relevance/); skipped")
        return 0
    for name in args.datasets:
        if not (DATA / name).is_dir():
            print(f"{name}: not found under {DATA}; skipped")
            continue
        dataset = load_beir(DATA / name)
        if args.queries:
            dataset = dataset.head(args.queries)
        if args.costs:
            costs(dataset, args)
        elif args.embedder and args.blend_study:
            blend_rows(dataset, args)
        elif args.embedder and args.second_embedder:
            fusion_rows(dataset, args)
        elif args.embedder and args.store:
            store_rows(dataset, args)
        elif args.embedder:
            semantic_rows(dataset, args)
        else:
            keyword_rows(dataset, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
