"""Shared fixtures: no test depends on the developer's environment or reaches the internet."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

_SECRET_VARS = (
    "BING_SEARCH_API_KEY",
    "BOCHA_API_KEY",
    "AZURE_SEARCH_API_KEY",
    "AZURE_SEARCH_ENDPOINT",
    "AZURE_SEARCH_INDEX",
    "BRAVE_SEARCH_API_KEY",
    "TAVILY_API_KEY",
    "EXA_API_KEY",
    "SEARXNG_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
)

# Keys of live services, captured before the autouse fixture clears them; live tests opt in.
LIVE_ENV = {name: os.environ[name] for name in _SECRET_VARS if os.environ.get(name)}


@pytest.fixture(autouse=True)
def _clean_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in _SECRET_VARS:
            monkeypatch.delenv(name, raising=False)
    # The CLI keeps index caches under XDG_CACHE_HOME: never the developer's own.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    yield


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
