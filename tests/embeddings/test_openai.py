"""OpenAIEmbedder against respx: exact requests, order, batching, every error shape."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import struct
from typing import Any

import httpx
import pytest
import respx

from textsearch.embeddings import Embedder, OpenAIEmbedder, embed_documents_sync
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    ServiceUnavailableError,
)

KEY = "sk-proj-SECRET0123456789abcdefXYZ"
URL = "https://api.openai.com/v1/embeddings"
MODES = ["async", "sync"]


@pytest.fixture(autouse=True)
def _no_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def vector(i: int, dims: int = 4) -> list[float]:
    return [round(0.1 * (i + 1) + 0.01 * d, 4) for d in range(dims)]


def answer(count: int, dims: int = 4, *, order: list[int] | None = None) -> dict[str, Any]:
    """An OpenAI /embeddings body; ``order`` lists the indexes in the order they are sent."""
    order = list(range(count)) if order is None else order
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": vector(i, dims)} for i in order],
        "model": "text-embedding-3-small",
        "usage": {"prompt_tokens": 3 * count, "total_tokens": 3 * count},
    }


def openai_error(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def make(**kwargs: Any) -> OpenAIEmbedder:
    kwargs.setdefault("api_key", KEY)
    kwargs.setdefault("max_retry_wait", 0)
    kwargs.setdefault("dimensions", None)
    embedder = OpenAIEmbedder(kwargs.pop("model", "embed-test"), **kwargs)
    return embedder


def run(embedder: OpenAIEmbedder, mode: str, method: str, *args: Any) -> Any:
    if mode == "sync":
        try:
            return getattr(embedder, method + "_sync")(*args)
        finally:
            embedder.close()

    async def go() -> Any:
        async with embedder:
            return await getattr(embedder, method)(*args)

    return asyncio.run(go())


# -- requests and answers -------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@respx.mock
def test_request_shape_and_order_by_index(mode: str) -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=answer(3, order=[2, 0, 1])))
    embedder = make()
    assert isinstance(embedder, Embedder)
    vectors = run(embedder, mode, "embed_documents", ["alpha", "beta", "gamma"])
    assert vectors == [vector(0), vector(1), vector(2)]
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"].startswith("application/json")
    assert json.loads(request.content) == {
        "model": "embed-test",
        "input": ["alpha", "beta", "gamma"],
        "encoding_format": "float",
    }


@pytest.mark.parametrize("mode", MODES)
@respx.mock
def test_dimensions_are_sent_and_enforced(mode: str) -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=answer(1, dims=8)))
    embedder = make(dimensions=8)
    assert run(embedder, mode, "embed_query", "hello") == vector(0, 8)
    assert json.loads(route.calls.last.request.content)["dimensions"] == 8
    assert embedder.dimensions == 8

    respx.post(URL).mock(return_value=httpx.Response(200, json=answer(1, dims=4)))
    with pytest.raises(ResponseFormatError, match="4 dimensions, expected 8"):
        run(make(dimensions=8), mode, "embed_query", "hello")


def test_known_and_learnt_dimensions() -> None:
    assert make(model="text-embedding-3-small").dimensions == 1536
    assert make(model="text-embedding-3-large").dimensions == 3072
    custom = make(model="nomic-embed-text", base_url="http://localhost:11434/v1")
    assert custom.dimensions is None
    with respx.mock:
        respx.post("http://localhost:11434/v1/embeddings").mock(
            return_value=httpx.Response(200, json=answer(2, dims=6))
        )
        custom.embed_documents_sync(["a", "b"])
    assert custom.dimensions == 6


@pytest.mark.parametrize("mode", MODES)
@respx.mock
def test_batches_keep_input_order(mode: str) -> None:
    texts = [f"text {i}" for i in range(5)]

    def reply(request: httpx.Request) -> httpx.Response:
        batch = json.loads(request.content)["input"]
        offset = int(batch[0].split()[1])
        data = [
            {"object": "embedding", "index": i, "embedding": vector(offset + i)}
            for i in reversed(range(len(batch)))
        ]
        return httpx.Response(200, json={"object": "list", "data": data, "model": "m"})

    route = respx.post(URL).mock(side_effect=reply)
    vectors = run(make(batch_size=2), mode, "embed_documents", texts)
    assert vectors == [vector(i) for i in range(5)]
    assert [json.loads(c.request.content)["input"] for c in route.calls] == [
        ["text 0", "text 1"],
        ["text 2", "text 3"],
        ["text 4"],
    ]


@pytest.mark.parametrize("mode", MODES)
@respx.mock
def test_base64_encoding(mode: str) -> None:
    values = [0.25, -1.5, 3.0, 0.125]
    packed = base64.b64encode(struct.pack("<4f", *values)).decode()
    body = {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": packed}]}
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=body))
    embedder = make(encoding_format="base64", model="m")
    assert run(embedder, mode, "embed_query", "q") == values
    assert json.loads(route.calls.last.request.content)["encoding_format"] == "base64"


@respx.mock
def test_prefixes() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=answer(1)))
    embedder = make(model="m", query_prefix="search_query: ", document_prefix="search_document: ")
    embedder.embed_query_sync("how")
    embedder.embed_documents_sync(["doc"])
    sent = [json.loads(c.request.content)["input"] for c in route.calls]
    assert sent == [["search_query: how"], ["search_document: doc"]]


@respx.mock
def test_empty_list_sends_nothing_and_empty_text_is_refused() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=answer(1)))
    embedder = make()
    assert embedder.embed_documents_sync([]) == []
    assert asyncio.run(embedder.embed_documents([])) == []
    with pytest.raises(InvalidRequestError, match="text 1 is empty"):
        embedder.embed_documents_sync(["fine", "  "])
    with pytest.raises(InvalidRequestError):
        embedder.embed_documents_sync("not a list")
    assert route.call_count == 0


@respx.mock
def test_azure_openai_deployment_url_and_api_key_header() -> None:
    base = "https://contoso.openai.azure.com/openai/deployments/embed-small?api-version=2024-10-21"
    route = respx.post(
        "https://contoso.openai.azure.com/openai/deployments/embed-small/embeddings",
        params={"api-version": "2024-10-21"},
    ).mock(return_value=httpx.Response(200, json=answer(1)))
    embedder = make(model="embed-small", base_url=base, auth_header="api-key")
    assert embedder.embed_query_sync("hi") == vector(0)
    request = route.calls.last.request
    assert request.headers["api-key"] == KEY
    assert "authorization" not in request.headers
    assert "api-version" not in repr(embedder) and KEY not in repr(embedder)


# -- configuration ---------------------------------------------------------------------------


def test_missing_key_names_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError) as info:
        OpenAIEmbedder()
    assert "api_key=" in str(info.value) and "OPENAI_API_KEY" in str(info.value)
    with pytest.raises(ConfigurationError):
        OpenAIEmbedder(base_url="https://llm.example.com/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert OpenAIEmbedder()._headers == {"Authorization": f"Bearer {KEY}"}


@pytest.mark.parametrize(
    "base_url",
    [
        "http://localhost:11434/v1",
        "http://127.0.0.1:8000/v1",
        "http://127.8.9.10:8080",
        "http://[::1]:1234/v1",
        "http://embed.localhost/v1",
    ],
)
def test_local_servers_need_no_key(base_url: str) -> None:
    embedder = OpenAIEmbedder("nomic-embed-text", base_url=base_url)
    assert embedder._headers == {}


def test_base_url_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:1234/v1/")
    embedder = OpenAIEmbedder("text-embedding-nomic-embed-text-v1.5")
    assert embedder.base_url == "http://localhost:1234/v1"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": ""},
        {"dimensions": 0},
        {"dimensions": True},
        {"batch_size": 0},
        {"batch_size": 5000},
        {"max_concurrency": 0},
        {"encoding_format": "binary"},
        {"base_url": "ftp://example.com"},
        {"base_url": "https://user:pw@example.com/v1"},
        {"auth_header": "bad header"},
        {"timeout": -1},
        {"max_retries": -1},
        {"http_client": object()},
        {"api_key": "sk-bad\nkey-0123456789"},
    ],
)
def test_bad_settings_are_configuration_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        make(**kwargs)


# -- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("status", "body", "error", "calls"),
    [
        (
            401,
            openai_error(
                f"Incorrect API key provided: {KEY}. You can find your API key at "
                "https://platform.openai.com/account/api-keys.",
                "invalid_request_error",
                "invalid_api_key",
            ),
            AuthenticationError,
            1,
        ),
        (
            429,
            openai_error(
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota",
                "insufficient_quota",
            ),
            QuotaExceededError,
            1,
        ),
        (
            400,
            openai_error(
                "This model's maximum context length is 8192 tokens, however you requested "
                "9000 tokens. Please reduce your prompt.",
                "invalid_request_error",
                None,
            ),
            BadRequestError,
            1,
        ),
        (
            404,
            openai_error(
                "The model `text-embedding-4` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            ),
            NotFoundError,
            1,
        ),
        (
            403,
            openai_error(
                "Country, region, or territory not supported",
                "request_forbidden",
                "unsupported_country_region_territory",
            ),
            PermissionDeniedError,
            1,
        ),
        (
            500,
            openai_error(
                "The server had an error while processing your request.", "server_error", None
            ),
            ServiceUnavailableError,
            2,
        ),
        (503, {"error": "model is loading"}, ServiceUnavailableError, 2),
    ],
)
@respx.mock
def test_error_mapping(
    mode: str, status: int, body: dict[str, Any], error: type[ProviderError], calls: int
) -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(status, json=body))
    with pytest.raises(error) as info:
        run(make(max_retries=1), mode, "embed_documents", ["x"])
    assert type(info.value) is error
    assert info.value.status_code == status
    assert route.call_count == calls
    text = str(info.value) + repr(info.value) + " ".join(info.value.hints)
    assert KEY not in text
    if isinstance(body["error"], dict):
        assert body["error"]["message"].split(":")[0] in str(info.value)


@pytest.mark.parametrize("mode", MODES)
@respx.mock
def test_rate_limit_is_retried_with_retry_after(mode: str) -> None:
    limited = httpx.Response(
        429,
        headers={"Retry-After": "0"},
        json=openai_error(
            "Rate limit reached for text-embedding-3-small on tokens per min (TPM).",
            "tokens",
            "rate_limit_exceeded",
        ),
    )
    route = respx.post(URL).mock(side_effect=[limited, httpx.Response(200, json=answer(1))])
    assert run(make(), mode, "embed_query", "q") == vector(0)
    assert route.call_count == 2

    respx.post(URL).mock(
        return_value=httpx.Response(429, headers={"Retry-After": "30"}, json=limited.json())
    )
    with pytest.raises(RateLimitError) as info:
        run(make(max_retry_wait=5), mode, "embed_query", "q")
    assert info.value.retry_after == 30
    assert info.value.code == "rate_limit_exceeded"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (
            {
                "object": "error",
                "message": "model 'x' not found",
                "type": "NotFoundError",
                "code": 404,
            },
            "model 'x' not found",
        ),
        (
            {
                "error": "Input validation error: `inputs` cannot be empty",
                "error_type": "Validation",
            },
            "cannot be empty",
        ),
        ({"statusCode": 400, "message": "Bad deployment"}, "Bad deployment"),
        ("<html>gateway</html>", "Bad Request"),
    ],
)
@respx.mock
def test_compatible_servers_error_shapes(body: Any, error: str) -> None:
    response = (
        httpx.Response(400, json=body)
        if not isinstance(body, str)
        else httpx.Response(400, text=body)
    )
    respx.post(URL).mock(return_value=response)
    with pytest.raises(BadRequestError, match=error):
        make().embed_query_sync("q")


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (b"not json", "not a JSON object"),
        ({"object": "list"}, "no 'data' list"),
        ({"data": [{"index": 0, "embedding": [0.1, 0.2]}]}, "1 embeddings for 2 texts"),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 0, "embedding": [0.2]}]}, "twice"),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 5, "embedding": [0.2]}]}, "index 5"),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 1}]}, "no 'embedding'"),
        (
            {"data": [{"index": 0, "embedding": [0.1]}, {"index": 1, "embedding": [0.1, 0.2]}]},
            "2 dimensions",
        ),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 1, "embedding": ["x"]}]}, "str"),
        (
            {"data": [{"index": 0, "embedding": [0.1]}, {"index": 1, "embedding": [1e999]}]},
            "not finite",
        ),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 1, "embedding": []}]}, "non-empty"),
        ({"data": [{"index": 0, "embedding": [0.1]}, {"index": 1, "embedding": "@@@"}]}, "base64"),
    ],
)
@respx.mock
def test_malformed_answers_are_response_format_errors(payload: Any, match: str) -> None:
    content = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    respx.post(URL).mock(return_value=httpx.Response(200, content=content))
    embedder = make(model="m")
    with pytest.raises(ResponseFormatError, match=match):
        embedder.embed_documents_sync(["a", "b"])
    with pytest.raises(ResponseFormatError, match=match):
        embed_documents_sync(embedder, ["a", "b"])


@respx.mock
def test_oversized_answer_is_refused() -> None:
    respx.post(URL).mock(return_value=httpx.Response(200, content=b" " * 5000))
    with pytest.raises(ResponseFormatError, match="byte limit"):
        make(max_response_bytes=1000).embed_query_sync("q")


@respx.mock
def test_key_never_reaches_logs_or_errors(caplog: pytest.LogCaptureFixture) -> None:
    respx.post(URL).mock(
        return_value=httpx.Response(
            401,
            json=openai_error(
                f"Incorrect API key provided: {KEY}", "invalid_request_error", "invalid_api_key"
            ),
        )
    )
    embedder = make()
    with caplog.at_level(logging.DEBUG), pytest.raises(AuthenticationError) as info:
        embedder.embed_query_sync("q")
    assert KEY not in caplog.text
    assert KEY not in str(info.value) and KEY not in repr(embedder)
    assert "OPENAI_API_KEY" in " ".join(info.value.hints)


@respx.mock
def test_concurrent_batches_keep_order_and_stop_at_the_first_failure() -> None:
    in_flight = 0
    peak = 0
    sent: list[list[str]] = []

    async def reply(request: httpx.Request) -> httpx.Response:
        nonlocal in_flight, peak
        sent.append(json.loads(request.content)["input"])
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        batch = json.loads(request.content)["input"]
        if batch == ["boom"]:
            return httpx.Response(
                400, json=openai_error("bad input", "invalid_request_error", None)
            )
        offset = int(batch[0].split()[1])
        data = [
            {"object": "embedding", "index": i, "embedding": vector(offset + i)}
            for i in range(len(batch))
        ]
        return httpx.Response(200, json={"object": "list", "data": data})

    route = respx.post(URL).mock(side_effect=reply)
    texts = [f"text {i}" for i in range(10)]
    embedder = make(batch_size=2, max_concurrency=3)
    assert run(embedder, "async", "embed_documents", texts) == [vector(i) for i in range(10)]
    assert route.call_count == 5 and peak == 3

    sent.clear()
    with pytest.raises(BadRequestError, match="bad input"):
        run(make(batch_size=1, max_concurrency=2), "async", "embed_documents", ["boom", *texts])
    assert sent[:2] == [["boom"], ["text 0"]]
    assert len(sent) <= 3, sent  # the batches after the failure were not sent
