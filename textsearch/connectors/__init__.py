"""Connectors, one module per backend; each is imported only when first used.

The names exported here come from the provider registry (`textsearch.registry`).

``from textsearch.connectors import BingTextSearch`` loads only the Bing module, and the Azure
connector loads the Azure SDK only when it is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textsearch import _lazy
from textsearch.registry import lazy_exports

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

#: public name -> module that defines it, read from the provider registry. ``__all__`` and
#: the ``TYPE_CHECKING`` imports above stay written out for static type checkers; a test
#: keeps them equal to this table.
LAZY_EXPORTS: dict[str, str] = lazy_exports()

__getattr__ = _lazy.lazy_getattr(__name__, globals(), LAZY_EXPORTS)
__dir__ = _lazy.public_dir(globals())
