"""Hosted rerankers against loopback servers that follow each API's documented shapes."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any

import pytest

from tests.emulators.web import Reply, serve
from tests.rerank.fake_rerank import Scripted, error_body, fake_rerank, word_overlap
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
)
from textsearch.rerank import (
    CohereReranker,
    JinaReranker,
    Reranker,
    TEIReranker,
    VoyageReranker,
    rerank,
)

KEY = "rr-SECRET-key-0123456789abcdef"
APIS = ["cohere", "jina", "voyage", "tei"]
MODES = ["async", "sync"]
QUERY = "retry with backoff"
TEXTS = [
    "a page about colours",
    "retry the request with exponential backoff",
    "retry once",
    "backoff and retry, with jitter",
    "nothing relevant here",
]


def make(api: str, url: str, **kwargs: Any) -> Any:
    kwargs.setdefault("max_retry_wait", 2.0)
    if api == "tei":
        return TEIReranker(url, api_key=kwargs.pop("api_key", KEY), **kwargs)
    cls = {"cohere": CohereReranker, "jina": JinaReranker, "voyage": VoyageReranker}[api]
    return cls(api_key=kwargs.pop("api_key", KEY), base_url=url, **kwargs)


def scores(reranker: Any, mode: str, texts: list[str] = TEXTS, query: str = QUERY) -> list[float]:
    if mode == "sync":
        try:
            return list(reranker.rerank_sync(query, texts))
        finally:
            reranker.close()

    async def go() -> list[float]:
        async with reranker:
            return await rerank(reranker, query, texts)

    return asyncio.run(go())


def expected(texts: list[str] = TEXTS) -> list[float]:
    return [word_overlap(QUERY, t) for t in texts]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_scores_in_input_order_and_request_shape(api: str, mode: str) -> None:
    with fake_rerank(api, key=KEY) as server:
        reranker = make(api, server.url)
        assert isinstance(reranker, Reranker)
        got = scores(reranker, mode)
    assert got == pytest.approx(expected())  # the server answered sorted by score
    (request,) = server.requests
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    body = json.loads(request["body"])
    assert body["query"] == QUERY
    if api == "tei":
        assert body["texts"] == TEXTS and "model" not in body and body["truncate"] is True
    else:
        assert body["documents"] == TEXTS and body["model"] == reranker.model
    if api == "voyage":
        assert "top_n" not in body and body["top_k"] is None
    if api == "jina":
        assert body["top_n"] == len(TEXTS) and body["return_documents"] is False


@pytest.mark.parametrize("mode", MODES)
def test_tei_sends_batches_within_its_client_limit(mode: str) -> None:
    texts = [f"retry number {i}" if i % 3 else f"other {i}" for i in range(70)]
    with fake_rerank("tei", max_batch=32) as server:
        got = scores(TEIReranker(server.url), mode, texts)
    assert [len(b["texts"]) for b in server.bodies()] == [32, 32, 6]
    assert got == pytest.approx(expected(texts))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_429_with_retry_after_is_waited_for_then_succeeds(api: str, mode: str) -> None:
    with fake_rerank(api, key=KEY) as server:
        server.script(
            Scripted(429, error_body(api, 429, "too many requests"), {"Retry-After": "0.3"})
        )
        got = scores(make(api, server.url), mode)
    assert got == pytest.approx(expected())
    first, second = server.requests
    assert second["at"] - first["at"] >= 0.25  # the server's wait was honoured


@pytest.mark.parametrize("api", APIS)
def test_retry_after_longer_than_allowed_is_a_rate_limit_error_at_once(api: str) -> None:
    with fake_rerank(api, key=KEY) as server:
        server.script(Scripted(429, error_body(api, 429, "slow down"), {"Retry-After": "120"}))
        with pytest.raises(RateLimitError) as info:
            scores(make(api, server.url, max_retry_wait=1.0), "sync")
    assert info.value.retry_after == 120 and len(server.requests) == 1
    assert "slow down" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_slow_drip_hits_the_total_deadline(api: str, mode: str) -> None:
    body = {"results": [{"index": i, "relevance_score": 0.5} for i in range(len(TEXTS))]}
    with fake_rerank(api, key=KEY) as server:
        # one byte every 0.1 s: each read is quick, the whole answer would take minutes
        server.script(Scripted(200, body, drip=0.1))
        reranker = make(api, server.url, deadline=1.0, max_retries=0, timeout=5.0)
        with pytest.raises(SearchTimeoutError):
            scores(reranker, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
def test_key_never_follows_a_redirect_to_another_origin(api: str, mode: str) -> None:
    with serve(Reply(200, [])) as elsewhere, fake_rerank(api, key=KEY) as server:
        server.script(Scripted(307, b"", {"Location": f"{elsewhere.url}/v1/rerank"}))
        with pytest.raises(ProviderError) as info:
            scores(make(api, server.url), mode)
    assert info.value.code == "cross_origin_redirect"
    assert elsewhere.requests == []
    assert KEY not in str(info.value) and KEY not in repr(info.value.__cause__)


def _results(api: str, items: list[dict[str, Any]]) -> Any:
    if api == "tei":
        return [{"score" if k == "relevance_score" else k: v for k, v in i.items()} for i in items]
    if api == "voyage":
        return {"object": "list", "data": items}
    return {"results": items}


MALFORMED: list[tuple[str, Any]] = [
    (
        "out of range",
        [{"index": 5, "relevance_score": 0.1}]
        + [{"index": i, "relevance_score": 0.1} for i in range(4)],
    ),
    (
        "negative",
        [{"index": -1, "relevance_score": 0.1}]
        + [{"index": i, "relevance_score": 0.1} for i in range(1, 5)],
    ),
    (
        "twice",
        [{"index": 0, "relevance_score": 0.1}] * 2
        + [{"index": i, "relevance_score": 0.1} for i in range(2, 5)],
    ),
    ("too few", [{"index": i, "relevance_score": 0.1} for i in range(3)]),
    ("too many", [{"index": i, "relevance_score": 0.1} for i in range(6)]),
    ("nan", [{"index": i, "relevance_score": math.nan if i == 2 else 0.1} for i in range(5)]),
    ("string score", [{"index": i, "relevance_score": "high"} for i in range(5)]),
    (
        "bool index",
        [{"index": True, "relevance_score": 0.1}]
        + [{"index": i, "relevance_score": 0.1} for i in range(1, 5)],
    ),
    ("no score", [{"index": i} for i in range(5)]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("case", "items"), MALFORMED, ids=[c for c, _ in MALFORMED])
def test_malformed_and_out_of_range_results(api: str, mode: str, case: str, items: Any) -> None:
    payload = _results(api, items)
    raw = json.dumps(payload).encode()  # NaN is written as the bare word NaN
    with fake_rerank(api, key=KEY) as server:
        server.script(Scripted(200, raw))
        with pytest.raises(ResponseFormatError):
            scores(make(api, server.url), mode)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("raw", [b"", b"not json", b'{"results": 3}', b"[1, 2]", b"null"])
def test_bodies_that_are_not_the_documented_shape(api: str, raw: bytes) -> None:
    with fake_rerank(api, key=KEY) as server:
        server.script(Scripted(200, raw))
        with pytest.raises(ResponseFormatError):
            scores(make(api, server.url), "sync")


@pytest.mark.parametrize("api", APIS)
def test_oversized_answer_is_refused(api: str) -> None:
    with serve() as server:
        server.enqueue(Reply(200, oversize=2_000_000))
        reranker = make(api, server.url, max_response_bytes=100_000)
        with pytest.raises(ResponseFormatError, match="limit"):
            scores(reranker, "sync")


@pytest.mark.parametrize(
    ("api", "status", "error"),
    [
        ("cohere", 401, AuthenticationError),
        ("cohere", 498, AuthenticationError),
        ("cohere", 400, BadRequestError),
        ("jina", 402, QuotaExceededError),
        ("jina", 422, ProviderError),
        ("voyage", 400, BadRequestError),
        ("tei", 422, ProviderError),
    ],
)
def test_error_bodies_map_to_the_documented_errors(api: str, status: int, error: type) -> None:
    message = "model rerank-x does not exist" if status != 402 else "balance is empty"
    with fake_rerank(api, key=KEY) as server:
        server.script(Scripted(status, error_body(api, status, message)))
        with pytest.raises(error) as info:
            scores(make(api, server.url), "sync")
    assert message in str(info.value) and info.value.status_code == status
    assert len(server.requests) == 1  # not retried


def test_tei_424_is_not_retried_and_fastapi_detail_lists_are_read() -> None:
    with fake_rerank("tei") as server:
        server.script(Scripted(424, {"error": "model is not a re-ranker", "error_type": "Backend"}))
        with pytest.raises(ProviderError, match="not a re-ranker"):
            scores(TEIReranker(server.url), "sync")
        assert len(server.requests) == 1
    with fake_rerank("jina", key=KEY) as server:
        detail = {"detail": [{"loc": ["body", "query"], "msg": "field required"}]}
        server.script(Scripted(422, detail))
        with pytest.raises(ProviderError, match="field required"):
            scores(make("jina", server.url), "sync")


def test_server_errors_are_retried_then_reported(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="textsearch")
    with fake_rerank("cohere", key=KEY) as server:
        server.script(*[Scripted(503, error_body("cohere", 503, "unavailable"))] * 3)
        reranker = make("cohere", server.url, max_retries=2, max_retry_wait=0.05)
        with pytest.raises(ProviderError) as info:
            scores(reranker, "sync")
    assert info.value.status_code == 503 and len(server.requests) == 3
    assert KEY not in caplog.text and KEY not in str(info.value)


def test_missing_key_names_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    for cls, env in ((CohereReranker, "CO_API_KEY"), (JinaReranker, "JINA_API_KEY"),
                     (VoyageReranker, "VOYAGE_API_KEY")):  # fmt: skip
        monkeypatch.delenv(env, raising=False)
        with pytest.raises(ConfigurationError) as info:
            cls()
        assert "api_key=" in str(info.value) and env in str(info.value)
        monkeypatch.setenv(env, KEY)
        made = cls()
        assert KEY not in repr(made)
        made.close()


def test_local_servers_need_no_key_and_base_url_is_an_origin() -> None:
    with fake_rerank("jina") as server:  # vLLM / llama.cpp: no key
        got = scores(JinaReranker("BAAI/bge-reranker-v2-m3", base_url=server.url), "sync")
        assert "Authorization" not in server.requests[0]["headers"]
    assert got == pytest.approx(expected())
    with pytest.raises(ConfigurationError, match="origin"):
        JinaReranker(base_url="http://127.0.0.1:8000/v1")
    with pytest.raises(ConfigurationError, match="base_url"):
        TEIReranker()
    with pytest.raises(ConfigurationError):
        CohereReranker(api_key=KEY, base_url="ftp://example.com")


def test_bad_input_is_refused_before_any_request() -> None:
    with fake_rerank("cohere", key=KEY) as server:
        reranker = make("cohere", server.url)
        with pytest.raises(InvalidRequestError):
            reranker.rerank_sync("  ", ["a"])
        with pytest.raises(InvalidRequestError):
            reranker.rerank_sync("q", "not a list")
        with pytest.raises(InvalidRequestError):
            reranker.rerank_sync("q", ["a", 3])
        assert reranker.rerank_sync("q", []) == []
        reranker.close()
    assert server.requests == []
