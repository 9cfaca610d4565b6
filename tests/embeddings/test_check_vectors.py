"""check_vectors' fast paths refuse exactly what the value-by-value check refuses."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from textsearch.embeddings import (
    FunctionEmbedder,
    check_vectors,
    embed_documents,
    embed_documents_sync,
    embed_query_sync,
)
from textsearch.embeddings._base import embeds_in_a_thread
from textsearch.errors import ProviderError, ResponseFormatError

BAD_ROWS: list[tuple[str, list[Any], str]] = [
    ("nan", [0.5, math.nan, 0.5], "not finite"),
    ("inf", [0.5, 0.5, math.inf], "not finite"),
    ("minus-inf", [-math.inf, 0.5, 0.5], "not finite"),
    ("inf-and-minus-inf", [math.inf, -math.inf, 0.5], "not finite"),
    ("bool", [0.5, True, 0.5], "holds a bool"),
    ("string", [0.5, "0.5", 0.5], "holds a str"),
    ("none", [0.5, None, 0.5], "holds a NoneType"),
    ("huge-int", [0.5, 10**400, 0.5], "not finite"),
    ("complex", [0.5, 1j, 0.5], "holds a complex"),
]


@pytest.mark.parametrize(("name", "row", "message"), BAD_ROWS, ids=[b[0] for b in BAD_ROWS])
def test_a_bad_value_anywhere_in_a_row_is_refused(name: str, row: list[Any], message: str) -> None:
    good = [0.1, 0.2, 0.3]
    with pytest.raises(ResponseFormatError, match=message):
        check_vectors([good, row], 2, 3, provider="t")
    with pytest.raises(ResponseFormatError, match=message):
        check_vectors([tuple(good), tuple(row)], 2, None, provider="t")
    # the same through a store's helper: a ProviderError, never a vector
    embedder = FunctionEmbedder(lambda texts: [good, row], model="m")
    with pytest.raises(ProviderError):
        embed_documents_sync(embedder, ["a", "b"])


def test_count_and_length_are_checked_on_the_fast_path() -> None:
    with pytest.raises(ResponseFormatError, match="1 vectors for 2 texts"):
        check_vectors([[0.1, 0.2]], 2, None, provider="t")
    with pytest.raises(ResponseFormatError, match="has 3 dimensions, expected 2"):
        check_vectors([[0.1, 0.2], [0.1, 0.2, 0.3]], 2, None, provider="t")
    with pytest.raises(ResponseFormatError, match="has 2 dimensions, expected 4"):
        check_vectors([[0.1, 0.2]], 1, 4, provider="t")
    with pytest.raises(ResponseFormatError, match="not a non-empty list"):
        check_vectors([[]], 1, None, provider="t")


def test_finite_values_beyond_float32_are_refused_even_when_their_sum_overflows() -> None:
    # 1e308 + 1e308 is inf: the whole-row test fails, the value-by-value check refuses
    # 1e308 as beyond float32 (issue #33); values within float32's range are kept
    with pytest.raises(ResponseFormatError, match="float32"):
        check_vectors([[1e308, 1e308, -1.0]], 1, 3, provider="t")
    assert check_vectors([[3e38, 3e38, -1.0]], 1, 3, provider="t") == [[3e38, 3e38, -1.0]]


def test_rows_are_new_lists_of_floats() -> None:
    row = [0.25, -0.5, 1.0]
    ints = [1, 2, 3]
    out = check_vectors([row, ints], 2, 3, provider="t")
    assert out == [[0.25, -0.5, 1.0], [1.0, 2.0, 3.0]]
    assert out[0] is not row and all(type(v) is float for v in out[1])
    row.append(9.0)
    assert out[0] == [0.25, -0.5, 1.0]


_GOOD = object()


def _wide_rows(width: int, bad: Any = _GOOD) -> list[list[Any]]:
    rows: list[list[Any]] = [
        [(i * 7 + j) % 13 / 13.0 - 0.5 for j in range(width)] for i in range(4)
    ]
    if bad is not _GOOD:
        rows[2][width - 1] = bad  # past the first row: the length is known, the fast test runs
    return rows


@pytest.mark.parametrize("width", [3, 384, 1536])
def test_an_embedding_function_s_float_rows_are_handed_over_at_real_widths(width: int) -> None:
    rows = _wide_rows(width)
    for dimensions in (None, width):
        embedder = FunctionEmbedder(lambda texts: rows, model="m", dimensions=dimensions)
        out = embed_documents_sync(embedder, ["a", "b", "c", "d"])
        # the same lists, checked, not copied (a copy is all the long way could give)
        assert all(o is r for o, r in zip(out, rows, strict=True))
    # check_vectors itself still returns new lists
    copies = check_vectors(rows, 4, width, provider="t")
    assert copies == rows and all(o is not r for o, r in zip(copies, rows, strict=True))


@pytest.mark.parametrize("width", [3, 384, 1536])
def test_a_handed_over_row_is_still_refused_for_any_bad_value(width: int) -> None:
    np = pytest.importorskip("numpy")
    bad_values: list[tuple[Any, str]] = [
        (math.nan, "not finite"),
        (math.inf, "not finite"),
        (-math.inf, "not finite"),
        (True, "holds a bool"),
        ("0.5", "holds a str"),
        (None, "holds a NoneType"),
        (10**400, "not finite"),
        (1j, "holds a complex"),
        (np.bool_(True), "holds a bool"),
        (np.float64("nan"), "not finite"),
        (np.float32("inf"), "not finite"),
    ]
    for value, message in bad_values:
        rows = _wide_rows(width, value)
        embedder = FunctionEmbedder(lambda texts, rows=rows: rows, model="m", dimensions=width)
        with pytest.raises(ResponseFormatError, match=message):
            embedder.embed_documents_sync(["a", "b", "c", "d"])
    short = _wide_rows(width)
    short[3] = short[3][:-1]
    embedder = FunctionEmbedder(lambda texts: short, model="m", dimensions=width)
    with pytest.raises(ResponseFormatError, match=f"has {width - 1} dimensions"):
        embedder.embed_documents_sync(["a", "b", "c", "d"])


def test_numpy_floats_and_ints_in_a_handed_over_row_become_new_python_floats() -> None:
    np = pytest.importorskip("numpy")
    rows: list[list[Any]] = [[0.5, 0.25], [np.float32(0.5), 2], [3e38, 3e38]]
    out = FunctionEmbedder(lambda texts: rows, model="m", dimensions=2).embed_documents_sync(
        ["a", "b", "c"]
    )
    assert out[0] is rows[0]
    assert out[1] == [0.5, 2.0] and out[1] is not rows[1]
    assert all(type(v) is float for row in out for v in row)
    assert out[2] == [3e38, 3e38]  # float32's range


def test_numpy_arrays_take_the_vectorised_path_and_keep_every_check() -> None:
    np = pytest.importorskip("numpy")
    assert check_vectors(np.arange(6).reshape(2, 3), 2, 3, provider="t") == [
        [0.0, 1.0, 2.0],
        [3.0, 4.0, 5.0],
    ]
    rows = check_vectors(np.full((2, 2), 0.5, dtype=np.float16), 2, None, provider="t")
    assert rows == [[0.5, 0.5], [0.5, 0.5]] and type(rows[0][0]) is float
    for bad, message in (
        (np.array([[0.5, np.nan]]), "not finite"),
        (np.array([[0.5, -np.inf]], dtype=np.float32), "not finite"),
        (np.array([[True, False]]), "holds a bool"),
        (np.array([[0.5, None]], dtype=object), "holds a NoneType"),
        (np.array([["0.5", "1"]]), "holds a str"),
        (np.ones((1, 3)), "has 3 dimensions, expected 2"),
        (np.ones((1, 0)), "not a non-empty list"),
    ):
        with pytest.raises(ResponseFormatError, match=message):
            check_vectors(bad, 1, 2, provider="t")
    # rows that are arrays (a list of them, as fastembed returns)
    with pytest.raises(ResponseFormatError, match="not finite"):
        check_vectors([np.ones(2), np.array([1.0, np.inf])], 2, 2, provider="t")


class _Lying(FunctionEmbedder):
    """A subclass whose output never went through the checks: it is checked again."""

    def embed_documents_sync(self, texts: Any) -> Any:
        return [[math.nan, 0.0] for _ in texts]

    async def embed_documents(self, texts: Any) -> Any:
        return [[0.0, "x"] for _ in texts]

    def embed_query_sync(self, text: str) -> Any:
        return [1.0]


def test_only_this_package_s_own_embedders_skip_the_second_check() -> None:
    lying = _Lying(lambda texts: [[0.0, 0.0] for _ in texts], model="m", dimensions=2)
    with pytest.raises(ResponseFormatError, match="not finite"):
        embed_documents_sync(lying, ["a"])
    with pytest.raises(ResponseFormatError, match="holds a str"):
        asyncio.run(embed_documents(lying, ["a"]))
    with pytest.raises(ResponseFormatError, match="1 dimensions, expected 2"):
        embed_query_sync(lying, "q")
    assert not embeds_in_a_thread(lying)


def test_embeds_in_a_thread_only_for_blocking_functions() -> None:
    async def coroutine(texts: list[str]) -> list[list[float]]:
        return [[1.0] for _ in texts]

    assert embeds_in_a_thread(FunctionEmbedder(lambda texts: [[1.0]], model="m"))
    assert not embeds_in_a_thread(FunctionEmbedder(coroutine, model="m"))
    assert not embeds_in_a_thread(
        FunctionEmbedder(lambda texts: [[1.0]], model="m", query_fn=coroutine)
    )
