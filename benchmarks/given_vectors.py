"""An embedder that hands out vectors made beforehand, so a benchmark times the index alone.

The benchmarks that write vectors into an index (``bench_local.py``, ``bench_local_vectors.py``,
``bench_tracing.py``) make each batch's random unit vectors before the timed call, put them in
the list `given_embedder` returns, and let the index "embed" its texts by taking them from it.
"""

from __future__ import annotations

from collections.abc import Callable

from textsearch.embeddings import FunctionEmbedder

__all__ = ["given_embedder"]


def given_embedder(
    dims: int, *, query_fn: Callable[[list[str]], list[list[float]]] | None = None
) -> tuple[FunctionEmbedder, list[list[float]]]:
    """A ``FunctionEmbedder`` of ``dims`` dimensions and the list it takes its vectors from.

    Each call for ``n`` texts takes (and removes) the first ``n`` vectors of the list: fill it
    with the next batch's vectors (``pending[:] = rows``) before adding that batch.
    ``query_fn`` embeds queries (by default the same list is used).
    """
    pending: list[list[float]] = []

    def given(texts: list[str]) -> list[list[float]]:
        out = pending[: len(texts)]
        del pending[: len(texts)]
        return out

    embedder = FunctionEmbedder(given, model=f"random-{dims}", dimensions=dims, query_fn=query_fn)
    return embedder, pending
