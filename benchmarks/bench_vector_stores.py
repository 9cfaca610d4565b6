"""CPU per top-10 search through the vector-store connectors against the bare clients.

For each store (Chroma in-process, Qdrant local mode, Milvus Lite), on ``--n`` random vectors:

* search: ``--queries`` top-10 dense searches through the connector (blocking and async)
  against the store's own client doing the same search with the same vector (blocking, and
  in a worker thread for the async comparison, as the connector runs in-process clients);
  CPU time of this process per search (``time.process_time``; Milvus Lite's engine runs in
  a process of its own, so for Milvus this is the client side only), the median call of each
  side, with the set-up frozen out of the garbage collector's scans (a collector pause lands
  on one call of one side: by means, Qdrant's async ratio read 1.04x-1.39x run to run).
* writing: ``add_documents`` of ``--n`` documents (one passage each) into a new collection
  against the client's own creation of the same collection and bulk insert of the same
  vectors and fields, in documents per second of wall time; two rounds, the second in the
  other order, the faster of each side counted.

The embedder returns precomputed vectors (a dict lookup), so the figures measure the
connector, not a model. Usage::

    python benchmarks/bench_vector_stores.py --n 10000 --queries 200
    python benchmarks/bench_vector_stores.py --stores milvus --n 100000
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textsearch.embeddings import FunctionEmbedder

# One BLAS thread (unless set): numpy's BLAS threads spin while they wait, and that spinning
# is process CPU time that lands on whichever side is running (Qdrant's async ratio read
# 1.10x-1.39x from run to run with them, 1.11-1.12x without). Set before numpy loads
# (the stores import it when first used, below).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

DIM = 64


def _vectors(n: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[rng.uniform(-1, 1) for _ in range(DIM)] for _ in range(n)]


class Table:
    """Precomputed vectors: text -> vector (what a real embedder would return)."""

    def __init__(self, texts: list[str], vectors: list[list[float]]) -> None:
        self.table = dict(zip(texts, vectors, strict=True))

    def embedder(self) -> FunctionEmbedder:
        return FunctionEmbedder(
            lambda texts: [self.table[t] for t in texts], model="table", dimensions=DIM
        )


def _median_pair(spent: tuple[list[float], list[float]]) -> tuple[float, float]:
    # The median call of each side: a collector pause or a thread wake-up lands on one call
    # of one side, and a mean would charge it to that side (Qdrant async read 1.04x-1.39x
    # from one run to the next by means, on a quiet machine).
    return statistics.median(spent[0]) * 1e6, statistics.median(spent[1]) * 1e6


def _cpu(ours: Callable[[], Any], bare: Callable[[], Any], count: int) -> tuple[float, float]:
    """µs of CPU per call of each (median call), measured in alternation."""
    ours(), bare()  # warm up (the first call learns the collection's layout)
    _settle()
    spent: tuple[list[float], list[float]] = ([], [])
    for _ in range(count):
        for slot, fn in enumerate((ours, bare)):
            started = time.process_time()
            fn()
            spent[slot].append(time.process_time() - started)
    return _median_pair(spent)


def _cpu_async(ours: Callable[[], Any], bare: Callable[[], Any], count: int) -> tuple[float, float]:
    async def run() -> tuple[float, float]:
        await ours()
        await bare()
        _settle()
        spent: tuple[list[float], list[float]] = ([], [])
        for _ in range(count):
            for slot, fn in enumerate((ours, bare)):
                started = time.process_time()
                await fn()
                spent[slot].append(time.process_time() - started)
        return _median_pair(spent)

    return asyncio.run(run())


def _settle() -> None:
    # The set-up (every document, vector and point) is frozen out of the collector's scans,
    # so that a full collection costs what the searches left, not the whole collection.
    gc.unfreeze()  # what an earlier store's run froze can go now
    gc.collect()
    gc.freeze()


def _report(store: str, what: str, connector: float, bare: float, unit: str) -> None:
    print(
        f"{store:7} {what:28} connector {connector:10.1f} {unit}  bare {bare:10.1f} {unit}  "
        f"ratio {connector / bare:5.2f}"
    )


def bench(store: str, n: int, queries: int, folder: Path) -> None:
    texts = [f"document {i} about topic {i % 97}" for i in range(n)]
    vectors = _vectors(n, 1)
    query_texts = [f"query {i}" for i in range(queries)]
    # keyed by what the connector embeds for a passage (its title, then its text)
    embedded = [f"Title {i}\n{t}" for i, t in enumerate(texts)]
    table = Table(embedded + query_texts, vectors + _vectors(queries, 2))
    docs = [
        {"id": f"d{i}", "title": f"Title {i}", "text": t, "link": f"https://ex.com/{i}"}
        for i, t in enumerate(texts)
    ]
    query_vector = table.table[query_texts[0]]
    client: Any  # each store's own client
    search: Any  # and its connector
    options: dict[str, Any]  # the connector's keywords

    if store == "chroma":
        import chromadb

        from textsearch import ChromaTextSearch

        client = chromadb.PersistentClient(str(folder / "chroma"))
        options = {"embedder": table.embedder()}
        search = ChromaTextSearch(client, "bench", **options)

        made: dict[str, Any] = {}

        def bare_create(name: str) -> None:
            made[name] = client.create_collection(
                name, embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
            )

        def bare_insert(name: str) -> None:
            bare_collection = made[name]
            size = client.get_max_batch_size()
            for s in range(0, n, size):
                bare_collection.add(
                    ids=[f"d{i}#0" for i in range(s, min(n, s + size))],
                    embeddings=vectors[s : s + size],
                    documents=texts[s : s + size],
                    metadatas=[
                        {
                            "document_id": f"d{i}",
                            "title": f"Title {i}",
                            "link": f"https://ex.com/{i}",
                            "site": ["ex.com", "com"],
                        }
                        for i in range(s, min(n, s + size))
                    ],
                )

        def bare_search() -> Any:
            return made["bare"].query(
                query_embeddings=[query_vector],
                n_results=10,
                include=["documents", "metadatas", "distances"],
            )
    elif store == "qdrant":
        from qdrant_client import QdrantClient, models

        from textsearch import QdrantTextSearch
        from textsearch.connectors.vectors.qdrant import point_id

        client = QdrantClient(":memory:")  # local mode on disk pickles every point: slower for both
        options = {"embedder": table.embedder(), "mode": "semantic", "sparse_vector_name": None}
        search = QdrantTextSearch(client, "bench", **options)

        def bare_create(name: str) -> None:
            client.create_collection(
                name,
                vectors_config={
                    "dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)
                },
            )

        def bare_insert(name: str) -> None:
            for s in range(0, n, 256):
                client.upsert(
                    name,
                    points=[
                        models.PointStruct(
                            # the connector's ids: a point id is an int or a UUID, and a
                            # document's id is text (uuid5 of "<id>#<passage>")
                            id=point_id(f"d{i}#0"),
                            vector={"dense": vectors[i]},
                            payload={
                                "text": texts[i],
                                "document_id": f"d{i}",
                                "title": f"Title {i}",
                                "link": f"https://ex.com/{i}",
                                "site": ["ex.com", "com"],
                                "metadata": {},
                            },
                        )
                        for i in range(s, min(n, s + 256))
                    ],
                    wait=True,
                )

        def bare_search() -> Any:
            return client.query_points(
                "bare", query=query_vector, using="dense", limit=10, with_payload=True
            )
    else:
        from pymilvus import DataType, Function, FunctionType, MilvusClient

        from textsearch import MilvusTextSearch
        from textsearch.connectors.vectors import milvus as milvus_store

        client = MilvusClient(str(folder / "milvus.db"))
        options = {"embedder": table.embedder(), "mode": "semantic"}
        search = MilvusTextSearch(client, "bench", **options)

        def bare_create(name: str) -> None:
            # the same schema as the connector's (BM25 function included), built by hand
            client.create_collection(name, schema=schema, index_params=index)

        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=1024)
        schema.add_field("document_id", DataType.VARCHAR, max_length=1024)
        schema.add_field(
            "text",
            DataType.VARCHAR,
            max_length=65535,
            enable_analyzer=True,
            analyzer_params=milvus_store.ANALYZER,  # the connector's (jieba) analyzer
        )
        schema.add_field("title", DataType.VARCHAR, max_length=65535)
        schema.add_field("link", DataType.VARCHAR, max_length=8192)
        schema.add_field("link_fragment", DataType.VARCHAR, max_length=8192)
        schema.add_field(
            "site", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=128, max_length=256
        )
        schema.add_field("metadata", DataType.JSON)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=DIM)
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name="sparse_bm25",
                function_type=FunctionType.BM25,
                input_field_names=["text"],
                output_field_names=["sparse"],
            )
        )
        index = client.prepare_index_params()
        index.add_index("vector", index_type="AUTOINDEX", metric_type="COSINE")
        index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")

        def bare_insert(name: str) -> None:
            for s in range(0, n, 256):
                client.insert(
                    name,
                    [
                        {
                            "pk": f"d{i}#0",
                            "document_id": f"d{i}",
                            "text": texts[i],
                            "title": f"Title {i}",
                            "link": f"https://ex.com/{i}",
                            "link_fragment": "",
                            "site": ["ex.com", "com"],
                            "metadata": {},
                            "vector": vectors[i],
                        }
                        for i in range(s, min(n, s + 256))
                    ],
                )

        def bare_search() -> Any:
            return client.search(
                "bare", data=[query_vector], anns_field="vector", limit=10, output_fields=["text"]
            )

    # Both create the collection and fill it: add_documents creates a missing collection
    # (Milvus waits for its indexes there, about a second), so the bare client does too.
    # Two rounds, the second in the other order (the first write of a process pays for
    # warming up); the faster round of each side counts.
    rates: dict[str, float] = {"ours": 0.0, "bare": 0.0}
    for suffix, order in (("", ("ours", "bare")), ("2", ("bare", "ours"))):
        for side in order:
            started = time.perf_counter()
            if side == "ours":
                writer = search if not suffix else type(search)(client, "bench" + suffix, **options)
                writer.add_documents_sync(docs, chunk=False)
            else:
                bare_create("bare" + suffix)
                bare_insert("bare" + suffix)
            rates[side] = max(rates[side], n / (time.perf_counter() - started))
    ours, theirs = rates["ours"], rates["bare"]
    _report(store, f"add_documents ({n})", ours, theirs, "doc/s")

    query = query_texts[0]
    connector, bare = _cpu(
        lambda: search.get_search_results_sync(query, top=10), bare_search, queries
    )
    _report(store, "top-10 search, blocking", connector, bare, "µs")
    connector, bare = _cpu_async(
        lambda: search.get_search_results(query, top=10),
        lambda: asyncio.to_thread(bare_search),
        queries,
    )
    _report(store, "top-10 search, async", connector, bare, "µs")
    search.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="vectors per collection")
    parser.add_argument("--queries", type=int, default=200, help="searches timed per case")
    parser.add_argument("--stores", default="chroma,qdrant,milvus")
    args = parser.parse_args()
    for store in args.stores.split(","):
        with tempfile.TemporaryDirectory(prefix=f"bench-{store}-") as folder:
            bench(store.strip(), args.n, args.queries, Path(folder))


if __name__ == "__main__":
    main()
