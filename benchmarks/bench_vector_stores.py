"""CPU per top-10 search through the vector-store connectors against the bare clients.

For each store (Chroma in-process, Qdrant local mode, Milvus Lite), on ``--n`` random vectors:

* search: ``--queries`` top-10 dense searches through the connector (blocking and async)
  against the store's own client doing the same search with the same vector (blocking, and
  in a worker thread for the async comparison, as the connector runs in-process clients);
  CPU time of this process per search (``time.process_time``; Milvus Lite's engine runs in
  a process of its own, so for Milvus this is the client side only).
* writing: ``add_documents`` of ``--n`` documents (one passage each) against the client's own
  bulk insert of the same vectors, in documents per second of wall time.

The embedder returns precomputed vectors (a dict lookup), so the figures measure the
connector, not a model. Usage::

    python benchmarks/bench_vector_stores.py --n 10000 --queries 200
    python benchmarks/bench_vector_stores.py --stores milvus --n 100000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textsearch.embeddings import FunctionEmbedder

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


def _cpu(ours: Callable[[], Any], bare: Callable[[], Any], count: int) -> tuple[float, float]:
    """µs of CPU per call of each, measured in alternation (a loaded machine drifts)."""
    ours(), bare()  # warm up (the first call learns the collection's layout)
    spent = [0.0, 0.0]
    for _ in range(count):
        for slot, fn in enumerate((ours, bare)):
            started = time.process_time()
            fn()
            spent[slot] += time.process_time() - started
    return spent[0] / count * 1e6, spent[1] / count * 1e6


def _cpu_async(ours: Callable[[], Any], bare: Callable[[], Any], count: int) -> tuple[float, float]:
    async def run() -> tuple[float, float]:
        await ours()
        await bare()
        spent = [0.0, 0.0]
        for _ in range(count):
            for slot, fn in enumerate((ours, bare)):
                started = time.process_time()
                await fn()
                spent[slot] += time.process_time() - started
        return spent[0] / count * 1e6, spent[1] / count * 1e6

    return asyncio.run(run())


def _report(store: str, what: str, connector: float, bare: float, unit: str) -> None:
    print(
        f"{store:7} {what:28} connector {connector:10.1f} {unit}  bare {bare:10.1f} {unit}  "
        f"ratio {connector / bare:5.2f}"
    )


def bench(store: str, n: int, queries: int, folder: Path) -> None:
    texts = [f"document {i} about topic {i % 97}" for i in range(n)]
    vectors = _vectors(n, 1)
    query_texts = [f"query {i}" for i in range(queries)]
    table = Table(texts + query_texts, vectors + _vectors(queries, 2))
    docs = [
        {"id": f"d{i}", "title": f"Title {i}", "text": t, "link": f"https://ex.com/{i}"}
        for i, t in enumerate(texts)
    ]
    query_vector = table.table[query_texts[0]]

    if store == "chroma":
        import chromadb

        from textsearch import ChromaTextSearch

        client = chromadb.PersistentClient(str(folder / "chroma"))
        search = ChromaTextSearch(client, "bench", embedder=table.embedder())
        bare_collection = client.create_collection(
            "bare", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )

        def bare_insert() -> None:
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
            return bare_collection.query(
                query_embeddings=[query_vector],
                n_results=10,
                include=["documents", "metadatas", "distances"],
            )
    elif store == "qdrant":
        from qdrant_client import QdrantClient, models

        from textsearch import QdrantTextSearch

        client = QdrantClient(":memory:")  # local mode on disk pickles every point: slower for both
        search = QdrantTextSearch(
            client, "bench", embedder=table.embedder(), mode="semantic", sparse_vector_name=None
        )
        client.create_collection(
            "bare",
            vectors_config={
                "dense": models.VectorParams(size=DIM, distance=models.Distance.COSINE)
            },
        )

        def bare_insert() -> None:
            for s in range(0, n, 256):
                client.upsert(
                    "bare",
                    points=[
                        models.PointStruct(
                            id=i,
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

        client = MilvusClient(str(folder / "milvus.db"))
        search = MilvusTextSearch(client, "bench", embedder=table.embedder(), mode="semantic")
        # the same schema as the connector's (BM25 function included), built here by hand
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("pk", DataType.VARCHAR, is_primary=True, max_length=1024)
        schema.add_field("document_id", DataType.VARCHAR, max_length=1024)
        schema.add_field("text", DataType.VARCHAR, max_length=65535, enable_analyzer=True)
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
        client.create_collection("bare", schema=schema, index_params=index)

        def bare_insert() -> None:
            for s in range(0, n, 256):
                client.insert(
                    "bare",
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

    started = time.perf_counter()
    search.add_documents_sync(docs, chunk=False)
    ours = n / (time.perf_counter() - started)
    started = time.perf_counter()
    bare_insert()
    theirs = n / (time.perf_counter() - started)
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
