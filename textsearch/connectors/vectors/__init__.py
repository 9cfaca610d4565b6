"""Vector databases: Chroma, Qdrant and Milvus behind the ``TextSearch`` methods.

Each connector imports its store's client only when it is built (extras ``chroma``,
``qdrant``, ``milvus``); ``import textsearch.connectors.vectors`` loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textsearch import _lazy
from textsearch import registry as _registry

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

# Read from the provider registry, like the exports of textsearch.connectors. (No __dir__
# of its own: dir() lists a store's names once they are loaded.)
_LAZY = _registry.lazy_exports(
    spec for spec in _registry.BUILTIN_PROVIDERS if spec.module.startswith(__name__ + ".")
)

__getattr__ = _lazy.lazy_getattr(__name__, globals(), _LAZY)
