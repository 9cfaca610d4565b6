"""The Embedder contract: FunctionEmbedder, and the checks every embedder's output goes through."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from textsearch.embeddings import (
    Embedder,
    FunctionEmbedder,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)
from textsearch.errors import (
    AuthenticationError,
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    ResponseFormatError,
)


def _letters(texts: list[str]) -> list[list[float]]:
    return [[float(len(t)), float(t.count("a")), 1.0] for t in texts]


async def _letters_async(texts: list[str]) -> list[list[float]]:
    await asyncio.sleep(0)
    return _letters(texts)


@pytest.mark.parametrize("fn", [_letters, _letters_async])
def test_function_embedder_sync_and_async(fn: Any) -> None:
    embedder = FunctionEmbedder(fn, model="letters")
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions is None
    assert embedder.embed_documents_sync(["aa", "b"]) == [[2.0, 2.0, 1.0], [1.0, 0.0, 1.0]]
    assert embedder.dimensions == 3
    assert asyncio.run(embedder.embed_query("abc")) == [3.0, 1.0, 1.0]
    assert embedder.embed_documents_sync([]) == []


def test_function_embedder_refuses_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        FunctionEmbedder("not callable", model="m")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        FunctionEmbedder(_letters, model=" ")
    with pytest.raises(ConfigurationError):
        FunctionEmbedder(_letters, model="m", dimensions=0)


BAD_OUTPUTS: list[tuple[str, Any]] = [
    ("count", lambda texts: [[1.0, 2.0]]),
    ("uneven", lambda texts: [[1.0, 2.0], [1.0]]),
    ("nan", lambda texts: [[math.nan, 1.0] for _ in texts]),
    ("inf", lambda texts: [[math.inf, 1.0] for _ in texts]),
    ("text", lambda texts: [["1", 1.0] for _ in texts]),
    ("bool", lambda texts: [[True, 1.0] for _ in texts]),
    ("empty", lambda texts: [[] for _ in texts]),
    ("none", lambda texts: None),
    ("string", lambda texts: "vectors"),
]


@pytest.mark.parametrize(("name", "fn"), BAD_OUTPUTS, ids=[b[0] for b in BAD_OUTPUTS])
def test_malformed_output_is_a_response_format_error(name: str, fn: Any) -> None:
    with pytest.raises(ResponseFormatError):
        FunctionEmbedder(fn, model="bad").embed_documents_sync(["a", "b"])
    with pytest.raises(ResponseFormatError):
        embed_documents_sync(FunctionEmbedder(fn, model="bad"), ["a", "b"])


def test_declared_dimensions_are_enforced() -> None:
    embedder = FunctionEmbedder(_letters, model="letters", dimensions=4)
    with pytest.raises(ResponseFormatError, match="3 dimensions, expected 4"):
        embed_documents_sync(embedder, ["a"])


class _Raw:
    """An embedder that skips every check, as a third-party one might."""

    model = "raw"
    dimensions = 2

    def __init__(self, out: Any = None, error: Exception | None = None) -> None:
        self.out, self.error = out, error

    def _go(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.out

    async def embed_documents(self, texts: Any) -> Any:
        return self._go()

    async def embed_query(self, text: str) -> Any:
        return self._go()

    def embed_documents_sync(self, texts: Any) -> Any:
        return self._go()

    def embed_query_sync(self, text: str) -> Any:
        return self._go()


def test_helpers_wrap_foreign_errors_and_keep_ours() -> None:
    boom = RuntimeError("model crashed")
    with pytest.raises(ProviderError) as caught:
        embed_documents_sync(_Raw(error=boom), ["a"])
    assert caught.value.__cause__ is boom
    ours = AuthenticationError("bad key", provider="x")
    with pytest.raises(AuthenticationError) as same:
        asyncio.run(embed_query(_Raw(error=ours), "q"))
    assert same.value is ours
    with pytest.raises(ResponseFormatError):
        embed_query_sync(_Raw(out=[1.0, float("nan")]), "q")
    assert asyncio.run(embed_documents(_Raw(out=[[1, 2]]), ["a"])) == [[1.0, 2.0]]
    with pytest.raises(InvalidRequestError):
        embed_documents_sync(_Raw(out=[]), "not a list")
