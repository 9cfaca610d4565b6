"""OpenAIEmbedder over real sockets: a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from tests.embeddings.fake_openai import bag_of_words, fake_openai
from tests.emulators.web import Reply, serve
from textsearch.embeddings import OpenAIEmbedder, embed_documents, embed_query_sync
from textsearch.errors import (
    AuthenticationError,
    NotFoundError,
    ProviderError,
    RateLimitError,
    SearchTransportError,
)

KEY = "sk-local-SECRET-abcdefghijklmnop"
MODES = ["async", "sync"]


@pytest.fixture(autouse=True)
def _no_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def docs(embedder: OpenAIEmbedder, mode: str, texts: list[str]) -> list[list[float]]:
    if mode == "sync":
        try:
            return embedder.embed_documents_sync(texts)
        finally:
            embedder.close()

    async def go() -> list[list[float]]:
        async with embedder:
            return await embed_documents(embedder, texts)

    return asyncio.run(go())


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("encoding", ["float", "base64"])
def test_vectors_in_order_over_batches(mode: str, encoding: Any) -> None:
    texts = [f"passage number {i} about topic {i % 3}" for i in range(7)]
    with fake_openai() as server:
        embedder = OpenAIEmbedder(
            "fake-embed-small", base_url=server.base_url, batch_size=3, encoding_format=encoding
        )
        vectors = docs(embedder, mode, texts)
    assert len(server.requests) == 3
    assert embedder.dimensions == 16
    for text, vec in zip(texts, vectors, strict=True):
        assert vec == pytest.approx(bag_of_words(text, 16), abs=1e-6)
    # no key for a local server: no Authorization header at all
    assert all("Authorization" not in r["headers"] for r in server.requests)


def test_dimensions_and_similarity() -> None:
    with fake_openai(key=KEY) as server:
        embedder = OpenAIEmbedder(
            "fake-embed-large", api_key=KEY, base_url=server.base_url, dimensions=32
        )
        a, b, c = embedder.embed_documents_sync(
            ["cancel a running job", "how to cancel the job", "bananas are yellow"]
        )
        q = embed_query_sync(embedder, "cancel job")
        embedder.close()
    assert len(a) == 32 and server.bodies()[0]["dimensions"] == 32
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert cosine(q, a) > cosine(q, c) and cosine(q, b) > cosine(q, c)
    assert cosine(a, b) > cosine(a, c)


@pytest.mark.parametrize("mode", MODES)
def test_server_errors(mode: str) -> None:
    with fake_openai(key=KEY) as server:
        with pytest.raises(AuthenticationError) as auth:
            docs(
                OpenAIEmbedder(
                    "fake-embed-small", api_key="sk-wrong-0123456789", base_url=server.base_url
                ),
                mode,
                ["x"],
            )
        assert "Incorrect API key" in str(auth.value)
        with pytest.raises(NotFoundError, match="does not exist"):
            docs(
                OpenAIEmbedder("no-such-model", api_key=KEY, base_url=server.base_url), mode, ["x"]
            )
        server.fail_next(
            429,
            {
                "error": {
                    "message": "Rate limit reached",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
            {"Retry-After": "0"},
        )
        vectors = docs(
            OpenAIEmbedder(
                "fake-embed-small", api_key=KEY, base_url=server.base_url, max_retry_wait=0
            ),
            mode,
            ["retried"],
        )
        assert vectors[0] == pytest.approx(bag_of_words("retried", 16))
        server.fail_next(
            429,
            {
                "error": {
                    "message": "Rate limit reached",
                    "type": "requests",
                    "code": "rate_limit_exceeded",
                }
            },
            {"Retry-After": "0"},
        )
        with pytest.raises(RateLimitError):
            docs(
                OpenAIEmbedder(
                    "fake-embed-small", api_key=KEY, base_url=server.base_url, max_retries=0
                ),
                mode,
                ["x"],
            )


def test_unreachable_server_is_a_transport_error() -> None:
    with fake_openai() as server:
        base_url = server.base_url
    embedder = OpenAIEmbedder("fake-embed-small", base_url=base_url, max_retries=0, deadline=5)
    with pytest.raises(SearchTransportError):
        embedder.embed_query_sync("x")


@pytest.mark.parametrize("mode", MODES)
def test_credentials_never_follow_a_redirect_to_another_origin(mode: str) -> None:
    with serve(Reply(200, {"data": []})) as elsewhere, serve() as origin:
        origin.enqueue(Reply(307, b"", {"Location": f"{elsewhere.url}/v1/embeddings"}))
        embedder = OpenAIEmbedder("m", api_key=KEY, base_url=f"{origin.url}/v1")
        with pytest.raises(ProviderError) as info:
            docs(embedder, mode, ["x"])
        assert info.value.code == "cross_origin_redirect"
        assert elsewhere.requests == []
        assert origin.requests[0].headers["authorization"] == f"Bearer {KEY}"
        assert KEY not in str(info.value)


def test_same_origin_redirect_is_followed_with_the_key() -> None:
    with fake_openai(key=KEY) as server:
        moved = server.base_url.replace("/v1", "/old")
        server.fail_next(308, {}, {"Location": f"{server.base_url}/embeddings"})
        embedder = OpenAIEmbedder("fake-embed-small", api_key=KEY, base_url=moved)
        vector = embedder.embed_query_sync("moved permanently")
        embedder.close()
    assert vector == pytest.approx(bag_of_words("moved permanently", 16))
    assert [r["path"] for r in server.requests] == ["/old/embeddings", "/v1/embeddings"]
    assert server.requests[1]["headers"]["Authorization"] == f"Bearer {KEY}"
