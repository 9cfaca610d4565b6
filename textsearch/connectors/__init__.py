"""Connectors, one module per backend; each is imported only when first used.

``from textsearch.connectors import BingTextSearch`` loads only the Bing module, and the Azure
connector loads the Azure SDK only when it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textsearch.connectors.azure_ai_search import AzureAISearchTextSearch, AzureSearchDocument
    from textsearch.connectors.local import LocalDocument, LocalTextSearch
    from textsearch.connectors.postgres import PostgresDocument, PostgresTextSearch
    from textsearch.connectors.vectors.chroma import ChromaDocument, ChromaTextSearch
    from textsearch.connectors.vectors.milvus import MilvusDocument, MilvusTextSearch
    from textsearch.connectors.vectors.qdrant import QdrantDocument, QdrantTextSearch
    from textsearch.connectors.web.bing import BingTextSearch, BingWebPage
    from textsearch.connectors.web.bocha import BochaTextSearch, BochaWebPage
    from textsearch.connectors.web.brave import BraveTextSearch, BraveWebResult
    from textsearch.connectors.web.exa import ExaResult, ExaTextSearch
    from textsearch.connectors.web.searxng import SearxngResult, SearxngTextSearch
    from textsearch.connectors.web.tavily import TavilyResult, TavilyTextSearch

__all__ = [
    "AzureAISearchTextSearch",
    "AzureSearchDocument",
    "BingTextSearch",
    "BingWebPage",
    "BochaTextSearch",
    "BochaWebPage",
    "LocalDocument",
    "LocalTextSearch",
    # live web connectors (DESIGN 10.2)
    "BraveTextSearch",
    "BraveWebResult",
    "TavilyTextSearch",
    "TavilyResult",
    "ExaTextSearch",
    "ExaResult",
    "SearxngTextSearch",
    "SearxngResult",
    "PostgresDocument",
    "PostgresTextSearch",
    # vector databases (DESIGN 11.3)
    "ChromaDocument",
    "ChromaTextSearch",
    "QdrantDocument",
    "QdrantTextSearch",
    "MilvusDocument",
    "MilvusTextSearch",
]

#: public name -> module that defines it
LAZY_EXPORTS: dict[str, str] = {
    "LocalTextSearch": "textsearch.connectors.local",
    "LocalDocument": "textsearch.connectors.local",
    "AzureAISearchTextSearch": "textsearch.connectors.azure_ai_search",
    "AzureSearchDocument": "textsearch.connectors.azure_ai_search",
    "BingTextSearch": "textsearch.connectors.web.bing",
    "BingWebPage": "textsearch.connectors.web.bing",
    "BochaTextSearch": "textsearch.connectors.web.bocha",
    "BochaWebPage": "textsearch.connectors.web.bocha",
    "BraveTextSearch": "textsearch.connectors.web.brave",
    "BraveWebResult": "textsearch.connectors.web.brave",
    "TavilyTextSearch": "textsearch.connectors.web.tavily",
    "TavilyResult": "textsearch.connectors.web.tavily",
    "ExaTextSearch": "textsearch.connectors.web.exa",
    "ExaResult": "textsearch.connectors.web.exa",
    "SearxngTextSearch": "textsearch.connectors.web.searxng",
    "SearxngResult": "textsearch.connectors.web.searxng",
    "PostgresTextSearch": "textsearch.connectors.postgres",
    "PostgresDocument": "textsearch.connectors.postgres",
    "ChromaTextSearch": "textsearch.connectors.vectors.chroma",
    "ChromaDocument": "textsearch.connectors.vectors.chroma",
    "QdrantTextSearch": "textsearch.connectors.vectors.qdrant",
    "QdrantDocument": "textsearch.connectors.vectors.qdrant",
    "MilvusTextSearch": "textsearch.connectors.vectors.milvus",
    "MilvusDocument": "textsearch.connectors.vectors.milvus",
}


def __getattr__(name: str) -> Any:
    module = LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
