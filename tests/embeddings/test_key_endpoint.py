"""Issue #33 item 7: ``OPENAI_API_KEY`` goes only to the endpoint it belongs to.

``--embedder ollama:MODEL`` sent it to whatever listened on the Ollama address; a
``base_url=`` naming another server sent it there too.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from textsearch import ConfigurationError
from textsearch.embeddings import OpenAIEmbedder, from_spec

KEY = "sk-env-key-0123456789abcdef"


def _answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2, 0.3]}],
            "model": "nomic-embed-text",
            "usage": {"prompt_tokens": 2, "total_tokens": 2},
        },
    )


@pytest.fixture
def env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


def _sent_headers(embedder: Any, url: str) -> httpx.Headers:
    with respx.mock(assert_all_called=True) as router:
        route = router.post(url).mock(side_effect=_answer)
        assert embedder.embed_query_sync("retry") == [0.1, 0.2, 0.3]
    return route.calls.last.request.headers


@pytest.mark.parametrize(
    ("host", "url"),
    [
        (None, "http://localhost:11434/v1/embeddings"),
        ("127.0.0.1:11500", "http://127.0.0.1:11500/v1/embeddings"),
        ("gpu-box.example:11434", "http://gpu-box.example:11434/v1/embeddings"),
    ],
)
def test_the_ollama_spec_never_sends_the_openai_key(
    env_key: None, monkeypatch: pytest.MonkeyPatch, host: str | None, url: str
) -> None:
    if host is not None:
        monkeypatch.setenv("OLLAMA_HOST", host)
    headers = _sent_headers(from_spec("ollama:nomic-embed-text"), url)
    assert "authorization" not in headers
    assert KEY not in str(headers)


def test_a_local_base_url_does_not_get_the_environment_key(env_key: None) -> None:
    embedder = OpenAIEmbedder("nomic-embed-text", base_url="http://127.0.0.1:8000/v1")
    assert "authorization" not in _sent_headers(embedder, "http://127.0.0.1:8000/v1/embeddings")


def test_another_remote_server_needs_its_own_key(env_key: None) -> None:
    with pytest.raises(ConfigurationError, match="api_key=") as info:
        OpenAIEmbedder("m", base_url="https://gateway.example/v1")
    assert KEY not in str(info.value)
    own = OpenAIEmbedder("m", base_url="https://gateway.example/v1", api_key="gw-key-1234")
    headers = _sent_headers(own, "https://gateway.example/v1/embeddings")
    assert headers["authorization"] == "Bearer gw-key-1234"


def test_the_key_still_goes_where_it_belongs(
    env_key: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = OpenAIEmbedder("m")
    url = "https://api.openai.com/v1/embeddings"
    assert _sent_headers(default, url)["authorization"] == f"Bearer {KEY}"
    explicit = OpenAIEmbedder("m", base_url="https://api.openai.com/v1")
    assert _sent_headers(explicit, url)["authorization"] == f"Bearer {KEY}"
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example/v1")
    proxied = OpenAIEmbedder("m", base_url="https://proxy.example/openai/v1")
    headers = _sent_headers(proxied, "https://proxy.example/openai/v1/embeddings")
    assert headers["authorization"] == f"Bearer {KEY}"
