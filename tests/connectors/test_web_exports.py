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
