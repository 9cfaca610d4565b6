"""Vector databases: Chroma, Qdrant and Milvus behind the ``TextSearch`` methods.

Each connector imports its store's client only when it is built (extras ``chroma``,
``qdrant``, ``milvus``); ``import textsearch.connectors.vectors`` loads none of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textsearch.connectors.vectors.chroma import ChromaDocument, ChromaTextSearch
    from textsearch.connectors.vectors.milvus import MilvusDocument, MilvusTextSearch
    from textsearch.connectors.vectors.qdrant import QdrantDocument, QdrantTextSearch

__all__ = [
    "ChromaDocument",
    "ChromaTextSearch",
    "MilvusDocument",
    "MilvusTextSearch",
    "QdrantDocument",
    "QdrantTextSearch",
]

_MODULES = {
    "ChromaDocument": "textsearch.connectors.vectors.chroma",
    "ChromaTextSearch": "textsearch.connectors.vectors.chroma",
    "MilvusDocument": "textsearch.connectors.vectors.milvus",
    "MilvusTextSearch": "textsearch.connectors.vectors.milvus",
    "QdrantDocument": "textsearch.connectors.vectors.qdrant",
    "QdrantTextSearch": "textsearch.connectors.vectors.qdrant",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
