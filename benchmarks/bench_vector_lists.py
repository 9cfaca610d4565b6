"""One page of ``list_documents`` on a vector collection: a scan of keys against a scan of records.

For each store (Chroma in-process, Qdrant local mode, Milvus Lite), ``--docs`` documents of
``--passages`` passages each are added (one record per passage: 20,000 records by default),
then one page of ``--limit`` documents is listed, first page and a page from the middle, by:

* ``keys``: ``list_documents`` as it is (a scan of each record's key and document id, then
  the page's first records fetched by key);
* ``records``: the listing as it was before (every record the filter admits read with its
  fields, all but the text, and made a result; the first record of each document kept),
  written here on the store's own record scan, ``_scan``.

Both sides give the same page (checked). Rounds alternate the two sides (``--rounds``); the
median wall time of each is printed (Milvus Lite's engine is a process of its own, so wall
time, not this process's CPU, is what a page costs). ``--server`` lists over the network
instead: Chroma's own server (``chroma run`` from the installed chromadb package) is started
on 127.0.0.1 with a folder of its own, used through ``chromadb.HttpClient`` and stopped by
its pid at the end. Usage::

    python benchmarks/bench_vector_lists.py --stores chroma qdrant milvus --rounds 7
    python benchmarks/bench_vector_lists.py --stores chroma --server --rounds 7
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

DIM = 16


def _embedder() -> Any:
    from textsearch.embeddings import FunctionEmbedder

    def vectors(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            seed = zlib.crc32(text.encode())
            out.append([((seed >> k) & 255) / 255 - 0.5 + 1e-3 for k in range(DIM)])
        return out

    return FunctionEmbedder(vectors, model="crc", dimensions=DIM)


def _documents(count: int, passages: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"doc{i:06d}",
            "title": f"Title {i}",
            "text": "\n\n".join(
                f"## Part {n}\n\nPart {n} of document {i}: " + " ".join(f"w{k}" for k in range(30))
                for n in range(passages)
            ),
            "link": f"https://docs.example.com/{i}",
            "metadata": {"team": ("red", "blue")[i % 2], "rank": i % 7},
        }
        for i in range(count)
    ]


@contextmanager
def _chroma_server(folder: Path) -> Iterator[int]:
    """Chroma's own server on 127.0.0.1 (a free port), serving ``folder``; its port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    program = Path(sys.executable).with_name("chroma")
    command = [str(program), "run", "--path", str(folder / "server"), "--host", "127.0.0.1"]
    server = subprocess.Popen(
        [*command, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Chroma's server did not start") from None
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()  # this process's own child, by its pid
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _store(kind: str, folder: Path, port: int | None = None) -> Any:
    if kind == "chroma":
        import chromadb

        from textsearch import ChromaTextSearch

        client = (
            chromadb.EphemeralClient()
            if port is None
            else chromadb.HttpClient(host="127.0.0.1", port=port)
        )
        return ChromaTextSearch(client, "lists", embedder=_embedder())
    if kind == "qdrant":
        from qdrant_client import QdrantClient

        from textsearch import QdrantTextSearch

        return QdrantTextSearch(
            QdrantClient(":memory:"), "lists", embedder=_embedder(), mode="semantic"
        )
    from pymilvus import MilvusClient

    from textsearch import MilvusTextSearch

    client = MilvusClient(str(folder / "lists.db"))
    return MilvusTextSearch(client, "lists", embedder=_embedder(), mode="semantic")


def _by_records(store: Any, after: str | None, limit: int) -> list[Any]:
    """The listing as it was: every admitted record read (no text) and made a result."""
    from textsearch._types import SearchOptions
    from textsearch.connectors.vectors._reads import _number

    flt = store._filter_of(SearchOptions(filter=None))
    records = store._call(lambda client: store._scan(client, flt, False))
    first: dict[str, Any] = {}
    for record in records:
        doc_id = record[1].id
        if after is not None and doc_id <= after:
            continue
        number = _number(record[0], doc_id)
        rank = (number is None, number or 0)
        if doc_id not in first or rank < first[doc_id][0]:
            first[doc_id] = (rank, record)
    return [store._listed(first[doc_id][1]) for doc_id in sorted(first)[:limit]]


def _median_ms(spent: list[float]) -> float:
    return statistics.median(spent) * 1000


def bench(
    kind: str,
    docs: int,
    passages: int,
    limit: int,
    rounds: int,
    folder: Path,
    port: int | None = None,
) -> None:
    store = _store(kind, folder, port)
    started = time.perf_counter()
    documents = _documents(docs, passages)
    step = 100 if port is not None else len(documents)  # a server answers each call in time
    for first in range(0, len(documents), step):
        store.add_documents_sync(documents[first : first + step])
    added = time.perf_counter() - started
    records = store.get_search_results_sync("part", top=1, include_total_count=True).total_count
    middle = f"doc{docs // 2:06d}"
    sides: dict[str, Callable[[str | None], list[Any]]] = {
        "keys": lambda after: store.list_documents(after=after, limit=limit),
        "records": lambda after: _by_records(store, after, limit),
    }
    for after in (None, middle):
        assert sides["keys"](after) == sides["records"](after)  # the same page
    spent: dict[tuple[str, str | None], list[float]] = {}
    for _ in range(rounds):
        for after in (None, middle):
            for name, side in sides.items():
                started = time.perf_counter()
                side(after)
                spent.setdefault((name, after), []).append(time.perf_counter() - started)
    served = f" (server on port {port})" if port is not None else ""
    print(
        f"{kind}{served}: {records} records of {docs} documents (added in {added:.1f} s), "
        f"limit {limit}"
    )
    for after in (None, middle):
        keys, scanned = _median_ms(spent["keys", after]), _median_ms(spent["records", after])
        where = "first page" if after is None else f"after {after}"
        print(
            f"  {where:18} keys {keys:8.1f} ms  records {scanned:8.1f} ms  ({scanned / keys:4.1f}x)"
        )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--stores", nargs="+", default=["chroma", "qdrant", "milvus"])
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--passages", type=int, default=10)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--server", action="store_true", help="Chroma only: through its own server (HTTP)"
    )
    args = parser.parse_args()
    if args.server and args.stores != ["chroma"]:
        parser.error("--server measures Chroma's server: use it with --stores chroma")
    print("load average:", Path("/proc/loadavg").read_text().split()[:3])
    with tempfile.TemporaryDirectory() as folder:
        if args.server:
            with _chroma_server(Path(folder)) as port:
                bench(
                    "chroma", args.docs, args.passages, args.limit, args.rounds, Path(folder), port
                )
        for kind in [] if args.server else args.stores:
            bench(kind, args.docs, args.passages, args.limit, args.rounds, Path(folder))
    print("load average:", Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
