"""Issue #33 item 13: a vector value beyond float32's range is refused, never scored as NaN."""

from __future__ import annotations

import math

import numpy as np
import pytest

from textsearch import LocalTextSearch
from textsearch.embeddings import (
    FunctionEmbedder,
    check_vectors,
    embed_documents_sync,
    embed_query_sync,
)
from textsearch.errors import ResponseFormatError

MAX_VECTOR_VALUE = float(np.finfo(np.float32).max)

HUGE = [0.5, 1e39, 0.5]
ROWS = {
    "list-of-floats": [[0.1, 0.2, 0.3], HUGE],
    "negative": [[0.1, 0.2, 0.3], [-1e39, 0.2, 0.3]],
    "tuples": [(0.1, 0.2, 0.3), tuple(HUGE)],
    "ints": [[1, 2, 3], [1, 10**39, 3]],
    "numpy-float64": np.array([[0.1, 0.2, 0.3], HUGE], dtype=np.float64),
    "numpy-rows": [np.array([0.1, 0.2, 0.3]), np.array(HUGE)],
}


@pytest.mark.parametrize("case", sorted(ROWS))
def test_values_beyond_float32_are_refused(case: str) -> None:
    for dimensions in (3, None):
        with pytest.raises(ResponseFormatError, match="float32"):
            check_vectors(ROWS[case], 2, dimensions, provider="t")


def test_the_largest_float32_value_is_still_accepted() -> None:
    edge = [[MAX_VECTOR_VALUE, -MAX_VECTOR_VALUE, 0.0]]
    assert check_vectors(edge, 1, 3, provider="t") == edge
    assert math.isfinite(float(np.float32(MAX_VECTOR_VALUE)))


def test_an_embedder_returning_huge_values_is_a_documented_error() -> None:
    embedder = FunctionEmbedder(lambda texts: [HUGE for _ in texts], model="huge", dimensions=3)
    with pytest.raises(ResponseFormatError):
        embed_documents_sync(embedder, ["a", "b"])
    with pytest.raises(ResponseFormatError):
        embed_query_sync(embedder, "a")


def test_a_local_semantic_search_never_scores_nan() -> None:
    good = FunctionEmbedder(
        lambda texts: [[1.0, float(len(t)), 0.5] for t in texts], model="m", dimensions=3
    )
    search = LocalTextSearch(":memory:", embedder=good, mode="semantic")
    search.add_documents([{"id": "a", "title": "t", "text": "retry policy"}])
    hostile = FunctionEmbedder(lambda texts: [HUGE for _ in texts], model="m", dimensions=3)
    search.embedder = hostile  # the query vector now comes from a misbehaving model
    with pytest.raises(ResponseFormatError):
        search.search_sync("retry")
