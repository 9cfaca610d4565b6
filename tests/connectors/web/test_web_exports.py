"""The web connectors' public names import lazily and are listed."""

from __future__ import annotations

import importlib

import pytest

import textsearch
import textsearch.connectors

NAMES = [
    "BingTextSearch",
    "BingWebPage",
    "BochaTextSearch",
    "BochaWebPage",
    "BraveTextSearch",
    "BraveWebResult",
    "TavilyTextSearch",
    "TavilyResult",
    "ExaTextSearch",
    "ExaResult",
    "SearxngTextSearch",
    "SearxngResult",
]


@pytest.mark.parametrize("name", NAMES)
def test_lazy_exports_really_import(name: str) -> None:
    assert name in textsearch.__all__
    assert name in textsearch.connectors.__all__
    module = importlib.import_module(textsearch.connectors.LAZY_EXPORTS[name])
    assert getattr(textsearch, name) is getattr(module, name)
    assert getattr(textsearch.connectors, name) is getattr(module, name)


# DESIGN 10.2: the constructor keywords and defaults are a contract.
SIGNATURES = {
    "BraveTextSearch": {
        "api_key": None,
        "endpoint": "https://api.search.brave.com/res/v1/web/search",
    },
    "TavilyTextSearch": {
        "api_key": None,
        "base_url": "https://api.tavily.com",
        "search_depth": "basic",
        "topic": "general",
    },
    "ExaTextSearch": {
        "api_key": None,
        "base_url": "https://api.exa.ai",
        "search_type": "auto",
        "contents": "highlights",
    },
    "SearxngTextSearch": {"base_url": None, "api_key": None, "auth_header": None},
}
COMMON = ("http_client", "timeout", "max_retries", "max_retry_wait")


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_constructor_signatures_follow_the_design(name: str) -> None:
    import inspect

    parameters = inspect.signature(getattr(textsearch, name)).parameters
    first = next(iter(parameters.values()))
    assert first.name == next(iter(SIGNATURES[name]))  # the one positional argument
    assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    for keyword, default in SIGNATURES[name].items():
        assert parameters[keyword].default == default
    from textsearch.connectors.web._connector import WebSettings

    assert parameters["settings"].kind is inspect.Parameter.VAR_KEYWORD  # typed: WebSettings
    for keyword in COMMON:
        assert keyword in WebSettings.__annotations__
    assert [
        p for p in parameters.values() if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ] == [first]


@pytest.mark.parametrize(
    ("name", "top"),
    [("BraveTextSearch", 20), ("TavilyTextSearch", 20), ("ExaTextSearch", 100)],
)
def test_max_top_follows_the_design(name: str, top: int) -> None:
    assert getattr(textsearch, name).max_top == top
